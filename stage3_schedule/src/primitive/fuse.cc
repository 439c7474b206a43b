/*!
 * \file primitive/fuse.cc
 * \brief `fuse` (stage 3): a chain of perfectly nested loops becomes one loop.
 *
 * `for i, j, k in T.grid(4, 8, 16)` fused becomes `for i_j_k_fused in range(512)` with `i`
 * replaced by `i_j_k_fused // 128`, `j` by `i_j_k_fused % 128 // 16` and `k` by
 * `i_j_k_fused % 16`: the forms TVM writes (an inner loop is `fused % (its extent times the
 * extents inside it) // (the extents inside it)`). Each loop must be the only statement in the
 * body of the loop before it, and no loop's extent may use another fused loop's variable.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*!
 * \brief `x // c1 % c2` written as `x % (c1 * c2) // c1` (positive constants; equal under floor
 * division), the form TVM's simplifier leaves a fused index in; minitvm's simplifier prefers the
 * other, so fuse turns its results back.
 */
class DivModToModDiv : public ExprMutator {
 public:
  PrimExpr VisitExpr_(const FloorModNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    auto* mod = e.as<FloorModNode>();
    auto* div = mod ? mod->a.as<FloorDivNode>() : nullptr;
    auto c1 = div ? ConstValue(div->b) : std::nullopt;
    auto c2 = mod ? ConstValue(mod->b) : std::nullopt;
    if (!c1 || !c2 || *c1 <= 0 || *c2 <= 0) return e;
    return floordiv(floormod(div->a, div->b * mod->b), div->b);
  }
};

/*! \brief Simplify the bindings of block realizes that use the given variables. */
class FusedBindingSimplifier : public StmtMutator {
 public:
  FusedBindingSimplifier(arith::Analyzer* analyzer, const VarNode* var)
      : analyzer_(analyzer), var_(var) {}
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    Array<PrimExpr> values;
    bool uses = false;
    for (const PrimExpr& v : op->iter_values) {
      bool u = UsesVar(v, var_);
      values.push_back(u ? DivModToModDiv()(analyzer_->Simplify(v)) : v);
      uses |= u;
    }
    if (!uses) return GetRef<Stmt>(op);
    return BlockRealize(values, op->predicate, op->block);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    analyzer_->Bind(op->loop_var, Range(op->min, op->extent), true);
    return StmtMutator::VisitStmt_(op);
  }

 private:
  arith::Analyzer* analyzer_;
  const VarNode* var_;
};

/*! \brief Check that the loops form a chain where each is the only child of the previous one. */
void CheckFusible(const FuncIndex& index, const std::vector<const ForNode*>& loops) {
  for (size_t i = 0; i + 1 < loops.size(); ++i) {
    const ForNode* outer = loops[i];
    const ForNode* inner = loops[i + 1];
    if (outer == inner) {
      ScheduleError err("LoopMultiAppearanceError",
                        "loop " + LoopName(outer) + " appears more than once");
      err.Check("each loop appears once", false).At(GetRef<ObjectRef>(outer), "repeated");
      throw err;
    }
    bool nested = index.Get(inner).parent == outer;
    bool only_child = outer->body.get() == inner;
    if (!nested) {
      ScheduleError err(
          "LoopsNotAChainError",
          "loop " + LoopName(inner) + " is not directly inside loop " + LoopName(outer));
      err.Subject("loop " + LoopName(outer))
          .Subject("loop " + LoopName(inner))
          .Check("each loop is directly nested in the loop before it", false)
          .At(GetRef<ObjectRef>(inner), "not directly inside " + LoopName(outer));
      throw err;
    }
    if (!only_child) {
      ScheduleError err(
          "NotOnlyChildError",
          "loop " + LoopName(inner) + " is not the only statement in loop " + LoopName(outer));
      err.Subject("loop " + LoopName(outer))
          .Subject("loop " + LoopName(inner))
          .Check("each loop is directly nested in the loop before it", true)
          .Check("each loop is the only statement in the body of the loop before it", false)
          .At(GetRef<ObjectRef>(outer), "its body has other statements beside " + LoopName(inner));
      throw err;
    }
  }
}

/*! \brief fuse: a chain of perfectly nested loops becomes one loop; returns it. */
Array<ObjectRef> Fuse(ScheduleNode* self, const Array<ObjectRef>& loop_rvs,
                      bool preserve_unit_iters) {
  // Step 1: the loops (of one function) and their preconditions.
  if (loop_rvs.empty()) MINITVM_THROW(ValueError) << "fuse needs at least one loop";
  std::string func;
  std::vector<const ForNode*> loops;
  for (const ObjectRef& rv : loop_rvs) {
    auto [f, stmt] = self->Resolve(rv);
    if (!func.empty() && f != func) MINITVM_THROW(ValueError) << "fuse: loops of two functions";
    func = f;
    loops.push_back(AsLoop(stmt));
  }
  const FuncIndex& index = self->state().Index(func);
  arith::Analyzer analyzer;
  BindLoops(&analyzer, index.LoopsAbove(loops[0]));
  for (const ForNode* l : loops) {
    CheckPlainLoop(l, "fuse");
    CheckLoopStartsAtZero(&analyzer, l);
  }
  CheckFusible(index, loops);
  // As in TVM: an extent that uses an outer fused loop's variable has no single fused extent.
  for (size_t i = 1; i < loops.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (!UsesVar(loops[i]->extent, loops[j]->loop_var.get())) continue;
      ScheduleError err("DependentLoopError", "fuse: the extent " + ExprStr(loops[i]->extent) +
                                                  " of loop " + LoopName(loops[i]) +
                                                  " depends on loop " + LoopName(loops[j]) +
                                                  ", so the fused loop has no fixed extent");
      err.Subject("loop " + LoopName(loops[j]))
          .Subject("loop " + LoopName(loops[i]))
          .Check("no loop's extent uses the variable of another loop being fused", false)
          .At(GetRef<ObjectRef>(loops[i]), "extent uses " + LoopName(loops[j]));
      throw err;
    }
  }

  DataType dtype = loops[0]->loop_var.dtype();
  std::string name;
  for (const ForNode* l : loops) name += l->loop_var->name_hint.str() + "_";
  Var fused = loops[0]->loop_var.copy_with_name(name + "fused");
  PrimExpr extent = IntImm(dtype, 1);
  for (const ForNode* l : loops) extent = analyzer.Simplify(extent * l->extent);
  // TVM's substitution: a unit loop becomes 0, the outermost `fused // inner`, the others
  // `fused % (extent * inner) // inner` (operators fold `// 1` and `1 *`).
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  PrimExpr inner = IntImm(dtype, 1);
  for (size_t i = loops.size(); i-- > 0;) {
    const ForNode* l = loops[i];
    if (ConstValue(l->extent) == 1) {
      vmap[l->loop_var.get()] = IntImm(dtype, 0);
      continue;
    }
    PrimExpr outer = ConstValue(inner) == 1 ? l->extent : analyzer.Simplify(inner * l->extent);
    vmap[l->loop_var.get()] =
        i == 0 ? floordiv(fused, inner) : floordiv(floormod(fused, outer), inner);
    inner = outer;
  }
  // preserve_unit_iters changes nothing here: unit loops are substituted by 0 either way (as
  // in TVM, where it only keeps trivial iterators of the bindings from being simplified).
  (void)preserve_unit_iters;
  Stmt body = SubstituteVars(loops.back()->body, vmap);
  analyzer.Bind(fused, Range(IntImm(dtype, 0), extent), true);
  body = FusedBindingSimplifier(&analyzer, fused.get()).VisitStmt(body);
  Stmt loop = For(fused, IntImm(dtype, 0), extent, ForKind::kSerial, body);
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{loops[0], loop}}));
  return {self->NewRV(func, self->state().Index(func).LoopOfVar(fused.get()))};
}

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("Fuse", "fuse", {}, {"preserve_unit_iters"}, Fuse);
  k.output_kind = 'l';
  k.defaults = {{"preserve_unit_iters", Any(true)}};
  return k;
}());

}  // namespace
}  // namespace tir
}  // namespace minitvm
