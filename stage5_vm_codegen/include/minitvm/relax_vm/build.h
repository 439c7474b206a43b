/*!
 * \file minitvm/relax_vm/build.h
 * \brief Building a Relax module for the VM (stage 5): `tvm.compile` / `relax.build` and the
 * one-file export of an executable with its kernels.
 *
 * `Build(mod, target, relax_pipeline, tir_pipeline)`:
 *   1. the Relax pipeline: a Pass, a name (what the global "relax.get_pipeline" returns for
 *      it; "zero"/"default" fall back to LegalizeOps when no pipeline is registered) or None;
 *   2. the VM lowering pipeline (transform.h, `LoweringPipeline()`);
 *   3. the PrimFuncs → the TIR build of the target (`driver::Build`, pipeline `tir_pipeline`):
 *      the kernel library; the Relax functions → `CodeGenVM`: the executable;
 *   4. the kernel library becomes the executable's import.
 *
 * `ExportLibrary(exec, path)` writes one shared library: the kernels' object code plus the
 * executable's bytes in a data symbol (`kRootModuleSymbol`, framed as
 * "MTVMROOT" | u64 kind length | kind | u64 length | bytes), which `runtime.ModuleLoadFromFile`
 * (`tvm.runtime.load_module`) finds and turns back into the executable over the library.
 */
#ifndef MINITVM_RELAX_VM_BUILD_H_
#define MINITVM_RELAX_VM_BUILD_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/module.h"

namespace minitvm {
namespace relax_vm {

/*!
 * \brief Compile a module with Relax functions (and PrimFuncs) for `target` (a Target or a
 * string) into a "relax.Executable" module whose import is the kernel library.
 */
runtime::Module Build(IRModule mod, const runtime::Any& target,
                      const runtime::Any& relax_pipeline = runtime::Any("default"),
                      const runtime::Any& tir_pipeline = runtime::Any("default"));

/*!
 * \brief Write `exec` (a relax.Executable) and its kernel library to one shared library at
 * `path`. ValueError when the kernel library cannot be exported (not an "llvm" module).
 */
void ExportLibrary(const runtime::Module& exec, const std::string& path);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_BUILD_H_
