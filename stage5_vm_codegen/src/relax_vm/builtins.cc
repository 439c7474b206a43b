/*!
 * \file builtins.cc
 * \brief The "vm.builtin.*" packed functions (stage 5) that lowered Relax code calls:
 * allocation (storage, tensors in storage, the shape heap), symbolic shapes (match_shape,
 * make_shape, heap_binop, heap_load), argument checks (check_tensor_info, check_shape_info,
 * check_tuple_info), tuples, copy, reshape, shape_of, null_value and read_if_cond. The table of
 * names, arguments and results is at the top of minitvm/relax_vm/transform.h.
 *
 * Storage is a 1-D uint8 NDArray from the VM's allocator for the device; a tensor in it is a
 * view (`NDArray::CreateView`) that keeps the storage alive. A heap is a 1-D int64 NDArray.
 * Every index and size coming from the bytecode is checked: a malformed executable gets a
 * ValueError, never an out-of-bounds access.
 */
#include <sstream>

#include "minitvm/relax/interpreter.h"
#include "minitvm/relax_vm/vm.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax_vm {
namespace {

using runtime::Any;
using runtime::Array;
using runtime::DataType;
using runtime::PackedArgs;

VirtualMachineNode* GetVM(const Any& v, const char* fname) {
  auto* vm = v.as<VirtualMachineNode>();
  if (!vm) {
    MINITVM_THROW(TypeError) << fname << ": argument 0 must be the VM, got " << v.type_name();
  }
  return const_cast<VirtualMachineNode*>(vm);
}

/*! \brief A shape argument: a ShapeTuple, an Array of ints or a single int. */
std::vector<int64_t> ShapeArg(const Any& v, const char* fname, const char* what) {
  if (auto* s = v.as<relax::ShapeTupleNode>()) return s->values;
  if (v.is_int()) return {v.raw_int()};
  if (auto* a = v.as<runtime::ArrayNode>()) {
    std::vector<int64_t> out;
    for (const Any& e : a->data) out.push_back(e.cast<int64_t>());
    return out;
  }
  MINITVM_THROW(TypeError) << fname << ": " << what << " must be a shape, got " << v.type_name();
}

DataType DTypeArg(const Any& v, const char* fname) {
  if (v.tag() == Any::kDataType) return v.raw_dtype();
  if (v.is_string()) return DataType(v.cast<std::string>());
  MINITVM_THROW(TypeError) << fname << ": the dtype must be a str, got " << v.type_name();
}

NDArray TensorArg(const Any& v, const char* fname, const char* what) {
  auto* a = v.as<runtime::NDArrayNode>();
  if (!a)
    MINITVM_THROW(TypeError) << fname << ": " << what << " must be a tensor, got " << v.type_name();
  return runtime::GetRef<NDArray>(a);
}

/*! \brief The shape heap argument: a compact 1-D int64 CPU array. */
int64_t* HeapArg(const Any& v, const char* fname, int64_t* size) {
  NDArray heap = TensorArg(v, fname, "the shape heap");
  if (heap.dtype() != DataType::Int(64) || heap.ndim() != 1 || !heap.IsContiguous() ||
      heap.device().device_type != kDLCPU) {
    MINITVM_THROW(TypeError) << fname << ": the shape heap must be a 1-D int64 CPU array, got "
                             << heap.dtype() << " of shape "
                             << runtime::ShapeToString(heap.Shape());
  }
  *size = heap.Shape()[0];
  return heap.data_as<int64_t>();
}

int64_t HeapIndex(int64_t index, int64_t size, const char* fname) {
  if (index < 0 || index >= size) {
    MINITVM_THROW(ValueError) << fname << ": shape heap slot " << index
                              << " out of range (the heap has " << size << " slots)";
  }
  return index;
}

std::string Ctx(const Any& v) { return v.is_string() ? v.cast<std::string>() : std::string("VM"); }

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

// ---- allocation ------------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("vm.builtin.alloc_storage").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.alloc_storage";
  if (args.size() < 2 || args.size() > 5) {
    MINITVM_THROW(TypeError) << fname
                             << " expects (vm, size, device_index, dtype_hint, scope), got "
                             << args.size() << " arguments";
  }
  VirtualMachineNode* vm = GetVM(args[0], fname);
  std::vector<int64_t> size = ShapeArg(args[1], fname, "the size");
  if (size.size() != 1) {
    MINITVM_THROW(ValueError) << fname << ": the size must be a 1-D shape (bytes), got "
                              << runtime::ShapeToString(size);
  }
  int64_t device_index = args.size() > 2 ? args[2].cast<int64_t>() : 0;
  *rv = vm->GetAllocator(device_index)->Alloc(size[0]);
});

MINITVM_REGISTER_GLOBAL("vm.builtin.alloc_tensor").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.alloc_tensor";
  if (args.size() != 4) {
    MINITVM_THROW(TypeError) << fname << " expects (storage, offset, shape, dtype), got "
                             << args.size() << " arguments";
  }
  NDArray storage = TensorArg(args[0], fname, "the storage");
  int64_t offset = args[1].cast<int64_t>();
  std::vector<int64_t> shape = ShapeArg(args[2], fname, "the shape");
  DataType dtype = DTypeArg(args[3], fname);
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      MINITVM_THROW(ValueError) << fname << ": negative dimension in shape "
                                << runtime::ShapeToString(shape);
    }
    numel *= d;
  }
  int64_t have = static_cast<int64_t>(storage.NBytes());
  int64_t need = numel * dtype.bytes();
  if (offset < 0 || offset > have || need > have - offset) {
    MINITVM_THROW(ValueError) << fname << ": a tensor of shape " << runtime::ShapeToString(shape)
                              << " and " << dtype << " at byte offset " << offset << " needs "
                              << need << " bytes, but the storage has " << have;
  }
  *rv = storage.CreateView(shape, dtype, offset / storage.dtype().bytes());
});

MINITVM_REGISTER_GLOBAL("vm.builtin.alloc_tensor_simple").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.alloc_tensor_simple";
  if (args.size() < 3 || args.size() > 4) {
    MINITVM_THROW(TypeError) << fname << " expects (vm, shape, dtype, device_index), got "
                             << args.size() << " arguments";
  }
  VirtualMachineNode* vm = GetVM(args[0], fname);
  std::vector<int64_t> shape = ShapeArg(args[1], fname, "the shape");
  DataType dtype = DTypeArg(args[2], fname);
  int64_t device_index = args.size() > 3 ? args[3].cast<int64_t>() : 0;
  *rv = NDArray::Empty(shape, dtype, vm->GetDevice(device_index));
});

MINITVM_REGISTER_GLOBAL("vm.builtin.alloc_shape_heap").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.alloc_shape_heap";
  if (args.size() != 2) MINITVM_THROW(TypeError) << fname << " expects (vm, size)";
  GetVM(args[0], fname);
  int64_t size = args[1].cast<int64_t>();
  if (size < 0 || size > (int64_t{1} << 24)) {
    MINITVM_THROW(ValueError) << fname << ": bad heap size " << size;
  }
  NDArray heap = NDArray::Empty({size}, DataType::Int(64), runtime::CPU());
  std::fill(heap.data_as<int64_t>(), heap.data_as<int64_t>() + size, 0);
  *rv = heap;
});

// ---- symbolic shapes -------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("vm.builtin.match_shape").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.match_shape";
  if (args.size() < 4) {
    MINITVM_THROW(TypeError) << fname << " expects (value, heap, ndim, kind, v, ..., err_ctx), got "
                             << args.size() << " arguments";
  }
  std::string ctx = Ctx(args[args.size() - 1]);
  std::vector<int64_t> dims;
  const char* what = "shape";
  if (auto* a = args[0].as<runtime::NDArrayNode>()) {
    dims = a->shape;
  } else if (auto* s = args[0].as<relax::ShapeTupleNode>()) {
    dims = s->values;
    what = "shape value";
  } else {
    MINITVM_THROW(TypeError) << ctx << ": expected a tensor or a shape, got "
                             << args[0].type_name();
  }
  int64_t ndim = args[2].cast<int64_t>();
  if (args.size() != 4 + 2 * ndim) {
    MINITVM_THROW(TypeError) << fname << ": " << ndim << " dimensions need " << 4 + 2 * ndim
                             << " arguments, got " << args.size();
  }
  if (static_cast<int64_t>(dims.size()) != ndim) {
    MINITVM_THROW(ValueError) << ctx << ": expected a " << what << " of rank " << ndim
                              << ", got rank " << dims.size() << " (" << what << " "
                              << runtime::ShapeToString(dims) << ")";
  }
  int64_t heap_size = 0;
  int64_t* heap = nullptr;
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t kind = args[3 + 2 * i].cast<int64_t>();
    int64_t v = args[4 + 2 * i].cast<int64_t>();
    if ((kind == 1 || kind == 3) && heap == nullptr) heap = HeapArg(args[1], fname, &heap_size);
    switch (kind) {
      case 0:
        if (dims[i] != v) {
          MINITVM_THROW(ValueError)
              << ctx << ": dimension " << i << " of the " << what << " must be " << v << ", got "
              << dims[i] << " (" << what << " " << runtime::ShapeToString(dims) << ")";
        }
        break;
      case 1:
        heap[HeapIndex(v, heap_size, fname)] = dims[i];
        break;
      case 2:
        break;
      case 3: {
        int64_t want = heap[HeapIndex(v, heap_size, fname)];
        if (dims[i] != want) {
          MINITVM_THROW(ValueError)
              << ctx << ": dimension " << i << " of the " << what << " must be " << want
              << " (the value its symbolic dimension has already taken), "
                 "got "
              << dims[i] << " (" << what << " " << runtime::ShapeToString(dims) << ")";
        }
        break;
      }
      default:
        MINITVM_THROW(ValueError) << fname << ": unknown match kind " << kind;
    }
  }
  *rv = Any();
});

MINITVM_REGISTER_GLOBAL("vm.builtin.make_shape").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.make_shape";
  if (args.size() < 2) MINITVM_THROW(TypeError) << fname << " expects (heap, ndim, kind, v, ...)";
  int64_t ndim = args[1].cast<int64_t>();
  if (ndim < 0 || args.size() != 2 + 2 * ndim) {
    MINITVM_THROW(TypeError) << fname << ": " << ndim << " dimensions need " << 2 + 2 * ndim
                             << " arguments, got " << args.size();
  }
  std::vector<int64_t> dims(ndim);
  int64_t heap_size = 0;
  int64_t* heap = nullptr;
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t kind = args[2 + 2 * i].cast<int64_t>();
    int64_t v = args[3 + 2 * i].cast<int64_t>();
    if (kind == 0) {
      dims[i] = v;
    } else if (kind == 1) {
      if (heap == nullptr) heap = HeapArg(args[0], fname, &heap_size);
      dims[i] = heap[HeapIndex(v, heap_size, fname)];
    } else {
      MINITVM_THROW(ValueError) << fname << ": unknown kind " << kind;
    }
  }
  *rv = relax::ShapeTuple(std::move(dims));
});

MINITVM_REGISTER_GLOBAL("vm.builtin.heap_binop").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.heap_binop";
  if (args.size() != 7) {
    MINITVM_THROW(TypeError) << fname
                             << " expects (heap, opcode, dst, lhs_kind, lhs, rhs_kind, rhs)";
  }
  int64_t size = 0;
  int64_t* heap = HeapArg(args[0], fname, &size);
  auto operand = [&](int k, int v) {
    int64_t kind = args[k].cast<int64_t>();
    int64_t val = args[v].cast<int64_t>();
    if (kind == 0) return val;
    if (kind == 1) return heap[HeapIndex(val, size, fname)];
    MINITVM_THROW(ValueError) << fname << ": unknown operand kind " << kind;
  };
  int64_t op = args[1].cast<int64_t>();
  int64_t dst = HeapIndex(args[2].cast<int64_t>(), size, fname);
  int64_t a = operand(3, 4), b = operand(5, 6);
  int64_t out = 0;
  switch (op) {
    case 0:
      out = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      break;
    case 1:
      out = static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
      break;
    case 2:
      out = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
      break;
    case 3:
    case 4:
      if (b == 0) {
        MINITVM_THROW(ValueError) << fname << ": " << (op == 3 ? "floordiv" : "floormod") << " of "
                                  << a << " by zero in a symbolic shape";
      }
      if (a == INT64_MIN && b == -1) {
        out = op == 3 ? a : 0;
      } else {
        int64_t q = FloorDiv(a, b);
        out = op == 3 ? q : a - q * b;
      }
      break;
    case 5:
      out = std::min(a, b);
      break;
    case 6:
      out = std::max(a, b);
      break;
    default:
      MINITVM_THROW(ValueError) << fname << ": unknown opcode " << op;
  }
  heap[dst] = out;
  *rv = Any();
});

MINITVM_REGISTER_GLOBAL("vm.builtin.heap_load").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.heap_load";
  if (args.size() != 2) MINITVM_THROW(TypeError) << fname << " expects (heap, index)";
  int64_t size = 0;
  int64_t* heap = HeapArg(args[0], fname, &size);
  *rv = heap[HeapIndex(args[1].cast<int64_t>(), size, fname)];
});

// ---- argument checks -------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("vm.builtin.check_tensor_info").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.check_tensor_info";
  if (args.size() != 4) {
    MINITVM_THROW(TypeError) << fname << " expects (value, ndim, dtype, err_ctx)";
  }
  std::string ctx = Ctx(args[3]);
  auto* a = args[0].as<runtime::NDArrayNode>();
  if (!a) MINITVM_THROW(TypeError) << ctx << ": expected a tensor, got " << args[0].type_name();
  int64_t ndim = args[1].cast<int64_t>();
  std::string dtype = args[2].is_null() ? std::string() : args[2].cast<std::string>();
  if (ndim >= 0 && static_cast<int64_t>(a->shape.size()) != ndim) {
    MINITVM_THROW(ValueError) << ctx << ": expected a tensor of rank " << ndim << ", got rank "
                              << a->shape.size() << " (shape " << runtime::ShapeToString(a->shape)
                              << ")";
  }
  if (!dtype.empty() && DataType(dtype) != a->dtype) {
    MINITVM_THROW(ValueError) << ctx << ": expected a tensor of dtype " << dtype << ", got "
                              << a->dtype;
  }
  *rv = Any();
});

MINITVM_REGISTER_GLOBAL("vm.builtin.check_shape_info").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.check_shape_info";
  if (args.size() != 3) MINITVM_THROW(TypeError) << fname << " expects (value, ndim, err_ctx)";
  std::string ctx = Ctx(args[2]);
  auto* s = args[0].as<relax::ShapeTupleNode>();
  if (!s) MINITVM_THROW(TypeError) << ctx << ": expected a shape, got " << args[0].type_name();
  int64_t ndim = args[1].cast<int64_t>();
  if (ndim >= 0 && static_cast<int64_t>(s->values.size()) != ndim) {
    MINITVM_THROW(ValueError) << ctx << ": expected a shape of " << ndim << " dimensions, got "
                              << s->values.size() << " (" << runtime::ShapeToString(s->values)
                              << ")";
  }
  *rv = Any();
});

MINITVM_REGISTER_GLOBAL("vm.builtin.check_tuple_info").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.check_tuple_info";
  if (args.size() != 3) MINITVM_THROW(TypeError) << fname << " expects (value, size, err_ctx)";
  std::string ctx = Ctx(args[2]);
  auto* t = args[0].as<runtime::ArrayNode>();
  if (!t) MINITVM_THROW(TypeError) << ctx << ": expected a tuple, got " << args[0].type_name();
  int64_t size = args[1].cast<int64_t>();
  if (size >= 0 && static_cast<int64_t>(t->data.size()) != size) {
    MINITVM_THROW(ValueError) << ctx << ": expected a tuple of " << size << " fields, got "
                              << t->data.size();
  }
  *rv = Any();
});

MINITVM_REGISTER_GLOBAL("vm.builtin.check_prim_value_info").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.check_prim_value_info";
  if (args.size() != 3) MINITVM_THROW(TypeError) << fname << " expects (value, dtype, err_ctx)";
  std::string ctx = Ctx(args[2]);
  const Any& v = args[0];
  std::string dtype = args[1].is_null() ? std::string() : args[1].cast<std::string>();
  bool ok = v.is_int() || v.is_float() || v.is_bool();
  if (ok && !dtype.empty()) {
    DataType t(dtype);
    ok = t.is_float()  ? (v.is_float() || v.is_int())
         : t.is_bool() ? v.is_bool() || v.is_int()
                       : v.is_int() || v.is_bool();
  }
  if (!ok) {
    MINITVM_THROW(TypeError) << ctx << ": expected a " << (dtype.empty() ? "prim" : dtype)
                             << " value, got " << v.type_name();
  }
  *rv = Any();
});

// ---- tuples, views, misc ---------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("vm.builtin.make_tuple").set_body([](PackedArgs args, Any* rv) {
  *rv = Array<Any>(std::vector<Any>(args.data(), args.data() + args.size()));
});

MINITVM_REGISTER_GLOBAL("vm.builtin.tuple_getitem").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.tuple_getitem";
  if (args.size() != 2) MINITVM_THROW(TypeError) << fname << " expects (tuple, index)";
  auto* t = args[0].as<runtime::ArrayNode>();
  if (!t) MINITVM_THROW(TypeError) << fname << ": expected a tuple, got " << args[0].type_name();
  int64_t i = args[1].cast<int64_t>();
  if (i < 0 || i >= static_cast<int64_t>(t->data.size())) {
    MINITVM_THROW(IndexError) << fname << ": index " << i << " out of range for a tuple of "
                              << t->data.size() << " fields";
  }
  *rv = t->data[i];
});

MINITVM_REGISTER_GLOBAL("vm.builtin.copy").set_body([](PackedArgs args, Any* rv) {
  if (args.size() != 1) MINITVM_THROW(TypeError) << "vm.builtin.copy expects one argument";
  *rv = args[0];
});

MINITVM_REGISTER_GLOBAL("vm.builtin.reshape").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.reshape";
  if (args.size() != 2) MINITVM_THROW(TypeError) << fname << " expects (tensor, shape)";
  NDArray x = TensorArg(args[0], fname, "the tensor");
  std::vector<int64_t> shape = ShapeArg(args[1], fname, "the shape");
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel != x.NumElements()) {
    MINITVM_THROW(ValueError) << fname << ": cannot reshape a tensor of shape "
                              << runtime::ShapeToString(x.Shape()) << " (" << x.NumElements()
                              << " elements) to " << runtime::ShapeToString(shape) << " (" << numel
                              << " elements)";
  }
  if (!x.IsContiguous()) x = x.CopyTo(x.device());
  *rv = x.CreateView(shape, x.dtype(), 0);
});

MINITVM_REGISTER_GLOBAL("vm.builtin.shape_of").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.shape_of";
  if (args.size() != 1) MINITVM_THROW(TypeError) << fname << " expects (tensor)";
  *rv = relax::ShapeTuple(TensorArg(args[0], fname, "the argument").Shape());
});

MINITVM_REGISTER_GLOBAL("vm.builtin.null_value").set_body([](PackedArgs args, Any* rv) {
  *rv = Any();
});

MINITVM_REGISTER_GLOBAL("vm.builtin.read_if_cond").set_body([](PackedArgs args, Any* rv) {
  const char* fname = "vm.builtin.read_if_cond";
  if (args.size() != 1) MINITVM_THROW(TypeError) << fname << " expects (cond)";
  const Any& v = args[0];
  if (v.is_int() || v.is_bool()) {
    *rv = int64_t{v.raw_int() != 0};
    return;
  }
  NDArray c = TensorArg(v, fname, "the condition");
  if (c.NumElements() != 1) {
    MINITVM_THROW(ValueError) << fname << ": the condition must be a scalar, got shape "
                              << runtime::ShapeToString(c.Shape());
  }
  if (c.device().device_type != kDLCPU || !c.IsContiguous()) c = c.CopyTo(runtime::CPU());
  DataType t = c.dtype();
  const void* p = c.data();
  int64_t out;
  if (t.is_bool() || (t.is_uint() && t.bits() == 8)) {
    out = *static_cast<const uint8_t*>(p) != 0;
  } else if (t.is_int() && t.bits() == 8) {
    out = *static_cast<const int8_t*>(p) != 0;
  } else if (t.is_int() && t.bits() == 32) {
    out = *static_cast<const int32_t*>(p) != 0;
  } else if (t.is_int() && t.bits() == 64) {
    out = *static_cast<const int64_t*>(p) != 0;
  } else if (t.is_float() && t.bits() == 32) {
    out = *static_cast<const float*>(p) != 0;
  } else if (t.is_float() && t.bits() == 64) {
    out = *static_cast<const double*>(p) != 0;
  } else {
    MINITVM_THROW(TypeError) << fname << ": a condition of dtype " << t << " is not supported";
  }
  *rv = out;
});

}  // namespace relax_vm
}  // namespace minitvm
