/*!
 * \file minitvm/topi/transform.h
 * \brief Shape manipulation (stage 2): reshape, transpose, flatten, concatenate, split,
 * squeeze, expand_dims, take, where, pad and strided views, each a te.compute that moves
 * data without computing on it. Axes may be negative (counted from the end).
 */
#ifndef MINITVM_TOPI_TRANSFORM_H_
#define MINITVM_TOPI_TRANSFORM_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/te/operation.h"
#include "minitvm/topi/tags.h"

namespace minitvm {
namespace topi {

using te::Tensor;

/*!
 * \brief The same elements in row-major order under `newshape`; one entry may be -1 (inferred,
 * constant shapes only). ValueError when the element counts differ.
 */
Tensor reshape(const Tensor& x, const Array<PrimExpr>& newshape, std::string name = "T_reshape",
               std::string tag = kInjective);
/*! \brief Permute the axes (reverse them when `axes` is absent), like numpy.transpose. */
Tensor transpose(const Tensor& x, std::optional<std::vector<int64_t>> axes = std::nullopt,
                 std::string name = "T_transpose", std::string tag = kInjective);
/*! \brief Merge axes start_axis..end_axis (inclusive) into one, like torch.flatten. */
Tensor flatten(const Tensor& x, int64_t start_axis = 0, int64_t end_axis = -1,
               std::string name = "T_flatten", std::string tag = kInjective);
/*! \brief Join tensors along an existing axis. */
Tensor concatenate(const Array<Tensor>& xs, int64_t axis = 0, std::string name = "T_concat",
                   std::string tag = kInjective);
/*! \brief Split into `sections` equal parts along axis; ValueError when it does not divide. */
Array<Tensor> split_sections(const Tensor& x, int64_t sections, int64_t axis = 0,
                             std::string name = "T_split_sections", std::string tag = kInjective);
/*! \brief Split before each of the ascending `indices` along axis (len + 1 parts). */
Array<Tensor> split(const Tensor& x, const std::vector<int64_t>& indices, int64_t axis = 0,
                    std::string name = "T_split", std::string tag = kInjective);
/*! \brief Remove size-1 axes (the given ones, or all). ValueError for a non-1 axis. */
Tensor squeeze(const Tensor& x, std::optional<std::vector<int64_t>> axes = std::nullopt,
               std::string name = "T_squeeze", std::string tag = kInjective);
/*!
 * \brief Insert size-1 axes at positions `axes` of the result, like numpy.expand_dims.
 */
Tensor expand_dims(const Tensor& x, const std::vector<int64_t>& axes,
                   std::string name = "T_expand_dims", std::string tag = kInjective);
/*! \brief TVM's form: insert `num_newaxis` axes at `axis`. */
Tensor expand_dims(const Tensor& x, int64_t axis, int64_t num_newaxis,
                   std::string name = "T_expand_dims", std::string tag = kInjective);
/*!
 * \brief Gather along `axis` (the flattened tensor when absent): the result's shape is
 * x.shape[:axis] + indices.shape + x.shape[axis+1:]. `mode` is "clip" (clamp), "wrap"
 * (modulo) or "fast" (no adjustment: an out-of-range index is an error when run).
 */
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis = std::nullopt,
            std::string mode = "clip", std::string name = "T_take", std::string tag = kInjective);
/*! \brief cond ? x : y elementwise with broadcasting. */
Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y, std::string name = "T_where",
             std::string tag = kBroadcast);
/*!
 * \brief Pad with `pad_before[i]` / `pad_after[i]` elements per axis (missing trailing axes
 * are not padded; pad_after defaults to pad_before). `mode` is "constant", "edge" or
 * "reflect". Named "PadInput" like TVM's.
 */
Tensor pad(const Tensor& x, const Array<PrimExpr>& pad_before, Array<PrimExpr> pad_after = {},
           PrimExpr pad_value = PrimExpr(), std::string name = "PadInput",
           std::string pad_mode = "constant", std::string tag = kElementWise);
/*! \brief x[begin:end:stride] per axis (constant begin/end/strides; end clamped). */
Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end, const std::vector<int64_t>& strides = {},
                     std::string name = "T_strided_slice", std::string tag = kInjective);

}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_TOPI_TRANSFORM_H_
