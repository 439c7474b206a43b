/*!
 * \file block_builder/struct_info_utils.h
 * \brief Private helpers on struct info shared by the BlockBuilder, the analyses and BindParams
 * (stage 4): substituting symbolic shape variables, binding a parameter's symbolic variables
 * from an argument's struct info, and which expressions count as leaves in normal form.
 */
#ifndef MINITVM_RELAX_SRC_BLOCK_BUILDER_STRUCT_INFO_UTILS_H_
#define MINITVM_RELAX_SRC_BLOCK_BUILDER_STRUCT_INFO_UTILS_H_

#include "minitvm/relax/expr.h"
#include "minitvm/tir/var.h"

namespace minitvm {
namespace relax {
namespace sinfo_util {

/*! \brief `e` with the variables of `vmap` replaced (simplified when anything changed). */
PrimExpr SubstitutePrim(const PrimExpr& e, const Map<tir::Var, PrimExpr>& vmap);

/*!
 * \brief `info` with every tir::Var of `vmap` replaced (shapes, prim values, nested tuples and
 * function signatures). Returns `info` itself when nothing changed.
 */
StructInfo Substitute(const StructInfo& info, const Map<tir::Var, PrimExpr>& vmap);

/*!
 * \brief Record in `bindings` the value of every symbolic variable that appears as a whole
 * dimension (or prim value) of `param` and is not bound yet, taking it from the matching place
 * of `arg`. Places that do not line up (other rank, other kind) are skipped.
 */
void BindSymbolicVars(const StructInfo& param, const StructInfo& arg,
                      Map<tir::Var, PrimExpr>* bindings);

/*!
 * \brief Whether `e` may stay an argument in normal form: variables, constants, shapes, prim
 * values, strings, dtypes, functions by name (GlobalVar, ExternFunc, Op) and tuples.
 */
bool IsLeafOrTuple(const Expr& e);

}  // namespace sinfo_util
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_SRC_BLOCK_BUILDER_STRUCT_INFO_UTILS_H_
