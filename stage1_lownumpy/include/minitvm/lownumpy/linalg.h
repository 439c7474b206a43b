/*!
 * \file minitvm/lownumpy/linalg.h
 * \brief Matrix products of the lownumpy reference library (stage 1): `matmul` with NumPy's
 * batching and broadcasting rules, and `linear` (x @ W.T + b), the layer the course MLP uses.
 */
#ifndef MINITVM_LOWNUMPY_LINALG_H_
#define MINITVM_LOWNUMPY_LINALG_H_

#include "minitvm/lownumpy/iteration.h"

namespace minitvm {
namespace lownumpy {

/*!
 * \brief NumPy's matmul (float32, float64, int32, int64; both operands of one dtype).
 *
 * Shape rule: (..., n, k) @ (..., k, m) → (..., n, m), the leading "batch" dimensions
 * broadcast. A 1-D left operand is read as (1, k) and a 1-D right operand as (k, 1); the
 * added dimension is removed from the result. Scalars (0-D) are rejected. ValueError when the
 * contracted dimensions differ or the batch dimensions do not broadcast. Accumulates in the
 * operand type, in the order k = 0, 1, ...
 */
NDArray matmul(const NDArray& a, const NDArray& b);

/*!
 * \brief The fully connected layer `x @ w.T + b` (float32, float64).
 *
 * Shape rule: x (..., in), w (out, in), b (out,) or undefined → (..., out). ValueError when
 * the `in` sizes differ or b is not (out,).
 */
NDArray linear(const NDArray& x, const NDArray& w, const NDArray& b = NDArray());

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_LINALG_H_
