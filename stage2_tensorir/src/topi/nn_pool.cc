/*!
 * \file nn_pool.cc
 * \brief Max/avg pooling (padding, dilation, ceil_mode, count_include_pad) and adaptive
 * pooling over (H, W) of NCHW tensors (stage 2).
 */
#include <algorithm>

#include "minitvm/topi/nn.h"
#include "topi_util.h"

namespace minitvm {
namespace topi {
namespace nn {

using detail::IndexConst;
using detail::Padding4;
using detail::Pair;
using detail::ShapeStr;
using tir::IterVar;
using tir::Var;

namespace {

/*! \brief Output extent of a pooled axis (PyTorch's rule in ceil mode). */
int64_t PoolOut(int64_t n, int64_t k, int64_t s, int64_t d, int64_t lo, int64_t hi, bool ceil_mode,
                const std::string& op) {
  int64_t span = n + lo + hi - d * (k - 1) - 1;
  if (span < 0) {
    MINITVM_THROW(ValueError) << op << ": the window (" << k << ", dilation " << d
                              << ") is larger than the padded input (" << n + lo + hi << ")";
  }
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  // A last window that would start in the right padding is dropped.
  if (ceil_mode && (out - 1) * s >= n + lo) --out;
  return out;
}

}  // namespace

Tensor pool2d(const Tensor& x, std::vector<int64_t> kernel, std::vector<int64_t> stride,
              std::vector<int64_t> dilation, std::vector<int64_t> padding,
              const std::string& pool_type, bool ceil_mode, bool count_include_pad,
              std::string name) {
  const std::string op = pool_type + "_pool2d";
  if (pool_type != "max" && pool_type != "avg") {
    MINITVM_THROW(ValueError) << "pool2d: pool_type must be \"max\" or \"avg\", got \"" << pool_type
                              << "\"";
  }
  if (x->shape.size() != 4) {
    MINITVM_THROW(ValueError) << op << ": expects NCHW input, got " << ShapeStr(x->shape);
  }
  auto k = Pair(kernel, op, "pool_size");
  auto s = Pair(stride.empty() ? kernel : stride, op, "strides");
  auto d = Pair(dilation.empty() ? std::vector<int64_t>{1} : dilation, op, "dilation");
  auto p = Padding4(padding.empty() ? std::vector<int64_t>{0} : padding, op);
  for (int i = 0; i < 2; ++i) {
    if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0) {
      MINITVM_THROW(ValueError) << op << ": pool_size, strides and dilation must be positive";
    }
  }
  int64_t H = detail::GetConstInt(x->shape[2], op, "the height");
  int64_t W = detail::GetConstInt(x->shape[3], op, "the width");
  int64_t OH = PoolOut(H, k[0], s[0], d[0], p[0], p[2], ceil_mode, op);
  int64_t OW = PoolOut(W, k[1], s[1], d[1], p[1], p[3], ceil_mode, op);
  DataType it = x->shape[2].dtype();
  IterVar ry = te::reduce_axis(Range(tir::make_zero(it), IndexConst(x->shape[2], k[0])), "rv0");
  IterVar rx = te::reduce_axis(Range(tir::make_zero(it), IndexConst(x->shape[3], k[1])), "rv1");
  auto window = [&](const Array<Var>& i, PrimExpr* h, PrimExpr* w, PrimExpr* inside) {
    *h = i[2] * IndexConst(i[2], s[0]) - IndexConst(i[2], p[0]) + ry->var * IndexConst(i[2], d[0]);
    *w = i[3] * IndexConst(i[3], s[1]) - IndexConst(i[3], p[1]) + rx->var * IndexConst(i[3], d[1]);
    PrimExpr zero = IndexConst(*h, 0);
    *inside = *h >= zero && *h < IndexConst(*h, H) && *w >= zero && *w < IndexConst(*w, W);
  };
  Array<PrimExpr> shape{x->shape[0], x->shape[1], IndexConst(x->shape[2], OH),
                        IndexConst(x->shape[3], OW)};
  if (pool_type == "max") {
    return te::compute(
        shape, te::FCompute([&](const Array<Var>& i) {
          PrimExpr h, w, inside;
          window(i, &h, &w, &inside);
          return te::max(tir::if_then_else(inside, x(i[0], i[1], h, w), tir::min_value(x->dtype)),
                         {ry, rx});
        }),
        name.empty() ? "pool_max" : name, kPoolMax);
  }
  Tensor total = te::compute(
      shape, te::FCompute([&](const Array<Var>& i) {
        PrimExpr h, w, inside;
        window(i, &h, &w, &inside);
        return te::sum(tir::if_then_else(inside, x(i[0], i[1], h, w), tir::make_zero(x->dtype)),
                       {ry, rx});
      }),
      "pool_sum", kPoolAvg);
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       // The window of output (oh, ow), clipped to the padded input, then to the
                       // input.
                       auto extent = [&](const PrimExpr& o, int64_t st, int64_t kk, int64_t lo,
                                         int64_t hi, int64_t n) {
                         PrimExpr start = o * IndexConst(o, st) - IndexConst(o, lo);
                         PrimExpr end = tir::min(start + IndexConst(o, kk), IndexConst(o, n + hi));
                         if (count_include_pad) return end - start;
                         return tir::min(end, IndexConst(o, n)) - tir::max(start, IndexConst(o, 0));
                       };
                       PrimExpr count = extent(i[2], s[0], k[0], p[0], p[2], H) *
                                        extent(i[3], s[1], k[1], p[1], p[3], W);
                       return total(i) / tir::cast(x->dtype, tir::max(count, IndexConst(count, 1)));
                     }),
                     name.empty() ? "pool_avg" : name, kPoolAvg);
}

Tensor adaptive_pool(const Tensor& x, std::vector<int64_t> output_size,
                     const std::string& pool_type, std::string name) {
  const std::string op = "adaptive_" + pool_type + "_pool2d";
  if (pool_type != "max" && pool_type != "avg") {
    MINITVM_THROW(ValueError) << "adaptive_pool: pool_type must be \"max\" or \"avg\"";
  }
  if (x->shape.size() != 4) {
    MINITVM_THROW(ValueError) << op << ": expects NCHW input, got " << ShapeStr(x->shape);
  }
  auto o = Pair(output_size, op, "output_size");
  int64_t H = detail::GetConstInt(x->shape[2], op, "the height");
  int64_t W = detail::GetConstInt(x->shape[3], op, "the width");
  if (o[0] <= 0 || o[1] <= 0) MINITVM_THROW(ValueError) << op << ": output_size must be positive";
  // Output row i averages input rows [floor(i * H / OH), ceil((i + 1) * H / OH)).
  auto max_window = [](int64_t n, int64_t out) {
    int64_t m = 0;
    for (int64_t i = 0; i < out; ++i) {
      m = std::max(m, ((i + 1) * n + out - 1) / out - (i * n) / out);
    }
    return m;
  };
  int64_t KH = max_window(H, o[0]), KW = max_window(W, o[1]);
  DataType it = x->shape[2].dtype();
  IterVar ry = te::reduce_axis(Range(tir::make_zero(it), IndexConst(x->shape[2], KH)), "rv0");
  IterVar rx = te::reduce_axis(Range(tir::make_zero(it), IndexConst(x->shape[3], KW)), "rv1");
  auto bounds = [](const PrimExpr& i, int64_t n, int64_t out) {
    PrimExpr start = tir::floordiv(i * IndexConst(i, n), IndexConst(i, out));
    PrimExpr end = tir::floordiv((i + IndexConst(i, 1)) * IndexConst(i, n) + IndexConst(i, out - 1),
                                 IndexConst(i, out));
    return std::make_pair(start, end);
  };
  Array<PrimExpr> shape{x->shape[0], x->shape[1], IndexConst(x->shape[2], o[0]),
                        IndexConst(x->shape[3], o[1])};
  auto body = [&](const Array<Var>& i, bool is_max) {
    auto [hs, he] = bounds(i[2], H, o[0]);
    auto [ws, we] = bounds(i[3], W, o[1]);
    PrimExpr cond = ry->var < he - hs && rx->var < we - ws;
    PrimExpr load = x(i[0], i[1], hs + ry->var, ws + rx->var);
    return is_max ? te::max(load, {ry, rx}, cond) : te::sum(load, {ry, rx}, cond);
  };
  if (pool_type == "max") {
    return te::compute(shape, te::FCompute([&](const Array<Var>& i) { return body(i, true); }),
                       name.empty() ? "adaptive_pool_max" : name, kAdaptivePool);
  }
  Tensor total =
      te::compute(shape, te::FCompute([&](const Array<Var>& i) { return body(i, false); }),
                  "adaptive_pool_sum", kAdaptivePool);
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       auto [hs, he] = bounds(i[2], H, o[0]);
                       auto [ws, we] = bounds(i[3], W, o[1]);
                       return total(i) / tir::cast(x->dtype, (he - hs) * (we - ws));
                     }),
                     name.empty() ? "adaptive_pool_avg" : name, kElementWise);
}

}  // namespace nn
}  // namespace topi
}  // namespace minitvm
