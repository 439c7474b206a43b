/*!
 * \file linalg.cc
 * \brief `relax.matmul(x1, x2, out_dtype=None)` (stage 4), with numpy's matmul rules: a 1-D
 * x1 is a row (its dimension dropped from the result), a 1-D x2 a column; the leading (batch)
 * dimensions broadcast; the contracted dimensions must agree.
 */
#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

StructInfo InferMatmul(const Call& call) {
  CheckNumArgs(call, 2, 2);
  auto* a = TensorArg(call, 0);
  auto* b = TensorArg(call, 1);
  DataType out_dtype = DTypeAttr(call, "out_dtype");
  if (out_dtype.is_void()) out_dtype = UnifyDType(call, a->dtype, "x1", b->dtype, "x2");
  if (a->IsUnknownNdim() || b->IsUnknownNdim()) return TensorStructInfo(out_dtype, kUnknownNDim);
  if (a->ndim == 0 || b->ndim == 0) {
    MINITVM_THROW(ValueError) << "relax.matmul: " << (a->ndim == 0 ? "x1" : "x2")
                              << " is a scalar (rank 0); matmul needs at least one dimension";
  }
  bool a_vec = a->ndim == 1, b_vec = b->ndim == 1;
  int64_t a_batch = a_vec ? 0 : a->ndim - 2, b_batch = b_vec ? 0 : b->ndim - 2;
  int64_t out_ndim = std::max(a_batch, b_batch) + (a_vec ? 0 : 1) + (b_vec ? 0 : 1);
  auto sa = a->GetShape(), sb = b->GetShape();
  if (!sa || !sb) return TensorStructInfo(out_dtype, out_ndim);
  PrimExpr ka = (*sa)[a->ndim - 1];
  PrimExpr kb = b_vec ? (*sb)[0] : (*sb)[b->ndim - 2];
  if (ProveNotEqual(ka, kb)) {
    MINITVM_THROW(ValueError) << "relax.matmul: the reduction dimensions of x1 " << ShapeStr(*sa)
                              << " and x2 " << ShapeStr(*sb) << " differ (" << DimStr(ka) << " vs "
                              << DimStr(kb) << ")";
  }
  std::vector<PrimExpr> ba = sa->to_vector(), bb = sb->to_vector();
  ba.resize(a_batch);
  bb.resize(b_batch);
  std::optional<Array<PrimExpr>> batch;
  try {
    batch = BroadcastShapes(call, Array<PrimExpr>(ba), "x1", Array<PrimExpr>(bb), "x2");
  } catch (const Error& e) {
    if (e.base_kind() != "ValueError") throw;
    MINITVM_THROW(ValueError) << "relax.matmul: the batch dimensions of x1 " << ShapeStr(*sa)
                              << " and x2 " << ShapeStr(*sb) << " cannot broadcast";
  }
  if (!batch) return TensorStructInfo(out_dtype, out_ndim);
  std::vector<PrimExpr> out = batch->to_vector();
  if (!a_vec) out.push_back((*sa)[a->ndim - 2]);
  if (!b_vec) out.push_back((*sb)[b->ndim - 1]);
  return TensorFromShape(Array<PrimExpr>(out), out_dtype);
}

}  // namespace

MINITVM_REGISTER_OP("relax.matmul")
    .describe("Matrix product with numpy's rules (1-D operands, broadcast batch dimensions).")
    .set_num_inputs(2)
    .add_argument("x1", "Tensor", "The left operand.")
    .add_argument("x2", "Tensor", "The right operand.")
    .set_attr(kTAttrDefaults, AttrMap{{"out_dtype", Any()}})
    .MINITVM_RELAX_OP_TRAITS(kOutEWiseFusable, true, InferMatmul);

namespace op {
Call matmul(Expr x1, Expr x2, Any out_dtype) {
  return MakeOpCall("relax.matmul", {x1, x2}, {{"out_dtype", out_dtype}});
}
}  // namespace op
MINITVM_REGISTER_GLOBAL("relax.op.matmul").set_body_typed(op::matmul);

}  // namespace relax
}  // namespace minitvm
