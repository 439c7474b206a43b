/*!
 * \file minitvm/relax_vm/codegen_vm.h
 * \brief VM code generation (stage 5): a lowered Relax module (after `LoweringPipeline()`,
 * transform.h) → the bytecode `Executable` (executable.h) that `relax.VirtualMachine` runs.
 *
 * One VM function per Relax function of the module (parameters in registers 0..n-1, then one
 * register per binding); a packed-function entry for every callee name (the "vm.builtin.*"
 * builtins, the kernels by their PrimFunc's "global_symbol", ExternFuncs); constants in the
 * pool (NDArrays of `Constant`s, static shapes as `relax::ShapeTuple`, strings, dtypes,
 * floats). Integer `PrimValue`s become immediates. A Relax `If` becomes: `read_if_cond` into a
 * register, `If`, the true branch (its result copied into the If's register), a `Goto` over
 * the false branch, the false branch (copied likewise).
 *
 * The kernel library (compiled PrimFuncs) is not made here: `tvm.compile` builds it from the
 * module's PrimFuncs and imports it into the executable.
 */
#ifndef MINITVM_RELAX_VM_CODEGEN_VM_H_
#define MINITVM_RELAX_VM_CODEGEN_VM_H_

#include "minitvm/ir/module.h"
#include "minitvm/relax_vm/executable.h"

namespace minitvm {
namespace relax_vm {

/*!
 * \brief Generate the executable of every Relax function of `lowered`. ValueError (naming the
 * function and the binding) for anything the lowering should have removed: a call of a Relax
 * operator other than the kills, a symbolic ShapeExpr, a dataflow construct the VM cannot run.
 */
runtime::ObjectPtr<ExecutableNode> CodeGenVM(const IRModule& lowered);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_CODEGEN_VM_H_
