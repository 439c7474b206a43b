/*!
 * \file binary.cc
 * \brief The broadcasting binary Relax operators (stage 4): arithmetic (`relax.add`, ...,
 * `relax.minimum`), comparisons (`relax.equal`, ..., with a bool result) and `relax.where`.
 *
 * Shapes broadcast as in numpy, dimension by dimension from the right: equal dimensions, or
 * one of them 1. Symbolic dimensions broadcast when provably equal; a pair that cannot be
 * decided at compile time (`n` vs `4`) gives a tensor of known rank and unknown shape. The two
 * dtypes must be equal (no implicit promotion, as in TVM).
 */
#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

/*! \brief The output of a binary broadcast of two tensors. */
StructInfo BroadcastResult(const Call& call, const TensorStructInfoNode* a, const std::string& an,
                           const TensorStructInfoNode* b, const std::string& bn, DataType out) {
  if (a->IsUnknownNdim() || b->IsUnknownNdim()) return TensorStructInfo(out, kUnknownNDim);
  int64_t ndim = std::max(a->ndim, b->ndim);
  auto sa = a->GetShape(), sb = b->GetShape();
  if (!sa || !sb) return TensorStructInfo(out, ndim);
  auto shape = BroadcastShapes(call, *sa, an, *sb, bn);
  if (!shape) return TensorStructInfo(out, ndim);
  return TensorFromShape(*shape, out);
}

StructInfo InferBinary(const Call& call, bool compare) {
  CheckNumArgs(call, 2, 2);
  auto* a = TensorArg(call, 0);
  auto* b = TensorArg(call, 1);
  DataType dtype = UnifyDType(call, a->dtype, "x1", b->dtype, "x2");
  return BroadcastResult(call, a, "x1", b, "x2", compare ? DataType::Bool() : dtype);
}

StructInfo InferArith(const Call& call) { return InferBinary(call, false); }
StructInfo InferCompare(const Call& call) { return InferBinary(call, true); }

StructInfo InferWhere(const Call& call) {
  CheckNumArgs(call, 3, 3);
  auto* c = TensorArg(call, 0);
  auto* a = TensorArg(call, 1);
  auto* b = TensorArg(call, 2);
  if (!c->IsUnknownDtype() && !c->dtype.is_bool()) {
    MINITVM_THROW(TypeError) << "relax.where: condition must have dtype bool, but has " << c->dtype;
  }
  DataType dtype = UnifyDType(call, a->dtype, "x1", b->dtype, "x2");
  if (c->IsUnknownNdim() || a->IsUnknownNdim() || b->IsUnknownNdim()) {
    return TensorStructInfo(dtype, kUnknownNDim);
  }
  int64_t ndim = std::max({c->ndim, a->ndim, b->ndim});
  auto sc = c->GetShape(), sa = a->GetShape(), sb = b->GetShape();
  if (!sc || !sa || !sb) return TensorStructInfo(dtype, ndim);
  auto ab = BroadcastShapes(call, *sa, "x1", *sb, "x2");
  if (!ab) return TensorStructInfo(dtype, ndim);
  auto all = BroadcastShapes(call, *sc, "condition", *ab, "broadcast(x1, x2)");
  if (!all) return TensorStructInfo(dtype, ndim);
  return TensorFromShape(*all, dtype);
}

}  // namespace

#define MINITVM_RELAX_BINARY_OP(Name, Infer, Doc)                              \
  MINITVM_REGISTER_OP("relax." #Name)                                          \
      .describe(Doc)                                                           \
      .set_num_inputs(2)                                                       \
      .add_argument("x1", "Tensor", "The first operand.")                      \
      .add_argument("x2", "Tensor", "The second operand.")                     \
      .set_attr(kTAttrDefaults, AttrMap())                                     \
      .MINITVM_RELAX_OP_TRAITS(kBroadcast, true, Infer);                       \
  namespace op {                                                               \
  Call Name(Expr x1, Expr x2) { return MakeOpCall("relax." #Name, {x1, x2}); } \
  }                                                                            \
  MINITVM_REGISTER_GLOBAL("relax.op." #Name).set_body_typed(op::Name)

MINITVM_RELAX_BINARY_OP(add, InferArith, "x1 + x2, elementwise with numpy broadcasting.");
MINITVM_RELAX_BINARY_OP(subtract, InferArith, "x1 - x2, elementwise with numpy broadcasting.");
MINITVM_RELAX_BINARY_OP(multiply, InferArith, "x1 * x2, elementwise with numpy broadcasting.");
MINITVM_RELAX_BINARY_OP(divide, InferArith, "x1 / x2, elementwise with numpy broadcasting.");
MINITVM_RELAX_BINARY_OP(floor_divide, InferArith,
                        "floor(x1 / x2), elementwise with numpy broadcasting.");
MINITVM_RELAX_BINARY_OP(power, InferArith, "x1 ** x2, elementwise with numpy broadcasting.");
MINITVM_RELAX_BINARY_OP(maximum, InferArith, "The larger of x1 and x2, elementwise.");
MINITVM_RELAX_BINARY_OP(minimum, InferArith, "The smaller of x1 and x2, elementwise.");
MINITVM_RELAX_BINARY_OP(equal, InferCompare, "x1 == x2, elementwise (a bool tensor).");
MINITVM_RELAX_BINARY_OP(not_equal, InferCompare, "x1 != x2, elementwise (a bool tensor).");
MINITVM_RELAX_BINARY_OP(less, InferCompare, "x1 < x2, elementwise (a bool tensor).");
MINITVM_RELAX_BINARY_OP(less_equal, InferCompare, "x1 <= x2, elementwise (a bool tensor).");
MINITVM_RELAX_BINARY_OP(greater, InferCompare, "x1 > x2, elementwise (a bool tensor).");
MINITVM_RELAX_BINARY_OP(greater_equal, InferCompare, "x1 >= x2, elementwise (a bool tensor).");

MINITVM_REGISTER_OP("relax.where")
    .describe("x1 where condition is true, else x2; the three broadcast together.")
    .set_num_inputs(3)
    .add_argument("condition", "Tensor", "A bool tensor.")
    .add_argument("x1", "Tensor", "Values where condition is true.")
    .add_argument("x2", "Tensor", "Values where condition is false.")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kBroadcast, true, InferWhere);

namespace op {
Call where(Expr condition, Expr x1, Expr x2) {
  return MakeOpCall("relax.where", {condition, x1, x2});
}
}  // namespace op
MINITVM_REGISTER_GLOBAL("relax.op.where").set_body_typed(op::where);

}  // namespace relax
}  // namespace minitvm
