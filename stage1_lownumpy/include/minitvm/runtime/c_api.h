/*!
 * \file minitvm/runtime/c_api.h
 * \brief The C ABI of minitvm (stage 1): the small boundary the Python extension crosses.
 *
 * Every function returns 0 on success and -1 on failure; after a failure,
 * `MTVMGetLastError` and `MTVMGetLastErrorKind` describe it (thread-local). Object handles
 * returned through this API carry one reference that the caller releases with
 * `MTVMObjectFree`.
 */
#ifndef MINITVM_RUNTIME_C_API_H_
#define MINITVM_RUNTIME_C_API_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MTVM_DLL __attribute__((visibility("default")))

/*! \brief Type codes of MTVMValue. */
typedef enum {
  kMTVMNull = 0,
  kMTVMInt = 1,
  kMTVMFloat = 2,
  kMTVMBool = 3,
  kMTVMDataType = 4,
  kMTVMDevice = 5,
  /*! \brief v_handle is an Object* (String, NDArray, PackedFunc, Module, IR node, ...). */
  kMTVMObject = 6,
  /*! \brief v_str is a NUL-terminated string; arguments only (it is copied into a String). */
  kMTVMStr = 7,
} MTVMTypeCode;

/*! \brief One argument or return value. */
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
} MTVMValue;

typedef void* MTVMFunctionHandle;
typedef void* MTVMObjectHandle;
typedef void* MTVMRetValueHandle;

/*! \brief A C callback that implements a packed function (used for Python callables). */
typedef int (*MTVMPackedCFunc)(const MTVMValue* args, const int* type_codes, int num_args,
                               MTVMRetValueHandle ret, void* resource_handle);
typedef void (*MTVMPackedCFuncFinalizer)(void* resource_handle);

/*! \brief The message of the last error on this thread. */
MTVM_DLL const char* MTVMGetLastError(void);
/*! \brief The kind of the last error ("ValueError", "ScheduleError.LoopsNotAChainError"). */
MTVM_DLL const char* MTVMGetLastErrorKind(void);
/*! \brief Set the last error (a callback does this before returning -1). */
MTVM_DLL void MTVMAPISetLastError(const char* kind, const char* message);

/*! \brief Look up a global function; *out is NULL when there is none. */
MTVM_DLL int MTVMFuncGetGlobal(const char* name, MTVMFunctionHandle* out);
/*! \brief Register (or, with override != 0, replace) a global function. */
MTVM_DLL int MTVMFuncRegisterGlobal(const char* name, MTVMFunctionHandle func, int override);
/*! \brief Remove a global function; *removed is set to 1 when it existed. */
MTVM_DLL int MTVMFuncRemoveGlobal(const char* name, int* removed);
/*! \brief All global names; the array stays valid until the next call on this thread. */
MTVM_DLL int MTVMFuncListGlobalNames(int* out_size, const char*** out_array);
/*!
 * \brief Call a packed function. A returned object (ret_type_code == kMTVMObject) carries a
 * reference the caller must free.
 */
MTVM_DLL int MTVMFuncCall(MTVMFunctionHandle func, const MTVMValue* args, const int* type_codes,
                          int num_args, MTVMValue* ret_val, int* ret_type_code);
/*! \brief Make a packed function from a C callback; `fin` runs when it is freed. */
MTVM_DLL int MTVMFuncCreateFromCFunc(MTVMPackedCFunc func, void* resource_handle,
                                     MTVMPackedCFuncFinalizer fin, MTVMFunctionHandle* out);
/*! \brief Set the return value from inside a callback (objects are retained). */
MTVM_DLL int MTVMCFuncSetReturn(MTVMRetValueHandle ret, const MTVMValue* value, int type_code);

/*! \brief Allocate a compact array. */
MTVM_DLL int MTVMArrayAlloc(const int64_t* shape, int ndim, DLDataType dtype, DLDevice device,
                            MTVMObjectHandle* out);
/*! \brief Release an array handle (the same as MTVMObjectFree). */
MTVM_DLL int MTVMArrayFree(MTVMObjectHandle handle);
/*! \brief A DLTensor aliasing the array; valid while the handle is held. */
MTVM_DLL int MTVMArrayGetDLTensor(MTVMObjectHandle handle, DLTensor* out);
/*! \brief Wrap a DLManagedTensor without copying (the array takes ownership). */
MTVM_DLL int MTVMArrayFromDLPack(DLManagedTensor* tensor, MTVMObjectHandle* out);
/*! \brief Export an array as a DLManagedTensor without copying. */
MTVM_DLL int MTVMArrayToDLPack(MTVMObjectHandle handle, DLManagedTensor** out);
/*! \brief Copy between two arrays (shapes and dtypes must match). */
MTVM_DLL int MTVMArrayCopyFromTo(MTVMObjectHandle from, MTVMObjectHandle to);

/*! \brief Add a reference to an object. */
MTVM_DLL int MTVMObjectRetain(MTVMObjectHandle handle);
/*! \brief Drop a reference to an object. */
MTVM_DLL int MTVMObjectFree(MTVMObjectHandle handle);
/*! \brief The type key of an object; the string lives as long as the process. */
MTVM_DLL int MTVMObjectGetTypeKey(MTVMObjectHandle handle, const char** out);
/*!
 * \brief The bytes of a String object ("runtime.String"); *data stays valid while the handle is
 * held. TypeError when the object is not a String. Strings cross the ABI as objects (their
 * bytes may contain NULs), so this is how a caller reads one.
 */
MTVM_DLL int MTVMStringGetData(MTVMObjectHandle handle, const char** data, int64_t* size);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // MINITVM_RUNTIME_C_API_H_
