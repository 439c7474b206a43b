/*!
 * \file ffi_support.cc
 * \brief Registered functions that the Python front needs beyond the core runtime (stage 1):
 * building and reading `Array` and `Map` values, DataType and Device names, type-key ancestry
 * (to pick the Python class of a node), a module made of packed functions, and the
 * `testing.ffi.*` helpers that the FFI tests and the first tutorial call.
 *
 * Everything here is reached from Python through the C ABI like any other global function;
 * none of it is special-cased by the extension module.
 */
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime {
namespace {

/*!
 * \brief A module whose functions are given packed functions: the simplest concrete module.
 *
 * Python uses it to wrap its own callables as a module (tests, tutorials); it has no source
 * and cannot be saved, so those requests raise the base class's ValueError.
 */
class FunctionTableModuleNode : public ModuleNode {
 public:
  std::string kind() const override { return "functions"; }
  std::optional<PackedFunc> GetFunction(const std::string& name) override {
    for (const auto& kv : funcs) {
      if (kv.first == name) return kv.second;
    }
    return std::nullopt;
  }
  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (const auto& kv : funcs) names.push_back(kv.first);
    return names;
  }

  /*! \brief Name → function, in the order given. */
  std::vector<std::pair<std::string, PackedFunc>> funcs;
};

/*! \brief A node with one field of each kind, for the FFI tests of field access and classes. */
class FfiTestNode : public Object {
 public:
  std::string name;
  int64_t value = 0;
  double scale = 1.0;
  DataType dtype = DataType::Float(32);
  ObjectRef child;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("name", &name);
    v->Visit("value", &value);
    v->Visit("scale", &scale);
    v->Visit("dtype", &dtype);
    v->Visit("child", &child);
  }
  MINITVM_DECLARE_OBJECT_INFO(FfiTestNode, Object, "testing.FfiNode");
};

/*! \brief A node type derived from FfiTestNode: Python wraps it in its parent's class. */
class FfiTestDerivedNode : public FfiTestNode {
 public:
  MINITVM_DECLARE_OBJECT_INFO(FfiTestDerivedNode, FfiTestNode, "testing.FfiDerivedNode");
};

template <typename T>
ObjectRef MakeTestNode(std::string name, int64_t value, DataType dtype, ObjectRef child) {
  auto node = make_object<T>();
  node->name = std::move(name);
  node->value = value;
  node->dtype = dtype;
  node->child = std::move(child);
  return ObjectRef(ObjectPtr<Object>(std::move(node)));
}

/*! \brief Python indexes Arrays with negative numbers too; C++ does not. */
int64_t NormalizeIndex(int64_t index, size_t size) {
  int64_t n = static_cast<int64_t>(size);
  if (index < -n || index >= n) {
    MINITVM_THROW(IndexError) << "array index " << index << " out of range for size " << n;
  }
  return index < 0 ? index + n : index;
}

}  // namespace

// ---- containers ---------------------------------------------------------------------------

// Array(a, b, c): a Python list or tuple crosses as this call.
MINITVM_REGISTER_GLOBAL("runtime.Array").set_body([](PackedArgs args, Any* rv) {
  auto node = make_object<ArrayNode>();
  node->data.assign(args.data(), args.data() + args.size());
  *rv = Array<Any>(ObjectPtr<Object>(std::move(node)));
});
MINITVM_REGISTER_GLOBAL("runtime.ArraySize").set_body_typed([](Array<Any> array) {
  return static_cast<int64_t>(array.size());
});
MINITVM_REGISTER_GLOBAL("runtime.ArrayGetItem").set_body_typed([](Array<Any> array, int64_t i) {
  return array[NormalizeIndex(i, array.size())];
});

// Map(k0, v0, k1, v1, ...): a Python dict crosses as this call (insertion order kept).
MINITVM_REGISTER_GLOBAL("runtime.Map").set_body([](PackedArgs args, Any* rv) {
  if (args.size() % 2 != 0) {
    MINITVM_THROW(ValueError) << "runtime.Map expects key/value pairs but got " << args.size()
                              << " arguments";
  }
  Map<Any, Any> map;
  for (int i = 0; i < args.size(); i += 2) map.Set(args[i], args[i + 1]);
  *rv = map;
});
MINITVM_REGISTER_GLOBAL("runtime.MapSize").set_body_typed([](Map<Any, Any> map) {
  return static_cast<int64_t>(map.size());
});
MINITVM_REGISTER_GLOBAL("runtime.MapCount").set_body_typed([](Map<Any, Any> map, Any key) {
  return static_cast<int64_t>(map.count(key));
});
MINITVM_REGISTER_GLOBAL("runtime.MapGetItem").set_body_typed([](Map<Any, Any> map, Any key) {
  return map.at(key);
});
// The entries as one flat Array [k0, v0, k1, v1, ...]: one call instead of one per entry.
MINITVM_REGISTER_GLOBAL("runtime.MapItems").set_body_typed([](Map<Any, Any> map) {
  Array<Any> flat;
  if (map.get()) {
    for (const auto& kv : map->data) {
      flat.push_back(kv.first);
      flat.push_back(kv.second);
    }
  }
  return flat;
});

// Convert(x) returns x: Python uses it to turn a list into an Array, a dict into a Map.
MINITVM_REGISTER_GLOBAL("runtime.Convert").set_body_typed([](Any value) { return value; });

// ---- names of types and devices ------------------------------------------------------------

// Accepts a DataType or a string: DataTypeToString("float") raises the parser's ValueError,
// so Python validates and canonicalises dtype names here.
MINITVM_REGISTER_GLOBAL("runtime.DataTypeToString").set_body_typed([](DataType dtype) {
  return DataTypeToString(dtype);
});
// [type code, bits, lanes] of a dtype.
MINITVM_REGISTER_GLOBAL("runtime.DataTypeParts").set_body_typed([](DataType dtype) {
  return Array<int64_t>({dtype.code(), dtype.bits(), dtype.lanes()});
});
// The name of (code, bits, lanes): how Python names a DataType that C++ returned.
MINITVM_REGISTER_GLOBAL("runtime.DataTypeFromParts")
    .set_body_typed([](int code, int bits, int lanes) {
      return DataTypeToString(DataType(code, bits, lanes));
    });
MINITVM_REGISTER_GLOBAL("runtime.DeviceTypeName").set_body_typed([](int device_type) {
  return DeviceTypeName(device_type);
});
MINITVM_REGISTER_GLOBAL("runtime.DeviceTypeFromName").set_body_typed([](std::string name) {
  return DeviceTypeFromName(name);
});

// Wait until all work queued on the device has finished (nothing to wait for on the cpu).
MINITVM_REGISTER_GLOBAL("runtime.DeviceSynchronize").set_body_typed([](Device dev) {
  DeviceAPI::Get(dev)->Synchronize(dev);
});

// True when `child` names `parent` or a type derived from it; false for a key that no C++
// class has registered yet (type indices are allocated lazily).
MINITVM_REGISTER_GLOBAL("runtime.TypeKeyIsDerivedFrom")
    .set_body_typed([](std::string child, std::string parent) {
      try {
        return TypeRegistry::IsDerivedFrom(TypeRegistry::TypeKey2Index(child),
                                           TypeRegistry::TypeKey2Index(parent));
      } catch (const Error&) {
        return false;
      }
    });

// The number of handles on an object (the call itself holds some): for lessons and tests that
// check who owns what.
MINITVM_REGISTER_GLOBAL("runtime.ObjectUseCount").set_body_typed([](ObjectRef obj) {
  return static_cast<int64_t>(obj.use_count());
});

// ---- modules --------------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("runtime.ModuleFromFunctions")
    .set_body_typed([](Map<String, PackedFunc> funcs, std::string entry_name) {
      auto node = make_object<FunctionTableModuleNode>();
      for (const auto& kv : funcs.items()) node->funcs.emplace_back(kv.first.str(), kv.second);
      node->entry_name = std::move(entry_name);
      return Module(ObjectPtr<Object>(std::move(node)));
    });
// mod[name]: the function, or AttributeError naming it and the module kind.
MINITVM_REGISTER_GLOBAL("runtime.ModuleGetFunctionChecked")
    .set_body_typed([](Module mod, std::string name) { return mod[name]; });

// ---- testing helpers (used by tests/python and tutorials/01_runtime) -------------------------

MINITVM_REGISTER_GLOBAL("testing.ffi.Echo").set_body_typed([](Any value) { return value; });
MINITVM_REGISTER_GLOBAL("testing.ffi.AddInts").set_body_typed([](int64_t a, int64_t b) {
  return a + b;
});
// Raise an error of any kind, to check how kinds become Python classes.
MINITVM_REGISTER_GLOBAL("testing.ffi.Raise")
    .set_body_typed([](std::string kind, std::string message) {
      MINITVM_THROW_KIND(kind) << message;
    });
// Apply(f, *args) = f(*args): calls whatever f is (a C++ function or a Python callable).
MINITVM_REGISTER_GLOBAL("testing.ffi.Apply").set_body([](PackedArgs args, Any* rv) {
  if (args.size() < 1) MINITVM_THROW(TypeError) << "testing.ffi.Apply: expects a function";
  PackedFunc f = args[0].cast<PackedFunc>();
  f.CallPacked(PackedArgs(args.data() + 1, args.size() - 1), rv);
});
// CallWithArray(name, shape, dtype): allocate a zero-filled array in C++, call the global
// function `name` with it, return the array — so a test sees what the callee wrote.
MINITVM_REGISTER_GLOBAL("testing.ffi.CallWithArray")
    .set_body_typed([](std::string name, Array<int64_t> shape, DataType dtype) {
      NDArray array = NDArray::Empty(shape.to_vector(), dtype);
      std::memset(array.data(), 0, array.NBytes());
      Registry::GetOrThrow(name)(array);
      return array;
    });
// MakeNode(name, value, dtype, child): a testing.FfiNode; MakeDerivedNode likewise.
MINITVM_REGISTER_GLOBAL("testing.ffi.MakeNode").set_body_typed(MakeTestNode<FfiTestNode>);
MINITVM_REGISTER_GLOBAL("testing.ffi.MakeDerivedNode")
    .set_body_typed(MakeTestNode<FfiTestDerivedNode>);
// Fill(array, value): write `value` into every element of a float32 array, in place.
MINITVM_REGISTER_GLOBAL("testing.ffi.FillFloat32").set_body_typed([](NDArray array, double value) {
  if (array.dtype() != DataType::Float(32)) {
    MINITVM_THROW(TypeError) << "testing.ffi.FillFloat32: expected a float32 array but got "
                             << array.dtype();
  }
  auto* data = static_cast<float*>(array.data());
  for (int64_t i = 0; i < array.NumElements(); ++i) {
    data[array.ElementOffset(i)] = static_cast<float>(value);
  }
});

}  // namespace runtime
}  // namespace minitvm
