/*!
 * \file minitvm/te/create_prim_func.h
 * \brief `create_prim_func` (stage 2): turn tensor expressions into a block-based PrimFunc,
 * the form TensorIR schedules and the interpreter work on.
 *
 * For `te.create_prim_func([A, B, C])` the result is, as in TVM 0.20:
 *   - one parameter per listed tensor, in order, each bound to a `T.Buffer` named after it;
 *   - a root block (`T.block("root")`) that allocates the intermediate tensors (computes
 *     that are not listed);
 *   - for each compute, in dependence order, a nest of serial loops named after the
 *     compute's axes (`i, j` for a Python `lambda i, j`, `i0, i1` for `lambda *i`, `ax0` for
 *     C++), then reduction axes, around one block named after the compute whose iterators are
 *     `v_`-prefixed (`v_i`, spatial; `v_k`, reduction), with `T.reads`/`T.writes` detected
 *     from the body and, for reductions, a `T.init()`;
 *   - the attribute `{"tir.noalias": True}` only (TVM 0.20 no longer adds "global_symbol";
 *     the function takes its name from the IRModule key).
 */
#ifndef MINITVM_TE_CREATE_PRIM_FUNC_H_
#define MINITVM_TE_CREATE_PRIM_FUNC_H_

#include "minitvm/te/operation.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace te {

/*!
 * \brief Build the PrimFunc computing the listed tensors. Scalar `Var`s of symbolic shapes
 * stay free variables defined by the buffers' shapes. ValueError naming the tensor when a
 * placeholder that the outputs read is not in `arg_list`, or a tensor is listed twice.
 */
tir::PrimFunc CreatePrimFunc(const Array<Tensor>& arg_list);
/*!
 * \brief Like CreatePrimFunc, where the arguments may also be scalar `tir::Var`s (symbolic
 * sizes or scalar inputs), which become scalar parameters in place.
 */
tir::PrimFunc CreatePrimFuncFromArgs(const Array<ObjectRef>& args);

}  // namespace te
}  // namespace minitvm

#endif  // MINITVM_TE_CREATE_PRIM_FUNC_H_
