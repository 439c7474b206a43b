/*!
 * \file relax_parser_stmt.cc
 * \brief The TVMScript parser for Relax (stage 4): the statements of an `@R.function` body
 * (bindings, `with R.dataflow()`, `if`/`else`, `R.match_cast`, `return`), the function itself,
 * and its registration with the stage-2 script parser (`@R.function`, `from tvm.script import
 * relax as R`) through minitvm/script/parser_ext.h.
 *
 * Every binding is normalised as it is parsed (its struct info inferred by the BlockBuilder);
 * annotations are checked against the inferred struct info, and an inference error becomes a
 * ParseError pointing at the expression that failed.
 */
#include "minitvm/relax/op_attr.h"
#include "relax_parser_impl.h"

namespace minitvm {
namespace relax {
namespace parser {

using EK = ast::Expr::Kind;
using SK = ast::Stmt::Kind;
using RK = RValue::Kind;

namespace {

bool IsLeaf(const Expr& e) {
  if (auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (!IsLeaf(f)) return false;
    }
    return true;
  }
  return !(e.as<CallNode>() || e.as<IfNode>() || e.as<SeqExprNode>() || e.as<TupleGetItemNode>() ||
           e.as<FunctionNode>());
}

/*! \brief The span of the first `width` columns of a statement: its keyword. */
Span KeywordSpan(const Span& s, int width) { return Span{s.line, s.col, s.line, s.col + width}; }

RValue ExprValue(Expr e, const Span& span) {
  RValue v;
  v.kind = RK::kExpr;
  v.span = span;
  v.expr = std::move(e);
  return v;
}

}  // namespace

Expr RelaxEvaluator::Normalize(const Expr& e, const Span& span) {
  try {
    return bb_.Normalize(e);
  } catch (const minitvm::Error& err) {
    if (err.kind() == "ParseError") throw;
    Error(span, err.kind() + ": " + err.what());
  }
}

Expr RelaxEvaluator::Leaf(const Expr& e, const Span& span) {
  if (auto* t = e.as<TupleNode>()) {
    if (IsLeaf(e)) return e->struct_info_.defined() ? e : Normalize(e, span);
    Array<Expr> fields;
    for (const Expr& f : t->fields) fields.push_back(Leaf(f, span));
    return Normalize(Tuple(fields), span);
  }
  if (IsLeaf(e)) return e->struct_info_.defined() ? e : Normalize(e, span);
  std::string name;
  do {
    name = fresh_ == 0 ? "lv" : "lv" + std::to_string(fresh_);
    ++fresh_;
  } while (Lookup(name));
  std::string saved = stmt_binding_;
  Var v = EmitBinding(name, e, StructInfo(), span, span);
  stmt_binding_ = saved;
  return v;
}

void RelaxEvaluator::FlushBlock() {
  if (cur_.empty()) return;
  Array<Binding> bindings(cur_);
  if (in_dataflow_) {
    blocks_.push_back(DataflowBlock(bindings));
  } else {
    blocks_.push_back(BindingBlock(bindings));
  }
  cur_.clear();
}

Var RelaxEvaluator::EmitBinding(const std::string& name, const Expr& value, const StructInfo& ann,
                                const Span& value_span, const Span& ann_span) {
  Expr v = Normalize(value, value_span);
  if (!v->struct_info_.defined()) {
    Error(value_span, "internal: the value bound to \"" + name + "\" has no struct info");
  }
  StructInfo info = Downcast<StructInfo>(v->struct_info_);
  if (ann.defined()) {
    if (!IsBaseOf(ann, info)) {
      Error(ann_span, "the annotation " + StructInfoToString(ann) + " of \"" + name +
                          "\" does not match the struct info of its value, " +
                          StructInfoToString(info));
    }
    info = ann;
  }
  bool dataflow_var = in_dataflow_ && !dataflow_outputs_.count(name);
  Var var = dataflow_var ? Var(DataflowVar(name, info)) : Var(name, info);
  UpdateStructInfo(var, info);
  cur_.push_back(VarBinding(var, v));
  Bind(name, ExprValue(var, value_span));
  stmt_binding_ = name;
  last_name_ = name;
  last_var_ = var;
  return var;
}

// ---- statements -------------------------------------------------------------------------

void RelaxEvaluator::ParseBody(const std::vector<ast::StmtPtr>& body, bool is_function_body) {
  for (size_t k = 0; k < body.size(); ++k) {
    if (ret_) Error(body[k]->span, "unreachable statement after return");
    ParseStmt(*body[k], k + 1 == body.size(), is_function_body);
  }
}

void RelaxEvaluator::ParseStmt(const ast::Stmt& s, bool last, bool is_function_body) {
  stmt_span_ = s.span;
  stmt_binding_.clear();
  switch (s.kind) {
    case SK::kPass:
      return;
    case SK::kExpr: {
      const ast::Expr& e = *s.value;
      if (e.kind == EK::kConstant && e.const_kind == ast::Expr::ConstKind::kStr) return;
      if (e.kind == EK::kCall) {
        RValue callee = Eval(*e.children[0]);
        if (callee.kind == RK::kBuiltin && callee.str == "R.func_attr") {
          if (!is_function_body || in_dataflow_) {
            Error(s.span, "R.func_attr({...}) belongs at the top of the function body");
          }
          if (e.children.size() != 2 || !e.keywords.empty()) {
            Error(e.span, "R.func_attr takes one dict: R.func_attr({\"global_symbol\": \"main\"})");
          }
          RValue d = Eval(*e.children[1]);
          if (d.kind != RK::kDict) {
            Error(e.children[1]->span, "R.func_attr takes a dict, got " + d.TypeName());
          }
          Any m = AsAttr(d, e.children[1]->span);
          for (const auto& [k, v] : m.cast<Map<String, Any>>().items()) attrs_.Set(k, v);
          attrs_set_ = true;
          return;
        }
        if (callee.kind == RK::kBuiltin && callee.str == "R.output") {
          if (!in_dataflow_) Error(s.span, "R.output(...) is only allowed inside R.dataflow()");
          if (!last)
            Error(s.span, "R.output(...) must be the last statement of the dataflow block");
          if (!e.keywords.empty()) Error(e.keywords[0].span, "R.output takes no keyword arguments");
          for (size_t k = 1; k < e.children.size(); ++k) {
            const ast::Expr& a = *e.children[k];
            if (a.kind != EK::kName) Error(a.span, "R.output takes variable names");
            if (!scopes_.back().count(a.id)) {
              Error(a.span, "R.output: \"" + a.id + "\" is not defined in this dataflow block");
            }
          }
          output_seen_ = true;
          return;
        }
      }
      RValue v = Eval(e);
      if (v.kind != RK::kExpr) {
        Error(s.span, "this statement has no effect (a Relax function body holds bindings)");
      }
      // A call kept for its effect (R.print(...)): bound to "_", as TVM does.
      EmitBinding("_", v.expr, StructInfo(), e.span, e.span);
      stmt_binding_.clear();
      return;
    }
    case SK::kAssign:
    case SK::kAnnAssign:
      ParseAssign(s);
      return;
    case SK::kReturn: {
      if (in_dataflow_) {
        Error(s.span,
              "return inside a dataflow block: list the result in R.output(...) and "
              "return it after the block");
      }
      if (!is_function_body) {
        Error(s.span,
              "return inside an if branch is not supported; assign the result to the "
              "same name in both branches and return it after the if");
      }
      if (!s.value) Error(s.span, "a Relax function returns a value");
      RValue v = Eval(*s.value);
      Expr r = AsExpr(v, s.value->span);
      if (!IsLeaf(r) || r.as<TupleNode>()) {
        // A call or tuple returned directly is bound first, so the body is a variable.
        std::string saved = stmt_binding_;
        if (!IsLeaf(r)) {
          r = Leaf(r, s.value->span);
        } else {
          r = Normalize(r, s.value->span);
        }
        stmt_binding_ = saved;
      }
      ret_ = r;
      ret_span_ = s.value->span;
      return;
    }
    case SK::kWith:
      ParseWithDataflow(s);
      return;
    case SK::kIf:
      ParseIf(s);
      return;
    case SK::kFor:
    case SK::kWhile:
      Error(KeywordSpan(s.span, s.kind == SK::kFor ? 3 : 5),
            "loops are not supported in a Relax function (write the loop in a @T.prim_func and "
            "call it with R.call_tir)");
    case SK::kFunctionDef:
      Error(KeywordSpan(s.span, 3), "nested functions are not supported in a Relax function");
    case SK::kAugAssign:
      Error(s.span, "augmented assignment (" + s.op +
                        "=) is not supported in a Relax function: bind a new name, e.g. "
                        "y = R.add(x, ...)");
    default:
      Error(s.span, "unsupported statement in a Relax function");
  }
}

void RelaxEvaluator::ParseAssign(const ast::Stmt& s) {
  if (s.targets.size() != 1) Error(s.span, "chained assignment is not supported in Relax");
  const ast::Expr& target = *s.targets[0];
  if (!s.value) Error(s.span, "an annotated name needs a value: y: R.Tensor(...) = ...");
  const ast::Expr& value = *s.value;
  StructInfo ann;
  Span ann_span;
  if (s.kind == SK::kAnnAssign) {
    if (target.kind != EK::kName) Error(target.span, "only a name can be annotated");
    ann_span = s.annotation->span;
    ann = AsSInfo(Eval(*s.annotation), ann_span);
  }
  if (target.kind == EK::kTuple || target.kind == EK::kList) {
    // a, b = value: bind the tuple, then each field.
    Expr tuple = Leaf(AsExpr(Eval(value), value.span), value.span);
    auto* tinfo =
        tuple->struct_info_.defined() ? tuple->struct_info_.as<TupleStructInfoNode>() : nullptr;
    if (!tinfo) Error(value.span, "only a tuple can be unpacked");
    if (tinfo->fields.size() != target.children.size()) {
      Error(s.span, "cannot unpack a tuple of " + std::to_string(tinfo->fields.size()) +
                        " fields into " + std::to_string(target.children.size()) + " names");
    }
    for (size_t k = 0; k < target.children.size(); ++k) {
      const ast::Expr& t = *target.children[k];
      if (t.kind != EK::kName) Error(t.span, "expected a name");
      EmitBinding(t.id, TupleGetItem(tuple, static_cast<int64_t>(k)), StructInfo(), value.span,
                  value.span);
    }
    return;
  }
  if (target.kind != EK::kName) {
    Error(target.span,
          "a Relax binding assigns a name (subscripts and attributes cannot be "
          "assigned)");
  }
  const std::string& name = target.id;
  if (name == "R" || name == "T" || name == "I" || name == ctx_.module_name) {
    Error(target.span, "the name " + name + " is reserved in a script");
  }
  // `cls = Module`: a short name for the module's functions.
  if (value.kind == EK::kName && !ctx_.module_name.empty() && value.id == ctx_.module_name &&
      !Lookup(value.id)) {
    RValue m;
    m.kind = RK::kModule;
    m.span = value.span;
    Bind(name, m);
    return;
  }
  if (value.kind == EK::kCall) {
    RValue callee = Eval(*value.children[0]);
    // `n = T.int64()`: a symbolic dimension (the same variable as "n" in the signature).
    if (callee.kind == RK::kBuiltin && callee.str.rfind("T.", 0) == 0 &&
        value.children.size() == 1 && value.keywords.empty()) {
      DataType t;
      try {
        t = DataType(callee.str.substr(2));
      } catch (const minitvm::Error&) {
        Error(value.children[0]->span, "unknown name \"" + callee.str + "\"");
      }
      if (!t.is_int() && !t.is_uint()) {
        Error(value.span, "a symbolic variable must have an integer dtype, not " + callee.str);
      }
      auto it = sym_.find(name);
      tir::Var v;
      if (it != sym_.end()) {
        v = it->second;
      } else {
        v = tir::Var(name, t);
        sym_.emplace(name, v);
      }
      RValue p;
      p.kind = RK::kPrim;
      p.span = value.span;
      p.prim = v;
      Bind(name, p);
      return;
    }
    if (callee.kind == RK::kBuiltin && callee.str == "R.match_cast") {
      if (value.children.size() != 3 || !value.keywords.empty()) {
        Error(value.span, "R.match_cast takes (value, struct_info)");
      }
      Expr v =
          Leaf(AsExpr(Eval(*value.children[1]), value.children[1]->span), value.children[1]->span);
      StructInfo info = AsSInfo(Eval(*value.children[2]), value.children[2]->span);
      StructInfo vinfo = Downcast<StructInfo>(v->struct_info_);
      if (!MayBeBaseOf(info, vinfo) && !IsBaseOf(vinfo, info)) {
        Error(value.span, "R.match_cast: a value of struct info " + StructInfoToString(vinfo) +
                              " can never match " + StructInfoToString(info));
      }
      if (ann.defined() && !IsBaseOf(ann, info)) {
        Error(ann_span, "the annotation " + StructInfoToString(ann) + " of \"" + name +
                            "\" does not match the cast's struct info " + StructInfoToString(info));
      }
      bool dataflow_var = in_dataflow_ && !dataflow_outputs_.count(name);
      Var var = dataflow_var ? Var(DataflowVar(name, info)) : Var(name, info);
      UpdateStructInfo(var, info);
      cur_.push_back(MatchCast(var, v, info));
      Bind(name, ExprValue(var, value.span));
      stmt_binding_ = name;
      last_name_ = name;
      last_var_ = var;
      return;
    }
  }
  RValue v = Eval(value);
  switch (v.kind) {
    case RK::kExpr:
    case RK::kTuple:
    case RK::kList: {
      Expr e = AsExpr(v, value.span);
      if (auto* t = e.as<TupleNode>()) {
        Array<Expr> fields;
        for (const Expr& f : t->fields) fields.push_back(Leaf(f, value.span));
        e = Tuple(fields);
      }
      EmitBinding(name, e, ann, value.span, ann_span);
      return;
    }
    case RK::kInt:
    case RK::kFloat:
    case RK::kBool:
    case RK::kStr:
    case RK::kPrim:
    case RK::kSInfo:
      // Python-level values (a dimension expression, an annotation alias): no binding.
      if (ann.defined()) Error(ann_span, "only a Relax value can be annotated with struct info");
      Bind(name, v);
      return;
    default:
      Error(value.span, "cannot bind " + v.TypeName() + " to a name in a Relax function");
  }
}

void RelaxEvaluator::ParseWithDataflow(const ast::Stmt& s) {
  if (s.items.size() != 1 || s.items[0].context->kind != EK::kCall) {
    Error(s.span, "the only `with` in a Relax function is `with R.dataflow():`");
  }
  const ast::Expr& ctx = *s.items[0].context;
  RValue callee = Eval(*ctx.children[0]);
  if (callee.kind != RK::kBuiltin || callee.str != "R.dataflow") {
    Error(ctx.span, "the only `with` in a Relax function is `with R.dataflow():`");
  }
  if (ctx.children.size() != 1 || !ctx.keywords.empty()) {
    Error(ctx.span, "R.dataflow() takes no arguments");
  }
  if (s.items[0].target) Error(s.items[0].target->span, "R.dataflow() binds no name (no `as`)");
  if (in_dataflow_) Error(s.span, "dataflow blocks cannot be nested");
  // The R.output names decide, at their binding, which variables outlive the block.
  dataflow_outputs_.clear();
  output_seen_ = false;
  const ast::Stmt* output_stmt = nullptr;
  for (const ast::StmtPtr& st : s.body) {
    if (st->kind != SK::kExpr || st->value->kind != EK::kCall) continue;
    const ast::Expr& c = *st->value->children[0];
    if (c.kind == EK::kAttribute && c.id == "output") {
      RValue cv = Eval(c);
      if (cv.kind != RK::kBuiltin || cv.str != "R.output") continue;
      output_stmt = st.get();
      for (size_t k = 1; k < st->value->children.size(); ++k) {
        const ast::Expr& a = *st->value->children[k];
        if (a.kind == EK::kName) dataflow_outputs_.insert(a.id);
      }
    }
  }
  FlushBlock();
  in_dataflow_ = true;
  scopes_.emplace_back();
  ParseBody(s.body, false);
  FlushBlock();
  std::map<std::string, RValue> block_scope = std::move(scopes_.back());
  scopes_.pop_back();
  in_dataflow_ = false;
  for (const auto& [name, value] : block_scope) {
    if (dataflow_outputs_.count(name)) {
      Bind(name, value);
    } else if (value.kind == RK::kExpr && value.expr.as<DataflowVarNode>()) {
      expired_dataflow_.insert(name);
    } else {
      Bind(name, value);  // symbolic variables and Python-level names stay visible
    }
  }
  (void)output_stmt;
  dataflow_outputs_.clear();
  stmt_binding_.clear();
}

void RelaxEvaluator::ParseIf(const ast::Stmt& s) {
  if (in_dataflow_) {
    Error(KeywordSpan(s.span, 2), "an if statement is not allowed inside a dataflow block");
  }
  if (s.orelse.empty()) {
    Error(KeywordSpan(s.span, 2),
          "an if in a Relax function needs an else branch (both "
          "branches assign the same name)");
  }
  Expr cond = Leaf(AsExpr(Eval(*s.value), s.value->span), s.value->span);
  StructInfo cinfo = Downcast<StructInfo>(cond->struct_info_);
  if (auto* t = cinfo.as<TensorStructInfoNode>()) {
    if (t->ndim != 0 && t->ndim != kUnknownNDim) {
      Error(s.value->span,
            "the condition of an if must be a scalar (a 0-d bool tensor or "
            "R.Prim(\"bool\")), got " +
                StructInfoToString(cinfo));
    }
  } else if (!cinfo.as<PrimStructInfoNode>() && !cinfo.as<ObjectStructInfoNode>()) {
    Error(s.value->span,
          "the condition of an if must be a scalar (a 0-d bool tensor or "
          "R.Prim(\"bool\")), got " +
              StructInfoToString(cinfo));
  }
  FlushBlock();
  auto branch = [&](const std::vector<ast::StmtPtr>& body, std::string* name,
                    Span* last_span) -> Expr {
    Array<BindingBlock> saved_blocks = blocks_;
    blocks_ = Array<BindingBlock>();
    scopes_.emplace_back();
    ParseBody(body, false);
    *name = stmt_binding_;
    *last_span = body.back()->span;
    if (name->empty()) {
      Error(body.back()->span,
            "each branch of an if must end by assigning the if's result to a "
            "name (the same name in both branches)");
    }
    // As in TVM, the branch's last `name = value` gives the branch's result: the value becomes
    // the body of the branch's SeqExpr and `name` the variable the if is bound to.
    auto* last = cur_.empty() ? nullptr : cur_.back().as<VarBindingNode>();
    if (!last || last->var->name_hint != *name) {
      Error(body.back()->span,
            "the last statement of an if branch must be `name = value` (not "
            "R.match_cast or a dataflow block)");
    }
    // A leaf value (`y = gv`, as printed) is the body itself; a call stays bound, its variable
    // being the body, so the body is always a leaf (the normal form the printer shows).
    Expr value = last->var;
    if (IsLeaf(last->value)) {
      value = last->value;
      cur_.pop_back();
    }
    FlushBlock();
    SeqExpr seq(blocks_, value);
    UpdateStructInfo(seq, Downcast<StructInfo>(value->struct_info_));
    scopes_.pop_back();
    blocks_ = saved_blocks;
    return seq;
  };
  std::string t_name, f_name;
  Span t_span, f_span;
  Expr t = branch(s.body, &t_name, &t_span);
  Expr f = branch(s.orelse, &f_name, &f_span);
  if (t_name != f_name) {
    Error(f_span,
          "both branches of an if must end by assigning the same name: the true branch "
          "assigns \"" +
              t_name + "\", the false branch \"" + f_name + "\"");
  }
  EmitBinding(t_name, If(cond, t, f), StructInfo(), s.span, s.span);
}

// ---- functions --------------------------------------------------------------------------

namespace {

/*! \brief Reads the decorator: @R.function / @R.function(pure=False, private=True). */
void ReadDecorator(RelaxEvaluator* ev, const ast::Stmt& def, bool* pure, bool* is_private) {
  if (def.decorators.size() != 1) {
    ev->Error(def.decorators.empty() ? def.span : def.decorators[1]->span,
              "a Relax function has exactly one decorator, @R.function");
  }
  const ast::Expr& d = *def.decorators[0];
  if (d.kind != EK::kCall) return;
  if (d.children.size() > 1) ev->Error(d.span, "@R.function takes keyword arguments only");
  for (const ast::Keyword& kw : d.keywords) {
    RValue v = ev->Eval(*kw.value);
    if (kw.name == "pure" || kw.name == "private" || kw.name == "check_well_formed") {
      if (v.kind != RK::kBool) ev->Error(kw.value->span, kw.name + " must be True or False");
      if (kw.name == "pure") *pure = v.i != 0;
      if (kw.name == "private") *is_private = v.i != 0;
    } else {
      ev->Error(kw.span, "unsupported decorator argument \"" + kw.name +
                             "\" (@R.function takes pure=, private=, check_well_formed=)");
    }
  }
}

}  // namespace

StructInfo RelaxEvaluator::Signature() {
  const ast::Stmt& def = *ctx_.def;
  bool pure = true, priv = false;
  ReadDecorator(this, def, &pure, &priv);
  Array<StructInfo> params;
  for (const ast::Arg& arg : def.args) {
    if (!arg.annotation) return StructInfo();
    params.push_back(AsSInfo(Eval(*arg.annotation), arg.annotation->span));
  }
  if (!def.annotation) return StructInfo();
  StructInfo ret = AsSInfo(Eval(*def.annotation), def.annotation->span);
  return FuncStructInfo(params, ret, pure);
}

Function RelaxEvaluator::ParseFunction() {
  const ast::Stmt& def = *ctx_.def;
  stmt_span_ = def.span;
  ReadDecorator(this, def, &is_pure_, &is_private_);
  Array<Var> params;
  for (const ast::Arg& arg : def.args) {
    if (arg.default_value) Error(arg.span, "unsupported Python construct: a default value");
    if (!arg.annotation) {
      Error(arg.span, "parameter \"" + arg.name +
                          "\" needs a struct info annotation: R.Tensor((n, 4), \"float32\"), "
                          "R.Shape(...), R.Tuple(...), R.Object, ...");
    }
    if (scopes_.front().count(arg.name)) {
      Error(arg.span, "duplicate parameter \"" + arg.name + "\"");
    }
    StructInfo info = AsSInfo(Eval(*arg.annotation), arg.annotation->span);
    Var v(arg.name, info);
    UpdateStructInfo(v, info);
    params.push_back(v);
    Bind(arg.name, ExprValue(v, arg.span));
  }
  StructInfo ret_ann;
  if (def.annotation) ret_ann = AsSInfo(Eval(*def.annotation), def.annotation->span);
  ParseBody(def.body, true);
  FlushBlock();
  if (!ret_) {
    Error(KeywordSpan(def.span, 3), "the Relax function \"" + def.name +
                                        "\" has no return statement (its body must end with "
                                        "`return value`)");
  }
  Expr result = *ret_;
  StructInfo result_info = Downcast<StructInfo>(result->struct_info_);
  if (ret_ann.defined() && !IsBaseOf(ret_ann, result_info)) {
    Error(def.annotation->span, "the return annotation " + StructInfoToString(ret_ann) +
                                    " does not match the struct info of the returned value, " +
                                    StructInfoToString(result_info));
  }
  SeqExpr body(blocks_, result);
  UpdateStructInfo(body, result_info);
  Map<String, Any> attrs;
  if (!is_private_ || attrs_.count(String("global_symbol"))) {
    auto symbol = attrs_.Get(String("global_symbol"));
    attrs.Set(String("global_symbol"), symbol ? *symbol : Any(String(def.name)));
  }
  for (const auto& [k, v] : attrs_.items()) {
    if (k != "global_symbol") attrs.Set(k, v);
  }
  try {
    return Function(params, body, ret_ann, is_pure_, attrs);
  } catch (const minitvm::Error& e) {
    if (e.kind() == "ParseError") throw;
    Error(KeywordSpan(def.span, 3), e.kind() + ": " + e.what());
  }
}

namespace {

const bool kRegistered = [] {
  script::RegisterScriptNamespace("relax", "R");
  script::FunctionParserHooks hooks;
  hooks.signature = [](const FunctionParseContext& ctx) -> ObjectRef {
    RelaxEvaluator ev(ctx);
    return ev.Signature();
  };
  hooks.parse = [](const FunctionParseContext& ctx) -> BaseFunc {
    RelaxEvaluator ev(ctx);
    return ev.ParseFunction();
  };
  script::RegisterFunctionParser("R.function", hooks);
  return true;
}();

}  // namespace

}  // namespace parser
}  // namespace relax
}  // namespace minitvm
