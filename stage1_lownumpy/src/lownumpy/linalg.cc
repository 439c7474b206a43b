/*!
 * \file linalg.cc
 * \brief matmul and linear of lownumpy (stage 1). The inner kernel is the textbook triple loop
 * in i, k, j order, so the innermost loop runs along a row of B and a row of C.
 */
#include "minitvm/lownumpy/linalg.h"

#include "./op_util.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {

/*! \brief C (n, m) += A (n, k) @ B (k, m), all compact. */
template <typename T>
void MatMulKernel(const T* A, const T* B, T* C, int64_t n, int64_t k, int64_t m) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      const T a = A[i * k + p];
      for (int64_t j = 0; j < m; ++j) {
        C[i * m + j] = WrapAdd(C[i * m + j], WrapMul(a, B[p * m + j]));
      }
    }
  }
}

}  // namespace

NDArray matmul(const NDArray& a_in, const NDArray& b_in) {
  const std::string op = "matmul";
  CheckCPU(op, a_in, "lhs");
  CheckCPU(op, b_in, "rhs");
  CheckSameDType(op, a_in, b_in);
  if (a_in.ndim() == 0 || b_in.ndim() == 0) {
    MINITVM_THROW(ValueError) << op << ": operands must have at least 1 dimension, got shapes "
                              << ShapeToString(a_in.Shape()) << " and "
                              << ShapeToString(b_in.Shape());
  }
  NDArray a = AsContiguous(a_in);
  NDArray b = AsContiguous(b_in);
  // Promote 1-D operands to matrices: a (k,) is a row (1, k), b (k,) a column (k, 1).
  Shape ash = a.Shape(), bsh = b.Shape();
  if (ash.size() == 1) ash.insert(ash.begin(), 1);
  if (bsh.size() == 1) bsh.push_back(1);
  const int64_t n = ash[ash.size() - 2], k = ash.back();
  const int64_t k2 = bsh[bsh.size() - 2], m = bsh.back();
  if (k != k2) {
    MINITVM_THROW(ValueError) << op << ": contracted dimensions differ: lhs "
                              << ShapeToString(a_in.Shape()) << " has " << k << " columns, rhs "
                              << ShapeToString(b_in.Shape()) << " has " << k2 << " rows";
  }
  Shape a_batch(ash.begin(), ash.end() - 2), b_batch(bsh.begin(), bsh.end() - 2);
  Shape batch;
  try {
    batch = BroadcastShapes(op, a_batch, b_batch);
  } catch (const Error&) {
    MINITVM_THROW(ValueError) << op << ": batch dimensions of " << ShapeToString(a_in.Shape())
                              << " and " << ShapeToString(b_in.Shape()) << " do not broadcast";
  }
  // Strides of the batch part, in elements of the compact operands.
  Shape a_bstr = runtime::CompactStrides(a_batch), b_bstr = runtime::CompactStrides(b_batch);
  for (auto& s : a_bstr) s *= n * k;
  for (auto& s : b_bstr) s *= k * m;
  Shape out_bstr = runtime::CompactStrides(batch);
  for (auto& s : out_bstr) s *= n * m;

  Shape out_shape = batch;
  if (a_in.ndim() > 1) out_shape.push_back(n);
  if (b_in.ndim() > 1) out_shape.push_back(m);
  return Dispatch<kNumeric>(op, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty(out_shape, a.dtype());
    T* po = out.data_as<T>();
    for (int64_t i = 0; i < out.NumElements(); ++i) po[i] = T(0);
    const T* pa = a.data_as<T>();
    const T* pb = b.data_as<T>();
    ForEachOffset<3>(batch,
                     {out_bstr, BroadcastStrides(op, a_batch, a_bstr, batch),
                      BroadcastStrides(op, b_batch, b_bstr, batch)},
                     [&](const std::array<int64_t, 3>& o) {
                       MatMulKernel(pa + o[1], pb + o[2], po + o[0], n, k, m);
                     });
    return out;
  });
}

NDArray linear(const NDArray& x_in, const NDArray& w_in, const NDArray& b_in) {
  const std::string op = "linear";
  CheckCPU(op, x_in, "x");
  CheckRank(op, w_in, 2, "weight");
  CheckSameDType(op, x_in, w_in);
  if (x_in.ndim() < 1) {
    MINITVM_THROW(ValueError) << op << ": x must have at least 1 dimension";
  }
  const int64_t in = x_in.Shape().back();
  const int64_t out_features = w_in.Shape()[0];
  if (w_in.Shape()[1] != in) {
    MINITVM_THROW(ValueError) << op << ": x " << ShapeToString(x_in.Shape()) << " has " << in
                              << " features but weight " << ShapeToString(w_in.Shape())
                              << " expects " << w_in.Shape()[1];
  }
  if (b_in.defined()) {
    CheckSameDType(op, x_in, b_in);
    if (b_in.Shape() != Shape{out_features}) {
      MINITVM_THROW(ValueError) << op << ": bias " << ShapeToString(b_in.Shape())
                                << " must have shape (" << out_features << ",)";
    }
  }
  NDArray x = AsContiguous(x_in), w = AsContiguous(w_in);
  NDArray b = b_in.defined() ? AsContiguous(b_in) : b_in;
  Shape out_shape = x.Shape();
  out_shape.back() = out_features;
  const int64_t rows = ShapeSize(Shape(x.Shape().begin(), x.Shape().end() - 1));
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty(out_shape, x.dtype());
    T* po = out.data_as<T>();
    const T* px = x.data_as<T>();
    const T* pw = w.data_as<T>();
    const T* pb = b.defined() ? b.data_as<T>() : nullptr;
    // out[r, o] = sum_i x[r, i] * w[o, i] + b[o]: a dot product of two contiguous rows.
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out_features; ++o) {
        T acc = 0;
        for (int64_t i = 0; i < in; ++i) acc += px[r * in + i] * pw[o * in + i];
        po[r * out_features + o] = pb ? acc + pb[o] : acc;
      }
    }
    return out;
  });
}

MINITVM_REGISTER_GLOBAL("lownumpy.matmul").set_body_typed([](NDArray a, NDArray b) {
  return matmul(a, b);
});
MINITVM_REGISTER_GLOBAL("lownumpy.linear").set_body_typed([](NDArray x, NDArray w, NDArray b) {
  return linear(x, w, b);
});

}  // namespace lownumpy
}  // namespace minitvm
