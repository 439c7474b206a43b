/*!
 * \file tir_utils.h
 * \brief Small TensorIR helpers the script printer and parser share (stage 2, private):
 * the extent of `[start, stop)` simplified just enough that `min:min + extent` reads back as the
 * same extent.
 */
#ifndef MINITVM_SCRIPT_TIR_UTILS_H_
#define MINITVM_SCRIPT_TIR_UTILS_H_

#include <string>

#include "minitvm/ir/structural.h"
#include "minitvm/tir/expr.h"

namespace minitvm {
namespace script {

/*!
 * \brief Deep equality of two expressions (variables and buffers by identity; undefined equals
 * undefined): the one in minitvm/ir/structural.h.
 */
using minitvm::ExprDeepEqual;

/*!
 * \brief `stop - start`, folded when both are constants or when `stop` is literally
 * `start + e` (then `e`), so that a printed `min:min + extent` parses back to `extent`.
 */
PrimExpr RangeExtent(const PrimExpr& start, const PrimExpr& stop);

/*!
 * \brief TVM's BufferRealize (`T.realize(buf[bounds], scope)`, a legacy pre-schedule form) is
 * kept as `AttrStmt(buffer, "realize_scope", scope, AttrStmt(BufferRegion(buffer, bounds),
 * "buffer_realize", condition, body))`: no new statement node for a form no pass lowers.
 */
inline constexpr const char* kBufferRealizeAttr = "buffer_realize";

/*! \brief True when `e` is the integer constant `value`. */
bool IsConstInt(const PrimExpr& e, int64_t value);

/*! \brief Python's reserved words, which cannot name a variable in a script. */
bool IsPythonKeyword(const std::string& name);

/*! \brief A Python identifier (non-ASCII bytes count as letters) that is not a keyword. */
bool IsPythonIdentifier(const std::string& name);

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_TIR_UTILS_H_
