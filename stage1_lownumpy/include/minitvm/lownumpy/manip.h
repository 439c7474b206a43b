/*!
 * \file minitvm/lownumpy/manip.h
 * \brief Shape manipulation of the lownumpy reference library (stage 1): reshape,
 * permute_dims, flatten, concatenate, split, squeeze, expand_dims, broadcast_to, take and pad.
 *
 * Every operator returns a new compact array (never a view of its input), so a result can be
 * written without touching the input. All dtypes that NDArray holds work (the data is moved,
 * not computed), except `pad`, whose fill value needs one of the five computing dtypes.
 * Axes may be negative (counted from the end).
 */
#ifndef MINITVM_LOWNUMPY_MANIP_H_
#define MINITVM_LOWNUMPY_MANIP_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/lownumpy/iteration.h"

namespace minitvm {
namespace lownumpy {

/*!
 * \brief The same elements in row-major order under a new shape; at most one entry may be -1
 * and is inferred. ValueError when the sizes differ.
 */
NDArray reshape(const NDArray& a, const Shape& newshape);
/*!
 * \brief Reorder the axes: output axis i is input axis axes[i]. Absent axes reverse them
 * (a transpose). ValueError unless axes is a permutation of the ndim axes.
 */
NDArray permute_dims(const NDArray& a, const std::optional<Shape>& axes = std::nullopt);
/*! \brief Merge axes start_axis..end_axis (inclusive) into one, as torch.flatten. */
NDArray flatten(const NDArray& a, int64_t start_axis = 0, int64_t end_axis = -1);
/*!
 * \brief Join arrays along an existing axis. All must have the same dtype and rank and agree
 * on every other axis; ValueError naming the first that does not.
 */
NDArray concatenate(const std::vector<NDArray>& arrays, int64_t axis = 0);
/*! \brief Split into `sections` equal parts along `axis`; ValueError when it does not divide. */
std::vector<NDArray> split(const NDArray& a, int64_t sections, int64_t axis = 0);
/*!
 * \brief Split before each of `indices` along `axis`: len(indices) + 1 parts, part i being
 * a[indices[i-1]:indices[i]] with Python's slice rules (negative indices count from the end,
 * indices beyond the axis clip, a reversed pair gives an empty part), as numpy.split.
 */
std::vector<NDArray> split(const NDArray& a, const Shape& indices, int64_t axis = 0);
/*! \brief Remove the given size-1 axes (all size-1 axes when absent); ValueError for others. */
NDArray squeeze(const NDArray& a, const std::optional<Shape>& axes = std::nullopt);
/*!
 * \brief Insert size-1 axes at the positions `axes` of the result (which has ndim + len(axes)
 * dimensions), as numpy.expand_dims.
 */
NDArray expand_dims(const NDArray& a, const Shape& axes);
/*! \brief Repeat the array to `shape` by the broadcasting rule; ValueError when it cannot. */
NDArray broadcast_to(const NDArray& a, const Shape& shape);
/*!
 * \brief Gather along `axis` (the flattened array when absent): out[i.., j.., k..] =
 * a[i.., indices[j..], k..]; the result's shape is a.shape[:axis] + indices.shape +
 * a.shape[axis+1:]. `indices` is int32 or int64. `mode` is "raise" (negative indices count
 * from the end; out-of-range ones raise ValueError), "wrap" (modulo) or "clip".
 */
NDArray take(const NDArray& a, const NDArray& indices, std::optional<int64_t> axis = std::nullopt,
             const std::string& mode = "raise");
/*!
 * \brief Pad each axis with pad_before[i] elements in front and pad_after[i] behind (both of
 * length ndim, non-negative). `mode` is "constant" (fill with pad_value), "edge" (repeat the
 * border element) or "reflect" (mirror about the border element without repeating it, again
 * and again for pads longer than the axis, as numpy.pad). Only "constant" can pad an empty
 * axis.
 */
NDArray pad(const NDArray& a, const Shape& pad_before, const Shape& pad_after,
            double pad_value = 0.0, const std::string& mode = "constant");

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_MANIP_H_
