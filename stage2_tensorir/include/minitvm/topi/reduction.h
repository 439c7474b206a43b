/*!
 * \file minitvm/topi/reduction.h
 * \brief Reductions over axes (stage 2): sum, max, min, prod, mean, argmax, argmin, with
 * `keepdims`. `axis` absent means every axis. Each reduction is a te.compute whose body is a
 * te reduction, named `<input>_red` as TVM names them (argmax/argmin: `T_argmax`, ...).
 */
#ifndef MINITVM_TOPI_REDUCTION_H_
#define MINITVM_TOPI_REDUCTION_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/te/operation.h"
#include "minitvm/topi/tags.h"

namespace minitvm {
namespace topi {

using te::Tensor;

/*! \brief Axes to reduce over: absent means all; negative counts from the end. */
using Axes = std::optional<std::vector<int64_t>>;

Tensor sum(const Tensor& x, const Axes& axis = std::nullopt, bool keepdims = false);
Tensor max(const Tensor& x, const Axes& axis = std::nullopt, bool keepdims = false);
Tensor min(const Tensor& x, const Axes& axis = std::nullopt, bool keepdims = false);
Tensor prod(const Tensor& x, const Axes& axis = std::nullopt, bool keepdims = false);
/*! \brief sum / count (float dtypes). */
Tensor mean(const Tensor& x, const Axes& axis = std::nullopt, bool keepdims = false);
/*!
 * \brief Index of the largest (smallest) element along one axis, or of the flattened tensor
 * when `axis` is absent; ties give the first index, like NumPy. int64 result.
 */
Tensor argmax(const Tensor& x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);

}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_TOPI_REDUCTION_H_
