/*!
 * \file minitvm/lownumpy/reduce.h
 * \brief Reductions of the lownumpy reference library (stage 1): sum, mean, prod, max, min,
 * argmax and argmin over axes, with keepdims.
 *
 * Shape rule: `axes` lists distinct axes in [-ndim, ndim) (negative counts from the end);
 * when absent, every axis is reduced. The reduced axes are removed from the shape, or kept
 * with size 1 when `keepdims` is true. Inputs may be strided.
 *
 * Dtype rule (NumPy's on 64-bit Linux): sum and prod of bool, int32 and int64 give int64,
 * of floats keep the dtype; mean of integers and bool gives float64; max and min keep the
 * dtype; argmax and argmin give int64. Floating-point sums and means accumulate in double.
 */
#ifndef MINITVM_LOWNUMPY_REDUCE_H_
#define MINITVM_LOWNUMPY_REDUCE_H_

#include <optional>

#include "minitvm/lownumpy/iteration.h"

namespace minitvm {
namespace lownumpy {

/*! \brief The optional list of axes a reduction takes; nullopt means "all axes". */
using OptAxes = std::optional<Shape>;

/*! \brief Sum over `axes` (0 for an empty reduction). */
NDArray sum(const NDArray& a, const OptAxes& axes = std::nullopt, bool keepdims = false);
/*! \brief Mean over `axes`; NaN for an empty reduction, as NumPy. */
NDArray mean(const NDArray& a, const OptAxes& axes = std::nullopt, bool keepdims = false);
/*! \brief Product over `axes` (1 for an empty reduction). */
NDArray prod(const NDArray& a, const OptAxes& axes = std::nullopt, bool keepdims = false);
/*! \brief Maximum over `axes`; NaN wins; ValueError when the reduced axes are empty. */
NDArray max(const NDArray& a, const OptAxes& axes = std::nullopt, bool keepdims = false);
/*! \brief Minimum over `axes`; NaN wins; ValueError when the reduced axes are empty. */
NDArray min(const NDArray& a, const OptAxes& axes = std::nullopt, bool keepdims = false);
/*!
 * \brief Index of the first maximum along `axis` (or in the flattened array when absent; with
 * keepdims every axis is then kept as 1). The first NaN counts as the maximum. ValueError when
 * the reduced axis is empty.
 */
NDArray argmax(const NDArray& a, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);
/*! \brief Index of the first minimum; otherwise like argmax. */
NDArray argmin(const NDArray& a, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_REDUCE_H_
