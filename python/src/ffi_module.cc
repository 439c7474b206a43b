/*!
 * \file ffi_module.cc
 * \brief The Python extension module `minitvm._ffi_core` (stage 1, Python front): the one
 * place where Python values become `MTVMValue`s and back.
 *
 * It crosses into C++ only through the C ABI of `minitvm/runtime/c_api.h`: look up a global
 * function, call it with a typed argument array, wrap a Python callable as a packed function,
 * and a handful of NDArray/DLPack and object-handle helpers. Everything else (reading fields,
 * printing, building Arrays and Maps) is a call of a registered global function.
 *
 * The Python package installs a few hooks here at import time (`set_hooks`): the table that
 * maps type keys to Python classes, the Device class, the error factory that turns an error
 * kind into a Python exception, the DataType factory and a fallback converter for values the
 * extension does not know (NumPy arrays and scalars).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <dlpack/dlpack.h>
#include <numpy/arrayobject.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "minitvm/runtime/c_api.h"

namespace {

/*! \brief Bytes per element of a NumPy dtype (NumPy 2 hides the field behind an accessor). */
inline npy_intp ElementSize(PyArray_Descr* descr) {
#if NPY_ABI_VERSION >= 0x02000000
  return PyDataType_ELSIZE(descr);
#else
  return descr->elsize;
#endif
}

// ---- hooks installed by the Python package ------------------------------------------------

/*! \brief Python objects the package hands over in `set_hooks`; all owned references. */
struct Hooks {
  PyObject* class_cache = nullptr;     // dict: type key -> Python class
  PyObject* class_resolver = nullptr;  // f(type_key) -> class (fills class_cache)
  PyObject* device_class = nullptr;    // Device(device_type, device_id)
  PyObject* error_factory = nullptr;   // f(kind, message) -> exception instance
  PyObject* dtype_factory = nullptr;   // f(code, bits, lanes) -> DataType (a str subclass)
  PyObject* fallback = nullptr;        // f(value) -> a convertible value, or NotImplemented
  PyObject* dtype_cache = nullptr;     // dict: packed (code, bits, lanes) -> DataType
};
Hooks g_hooks;

/*! \brief Global functions the extension itself calls, looked up once and never freed. */
MTVMFunctionHandle g_array_ctor = nullptr;
MTVMFunctionHandle g_map_ctor = nullptr;

// ---- errors ---------------------------------------------------------------------------------

/*! \brief Raise the Python exception for an error kind and message; returns nullptr. */
PyObject* RaiseKind(const char* kind, const std::string& message) {
  PyObject* msg =
      PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (!msg) return nullptr;
  if (g_hooks.error_factory) {
    PyObject* exc = PyObject_CallFunction(g_hooks.error_factory, "sO", kind, msg);
    Py_DECREF(msg);
    if (!exc) return nullptr;
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
    Py_DECREF(exc);
    return nullptr;
  }
  PyErr_Format(PyExc_RuntimeError, "%s: %U", kind, msg);
  Py_DECREF(msg);
  return nullptr;
}

/*! \brief Raise the last error of the C ABI on this thread; returns nullptr. */
PyObject* RaiseLastError() {
  std::string kind = MTVMGetLastErrorKind();
  std::string message = MTVMGetLastError();
  return RaiseKind(kind.c_str(), message);
}

/*!
 * \brief Record the pending Python exception as the C ABI's last error (inside a callback).
 *
 * The kind is the exception's `error_kind` attribute when it is a minitvm error (so a kind
 * such as "ScheduleError.LoopsNotAChainError" survives a trip through Python), otherwise
 * the name of its class ("KeyError", "ZeroDivisionError").
 */
void SetLastErrorFromPython() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::string kind = "RuntimeError";
  std::string message;
  if (value) {
    PyObject* k = PyObject_GetAttrString(value, "error_kind");
    if (k && PyUnicode_Check(k)) {
      kind = PyUnicode_AsUTF8(k);
    } else {
      PyErr_Clear();
      kind = reinterpret_cast<PyTypeObject*>(type)->tp_name;
      size_t dot = kind.rfind('.');  // "module.Class" for classes defined in Python
      if (dot != std::string::npos) kind = kind.substr(dot + 1);
    }
    Py_XDECREF(k);
    PyObject* s = PyObject_Str(value);
    if (s) {
      const char* text = PyUnicode_AsUTF8(s);
      if (text) message = text;
      Py_DECREF(s);
    }
    PyErr_Clear();
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  MTVMAPISetLastError(kind.c_str(), message.c_str());
}

// ---- ObjectBase: a Python object that owns one reference to a C++ object -------------------

/*! \brief The C layout of every minitvm Python object: one owned handle. */
struct ObjectBaseObj {
  PyObject_HEAD void* handle;
};

void ObjectBaseDealloc(PyObject* self) {
  auto* o = reinterpret_cast<ObjectBaseObj*>(self);
  if (o->handle) {
    void* h = o->handle;
    o->handle = nullptr;
    MTVMObjectFree(h);
  }
  Py_TYPE(self)->tp_free(self);
}

PyObject* ObjectBaseGetHandle(PyObject* self, void*) {
  void* h = reinterpret_cast<ObjectBaseObj*>(self)->handle;
  if (!h) Py_RETURN_NONE;
  return PyLong_FromVoidPtr(h);
}

PyObject* InitHandleByConstructor(PyObject* self, PyObject* args);

PyGetSetDef g_object_getset[] = {
    {"handle", ObjectBaseGetHandle, nullptr,
     "The address of the C++ object (an int), or None for an empty handle.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef g_object_methods[] = {
    {"__init_handle_by_constructor__", InitHandleByConstructor, METH_VARARGS,
     "__init_handle_by_constructor__(fconstructor, *args)\n\n"
     "Call the packed function `fconstructor` with `args` and make this Python object own the\n"
     "C++ object it returns. Node classes call it from `__init__`."},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject g_object_base_type = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject g_packed_func_base_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

bool IsObjectBase(PyObject* v) { return PyObject_TypeCheck(v, &g_object_base_type); }
void* HandleOf(PyObject* v) { return reinterpret_cast<ObjectBaseObj*>(v)->handle; }

/*! \brief The message for a wrapper whose __init__ never ran (it holds a null handle). */
std::string NoHandleMessage(PyObject* v) {
  return std::string("this ") + Py_TYPE(v)->tp_name +
         " is not initialised: it holds no C++ object (its handle is None), so minitvm cannot "
         "use it";
}

/*! \brief TypeError: `v` is not a usable object (`expected` says what was wanted). */
PyObject* RaiseNotUsable(PyObject* v, const std::string& expected);

// ---- C++ → Python ---------------------------------------------------------------------------

/*! \brief The Python class for a type key (a new reference): the cache, else the resolver. */
PyObject* LookupClass(const char* type_key) {
  PyObject* cls = nullptr;
  if (g_hooks.class_cache) {
    cls = PyDict_GetItemString(g_hooks.class_cache, type_key);
    Py_XINCREF(cls);
  }
  if (!cls && !g_hooks.class_resolver) {
    cls = reinterpret_cast<PyObject*>(&g_object_base_type);
    Py_INCREF(cls);
  }
  if (!cls) {
    cls = PyObject_CallFunction(g_hooks.class_resolver, "s", type_key);  // fills the cache
    if (!cls) return nullptr;
  }
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &g_object_base_type)) {
    Py_DECREF(cls);
    PyErr_Format(PyExc_TypeError, "the class registered for %s does not derive from ObjectBase",
                 type_key);
    return nullptr;
  }
  return cls;
}

/*!
 * \brief Wrap an owned object handle as a Python value (the handle's reference moves in).
 *
 * Strings become Python str; every other object becomes an instance of the class registered
 * for its type key (or the nearest registered ancestor), created without calling __init__.
 */
PyObject* MakeObject(void* handle) {
  if (!handle) Py_RETURN_NONE;
  const char* key_ptr = nullptr;
  if (MTVMObjectGetTypeKey(handle, &key_ptr) != 0) {
    MTVMObjectFree(handle);
    return RaiseLastError();
  }
  std::string key = key_ptr;
  if (key == "runtime.String") {
    const char* data = nullptr;
    int64_t size = 0;
    if (MTVMStringGetData(handle, &data, &size) != 0) {
      MTVMObjectFree(handle);
      return RaiseLastError();
    }
    PyObject* s = PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(size), "surrogateescape");
    MTVMObjectFree(handle);
    return s;
  }
  PyObject* cls = LookupClass(key.c_str());
  if (!cls) {
    MTVMObjectFree(handle);
    return nullptr;
  }
  auto* tp = reinterpret_cast<PyTypeObject*>(cls);
  PyObject* obj = tp->tp_alloc(tp, 0);
  Py_DECREF(cls);  // the instance holds its type
  if (!obj) {
    MTVMObjectFree(handle);
    return nullptr;
  }
  reinterpret_cast<ObjectBaseObj*>(obj)->handle = handle;
  return obj;
}

PyObject* MakeDataType(DLDataType t) {
  int64_t packed = static_cast<int64_t>(t.code) | (static_cast<int64_t>(t.bits) << 8) |
                   (static_cast<int64_t>(t.lanes) << 16);
  PyObject* key = PyLong_FromLongLong(packed);
  if (!key) return nullptr;
  if (g_hooks.dtype_cache) {
    PyObject* hit = PyDict_GetItem(g_hooks.dtype_cache, key);
    if (hit) {
      Py_DECREF(key);
      Py_INCREF(hit);
      return hit;
    }
  }
  PyObject* dtype;
  if (g_hooks.dtype_factory) {
    dtype = PyObject_CallFunction(g_hooks.dtype_factory, "iii", static_cast<int>(t.code),
                                  static_cast<int>(t.bits), static_cast<int>(t.lanes));
  } else {
    dtype = Py_BuildValue("(iii)", static_cast<int>(t.code), static_cast<int>(t.bits),
                          static_cast<int>(t.lanes));
  }
  if (dtype && g_hooks.dtype_cache) PyDict_SetItem(g_hooks.dtype_cache, key, dtype);
  Py_DECREF(key);
  return dtype;
}

PyObject* MakeDevice(DLDevice d) {
  if (!g_hooks.device_class) return Py_BuildValue("(ii)", d.device_type, d.device_id);
  return PyObject_CallFunction(g_hooks.device_class, "ii", static_cast<int>(d.device_type),
                               d.device_id);
}

/*!
 * \brief Convert one value to Python. `owned` says whether an object handle carries a
 * reference for us (a return value) or is borrowed (a callback argument: we add one).
 */
PyObject* ValueToPy(const MTVMValue& v, int code, bool owned) {
  switch (code) {
    case kMTVMNull:
      Py_RETURN_NONE;
    case kMTVMInt:
      return PyLong_FromLongLong(v.v_int64);
    case kMTVMFloat:
      return PyFloat_FromDouble(v.v_float64);
    case kMTVMBool:
      return PyBool_FromLong(v.v_int64 != 0);
    case kMTVMDataType:
      return MakeDataType(v.v_type);
    case kMTVMDevice:
      return MakeDevice(v.v_device);
    case kMTVMStr:
      return PyUnicode_DecodeUTF8(v.v_str, static_cast<Py_ssize_t>(std::strlen(v.v_str)),
                                  "surrogateescape");
    case kMTVMObject:
      if (!v.v_handle) Py_RETURN_NONE;
      if (!owned && MTVMObjectRetain(v.v_handle) != 0) return RaiseLastError();
      return MakeObject(v.v_handle);
    default:
      return RaiseKind("InternalError", "unknown type code " + std::to_string(code));
  }
}

// ---- Python → C++ ---------------------------------------------------------------------------

MTVMFunctionHandle GetGlobalOrNull(const char* name) {
  MTVMFunctionHandle f = nullptr;
  if (MTVMFuncGetGlobal(name, &f) != 0) return nullptr;
  return f;
}

int PythonCallback(const MTVMValue* args, const int* type_codes, int num_args,
                   MTVMRetValueHandle ret, void* resource);
void PythonCallbackFinalizer(void* resource);

/*! \brief Wrap a Python callable as a packed function; returns an owned handle or nullptr. */
MTVMFunctionHandle CallableToFunction(PyObject* callable) {
  MTVMFunctionHandle f = nullptr;
  Py_INCREF(callable);  // released by the finalizer when the C++ side drops the function
  if (MTVMFuncCreateFromCFunc(PythonCallback, callable, PythonCallbackFinalizer, &f) != 0) {
    Py_DECREF(callable);
    RaiseLastError();
    return nullptr;
  }
  return f;
}

/*!
 * \brief The packed arguments of one call, with everything they borrow.
 *
 * Strings point into Python str objects (kept alive in `keep` when they are temporaries);
 * Arrays, Maps and wrapped callables are made for this call and released afterwards in
 * `owned` — a callee that keeps one has taken its own reference.
 */
class ArgStack {
 public:
  ArgStack() = default;
  ArgStack(const ArgStack&) = delete;
  ~ArgStack() {
    for (void* h : owned_) MTVMObjectFree(h);
    for (PyObject* o : keep_) Py_DECREF(o);
  }
  /*! \brief Append one Python value; false with a Python exception set on failure. */
  bool Push(PyObject* value, int index) {
    MTVMValue v;
    int code;
    if (!Convert(value, &v, &code, index, 0, true)) return false;
    values_.push_back(v);
    codes_.push_back(code);
    return true;
  }
  const MTVMValue* values() const { return values_.data(); }
  const int* codes() const { return codes_.data(); }
  int size() const { return static_cast<int>(values_.size()); }

 private:
  bool TypeErrorFor(PyObject* value, int index) {
    std::string msg = "cannot convert " +
                      (index >= 0 ? "argument " + std::to_string(index) : std::string("a value")) +
                      " of type '" + Py_TYPE(value)->tp_name +
                      "' to a minitvm value (expected None, bool, int, float, str, a minitvm "
                      "object, a Device, a list, tuple or dict of those, a callable or a NumPy "
                      "array)";
    RaiseKind("TypeError", msg);
    return false;
  }

  /*! \brief Call a container constructor with the converted items; keeps the result. */
  bool BuildContainer(MTVMFunctionHandle* ctor, const char* name, ArgStack* items, MTVMValue* out,
                      int* code) {
    if (!*ctor) *ctor = GetGlobalOrNull(name);
    if (!*ctor) {
      RaiseKind("InternalError", std::string("global function ") + name + " is not registered");
      return false;
    }
    MTVMValue ret;
    int ret_code;
    if (MTVMFuncCall(*ctor, items->values(), items->codes(), items->size(), &ret, &ret_code) != 0) {
      RaiseLastError();
      return false;
    }
    owned_.push_back(ret.v_handle);
    *out = ret;
    *code = ret_code;
    return true;
  }

  bool Convert(PyObject* value, MTVMValue* out, int* code, int index, int depth,
               bool allow_fallback) {
    if (depth > 100) {
      RaiseKind("ValueError", "value nested too deeply to convert (a cycle?)");
      return false;
    }
    if (value == Py_None) {
      *code = kMTVMNull;
      out->v_handle = nullptr;
      return true;
    }
    if (PyBool_Check(value)) {
      *code = kMTVMBool;
      out->v_int64 = value == Py_True ? 1 : 0;
      return true;
    }
    if (PyLong_Check(value)) {
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
      if (overflow) {
        RaiseKind("ValueError",
                  "integer does not fit in int64 (argument " + std::to_string(index) + ")");
        return false;
      }
      if (x == -1 && PyErr_Occurred()) return false;
      *code = kMTVMInt;
      out->v_int64 = x;
      return true;
    }
    if (PyFloat_Check(value)) {
      *code = kMTVMFloat;
      out->v_float64 = PyFloat_AsDouble(value);
      return true;
    }
    if (PyUnicode_Check(value)) {
      Py_ssize_t size = 0;
      const char* s = PyUnicode_AsUTF8AndSize(value, &size);
      if (!s) {
        // Lone surrogates (undecodable bytes of a file name) go back to their bytes, the
        // inverse of the "surrogateescape" decoding of strings that C++ returns.
        PyErr_Clear();
        PyObject* bytes = PyUnicode_AsEncodedString(value, "utf-8", "surrogateescape");
        if (!bytes) return false;
        keep_.push_back(bytes);
        s = PyBytes_AS_STRING(bytes);
        size = PyBytes_GET_SIZE(bytes);
      }
      if (std::strlen(s) != static_cast<size_t>(size)) {
        RaiseKind("ValueError", "strings passed to minitvm cannot contain NUL characters");
        return false;
      }
      *code = kMTVMStr;
      out->v_str = s;
      return true;
    }
    if (IsObjectBase(value)) {
      void* h = HandleOf(value);
      if (!h) {
        // A wrapper whose __init__ never ran (or failed): refuse it here, at the one place
        // every call passes, instead of letting C++ receive a null object.
        std::string where = index >= 0 ? "argument " + std::to_string(index) + ": " : "";
        RaiseKind("TypeError", where + NoHandleMessage(value));
        return false;
      }
      *code = kMTVMObject;
      out->v_handle = h;
      return true;
    }
    if (g_hooks.device_class) {
      int is_device = PyObject_IsInstance(value, g_hooks.device_class);
      if (is_device < 0) return false;
      if (is_device) return ConvertDevice(value, out, code);
    }
    if (PyList_Check(value) || PyTuple_Check(value)) {
      PyObject* seq = PySequence_Fast(value, "expected a sequence");
      if (!seq) return false;
      ArgStack items;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
      PyObject** elems = PySequence_Fast_ITEMS(seq);
      bool ok = true;
      for (Py_ssize_t i = 0; ok && i < n; ++i) {
        MTVMValue v;
        int c;
        ok = items.Convert(elems[i], &v, &c, index, depth + 1, true);
        if (ok) {
          items.values_.push_back(v);
          items.codes_.push_back(c);
        }
      }
      if (ok) ok = BuildContainer(&g_array_ctor, "runtime.Array", &items, out, code);
      Py_DECREF(seq);
      return ok;
    }
    if (PyDict_Check(value)) {
      ArgStack items;
      PyObject *k, *v;
      Py_ssize_t pos = 0;
      while (PyDict_Next(value, &pos, &k, &v)) {
        for (PyObject* item : {k, v}) {
          MTVMValue mv;
          int c;
          if (!items.Convert(item, &mv, &c, index, depth + 1, true)) return false;
          items.values_.push_back(mv);
          items.codes_.push_back(c);
        }
      }
      return BuildContainer(&g_map_ctor, "runtime.Map", &items, out, code);
    }
    if (allow_fallback && g_hooks.fallback) {
      PyObject* converted = PyObject_CallOneArg(g_hooks.fallback, value);
      if (!converted) return false;
      if (converted != Py_NotImplemented && converted != value) {
        keep_.push_back(converted);  // a temporary (e.g. an NDArray copy of a NumPy array)
        return Convert(converted, out, code, index, depth + 1, false);
      }
      Py_DECREF(converted);
    }
    if (PyCallable_Check(value)) {
      MTVMFunctionHandle f = CallableToFunction(value);
      if (!f) return false;
      owned_.push_back(f);
      *code = kMTVMObject;
      out->v_handle = f;
      return true;
    }
    return TypeErrorFor(value, index);
  }

  static bool ConvertDevice(PyObject* value, MTVMValue* out, int* code) {
    PyObject* t = PyObject_GetAttrString(value, "device_type");
    PyObject* i = t ? PyObject_GetAttrString(value, "device_id") : nullptr;
    bool ok = t && i;
    if (ok) {
      // Only DLPack's device types may enter a DLDeviceType (another value is UB to load).
      long type = PyLong_AsLong(t);
      if (!PyErr_Occurred() && (type < kDLCPU || type > kDLCUDAManaged || type == 5 || type == 6)) {
        PyErr_Format(PyExc_ValueError, "device_type %ld is not a DLPack device type", type);
        ok = false;
      }
    }
    if (ok) {
      out->v_device.device_type = static_cast<DLDeviceType>(PyLong_AsLong(t));
      out->v_device.device_id = static_cast<int32_t>(PyLong_AsLong(i));
      ok = !PyErr_Occurred();
    }
    Py_XDECREF(t);
    Py_XDECREF(i);
    *code = kMTVMDevice;
    return ok;
  }

  std::vector<MTVMValue> values_;
  std::vector<int> codes_;
  std::vector<void*> owned_;
  std::vector<PyObject*> keep_;
};

/*! \brief Call a packed function with Python arguments; returns the converted result. */
PyObject* CallFunction(MTVMFunctionHandle f, PyObject* const* args, Py_ssize_t nargs) {
  if (!f) return RaiseKind("ValueError", "call of an empty PackedFunc handle");
  ArgStack stack;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (!stack.Push(args[i], static_cast<int>(i))) return nullptr;
  }
  MTVMValue ret;
  int ret_code = kMTVMNull;
  int rc;
  // The GIL is released while C++ runs; a Python callback takes it back (PythonCallback).
  Py_BEGIN_ALLOW_THREADS;
  rc = MTVMFuncCall(f, stack.values(), stack.codes(), stack.size(), &ret, &ret_code);
  Py_END_ALLOW_THREADS;
  if (rc != 0) return RaiseLastError();
  return ValueToPy(ret, ret_code, true);
}

// ---- Python callables called from C++ -------------------------------------------------------

int PythonCallback(const MTVMValue* args, const int* type_codes, int num_args,
                   MTVMRetValueHandle ret, void* resource) {
  PyGILState_STATE gil = PyGILState_Ensure();
  auto* callable = static_cast<PyObject*>(resource);
  int rc = -1;
  PyObject* result = nullptr;
  PyObject* py_args = PyTuple_New(num_args);
  if (py_args) {
    bool ok = true;
    for (int i = 0; ok && i < num_args; ++i) {
      PyObject* a = ValueToPy(args[i], type_codes[i], /*owned=*/false);
      if (!a) {
        ok = false;
      } else {
        PyTuple_SET_ITEM(py_args, i, a);
      }
    }
    if (ok) result = PyObject_Call(callable, py_args, nullptr);
    Py_DECREF(py_args);
  }
  if (result) {
    ArgStack stack;
    if (stack.Push(result, -1)) {
      // MTVMCFuncSetReturn takes its own reference to an object; the stack frees ours.
      if (MTVMCFuncSetReturn(ret, stack.values(), stack.codes()[0]) == 0) {
        rc = 0;
      } else {
        RaiseLastError();
      }
    }
    Py_DECREF(result);
  }
  if (rc != 0) SetLastErrorFromPython();
  PyGILState_Release(gil);
  return rc;
}

void PythonCallbackFinalizer(void* resource) {
  // A function may outlive the interpreter (held by a C++ static); then it leaks the callable.
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(resource));
  PyGILState_Release(gil);
}

// ---- PackedFuncBase: ObjectBase plus __call__ -----------------------------------------------

PyObject* PackedFuncCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (kwargs && PyDict_Size(kwargs) > 0) {
    // Name the function (the package sets `_name` where it knows it) and the keywords.
    std::string name = "a packed function";
    if (PyObject* n = PyObject_GetAttrString(self, "_name")) {
      const char* u = PyUnicode_Check(n) ? PyUnicode_AsUTF8(n) : nullptr;
      if (u) name = std::string("packed function \"") + u + "\"";
      PyErr_Clear();
      Py_DECREF(n);
    } else {
      PyErr_Clear();
    }
    std::string keys;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      const char* k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
      if (!k) PyErr_Clear();
      keys += std::string(keys.empty() ? "" : ", ") + (k ? k : "?");
    }
    return RaiseKind("TypeError", name + " takes positional arguments only, got keyword " +
                                      "argument(s) " + keys);
  }
  return CallFunction(HandleOf(self), &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args));
}

PyObject* InitHandleByConstructor(PyObject* self, PyObject* args) {
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n < 1 || !IsObjectBase(PyTuple_GET_ITEM(args, 0))) {
    return RaiseKind("TypeError",
                     "__init_handle_by_constructor__ expects a PackedFunc as first argument");
  }
  PyObject* f = PyTuple_GET_ITEM(args, 0);
  ArgStack stack;
  for (Py_ssize_t i = 1; i < n; ++i) {
    if (!stack.Push(PyTuple_GET_ITEM(args, i), static_cast<int>(i - 1))) return nullptr;
  }
  MTVMValue ret;
  int ret_code = kMTVMNull;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = MTVMFuncCall(HandleOf(f), stack.values(), stack.codes(), stack.size(), &ret, &ret_code);
  Py_END_ALLOW_THREADS;
  if (rc != 0) return RaiseLastError();
  if (ret_code != kMTVMObject || !ret.v_handle) {
    PyObject* r = ValueToPy(ret, ret_code, true);
    Py_XDECREF(r);
    return RaiseKind("TypeError", "a constructor must return an object");
  }
  auto* o = reinterpret_cast<ObjectBaseObj*>(self);
  void* old = o->handle;
  o->handle = ret.v_handle;
  if (old) MTVMObjectFree(old);
  Py_RETURN_NONE;
}

// ---- module functions -----------------------------------------------------------------------

PyObject* PySetHooks(PyObject*, PyObject* args, PyObject* kwargs) {
  if (PyTuple_GET_SIZE(args) != 0) return RaiseKind("TypeError", "set_hooks takes keywords only");
  if (!kwargs) Py_RETURN_NONE;
  struct Slot {
    const char* name;
    PyObject** target;
  };
  Slot slots[] = {{"class_cache", &g_hooks.class_cache},
                  {"class_resolver", &g_hooks.class_resolver},
                  {"device_class", &g_hooks.device_class},
                  {"error_factory", &g_hooks.error_factory},
                  {"dtype_factory", &g_hooks.dtype_factory},
                  {"dtype_cache", &g_hooks.dtype_cache},
                  {"fallback", &g_hooks.fallback}};
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    const char* name = PyUnicode_AsUTF8(key);
    if (!name) return nullptr;
    bool found = false;
    for (Slot& s : slots) {
      if (std::strcmp(s.name, name) != 0) continue;
      found = true;
      Py_INCREF(value);
      Py_XSETREF(*s.target, value);
    }
    if (!found) return PyErr_Format(PyExc_TypeError, "set_hooks: unknown hook %s", name);
  }
  Py_RETURN_NONE;
}

PyObject* PyGetGlobal(PyObject*, PyObject* arg) {
  const char* name = PyUnicode_AsUTF8(arg);
  if (!name) return nullptr;
  MTVMFunctionHandle f = nullptr;
  if (MTVMFuncGetGlobal(name, &f) != 0) return RaiseLastError();
  return MakeObject(f);  // None when missing
}

PyObject* PyRegisterGlobal(PyObject*, PyObject* args) {
  const char* name;
  PyObject* func;
  int override = 0;
  if (!PyArg_ParseTuple(args, "sO|p", &name, &func, &override)) return nullptr;
  MTVMFunctionHandle f = nullptr;
  bool made = false;
  if (IsObjectBase(func)) {
    f = HandleOf(func);
  } else if (PyCallable_Check(func)) {
    f = CallableToFunction(func);
    if (!f) return nullptr;
    made = true;
  } else {
    return RaiseKind("TypeError", std::string("register_func: \"") + name +
                                      "\" must be given a callable, not '" +
                                      Py_TYPE(func)->tp_name + "'");
  }
  int rc = MTVMFuncRegisterGlobal(name, f, override);
  if (made) MTVMObjectFree(f);  // the registry holds its own reference
  if (rc != 0) return RaiseLastError();
  Py_RETURN_NONE;
}

PyObject* PyRemoveGlobal(PyObject*, PyObject* arg) {
  const char* name = PyUnicode_AsUTF8(arg);
  if (!name) return nullptr;
  int removed = 0;
  if (MTVMFuncRemoveGlobal(name, &removed) != 0) return RaiseLastError();
  return PyBool_FromLong(removed);
}

PyObject* PyListGlobalNames(PyObject*, PyObject*) {
  int size = 0;
  const char** names = nullptr;
  if (MTVMFuncListGlobalNames(&size, &names) != 0) return RaiseLastError();
  PyObject* list = PyList_New(size);
  if (!list) return nullptr;
  for (int i = 0; i < size; ++i) {
    PyObject* s = PyUnicode_FromString(names[i]);
    if (!s) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, s);
  }
  return list;
}

PyObject* RaiseNotUsable(PyObject* v, const std::string& expected) {
  if (IsObjectBase(v) && !HandleOf(v)) return RaiseKind("TypeError", NoHandleMessage(v));
  return RaiseKind("TypeError", expected);
}

PyObject* PyMakePackedFunc(PyObject*, PyObject* arg) {
  if (!PyCallable_Check(arg)) return RaiseKind("TypeError", "expected a callable");
  MTVMFunctionHandle f = CallableToFunction(arg);
  if (!f) return nullptr;
  return MakeObject(f);
}

PyObject* PyObjectTypeKey(PyObject*, PyObject* arg) {
  if (!IsObjectBase(arg) || !HandleOf(arg)) return RaiseNotUsable(arg, "expected an object");
  const char* key = nullptr;
  if (MTVMObjectGetTypeKey(HandleOf(arg), &key) != 0) return RaiseLastError();
  return PyUnicode_FromString(key);
}

// ---- NDArray and DLPack ---------------------------------------------------------------------

bool GetDLTensor(PyObject* arr, DLTensor* out) {
  if (!IsObjectBase(arr) || !HandleOf(arr)) {
    RaiseNotUsable(arr, "expected an NDArray");
    return false;
  }
  if (MTVMArrayGetDLTensor(HandleOf(arr), out) != 0) {
    RaiseLastError();
    return false;
  }
  return true;
}

/*! \brief (shape, strides, dtype, device, byte_offset, data address) of an NDArray. */
PyObject* PyNDArrayMeta(PyObject*, PyObject* arg) {
  DLTensor t;
  if (!GetDLTensor(arg, &t)) return nullptr;
  PyObject* shape = PyTuple_New(t.ndim);
  PyObject* strides = PyTuple_New(t.ndim);
  if (!shape || !strides) {
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return nullptr;
  }
  for (int i = 0; i < t.ndim; ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t.shape[i]));
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t.strides[i]));
  }
  PyObject* dtype = MakeDataType(t.dtype);
  PyObject* device = dtype ? MakeDevice(t.device) : nullptr;
  if (!device) {
    Py_DECREF(shape);
    Py_DECREF(strides);
    Py_XDECREF(dtype);
    return nullptr;
  }
  return Py_BuildValue("(NNNNKN)", shape, strides, dtype, device,
                       static_cast<unsigned long long>(t.byte_offset), PyLong_FromVoidPtr(t.data));
}

void DLPackCapsuleDestructor(PyObject* capsule) {
  // A consumer renames the capsule "used_dltensor" and owns the tensor from then on.
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (t && t->deleter) t->deleter(t);
  PyErr_Restore(type, value, tb);
}

PyObject* PyNDArrayToDLPack(PyObject*, PyObject* arg) {
  if (!IsObjectBase(arg) || !HandleOf(arg)) return RaiseNotUsable(arg, "expected an NDArray");
  DLManagedTensor* t = nullptr;
  if (MTVMArrayToDLPack(HandleOf(arg), &t) != 0) return RaiseLastError();
  PyObject* capsule = PyCapsule_New(t, "dltensor", DLPackCapsuleDestructor);
  if (!capsule) t->deleter(t);
  return capsule;
}

std::string DTypeName(DLDataType t) {
  std::string base;
  switch (t.code) {
    case kDLInt:
      base = "int";
      break;
    case kDLUInt:
      base = t.bits == 1 ? "bool" : "uint";
      break;
    case kDLFloat:
      base = "float";
      break;
    case kDLBfloat:
      base = "bfloat";
      break;
    default:
      base = "code" + std::to_string(t.code) + "_";
  }
  if (base != "bool") base += std::to_string(t.bits);
  if (t.lanes > 1) base += "x" + std::to_string(t.lanes);
  return base;
}

/*!
 * \brief Import a "dltensor" capsule without copying.
 *
 * Checks what the runtime cannot express before taking ownership: the device, the dtype
 * (DLPack's kDLBool = 6 bytes become minitvm's bool) and the alignment of element 0 to its
 * element size. On success the capsule is renamed "used_dltensor"; on failure it is left as
 * it was and the producer still owns the tensor.
 */
PyObject* PyNDArrayFromDLPack(PyObject*, PyObject* capsule) {
  if (!PyCapsule_CheckExact(capsule)) {
    return RaiseKind("TypeError", std::string("from_dlpack expects a DLPack capsule, not '") +
                                      Py_TYPE(capsule)->tp_name + "'");
  }
  const char* name = PyCapsule_GetName(capsule);
  if (name && std::strcmp(name, "used_dltensor") == 0) {
    return RaiseKind("ValueError",
                     "from_dlpack: this DLPack capsule was already consumed (a capsule can be "
                     "imported only once; ask the producer for a new one)");
  }
  if (!name || std::strcmp(name, "dltensor") != 0) {
    return RaiseKind("ValueError", std::string("from_dlpack: expected a capsule named "
                                               "\"dltensor\" but got \"") +
                                       (name ? name : "") + "\"");
  }
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (!t) return nullptr;
  DLTensor& dl = t->dl_tensor;
  if (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDA &&
      dl.device.device_type != kDLCUDAHost) {
    return RaiseKind("ValueError", "from_dlpack: tensors on device type " +
                                       std::to_string(dl.device.device_type) +
                                       " are not supported (only cpu and cuda)");
  }
  DLDataType dtype = dl.dtype;
  const int kDLPackBool = 6;  // newer DLPack versions; the header here predates it
  if (dtype.code == kDLPackBool && dtype.bits == 8) {
    dtype.code = kDLUInt;
    dtype.bits = 1;
  } else if (dtype.code != kDLInt && dtype.code != kDLUInt && dtype.code != kDLFloat &&
             dtype.code != kDLBfloat) {
    return RaiseKind("TypeError", "from_dlpack: unsupported element type (DLPack type code " +
                                      std::to_string(dtype.code) + ", " +
                                      std::to_string(dtype.bits) + " bits)");
  }
  int64_t numel = 1;
  for (int i = 0; i < dl.ndim && dl.shape; ++i) numel *= dl.shape[i];
  uint64_t elem_bytes = dtype.bits == 1 ? 1 : (dtype.bits + 7) / 8;
  uint64_t address = reinterpret_cast<uintptr_t>(dl.data) + dl.byte_offset;
  if (numel > 0 && elem_bytes > 1 && address % elem_bytes != 0) {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%llx", static_cast<unsigned long long>(address));
    return RaiseKind("ValueError", std::string("from_dlpack: element 0 is at address ") + hex +
                                       ", which is not aligned to the " +
                                       std::to_string(elem_bytes) + "-byte elements of " +
                                       DTypeName(dtype) +
                                       "; copy the tensor into an aligned buffer first");
  }
  dl.dtype = dtype;
  MTVMObjectHandle h = nullptr;
  if (MTVMArrayFromDLPack(t, &h) != 0) return RaiseLastError();
  PyCapsule_SetName(capsule, "used_dltensor");
  return MakeObject(h);
}

/*! \brief The NumPy type number of a dtype, or -1 with a Python exception set. */
int NumpyTypeNum(DLDataType t) {
  if (t.code == kDLUInt && t.bits == 1) return NPY_BOOL;
  if (t.code == kDLInt) {
    switch (t.bits) {
      case 8:
        return NPY_INT8;
      case 16:
        return NPY_INT16;
      case 32:
        return NPY_INT32;
      case 64:
        return NPY_INT64;
    }
  } else if (t.code == kDLUInt) {
    switch (t.bits) {
      case 8:
        return NPY_UINT8;
      case 16:
        return NPY_UINT16;
      case 32:
        return NPY_UINT32;
      case 64:
        return NPY_UINT64;
    }
  } else if (t.code == kDLFloat) {
    switch (t.bits) {
      case 16:
        return NPY_FLOAT16;
      case 32:
        return NPY_FLOAT32;
      case 64:
        return NPY_FLOAT64;
    }
  }
  RaiseKind("TypeError", "NumPy has no dtype for " + DTypeName(t));
  return -1;
}

/*!
 * \brief A writable NumPy array aliasing a CPU NDArray (strides honoured); the NumPy array
 * keeps the Python NDArray object, and so the storage, alive. Vector dtypes get a trailing
 * lanes dimension.
 */
PyObject* PyNDArrayNumpyView(PyObject*, PyObject* arg) {
  DLTensor t;
  if (!GetDLTensor(arg, &t)) return nullptr;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost) {
    return RaiseKind("ValueError",
                     "a NumPy view needs an array in host memory; copy it to the cpu first");
  }
  DLDataType scalar = t.dtype;
  scalar.lanes = 1;
  int typenum = NumpyTypeNum(scalar);
  if (typenum < 0) return nullptr;
  int64_t itemsize = scalar.bits == 1 ? 1 : scalar.bits / 8;
  int lanes = t.dtype.lanes;
  std::vector<npy_intp> dims(t.shape, t.shape + t.ndim);
  std::vector<npy_intp> strides(t.ndim);
  for (int i = 0; i < t.ndim; ++i) strides[i] = t.strides[i] * itemsize * lanes;
  if (lanes > 1) {
    dims.push_back(lanes);
    strides.push_back(itemsize);
  }
  char* data = static_cast<char*>(t.data) + t.byte_offset;
  PyObject* view =
      PyArray_New(&PyArray_Type, static_cast<int>(dims.size()), dims.data(), typenum,
                  strides.data(), data, static_cast<int>(itemsize), NPY_ARRAY_WRITEABLE, nullptr);
  if (!view) return nullptr;
  Py_INCREF(arg);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(view), arg) != 0) {
    Py_DECREF(view);
    return nullptr;
  }
  return view;
}

/*! \brief What a DLManagedTensor aliasing a NumPy array owns. */
struct NumpyAlias {
  PyObject* array;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor tensor;
};

/*!
 * \brief Copy a NumPy array into an NDArray through the runtime's copy: the NumPy buffer is
 * wrapped as a temporary NDArray (no copy), then MTVMArrayCopyFromTo checks shapes and dtypes
 * and copies, to the cpu or to a device.
 */
PyObject* PyNDArrayCopyFromNumpy(PyObject*, PyObject* args) {
  PyObject* dst;
  PyObject* src;
  if (!PyArg_ParseTuple(args, "OO", &dst, &src)) return nullptr;
  if (!IsObjectBase(dst) || !HandleOf(dst)) return RaiseNotUsable(dst, "expected an NDArray");
  if (!PyArray_Check(src)) return RaiseKind("TypeError", "expected a NumPy array");
  auto* a = reinterpret_cast<PyArrayObject*>(src);
  PyArray_Descr* descr = PyArray_DESCR(a);
  if (!PyArray_ISNOTSWAPPED(a)) {
    return RaiseKind("ValueError", "the NumPy array is not in native byte order");
  }
  DLDataType dtype;
  dtype.lanes = 1;
  dtype.bits = static_cast<uint8_t>(ElementSize(descr) * 8);
  switch (descr->kind) {
    case 'b':
      dtype.code = kDLUInt;
      dtype.bits = 1;
      break;
    case 'i':
      dtype.code = kDLInt;
      break;
    case 'u':
      dtype.code = kDLUInt;
      break;
    case 'f':
      dtype.code = kDLFloat;
      break;
    default:
      return RaiseKind("TypeError",
                       std::string("unsupported NumPy dtype kind '") + descr->kind + "'");
  }
  int ndim = PyArray_NDIM(a);
  auto* alias = new NumpyAlias();
  alias->array = src;
  Py_INCREF(src);
  for (int i = 0; i < ndim; ++i) {
    alias->shape.push_back(PyArray_DIM(a, i));
    npy_intp st = PyArray_STRIDE(a, i);
    if (st % ElementSize(descr) != 0) {
      Py_DECREF(src);
      delete alias;
      return RaiseKind("ValueError",
                       "the NumPy array has strides that are not a whole number of "
                       "elements; pass numpy.ascontiguousarray(x)");
    }
    alias->strides.push_back(st / ElementSize(descr));
  }
  DLTensor& t = alias->tensor.dl_tensor;
  t.data = PyArray_DATA(a);
  t.device = {kDLCPU, 0};
  t.ndim = ndim;
  t.dtype = dtype;
  t.shape = alias->shape.data();
  t.strides = alias->strides.data();
  t.byte_offset = 0;
  alias->tensor.manager_ctx = alias;
  alias->tensor.deleter = [](DLManagedTensor* self) {
    auto* ctx = static_cast<NumpyAlias*>(self->manager_ctx);
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(ctx->array);
    PyGILState_Release(gil);
    delete ctx;
  };
  MTVMObjectHandle view = nullptr;
  if (MTVMArrayFromDLPack(&alias->tensor, &view) != 0) {
    alias->tensor.deleter(&alias->tensor);
    return RaiseLastError();
  }
  int rc = MTVMArrayCopyFromTo(view, HandleOf(dst));
  MTVMObjectFree(view);
  if (rc != 0) return RaiseLastError();
  Py_RETURN_NONE;
}

PyObject* PyNDArrayCopyFromTo(PyObject*, PyObject* args) {
  PyObject* src;
  PyObject* dst;
  if (!PyArg_ParseTuple(args, "OO", &src, &dst)) return nullptr;
  if (!IsObjectBase(src) || !IsObjectBase(dst) || !HandleOf(src) || !HandleOf(dst)) {
    return RaiseKind("TypeError", "copy: both arguments must be NDArrays");
  }
  if (MTVMArrayCopyFromTo(HandleOf(src), HandleOf(dst)) != 0) return RaiseLastError();
  Py_RETURN_NONE;
}

PyMethodDef g_module_methods[] = {
    {"set_hooks", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(PySetHooks)),
     METH_VARARGS | METH_KEYWORDS, "Install the package's hooks (keyword arguments)."},
    {"get_global", PyGetGlobal, METH_O, "The PackedFunc registered as `name`, or None."},
    {"register_global", PyRegisterGlobal, METH_VARARGS,
     "register_global(name, func, override=False): register a PackedFunc or a callable."},
    {"remove_global", PyRemoveGlobal, METH_O, "Remove a global function; True if it existed."},
    {"list_global_names", PyListGlobalNames, METH_NOARGS, "All global function names, sorted."},
    {"make_packed_func", PyMakePackedFunc, METH_O, "Wrap a Python callable as a PackedFunc."},
    {"object_type_key", PyObjectTypeKey, METH_O, "The type key of an object."},
    {"ndarray_meta", PyNDArrayMeta, METH_O,
     "(shape, strides, dtype, device, byte_offset, data address) of an NDArray."},
    {"ndarray_to_dlpack", PyNDArrayToDLPack, METH_O, "Export an NDArray as a DLPack capsule."},
    {"ndarray_from_dlpack", PyNDArrayFromDLPack, METH_O,
     "Import a \"dltensor\" capsule without copying (renames it \"used_dltensor\")."},
    {"ndarray_numpy_view", PyNDArrayNumpyView, METH_O,
     "A writable NumPy array aliasing a CPU NDArray."},
    {"ndarray_copy_from_numpy", PyNDArrayCopyFromNumpy, METH_VARARGS,
     "ndarray_copy_from_numpy(dst, src): copy a NumPy array into an NDArray."},
    {"ndarray_copy_from_to", PyNDArrayCopyFromTo, METH_VARARGS,
     "ndarray_copy_from_to(src, dst): copy between NDArrays (shapes and dtypes must match)."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef g_module_def = {PyModuleDef_HEAD_INIT,
                            "_ffi_core",
                            "The minitvm extension module: Python <-> the minitvm C ABI.",
                            -1,
                            g_module_methods,
                            nullptr,
                            nullptr,
                            nullptr,
                            nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__ffi_core(void) {
  import_array();

  g_object_base_type.tp_name = "minitvm._ffi_core.ObjectBase";
  g_object_base_type.tp_basicsize = sizeof(ObjectBaseObj);
  g_object_base_type.tp_dealloc = ObjectBaseDealloc;
  g_object_base_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  g_object_base_type.tp_doc = "Base of every minitvm object: owns one reference to a C++ object.";
  g_object_base_type.tp_getset = g_object_getset;
  g_object_base_type.tp_methods = g_object_methods;
  g_object_base_type.tp_new = PyType_GenericNew;
  if (PyType_Ready(&g_object_base_type) < 0) return nullptr;

  g_packed_func_base_type.tp_name = "minitvm._ffi_core.PackedFuncBase";
  g_packed_func_base_type.tp_basicsize = sizeof(ObjectBaseObj);
  g_packed_func_base_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  g_packed_func_base_type.tp_doc = "An ObjectBase holding a PackedFunc; calling it calls C++.";
  g_packed_func_base_type.tp_call = PackedFuncCall;
  g_packed_func_base_type.tp_base = &g_object_base_type;
  if (PyType_Ready(&g_packed_func_base_type) < 0) return nullptr;

  PyObject* m = PyModule_Create(&g_module_def);
  if (!m) return nullptr;
  Py_INCREF(&g_object_base_type);
  if (PyModule_AddObject(m, "ObjectBase", reinterpret_cast<PyObject*>(&g_object_base_type)) < 0) {
    Py_DECREF(&g_object_base_type);
    Py_DECREF(m);
    return nullptr;
  }
  Py_INCREF(&g_packed_func_base_type);
  if (PyModule_AddObject(m, "PackedFuncBase",
                         reinterpret_cast<PyObject*>(&g_packed_func_base_type)) < 0) {
    Py_DECREF(&g_packed_func_base_type);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
