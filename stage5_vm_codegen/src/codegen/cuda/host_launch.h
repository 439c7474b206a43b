/*!
 * \file host_launch.h
 * \brief Running the host side of a lowered GPU module (stage 5): bind NDArray arguments to a
 * host PrimFunc's parameters, then walk its body — global allocations, scalar lets, serial
 * loops and `T.tvm_call_packed(kernel, args..., extents...)` launches — calling back for each
 * launch. The CUDA host module launches through the driver; the GPU-semantics checker runs the
 * kernel in its SIMT interpreter. One walker, so both see the same launches.
 */
#ifndef MINITVM_STAGE5_CODEGEN_CUDA_HOST_LAUNCH_H_
#define MINITVM_STAGE5_CODEGEN_CUDA_HOST_LAUNCH_H_

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/packed_func.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace codegen {

/*! \brief A value the host passes to a kernel: a buffer (pointer and size) or a scalar. */
struct HostValue {
  bool is_handle = false;
  void* ptr = nullptr;
  int64_t nbytes = 0;
  std::string name;  ///< the buffer's name, for messages
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
};

/*! \brief One kernel launch: grid (x, y, z), block (x, y, z) and the kernel's arguments. */
struct KernelLaunch {
  std::string kernel;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  std::vector<HostValue> args;
};

/*! \brief Callbacks of the host walker. */
struct HostCallbacks {
  /*! \brief Run one launch. */
  std::function<void(const KernelLaunch&)> launch;
  /*! \brief Allocate `nbytes` of global memory for an intermediate buffer (freed by `free`). */
  std::function<void*(const std::string& name, int64_t nbytes)> alloc;
  std::function<void(void*)> free;
};

/*!
 * \brief Run host function `host` (named `name` in messages) on `args`, which must live on
 * `device`. `launch_tags` gives each kernel's "tir.kernel_launch_params". TypeError/ValueError
 * for arguments that do not match the parameters (count, dtype, shape, device).
 */
void RunHostFunction(const tir::PrimFunc& host, const std::string& name, runtime::PackedArgs args,
                     runtime::Device device,
                     const std::map<std::string, std::vector<std::string>>& launch_tags,
                     const HostCallbacks& callbacks);

}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_STAGE5_CODEGEN_CUDA_HOST_LAUNCH_H_
