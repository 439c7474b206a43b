/*!
 * \file elemwise.cc
 * \brief Elementwise operators, casts, clip and tensor creation (stage 2).
 */
#include "minitvm/topi/elemwise.h"

#include <cmath>
#include <functional>

#include "topi_util.h"

namespace minitvm {
namespace topi {

using tir::Var;

namespace {
Tensor Unary(const Tensor& x, const std::function<PrimExpr(PrimExpr)>& f, const std::string& name,
             const std::string& tag) {
  return te::compute(x->shape, te::FCompute([&](const Array<Var>& i) { return f(x(i)); }), name,
                     tag);
}
PrimExpr AsBool(const PrimExpr& e) {
  return e.dtype().is_bool() ? e : (e != tir::make_zero(e.dtype()));
}
PrimExpr Sign(const PrimExpr& x) {
  DataType t = x.dtype();
  PrimExpr zero = tir::make_zero(t);
  return tir::Select(x > zero, tir::make_const(t, 1),
                     tir::Select(x < zero, tir::make_const(t, -1), zero));
}
}  // namespace

#define MINITVM_TOPI_DEFINE_UNARY(Name, Expr)                       \
  Tensor Name(const Tensor& x, std::string name, std::string tag) { \
    return Unary(                                                   \
        x, [](PrimExpr v) { return Expr; }, name, tag);             \
  }

MINITVM_TOPI_DEFINE_UNARY(negative, -v)
MINITVM_TOPI_DEFINE_UNARY(abs, tir::abs(v))
MINITVM_TOPI_DEFINE_UNARY(exp, tir::exp(v))
MINITVM_TOPI_DEFINE_UNARY(log, tir::log(v))
MINITVM_TOPI_DEFINE_UNARY(sqrt, tir::sqrt(v))
MINITVM_TOPI_DEFINE_UNARY(rsqrt, tir::rsqrt(v))
MINITVM_TOPI_DEFINE_UNARY(tanh, tir::tanh(v))
MINITVM_TOPI_DEFINE_UNARY(sigmoid, tir::sigmoid(v))
MINITVM_TOPI_DEFINE_UNARY(erf, tir::erf(v))
MINITVM_TOPI_DEFINE_UNARY(floor, tir::floor(v))
MINITVM_TOPI_DEFINE_UNARY(ceil, tir::ceil(v))
MINITVM_TOPI_DEFINE_UNARY(round, tir::round(v))
MINITVM_TOPI_DEFINE_UNARY(sign, Sign(v))
MINITVM_TOPI_DEFINE_UNARY(logical_not, !AsBool(v))
MINITVM_TOPI_DEFINE_UNARY(identity, v)
#undef MINITVM_TOPI_DEFINE_UNARY

Tensor cast(const Tensor& x, DataType dtype, std::string name, std::string tag) {
  return Unary(
      x, [&](PrimExpr v) { return tir::cast(dtype, v); }, name, tag);
}

Tensor clip(const Tensor& x, PrimExpr a_min, PrimExpr a_max, std::string name, std::string tag) {
  return Unary(
      x,
      [&](PrimExpr v) {
        PrimExpr lo = tir::cast(v.dtype(), a_min), hi = tir::cast(v.dtype(), a_max);
        return tir::max(tir::min(v, hi), lo);
      },
      name, tag);
}

Tensor full(const Array<PrimExpr>& shape, DataType dtype, PrimExpr value, std::string name,
            std::string tag) {
  PrimExpr v = tir::cast(dtype, value);
  return te::compute(shape, te::FCompute([&](const Array<Var>&) { return v; }), name, tag);
}

Tensor full_like(const Tensor& x, PrimExpr value, std::string name, std::string tag) {
  return full(x->shape, x->dtype, value, name, tag);
}

Tensor zeros(const Array<PrimExpr>& shape, DataType dtype, std::string name) {
  return full(shape, dtype, tir::make_zero(dtype), name);
}

Tensor ones(const Array<PrimExpr>& shape, DataType dtype, std::string name) {
  return full(shape, dtype, tir::make_const(dtype, 1), name);
}

Tensor arange(double start, double stop, double step, DataType dtype, std::string name) {
  if (step == 0) MINITVM_THROW(ValueError) << "arange: step must not be zero";
  double count = std::ceil((stop - start) / step);
  int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  DataType f64 = DataType::Float(64);
  return te::compute(
      {PrimExpr(n)}, te::FCompute([&](const Array<Var>& i) {
        if (dtype.is_float()) {
          // NumPy computes start + i * step in double, then converts.
          return tir::cast(dtype, tir::make_const(f64, start) +
                                      tir::cast(f64, i[0]) * tir::make_const(f64, step));
        }
        DataType i64 = DataType::Int(64);
        return tir::cast(
            dtype, tir::make_const(i64, start) + tir::cast(i64, i[0]) * tir::make_const(i64, step));
      }),
      name, kElementWise);
}

}  // namespace topi
}  // namespace minitvm
