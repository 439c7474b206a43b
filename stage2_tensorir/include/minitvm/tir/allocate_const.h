/*!
 * \file allocate_const.h
 * \brief Stage 2: constant allocations (TVM's `T.allocate_const` / AllocateConst).
 *
 * minitvm keeps one allocation node: a constant allocation is a `tir.Allocate` whose
 * annotations hold its values under `kAllocateConstData` (an Array of IntImm/FloatImm of the
 * allocation's dtype, one per element, row-major). Every pass that already understands
 * `Allocate` keeps the values, structural equality compares them, the printer shows the
 * statement as `T.allocate_const(values, dtype, extents)`, the interpreter and the LLVM
 * backend initialise the memory with them.
 */
#ifndef MINITVM_TIR_ALLOCATE_CONST_H_
#define MINITVM_TIR_ALLOCATE_CONST_H_

#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace tir {

/*! \brief The annotation key that holds the values of a constant allocation. */
inline constexpr const char* kAllocateConstData = "tir.allocate_const_data";

/*! \brief The values of a constant allocation; empty for an ordinary one. */
Array<PrimExpr> AllocateConstData(const AllocateNode* op);

/*! \brief The annotations of an allocation without the constant values. */
Map<String, Any> AllocateConstUserAnnotations(const AllocateNode* op);

/*!
 * \brief Make a constant allocation of `dtype` with `extents` (integer constants) holding
 *        `data`, which must have one IntImm/FloatImm of `dtype` per element.
 */
Allocate MakeAllocateConst(Var buffer_var, DataType dtype, Array<PrimExpr> extents,
                           Array<PrimExpr> data, Stmt body, Map<String, Any> annotations = {});

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_ALLOCATE_CONST_H_
