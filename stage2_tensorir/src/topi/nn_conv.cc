/*!
 * \file nn_conv.cc
 * \brief conv2d_nchw (stride, padding, dilation, groups) and conv2d_transpose_nchw
 * (stage 2).
 */
#include "minitvm/topi/nn.h"
#include "minitvm/topi/transform.h"
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
PrimExpr CastTo(const PrimExpr& e, DataType t) { return t.is_void() ? e : tir::cast(t, e); }

void CheckPositive(const std::array<int64_t, 2>& v, const std::string& op,
                   const std::string& what) {
  if (v[0] <= 0 || v[1] <= 0) {
    MINITVM_THROW(ValueError) << op << ": " << what << " must be positive, got (" << v[0] << ", "
                              << v[1] << ")";
  }
}
}  // namespace

Tensor conv2d_nchw(const Tensor& input, const Tensor& filter, std::vector<int64_t> stride,
                   std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups,
                   DataType out_dtype, std::string name) {
  const std::string op = "conv2d_nchw";
  if (input->shape.size() != 4 || filter->shape.size() != 4) {
    MINITVM_THROW(ValueError) << op
                              << ": expects input (N, C, H, W) and filter (O, C/groups, KH, "
                                 "KW), got "
                              << ShapeStr(input->shape) << " and " << ShapeStr(filter->shape);
  }
  auto s = Pair(stride, op, "stride");
  auto d = Pair(dilation, op, "dilation");
  auto p = Padding4(padding, op);
  CheckPositive(s, op, "stride");
  CheckPositive(d, op, "dilation");
  if (groups <= 0) MINITVM_THROW(ValueError) << op << ": groups must be positive";
  PrimExpr C = input->shape[1], O = filter->shape[0], Cg = filter->shape[1];
  auto c = AsConstInt(C), o = AsConstInt(O), cg = AsConstInt(Cg);
  if (c && cg && *c != *cg * groups) {
    MINITVM_THROW(ValueError) << op << ": input has " << *c << " channels but the filter expects "
                              << *cg << " x " << groups << " groups (shapes "
                              << ShapeStr(input->shape) << ", " << ShapeStr(filter->shape) << ")";
  }
  if (o && *o % groups != 0) {
    MINITVM_THROW(ValueError) << op << ": " << *o << " output channels are not divisible by "
                              << groups << " groups";
  }
  Tensor data = input;
  if (p[0] || p[1] || p[2] || p[3]) {
    data = pad(input, {0, 0, PrimExpr(p[0]), PrimExpr(p[1])},
               {0, 0, PrimExpr(p[2]), PrimExpr(p[3])}, tir::make_zero(input->dtype), "pad_temp");
  }
  PrimExpr H = input->shape[2], W = input->shape[3], KH = filter->shape[2], KW = filter->shape[3];
  auto out_size = [&](const PrimExpr& n, int64_t lo, int64_t hi, const PrimExpr& k, int64_t dil,
                      int64_t st) {
    PrimExpr e = tir::floordiv(n + IndexConst(n, lo + hi) -
                                   IndexConst(n, dil) * (k - IndexConst(k, 1)) - IndexConst(n, 1),
                               IndexConst(n, st)) +
                 IndexConst(n, 1);
    e = detail::Simplify(e);
    if (auto v = AsConstInt(e); v && *v < 1) {
      MINITVM_THROW(ValueError) << op << ": the output would be empty for input "
                                << ShapeStr(input->shape) << " and filter "
                                << ShapeStr(filter->shape);
    }
    return e;
  };
  PrimExpr OH = out_size(H, p[0], p[2], KH, d[0], s[0]);
  PrimExpr OW = out_size(W, p[1], p[3], KW, d[1], s[1]);
  IterVar rc = te::reduce_axis(Range(tir::make_zero(Cg.dtype()), Cg), "rc");
  IterVar ry = te::reduce_axis(Range(tir::make_zero(KH.dtype()), KH), "ry");
  IterVar rx = te::reduce_axis(Range(tir::make_zero(KW.dtype()), KW), "rx");
  PrimExpr Og = groups == 1 ? O : tir::floordiv(O, IndexConst(O, groups));
  return te::compute({input->shape[0], O, OH, OW}, te::FCompute([&](const Array<Var>& i) {
                       PrimExpr nn = i[0], ff = i[1], yy = i[2], xx = i[3];
                       PrimExpr channel =
                           groups == 1 ? PrimExpr(rc->var) : tir::floordiv(ff, Og) * Cg + rc->var;
                       PrimExpr h = yy * IndexConst(yy, s[0]) + ry->var * IndexConst(yy, d[0]);
                       PrimExpr w = xx * IndexConst(xx, s[1]) + rx->var * IndexConst(xx, d[1]);
                       return te::sum(CastTo(data(nn, channel, h, w), out_dtype) *
                                          CastTo(filter(ff, rc->var, ry->var, rx->var), out_dtype),
                                      {rc, ry, rx});
                     }),
                     name, groups == 1 ? kConv2dNCHW : kGroupConv2d);
}

Tensor conv2d_transpose_nchw(const Tensor& input, const Tensor& filter, std::vector<int64_t> stride,
                             std::vector<int64_t> padding, std::vector<int64_t> output_padding,
                             std::vector<int64_t> dilation, int64_t groups, DataType out_dtype,
                             std::string name) {
  const std::string op = "conv2d_transpose_nchw";
  if (input->shape.size() != 4 || filter->shape.size() != 4) {
    MINITVM_THROW(ValueError) << op
                              << ": expects input (N, C, H, W) and filter (C, O/groups, KH, "
                                 "KW), got "
                              << ShapeStr(input->shape) << " and " << ShapeStr(filter->shape);
  }
  auto s = Pair(stride, op, "stride");
  auto d = Pair(dilation, op, "dilation");
  auto op_pad = Pair(output_padding, op, "output_padding");
  auto p = Padding4(padding, op);
  CheckPositive(s, op, "stride");
  CheckPositive(d, op, "dilation");
  if (groups <= 0) MINITVM_THROW(ValueError) << op << ": groups must be positive";
  for (int k = 0; k < 2; ++k) {
    if (op_pad[k] < 0 || (op_pad[k] >= s[k] && op_pad[k] >= d[k])) {
      MINITVM_THROW(ValueError) << op << ": output_padding " << op_pad[k]
                                << " must be smaller than the stride or the dilation";
    }
  }
  int64_t C = detail::GetConstInt(input->shape[1], op, "the input channels");
  int64_t Cf = detail::GetConstInt(filter->shape[0], op, "the filter's input channels");
  if (C != Cf || C % groups != 0) {
    MINITVM_THROW(ValueError) << op << ": input has " << C << " channels, filter expects " << Cf
                              << " (groups " << groups << ")";
  }
  int64_t Cg = C / groups;
  PrimExpr Og = filter->shape[1];
  PrimExpr H = input->shape[2], W = input->shape[3];
  int64_t KH = detail::GetConstInt(filter->shape[2], op, "the kernel height");
  int64_t KW = detail::GetConstInt(filter->shape[3], op, "the kernel width");
  // 1. The input dilated by the stride and padded so that a plain convolution with the
  //    flipped kernel gives the transposed convolution. (Negative padding crops.)
  int64_t top = d[0] * (KH - 1) - p[0], left = d[1] * (KW - 1) - p[1];
  int64_t bottom = d[0] * (KH - 1) - p[2] + op_pad[0], right = d[1] * (KW - 1) - p[3] + op_pad[1];
  PrimExpr one = IndexConst(H, 1);
  PrimExpr HD = (H - one) * IndexConst(H, s[0]) + one, WD = (W - one) * IndexConst(W, s[1]) + one;
  PrimExpr HP = detail::Simplify(HD + IndexConst(H, top + bottom));
  PrimExpr WP = detail::Simplify(WD + IndexConst(W, left + right));
  Tensor data_pad = te::compute(
      {input->shape[0], input->shape[1], HP, WP}, te::FCompute([&](const Array<Var>& i) {
        PrimExpr y = i[2] - IndexConst(i[2], top), x = i[3] - IndexConst(i[3], left);
        PrimExpr zero = IndexConst(y, 0);
        PrimExpr cond = y >= zero && y < HD && x >= zero && x < WD;
        if (s[0] > 1) cond = cond && tir::floormod(y, IndexConst(y, s[0])) == zero;
        if (s[1] > 1) cond = cond && tir::floormod(x, IndexConst(x, s[1])) == zero;
        PrimExpr iy = s[0] > 1 ? tir::floordiv(y, IndexConst(y, s[0])) : y;
        PrimExpr ix = s[1] > 1 ? tir::floordiv(x, IndexConst(x, s[1])) : x;
        return tir::if_then_else(cond, input(i[0], i[1], iy, ix), tir::make_zero(input->dtype));
      }),
      "data_pad", kInjective);
  // 2. The convolution, over the input channels of each output channel's group.
  PrimExpr OH = detail::Simplify(HP - IndexConst(H, d[0] * (KH - 1)));
  PrimExpr OW = detail::Simplify(WP - IndexConst(W, d[1] * (KW - 1)));
  if (auto v = AsConstInt(OH); v && *v < 1) {
    MINITVM_THROW(ValueError) << op << ": the output would be empty";
  }
  PrimExpr O = groups == 1 ? Og : Og * IndexConst(Og, groups);
  IterVar rc = te::reduce_axis(Range(0, static_cast<int>(Cg)), "rc");
  IterVar ry = te::reduce_axis(Range(0, static_cast<int>(KH)), "ry");
  IterVar rx = te::reduce_axis(Range(0, static_cast<int>(KW)), "rx");
  return te::compute(
      {input->shape[0], O, OH, OW}, te::FCompute([&](const Array<Var>& i) {
        PrimExpr g = groups == 1 ? PrimExpr(0) : tir::floordiv(i[1], tir::cast(i[1].dtype(), Og));
        PrimExpr oc =
            groups == 1 ? PrimExpr(i[1]) : tir::floormod(i[1], tir::cast(i[1].dtype(), Og));
        PrimExpr ic = groups == 1 ? PrimExpr(rc->var) : g * static_cast<int>(Cg) + rc->var;
        PrimExpr y = i[2] + ry->var * static_cast<int>(d[0]);
        PrimExpr x = i[3] + rx->var * static_cast<int>(d[1]);
        return te::sum(CastTo(data_pad(i[0], ic, y, x), out_dtype) *
                           CastTo(filter(ic, oc, static_cast<int>(KH - 1) - ry->var,
                                         static_cast<int>(KW - 1) - rx->var),
                                  out_dtype),
                       {rc, ry, rx});
      }),
      name, kConv2dTransposeNCHW);
}

}  // namespace nn
}  // namespace topi
}  // namespace minitvm
