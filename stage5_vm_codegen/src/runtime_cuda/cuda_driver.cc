/*!
 * \file cuda_driver.cc
 * \brief The CUDA driver loaded with dlopen, and the CUDA DeviceAPI (stage 5): `tvm.cuda(0)`
 * memory, host↔device copies and synchronisation. `tvm.cuda(0).exist` is false where there is
 * no driver or no GPU; allocating there raises RuntimeError "no CUDA driver ..." /
 * "no CUDA device ...".
 */
#include "cuda_driver.h"

#include <dlfcn.h>

#include <mutex>
#include <sstream>

#include "minitvm/runtime/device.h"
#include "minitvm/runtime/error.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime_cuda {

namespace {

DriverAPI Load() {
  DriverAPI api{};
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    api.error = std::string("no CUDA driver: libcuda.so.1 could not be loaded (") +
                (why ? why : "unknown reason") +
                "); CUDA code can be built and checked here "
                "but not run";
    return api;
  }
  bool missing = false;
  std::string missing_name;
  auto sym = [&](auto* slot, const char* name) {
    void* p = dlsym(lib, name);
    if (!p && !missing) {
      missing = true;
      missing_name = name;
    }
    *reinterpret_cast<void**>(slot) = p;
  };
  sym(&api.cuInit, "cuInit");
  sym(&api.cuDeviceGetCount, "cuDeviceGetCount");
  sym(&api.cuDeviceGet, "cuDeviceGet");
  sym(&api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  sym(&api.cuCtxSetCurrent, "cuCtxSetCurrent");
  sym(&api.cuCtxSynchronize, "cuCtxSynchronize");
  sym(&api.cuMemAlloc, "cuMemAlloc_v2");
  sym(&api.cuMemFree, "cuMemFree_v2");
  sym(&api.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  sym(&api.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  sym(&api.cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  sym(&api.cuModuleLoadData, "cuModuleLoadData");
  sym(&api.cuModuleGetFunction, "cuModuleGetFunction");
  sym(&api.cuLaunchKernel, "cuLaunchKernel");
  sym(&api.cuGetErrorString, "cuGetErrorString");
  if (missing) {
    api.error = "no CUDA driver: libcuda.so.1 lacks " + missing_name;
    return api;
  }
  CUresult r = api.cuInit(0);
  if (r != 0) {
    api.error = "no CUDA driver: cuInit failed with error " + std::to_string(r) +
                " (is a GPU present and the driver loaded?)";
    return api;
  }
  api.cuDeviceGetCount(&api.device_count);
  return api;
}

}  // namespace

const DriverAPI& TryDriver() {
  static const DriverAPI api = Load();
  return api;
}

const DriverAPI& Driver() {
  const DriverAPI& api = TryDriver();
  if (!api.error.empty()) MINITVM_THROW(RuntimeError) << api.error;
  return api;
}

void Check(CUresult r, const char* what) {
  if (r == 0) return;
  const char* msg = nullptr;
  if (TryDriver().cuGetErrorString) TryDriver().cuGetErrorString(r, &msg);
  MINITVM_THROW(RuntimeError) << "CUDA: " << what << " failed: " << (msg ? msg : "error") << " ("
                              << r << ")";
}

void SetDevice(int id) {
  const DriverAPI& api = Driver();
  if (id < 0 || id >= api.device_count) {
    MINITVM_THROW(RuntimeError) << "no CUDA device " << id << ": the driver reports "
                                << api.device_count << " device(s)";
  }
  static std::mutex mutex;
  static CUcontext contexts[64] = {};
  std::lock_guard<std::mutex> lock(mutex);
  if (!contexts[id]) {
    CUdevice dev;
    Check(api.cuDeviceGet(&dev, id), "cuDeviceGet");
    Check(api.cuDevicePrimaryCtxRetain(&contexts[id], dev), "cuDevicePrimaryCtxRetain");
  }
  Check(api.cuCtxSetCurrent(contexts[id]), "cuCtxSetCurrent");
}

namespace {

/*! \brief `tvm.cuda(id)` memory through the driver API. */
class CUDADeviceAPI : public runtime::DeviceAPI {
 public:
  bool Exists(runtime::Device dev) override {
    const DriverAPI& api = TryDriver();
    return api.error.empty() && dev.device_id >= 0 && dev.device_id < api.device_count;
  }
  void* Alloc(runtime::Device dev, size_t nbytes, size_t) override {
    SetDevice(dev.device_id);
    CUdeviceptr p = 0;
    Check(Driver().cuMemAlloc(&p, nbytes == 0 ? 1 : nbytes), "cuMemAlloc");
    return reinterpret_cast<void*>(p);
  }
  void Free(runtime::Device dev, void* ptr) override {
    if (!TryDriver().error.empty()) return;
    SetDevice(dev.device_id);
    TryDriver().cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  }
  void Copy(const void* from, runtime::Device from_dev, void* to, runtime::Device to_dev,
            size_t nbytes) override {
    const DriverAPI& api = Driver();
    bool from_gpu = from_dev.device_type == kDLCUDA, to_gpu = to_dev.device_type == kDLCUDA;
    SetDevice(from_gpu ? from_dev.device_id : to_dev.device_id);
    auto d = [](const void* p) { return reinterpret_cast<CUdeviceptr>(p); };
    if (from_gpu && to_gpu) {
      Check(api.cuMemcpyDtoD(d(to), d(from), nbytes), "cuMemcpyDtoD");
    } else if (from_gpu) {
      Check(api.cuMemcpyDtoH(to, d(from), nbytes), "cuMemcpyDtoH");
    } else {
      Check(api.cuMemcpyHtoD(d(to), from, nbytes), "cuMemcpyHtoD");
    }
  }
  void Synchronize(runtime::Device dev) override {
    SetDevice(dev.device_id);
    Check(Driver().cuCtxSynchronize(), "cuCtxSynchronize");
  }
};

[[maybe_unused]] const bool kRegistered = [] {
  static CUDADeviceAPI api;
  runtime::DeviceAPI::Register(kDLCUDA, &api);
  return true;
}();

}  // namespace

// Why CUDA cannot run here ("" when it can): what tests print when they skip.
MINITVM_REGISTER_GLOBAL("runtime.cuda.DriverError").set_body_typed([]() {
  const DriverAPI& api = TryDriver();
  if (!api.error.empty()) return api.error;
  if (api.device_count == 0) return std::string("no CUDA device: the driver reports 0 devices");
  return std::string();
});

}  // namespace runtime_cuda
}  // namespace minitvm
