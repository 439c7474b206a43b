/*!
 * \file unary.cc
 * \brief The elementwise unary Relax operators (stage 4): `relax.exp`, `relax.log`,
 * `relax.sqrt`, `relax.rsqrt`, `relax.tanh`, `relax.sigmoid`, `relax.erf` (float tensors only),
 * `relax.negative`, `relax.abs` (any numeric tensor), and `relax.astype(x, dtype)`.
 * The result has the input's struct info (astype: with the new dtype).
 */
#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

StructInfo SameAs(const TensorStructInfoNode* x, DataType dtype) {
  if (x->shape.defined()) return TensorStructInfo(x->shape, dtype);
  return TensorStructInfo(dtype, x->ndim);
}

StructInfo InferUnary(const Call& call, bool float_only) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  if (float_only) RequireFloat(call, 0, x->dtype);
  return SameAs(x, x->dtype);
}

StructInfo InferFloatUnary(const Call& call) { return InferUnary(call, true); }
StructInfo InferAnyUnary(const Call& call) { return InferUnary(call, false); }

StructInfo InferAstype(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  DataType dtype = DTypeAttr(call, "dtype");
  if (dtype.is_void()) MINITVM_THROW(ValueError) << "relax.astype: dtype is required";
  return SameAs(x, dtype);
}

}  // namespace

#define MINITVM_RELAX_UNARY_OP(Name, Infer, Doc)                \
  MINITVM_REGISTER_OP("relax." #Name)                           \
      .describe(Doc)                                            \
      .set_num_inputs(1)                                        \
      .add_argument("x", "Tensor", "The input tensor.")         \
      .set_attr(kTAttrDefaults, AttrMap())                      \
      .MINITVM_RELAX_OP_TRAITS(kElemWise, true, Infer);         \
  namespace op {                                                \
  Call Name(Expr x) { return MakeOpCall("relax." #Name, {x}); } \
  }                                                             \
  MINITVM_REGISTER_GLOBAL("relax.op." #Name).set_body_typed(op::Name)

MINITVM_RELAX_UNARY_OP(exp, InferFloatUnary, "e ** x, elementwise.");
MINITVM_RELAX_UNARY_OP(log, InferFloatUnary, "The natural logarithm, elementwise.");
MINITVM_RELAX_UNARY_OP(sqrt, InferFloatUnary, "The square root, elementwise.");
MINITVM_RELAX_UNARY_OP(rsqrt, InferFloatUnary, "1 / sqrt(x), elementwise.");
MINITVM_RELAX_UNARY_OP(tanh, InferFloatUnary, "The hyperbolic tangent, elementwise.");
MINITVM_RELAX_UNARY_OP(sigmoid, InferFloatUnary, "1 / (1 + exp(-x)), elementwise.");
MINITVM_RELAX_UNARY_OP(erf, InferFloatUnary, "The Gauss error function, elementwise.");
MINITVM_RELAX_UNARY_OP(negative, InferAnyUnary, "-x, elementwise.");
MINITVM_RELAX_UNARY_OP(abs, InferAnyUnary, "|x|, elementwise.");

MINITVM_REGISTER_OP("relax.astype")
    .describe("x converted to dtype, elementwise.")
    .set_num_inputs(1)
    .add_argument("x", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"dtype", Any()}})
    .MINITVM_RELAX_OP_TRAITS(kElemWise, true, InferAstype);

namespace op {
Call astype(Expr x, Any dtype) { return MakeOpCall("relax.astype", {x}, {{"dtype", dtype}}); }
}  // namespace op
MINITVM_REGISTER_GLOBAL("relax.op.astype").set_body_typed(op::astype);

}  // namespace relax
}  // namespace minitvm
