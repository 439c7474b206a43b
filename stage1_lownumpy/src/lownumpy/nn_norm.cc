/*!
 * \file nn_norm.cc
 * \brief Normalisations of lownumpy (stage 1): batch_norm (inference), layer_norm, softmax and
 * log_softmax. The last three work "per row": the normalised axes are moved to the end (a
 * strided view, then one compact copy), each row is processed by a plain loop, and the result
 * is written back through the same permutation.
 */
#include <cmath>

#include "./op_util.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {

/*!
 * \brief Apply `f(in_row, out_row, cols)` to every row of x seen with `axes` (normalised,
 * increasing) moved last; the rows have prod(x.shape[axes]) elements. Returns the result in
 * x's own layout.
 */
template <typename T, typename F>
NDArray ForEachRow(const NDArray& x, const Shape& axes, F f) {
  Shape perm;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) perm.push_back(d);
  }
  int64_t cols = 1;
  for (int64_t a : axes) {
    perm.push_back(a);
    cols *= x.Shape()[a];
  }
  NDArray in = CompactCopy(PermutedView(x, perm));
  NDArray result = NDArray::Empty(in.Shape(), x.dtype());
  const int64_t rows = cols == 0 ? 0 : in.NumElements() / cols;
  const T* pi = in.data_as<T>();
  T* pr = result.data_as<T>();
  for (int64_t r = 0; r < rows; ++r) f(pi + r * cols, pr + r * cols, cols);
  NDArray out = NDArray::Empty(x.Shape(), x.dtype());
  CopyElements("normalise", result, PermutedView(out, perm));
  return out;
}

/*! \brief A 1-D parameter as a vector of doubles; ValueError unless it has `size` elements. */
std::vector<double> ParamVector(const std::string& op, const NDArray& p, const char* name,
                                const Shape& expected_shape, DataType dtype) {
  CheckCPU(op, p, name);
  if (p.dtype() != dtype) {
    MINITVM_THROW(ValueError) << op << ": " << name << " has dtype " << p.dtype()
                              << " but the input has " << dtype;
  }
  if (p.Shape() != expected_shape) {
    MINITVM_THROW(ValueError) << op << ": " << name << " has shape " << ShapeToString(p.Shape())
                              << " but must have shape " << ShapeToString(expected_shape);
  }
  NDArray c = AsContiguous(p);
  std::vector<double> v(c.NumElements());
  Dispatch<kFloats>(op, dtype, [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < v.size(); ++i) v[i] = c.data_as<T>()[i];
  });
  return v;
}

}  // namespace

NDArray batch_norm(const NDArray& x, const NDArray& gamma, const NDArray& beta,
                   const NDArray& moving_mean, const NDArray& moving_var, int64_t axis,
                   double epsilon) {
  const std::string op = "batch_norm";
  CheckCPU(op, x);
  const int64_t ax = NormalizeAxis(op, axis, x.ndim());
  const Shape pshape{x.Shape()[ax]};
  std::vector<double> g = ParamVector(op, gamma, "gamma", pshape, x.dtype());
  std::vector<double> b = ParamVector(op, beta, "beta", pshape, x.dtype());
  std::vector<double> mean = ParamVector(op, moving_mean, "moving_mean", pshape, x.dtype());
  std::vector<double> var = ParamVector(op, moving_var, "moving_var", pshape, x.dtype());
  // Per channel: y = (x - mean) * scale + beta with scale = gamma / sqrt(var + eps).
  std::vector<double> scale(pshape[0]);
  for (size_t c = 0; c < scale.size(); ++c) scale[c] = g[c] / std::sqrt(var[c] + epsilon);
  Shape channel_stride(x.ndim(), 0);  // an "operand" whose offset is the channel index
  channel_stride[ax] = 1;
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty(x.Shape(), x.dtype());
    T* po = out.data_as<T>();
    const T* px = x.data_as<T>();
    ForEachOffset<3>(x.Shape(), {out->strides, x->strides, channel_stride},
                     [&](const std::array<int64_t, 3>& o) {
                       const int64_t c = o[2];
                       po[o[0]] = static_cast<T>((px[o[1]] - mean[c]) * scale[c] + b[c]);
                     });
    return out;
  });
}

NDArray layer_norm(const NDArray& x, const NDArray& gamma, const NDArray& beta, const Shape& axes,
                   double epsilon) {
  const std::string op = "layer_norm";
  CheckCPU(op, x);
  Shape ax = NormalizeAxes(op, axes, x.ndim());
  std::sort(ax.begin(), ax.end());
  Shape pshape;
  for (int64_t a : ax) pshape.push_back(x.Shape()[a]);
  const int64_t cols = ShapeSize(pshape);
  std::vector<double> g(cols, 1.0), b(cols, 0.0);
  if (gamma.defined()) g = ParamVector(op, gamma, "gamma", pshape, x.dtype());
  if (beta.defined()) b = ParamVector(op, beta, "beta", pshape, x.dtype());
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return ForEachRow<T>(x, ax, [&](const T* in, T* out, int64_t n) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < n; ++i) mean += in[i];
      mean /= static_cast<double>(n);
      for (int64_t i = 0; i < n; ++i) var += (in[i] - mean) * (in[i] - mean);
      var /= static_cast<double>(n);
      const double inv = 1.0 / std::sqrt(var + epsilon);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>((in[i] - mean) * inv * g[i] + b[i]);
    });
  });
}

namespace {
template <bool kLog>
NDArray SoftmaxImpl(const std::string& op, const NDArray& x, int64_t axis) {
  CheckCPU(op, x);
  const int64_t ax = NormalizeAxis(op, axis, x.ndim());
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return ForEachRow<T>(x, {ax}, [&](const T* in, T* out, int64_t n) {
      // Subtracting the maximum keeps exp from overflowing; the result is unchanged.
      T m = in[0];
      for (int64_t i = 1; i < n; ++i) m = std::max(m, in[i]);
      double total = 0;
      for (int64_t i = 0; i < n; ++i) total += std::exp(static_cast<double>(in[i] - m));
      for (int64_t i = 0; i < n; ++i) {
        double shifted = static_cast<double>(in[i] - m);
        out[i] = static_cast<T>(kLog ? shifted - std::log(total) : std::exp(shifted) / total);
      }
    });
  });
}
}  // namespace

NDArray softmax(const NDArray& x, int64_t axis) { return SoftmaxImpl<false>("softmax", x, axis); }
NDArray log_softmax(const NDArray& x, int64_t axis) {
  return SoftmaxImpl<true>("log_softmax", x, axis);
}

MINITVM_REGISTER_GLOBAL("lownumpy.batch_norm")
    .set_body_typed([](NDArray x, NDArray gamma, NDArray beta, NDArray mean, NDArray var,
                       int64_t axis, double epsilon) {
      return batch_norm(x, gamma, beta, mean, var, axis, epsilon);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.layer_norm")
    .set_body_typed([](NDArray x, NDArray gamma, NDArray beta, runtime::Array<int64_t> axes,
                       double epsilon) {
      return layer_norm(x, gamma, beta, ToShape(axes), epsilon);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.softmax").set_body_typed([](NDArray x, int64_t axis) {
  return softmax(x, axis);
});
MINITVM_REGISTER_GLOBAL("lownumpy.log_softmax").set_body_typed([](NDArray x, int64_t axis) {
  return log_softmax(x, axis);
});

}  // namespace lownumpy
}  // namespace minitvm
