/*!
 * \file minitvm/codegen/llvm.h
 * \brief Building TIR for the CPU with LLVM (stage 5): lower an IRModule with the default
 * TIR pipeline (unless it is already lowered), generate LLVM IR, optimise it at O3 for the
 * target CPU and compile it with ORC's LLJIT into a runtime Module of kind "llvm".
 *
 * The module's functions are PackedFuncs taking NDArrays (and ints/floats for scalar
 * parameters). `GetSource("ll")` is the optimised LLVM IR, `GetSource("ll_unopt")` the IR as
 * generated, `GetSource("asm")` the assembly, `GetSource("tir")` the lowered TIR.
 * `SaveToFile(path)` writes by extension: `.so` a shared library (load it with
 * `runtime.ModuleLoadFromFile`), `.o`, `.ll`, `.bc`, `.s`.
 *
 * The global "target.build.llvm"(IRModule, target) is what `minitvm.build(mod, "llvm")` calls.
 * No LLVM header is included here.
 */
#ifndef MINITVM_CODEGEN_LLVM_H_
#define MINITVM_CODEGEN_LLVM_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/module.h"

namespace minitvm {
namespace codegen {

/*! \brief Lower (if needed) and compile `mod` for an llvm target ("llvm -mcpu=native", ...). */
runtime::Module BuildLLVM(IRModule mod, const std::string& target = "llvm");
/*! \brief The same with a Target object or a string. */
runtime::Module BuildLLVMFromAny(IRModule mod, const runtime::Any& target);
/*! \brief The host CPU as LLVM names it, e.g. "znver5". */
std::string LLVMHostCPUName();
/*! \brief The host CPU's features, "+avx2,+fma,...". */
std::string LLVMHostCPUFeatures();

/*! \brief Times of the last steps of building a module (seconds). */
struct BuildStats {
  double lower_seconds = 0;
  double codegen_seconds = 0;
  double optimize_seconds = 0;
  double jit_seconds = 0;
};
/*! \brief The build times of an "llvm" module; ValueError for other modules. */
BuildStats GetBuildStats(const runtime::Module& mod);

}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_CODEGEN_LLVM_H_
