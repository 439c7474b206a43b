/*!
 * \file nn_pool.cc
 * \brief Pooling of lownumpy (stage 1): max_pool2d, avg_pool2d and adaptive_avg_pool2d over
 * the two last axes of an NCHW array, with PyTorch's output-size and divisor rules.
 */
#include <cmath>
#include <limits>

#include "./op_util.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {

/*! \brief The validated geometry of a 2-D pooling. */
struct PoolGeometry {
  int64_t N, C, H, W;
  int64_t kh, kw, sh, sw, dh, dw;
  int64_t pt, pl, pb, pr;
  int64_t OH, OW;
};

/*! \brief Output size along one axis; see nn.h for the rule. */
int64_t PoolOutSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t lo, int64_t hi,
                    bool ceil_mode) {
  int64_t span = in + lo + hi - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? CeilDiv(span, s) : FloorDiv(span, s)) + 1;
  // A window that would start inside the right padding is dropped.
  if (ceil_mode && (out - 1) * s >= in + lo) --out;
  return out;
}

PoolGeometry Plan(const std::string& op, const NDArray& x, const Shape& pool_size,
                  const Shape& strides, const Shape& padding, const Shape& dilation,
                  bool ceil_mode) {
  CheckRank(op, x, 4, "input");
  PoolGeometry g;
  g.N = x.Shape()[0];
  g.C = x.Shape()[1];
  g.H = x.Shape()[2];
  g.W = x.Shape()[3];
  auto k = Pair(op, "pool_size", pool_size, 1);
  auto s = Pair(op, "strides", strides.empty() ? pool_size : strides, 1);
  auto d = Pair(op, "dilation", dilation, 1);
  auto p = Padding4(op, padding);
  g.kh = k[0];
  g.kw = k[1];
  g.sh = s[0];
  g.sw = s[1];
  g.dh = d[0];
  g.dw = d[1];
  g.pt = p[0];
  g.pl = p[1];
  g.pb = p[2];
  g.pr = p[3];
  // Every window must see at least one input element.
  if (2 * std::max(g.pt, g.pb) > g.dh * (g.kh - 1) + 1 ||
      2 * std::max(g.pl, g.pr) > g.dw * (g.kw - 1) + 1) {
    MINITVM_THROW(ValueError) << op << ": padding " << ShapeToString(padding)
                              << " must be at most half of the window " << ShapeToString(pool_size);
  }
  g.OH = PoolOutSize(g.H, g.kh, g.sh, g.dh, g.pt, g.pb, ceil_mode);
  g.OW = PoolOutSize(g.W, g.kw, g.sw, g.dw, g.pl, g.pr, ceil_mode);
  if (g.OH < 1 || g.OW < 1) {
    MINITVM_THROW(ValueError) << op << ": window " << ShapeToString(pool_size)
                              << " does not fit input " << ShapeToString(x.Shape())
                              << " with padding " << ShapeToString(padding);
  }
  return g;
}

}  // namespace

NDArray max_pool2d(const NDArray& x_in, const Shape& pool_size, const Shape& strides,
                   const Shape& padding, const Shape& dilation, bool ceil_mode) {
  const std::string op = "max_pool2d";
  PoolGeometry g = Plan(op, x_in, pool_size, strides, padding, dilation, ceil_mode);
  NDArray x = AsContiguous(x_in);
  return Dispatch<kNumeric>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty({g.N, g.C, g.OH, g.OW}, x.dtype());
    T* po = out.data_as<T>();
    const T* px = x.data_as<T>();
    for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
      const T* plane = px + nc * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          T best = std::numeric_limits<T>::lowest();
          if constexpr (std::is_floating_point_v<T>) best = -std::numeric_limits<T>::infinity();
          bool nan = false;
          for (int64_t i = 0; i < g.kh; ++i) {
            int64_t ih = oh * g.sh - g.pt + i * g.dh;
            if (ih < 0 || ih >= g.H) continue;
            for (int64_t j = 0; j < g.kw; ++j) {
              int64_t iw = ow * g.sw - g.pl + j * g.dw;
              if (iw < 0 || iw >= g.W) continue;
              T v = plane[ih * g.W + iw];
              if (IsNaN(v)) nan = true;  // NaN propagates, as in PyTorch
              if (v > best) best = v;
            }
          }
          po[(nc * g.OH + oh) * g.OW + ow] = nan ? std::numeric_limits<T>::quiet_NaN() : best;
        }
      }
    }
    return out;
  });
}

NDArray avg_pool2d(const NDArray& x_in, const Shape& pool_size, const Shape& strides,
                   const Shape& padding, bool ceil_mode, bool count_include_pad) {
  const std::string op = "avg_pool2d";
  PoolGeometry g = Plan(op, x_in, pool_size, strides, padding, {1, 1}, ceil_mode);
  NDArray x = AsContiguous(x_in);
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty({g.N, g.C, g.OH, g.OW}, x.dtype());
    T* po = out.data_as<T>();
    const T* px = x.data_as<T>();
    for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
      const T* plane = px + nc * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        // The window clipped to the padded input gives the count_include_pad divisor ...
        int64_t h0 = oh * g.sh - g.pt, h1 = std::min(h0 + g.kh, g.H + g.pb);
        int64_t padded_h = h1 - h0;
        // ... and clipped to the input itself, the elements actually summed.
        h0 = std::max<int64_t>(h0, 0);
        h1 = std::min(h1, g.H);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          int64_t w0 = ow * g.sw - g.pl, w1 = std::min(w0 + g.kw, g.W + g.pr);
          int64_t padded_w = w1 - w0;
          w0 = std::max<int64_t>(w0, 0);
          w1 = std::min(w1, g.W);
          T acc = 0;
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) acc += plane[ih * g.W + iw];
          }
          int64_t divisor = count_include_pad ? padded_h * padded_w : (h1 - h0) * (w1 - w0);
          po[(nc * g.OH + oh) * g.OW + ow] = acc / static_cast<T>(divisor);
        }
      }
    }
    return out;
  });
}

NDArray adaptive_avg_pool2d(const NDArray& x_in, const Shape& output_size) {
  const std::string op = "adaptive_avg_pool2d";
  CheckRank(op, x_in, 4, "input");
  const auto [OH, OW] = Pair(op, "output_size", output_size, 1);
  const int64_t N = x_in.Shape()[0], C = x_in.Shape()[1], H = x_in.Shape()[2], W = x_in.Shape()[3];
  if (H < 1 || W < 1) {
    MINITVM_THROW(ValueError) << op << ": input " << ShapeToString(x_in.Shape())
                              << " has an empty spatial dimension";
  }
  NDArray x = AsContiguous(x_in);
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty({N, C, OH, OW}, x.dtype());
    T* po = out.data_as<T>();
    const T* px = x.data_as<T>();
    for (int64_t nc = 0; nc < N * C; ++nc) {
      const T* plane = px + nc * H * W;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
          T acc = 0;
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) acc += plane[ih * W + iw];
          }
          po[(nc * OH + oh) * OW + ow] = acc / static_cast<T>((h1 - h0) * (w1 - w0));
        }
      }
    }
    return out;
  });
}

MINITVM_REGISTER_GLOBAL("lownumpy.max_pool2d")
    .set_body_typed([](NDArray x, runtime::Array<int64_t> pool_size,
                       runtime::Array<int64_t> strides, runtime::Array<int64_t> padding,
                       runtime::Array<int64_t> dilation, bool ceil_mode) {
      return max_pool2d(x, ToShape(pool_size), ToShape(strides), ToShape(padding),
                        ToShape(dilation), ceil_mode);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.avg_pool2d")
    .set_body_typed([](NDArray x, runtime::Array<int64_t> pool_size,
                       runtime::Array<int64_t> strides, runtime::Array<int64_t> padding,
                       bool ceil_mode, bool count_include_pad) {
      return avg_pool2d(x, ToShape(pool_size), ToShape(strides), ToShape(padding), ceil_mode,
                        count_include_pad);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.adaptive_avg_pool2d")
    .set_body_typed([](NDArray x, runtime::Array<int64_t> output_size) {
      return adaptive_avg_pool2d(x, ToShape(output_size));
    });

}  // namespace lownumpy
}  // namespace minitvm
