// clang-format off
/*!
 * \file minitvm/tir/transform/gpu.h
 * \brief The TIR lowering passes for GPU targets (stage 5): what turns a scheduled PrimFunc
 * whose loops are bound to `blockIdx.*` / `threadIdx.*` into a host function that launches
 * device kernels. The CUDA pipeline ("target.tir_pipeline.cuda") is the default pipeline
 * without MakePackedAPI, followed by:
 *
 * | pass                      | what it does                                                    |
 * |---------------------------|-----------------------------------------------------------------|
 * | VerifyGPUCode             | threads per block, shared memory bytes, every loop bound to one thread axis has the same extent; ValueError listing every violation |
 * | ThreadSync("shared")      | inserts `T.tvm_storage_sync("shared")` (`__syncthreads()`) where one thread may read or overwrite shared memory that another thread wrote or read since the last barrier |
 * | SplitHostDevice           | each outermost thread-bound loop nest becomes a device PrimFunc (`main_kernel`, `main_kernel_1`, ...) whose parameters are the nest's free variables; the host calls it with `T.call_extern` |
 * | LowerDeviceKernelLaunch   | the host call becomes `T.tvm_call_packed(kernel, args..., launch extents...)` and the kernel gets the attribute "tir.kernel_launch_params" (the thread tags, in that order) |
 *
 * Device PrimFuncs carry the attributes "target" = "cuda", "calling_conv" = 2 (a kernel
 * launch) and "global_symbol".
 */
// clang-format on
#ifndef MINITVM_TIR_TRANSFORM_GPU_H_
#define MINITVM_TIR_TRANSFORM_GPU_H_

#include <string>
#include <vector>

#include "minitvm/ir/transform.h"
#include "minitvm/target/target.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace tir {

/*! \brief The limits VerifyGPUCode checks (from a cuda Target). */
struct GPULimits {
  int64_t max_threads_per_block = 1024;
  int64_t max_shared_memory_per_block = 49152;
  /*! \brief The limits of `target`'s attributes (defaults where absent). */
  static GPULimits FromTarget(const target::Target& target);
};

/*!
 * \brief Every violation of the GPU rules in `func`, one message per violation (empty: the
 * function is valid): threads per block, shared bytes, a thread axis bound to loops of
 * different extents, a thread-bound loop nested in a loop bound to the same axis.
 */
std::vector<std::string> VerifyGPUCodeErrors(const PrimFunc& func, const GPULimits& limits);

/*! \brief The launch geometry of a kernel: the extent of each thread tag. */
struct LaunchDims {
  /*! \brief Tag ("blockIdx.x", ..., "threadIdx.z") → extent, in TVM's order. */
  std::vector<std::pair<std::string, PrimExpr>> extents;
};

/*! \brief The launch geometry of a device kernel body (its thread-bound loops). */
LaunchDims CollectLaunchDims(const Stmt& kernel_body);

/*! \brief Name of the intrinsic `__syncthreads()`: `T.tvm_storage_sync("shared")`. */
constexpr const char* kStorageSyncOp = "tir.tvm_storage_sync";
/*! \brief Name of the host's kernel launch: `T.tvm_call_packed(name, args..., dims...)`. */
constexpr const char* kCallPackedOp = "tir.tvm_call_packed";
/*! \brief Function attribute of a device kernel: the thread tags of the launch extents. */
constexpr const char* kKernelLaunchParams = "tir.kernel_launch_params";
/*! \brief `calling_conv` of a device kernel (TVM's kDeviceKernelLaunch). */
constexpr int kDeviceKernelLaunch = 2;

namespace transform {

using minitvm::transform::Pass;

/*! \brief ValueError listing every violation of `limits` (see VerifyGPUCodeErrors). */
Pass VerifyGPUCode(GPULimits limits);
/*! \brief Insert `T.tvm_storage_sync(scope)` barriers where threads share memory of `scope`. */
Pass ThreadSync(std::string scope);
/*! \brief Outermost thread-bound loop nests become device kernels called from the host. */
Pass SplitHostDevice();
/*! \brief Host calls of kernels become `T.tvm_call_packed` with the launch extents. */
Pass LowerDeviceKernelLaunch();
/*! \brief The TIR pipeline of a cuda target, in order. */
Array<Pass> GetCUDATIRPipelinePasses(const target::Target& target);

}  // namespace transform
}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_TRANSFORM_GPU_H_
