/*!
 * \file op_util.h
 * \brief Helpers shared by the lownumpy operator sources (stage 1, private): checking and
 * normalising axes and window attributes with messages that name the operator, wrapping
 * integer arithmetic, and converting registry arguments to C++ values.
 */
#ifndef MINITVM_SRC_LOWNUMPY_OP_UTIL_H_
#define MINITVM_SRC_LOWNUMPY_OP_UTIL_H_

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "minitvm/lownumpy/iteration.h"
#include "minitvm/runtime/container.h"

namespace minitvm {
namespace lownumpy {
namespace detail {

using runtime::Array;
using runtime::ShapeToString;

/*! \brief axis in [-ndim, ndim) → [0, ndim); ValueError naming op otherwise. */
int64_t NormalizeAxis(const std::string& op, int64_t axis, int64_t ndim);
/*! \brief Each axis normalised; ValueError on a repeated axis. Order is kept. */
Shape NormalizeAxes(const std::string& op, const Shape& axes, int64_t ndim);
/*! \brief ValueError unless `a` has rank `ndim`; `what` names the operand. */
void CheckRank(const std::string& op, const NDArray& a, int ndim, const char* what);
/*! \brief ValueError unless a and b have the same dtype. */
void CheckSameDType(const std::string& op, const NDArray& a, const NDArray& b);
/*! \brief A window attribute of 1 or 2 values as (h, w), each >= min_value. */
std::array<int64_t, 2> Pair(const std::string& op, const char* name, const Shape& v,
                            int64_t min_value);
/*! \brief Padding of 1, 2 or 4 values as (top, left, bottom, right), each >= 0. */
std::array<int64_t, 4> Padding4(const std::string& op, const Shape& v);

/*! \brief floor(a / b) for b > 0 and any sign of a. */
inline int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
/*! \brief ceil(a / b) for b > 0 and any sign of a. */
inline int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

/*!
 * \brief The output positions o in [0, out_size) whose input position o * stride + offset
 * falls inside [0, in_size): the range [lo, hi) that lets a conv or pooling inner loop run
 * without bounds checks.
 */
inline std::pair<int64_t, int64_t> ValidRange(int64_t offset, int64_t stride, int64_t in_size,
                                              int64_t out_size) {
  int64_t lo = std::max<int64_t>(0, CeilDiv(-offset, stride));
  int64_t hi = std::min<int64_t>(out_size, FloorDiv(in_size - 1 - offset, stride) + 1);
  return {lo, std::max(lo, hi)};
}

/*!
 * \brief Integer arithmetic that wraps around (as NumPy's does) instead of being undefined
 * behaviour on overflow; floating point and bool pass through.
 */
template <typename T>
inline T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;  // NumPy's bool + bool
  } else {
    return a + b;
  }
}
template <typename T>
inline T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
inline T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;  // NumPy's bool * bool
  } else {
    return a * b;
  }
}

/*!
 * \brief double → T for attribute values (fill values, clip bounds): integers saturate at
 * their range, NaN becomes 0; bool is value != 0.
 */
template <typename T>
inline T SaturateCast(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

/*! \brief Whether v is NaN (never, for integers and bool). */
template <typename T>
inline bool IsNaN(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

/*! \brief Registry argument conversions. */
inline Shape ToShape(const Array<int64_t>& a) { return a.to_vector(); }
inline std::optional<Shape> ToOptShape(const std::optional<Array<int64_t>>& a) {
  if (!a) return std::nullopt;
  return a->to_vector();
}

}  // namespace detail
}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_SRC_LOWNUMPY_OP_UTIL_H_
