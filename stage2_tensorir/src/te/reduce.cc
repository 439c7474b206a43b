/*!
 * \file reduce.cc
 * \brief Commutative reducers and the Reduce expression (stage 2): te.sum/max/min/prod and
 * the argmax/argmin tuple reducers.
 */
#include "minitvm/te/reduce.h"

#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace te {

CommReducer::CommReducer(Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result,
                         Array<PrimExpr> identity_element) {
  size_t n = lhs.size();
  if (n == 0 || rhs.size() != n || result.size() != n || identity_element.size() != n) {
    MINITVM_THROW(ValueError) << "CommReducer: lhs, rhs, result and identity_element must have "
                                 "the same non-zero length (got "
                              << lhs.size() << ", " << rhs.size() << ", " << result.size() << ", "
                              << identity_element.size() << ")";
  }
  for (size_t i = 0; i < n; ++i) {
    // A Python fcombine or fidentity that returns None gives an undefined expression here.
    if (!lhs[i].defined() || !rhs[i].defined() || !result[i].defined() ||
        !identity_element[i].defined()) {
      MINITVM_THROW(TypeError) << "CommReducer: element " << i << " of "
                               << (!lhs[i].defined() || !rhs[i].defined() ? "lhs/rhs"
                                   : !result[i].defined()                 ? "result (fcombine)"
                                                          : "identity_element (fidentity)")
                               << " is None; it must be a PrimExpr";
    }
    if (result[i].dtype() != lhs[i].dtype() || identity_element[i].dtype() != lhs[i].dtype()) {
      MINITVM_THROW(ValueError) << "CommReducer: element " << i << " mixes dtypes "
                                << lhs[i].dtype() << ", " << result[i].dtype() << " and "
                                << identity_element[i].dtype();
    }
  }
  auto node = make_object<CommReducerNode>();
  node->lhs = std::move(lhs);
  node->rhs = std::move(rhs);
  node->result = std::move(result);
  node->identity_element = std::move(identity_element);
  data_ = std::move(node);
}

Array<PrimExpr> CommReducer::Combine(const Array<PrimExpr>& a, const Array<PrimExpr>& b) const {
  Map<tir::Var, PrimExpr> vmap;
  for (size_t i = 0; i < get()->lhs.size(); ++i) {
    vmap.Set(get()->lhs[i], a[i]);
    vmap.Set(get()->rhs[i], b[i]);
  }
  Array<PrimExpr> out;
  for (const PrimExpr& r : get()->result) out.push_back(tir::Substitute(r, vmap));
  return out;
}

Reduce::Reduce(CommReducer combiner, Array<PrimExpr> source, Array<IterVar> axis,
               PrimExpr condition, int64_t value_index, Array<PrimExpr> init) {
  if (!combiner.defined()) MINITVM_THROW(ValueError) << "Reduce: undefined combiner";
  if (source.size() != combiner->lhs.size()) {
    MINITVM_THROW(ValueError) << "Reduce: " << source.size() << " source value(s) for a reducer of "
                              << combiner->lhs.size();
  }
  if (value_index < 0 || value_index >= static_cast<int64_t>(source.size())) {
    MINITVM_THROW(ValueError) << "Reduce: value_index " << value_index << " out of range";
  }
  if (!init.empty() && init.size() != source.size()) {
    MINITVM_THROW(ValueError) << "Reduce: init must have one value per source value";
  }
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i].dtype() != combiner->lhs[i].dtype()) {
      MINITVM_THROW(ValueError) << "Reduce: source " << i << " has dtype " << source[i].dtype()
                                << " but the reducer combines " << combiner->lhs[i].dtype();
    }
  }
  for (size_t i = 0; i < axis.size(); ++i) {
    const IterVar& iv = axis[i];
    if (!iv.defined()) MINITVM_THROW(ValueError) << "Reduce: axis " << i << " is undefined";
    for (size_t j = 0; j < i; ++j) {
      if (axis[j].same_as(iv) || axis[j]->var.same_as(iv->var)) {
        MINITVM_THROW(ValueError) << "Reduce: axis " << iv->var->name_hint
                                  << " is listed twice; each reduction axis appears once";
      }
    }
    if (iv->iter_type != tir::kCommReduce) {
      MINITVM_THROW(ValueError) << "Reduce: axis " << iv->var->name_hint
                                << " is not a reduction axis (use te.reduce_axis)";
    }
  }
  if (condition.defined() && !(condition.dtype().is_bool() && condition.dtype().is_scalar())) {
    MINITVM_THROW(ValueError) << "Reduce: the condition (where=) must be a bool expression, got "
                              << condition.dtype();
  }
  auto n = make_object<ReduceNode>();
  n->dtype = source[value_index].dtype();
  n->combiner = std::move(combiner);
  n->source = std::move(source);
  n->init = std::move(init);
  n->axis = std::move(axis);
  n->condition = condition.defined() ? condition : tir::const_true();
  n->value_index = value_index;
  data_ = std::move(n);
}

CommReducer MakeCommReducer(DataType dtype,
                            const std::function<PrimExpr(PrimExpr, PrimExpr)>& fcombine,
                            const std::function<PrimExpr(DataType)>& fidentity) {
  Var x("x", dtype), y("y", dtype);
  return CommReducer({x}, {y}, {fcombine(x, y)}, {fidentity(dtype)});
}

namespace {
PrimExpr MakeReduce(const CommReducer& r, PrimExpr source, Array<IterVar> axis, PrimExpr where,
                    PrimExpr init) {
  Array<PrimExpr> inits;
  if (init.defined()) inits.push_back(tir::cast(source.dtype(), init));
  return Reduce(r, {source}, std::move(axis), where, 0, inits);
}
void CheckSource(const PrimExpr& source, const char* what) {
  if (!source.defined()) MINITVM_THROW(ValueError) << "te." << what << ": undefined source";
  if (source.as<ReduceNode>()) {
    MINITVM_THROW(ValueError) << "te." << what << ": nested reductions are not supported";
  }
}
}  // namespace

PrimExpr sum(PrimExpr source, Array<IterVar> axis, PrimExpr where, PrimExpr init) {
  CheckSource(source, "sum");
  auto r = MakeCommReducer(
      source.dtype(), [](PrimExpr a, PrimExpr b) { return a + b; },
      [](DataType t) { return tir::make_zero(t); });
  return MakeReduce(r, source, axis, where, init);
}
PrimExpr max(PrimExpr source, Array<IterVar> axis, PrimExpr where, PrimExpr init) {
  CheckSource(source, "max");
  auto r = MakeCommReducer(
      source.dtype(), [](PrimExpr a, PrimExpr b) { return tir::max(a, b); },
      [](DataType t) { return tir::min_value(t); });
  return MakeReduce(r, source, axis, where, init);
}
PrimExpr min(PrimExpr source, Array<IterVar> axis, PrimExpr where, PrimExpr init) {
  CheckSource(source, "min");
  auto r = MakeCommReducer(
      source.dtype(), [](PrimExpr a, PrimExpr b) { return tir::min(a, b); },
      [](DataType t) { return tir::max_value(t); });
  return MakeReduce(r, source, axis, where, init);
}
PrimExpr prod(PrimExpr source, Array<IterVar> axis, PrimExpr where, PrimExpr init) {
  CheckSource(source, "prod");
  auto r = MakeCommReducer(
      source.dtype(), [](PrimExpr a, PrimExpr b) { return a * b; },
      [](DataType t) { return tir::make_const(t, 1); });
  return MakeReduce(r, source, axis, where, init);
}

namespace {
CommReducer ArgReducer(DataType index_dtype, DataType value_dtype, bool is_max) {
  Var li("idx0", index_dtype), lv("val0", value_dtype);
  Var ri("idx1", index_dtype), rv("val1", value_dtype);
  // Keep the better value; on a tie keep the smaller index (the first occurrence). The
  // identity carries index -1 and is never kept against a real element.
  PrimExpr better = is_max ? (lv > rv) : (lv < rv);
  PrimExpr keep_left = li >= tir::make_zero(index_dtype) && (better || (lv == rv && li < ri));
  PrimExpr idx = tir::Select(keep_left, li, ri);
  PrimExpr val = tir::Select(keep_left, lv, rv);
  PrimExpr id_val = is_max ? tir::min_value(value_dtype) : tir::max_value(value_dtype);
  return CommReducer({li, lv}, {ri, rv}, {idx, val}, {tir::make_const(index_dtype, -1), id_val});
}
}  // namespace

CommReducer ArgMaxReducer(DataType index_dtype, DataType value_dtype) {
  return ArgReducer(index_dtype, value_dtype, true);
}
CommReducer ArgMinReducer(DataType index_dtype, DataType value_dtype) {
  return ArgReducer(index_dtype, value_dtype, false);
}

}  // namespace te
}  // namespace minitvm
