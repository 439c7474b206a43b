/*!
 * \file primitive/fuse.cc
 * \brief `fuse` (stage 3): a chain of perfectly nested loops becomes one loop.
 *
 * `for i, j in T.grid(4, 8)` fused becomes `for i_j_fused in range(32)` with `i` replaced by
 * `i_j_fused // 8` and `j` by `i_j_fused % 8`. Each loop must be the only statement in the
 * body of the loop before it.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

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
      values.push_back(u ? analyzer_->Simplify(v) : v);
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

  DataType dtype = loops[0]->loop_var.dtype();
  std::string name;
  for (const ForNode* l : loops) name += l->loop_var->name_hint.str() + "_";
  Var fused = loops[0]->loop_var.copy_with_name(name + "fused");
  PrimExpr extent = IntImm(dtype, 1);
  for (const ForNode* l : loops) {
    auto ext = ConstValue(l->extent);
    if (!preserve_unit_iters && ext && *ext == 1) continue;
    extent = analyzer.Simplify(extent * l->extent);
  }
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  PrimExpr stride = IntImm(dtype, 1);
  for (size_t i = loops.size(); i-- > 0;) {
    const ForNode* l = loops[i];
    auto ext = ConstValue(l->extent);
    if (!preserve_unit_iters && ext && *ext == 1) {
      vmap[l->loop_var.get()] = IntImm(dtype, 0);
      continue;
    }
    PrimExpr v = ConstValue(stride) == 1 ? PrimExpr(fused) : floordiv(fused, stride);
    if (i > 0) v = floormod(v, l->extent);
    vmap[l->loop_var.get()] = v;
    stride = analyzer.Simplify(stride * l->extent);
  }
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
