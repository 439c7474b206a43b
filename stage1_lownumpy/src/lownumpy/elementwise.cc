/*!
 * \file elementwise.cc
 * \brief The elementwise operators of lownumpy (stage 1): every one is a call to one of three
 * loops — unary, broadcast binary, broadcast ternary — with the scalar formula as a lambda.
 */
#include "minitvm/lownumpy/elementwise.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "./op_util.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {

/*!
 * \brief out = f(a, b) over the broadcast shape of a and b, whose elements are In; the output
 * has dtype `out_dtype` and C++ type Out.
 */
template <typename Out, typename In, typename F>
NDArray BinaryLoop(const std::string& op, const NDArray& a, const NDArray& b, DataType out_dtype,
                   F f) {
  Shape shape = BroadcastShapes(op, a.Shape(), b.Shape());
  NDArray out = NDArray::Empty(shape, out_dtype);
  Out* po = out.data_as<Out>();
  const In* pa = a.data_as<In>();
  const In* pb = b.data_as<In>();
  ForEachOffset<3>(
      shape, {out->strides, BroadcastStrides(op, a, shape), BroadcastStrides(op, b, shape)},
      [&](const std::array<int64_t, 3>& o) { po[o[0]] = static_cast<Out>(f(pa[o[1]], pb[o[2]])); });
  return out;
}

/*! \brief A binary operator whose output has the dtype of its (equal-typed) operands. */
template <unsigned Allowed, typename F>
NDArray Arithmetic(const std::string& op, const NDArray& a, const NDArray& b, F f) {
  CheckCPU(op, a, "lhs");
  CheckCPU(op, b, "rhs");
  CheckSameDType(op, a, b);
  return Dispatch<Allowed>(op, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return BinaryLoop<T, T>(op, a, b, a.dtype(), [&](T x, T y) { return f(x, y); });
  });
}

/*! \brief A binary operator with a bool result. */
template <typename F>
NDArray Predicate(const std::string& op, const NDArray& a, const NDArray& b, F f) {
  CheckCPU(op, a, "lhs");
  CheckCPU(op, b, "rhs");
  CheckSameDType(op, a, b);
  return Dispatch<kAllTypes>(op, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return BinaryLoop<bool, T>(op, a, b, DataType::Bool(), [&](T x, T y) { return f(x, y); });
  });
}

/*! \brief out = f(a), same shape and dtype. */
template <unsigned Allowed, typename F>
NDArray UnaryLoop(const std::string& op, const NDArray& a, F f) {
  CheckCPU(op, a);
  return Dispatch<Allowed>(op, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty(a.Shape(), a.dtype());
    T* po = out.data_as<T>();
    const T* pa = a.data_as<T>();
    ForEachOffset<2>(a.Shape(), {out->strides, a->strides}, [&](const std::array<int64_t, 2>& o) {
      po[o[0]] = static_cast<T>(f(pa[o[1]]));
    });
    return out;
  });
}

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/*! \brief Floor division with NumPy's results, including the signs of zeros. */
template <typename T>
T FloorDivide(T a, T b) {
  if constexpr (kIsInt<T>) {
    if (b == 0) return 0;
    if (b == -1) return WrapSub<T>(0, a);  // avoids the overflow of MIN / -1
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    if (b == 0) return a / b;  // inf or NaN
    // fmod is exact, so a - r is an exact multiple of b; the quotient is then rounded to the
    // nearest integer to undo the rounding of the division.
    T r = std::fmod(a, b);
    T q = (a - r) / b;
    if (r != 0 && ((b < 0) != (r < 0))) q -= 1;
    if (q == 0) return std::copysign(T(0), a / b);
    T fq = std::floor(q);
    if (q - fq > T(0.5)) fq += 1;
    return fq;
  }
}

/*! \brief The remainder whose sign follows the divisor (Python's %). */
template <typename T>
T Modulo(T a, T b) {
  if constexpr (kIsInt<T>) {
    if (b == 0 || b == -1) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    T r = std::fmod(a, b);
    if (r != 0) {
      if ((b < 0) != (r < 0)) r += b;
    } else {
      r = std::copysign(T(0), b);
    }
    return r;
  }
}

/*! \brief a ** b; integers by repeated squaring, wrapping on overflow. */
template <typename T>
T Power(T a, T b) {
  if constexpr (kIsInt<T>) {
    if (b < 0) {
      MINITVM_THROW(ValueError) << "power: integers to negative integer powers are not allowed "
                                << "(got exponent " << b << ")";
    }
    T result = 1;
    T base = a;
    for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
      if (e & 1) result = WrapMul(result, base);
      base = WrapMul(base, base);
    }
    return result;
  } else {
    return std::pow(a, b);
  }
}

/*! \brief The truth value of an element (nonzero is true), as a bool array. */
NDArray Truth(const std::string& op, const NDArray& a) {
  CheckCPU(op, a);
  return a.dtype().is_bool() ? a : cast(a, DataType::Bool());
}

}  // namespace

// ---- binary arithmetic ---------------------------------------------------------------------

NDArray add(const NDArray& a, const NDArray& b) {
  return Arithmetic<kAllTypes>("add", a, b, [](auto x, auto y) { return WrapAdd(x, y); });
}
NDArray subtract(const NDArray& a, const NDArray& b) {
  return Arithmetic<kNumeric>("subtract", a, b, [](auto x, auto y) { return WrapSub(x, y); });
}
NDArray multiply(const NDArray& a, const NDArray& b) {
  return Arithmetic<kAllTypes>("multiply", a, b, [](auto x, auto y) { return WrapMul(x, y); });
}
NDArray divide(const NDArray& a, const NDArray& b) {
  if (a.defined() && b.defined() && a.dtype() == b.dtype() &&
      (a.dtype() == DataType::Int(32) || a.dtype() == DataType::Int(64) || a.dtype().is_bool())) {
    // True division of integers: NumPy gives float64.
    return divide(cast(a, DataType::Float(64)), cast(b, DataType::Float(64)));
  }
  return Arithmetic<kFloats>("divide", a, b, [](auto x, auto y) { return x / y; });
}
NDArray floor_divide(const NDArray& a, const NDArray& b) {
  return Arithmetic<kNumeric>("floor_divide", a, b,
                              [](auto x, auto y) { return FloorDivide<decltype(x)>(x, y); });
}
NDArray mod(const NDArray& a, const NDArray& b) {
  return Arithmetic<kNumeric>("mod", a, b,
                              [](auto x, auto y) { return Modulo<decltype(x)>(x, y); });
}
NDArray power(const NDArray& a, const NDArray& b) {
  return Arithmetic<kNumeric>("power", a, b,
                              [](auto x, auto y) { return Power<decltype(x)>(x, y); });
}
NDArray maximum(const NDArray& a, const NDArray& b) {
  return Arithmetic<kAllTypes>("maximum", a, b, [](auto x, auto y) {
    if (IsNaN(x)) return x;
    return (IsNaN(y) || y > x) ? y : x;
  });
}
NDArray minimum(const NDArray& a, const NDArray& b) {
  return Arithmetic<kAllTypes>("minimum", a, b, [](auto x, auto y) {
    if (IsNaN(x)) return x;
    return (IsNaN(y) || y < x) ? y : x;
  });
}

// ---- comparisons and logic -----------------------------------------------------------------

NDArray equal(const NDArray& a, const NDArray& b) {
  return Predicate("equal", a, b, [](auto x, auto y) { return x == y; });
}
NDArray not_equal(const NDArray& a, const NDArray& b) {
  return Predicate("not_equal", a, b, [](auto x, auto y) { return x != y; });
}
NDArray less(const NDArray& a, const NDArray& b) {
  return Predicate("less", a, b, [](auto x, auto y) { return x < y; });
}
NDArray less_equal(const NDArray& a, const NDArray& b) {
  return Predicate("less_equal", a, b, [](auto x, auto y) { return x <= y; });
}
NDArray greater(const NDArray& a, const NDArray& b) {
  return Predicate("greater", a, b, [](auto x, auto y) { return x > y; });
}
NDArray greater_equal(const NDArray& a, const NDArray& b) {
  return Predicate("greater_equal", a, b, [](auto x, auto y) { return x >= y; });
}
NDArray logical_and(const NDArray& a, const NDArray& b) {
  return Predicate("logical_and", Truth("logical_and", a), Truth("logical_and", b),
                   [](auto x, auto y) { return x && y; });
}
NDArray logical_or(const NDArray& a, const NDArray& b) {
  return Predicate("logical_or", Truth("logical_or", a), Truth("logical_or", b),
                   [](auto x, auto y) { return x || y; });
}
NDArray logical_xor(const NDArray& a, const NDArray& b) {
  return Predicate("logical_xor", Truth("logical_xor", a), Truth("logical_xor", b),
                   [](auto x, auto y) { return x != y; });
}
NDArray logical_not(const NDArray& a) {
  return UnaryLoop<kBool>("logical_not", Truth("logical_not", a), [](bool x) { return !x; });
}

// ---- unary ---------------------------------------------------------------------------------

NDArray negative(const NDArray& a) {
  return UnaryLoop<kNumeric>("negative", a,
                             [](auto x) { return WrapSub(static_cast<decltype(x)>(0), x); });
}
NDArray abs(const NDArray& a) {
  return UnaryLoop<kNumeric>("abs", a, [](auto x) {
    using T = decltype(x);
    if constexpr (kIsInt<T>) {
      return x < 0 ? WrapSub(T(0), x) : x;
    } else {
      return std::fabs(x);
    }
  });
}
NDArray exp(const NDArray& a) {
  return UnaryLoop<kFloats>("exp", a, [](auto x) { return std::exp(x); });
}
NDArray log(const NDArray& a) {
  return UnaryLoop<kFloats>("log", a, [](auto x) { return std::log(x); });
}
NDArray sqrt(const NDArray& a) {
  return UnaryLoop<kFloats>("sqrt", a, [](auto x) { return std::sqrt(x); });
}
NDArray rsqrt(const NDArray& a) {
  return UnaryLoop<kFloats>("rsqrt", a,
                            [](auto x) { return static_cast<decltype(x)>(1) / std::sqrt(x); });
}
NDArray tanh(const NDArray& a) {
  return UnaryLoop<kFloats>("tanh", a, [](auto x) { return std::tanh(x); });
}
NDArray sigmoid(const NDArray& a) {
  return UnaryLoop<kFloats>("sigmoid", a, [](auto x) {
    using T = decltype(x);
    // exp of a non-positive number never overflows.
    if (x >= 0) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
  });
}
NDArray erf(const NDArray& a) {
  return UnaryLoop<kFloats>("erf", a, [](auto x) { return std::erf(x); });
}
NDArray relu(const NDArray& a) {
  // `x < 0 ? 0 : x` keeps NaN, as numpy.maximum(x, 0) and torch.relu do.
  return UnaryLoop<kNumeric>("relu", a,
                             [](auto x) { return x < 0 ? static_cast<decltype(x)>(0) : x; });
}
NDArray gelu(const NDArray& a, const std::string& approximate) {
  if (approximate == "none") {
    return UnaryLoop<kFloats>("gelu", a, [](auto x) {
      using T = decltype(x);
      return T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2)));
    });
  }
  if (approximate == "tanh") {
    return UnaryLoop<kFloats>("gelu", a, [](auto x) {
      using T = decltype(x);
      const T k = std::sqrt(T(2) / T(M_PI));
      return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
    });
  }
  MINITVM_THROW(ValueError) << "gelu: approximate must be \"none\" or \"tanh\" but got \""
                            << approximate << "\"";
  __builtin_unreachable();
}

// ---- where, clip, cast ---------------------------------------------------------------------

NDArray where(const NDArray& cond, const NDArray& x, const NDArray& y) {
  const std::string op = "where";
  CheckCPU(op, x, "x");
  CheckCPU(op, y, "y");
  NDArray c = Truth(op, cond);
  CheckSameDType(op, x, y);
  Shape shape = BroadcastShapes(op, BroadcastShapes(op, c.Shape(), x.Shape()), y.Shape());
  return Dispatch<kAllTypes>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty(shape, x.dtype());
    T* po = out.data_as<T>();
    const bool* pc = c.data_as<bool>();
    const T* px = x.data_as<T>();
    const T* py = y.data_as<T>();
    ForEachOffset<4>(
        shape,
        {out->strides, BroadcastStrides(op, c, shape), BroadcastStrides(op, x, shape),
         BroadcastStrides(op, y, shape)},
        [&](const std::array<int64_t, 4>& o) { po[o[0]] = pc[o[1]] ? px[o[2]] : py[o[3]]; });
    return out;
  });
}

NDArray clip(const NDArray& a, double a_min, double a_max) {
  CheckCPU("clip", a);
  return Dispatch<kNumeric>("clip", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T lo = SaturateCast<T>(a_min);
    const T hi = SaturateCast<T>(a_max);
    // NaN elements stay NaN: both comparisons are false for them.
    return UnaryLoop<kNumeric>("clip", a, [lo, hi](auto x) {
      T v = static_cast<T>(x);
      v = v < lo ? lo : v;
      return v > hi ? hi : v;
    });
  });
}

namespace {

/*! \brief One element converted: truthiness for bool, checked truncation for float → int. */
template <typename To, typename From>
To ConvertElement(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Only in-range values have a defined conversion in C++; NumPy leaves the rest undefined.
    double t = std::trunc(static_cast<double>(v));
    constexpr int kBits = std::numeric_limits<To>::digits + std::is_signed_v<To>;
    const double lo = std::is_signed_v<To> ? -std::ldexp(1.0, kBits - 1) : 0.0;
    const double hi = std::is_signed_v<To> ? std::ldexp(1.0, kBits - 1) : std::ldexp(1.0, kBits);
    if (!(t >= lo && t < hi)) return To(0);
    return static_cast<To>(t);
  } else {
    return static_cast<To>(v);
  }
}

[[noreturn]] void ThrowCastDType(DataType dtype) {
  MINITVM_THROW(ValueError) << "cast: unsupported dtype " << dtype
                            << " (supported: bool, int8, int16, int32, int64, uint8, float32, "
                               "float64)";
}

/*! \brief Call f(T{}) for any of the dtypes `cast` converts between. */
template <typename F>
NDArray CastDispatch(DataType dtype, F&& f) {
  if (dtype.is_scalar()) {
    if (dtype.is_bool()) return f(bool{});
    if (dtype == DataType::Int(8)) return f(int8_t{});
    if (dtype == DataType::Int(16)) return f(int16_t{});
    if (dtype == DataType::Int(32)) return f(int32_t{});
    if (dtype == DataType::Int(64)) return f(int64_t{});
    if (dtype == DataType::UInt(8)) return f(uint8_t{});
    if (dtype == DataType::Float(32)) return f(float{});
    if (dtype == DataType::Float(64)) return f(double{});
  }
  ThrowCastDType(dtype);
}

}  // namespace

NDArray cast(const NDArray& a, DataType dtype) {
  CheckCPU("cast", a);
  return CastDispatch(a.dtype(), [&](auto from_tag) {
    using From = decltype(from_tag);
    return CastDispatch(dtype, [&](auto to_tag) {
      using To = decltype(to_tag);
      NDArray out = NDArray::Empty(a.Shape(), dtype);
      To* po = out.data_as<To>();
      const From* pa = a.data_as<From>();
      ForEachOffset<2>(a.Shape(), {out->strides, a->strides}, [&](const std::array<int64_t, 2>& o) {
        po[o[0]] = ConvertElement<To, From>(pa[o[1]]);
      });
      return out;
    });
  });
}

// ---- registration --------------------------------------------------------------------------

#define LOWNUMPY_REGISTER_BINARY(Name)                                                 \
  MINITVM_REGISTER_GLOBAL("lownumpy." #Name).set_body_typed([](NDArray a, NDArray b) { \
    return lownumpy::Name(a, b);                                                       \
  })
#define LOWNUMPY_REGISTER_UNARY(Name)                                       \
  MINITVM_REGISTER_GLOBAL("lownumpy." #Name).set_body_typed([](NDArray a) { \
    return lownumpy::Name(a);                                               \
  })

LOWNUMPY_REGISTER_BINARY(add);
LOWNUMPY_REGISTER_BINARY(subtract);
LOWNUMPY_REGISTER_BINARY(multiply);
LOWNUMPY_REGISTER_BINARY(divide);
LOWNUMPY_REGISTER_BINARY(floor_divide);
LOWNUMPY_REGISTER_BINARY(mod);
LOWNUMPY_REGISTER_BINARY(power);
LOWNUMPY_REGISTER_BINARY(maximum);
LOWNUMPY_REGISTER_BINARY(minimum);
LOWNUMPY_REGISTER_BINARY(equal);
LOWNUMPY_REGISTER_BINARY(not_equal);
LOWNUMPY_REGISTER_BINARY(less);
LOWNUMPY_REGISTER_BINARY(less_equal);
LOWNUMPY_REGISTER_BINARY(greater);
LOWNUMPY_REGISTER_BINARY(greater_equal);
LOWNUMPY_REGISTER_BINARY(logical_and);
LOWNUMPY_REGISTER_BINARY(logical_or);
LOWNUMPY_REGISTER_BINARY(logical_xor);
LOWNUMPY_REGISTER_UNARY(logical_not);
LOWNUMPY_REGISTER_UNARY(negative);
LOWNUMPY_REGISTER_UNARY(abs);
LOWNUMPY_REGISTER_UNARY(exp);
LOWNUMPY_REGISTER_UNARY(log);
LOWNUMPY_REGISTER_UNARY(sqrt);
LOWNUMPY_REGISTER_UNARY(rsqrt);
LOWNUMPY_REGISTER_UNARY(tanh);
LOWNUMPY_REGISTER_UNARY(sigmoid);
LOWNUMPY_REGISTER_UNARY(erf);
LOWNUMPY_REGISTER_UNARY(relu);

MINITVM_REGISTER_GLOBAL("lownumpy.gelu").set_body_typed([](NDArray a, std::string approximate) {
  return gelu(a, approximate);
});
MINITVM_REGISTER_GLOBAL("lownumpy.where").set_body_typed([](NDArray c, NDArray x, NDArray y) {
  return where(c, x, y);
});
MINITVM_REGISTER_GLOBAL("lownumpy.clip").set_body_typed([](NDArray a, double lo, double hi) {
  return clip(a, lo, hi);
});
MINITVM_REGISTER_GLOBAL("lownumpy.cast").set_body_typed([](NDArray a, DataType dtype) {
  return cast(a, dtype);
});

}  // namespace lownumpy
}  // namespace minitvm
