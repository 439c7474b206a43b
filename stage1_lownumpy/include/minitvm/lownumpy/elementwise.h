/*!
 * \file minitvm/lownumpy/elementwise.h
 * \brief Elementwise operators of the lownumpy reference library (stage 1): arithmetic,
 * comparisons, logical operators, math functions, activations, `where`, `clip` and `cast`.
 *
 * Shape rule of every binary (and the ternary `where`) operator: NumPy broadcasting — the
 * shapes are aligned at the right, each pair of dimensions must be equal or one of them 1,
 * the output takes the larger. Unary operators keep the shape. Inputs may be strided.
 *
 * Dtype rule: the operands of a binary operator must have the same dtype (lownumpy does not
 * promote; cast first). Arithmetic keeps the dtype, except `divide` on integers, which returns
 * float64 as NumPy's true division does. Comparisons and logical operators return bool.
 * Bad shapes, dtypes or attributes raise ValueError naming the operator.
 */
#ifndef MINITVM_LOWNUMPY_ELEMENTWISE_H_
#define MINITVM_LOWNUMPY_ELEMENTWISE_H_

#include <string>

#include "minitvm/lownumpy/iteration.h"

namespace minitvm {
namespace lownumpy {

// ---- binary arithmetic (float32, float64, int32, int64) --------------------------------
/*! \brief a + b (bool too: logical or, as NumPy). */
NDArray add(const NDArray& a, const NDArray& b);
/*! \brief a - b. */
NDArray subtract(const NDArray& a, const NDArray& b);
/*! \brief a * b (bool too: logical and). */
NDArray multiply(const NDArray& a, const NDArray& b);
/*! \brief a / b; integers are divided as float64 and give float64. */
NDArray divide(const NDArray& a, const NDArray& b);
/*! \brief floor(a / b); integer division by zero gives 0 (NumPy warns and gives 0). */
NDArray floor_divide(const NDArray& a, const NDArray& b);
/*! \brief a - floor(a / b) * b: the sign follows b; integer modulo by zero gives 0. */
NDArray mod(const NDArray& a, const NDArray& b);
/*! \brief a ** b; ValueError for an integer raised to a negative integer power. */
NDArray power(const NDArray& a, const NDArray& b);
/*! \brief The larger of a and b; NaN if either is NaN. */
NDArray maximum(const NDArray& a, const NDArray& b);
/*! \brief The smaller of a and b; NaN if either is NaN. */
NDArray minimum(const NDArray& a, const NDArray& b);

// ---- comparisons (all five dtypes) → bool ----------------------------------------------
/*! \brief a == b. */
NDArray equal(const NDArray& a, const NDArray& b);
/*! \brief a != b. */
NDArray not_equal(const NDArray& a, const NDArray& b);
/*! \brief a < b. */
NDArray less(const NDArray& a, const NDArray& b);
/*! \brief a <= b. */
NDArray less_equal(const NDArray& a, const NDArray& b);
/*! \brief a > b. */
NDArray greater(const NDArray& a, const NDArray& b);
/*! \brief a >= b. */
NDArray greater_equal(const NDArray& a, const NDArray& b);

// ---- logical (all five dtypes; nonzero is true) → bool ---------------------------------
/*! \brief a and b. */
NDArray logical_and(const NDArray& a, const NDArray& b);
/*! \brief a or b. */
NDArray logical_or(const NDArray& a, const NDArray& b);
/*! \brief a xor b. */
NDArray logical_xor(const NDArray& a, const NDArray& b);
/*! \brief not a. */
NDArray logical_not(const NDArray& a);

// ---- unary -------------------------------------------------------------------------------
/*! \brief -a (float32, float64, int32, int64). */
NDArray negative(const NDArray& a);
/*! \brief |a| (float32, float64, int32, int64). */
NDArray abs(const NDArray& a);
/*! \brief e^a (floats). */
NDArray exp(const NDArray& a);
/*! \brief Natural logarithm (floats); -inf at 0, NaN below. */
NDArray log(const NDArray& a);
/*! \brief Square root (floats). */
NDArray sqrt(const NDArray& a);
/*! \brief 1 / sqrt(a) (floats). */
NDArray rsqrt(const NDArray& a);
/*! \brief Hyperbolic tangent (floats). */
NDArray tanh(const NDArray& a);
/*! \brief 1 / (1 + e^-a) (floats), written to avoid overflow for large |a|. */
NDArray sigmoid(const NDArray& a);
/*! \brief The error function (floats). */
NDArray erf(const NDArray& a);
/*! \brief max(a, 0) (float32, float64, int32, int64). */
NDArray relu(const NDArray& a);
/*!
 * \brief GELU (floats). `approximate` is "none" (x * Phi(x) with the exact erf) or "tanh"
 * (the tanh approximation), as in PyTorch; ValueError for other strings.
 */
NDArray gelu(const NDArray& a, const std::string& approximate = "none");

// ---- selection and conversion ------------------------------------------------------------
/*!
 * \brief `cond ? x : y`, elementwise, broadcasting all three. `cond` may have any of the five
 * dtypes (nonzero is true); x and y must share a dtype, which the output has.
 */
NDArray where(const NDArray& cond, const NDArray& x, const NDArray& y);
/*!
 * \brief minimum(maximum(a, a_min), a_max) with scalar bounds (NumPy's order: when
 * a_min > a_max every element becomes a_max). For integer arrays the bounds are truncated.
 */
NDArray clip(const NDArray& a, double a_min, double a_max);
/*!
 * \brief Convert to `dtype` (bool, int8, int16, int32, int64, uint8, float32, float64).
 * Float to integer truncates toward zero; NaN and out-of-range values, which NumPy leaves
 * undefined, give 0 here. Anything nonzero becomes true.
 */
NDArray cast(const NDArray& a, DataType dtype);

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_ELEMENTWISE_H_
