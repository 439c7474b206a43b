/*!
 * \file primitive/split.cc
 * \brief `split` (stage 3): one loop becomes a nest of loops whose extents are the factors.
 *
 * `for i in range(8)` split by [2, 2, 2] becomes `for i_0, i_1, i_2 in T.grid(2, 2, 2)` and
 * every use of `i` becomes `i_0 * 4 + i_1 * 2 + i_2`, simplified in the block bindings. When
 * the product of the factors exceeds the extent, the extra iterations are masked by a
 * `T.where` predicate on the blocks, written as TVM does: `(i_0 * 2 + i_1) * 2 + i_2 < 7`.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief Simplifies the bindings and predicates of block realizes that use the new loops. */
class BindingSimplifier : public StmtMutator {
 public:
  BindingSimplifier(arith::Analyzer* analyzer, std::unordered_set<const VarNode*> vars,
                    PrimExpr predicate)
      : analyzer_(analyzer), vars_(std::move(vars)), predicate_(std::move(predicate)) {}

  Stmt VisitStmt_(const ForNode* op) override {
    analyzer_->Bind(op->loop_var, Range(op->min, op->extent), true);
    return StmtMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    bool uses = false;
    Array<PrimExpr> values;
    for (const PrimExpr& v : op->iter_values) {
      bool u = false;
      for (const VarNode* var : UsedVars(v)) u |= vars_.count(var) > 0;
      values.push_back(u ? analyzer_->Simplify(v) : v);
      uses |= u;
    }
    PrimExpr pred = op->predicate;
    if (predicate_.defined()) {
      pred = is_const_true(pred) ? predicate_ : (pred && predicate_);
      uses = true;
    }
    if (!uses) return GetRef<Stmt>(op);
    // Not recursing: nested blocks run under this block's predicate and bind inner loops only.
    return BlockRealize(values, pred, op->block);
  }

 private:
  static bool is_const_true(const PrimExpr& e) {
    auto v = AsConstInt(e);
    return v && *v == 1;
  }
  arith::Analyzer* analyzer_;
  std::unordered_set<const VarNode*> vars_;
  PrimExpr predicate_;
};

/*!
 * \brief split: `loop_rv` becomes a nest of loops with extents `factor_args` (ints, at most one
 * None); returns the new loops, outermost first.
 */
Array<ObjectRef> Split(ScheduleNode* self, const LoopRV& loop_rv, const Array<Any>& factor_args,
                       bool preserve_unit_iters, bool disable_predication) {
  // Step 1: the loop and its preconditions.
  auto [func, stmt] = self->Resolve(loop_rv);
  const FuncIndex& index = self->state().Index(func);
  const ForNode* loop = AsLoop(stmt);

  arith::Analyzer analyzer;
  BindLoops(&analyzer, index.LoopsAbove(loop));
  CheckPlainLoop(loop, "split");
  CheckLoopStartsAtZero(&analyzer, loop);

  // Factors: positive integers, at most one None (inferred).
  int none_at = -1;
  int64_t known = 1;
  std::vector<int64_t> factors;
  for (size_t i = 0; i < factor_args.size(); ++i) {
    const Any& f = factor_args[i];
    if (f.is_null()) {
      if (none_at >= 0) {
        ScheduleError err("WrongFactorError", "at most one factor may be None");
        err.Subject("loop " + LoopName(loop))
            .Check("at most one factor is None (to be inferred)", false)
            .Detail("factors: " + PythonLiteral(Any(factor_args)));
        throw err;
      }
      none_at = static_cast<int>(i);
      factors.push_back(-1);
      continue;
    }
    // A factor is an integer, a constant expression, or a sampled ExprRV (its value).
    int64_t v = 0;
    if (auto* rv = f.as<ExprRVNode>()) {
      v = rv->value;
    } else {
      v = f.is_object() ? AsConstInt(f.cast<PrimExpr>()).value_or(0) : f.cast<int64_t>();
    }
    if (v <= 0) {
      ScheduleError err("NonPositiveFactorError", "factor " + std::to_string(i) + " of split is " +
                                                      std::to_string(v) +
                                                      "; factors must be positive");
      err.Subject("loop " + LoopName(loop))
          .Check("every factor is a positive integer or None", false)
          .At(GetRef<ObjectRef>(loop), "split by " + PythonLiteral(Any(factor_args)));
      throw err;
    }
    known *= v;
    factors.push_back(v);
  }
  if (factors.size() < 1) {
    ScheduleError err("WrongFactorError", "split needs at least one factor");
    err.Check("at least one factor is given", false);
    throw err;
  }

  std::vector<PrimExpr> extents;
  auto const_extent = ConstValue(loop->extent);
  DataType dtype = loop->loop_var.dtype();
  for (int64_t f : factors) {
    if (f > 0) {
      extents.push_back(IntImm(dtype, f));
    } else if (const_extent) {
      extents.push_back(IntImm(dtype, (*const_extent + known - 1) / known));
    } else {
      extents.push_back(
          analyzer.Simplify(floordiv(loop->extent + (known - 1), IntImm(dtype, known))));
    }
  }
  PrimExpr product = extents[0];
  for (size_t i = 1; i < extents.size(); ++i) product = product * extents[i];
  product = analyzer.Simplify(product);
  if (none_at < 0 && const_extent && known < *const_extent) {
    ScheduleError err("WrongFactorProductError",
                      "the product of the factors (" + std::to_string(known) +
                          ") is smaller than the extent of loop " + LoopName(loop) + " (" +
                          std::to_string(*const_extent) + ")");
    err.Subject("loop " + LoopName(loop))
        .Check("the product of the factors is at least the loop extent", false)
        .At(GetRef<ObjectRef>(loop), "extent " + std::to_string(*const_extent) + " but factors " +
                                         PythonLiteral(Any(factor_args)) + " multiply to " +
                                         std::to_string(known));
    throw err;
  }

  // New loop variables i_0, i_1, ... and the value of the old variable.
  std::string base = loop->loop_var->name_hint.str();
  std::vector<Var> vars;
  for (size_t i = 0; i < factors.size(); ++i) {
    vars.push_back(loop->loop_var.copy_with_name(base + "_" + std::to_string(i)));
  }
  // Build the value left to right (i_0 * 4 + i_1 * 2 + i_2), the form TVM prints.
  std::vector<PrimExpr> strides(factors.size());
  PrimExpr stride = IntImm(dtype, 1);
  for (size_t i = factors.size(); i-- > 0;) {
    strides[i] = stride;
    stride = analyzer.Simplify(stride * extents[i]);
  }
  PrimExpr value;
  for (size_t i = 0; i < factors.size(); ++i) {
    auto ext = ConstValue(extents[i]);
    PrimExpr term = vars[i];
    if (!preserve_unit_iters && ext && *ext == 1) continue;
    PrimExpr scaled = (ConstValue(strides[i]) == 1) ? term : term * strides[i];
    value = value.defined() ? value + scaled : scaled;
  }
  if (!value.defined()) value = IntImm(dtype, 0);
  bool needs_predicate = !analyzer.CanProveEqual(product, loop->extent);
  PrimExpr predicate;
  if (needs_predicate && !disable_predication) {
    // The predicate as TVM writes it, nested and unsimplified: `(i_0 * 2 + i_1) * 3 + i_2 < n`.
    PrimExpr nested = IntImm(dtype, 0);
    for (size_t i = 0; i < vars.size(); ++i) nested = nested * extents[i] + vars[i];
    predicate = nested < loop->extent;
  }

  Stmt body = SubstituteVars(loop->body, {{loop->loop_var.get(), value}});
  for (size_t i = 0; i < vars.size(); ++i) {
    auto ext = ConstValue(extents[i]);
    if (preserve_unit_iters && ext && *ext == 1) continue;
    analyzer.Bind(vars[i], Range(IntImm(dtype, 0), extents[i]), true);
  }
  std::unordered_set<const VarNode*> new_vars;
  for (const Var& v : vars) new_vars.insert(v.get());
  body = BindingSimplifier(&analyzer, new_vars, predicate).VisitStmt(body);
  if (predicate.defined() && index.ChildBlocks(loop).empty()) {
    body = IfThenElse(likely(predicate), body);
  }
  Stmt nest = MakeLoopNest(vars, extents, body);
  PrimFunc new_func = ReplaceInFunc(index.func(), {{loop, nest}});
  self->mutable_state()->Replace(func, new_func);

  const FuncIndex& new_index = self->state().Index(func);
  Array<ObjectRef> outputs;
  for (const Var& v : vars) outputs.push_back(self->NewRV(func, new_index.LoopOfVar(v.get())));
  return outputs;
}

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("Split", "split", {"loop", "factors"},
                               {"preserve_unit_iters", "disable_predication"}, Split);
  k.output_kind = 'l';
  k.defaults = {{"preserve_unit_iters", Any(true)}, {"disable_predication", Any(false)}};
  k.returns_list = true;
  return k;
}());

}  // namespace
}  // namespace tir
}  // namespace minitvm
