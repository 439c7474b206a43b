/*!
 * \file minitvm/codegen/llvm.h
 * \brief Building TIR for the CPU with LLVM (stage 5): generate LLVM IR for a lowered IRModule,
 * optimise it at O3 for the target CPU and compile it with ORC's LLJIT into a runtime Module of
 * kind "llvm". Lowering (the TIR pipeline) is the build driver's step, not this backend's:
 * `driver::Build` / `minitvm.build` run the pipeline and then call "target.build.llvm".
 *
 * The module's functions are PackedFuncs taking NDArrays (and ints/floats for scalar
 * parameters). `GetSource("ll")` is the optimised LLVM IR, `GetSource("ll_unopt")` the IR as
 * generated, `GetSource("asm")` the assembly, `GetSource("tir")` the lowered TIR.
 * `SaveToFile(path)` writes by extension: `.so` a shared library (load it with
 * `runtime.ModuleLoadFromFile`), `.o`, `.ll`, `.bc`, `.s`.
 *
 * The global "target.build.llvm"(IRModule, target) is what `minitvm.build(mod, "llvm")` calls
 * after lowering; it refuses (ValueError) a PrimFunc that has not been through the pipeline.
 * No LLVM header is included here.
 */
#ifndef MINITVM_CODEGEN_LLVM_H_
#define MINITVM_CODEGEN_LLVM_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/module.h"

namespace minitvm {
namespace codegen {

/*!
 * \brief The C++ shortcut of `driver::Build(mod, target)`: lower the PrimFuncs not lowered yet
 * with the default TIR pipeline, then compile for an llvm target ("llvm -mcpu=native", ...).
 */
runtime::Module BuildLLVM(IRModule mod, const std::string& target = "llvm");
/*!
 * \brief Compile an already lowered `mod` for a Target object or string: what
 * "target.build.llvm" runs. ValueError for a PrimFunc without the packed API.
 */
runtime::Module BuildLoweredLLVM(IRModule mod, const runtime::Any& target);
/*! \brief The host CPU as LLVM names it, e.g. "znver5". */
std::string LLVMHostCPUName();
/*! \brief The host CPU's features, "+avx2,+fma,...". */
std::string LLVMHostCPUFeatures();

/*! \brief Times of the last steps of building a module (seconds). */
struct BuildStats {
  /*! \brief Running the TIR pipeline in BuildLLVM (0 when the driver lowered the module). */
  double lower_seconds = 0;
  /*! \brief Generating LLVM IR. */
  double codegen_seconds = 0;
  /*! \brief LLVM's optimisation pipeline. */
  double optimize_seconds = 0;
  /*! \brief JIT compilation (0 for a cross-compiled module). */
  double jit_seconds = 0;
};
/*! \brief The build times of an "llvm" module; ValueError for other modules. */
BuildStats GetBuildStats(const runtime::Module& mod);

}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_CODEGEN_LLVM_H_
