/*!
 * \file relax_printer.cc
 * \brief Relax TVMScript printer, part 2 (stage 4): bindings, blocks, `if`, functions, and the
 * hooks into the stage-2 printer (function printers for `relax.expr.Function` and
 * `relax.expr.ExternFunc`, and a node printer for every other Relax node, which `AsScript`
 * ("script.AsScript") and the repr ("node.ReprFallback") of stage 2 use).
 */
#include "relax_printer.h"

#include "script/tir_utils.h"

namespace minitvm {
namespace relax {
namespace printer {

using namespace ::minitvm::script::printer;  // NOLINT(build/namespaces)

namespace {
/*! \brief Whether the struct info says "no value" (an empty tuple), as `R.print`'s result. */
bool HasVoidStructInfo(const Expr& e) {
  if (!e.defined() || !e->struct_info_.defined()) return false;
  auto* t = e->struct_info_.as<TupleStructInfoNode>();
  return t && t->fields.empty();
}
}  // namespace

// ---- bindings and blocks ----------------------------------------------------------------

StmtDoc RelaxPrinter::PrintIf(const IfNode* op, ExprDoc var, ExprDoc ann) {
  ExprDoc cond = PrintExpr(op->cond);
  std::vector<StmtDoc> branches[2] = {PrintSeqExpr(op->true_branch, false),
                                      PrintSeqExpr(op->false_branch, false)};
  if (var) {
    // Each branch ends by binding its result to the variable.
    for (std::vector<StmtDoc>& stmts : branches) {
      ExprDoc result = stmts.back()->rhs;
      stmts.back() = AssignDoc(var, result, ann);
    }
  }
  return IfDoc(cond, branches[0], branches[1]);
}

StmtDoc RelaxPrinter::PrintBinding(const Binding& binding) {
  Frame* frame = frames_.back();
  if (auto* b = binding.as<VarBindingNode>()) {
    if (auto* if_node = b->value.as<IfNode>()) {
      ExprDoc ann = BindingAnnotation(b->var, b->value);
      ExprDoc lhs = DefineVar(b->var, frame);
      return PrintIf(if_node, lhs, ann);
    }
    if (auto* func = b->value.as<FunctionNode>()) {
      // A local function prints as a nested `def` named by its variable.
      ExprDoc lhs = DefineVar(b->var, frame);
      return PrintFunction(GetRef<Function>(func), lhs->text, /*top_level=*/false);
    }
    if (HasVoidStructInfo(b->value) && HasVoidStructInfo(b->var)) {
      return ExprStmtDoc(PrintExpr(b->value));
    }
    ExprDoc rhs = PrintExpr(b->value);
    ExprDoc ann = BindingAnnotation(b->var, b->value);
    ExprDoc lhs = DefineVar(b->var, frame);
    return AssignDoc(lhs, rhs, ann);
  }
  if (auto* m = binding.as<MatchCastNode>()) {
    ExprDoc ann = BindingAnnotation(m->var, m->value);
    ExprDoc value = PrintExpr(m->value);
    ExprDoc rhs = CallDoc(RAttr("match_cast"), {value, PrintStructInfo(m->struct_info)});
    ExprDoc lhs = DefineVar(m->var, frame);
    return AssignDoc(lhs, rhs, ann);
  }
  MINITVM_THROW(TypeError) << "Relax printer: cannot print a binding of type "
                           << (binding.defined() ? binding->GetTypeKey() : std::string("null"));
}

StmtDoc RelaxPrinter::PrintBindingBlock(const BindingBlock& block) {
  std::vector<StmtDoc> stmts;
  std::vector<ExprDoc> outputs;
  bool dataflow = block.as<DataflowBlockNode>() != nullptr;
  for (const Binding& b : block->bindings) {
    stmts.push_back(PrintBinding(b));
    if (dataflow && b->var.defined() && !b->var.as<DataflowVarNode>()) {
      outputs.push_back(PrintExpr(b->var));
    }
  }
  if (!dataflow) return StmtBlockDoc(stmts);
  stmts.push_back(ExprStmtDoc(CallDoc(RAttr("output"), outputs)));
  return ScopeDoc(nullptr, CallDoc(RAttr("dataflow")), stmts);
}

std::vector<StmtDoc> RelaxPrinter::PrintSeqExpr(const Expr& expr, bool use_ret) {
  FrameScope f(this);
  Expr result = expr;
  if (auto* seq = expr.as<SeqExprNode>()) {
    for (const BindingBlock& block : seq->blocks) {
      StmtDoc doc = PrintBindingBlock(block);
      // A plain block's bindings go straight into the body (definitions printed on the way
      // come first, as in TVM).
      f.frame.stmts.push_back(doc);
    }
    result = seq->body;
  }
  ExprDoc ret = PrintExpr(result);
  f.frame.stmts.push_back(use_ret ? ReturnDoc(ret) : ExprStmtDoc(ret));
  // Splice the block docs so the caller sees a flat statement list (the last one the result).
  std::vector<StmtDoc> flat;
  for (const StmtDoc& s : f.frame.stmts) {
    if (s->kind == StmtDocNode::Kind::kBlock) {
      flat.insert(flat.end(), s->body.begin(), s->body.end());
    } else {
      flat.push_back(s);
    }
  }
  return flat;
}

// ---- functions --------------------------------------------------------------------------

StmtDoc RelaxPrinter::PrintFunction(const Function& func, const std::string& name, bool top_level) {
  std::unordered_set<const Object*> func_vars;
  FrameScope f(this);
  f.frame.is_func = true;
  f.frame.func_vars = &func_vars;
  // The parameters' names first (the return type may refer to a parameter: `R.Tensor(s)`),
  // then the return type, then the parameters' annotations: TVM's order for the symbolic
  // variables, which decides which one is declared first.
  std::vector<ExprDoc> param_names;
  for (const Var& p : func->params) param_names.push_back(DefineVar(p, &f.frame));
  ExprDoc ret;
  StructInfo ret_info = func->ret_struct_info;
  if (auto* fs = func->struct_info_.as<FuncStructInfoNode>()) ret_info = fs->ret;
  if (ret_info.defined()) ret = PrintStructInfo(ret_info);
  std::vector<StmtDoc> params;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Var& p = func->params[i];
    ExprDoc ann = p->struct_info_.defined() ? PrintStructInfo(Downcast<StructInfo>(p->struct_info_))
                                            : ExprDoc();
    params.push_back(AssignDoc(param_names[i], nullptr, ann));
  }
  f.frame.func_vars = nullptr;
  // Attributes: a top-level function's global symbol is implied by its name.
  if (!func->attrs.empty()) {
    Map<String, Any> attrs = func->attrs;
    auto symbol = attrs.Get(String("global_symbol"));
    if (top_level && symbol && symbol->is_string() && symbol->cast<std::string>() == name) {
      attrs.erase(String("global_symbol"));
    }
    if (!attrs.empty()) {
      f.frame.stmts.push_back(ExprStmtDoc(CallDoc(RAttr("func_attr"), {PrintAttrValue(attrs)})));
    }
  }
  std::vector<std::pair<std::string, ExprDoc>> dec_kwargs;
  if (!func->is_pure) dec_kwargs.emplace_back("pure", BoolDoc(false));
  if (top_level && !func->attrs.count(String("global_symbol"))) {
    dec_kwargs.emplace_back("private", BoolDoc(true));
  }
  ExprDoc decorator = RAttr("function");
  if (!dec_kwargs.empty()) decorator = CallDoc(decorator, {}, dec_kwargs);
  std::vector<StmtDoc> body = PrintSeqExpr(func->body, /*use_ret=*/true);
  std::vector<StmtDoc> stmts = f.frame.stmts;
  stmts.insert(stmts.end(), body.begin(), body.end());
  return FunctionDoc(name, params, {decorator}, ret, stmts);
}

StmtDoc RelaxPrinter::PrintExternFuncDef(const ExternFunc& func, const std::string& name) {
  return AssignDoc(IdDoc(name), PrintExpr(func));
}

// ---- nodes alone ------------------------------------------------------------------------

std::string RelaxPrinter::PrintNode(const ObjectRef& node) {
  PrintOptions render;
  render.indent_spaces = ctx_->options.indent_spaces;
  FrameScope f(this);
  StmtDoc doc;
  bool with_header = false;
  if (auto* func = node.as<FunctionNode>()) {
    // Named by its global symbol (or `main`), as TVM prints a function alone.
    std::string name = "main";
    auto symbol = func->attrs.Get(String("global_symbol"));
    if (symbol && symbol->is_string()) {
      std::string s = symbol->cast<std::string>();
      if (script::IsPythonIdentifier(s)) name = s;
    }
    doc = PrintFunction(GetRef<Function>(func), name, /*top_level=*/true);
    with_header = true;
  } else if (auto* b = node.as<BindingNode>()) {
    doc = PrintBinding(GetRef<Binding>(b));
  } else if (auto* block = node.as<BindingBlockNode>()) {
    doc = PrintBindingBlock(GetRef<BindingBlock>(block));
  } else if (node.as<SeqExprNode>()) {
    doc = StmtBlockDoc(PrintSeqExpr(Downcast<Expr>(node), false));
  } else if (auto* if_node = node.as<IfNode>()) {
    doc = PrintIf(if_node, nullptr, nullptr);
  } else if (auto* info = node.as<StructInfoNode>()) {
    // An expression alone prints as itself (no declarations of what it uses).
    return DocToPythonScript(PrintStructInfo(GetRef<StructInfo>(info)), render);
  } else if (auto* e = node.as<ExprNode>()) {
    return DocToPythonScript(PrintExpr(GetRef<Expr>(e)), render);
  } else {
    MINITVM_THROW(TypeError) << "Relax printer: cannot print a " << node->GetTypeKey();
  }
  std::vector<StmtDoc> stmts = f.frame.stmts;
  stmts.push_back(doc);
  std::string text = DocToPythonScript(stmts, render);
  if (with_header) text = script::ScriptHeader(ctx_->options, ctx_->used_dialects) + text;
  if (!ctx_->metadata.empty()) {
    text += std::string("\n# ") + script::kMetadataOmittedComment + "\n";
  }
  return text;
}

// ---- registration -----------------------------------------------------------------------

namespace {
/*! \brief The Relax nodes the node printer takes. */
bool IsRelaxNode(const ObjectRef& node) {
  if (!node.defined()) return false;
  if (node.as<StructInfoNode>() || node.as<BindingNode>() || node.as<BindingBlockNode>()) {
    return true;
  }
  const std::string key = node->GetTypeKey();
  return key.rfind("relax.expr.", 0) == 0;
}

std::string PrintRelaxNode(const ObjectRef& node, const script::ScriptOptions& options) {
  FunctionPrintContext ctx;
  ctx.options = options;
  RelaxPrinter p(&ctx);
  return p.PrintNode(node);
}

struct Registration {
  Registration() {
    script::RegisterFunctionPrinter(
        "relax.expr.Function", [](const BaseFunc& f, FunctionPrintContext* ctx) {
          RelaxPrinter p(ctx);
          return p.PrintFunction(Downcast<Function>(f), ctx->name, /*top_level=*/true);
        });
    script::RegisterFunctionPrinter(
        "relax.expr.ExternFunc", [](const BaseFunc& f, FunctionPrintContext* ctx) {
          RelaxPrinter p(ctx);
          return p.PrintExternFuncDef(Downcast<ExternFunc>(f), ctx->name);
        });
    script::RegisterNodePrinter("relax", script::NodePrinter{IsRelaxNode, PrintRelaxNode});
  }
};
const Registration registration;
}  // namespace

}  // namespace printer
}  // namespace relax
}  // namespace minitvm
