/*!
 * \file cuda_driver.h
 * \brief The CUDA driver API, loaded at run time (stage 5): the few entry points minitvm uses,
 * resolved with dlopen("libcuda.so.1") on first use. Nothing links libcuda, so minitvm starts
 * on machines without a GPU driver; there `Driver()` raises RuntimeError "no CUDA driver ...".
 */
#ifndef MINITVM_STAGE5_RUNTIME_CUDA_CUDA_DRIVER_H_
#define MINITVM_STAGE5_RUNTIME_CUDA_CUDA_DRIVER_H_

#include <cstddef>
#include <string>

namespace minitvm {
namespace runtime_cuda {

// The driver's types as the ABI defines them (no cuda.h needed to build this file).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;

/*! \brief Driver entry points (null when the driver is absent). */
struct DriverAPI {
  CUresult (*cuInit)(unsigned int);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  /*! \brief Number of devices (0 when the driver is absent or initialisation failed). */
  int device_count = 0;
  /*! \brief Why the driver is unusable; empty when it is usable. */
  std::string error;
};

/*! \brief The driver, loaded once; `error` says why it is unusable. Never throws. */
const DriverAPI& TryDriver();
/*! \brief The driver, or RuntimeError "no CUDA driver (...)". */
const DriverAPI& Driver();
/*! \brief Throw RuntimeError naming `what` and the driver's message when `r` is an error. */
void Check(CUresult r, const char* what);
/*! \brief Make device `id`'s primary context current (RuntimeError when there is no device). */
void SetDevice(int id);

}  // namespace runtime_cuda
}  // namespace minitvm

#endif  // MINITVM_STAGE5_RUNTIME_CUDA_CUDA_DRIVER_H_
