/*!
 * \file minitvm/lownumpy/iteration.h
 * \brief The one way lownumpy walks arrays (stage 1): NumPy broadcasting of shapes, a strided
 * walker that visits every index of a shape and hands each operand's element offset to a
 * loop body, and the dtype dispatch that turns a runtime `DataType` into a C++ type.
 *
 * Every elementwise operator, every reduction and every copy in lownumpy is a call to
 * `ForEachOffset` with a small lambda; reading this file explains how they all handle
 * broadcasting and non-contiguous (strided) inputs. Heavier operators (matmul, conv2d,
 * pooling) first make their inputs compact with `AsContiguous` and then index plain C arrays.
 */
#ifndef MINITVM_LOWNUMPY_ITERATION_H_
#define MINITVM_LOWNUMPY_ITERATION_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/runtime/error.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace lownumpy {

using runtime::DataType;
using runtime::NDArray;

/*! \brief A shape or a list of axes / strides: plain int64 values. */
using Shape = std::vector<int64_t>;

/*!
 * \brief NumPy broadcasting: align the shapes at the right; each pair of dimensions must be
 * equal or one of them 1, and the result takes the larger. `op` names the operator in the
 * ValueError raised for incompatible shapes.
 */
Shape BroadcastShapes(const std::string& op, const Shape& a, const Shape& b);

/*!
 * \brief The strides (in elements) that read `array` as if it had shape `out_shape`:
 * dimensions that are broadcast (missing on the left, or 1 against a larger size) get
 * stride 0, so the same element is read again. ValueError when `array` does not broadcast
 * to `out_shape`.
 */
Shape BroadcastStrides(const std::string& op, const NDArray& array, const Shape& out_shape);

/*! \brief The product of the dimensions (1 for a scalar shape). */
int64_t ShapeSize(const Shape& shape);

/*!
 * \brief Visit every index of `shape` in row-major order. For each index, `body` receives a
 * `std::array<int64_t, N>` holding, for each of the N operands, the element offset
 * `sum(index[d] * strides[k][d])`.
 *
 * Offsets are updated incrementally (an odometer over the outer dimensions and a tight inner
 * loop over the last one), and adjacent dimensions that every operand walks contiguously are
 * merged first, so a compact elementwise loop becomes a single flat loop. The visiting order
 * is always row-major, so a body may count the visits to know the flat index.
 */
template <size_t N, typename F>
void ForEachOffset(const Shape& shape, const std::array<Shape, N>& strides, F&& body) {
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  // Merge dimension d into d+1 where every operand steps through d exactly as if d and d+1
  // were one longer dimension. Size-1 dimensions are dropped (their stride never matters).
  Shape dims;
  std::array<Shape, N> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool mergeable = !dims.empty();
    for (size_t k = 0; k < N && mergeable; ++k) {
      mergeable = st[k].back() == strides[k][d] * shape[d];
    }
    if (mergeable) {
      dims.back() *= shape[d];
      for (size_t k = 0; k < N; ++k) st[k].back() = strides[k][d];
    } else {
      dims.push_back(shape[d]);
      for (size_t k = 0; k < N; ++k) st[k].push_back(strides[k][d]);
    }
  }
  std::array<int64_t, N> base{};
  if (dims.empty()) {  // a scalar (or all-ones shape): one visit
    body(base);
    return;
  }
  const int nd = static_cast<int>(dims.size());
  const int64_t inner = dims[nd - 1];
  std::array<int64_t, N> inner_stride;
  for (size_t k = 0; k < N; ++k) inner_stride[k] = st[k][nd - 1];
  Shape index(nd, 0);
  while (true) {
    std::array<int64_t, N> off = base;
    for (int64_t i = 0; i < inner; ++i) {
      body(off);
      for (size_t k = 0; k < N; ++k) off[k] += inner_stride[k];
    }
    // Advance the odometer over the outer dimensions.
    int d = nd - 2;
    for (; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k) base[k] += st[k][d];
      if (++index[d] < dims[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= st[k][d] * dims[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

/*! \brief The strides of an array, as stored in its node. */
inline const Shape& StridesOf(const NDArray& a) { return a->strides; }

/*!
 * \brief Strides of `a` (shape, strides) seen through `out_shape`, for operands that are not
 * NDArrays of their own (e.g. the batch part of a matmul operand).
 */
Shape BroadcastStrides(const std::string& op, const Shape& shape, const Shape& strides,
                       const Shape& out_shape);

/*!
 * \brief Copy the elements of `src` into `dst` (which may be a strided view), broadcasting
 * `src` to dst's shape. Any dtype (elements are moved as bytes); the dtypes must match.
 */
void CopyElements(const std::string& op, const NDArray& src, const NDArray& dst);

/*! \brief A new compact row-major copy of `a` (always a copy, never `a` itself). */
NDArray CompactCopy(const NDArray& a);

/*!
 * \brief `a` itself when it is compact and row-major, otherwise a compact copy. Operators
 * with hand-written index arithmetic (matmul, conv2d, ...) call this once on each input.
 */
NDArray AsContiguous(const NDArray& a);

/*!
 * \brief A view of `a` with its axes reordered (output axis i is axis perm[i] of `a`); no data
 * moves. `perm` must be a permutation (checked by the caller).
 */
NDArray PermutedView(const NDArray& a, const Shape& perm);

/*! \brief ValueError naming `op` unless the array is defined and lives on the CPU. */
void CheckCPU(const std::string& op, const NDArray& a, const char* what = "input");

/*! \brief Which dtypes an operator accepts (a bit set for `Dispatch`). */
enum DTypeSet : unsigned {
  kFloats = 1,                         ///< float32, float64
  kInts = 2,                           ///< int32, int64
  kBool = 4,                           ///< bool
  kNumeric = kFloats | kInts,          ///< float32, float64, int32, int64
  kAllTypes = kFloats | kInts | kBool  ///< the five lownumpy computes with
};

/*! \brief "float32, float64, int32, int64, bool" for the dtypes of a set. */
std::string DTypeSetToString(unsigned set);

/*! \brief Raise the ValueError "op: unsupported dtype ... (supported: ...)". */
[[noreturn]] void ThrowUnsupportedDType(const std::string& op, DataType dtype, unsigned allowed);

/*!
 * \brief Call `f(T{})` with the C++ type T for `dtype` (float, double, int32_t, int64_t or
 * bool), or raise ValueError naming `op` when the dtype is not in the set `Allowed`.
 *
 * Write the operator once as a generic lambda: `Dispatch<kFloats>(op, x.dtype(),
 * [&](auto tag) { using T = decltype(tag); ... })`. Only the allowed types are instantiated,
 * so the lambda may use operations that, say, bool does not have.
 */
template <unsigned Allowed, typename F>
decltype(auto) Dispatch(const std::string& op, DataType dtype, F&& f) {
  if constexpr ((Allowed & kFloats) != 0) {
    if (dtype == DataType::Float(32)) return f(float{});
    if (dtype == DataType::Float(64)) return f(double{});
  }
  if constexpr ((Allowed & kInts) != 0) {
    if (dtype == DataType::Int(32)) return f(int32_t{});
    if (dtype == DataType::Int(64)) return f(int64_t{});
  }
  if constexpr ((Allowed & kBool) != 0) {
    if (dtype.is_bool() && dtype.is_scalar()) return f(bool{});
  }
  ThrowUnsupportedDType(op, dtype, Allowed);
}

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_ITERATION_H_
