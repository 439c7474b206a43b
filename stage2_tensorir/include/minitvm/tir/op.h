/*!
 * \file minitvm/tir/op.h
 * \brief Building TensorIR expressions (stage 2): operator overloads with TVM's dtype
 * promotion and constant folding, and the intrinsic builders (`exp`, `floordiv`, ...).
 *
 * Promotion follows TVM: an immediate adapts to the other operand's dtype (`x + 1` with an
 * int64 x is int64; `A[i] + 1.0` with a float16 A is float16); two non-immediate operands
 * must share a dtype, except that int/int of different widths widen and int/float convert to
 * the float; a bool meets an int as an int. Anything else is a ValueError naming both dtypes.
 * Integer immediates are folded (`2 + 3` → `5`, `x * 1` → `x`), floats are not reassociated.
 */
#ifndef MINITVM_TIR_OP_H_
#define MINITVM_TIR_OP_H_

#include <string>

#include "minitvm/tir/expr.h"

namespace minitvm {

// Arithmetic. `/` is true division for floats and truncating for ints (use floordiv for
// index math, as TVM's Python `//` does).
PrimExpr operator+(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a);
PrimExpr operator*(PrimExpr a, PrimExpr b);
PrimExpr operator/(PrimExpr a, PrimExpr b);
PrimExpr operator%(PrimExpr a, PrimExpr b);
PrimExpr operator==(PrimExpr a, PrimExpr b);
PrimExpr operator!=(PrimExpr a, PrimExpr b);
PrimExpr operator<(PrimExpr a, PrimExpr b);
PrimExpr operator<=(PrimExpr a, PrimExpr b);
PrimExpr operator>(PrimExpr a, PrimExpr b);
PrimExpr operator>=(PrimExpr a, PrimExpr b);
PrimExpr operator&&(PrimExpr a, PrimExpr b);
PrimExpr operator||(PrimExpr a, PrimExpr b);
PrimExpr operator!(PrimExpr a);

namespace tir {

PrimExpr floordiv(PrimExpr a, PrimExpr b);
PrimExpr floormod(PrimExpr a, PrimExpr b);
/*! \brief Truncating division and remainder (C semantics). */
PrimExpr truncdiv(PrimExpr a, PrimExpr b);
PrimExpr truncmod(PrimExpr a, PrimExpr b);
/*! \brief Index division: floordiv (TVM's indexdiv). */
inline PrimExpr indexdiv(PrimExpr a, PrimExpr b) { return floordiv(a, b); }
inline PrimExpr indexmod(PrimExpr a, PrimExpr b) { return floormod(a, b); }
PrimExpr min(PrimExpr a, PrimExpr b);
PrimExpr max(PrimExpr a, PrimExpr b);
PrimExpr cast(DataType dtype, PrimExpr value);
PrimExpr select(PrimExpr condition, PrimExpr true_value, PrimExpr false_value);
PrimExpr if_then_else(PrimExpr condition, PrimExpr true_value, PrimExpr false_value);
PrimExpr likely(PrimExpr condition);
/*! \brief A constant of `dtype` (int, uint, bool or float). */
PrimExpr make_const(DataType dtype, double value);
PrimExpr make_zero(DataType dtype);
PrimExpr const_true();
/*! \brief The smallest / largest value of a dtype (for max/min reductions). */
PrimExpr min_value(DataType dtype);
PrimExpr max_value(DataType dtype);

/*!
 * \brief A call of the float intrinsic `op` ("tir.exp", "tir.pow"; see tir/builtin.h) on one or
 * two operands: two operands are brought to one dtype, integers are cast to float32.
 */
PrimExpr CallFloatIntrinsic(const std::string& op, Array<PrimExpr> args);
// Math intrinsics: float arguments (ints are converted to float32).
PrimExpr exp(PrimExpr x);
PrimExpr log(PrimExpr x);
PrimExpr sqrt(PrimExpr x);
PrimExpr rsqrt(PrimExpr x);
PrimExpr tanh(PrimExpr x);
PrimExpr sigmoid(PrimExpr x);
PrimExpr erf(PrimExpr x);
PrimExpr fabs(PrimExpr x);
/*! \brief Absolute value for ints and floats. */
PrimExpr abs(PrimExpr x);
PrimExpr pow(PrimExpr x, PrimExpr y);
PrimExpr floor(PrimExpr x);
PrimExpr ceil(PrimExpr x);
PrimExpr round(PrimExpr x);
PrimExpr reinterpret(DataType dtype, PrimExpr x);
/*! \brief A call of an external C function by name. */
PrimExpr call_extern(DataType dtype, String name, Array<PrimExpr> args);

/*! \brief Whether `op` is a registered TIR intrinsic (tir/builtin.h), e.g. "tir.exp". */
bool IsKnownIntrinsic(const std::string& op);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_OP_H_
