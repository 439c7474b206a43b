/*!
 * \file minitvm/codegen/cuda.h
 * \brief CUDA code generation and the CUDA runtime modules (stage 5).
 *
 * `tvm.build(mod, target="cuda")` runs the CUDA TIR pipeline (minitvm/tir/transform/gpu.h),
 * then "target.build.cuda" (`BuildCUDA`): every device kernel becomes readable CUDA C
 * (`CodeGenCUDA`), the whole source is compiled by NVRTC to PTX, and the result is a module of
 * kind "cuda_host" — the host functions, which bind NDArray arguments and launch kernels —
 * importing a module of kind "cuda" that holds the source (`get_source()`), the PTX
 * (`get_source("ptx")`) and the kernels. The kernels run through the CUDA driver API, loaded
 * with dlopen("libcuda.so.1") on first use, so the library starts on machines without a driver;
 * there, launching raises RuntimeError "no CUDA driver ...".
 *
 * NVRTC is optional at configure time: without the CUDA toolkit `BuildCUDA` raises a
 * ValueError saying so, and everything else in minitvm works.
 */
#ifndef MINITVM_CODEGEN_CUDA_H_
#define MINITVM_CODEGEN_CUDA_H_

#include <string>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/module.h"
#include "minitvm/target/target.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace codegen {

/*! \brief CUDA C for the device kernels of `mod` (PrimFuncs with "calling_conv" = 2). */
std::string CodeGenCUDA(const IRModule& mod, const target::Target& target);

/*! \brief Whether minitvm was built with NVRTC (the CUDA toolkit). */
bool NVRTCAvailable();

/*!
 * \brief Compile CUDA C to PTX with NVRTC for `arch` ("sm_80"). ValueError with NVRTC's log
 * when it fails, or when minitvm was built without the CUDA toolkit.
 */
std::string NVRTCCompile(const std::string& source, const std::string& arch);

/*!
 * \brief Build a lowered module (after the CUDA TIR pipeline) for `target`: host module of
 * kind "cuda_host" importing the kernel module of kind "cuda".
 */
runtime::Module BuildCUDA(const IRModule& mod, const target::Target& target);

}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_CODEGEN_CUDA_H_
