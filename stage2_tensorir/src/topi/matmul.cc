/*!
 * \file matmul.cc
 * \brief NumPy-style matmul (1-D, 2-D, batched with broadcasting), dense and batch_matmul
 * (stage 2).
 */
#include "minitvm/topi/matmul.h"

#include "minitvm/topi/broadcast.h"
#include "minitvm/topi/nn.h"
#include "topi_util.h"

namespace minitvm {
namespace topi {

using detail::ShapeStr;
using tir::IterVar;
using tir::Var;

namespace {

void CheckContracted(const PrimExpr& ka, const PrimExpr& kb, const Tensor& a, const Tensor& b,
                     const std::string& op) {
  auto x = AsConstInt(ka), y = AsConstInt(kb);
  if (x && y && *x != *y) {
    MINITVM_THROW(ValueError) << op << ": contracted extents differ: " << ShapeStr(a->shape)
                              << " and " << ShapeStr(b->shape) << " (" << *x << " vs " << *y << ")";
  }
}

PrimExpr CastTo(const PrimExpr& e, DataType t) { return t.is_void() ? e : tir::cast(t, e); }

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
              DataType out_dtype, std::string name) {
  size_t ra = a->shape.size(), rb = b->shape.size();
  if (ra == 0 || rb == 0) MINITVM_THROW(ValueError) << "matmul: operands must have rank >= 1";
  bool a_vec = ra == 1, b_vec = rb == 1;
  // Views of a as (..., M, K) and b as (..., K, N).
  auto dim = [](const Tensor& t, size_t from_end) { return t->shape[t->shape.size() - from_end]; };
  PrimExpr m = a_vec ? PrimExpr() : (transpose_a ? dim(a, 1) : dim(a, 2));
  PrimExpr ka = a_vec ? a->shape[0] : (transpose_a ? dim(a, 2) : dim(a, 1));
  PrimExpr kb = b_vec ? b->shape[0] : (transpose_b ? dim(b, 1) : dim(b, 2));
  PrimExpr n = b_vec ? PrimExpr() : (transpose_b ? dim(b, 2) : dim(b, 1));
  CheckContracted(ka, kb, a, b, "matmul");
  Array<PrimExpr> batch_a, batch_b;
  for (size_t i = 0; i + 2 < ra; ++i) batch_a.push_back(a->shape[i]);
  for (size_t i = 0; i + 2 < rb; ++i) batch_b.push_back(b->shape[i]);
  Array<PrimExpr> batch = BroadcastShape(batch_a, batch_b, "matmul");
  Array<PrimExpr> shape = batch;
  if (!a_vec) shape.push_back(m);
  if (!b_vec) shape.push_back(n);
  IterVar k = te::reduce_axis(Range(tir::make_zero(ka.dtype()), ka), "k");
  size_t nb = batch.size();
  auto batch_index = [&](const Tensor& x, size_t rank, const Array<Var>& i) {
    Array<PrimExpr> idx;
    size_t xb = rank >= 2 ? rank - 2 : 0;
    for (size_t d = 0; d < xb; ++d) {
      auto c = AsConstInt(x->shape[d]);
      auto co = AsConstInt(batch[d + nb - xb]);
      idx.push_back(c && *c == 1 && !(co && *co == 1) ? tir::make_zero(x->shape[d].dtype())
                                                      : PrimExpr(i[d + nb - xb]));
    }
    return idx;
  };
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> ia = batch_index(a, ra, i), ib = batch_index(b, rb, i);
                       PrimExpr mi = a_vec ? PrimExpr() : PrimExpr(i[nb]);
                       PrimExpr ni = b_vec ? PrimExpr() : PrimExpr(i[nb + (a_vec ? 0 : 1)]);
                       if (a_vec) {
                         ia.push_back(k->var);
                       } else if (transpose_a) {
                         ia.push_back(k->var);
                         ia.push_back(mi);
                       } else {
                         ia.push_back(mi);
                         ia.push_back(k->var);
                       }
                       if (b_vec) {
                         ib.push_back(k->var);
                       } else if (transpose_b) {
                         ib.push_back(ni);
                         ib.push_back(k->var);
                       } else {
                         ib.push_back(k->var);
                         ib.push_back(ni);
                       }
                       return te::sum(CastTo(a(ia), out_dtype) * CastTo(b(ib), out_dtype), {k});
                     }),
                     name, kMatMul);
}

namespace nn {

Tensor dense(const Tensor& data, const Tensor& weight, const Tensor& bias, DataType out_dtype,
             std::string name) {
  if (weight->shape.size() != 2 || data->shape.empty()) {
    MINITVM_THROW(ValueError) << "dense: expects data (..., K) and weight (N, K), got "
                              << ShapeStr(data->shape) << " and " << ShapeStr(weight->shape);
  }
  PrimExpr kd = data->shape[data->shape.size() - 1];
  CheckContracted(kd, weight->shape[1], data, weight, "dense");
  Array<PrimExpr> shape;
  for (size_t d = 0; d + 1 < data->shape.size(); ++d) shape.push_back(data->shape[d]);
  shape.push_back(weight->shape[0]);
  IterVar k = te::reduce_axis(Range(tir::make_zero(kd.dtype()), kd), "k");
  size_t r = data->shape.size();
  Tensor out = te::compute(
      shape, te::FCompute([&](const Array<Var>& i) {
        Array<PrimExpr> di;
        for (size_t d = 0; d + 1 < r; ++d) di.push_back(i[d]);
        di.push_back(k->var);
        return te::sum(CastTo(data(di), out_dtype) * CastTo(weight(i[r - 1], k->var), out_dtype),
                       {k});
      }),
      name, kDense);
  if (!bias.defined()) return out;
  if (bias->shape.size() != 1) {
    MINITVM_THROW(ValueError) << "dense: bias must be 1-D, got " << ShapeStr(bias->shape);
  }
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       return out(i) + CastTo(bias(i[i.size() - 1]), out_dtype);
                     }),
                     "T_add", kBroadcast);
}

Tensor batch_matmul(const Tensor& x, const Tensor& y, bool transpose_a, bool transpose_b,
                    DataType out_dtype, std::string name) {
  if (x->shape.size() != 3 || y->shape.size() != 3) {
    MINITVM_THROW(ValueError) << "batch_matmul: expects 3-D operands, got " << ShapeStr(x->shape)
                              << " and " << ShapeStr(y->shape);
  }
  return matmul(x, y, transpose_a, transpose_b, out_dtype, name);
}

}  // namespace nn
}  // namespace topi
}  // namespace minitvm
