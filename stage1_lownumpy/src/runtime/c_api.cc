/*!
 * \file c_api.cc
 * \brief The C ABI (stage 1): converts MTVMValue arrays to Any, calls into the registry and
 * turns every exception into an error code plus a thread-local message and kind.
 */
#include "minitvm/runtime/c_api.h"

#include <memory>
#include <string>
#include <vector>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"

using namespace minitvm;           // NOLINT(build/namespaces)
using namespace minitvm::runtime;  // NOLINT(build/namespaces)

namespace {

struct LastError {
  std::string kind;
  std::string message;
};
LastError& TLSError() {
  thread_local LastError error;
  return error;
}

/*! \brief Run `body`, turning exceptions into -1 and the thread's last error. */
template <typename F>
int Guard(F body) {
  try {
    body();
    return 0;
  } catch (const Error& e) {
    TLSError() = {e.kind(), e.what()};
  } catch (const std::bad_alloc&) {
    TLSError() = {"RuntimeError", "out of memory"};
  } catch (const std::exception& e) {
    TLSError() = {"InternalError", e.what()};
  }
  return -1;
}

Any ValueToAny(const MTVMValue& v, int code) {
  switch (code) {
    case kMTVMNull:
      return Any();
    case kMTVMInt:
      return Any(v.v_int64);
    case kMTVMFloat:
      return Any(v.v_float64);
    case kMTVMBool:
      return Any(v.v_int64 != 0);
    case kMTVMDataType:
      return Any(DataType(v.v_type));
    case kMTVMDevice:
      return Any(v.v_device);
    case kMTVMObject:
      return v.v_handle ? Any(ObjectRef(ObjectPtr<Object>(static_cast<Object*>(v.v_handle))))
                        : Any();
    case kMTVMStr:
      return Any(std::string(v.v_str ? v.v_str : ""));
    default:
      MINITVM_THROW(TypeError) << "unknown argument type code " << code;
  }
}

/*! \brief Convert an Any to a value; objects get a new reference owned by the receiver. */
void AnyToValue(const Any& a, MTVMValue* v, int* code) {
  switch (a.tag()) {
    case Any::kNull:
      *code = kMTVMNull;
      v->v_handle = nullptr;
      return;
    case Any::kInt:
      *code = kMTVMInt;
      v->v_int64 = a.raw_int();
      return;
    case Any::kBool:
      *code = kMTVMBool;
      v->v_int64 = a.raw_int();
      return;
    case Any::kFloat:
      *code = kMTVMFloat;
      v->v_float64 = a.raw_float();
      return;
    case Any::kDataType:
      *code = kMTVMDataType;
      v->v_type = a.raw_dtype();
      return;
    case Any::kDevice:
      *code = kMTVMDevice;
      v->v_device = a.raw_device();
      return;
    case Any::kObject: {
      *code = kMTVMObject;
      auto* obj = const_cast<Object*>(a.as_object());
      obj->IncRef();
      v->v_handle = obj;
      return;
    }
  }
}

/*! \brief What a C callback's return slot points at. */
struct RetSlot {
  Any value;
};

}  // namespace

extern "C" {

const char* MTVMGetLastError(void) { return TLSError().message.c_str(); }
const char* MTVMGetLastErrorKind(void) { return TLSError().kind.c_str(); }
void MTVMAPISetLastError(const char* kind, const char* message) {
  TLSError() = {kind ? kind : "RuntimeError", message ? message : ""};
}

int MTVMFuncGetGlobal(const char* name, MTVMFunctionHandle* out) {
  return Guard([&] {
    *out = nullptr;
    if (auto f = Registry::Get(name)) *out = PackedFunc(*f).release();
  });
}

int MTVMFuncRegisterGlobal(const char* name, MTVMFunctionHandle func, int override) {
  return Guard([&] {
    if (!func) MINITVM_THROW(ValueError) << "register_func: null function for \"" << name << "\"";
    PackedFunc f(ObjectPtr<Object>(static_cast<Object*>(func)));
    Registry::Register(name, override != 0).set_body(f);
  });
}

int MTVMFuncRemoveGlobal(const char* name, int* removed) {
  return Guard([&] { *removed = Registry::Remove(name) ? 1 : 0; });
}

int MTVMFuncListGlobalNames(int* out_size, const char*** out_array) {
  return Guard([&] {
    thread_local std::vector<std::string> names;
    thread_local std::vector<const char*> ptrs;
    names = Registry::ListNames();
    ptrs.clear();
    for (const auto& n : names) ptrs.push_back(n.c_str());
    *out_size = static_cast<int>(ptrs.size());
    *out_array = ptrs.data();
  });
}

int MTVMFuncCall(MTVMFunctionHandle func, const MTVMValue* args, const int* type_codes,
                 int num_args, MTVMValue* ret_val, int* ret_type_code) {
  return Guard([&] {
    if (!func) MINITVM_THROW(ValueError) << "call of a null function handle";
    auto* node = static_cast<Object*>(func);
    if (!node->IsInstance<PackedFuncObj>()) {
      MINITVM_THROW(TypeError) << "handle is a " << node->GetTypeKey() << ", not a function";
    }
    std::vector<Any> packed(num_args);
    for (int i = 0; i < num_args; ++i) packed[i] = ValueToAny(args[i], type_codes[i]);
    Any rv;
    static_cast<PackedFuncObj*>(node)->body(PackedArgs(packed.data(), num_args), &rv);
    AnyToValue(rv, ret_val, ret_type_code);
  });
}

int MTVMFuncCreateFromCFunc(MTVMPackedCFunc func, void* resource_handle,
                            MTVMPackedCFuncFinalizer fin, MTVMFunctionHandle* out) {
  return Guard([&] {
    // The resource is released (through `fin`) when the last copy of the closure goes.
    std::shared_ptr<void> resource(resource_handle, [fin](void* r) {
      if (fin) fin(r);
    });
    PackedFunc f(
        [func, resource](PackedArgs args, Any* rv) {
          std::vector<MTVMValue> values(args.size());
          std::vector<int> codes(args.size());
          for (int i = 0; i < args.size(); ++i) {
            // Borrowed references: the callee does not own them.
            AnyToValue(args[i], &values[i], &codes[i]);
          }
          RetSlot slot;
          int rc = func(values.data(), codes.data(), args.size(), &slot, resource.get());
          for (int i = 0; i < args.size(); ++i) {
            if (codes[i] == kMTVMObject) static_cast<Object*>(values[i].v_handle)->DecRef();
          }
          if (rc != 0) {
            LastError e = TLSError();
            MINITVM_THROW_KIND(e.kind) << e.message;
          }
          *rv = std::move(slot.value);
        },
        "<callback>");
    *out = f.release();
  });
}

int MTVMCFuncSetReturn(MTVMRetValueHandle ret, const MTVMValue* value, int type_code) {
  return Guard([&] {
    auto* slot = static_cast<RetSlot*>(ret);
    // ValueToAny takes its own reference to an object; the caller keeps the one it holds.
    slot->value = ValueToAny(*value, type_code);
  });
}

int MTVMArrayAlloc(const int64_t* shape, int ndim, DLDataType dtype, DLDevice device,
                   MTVMObjectHandle* out) {
  return Guard([&] {
    if (ndim < 0) MINITVM_THROW(ValueError) << "ndim must be >= 0, got " << ndim;
    std::vector<int64_t> s(shape, shape + ndim);
    *out = NDArray::Empty(s, DataType(dtype), device).release();
  });
}

int MTVMArrayFree(MTVMObjectHandle handle) { return MTVMObjectFree(handle); }

int MTVMArrayGetDLTensor(MTVMObjectHandle handle, DLTensor* out) {
  return Guard([&] {
    auto* node = static_cast<Object*>(handle);
    auto* arr = node ? dynamic_cast<NDArrayNode*>(node) : nullptr;
    if (!arr) MINITVM_THROW(TypeError) << "handle is not an NDArray";
    *out = arr->ToDLTensor();
  });
}

int MTVMArrayFromDLPack(DLManagedTensor* tensor, MTVMObjectHandle* out) {
  return Guard([&] { *out = NDArray::FromDLPack(tensor).release(); });
}

int MTVMArrayToDLPack(MTVMObjectHandle handle, DLManagedTensor** out) {
  return Guard([&] {
    auto* node = static_cast<Object*>(handle);
    if (!node || !node->IsInstance<NDArrayNode>()) MINITVM_THROW(TypeError) << "not an NDArray";
    NDArray arr{ObjectPtr<Object>(node)};
    *out = arr.ToDLPack();
  });
}

int MTVMArrayCopyFromTo(MTVMObjectHandle from, MTVMObjectHandle to) {
  return Guard([&] {
    auto* a = static_cast<Object*>(from);
    auto* b = static_cast<Object*>(to);
    if (!a || !b || !a->IsInstance<NDArrayNode>() || !b->IsInstance<NDArrayNode>()) {
      MINITVM_THROW(TypeError) << "copy: both handles must be NDArrays";
    }
    NDArray(ObjectPtr<Object>(b)).CopyFrom(NDArray(ObjectPtr<Object>(a)));
  });
}

int MTVMObjectRetain(MTVMObjectHandle handle) {
  return Guard([&] {
    if (handle) static_cast<Object*>(handle)->IncRef();
  });
}

int MTVMObjectFree(MTVMObjectHandle handle) {
  return Guard([&] {
    if (handle) static_cast<Object*>(handle)->DecRef();
  });
}

int MTVMObjectGetTypeKey(MTVMObjectHandle handle, const char** out) {
  return Guard([&] {
    if (!handle) MINITVM_THROW(ValueError) << "null object handle";
    thread_local std::string key;
    key = static_cast<Object*>(handle)->GetTypeKey();
    *out = key.c_str();
  });
}

int MTVMStringGetData(MTVMObjectHandle handle, const char** data, int64_t* size) {
  return Guard([&] {
    auto* node = static_cast<Object*>(handle);
    auto* str = node ? dynamic_cast<StringObj*>(node) : nullptr;
    if (!str) {
      MINITVM_THROW(TypeError) << "expected runtime.String but got "
                               << (node ? node->GetTypeKey() : std::string("None"));
    }
    *data = str->data.data();
    *size = static_cast<int64_t>(str->data.size());
  });
}

}  // extern "C"
