/*!
 * \file reduce.cc
 * \brief The Relax reductions (stage 4): `relax.sum`, `relax.mean`, `relax.max`, `relax.min`
 * over a list of axes (None: all), and `relax.argmax` / `relax.argmin` over one axis (None: the
 * flattened tensor) with an int64 result. `keepdims` keeps reduced axes with extent 1, as numpy.
 */
#include <set>

#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

StructInfo Reduced(const Call& call, const TensorStructInfoNode* x,
                   const std::optional<std::vector<int64_t>>& axes, bool keepdims, DataType dtype) {
  if (x->IsUnknownNdim()) {
    if (keepdims) return TensorStructInfo(dtype, kUnknownNDim);
    if (!axes) return TensorFromShape({}, dtype);
    return TensorStructInfo(dtype, kUnknownNDim);
  }
  std::set<int64_t> red;
  if (axes) {
    for (int64_t a : NormalizeAxes(call, *axes, x->ndim, "axis")) red.insert(a);
  } else {
    for (int64_t d = 0; d < x->ndim; ++d) red.insert(d);
  }
  int64_t out_ndim = keepdims ? x->ndim : x->ndim - static_cast<int64_t>(red.size());
  auto shape = x->GetShape();
  if (!shape) return TensorStructInfo(dtype, out_ndim);
  std::vector<PrimExpr> out;
  for (int64_t d = 0; d < x->ndim; ++d) {
    if (!red.count(d)) {
      out.push_back((*shape)[d]);
    } else if (keepdims) {
      out.push_back(Int64(1));
    }
  }
  return TensorFromShape(Array<PrimExpr>(out), dtype);
}

StructInfo InferReduce(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  return Reduced(call, x, OptIntListAttr(call, "axis"), BoolAttr(call, "keepdims"), x->dtype);
}

StructInfo InferArgReduce(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  auto axis = OptIntAttr(call, "axis");
  std::optional<std::vector<int64_t>> axes;
  if (axis) axes = std::vector<int64_t>{*axis};
  return Reduced(call, x, axes, BoolAttr(call, "keepdims"), DataType::Int(64));
}

Map<String, Any> ListifyAxis(const Array<Expr>&, Map<String, Any> attrs) {
  auto v = attrs.Get("axis");
  if (v && (v->is_int() || v->as<IntImmNode>())) attrs.Set("axis", Array<Any>{*v});
  return attrs;
}

}  // namespace

#define MINITVM_RELAX_REDUCE_OP(Name, Infer, Doc)                                     \
  MINITVM_REGISTER_OP("relax." #Name)                                                 \
      .describe(Doc)                                                                  \
      .set_num_inputs(1)                                                              \
      .add_argument("x", "Tensor", "The input tensor.")                               \
      .set_attr(kTAttrDefaults, AttrMap{{"axis", Any()}, {"keepdims", Any(false)}})   \
      .MINITVM_RELAX_OP_TRAITS(kCommReduce, true, Infer);                             \
  namespace op {                                                                      \
  Call Name(Expr x, Any axis, bool keepdims) {                                        \
    return MakeOpCall("relax." #Name, {x}, {{"axis", axis}, {"keepdims", keepdims}}); \
  }                                                                                   \
  }                                                                                   \
  MINITVM_REGISTER_GLOBAL("relax.op." #Name).set_body_typed(op::Name)

MINITVM_RELAX_REDUCE_OP(sum, InferReduce, "The sum over the given axes (None: all).");
MINITVM_RELAX_REDUCE_OP(mean, InferReduce, "The mean over the given axes (None: all).");
MINITVM_RELAX_REDUCE_OP(max, InferReduce, "The maximum over the given axes (None: all).");
MINITVM_RELAX_REDUCE_OP(min, InferReduce, "The minimum over the given axes (None: all).");
MINITVM_RELAX_REDUCE_OP(argmax, InferArgReduce,
                        "The index of the maximum along axis (None: of the flattened tensor).");
MINITVM_RELAX_REDUCE_OP(argmin, InferArgReduce,
                        "The index of the minimum along axis (None: of the flattened tensor).");

[[maybe_unused]] static const bool kReduceNormalizers = [] {
  for (const char* name : {"relax.sum", "relax.mean", "relax.max", "relax.min"}) {
    op_detail::RegisterAttrNormalizer(name, ListifyAxis);
  }
  return true;
}();

}  // namespace relax
}  // namespace minitvm
