/*!
 * \file nn_conv.cc
 * \brief conv2d and conv2d_transpose of lownumpy (stage 1), written as direct loops (no
 * im2col). The loop order n, o, c, kh, kw, oh, ow keeps one weight in a register and sweeps
 * whole rows of the input and output planes, so the innermost loop is contiguous for stride 1
 * and free of bounds checks: the valid output range of each kernel tap is computed first.
 */
#include <utility>
#include <vector>

#include "./op_util.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {

/*! \brief Common checks of the operands of a convolution; returns the groups' sizes. */
void CheckConvOperands(const std::string& op, const NDArray& x, const NDArray& w, const NDArray& b,
                       int64_t out_channels, int64_t groups) {
  CheckRank(op, x, 4, "input");
  CheckRank(op, w, 4, "weight");
  CheckSameDType(op, x, w);
  if (groups < 1) MINITVM_THROW(ValueError) << op << ": groups must be positive, got " << groups;
  if (b.defined()) {
    CheckSameDType(op, x, b);
    if (b.Shape() != Shape{out_channels}) {
      MINITVM_THROW(ValueError) << op << ": bias " << ShapeToString(b.Shape())
                                << " must have shape (" << out_channels << ",)";
    }
  }
}

/*! \brief An output tensor filled with the bias (or zeros). */
template <typename T>
NDArray InitOutput(const Shape& shape, DataType dtype, const NDArray& b) {
  NDArray out = NDArray::Empty(shape, dtype);
  T* po = out.data_as<T>();
  const int64_t channels = shape[1], plane = shape[2] * shape[3];
  NDArray bc = b.defined() ? AsContiguous(b) : b;
  const T* pb = bc.defined() ? bc.data_as<T>() : nullptr;
  for (int64_t n = 0; n < shape[0]; ++n) {
    for (int64_t o = 0; o < channels; ++o) {
      T v = pb ? pb[o] : T(0);
      T* dst = po + (n * channels + o) * plane;
      for (int64_t i = 0; i < plane; ++i) dst[i] = v;
    }
  }
  return out;
}

}  // namespace

NDArray conv2d(const NDArray& x_in, const NDArray& w_in, const NDArray& b, const Shape& strides,
               const Shape& padding, const Shape& dilation, int64_t groups) {
  const std::string op = "conv2d";
  CheckConvOperands(op, x_in, w_in, b, w_in.defined() && w_in.ndim() == 4 ? w_in.Shape()[0] : 0,
                    groups);
  const auto [sh, sw] = Pair(op, "strides", strides, 1);
  const auto [dh, dw] = Pair(op, "dilation", dilation, 1);
  const auto [pt, pl, pb, pr] = Padding4(op, padding);
  const Shape& xs = x_in.Shape();
  const Shape& ws = w_in.Shape();
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
  const int64_t O = ws[0], KH = ws[2], KW = ws[3];
  if (C % groups != 0 || O % groups != 0 || ws[1] * groups != C) {
    MINITVM_THROW(ValueError) << op << ": input " << ShapeToString(xs) << " and weight "
                              << ShapeToString(ws) << " do not match groups=" << groups
                              << " (need C = weight.shape[1] * groups and O divisible by groups)";
  }
  const int64_t OH = FloorDiv(H + pt + pb - dh * (KH - 1) - 1, sh) + 1;
  const int64_t OW = FloorDiv(W + pl + pr - dw * (KW - 1) - 1, sw) + 1;
  if (OH < 1 || OW < 1 || KH < 1 || KW < 1) {
    MINITVM_THROW(ValueError) << op << ": the (dilated) kernel of weight " << ShapeToString(ws)
                              << " does not fit the padded input " << ShapeToString(xs)
                              << " (padding " << ShapeToString(padding) << ", dilation "
                              << ShapeToString(dilation) << ")";
  }
  NDArray x = AsContiguous(x_in), w = AsContiguous(w_in);
  const int64_t Cg = C / groups, Og = O / groups;
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = InitOutput<T>({N, O, OH, OW}, x.dtype(), b);
    T* po = out.data_as<T>();
    const T* px = x.data_as<T>();
    const T* pw = w.data_as<T>();
    // For each kernel row (column), the output rows (columns) whose input row
    // oh * sh + kh * dh - pt (column ow * sw + kw * dw - pl) lies inside the image.
    std::vector<std::pair<int64_t, int64_t>> rows(KH), cols(KW);
    for (int64_t kh = 0; kh < KH; ++kh) rows[kh] = ValidRange(kh * dh - pt, sh, H, OH);
    for (int64_t kw = 0; kw < KW; ++kw) cols[kw] = ValidRange(kw * dw - pl, sw, W, OW);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t o = 0; o < O; ++o) {
        const int64_t g = o / Og;
        T* out_plane = po + (n * O + o) * OH * OW;
        for (int64_t c = 0; c < Cg; ++c) {
          const T* in_plane = px + (n * C + g * Cg + c) * H * W;
          const T* kernel = pw + (o * Cg + c) * KH * KW;
          for (int64_t kh = 0; kh < KH; ++kh) {
            const auto [oh_lo, oh_hi] = rows[kh];
            for (int64_t kw = 0; kw < KW; ++kw) {
              const T wv = kernel[kh * KW + kw];
              const auto [ow_lo, ow_hi] = cols[kw];
              const int64_t shift = kw * dw - pl;  // input column = ow * sw + shift
              for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
                const T* in_row = in_plane + (oh * sh + kh * dh - pt) * W;
                T* out_row = out_plane + oh * OW;
                if (sw == 1) {  // contiguous: the compiler vectorises this loop
                  for (int64_t ow = ow_lo; ow < ow_hi; ++ow) out_row[ow] += wv * in_row[ow + shift];
                } else {
                  for (int64_t ow = ow_lo; ow < ow_hi; ++ow) {
                    out_row[ow] += wv * in_row[ow * sw + shift];
                  }
                }
              }
            }
          }
        }
      }
    }
    return out;
  });
}

NDArray conv2d_transpose(const NDArray& x_in, const NDArray& w_in, const NDArray& b,
                         const Shape& strides, const Shape& padding, const Shape& output_padding,
                         const Shape& dilation, int64_t groups) {
  const std::string op = "conv2d_transpose";
  int64_t out_channels =
      w_in.defined() && w_in.ndim() == 4 ? w_in.Shape()[1] * std::max<int64_t>(groups, 1) : 0;
  CheckConvOperands(op, x_in, w_in, b, out_channels, groups);
  const auto [sh, sw] = Pair(op, "strides", strides, 1);
  const auto [dh, dw] = Pair(op, "dilation", dilation, 1);
  const auto [oph, opw] = Pair(op, "output_padding", output_padding, 0);
  const auto [pt, pl, pb, pr] = Padding4(op, padding);
  if (oph >= std::max(sh, dh) || opw >= std::max(sw, dw)) {
    MINITVM_THROW(ValueError) << op << ": output_padding " << ShapeToString(output_padding)
                              << " must be smaller than the stride or the dilation";
  }
  const Shape& xs = x_in.Shape();
  const Shape& ws = w_in.Shape();
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
  const int64_t Og = ws[1], KH = ws[2], KW = ws[3], O = out_channels;
  if (ws[0] != C || C % groups != 0) {
    MINITVM_THROW(ValueError) << op << ": input " << ShapeToString(xs) << " and weight "
                              << ShapeToString(ws) << " do not match groups=" << groups
                              << " (need weight.shape[0] = C, divisible by groups)";
  }
  const int64_t OH = (H - 1) * sh - pt - pb + dh * (KH - 1) + oph + 1;
  const int64_t OW = (W - 1) * sw - pl - pr + dw * (KW - 1) + opw + 1;
  if (OH < 1 || OW < 1 || H < 1 || W < 1) {
    MINITVM_THROW(ValueError) << op << ": output size (" << OH << ", " << OW
                              << ") is not positive for input " << ShapeToString(xs) << ", weight "
                              << ShapeToString(ws) << " and padding " << ShapeToString(padding);
  }
  NDArray x = AsContiguous(x_in), w = AsContiguous(w_in);
  const int64_t Cg = C / groups;
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = InitOutput<T>({N, O, OH, OW}, x.dtype(), b);
    T* po = out.data_as<T>();
    const T* px = x.data_as<T>();
    const T* pw = w.data_as<T>();
    // Scatter: input pixel (ih, iw) adds x * w[kh, kw] to output (ih*sh + kh*dh - pt, ...);
    // rows[kh] (cols[kw]) are the input rows (columns) whose target lies inside the output.
    std::vector<std::pair<int64_t, int64_t>> rows(KH), cols(KW);
    for (int64_t kh = 0; kh < KH; ++kh) rows[kh] = ValidRange(kh * dh - pt, sh, OH, H);
    for (int64_t kw = 0; kw < KW; ++kw) cols[kw] = ValidRange(kw * dw - pl, sw, OW, W);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        const int64_t g = c / Cg;
        const T* in_plane = px + (n * C + c) * H * W;
        for (int64_t oc = 0; oc < Og; ++oc) {
          T* out_plane = po + (n * O + g * Og + oc) * OH * OW;
          const T* kernel = pw + (c * Og + oc) * KH * KW;
          for (int64_t kh = 0; kh < KH; ++kh) {
            const auto [ih_lo, ih_hi] = rows[kh];
            for (int64_t kw = 0; kw < KW; ++kw) {
              const T wv = kernel[kh * KW + kw];
              const auto [iw_lo, iw_hi] = cols[kw];
              const int64_t shift = kw * dw - pl;  // output column = iw * sw + shift
              for (int64_t ih = ih_lo; ih < ih_hi; ++ih) {
                T* out_row = out_plane + (ih * sh + kh * dh - pt) * OW;
                const T* in_row = in_plane + ih * W;
                for (int64_t iw = iw_lo; iw < iw_hi; ++iw) {
                  out_row[iw * sw + shift] += wv * in_row[iw];
                }
              }
            }
          }
        }
      }
    }
    return out;
  });
}

MINITVM_REGISTER_GLOBAL("lownumpy.conv2d")
    .set_body_typed([](NDArray x, NDArray w, NDArray b, runtime::Array<int64_t> strides,
                       runtime::Array<int64_t> padding, runtime::Array<int64_t> dilation,
                       int64_t groups) {
      return conv2d(x, w, b, ToShape(strides), ToShape(padding), ToShape(dilation), groups);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.conv2d_transpose")
    .set_body_typed([](NDArray x, NDArray w, NDArray b, runtime::Array<int64_t> strides,
                       runtime::Array<int64_t> padding, runtime::Array<int64_t> output_padding,
                       runtime::Array<int64_t> dilation, int64_t groups) {
      return conv2d_transpose(x, w, b, ToShape(strides), ToShape(padding), ToShape(output_padding),
                              ToShape(dilation), groups);
    });

}  // namespace lownumpy
}  // namespace minitvm
