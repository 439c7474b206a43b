/*!
 * \file create.cc
 * \brief The Relax operators that create tensors (stage 4): `relax.zeros(shape, dtype)`,
 * `relax.ones(shape, dtype)` and `relax.full(shape, fill_value, dtype=None)`. The shape is a
 * Relax argument (a ShapeExpr or a value of shape struct info), as in TVM; `fill_value` is a
 * 0-d tensor (an `R.const`).
 */
#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

StructInfo InferZerosOnes(const Call& call) {
  CheckNumArgs(call, 1, 1);
  DataType dtype = DTypeAttr(call, "dtype");
  if (dtype.is_void()) MINITVM_THROW(ValueError) << OpName(call) << ": dtype is required";
  return TensorOfShapeArg(call, 0, dtype);
}

StructInfo InferFull(const Call& call) {
  CheckNumArgs(call, 2, 2);
  auto* fill = TensorArg(call, 1);
  if (!fill->IsUnknownNdim() && fill->ndim != 0) {
    MINITVM_THROW(ValueError) << "relax.full: fill_value must be a scalar (a 0-d tensor), but "
                                 "has shape "
                              << TensorShapeStr(fill);
  }
  DataType dtype = DTypeAttr(call, "dtype");
  if (dtype.is_void()) dtype = fill->dtype;
  return TensorOfShapeArg(call, 0, dtype);
}

}  // namespace

MINITVM_REGISTER_OP("relax.zeros")
    .describe("A tensor of zeros of the given shape and dtype.")
    .set_num_inputs(1)
    .add_argument("shape", "Shape", "The shape.")
    .set_attr(kTAttrDefaults, AttrMap{{"dtype", Any()}})
    .MINITVM_RELAX_OP_TRAITS(kElemWise, true, InferZerosOnes);

MINITVM_REGISTER_OP("relax.ones")
    .describe("A tensor of ones of the given shape and dtype.")
    .set_num_inputs(1)
    .add_argument("shape", "Shape", "The shape.")
    .set_attr(kTAttrDefaults, AttrMap{{"dtype", Any()}})
    .MINITVM_RELAX_OP_TRAITS(kElemWise, true, InferZerosOnes);

MINITVM_REGISTER_OP("relax.full")
    .describe("A tensor of the given shape filled with fill_value.")
    .set_num_inputs(2)
    .add_argument("shape", "Shape", "The shape.")
    .add_argument("fill_value", "Tensor", "The value (a 0-d tensor).")
    .set_attr(kTAttrDefaults, AttrMap{{"dtype", Any()}})
    .MINITVM_RELAX_OP_TRAITS(kElemWise, true, InferFull);

namespace op {
Call zeros(Any shape, Any dtype) {
  return MakeOpCall("relax.zeros", {ShapeOperand(shape, "relax.zeros", "shape")},
                    {{"dtype", dtype}});
}
Call ones(Any shape, Any dtype) {
  return MakeOpCall("relax.ones", {ShapeOperand(shape, "relax.ones", "shape")}, {{"dtype", dtype}});
}
Call full(Any shape, Expr fill_value, Any dtype) {
  return MakeOpCall("relax.full", {ShapeOperand(shape, "relax.full", "shape"), fill_value},
                    {{"dtype", dtype}});
}
}  // namespace op

MINITVM_REGISTER_GLOBAL("relax.op.zeros").set_body_typed(op::zeros);
MINITVM_REGISTER_GLOBAL("relax.op.ones").set_body_typed(op::ones);
MINITVM_REGISTER_GLOBAL("relax.op.full").set_body_typed(op::full);

}  // namespace relax
}  // namespace minitvm
