/*!
 * \file transform/pass_utils.cc
 * \brief The helpers shared by the Relax passes (stage 4): value purity and the
 * BlockBuilder-based call rewriter.
 */
#include "transform/pass_utils.h"

#include "minitvm/relax/op_attr.h"

namespace minitvm {
namespace relax {
namespace transform {

bool IsOpCall(const Expr& e, const char* name) {
  const auto* call = e.as<CallNode>();
  return call && IsOp(call->op, name);
}

std::optional<int64_t> AttrAsInt(const Any& v) {
  if (v.is_int()) return v.cast<int64_t>();
  if (auto imm = v.try_cast<IntImm>()) return (*imm)->value;
  return std::nullopt;
}

bool IsPureValue(const Expr& value) {
  struct Checker : ExprVisitor {
    bool pure = true;
    void VisitExpr_(const CallNode* op) override {
      if (const auto* o = op->op.as<OpNode>()) {
        OpAttrMap<bool> fpurity(kFPurity);
        Op opr = GetRef<Op>(o);
        if (!fpurity.count(opr) || !fpurity[opr]) pure = false;
      } else if (const auto* f = GetStructInfoAs<FuncStructInfoNode>(op->op)) {
        if (!f->purity) pure = false;
      } else if (!op->op.as<GlobalVarNode>()) {
        pure = false;  // an unknown callee
      }
      ExprVisitor::VisitExpr_(op);
    }
    // A nested function is a value; calling it is judged at the call.
    void VisitExpr_(const FunctionNode*) override {}
  } checker;
  checker.VisitExpr(value);
  return checker.pure;
}

Expr CallRewriter::VisitExpr_(const CallNode* op) {
  Expr visited = ExprMutator::VisitExpr_(op);
  const auto* call = visited.as<CallNode>();
  if (!call || !call->op.as<OpNode>()) return visited;
  Call c = GetRef<Call>(call);
  if (!c->struct_info_.defined()) c = Downcast<Call>(bb_.Normalize(c));
  std::optional<Expr> out = rewrite_(bb_, c);
  if (!out) return c;
  return bb_.Normalize(*out);
}

Array<Binding> CallRewriter::VisitBinding(const Binding& binding) {
  const auto* b = binding.as<VarBindingNode>();
  if (!b) return ExprMutator::VisitBinding(binding);
  Expr value = VisitExpr(b->value);
  if (!value->struct_info_.defined()) value = bb_.Normalize(value);
  Var var = VisitVarDef(b->var);
  if (value.same_as(b->value) && var.same_as(b->var)) return {binding};
  StructInfo have = GetStructInfo(value);
  if (!var->struct_info_.defined() || !IsBaseOf(GetStructInfo(var), have)) {
    Var fresh = var.as<DataflowVarNode>() ? Var(DataflowVar(var->name_hint, have))
                                          : Var(var->name_hint, have);
    var_remap_[b->var.get()] = fresh;
    var = fresh;
  }
  return {VarBinding(var, value)};
}

BindingBlock CallRewriter::VisitBindingBlock(const BindingBlock& block) {
  bool df = block.as<DataflowBlockNode>() != nullptr;
  if (df) {
    bb_.BeginDataflowBlock();
  } else {
    bb_.BeginBindingBlock();
  }
  bool unchanged = true;
  try {
    for (const Binding& b : block->bindings) {
      Array<Binding> out = VisitBinding(b);
      if (!(out.size() == 1 && out[0].same_as(b))) unchanged = false;
      for (const Binding& nb : out) bb_.EmitNormalized(nb);
    }
  } catch (...) {
    bb_.EndBlock();
    throw;
  }
  BindingBlock result = bb_.EndBlock();
  if (unchanged && result->bindings.size() == block->bindings.size()) return block;
  return result;
}

IRModule RewriteCalls(const IRModule& mod, const CallRewriter::FRewrite& rewrite,
                      const std::optional<std::string>& func_name) {
  std::vector<std::pair<GlobalVar, Function>> funcs;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (func_name && gv->name_hint != *func_name) continue;
    if (const auto* f = mod->Lookup(gv).as<FunctionNode>()) {
      funcs.emplace_back(gv, GetRef<Function>(f));
    }
  }
  BlockBuilder bb(mod);
  bool changed = false;
  for (const auto& [gv, func] : funcs) {
    CallRewriter rewriter(bb, rewrite);
    Expr out = rewriter.VisitExpr(func);
    if (out.same_as(func)) continue;
    bb.UpdateFunction(gv, Downcast<BaseFunc>(out));
    changed = true;
  }
  return changed ? bb.Get() : mod;
}

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
