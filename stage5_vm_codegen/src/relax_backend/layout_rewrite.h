/*!
 * \file layout_rewrite.h
 * \brief Weight packing at compile time, the schedule rules' half (stage 5, internal). A PrimFunc
 * parameter listed in "layout_free_buffers" (relax.transform.AttachAttrLayoutFreeBuffers: it
 * receives a constant) may be read in any layout; the GEMM and conv2d rules then mark their
 * packing block "meta_schedule.layout_rewrite_preproc", and
 * relax.transform.SplitLayoutRewritePreproc moves it into a PrimFunc of its own that
 * FoldConstant evaluates once.
 */
#ifndef MINITVM_STAGE5_SRC_RELAX_BACKEND_LAYOUT_REWRITE_H_
#define MINITVM_STAGE5_SRC_RELAX_BACKEND_LAYOUT_REWRITE_H_

#include <string>

#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

/*! \brief The block annotation TVM's meta schedule gives a layout-rewrite preprocessing block. */
inline constexpr const char* kLayoutRewritePreproc = "meta_schedule.layout_rewrite_preproc";

/*!
 * \brief Whether parameter buffer `buf` of `func` is listed (by parameter index) in the
 * function's "layout_free_buffers" attribute.
 */
bool IsLayoutFreeBuffer(const tir::PrimFunc& func, const tir::Buffer& buf);

/*!
 * \brief `func` with block `block_name` annotated as layout-rewrite preprocessing, when that
 * block is the only block of its top-level loop nest and reads one parameter buffer and writes one
 * buffer of the root block (what SplitLayoutRewritePreproc can move out); else `func` unchanged.
 */
tir::PrimFunc MarkLayoutRewritePreproc(const tir::PrimFunc& func, const std::string& block_name);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_STAGE5_SRC_RELAX_BACKEND_LAYOUT_REWRITE_H_
