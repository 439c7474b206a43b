/*!
 * \file minitvm/runtime_cpu/backend_api.h
 * \brief The C ABI between generated CPU code and the minitvm runtime (stage 5).
 *
 * Every function the LLVM code generator emits for a PrimFunc has the packed signature
 * `MTVMBackendPackedCFunc`: an array of 8-byte values, their type codes and their count.
 * NDArrays arrive as `DLTensor*` (type code kMTVMArgDLTensor). The function returns 0, or -1
 * after calling the runtime's error hook with a message that starts with the error kind
 * ("ValueError: A.shape[0] is 7 but main expects 8").
 *
 * Generated code never links against the runtime directly: a module holds one global
 * function-pointer variable per runtime service (`__mtvm_backend_parallel_launch`, ...) that the
 * loader fills in, both for JIT-compiled modules and for shared libraries loaded with dlopen.
 * That keeps exported libraries free of unresolved symbols.
 */
#ifndef MINITVM_RUNTIME_CPU_BACKEND_API_H_
#define MINITVM_RUNTIME_CPU_BACKEND_API_H_

#include <stdint.h>

#include "minitvm/runtime/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Type codes of packed arguments seen by generated code (TVM's numbering). */
typedef enum {
  kMTVMArgInt = 0,
  kMTVMArgUInt = 1,
  kMTVMArgFloat = 2,
  kMTVMArgOpaqueHandle = 3,
  kMTVMArgNull = 4,
  kMTVMArgDataType = 5,
  kMTVMArgDevice = 6,
  kMTVMArgDLTensor = 7,
  kMTVMArgObject = 8,
  kMTVMArgStr = 11,
} MTVMArgTypeCode;

/*! \brief The signature of every function generated for a PrimFunc. */
typedef int32_t (*MTVMBackendPackedCFunc)(MTVMValue* args, int32_t* type_codes, int32_t num_args,
                                          MTVMValue* out_ret_value, int32_t* out_ret_tcode,
                                          void* resource_handle);

/*! \brief The body of a parallel loop: runs the share of task `task_id` out of `num_task`. */
typedef int32_t (*MTVMParallelLambda)(int32_t task_id, int32_t num_task, void* closure);

/*!
 * \brief Run `lambda(t, n, closure)` for t in [0, n) on the CPU thread pool and wait.
 * `num_task` 0 lets the runtime choose (ThreadPool::DefaultTaskCount: one task with one pool
 * thread, else several per thread, which the threads take as they become free; the lambda
 * must split its loop over any `num_task`). Returns 0, or -1 when a task failed.
 */
MTVM_DLL int32_t MTVMBackendParallelLaunch(MTVMParallelLambda lambda, void* closure,
                                           int32_t num_task);
/*! \brief Allocate a scratch buffer of `nbytes` aligned to `alignment`; NULL on failure. */
MTVM_DLL void* MTVMBackendAllocWorkspace(uint64_t nbytes, int32_t alignment);
/*! \brief Free a scratch buffer; returns 0. */
MTVM_DLL int32_t MTVMBackendFreeWorkspace(void* ptr);
/*!
 * \brief Record the error of a failed generated function (thread-local). `fmt` is the message;
 * each `{}` in it is replaced by the next value, `{type}` by the name of a packed type code,
 * `{dtype}` by a dtype built from the next three values (code, bits, lanes), and `{was}` by
 * "was" or "were" to agree with the last `{}` value ("{} {was} given": "1 was given").
 */
MTVM_DLL void MTVMBackendSetErrorFormatted(const char* fmt, int32_t num_values,
                                           const int64_t* values);
/*! \brief The message recorded by the last failed generated function on this thread. */
MTVM_DLL const char* MTVMBackendGetLastError(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#ifdef __cplusplus
namespace minitvm {
namespace runtime_cpu {

/*! \brief Names of the function-pointer variables every generated module defines. */
constexpr const char* kParallelLaunchSymbol = "__mtvm_backend_parallel_launch";
constexpr const char* kAllocWorkspaceSymbol = "__mtvm_backend_alloc_workspace";
constexpr const char* kFreeWorkspaceSymbol = "__mtvm_backend_free_workspace";
constexpr const char* kSetErrorSymbol = "__mtvm_backend_set_error_formatted";
/*!
 * \brief Name of the module description every generated module defines: a NUL-terminated
 * string "minitvm-module-v1\nentry=<name>\nfunctions=<f1>,<f2>,...\n".
 */
constexpr const char* kModuleInfoSymbol = "__mtvm_module_info";
/*! \brief First line of the module description (a version check for loaded libraries). */
constexpr const char* kModuleInfoMagic = "minitvm-module-v1";

}  // namespace runtime_cpu
}  // namespace minitvm
#endif

#endif  // MINITVM_RUNTIME_CPU_BACKEND_API_H_
