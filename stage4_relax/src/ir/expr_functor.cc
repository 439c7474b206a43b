/*!
 * \file expr_functor.cc
 * \brief The Relax visitor and mutator (stage 4), and MapRelaxFunctions.
 *
 * The mutator rebuilds a node only when one of its parts changed and otherwise returns the
 * very node it was given, so that "nothing changed" can be detected with `same_as` all the way
 * up to the module. A rebuilt node keeps its old struct info when the struct info of what it
 * was built from is unchanged; otherwise the struct info is left for the normaliser to derive
 * (constructors that know it immediately, like Tuple's, still set it).
 */
#include "minitvm/relax/expr_functor.h"

#include "minitvm/ir/module.h"
#include "minitvm/ir/structural.h"

namespace minitvm {
namespace relax {

namespace {

/*! \brief Whether two (possibly undefined) struct infos describe the same thing. */
bool SameInfo(const ObjectRef& a, const ObjectRef& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  return StructuralEqual(a, b);
}

/*! \brief Whether every expression kept the struct info it had. */
bool SameInfos(const Array<Expr>& before, const Array<Expr>& after) {
  if (before.size() != after.size()) return false;
  for (size_t i = 0; i < before.size(); ++i) {
    if (!SameInfo(before[i]->struct_info_, after[i]->struct_info_)) return false;
  }
  return true;
}

/*! \brief A variable of the same kind (dataflow or not) and name with struct info `info`. */
Var FreshVarLike(const Var& var, const StructInfo& info) {
  if (var.as<DataflowVarNode>()) return DataflowVar(var->name_hint, info);
  return Var(var->name_hint, info);
}

StructInfo InfoOf(const Expr& e) {
  return e->struct_info_.defined() ? Downcast<StructInfo>(e->struct_info_) : StructInfo();
}

}  // namespace

// ---- ExprVisitor ----------------------------------------------------------------------------

void ExprVisitor::VisitExpr(const Expr& e) { ExprFunctor::VisitExpr(e); }

void ExprVisitor::VisitExpr_(const VarNode* op) {}
void ExprVisitor::VisitExpr_(const ConstantNode* op) {}
void ExprVisitor::VisitExpr_(const TupleNode* op) {
  for (const Expr& f : op->fields) VisitExpr(f);
}
void ExprVisitor::VisitExpr_(const TupleGetItemNode* op) { VisitExpr(op->tuple); }
void ExprVisitor::VisitExpr_(const ShapeExprNode* op) {
  for (const PrimExpr& v : op->values) VisitPrimExpr(v);
}
void ExprVisitor::VisitExpr_(const PrimValueNode* op) { VisitPrimExpr(op->value); }
void ExprVisitor::VisitExpr_(const StringImmNode* op) {}
void ExprVisitor::VisitExpr_(const DataTypeImmNode* op) {}
void ExprVisitor::VisitExpr_(const CallNode* op) {
  VisitExpr(op->op);
  for (const Expr& a : op->args) VisitExpr(a);
  for (const StructInfo& s : op->sinfo_args) VisitStructInfo(s);
}
void ExprVisitor::VisitExpr_(const IfNode* op) {
  VisitExpr(op->cond);
  VisitExpr(op->true_branch);
  VisitExpr(op->false_branch);
}
void ExprVisitor::VisitExpr_(const SeqExprNode* op) {
  for (const BindingBlock& b : op->blocks) VisitBindingBlock(b);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const FunctionNode* op) {
  for (const Var& p : op->params) VisitVarDef(p);
  VisitExpr(op->body);
  if (op->ret_struct_info.defined()) VisitStructInfo(op->ret_struct_info);
}
void ExprVisitor::VisitExpr_(const ExternFuncNode* op) {}
void ExprVisitor::VisitExpr_(const GlobalVarNode* op) {}
void ExprVisitor::VisitExpr_(const OpNode* op) {}

void ExprVisitor::VisitBinding(const Binding& binding) {
  if (auto* b = binding.as<VarBindingNode>()) {
    VisitBinding_(b);
  } else if (auto* m = binding.as<MatchCastNode>()) {
    VisitBinding_(m);
  } else {
    MINITVM_THROW(InternalError) << "no Relax visitor case for binding " << binding->GetTypeKey();
  }
}
void ExprVisitor::VisitBinding_(const VarBindingNode* binding) {
  VisitExpr(binding->value);
  VisitVarDef(binding->var);
}
void ExprVisitor::VisitBinding_(const MatchCastNode* binding) {
  VisitExpr(binding->value);
  VisitStructInfo(binding->struct_info);
  VisitVarDef(binding->var);
}
void ExprVisitor::VisitBindingBlock(const BindingBlock& block) {
  if (auto* d = block.as<DataflowBlockNode>()) {
    VisitBindingBlock_(d);
  } else {
    VisitBindingBlock_(block.get());
  }
}
void ExprVisitor::VisitBindingBlock_(const BindingBlockNode* block) {
  for (const Binding& b : block->bindings) VisitBinding(b);
}
void ExprVisitor::VisitBindingBlock_(const DataflowBlockNode* block) {
  for (const Binding& b : block->bindings) VisitBinding(b);
}
void ExprVisitor::VisitVarDef(const Var& var) {
  if (var->struct_info_.defined()) VisitStructInfo(Downcast<StructInfo>(var->struct_info_));
}

// ---- ExprMutator ----------------------------------------------------------------------------

Expr ExprMutator::VisitExpr(const Expr& e) { return ExprFunctor::VisitExpr(e); }

Expr ExprMutator::VisitExpr_(const VarNode* op) {
  auto it = var_remap_.find(op);
  if (it != var_remap_.end()) return it->second;
  return GetRef<Expr>(op);
}
Expr ExprMutator::VisitExpr_(const ConstantNode* op) { return GetRef<Expr>(op); }

Expr ExprMutator::VisitExpr_(const TupleNode* op) {
  Array<Expr> fields;
  bool unchanged = true;
  for (const Expr& f : op->fields) {
    Expr nf = VisitExpr(f);
    unchanged = unchanged && nf.same_as(f);
    fields.push_back(nf);
  }
  if (unchanged) return GetRef<Expr>(op);
  return Tuple(fields);
}

Expr ExprMutator::VisitExpr_(const TupleGetItemNode* op) {
  Expr t = VisitExpr(op->tuple);
  if (t.same_as(op->tuple)) return GetRef<Expr>(op);
  TupleGetItem out(t, op->index);
  if (!out->struct_info_.defined() && SameInfo(op->tuple->struct_info_, t->struct_info_)) {
    out->struct_info_ = op->struct_info_;
  }
  return out;
}

Expr ExprMutator::VisitExpr_(const ShapeExprNode* op) {
  Array<PrimExpr> values;
  bool unchanged = true;
  for (const PrimExpr& v : op->values) {
    PrimExpr nv = VisitPrimExpr(v);
    unchanged = unchanged && nv.same_as(v);
    values.push_back(nv);
  }
  if (unchanged) return GetRef<Expr>(op);
  return ShapeExpr(values);
}

Expr ExprMutator::VisitExpr_(const PrimValueNode* op) {
  PrimExpr v = VisitPrimExpr(op->value);
  if (v.same_as(op->value)) return GetRef<Expr>(op);
  return PrimValue(v);
}
Expr ExprMutator::VisitExpr_(const StringImmNode* op) { return GetRef<Expr>(op); }
Expr ExprMutator::VisitExpr_(const DataTypeImmNode* op) { return GetRef<Expr>(op); }

Expr ExprMutator::VisitExpr_(const CallNode* op) {
  Expr callee = VisitExpr(op->op);
  Array<Expr> args;
  bool unchanged = callee.same_as(op->op);
  for (const Expr& a : op->args) {
    Expr na = VisitExpr(a);
    unchanged = unchanged && na.same_as(a);
    args.push_back(na);
  }
  Array<StructInfo> sinfo_args;
  bool sinfo_unchanged = true;
  for (const StructInfo& s : op->sinfo_args) {
    StructInfo ns = VisitStructInfo(s);
    sinfo_unchanged = sinfo_unchanged && ns.same_as(s);
    sinfo_args.push_back(ns);
  }
  if (unchanged && sinfo_unchanged) return GetRef<Expr>(op);
  Call out(callee, args, op->attrs, sinfo_args);
  if (sinfo_unchanged && SameInfo(op->op->struct_info_, callee->struct_info_) &&
      SameInfos(op->args, args)) {
    out->struct_info_ = op->struct_info_;
  }
  return out;
}

Expr ExprMutator::VisitExpr_(const IfNode* op) {
  Expr cond = VisitExpr(op->cond);
  Expr t = VisitExpr(op->true_branch);
  Expr f = VisitExpr(op->false_branch);
  if (cond.same_as(op->cond) && t.same_as(op->true_branch) && f.same_as(op->false_branch)) {
    return GetRef<Expr>(op);
  }
  If out(cond, t, f);
  if (SameInfo(op->true_branch->struct_info_, t->struct_info_) &&
      SameInfo(op->false_branch->struct_info_, f->struct_info_)) {
    out->struct_info_ = op->struct_info_;
  }
  return out;
}

Expr ExprMutator::VisitExpr_(const SeqExprNode* op) {
  Array<BindingBlock> blocks;
  bool unchanged = true;
  for (const BindingBlock& b : op->blocks) {
    BindingBlock nb = VisitBindingBlock(b);
    if (!nb.same_as(b)) unchanged = false;
    // A block the rewrite emptied is dropped (it would print as an empty `with`).
    if (!nb->bindings.empty() || nb.same_as(b)) blocks.push_back(nb);
  }
  Expr body = VisitExpr(op->body);
  if (unchanged && body.same_as(op->body)) return GetRef<Expr>(op);
  SeqExpr out(blocks, body);
  if (SameInfo(op->body->struct_info_, body->struct_info_)) out->struct_info_ = op->struct_info_;
  return out;
}

Expr ExprMutator::VisitExpr_(const FunctionNode* op) {
  Array<Var> params;
  bool unchanged = true;
  for (const Var& p : op->params) {
    Var np = VisitVarDef(p);
    unchanged = unchanged && np.same_as(p);
    params.push_back(np);
  }
  Expr body = VisitExpr(op->body);
  StructInfo ret =
      op->ret_struct_info.defined() ? VisitStructInfo(op->ret_struct_info) : op->ret_struct_info;
  if (unchanged && body.same_as(op->body) && ret.same_as(op->ret_struct_info)) {
    return GetRef<Expr>(op);
  }
  return Function(params, body, ret, op->is_pure, op->attrs);
}

Expr ExprMutator::VisitExpr_(const ExternFuncNode* op) { return GetRef<Expr>(op); }
Expr ExprMutator::VisitExpr_(const GlobalVarNode* op) { return GetRef<Expr>(op); }
Expr ExprMutator::VisitExpr_(const OpNode* op) { return GetRef<Expr>(op); }

Array<Binding> ExprMutator::VisitBinding(const Binding& binding) {
  if (auto* b = binding.as<VarBindingNode>()) {
    Expr value = VisitExpr(b->value);
    Var var = VisitVarDef(b->var);
    if (!value.same_as(b->value) && value->struct_info_.defined() &&
        !SameInfo(var->struct_info_, value->struct_info_)) {
      // The value's struct info changed: define a fresh variable that carries the new one.
      Var fresh = FreshVarLike(b->var, InfoOf(value));
      var_remap_[b->var.get()] = fresh;
      var = fresh;
    }
    if (var.same_as(b->var) && value.same_as(b->value)) return {binding};
    return {VarBinding(var, value)};
  }
  if (auto* m = binding.as<MatchCastNode>()) {
    Expr value = VisitExpr(m->value);
    StructInfo info = VisitStructInfo(m->struct_info);
    Var var = VisitVarDef(m->var);
    if (var.same_as(m->var) && value.same_as(m->value) && info.same_as(m->struct_info)) {
      return {binding};
    }
    return {MatchCast(var, value, info)};
  }
  MINITVM_THROW(InternalError) << "no Relax mutator case for binding " << binding->GetTypeKey();
}

BindingBlock ExprMutator::VisitBindingBlock(const BindingBlock& block) {
  Array<Binding> bindings;
  bool unchanged = true;
  for (const Binding& b : block->bindings) {
    Array<Binding> out = VisitBinding(b);
    if (!(out.size() == 1 && out[0].same_as(b))) unchanged = false;
    for (const Binding& nb : out) bindings.push_back(nb);
  }
  if (unchanged) return block;
  if (block.as<DataflowBlockNode>()) return DataflowBlock(bindings);
  return BindingBlock(bindings);
}

Var ExprMutator::VisitVarDef(const Var& var) {
  auto it = var_remap_.find(var.get());
  if (it != var_remap_.end()) return it->second;
  if (!var->struct_info_.defined()) return var;
  StructInfo info = Downcast<StructInfo>(var->struct_info_);
  StructInfo new_info = VisitStructInfo(info);
  if (new_info.same_as(info)) return var;
  Var fresh = FreshVarLike(var, new_info);
  var_remap_[var.get()] = fresh;
  return fresh;
}

// ---- module helpers -------------------------------------------------------------------------

IRModule MapRelaxFunctions(const IRModule& mod,
                           const std::function<Expr(const Function&)>& fmutate) {
  Map<GlobalVar, BaseFunc> functions = mod->functions;
  bool changed = false;
  for (const auto& [gv, func] : mod->functions.items()) {
    auto* f = func.as<FunctionNode>();
    if (!f) continue;
    Expr out = fmutate(GetRef<Function>(f));
    if (out.same_as(func)) continue;
    if (!out.as<BaseFuncNode>()) {
      MINITVM_THROW(InternalError) << "MapRelaxFunctions: the rewrite of " << gv->name_hint
                                   << " returned a " << out->GetTypeKey() << ", not a function";
    }
    functions.Set(gv, Downcast<BaseFunc>(out));
    changed = true;
  }
  if (!changed) return mod;
  return IRModule(functions, mod->attrs);
}

}  // namespace relax
}  // namespace minitvm
