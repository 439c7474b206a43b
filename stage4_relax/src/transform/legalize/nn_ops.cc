/*!
 * \file transform/legalize/nn_ops.cc
 * \brief `FLegalize` of the Relax neural-network operators (stage 4): activations, softmax,
 * conv2d, pooling, batch_norm (inference through topi; training mode written here), layer_norm
 * and dropout — each lowered to a PrimFunc from the stage-2 TE operator library and called
 * through `R.call_tir`. Layouts are NCHW / OIHW only (as the reference interpreter's); another
 * layout is a ValueError naming it.
 */
#include "minitvm/te/reduce.h"
#include "minitvm/tir/op.h"
#include "minitvm/topi/topi.h"
#include "transform/legalize/legalize_common.h"

namespace minitvm {
namespace relax {
namespace legalize {
namespace {

using te::Tensor;
using TArr = Array<te::Tensor>;

void CheckLayout(const Call& call, const std::string& key, const std::string& want) {
  std::string layout = AttrStr(call, key, want);
  if (!layout.empty() && layout != want) {
    MINITVM_THROW(ValueError) << "LegalizeOps: " << OpName(call) << " supports " << key << " "
                              << want << " only, not " << layout;
  }
}

std::vector<int64_t> IntsOr(const Call& call, const std::string& key, std::vector<int64_t> d) {
  return AttrInts(call, key).value_or(std::move(d));
}

MINITVM_RELAX_LEGALIZE("relax.nn.relu") {
  return CallTE1(bb, "relu", {call->args[0]}, [](const TArr& t) { return topi::nn::relu(t[0]); });
});
MINITVM_RELAX_LEGALIZE("relax.nn.gelu") {
  return CallTE1(bb, "gelu", {call->args[0]},
                 [](const TArr& t) { return topi::nn::gelu(t[0], "none"); });
});
// Here: silu(x) = x * sigmoid(x).
MINITVM_RELAX_LEGALIZE("relax.nn.silu") {
  return CallTE1(bb, "silu", {call->args[0]}, [](const TArr& t) {
    return te::compute(t[0]->shape, te::FCompute([&](const Array<tir::Var>& i) {
                         return t[0](i) * tir::sigmoid(t[0](i));
                       }),
                       "T_silu", topi::kElementWise);
  });
});
MINITVM_RELAX_LEGALIZE("relax.nn.softmax") {
  int64_t axis = AttrInt(call, "axis", -1);
  return CallTE1(bb, "softmax", {call->args[0]},
                 [axis](const TArr& t) { return topi::nn::softmax(t[0], axis); });
});
MINITVM_RELAX_LEGALIZE("relax.nn.log_softmax") {
  int64_t axis = AttrInt(call, "axis", -1);
  return CallTE1(bb, "log_softmax", {call->args[0]},
                 [axis](const TArr& t) { return topi::nn::log_softmax(t[0], axis); });
});

MINITVM_RELAX_LEGALIZE("relax.nn.conv2d") {
  CheckLayout(call, "data_layout", "NCHW");
  CheckLayout(call, "kernel_layout", "OIHW");
  CheckLayout(call, "out_layout", "NCHW");
  auto strides = IntsOr(call, "strides", {1, 1});
  auto padding = IntsOr(call, "padding", {0, 0});
  auto dilation = IntsOr(call, "dilation", {1, 1});
  int64_t groups = AttrInt(call, "groups", 1);
  DataType out_dtype = AttrDType(call, "out_dtype");
  return CallTE1(bb, "conv2d", {call->args[0], call->args[1]}, [=](const TArr& t) {
    Tensor x = t[0], w = t[1];
    // As the reference: with out_dtype the operands are converted first.
    if (!out_dtype.is_void() && x->dtype != out_dtype) x = topi::cast(x, out_dtype);
    if (!out_dtype.is_void() && w->dtype != out_dtype) w = topi::cast(w, out_dtype);
    return topi::nn::conv2d_nchw(x, w, strides, padding, dilation, groups, out_dtype);
  });
});

Expr Pool2d(BlockBuilder bb, const Call& call, const std::string& type) {
  CheckLayout(call, "layout", "NCHW");
  CheckLayout(call, "out_layout", "NCHW");
  auto pool = IntsOr(call, "pool_size", {1, 1});
  auto strides = IntsOr(call, "strides", pool);
  auto padding = IntsOr(call, "padding", {0, 0});
  auto dilation = IntsOr(call, "dilation", {1, 1});
  bool ceil_mode = AttrBool(call, "ceil_mode", false);
  bool count_include_pad = AttrBool(call, "count_include_pad", false);
  return CallTE1(bb, type + "_pool2d", {call->args[0]}, [=](const TArr& t) {
    return topi::nn::pool2d(t[0], pool, strides, dilation, padding, type, ceil_mode,
                            count_include_pad);
  });
}
MINITVM_RELAX_LEGALIZE("relax.nn.max_pool2d") { return Pool2d(bb, call, "max"); });
MINITVM_RELAX_LEGALIZE("relax.nn.avg_pool2d") { return Pool2d(bb, call, "avg"); });

MINITVM_RELAX_LEGALIZE("relax.nn.adaptive_avg_pool2d") {
  CheckLayout(call, "layout", "NCHW");
  CheckLayout(call, "out_layout", "NCHW");
  Array<PrimExpr> out = OutShape(call);
  std::vector<int64_t> size;
  for (size_t d = 2; d < out.size(); ++d) {
    auto c = AsConstInt(out[d]);
    if (!c) {
      MINITVM_THROW(ValueError) << "LegalizeOps: relax.nn.adaptive_avg_pool2d needs a static "
                                   "output size, not "
                                << StructInfoToString(GetStructInfo(call));
    }
    size.push_back(*c);
  }
  return CallTE1(bb, "adaptive_avg_pool2d", {call->args[0]},
                 [=](const TArr& t) { return topi::nn::adaptive_pool(t[0], size, "avg"); });
});

/*! \brief `v` indexed by the `axis` coordinate of `i` (a per-channel vector broadcast). */
PrimExpr AtAxis(const Tensor& v, const Array<tir::Var>& i, int64_t axis) {
  return v(Array<PrimExpr>{i[axis]});
}

// Inference through topi; training mode (batch statistics, momentum update of the moving
// statistics, as the reference) here.
MINITVM_RELAX_LEGALIZE("relax.nn.batch_norm") {
  const auto* x = ArgTensor(call, 0);
  int64_t axis = NormAxis(call, AttrInt(call, "axis", 1), x->ndim);
  double eps = AttrFloat(call, "epsilon", 1e-5);
  bool center = AttrBool(call, "center", true), scale = AttrBool(call, "scale", true);
  bool training = AttrBool(call, "training", false);
  double momentum = AttrFloat(call, "momentum", 0.1);
  bool tuple_out = !GetStructInfoAs<TensorStructInfoNode>(call);
  Array<Expr> args;
  for (size_t i = 0; i < 5 && i < call->args.size(); ++i) args.push_back(call->args[i]);
  return CallTE(bb, "batch_norm", args, [=](const TArr& t) -> TArr {
    if (!training) {
      TArr outs = topi::nn::batch_norm(t[0], t[1], t[2], t[3], t[4], axis, eps, center, scale);
      return tuple_out ? outs : TArr{outs[0]};
    }
    int64_t n = static_cast<int64_t>(t[0]->shape.size());
    std::vector<int64_t> others;
    PrimExpr count = tir::make_const(t[0]->dtype, 1);
    for (int64_t d = 0; d < n; ++d) {
      if (d == axis) continue;
      others.push_back(d);
      count = count * tir::cast(t[0]->dtype, t[0]->shape[d]);
    }
    Tensor sum = topi::sum(t[0], others, false);
    Tensor mean = te::compute(
        sum->shape, te::FCompute([&](const Array<tir::Var>& i) { return sum(i) / count; }),
        "T_batch_mean");
    Tensor dev = te::compute(t[0]->shape, te::FCompute([&](const Array<tir::Var>& i) {
                               PrimExpr d = t[0](i) - AtAxis(mean, i, axis);
                               return d * d;
                             }),
                             "T_batch_dev");
    Tensor sq = topi::sum(dev, others, false);
    Tensor var = te::compute(sq->shape,
                             te::FCompute([&](const Array<tir::Var>& i) { return sq(i) / count; }),
                             "T_batch_var");
    Tensor out = te::compute(t[0]->shape, te::FCompute([&](const Array<tir::Var>& i) {
                               DataType dt = t[0]->dtype;
                               PrimExpr y =
                                   (t[0](i) - AtAxis(mean, i, axis)) /
                                   tir::sqrt(AtAxis(var, i, axis) + tir::make_const(dt, eps));
                               if (scale) y = y * AtAxis(t[1], i, axis);
                               if (center) y = y + AtAxis(t[2], i, axis);
                               return y;
                             }),
                             "T_batch_norm", topi::kInjective);
    if (!tuple_out) return {out};
    auto mix = [&](const Tensor& old, const Tensor& batch, const std::string& name) {
      return te::compute(old->shape, te::FCompute([&](const Array<tir::Var>& i) {
                           DataType dt = old->dtype;
                           return old(i) * tir::make_const(dt, 1.0 - momentum) +
                                  batch(i) * tir::make_const(dt, momentum);
                         }),
                         name);
    };
    return {out, mix(t[3], mean, "T_moving_mean"), mix(t[4], var, "T_moving_var")};
  });
});

MINITVM_RELAX_LEGALIZE("relax.nn.layer_norm") {
  auto axes = IntsOr(call, "axes", {-1});
  double eps = AttrFloat(call, "epsilon", 1e-5);
  bool center = AttrBool(call, "center", true), scale = AttrBool(call, "scale", true);
  return CallTE1(bb, "layer_norm", {call->args[0], call->args[1], call->args[2]},
                 [=](const TArr& t) {
                   return topi::nn::layer_norm(t[0], scale ? t[1] : Tensor(),
                                               center ? t[2] : Tensor(), axes, eps);
                 });
});

// Here: dropout in inference is the identity; like the reference it returns (output, mask) with
// an all-ones mask.
MINITVM_RELAX_LEGALIZE("relax.nn.dropout") {
  bool tuple_out = !GetStructInfoAs<TensorStructInfoNode>(call);
  return CallTE(bb, "dropout", {call->args[0]}, [=](const TArr& t) -> TArr {
    Tensor out = topi::identity(t[0]);
    if (!tuple_out) return {out};
    return {out, topi::full_like(t[0], tir::make_const(t[0]->dtype, 1), "T_mask")};
  });
});

}  // namespace
}  // namespace legalize
}  // namespace relax
}  // namespace minitvm
