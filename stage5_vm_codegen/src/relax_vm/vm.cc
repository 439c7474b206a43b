/*!
 * \file vm.cc
 * \brief The Relax virtual machine (stage 5): initialisation (devices, allocators, packed
 * functions resolved once), the interpreter loop over frames of registers, argument checks,
 * set_input / invoke_stateful / get_output, and the per-function profile. See vm.h.
 */
#include "minitvm/relax_vm/vm.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "minitvm/relax/interpreter.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax_vm {

using runtime::Array;
using runtime::DataType;
using runtime::Device;
using runtime::Module;
using runtime::ObjectPtr;
using runtime::PackedArgs;
using runtime::PackedFunc;

namespace {
/*! \brief Nested VM calls deeper than this are runaway recursion. */
constexpr int kMaxCallDepth = 512;
using Clock = std::chrono::steady_clock;

/*!
 * \brief The NDArray an Any holds, or nullptr. NDArrays are the common case on the hot path: a
 * type-index compare instead of `Any::as`'s dynamic_cast.
 */
inline const runtime::NDArrayNode* AsNDArray(const Any& v) {
  static const uint32_t kIndex = runtime::NDArrayNode::RuntimeTypeIndex();
  const runtime::Object* o = v.as_object();
  if (o == nullptr) return nullptr;
  if (o->type_index() == kIndex) return static_cast<const runtime::NDArrayNode*>(o);
  return dynamic_cast<const runtime::NDArrayNode*>(o);
}

/*! \brief Bytes of a compact tensor of `shape` and `dtype` (-1 for a negative dimension). */
int64_t CompactBytes(const std::vector<int64_t>& shape, DataType dtype) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    n *= d;
  }
  return n * dtype.bytes();
}
}  // namespace

// ---- allocators ------------------------------------------------------------------------------

bool Allocator::IsFree(const Entry& e) {
  // Each kept view holds the storage once (its base).
  if (e.storage->use_count() != 1 + static_cast<int>(e.views.size())) return false;
  for (const NDArray& v : e.views) {
    if (v->use_count() != 1) return false;
  }
  return true;
}

NDArray Allocator::Alloc(int64_t nbytes) {
  if (nbytes < 0) {
    MINITVM_THROW(ValueError) << "vm.builtin.alloc_storage: negative size " << nbytes << " bytes";
  }
  if (type_ == AllocatorType::kPooled) {
    // A storage of the same size that nothing outside the pool holds is free.
    for (const Entry& e : pool_) {
      if (e.storage->shape[0] == nbytes && IsFree(e)) return e.storage;
    }
  }
  NDArray s = NDArray::Empty({nbytes}, DataType::UInt(8), device_);
  if (type_ == AllocatorType::kPooled) pool_.push_back(Entry{s, {}});
  return s;
}

NDArray Allocator::View(const NDArray& storage, int64_t byte_offset,
                        const std::vector<int64_t>& shape, DataType dtype) {
  // At most this many views are kept per storage (a storage the memory plan shares between a
  // few tensors of different shapes has one each).
  constexpr size_t kMaxViews = 8;
  Entry* entry = nullptr;
  if (type_ == AllocatorType::kPooled) {
    for (Entry& e : pool_) {
      if (e.storage.get() == storage.get()) {
        entry = &e;
        break;
      }
    }
  }
  int64_t elem = storage->dtype.bytes();
  if (entry != nullptr) {
    int64_t at = storage->byte_offset + byte_offset;
    for (const NDArray& v : entry->views) {
      if (v->use_count() == 1 && v->byte_offset == at && v->dtype == dtype && v->shape == shape) {
        return v;
      }
    }
  }
  NDArray view = storage.CreateView(shape, dtype, byte_offset / elem);
  if (entry != nullptr && entry->views.size() < kMaxViews) entry->views.push_back(view);
  return view;
}

int64_t Allocator::PooledBytes() const {
  int64_t total = 0;
  for (const Entry& e : pool_) total += e.storage->shape[0];
  return total;
}

// ---- loading and initialisation --------------------------------------------------------------

Module VirtualMachineCreate(ObjectPtr<ExecutableNode> exec) {
  auto vm = runtime::make_object<VirtualMachineNode>();
  vm->LoadExecutable(std::move(exec));
  return Module(ObjectPtr<runtime::Object>(std::move(vm)));
}

void VirtualMachineNode::LoadExecutable(ObjectPtr<ExecutableNode> exec) {
  if (!exec) MINITVM_THROW(ValueError) << "VirtualMachine: no executable";
  CheckExecutable(*exec, "VirtualMachine: malformed executable");
  exec_ = std::move(exec);
  initialized_ = false;
}

void VirtualMachineNode::Init(const std::vector<Device>& devices,
                              const std::vector<AllocatorType>& allocs) {
  if (!exec_) MINITVM_THROW(ValueError) << "vm_initialization: the VM has no executable";
  if (devices.empty()) {
    MINITVM_THROW(ValueError) << "vm_initialization: expected at least one device";
  }
  if (devices.size() != allocs.size()) {
    MINITVM_THROW(ValueError) << "vm_initialization: " << devices.size() << " devices but "
                              << allocs.size() << " allocator types";
  }
  devices_ = devices;
  allocators_.clear();
  for (size_t i = 0; i < devices.size(); ++i) {
    allocators_.push_back(std::make_unique<Allocator>(devices[i], allocs[i]));
  }
  // Resolve every packed function once: the kernel library first, then the registry.
  packed_.assign(exec_->func_table.size(), PackedFunc());
  std::vector<std::string> missing;
  for (size_t i = 0; i < exec_->func_table.size(); ++i) {
    const VMFuncInfo& f = exec_->func_table[i];
    if (f.kind != VMFuncInfo::Kind::kPackedFunc) continue;
    std::optional<PackedFunc> pf;
    for (const Module& lib : exec_->imports) {
      if ((pf = lib.GetFunction(f.name, true))) break;
    }
    if (!pf) pf = runtime::Registry::Get(f.name);
    if (!pf) {
      missing.push_back(f.name);
      continue;
    }
    packed_[i] = *pf;
  }
  if (!missing.empty()) {
    std::ostringstream os;
    for (size_t i = 0; i < missing.size(); ++i) os << (i ? ", " : "") << '"' << missing[i] << '"';
    MINITVM_THROW(ValueError)
        << "vm_initialization: the executable calls " << os.str()
        << (missing.size() == 1 ? ", which is" : ", which are")
        << " neither in its kernel library nor a registered global function (register a "
           "Python function with tvm.register_func before creating the VM)";
  }
  PlanInstructions();
  initialized_ = true;
}

void VirtualMachineNode::ThrowNotInitialised(const char* what, const std::string& name) const {
  MINITVM_THROW(ValueError) << what << name
                            << ": the VM is not initialised (call \"vm_initialization\" with "
                               "its devices first)";
}

Allocator* VirtualMachineNode::GetAllocator(int64_t index) {
  if (index < 0 || index >= static_cast<int64_t>(allocators_.size())) {
    MINITVM_THROW(ValueError) << "VM: device index " << index << " out of range (the VM has "
                              << allocators_.size() << " devices)";
  }
  return allocators_[index].get();
}

Device VirtualMachineNode::GetDevice(int64_t index) const {
  if (index < 0 || index >= static_cast<int64_t>(devices_.size())) {
    MINITVM_THROW(ValueError) << "VM: device index " << index << " out of range (the VM has "
                              << devices_.size() << " devices)";
  }
  return devices_[index];
}

// ---- running bytecode ------------------------------------------------------------------------

int64_t VirtualMachineNode::FindVMFunc(const std::string& name) const {
  auto it = exec_->func_map.find(name);
  if (it == exec_->func_map.end() ||
      exec_->func_table[it->second].kind != VMFuncInfo::Kind::kVMFunc) {
    std::ostringstream os;
    bool first = true;
    for (const auto& f : exec_->func_table) {
      if (f.kind != VMFuncInfo::Kind::kVMFunc) continue;
      os << (first ? "" : ", ") << f.name;
      first = false;
    }
    MINITVM_THROW(AttributeError) << "the VM has no function \"" << name
                                  << "\" (functions: " << (first ? std::string("none") : os.str())
                                  << ")";
  }
  return it->second;
}

void VirtualMachineNode::CheckArgs(int64_t func_idx, const std::vector<Any>& args) const {
  CheckArgs(func_idx, args.data(), static_cast<int64_t>(args.size()));
}

void VirtualMachineNode::CheckArgs(int64_t func_idx, const Any* args, int64_t num_args) const {
  const VMFuncInfo& f = exec_->func_table[func_idx];
  auto param = [&](size_t i) {
    return i < f.param_names.size() ? f.param_names[i] : "#" + std::to_string(i);
  };
  if (num_args != f.num_args) {
    std::ostringstream names;
    for (int64_t i = 0; i < f.num_args; ++i) names << (i ? ", " : "") << param(i);
    MINITVM_THROW(TypeError) << f.name << "() expects " << f.num_args << " argument"
                             << (f.num_args == 1 ? "" : "s") << " (" << names.str() << ") but "
                             << num_args << (num_args == 1 ? " was" : " were") << " given";
  }
  for (int64_t i = 0; i < num_args; ++i) {
    const runtime::NDArrayNode* arr = AsNDArray(args[i]);
    if (!arr) continue;
    bool known = false;
    for (const Device& d : devices_) known = known || d == arr->device;
    if (!known) {
      std::ostringstream devs;
      for (size_t d = 0; d < devices_.size(); ++d) devs << (d ? ", " : "") << devices_[d];
      MINITVM_THROW(ValueError) << f.name << ": argument " << param(i) << " is on " << arr->device
                                << " but the VM runs on " << devs.str();
    }
  }
}

Any VirtualMachineNode::Invoke(const std::string& name, const std::vector<Any>& args) {
  RequireInit("calling ", name);
  return InvokeChecked(FindVMFunc(name), args.data(), static_cast<int64_t>(args.size()));
}

Any VirtualMachineNode::InvokeChecked(int64_t func_idx, const Any* args, int64_t num_args) {
  if (!initialized_) ThrowNotInitialised("calling ", exec_->func_table[func_idx].name);
  CheckArgs(func_idx, args, num_args);
  return InvokeBytecode(func_idx, args, num_args);
}

namespace {

/*! \brief The truth value of an If condition register. */
int64_t CondValue(const Any& v, const std::string& fname, int64_t pc) {
  if (v.is_int() || v.is_bool()) return v.raw_int();
  if (auto* arr = v.as<runtime::NDArrayNode>()) {
    NDArray a = runtime::GetRef<NDArray>(arr);
    if (a.NumElements() != 1) {
      MINITVM_THROW(ValueError) << fname << ", instruction " << pc
                                << ": an If condition must be a scalar, got an array of shape "
                                << runtime::ShapeToString(a.Shape());
    }
    if (a->device.device_type != kDLCPU) a = a.CopyTo(runtime::CPU());
    DataType t = a.dtype();
    const char* p = static_cast<const char*>(a.data());
    if (t.is_bool() || (t.is_uint() && t.bits() == 8)) return *reinterpret_cast<const uint8_t*>(p);
    if (t.is_int() && t.bits() == 8) return *reinterpret_cast<const int8_t*>(p);
    if (t.is_int() && t.bits() == 32) return *reinterpret_cast<const int32_t*>(p);
    if (t.is_int() && t.bits() == 64) return *reinterpret_cast<const int64_t*>(p);
    if (t.is_float() && t.bits() == 32) return *reinterpret_cast<const float*>(p) != 0;
    if (t.is_float() && t.bits() == 64) return *reinterpret_cast<const double*>(p) != 0;
    MINITVM_THROW(TypeError) << fname << ", instruction " << pc << ": an If condition of dtype "
                             << t << " is not supported";
  }
  MINITVM_THROW(TypeError) << fname << ", instruction " << pc
                           << ": an If condition must be an int, a bool or a scalar array, got "
                           << v.type_name();
}

}  // namespace

Any VirtualMachineNode::FuncAsValue(int64_t func_idx) {
  const VMFuncInfo& f = exec_->func_table[func_idx];
  if (f.kind == VMFuncInfo::Kind::kPackedFunc) return packed_[func_idx];
  auto self = runtime::GetRef<Module>(this);
  return PackedFunc(
      [self, func_idx](PackedArgs args, Any* rv) {
        auto* vm = static_cast<VirtualMachineNode*>(self.mutable_node());
        vm->CheckArgs(func_idx, args.data(), args.size());
        *rv = vm->InvokeBytecode(func_idx, args.data(), args.size());
      },
      f.name);
}

Any VirtualMachineNode::CallFunc(int64_t func_idx, const Any* args, int64_t num_args) {
  const VMFuncInfo& f = exec_->func_table[func_idx];
  switch (f.kind) {
    case VMFuncInfo::Kind::kPackedFunc: {
      Any rv;
      const PackedFunc& pf = packed_[func_idx];
      PackedArgs packed(args, static_cast<int>(num_args));
      if (profile_ == nullptr) {
        pf.CallPacked(packed, &rv);
      } else {
        auto t0 = Clock::now();
        pf.CallPacked(packed, &rv);
        ProfileEntry& e = (*profile_)[f.name];
        e.calls += 1;
        e.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      }
      return rv;
    }
    case VMFuncInfo::Kind::kVMFunc:
      CheckArgs(func_idx, args, num_args);
      return InvokeBytecode(func_idx, args, num_args);
    case VMFuncInfo::Kind::kVMTIRFunc:
      break;
  }
  MINITVM_THROW(ValueError) << "VM: function \"" << f.name
                            << "\" is a VM TIR function, which this VM does not run";
}

// ---- the instruction plan --------------------------------------------------------------------

namespace {

/*! \brief The constant or immediate integer an argument is, if it is one. */
std::optional<int64_t> IntArg(const InstrArg& a, const std::vector<Any>& constants) {
  if (a.kind == InstrArg::Kind::kImmediate) return a.value;
  if (a.kind == InstrArg::Kind::kConstIdx && constants[a.value].is_int()) {
    return constants[a.value].raw_int();
  }
  return std::nullopt;
}

/*! \brief The constant an argument is, or nullptr. */
const Any* ConstArg(const InstrArg& a, const std::vector<Any>& constants) {
  return a.kind == InstrArg::Kind::kConstIdx ? &constants[a.value] : nullptr;
}

/*! \brief A constant dtype (a DataType or its name), if it is one that parses. */
std::optional<DataType> DTypeConst(const Any* c) {
  if (c == nullptr) return std::nullopt;
  if (c->tag() == Any::kDataType) return c->raw_dtype();
  if (!c->is_string()) return std::nullopt;
  try {
    return DataType(c->cast<std::string>());
  } catch (const std::exception&) {
    return std::nullopt;  // the builtin reports it, on the packed path
  }
}

/*! \brief A constant shape (a ShapeTuple, or an int for a 1-D one), if it is one. */
std::optional<std::vector<int64_t>> ShapeConst(const InstrArg& a,
                                               const std::vector<Any>& constants) {
  if (auto v = IntArg(a, constants)) return std::vector<int64_t>{*v};
  const Any* c = ConstArg(a, constants);
  if (c == nullptr) return std::nullopt;
  if (auto* s = c->as<relax::ShapeTupleNode>()) return s->values;
  return std::nullopt;
}

bool IsRegister(const InstrArg& a) { return a.kind == InstrArg::Kind::kRegister && a.value >= 0; }

}  // namespace

void VirtualMachineNode::PlanInstructions() {
  using Op = PlannedInstr::Op;
  const std::vector<Any>& constants = exec_->constants;
  plan_.assign(exec_->instructions.size(), PlannedInstr());
  for (size_t pc = 0; pc < exec_->instructions.size(); ++pc) {
    const Instruction& in = exec_->instructions[pc];
    if (in.op != Instruction::Opcode::kCall) continue;
    const VMFuncInfo& f = exec_->func_table[in.func_idx];
    // Only the registered builtins run inline: a kernel library may define any name.
    if (f.kind != VMFuncInfo::Kind::kPackedFunc || f.name.rfind("vm.builtin.", 0) != 0) continue;
    bool from_library = false;
    for (const Module& lib : exec_->imports) {
      from_library = from_library || lib.GetFunction(f.name, true).has_value();
    }
    if (from_library) continue;
    const std::vector<InstrArg>& args = in.args;
    PlannedInstr p;
    if (f.name == "vm.builtin.null_value" && args.empty()) {
      p.op = Op::kNullValue;
    } else if (f.name == "vm.builtin.copy" && args.size() == 1 && IsRegister(args[0])) {
      p.op = Op::kCopy;
      p.src = args[0].value;
    } else if (f.name == "vm.builtin.check_tensor_info" && args.size() == 4 &&
               IsRegister(args[0])) {
      // (value, ndim, dtype or None, err_ctx)
      auto ndim = IntArg(args[1], constants);
      const Any* dt = ConstArg(args[2], constants);
      std::optional<DataType> dtype = DTypeConst(dt);
      if (ndim && dt != nullptr && (dt->is_null() || dtype)) {
        p.op = Op::kCheckTensor;
        p.src = args[0].value;
        p.ndim = *ndim;
        p.check_dtype = !dt->is_null() && !(dt->is_string() && dt->cast<std::string>().empty());
        if (dtype) p.dtype = *dtype;
      }
    } else if (f.name == "vm.builtin.match_shape" && args.size() >= 4 && IsRegister(args[0])) {
      // (value, heap, ndim, (kind, v)..., err_ctx): inline only the static checks (kind 0, and
      // kind 2: no check); symbolic dimensions (kinds 1, 3) go to the builtin.
      auto ndim = IntArg(args[2], constants);
      bool ok = ndim && *ndim >= 0 && args.size() == static_cast<size_t>(4 + 2 * *ndim);
      std::vector<int64_t> dims;
      for (int64_t i = 0; ok && i < *ndim; ++i) {
        auto kind = IntArg(args[3 + 2 * i], constants);
        auto v = IntArg(args[4 + 2 * i], constants);
        if (!kind || !v || (*kind != 0 && *kind != 2) || (*kind == 0 && *v < 0)) {
          ok = false;
        } else {
          dims.push_back(*kind == 0 ? *v : -1);
        }
      }
      if (ok) {
        p.op = Op::kMatchShape;
        p.src = args[0].value;
        p.dims = std::move(dims);
      }
    } else if (f.name == "vm.builtin.alloc_storage" && args.size() >= 2 && args.size() <= 5 &&
               args[0].kind == InstrArg::Kind::kRegister &&
               args[0].value == Instruction::kVMRegister) {
      // (vm, size, device_index, dtype_hint, scope)
      auto size = ShapeConst(args[1], constants);
      auto dev = args.size() > 2 ? IntArg(args[2], constants) : std::optional<int64_t>(0);
      if (size && size->size() == 1 && (*size)[0] >= 0 && dev && *dev >= 0 &&
          *dev < static_cast<int64_t>(allocators_.size())) {
        p.op = Op::kAllocStorage;
        p.nbytes = (*size)[0];
        p.index = *dev;
      }
    } else if (f.name == "vm.builtin.alloc_tensor" && args.size() == 4 && IsRegister(args[0])) {
      // (storage, offset, shape, dtype)
      auto offset = IntArg(args[1], constants);
      auto shape = ShapeConst(args[2], constants);
      std::optional<DataType> dtype = DTypeConst(ConstArg(args[3], constants));
      if (offset && *offset >= 0 && shape && dtype && CompactBytes(*shape, *dtype) >= 0) {
        p.op = Op::kAllocTensor;
        p.src = args[0].value;
        p.index = *offset;
        p.dims = *shape;
        p.dtype = *dtype;
        p.nbytes = CompactBytes(*shape, *dtype);
      }
    }
    plan_[pc] = std::move(p);
  }
}

bool VirtualMachineNode::RunPlanned(const PlannedInstr& p, const Instruction& in,
                                    std::vector<Any>* regs) {
  using Op = PlannedInstr::Op;
  Any out;
  switch (p.op) {
    case Op::kPackedCall:
      return false;
    case Op::kNullValue:
      break;
    case Op::kCopy:
      out = (*regs)[p.src];
      break;
    case Op::kCheckTensor: {
      const runtime::NDArrayNode* a = AsNDArray((*regs)[p.src]);
      if (a == nullptr || (p.ndim >= 0 && static_cast<int64_t>(a->shape.size()) != p.ndim) ||
          (p.check_dtype && a->dtype != p.dtype)) {
        return false;
      }
      break;
    }
    case Op::kMatchShape: {
      const runtime::NDArrayNode* a = AsNDArray((*regs)[p.src]);
      if (a == nullptr || a->shape.size() != p.dims.size()) return false;
      for (size_t i = 0; i < p.dims.size(); ++i) {
        if (p.dims[i] >= 0 && a->shape[i] != p.dims[i]) return false;
      }
      break;
    }
    case Op::kAllocStorage:
      out = allocators_[p.index]->Alloc(p.nbytes);
      break;
    case Op::kAllocTensor: {
      const runtime::NDArrayNode* s = AsNDArray((*regs)[p.src]);
      if (s == nullptr || s->dtype.bytes() <= 0 || p.index % s->dtype.bytes() != 0) return false;
      NDArray storage = runtime::GetRef<NDArray>(s);
      if (!storage.IsContiguous()) return false;
      int64_t have = static_cast<int64_t>(storage.NBytes());
      if (p.index > have || p.nbytes > have - p.index) return false;
      // The storage's allocator keeps the view for the next call.
      Allocator* alloc = nullptr;
      for (const auto& a : allocators_) {
        if (a->device() == s->device) alloc = a.get();
      }
      out = alloc != nullptr ? alloc->View(storage, p.index, p.dims, p.dtype)
                             : storage.CreateView(p.dims, p.dtype, p.index / s->dtype.bytes());
      break;
    }
  }
  if (in.dst != Instruction::kVoidRegister) (*regs)[in.dst] = std::move(out);
  return true;
}

// ---- running bytecode ------------------------------------------------------------------------

Any VirtualMachineNode::InvokeBytecode(int64_t func_idx, const std::vector<Any>& args) {
  return InvokeBytecode(func_idx, args.data(), static_cast<int64_t>(args.size()));
}

Any VirtualMachineNode::InvokeBytecode(int64_t func_idx, const Any* args, int64_t num_args) {
  if (func_idx < 0 || func_idx >= static_cast<int64_t>(exec_->func_table.size())) {
    MINITVM_THROW(ValueError) << "VM: function index " << func_idx << " out of range";
  }
  const VMFuncInfo& f = exec_->func_table[func_idx];
  if (f.kind != VMFuncInfo::Kind::kVMFunc) {
    MINITVM_THROW(ValueError) << "VM: \"" << f.name << "\" is not a VM function";
  }
  if (num_args != f.num_args) CheckArgs(func_idx, args, num_args);
  if (depth_ >= kMaxCallDepth) {
    MINITVM_THROW(RuntimeError) << "VM: calls nested more than " << kMaxCallDepth
                                << " deep (runaway recursion in \"" << f.name << "\"?)";
  }
  // The frame of this depth, kept from earlier calls (no allocation once it has grown). Its
  // registers are released when the function returns or throws, so that nothing the call made
  // stays alive (or keeps a pooled storage busy) after it.
  if (static_cast<int64_t>(frames_.size()) <= depth_) frames_.push_back(std::make_unique<Frame>());
  Frame& frame = *frames_[depth_];
  ++depth_;
  struct FrameGuard {
    int* depth;
    Frame* frame;
    ~FrameGuard() {
      for (Any& r : frame->regs) r = Any();
      frame->call_args.clear();
      --*depth;
    }
  } guard{&depth_, &frame};
  std::vector<Any>& regs = frame.regs;
  if (static_cast<int64_t>(regs.size()) < f.register_file_size) regs.resize(f.register_file_size);
  for (int64_t i = 0; i < f.num_args; ++i) regs[i] = args[i];
  std::vector<Any>& call_args = frame.call_args;
  Any self;  // the VM as an argument (kVMRegister), made on first use
  int64_t pc = f.start_instr;
  const std::vector<Instruction>& code = exec_->instructions;
  const bool planned = plan_.size() == code.size() && profile_ == nullptr;
  while (true) {
    if (pc < f.start_instr || pc >= f.end_instr) {
      MINITVM_THROW(ValueError) << "VM: function \"" << f.name << "\" ran off its instructions ["
                                << f.start_instr << ", " << f.end_instr << ") at " << pc
                                << " without returning";
    }
    const Instruction& in = code[pc];
    switch (in.op) {
      case Instruction::Opcode::kCall: {
        if (planned && RunPlanned(plan_[pc], in, &regs)) {
          ++pc;
          break;
        }
        call_args.clear();
        for (const InstrArg& a : in.args) {
          switch (a.kind) {
            case InstrArg::Kind::kRegister:
              if (a.value == Instruction::kVMRegister) {
                if (self.is_null()) self = runtime::GetRef<Module>(this);
                call_args.push_back(self);
              } else {
                call_args.push_back(regs[a.value]);
              }
              break;
            case InstrArg::Kind::kImmediate:
              call_args.push_back(Any(a.value));
              break;
            case InstrArg::Kind::kConstIdx:
              call_args.push_back(exec_->constants[a.value]);
              break;
            case InstrArg::Kind::kFuncIdx:
              call_args.push_back(FuncAsValue(a.value));
              break;
          }
        }
        // A nested VM call (CallFunc) uses the next frame; this one's buffer stays as it is.
        Any rv = CallFunc(in.func_idx, call_args.data(), static_cast<int64_t>(call_args.size()));
        call_args.clear();  // drop the references now: they may keep a storage busy
        if (in.dst != Instruction::kVoidRegister) regs[in.dst] = std::move(rv);
        ++pc;
        break;
      }
      case Instruction::Opcode::kRet:
        return regs[in.result];
      case Instruction::Opcode::kGoto:
        pc += in.pc_offset;
        break;
      case Instruction::Opcode::kIf:
        pc += CondValue(regs[in.cond], f.name, pc) != 0 ? 1 : in.false_offset;
        break;
      default:
        MINITVM_THROW(ValueError) << "VM: unknown opcode " << static_cast<int>(in.op);
    }
  }
}

// ---- profiling -------------------------------------------------------------------------------

std::string VirtualMachineNode::Profile(const std::string& name, const std::vector<Any>& args) {
  RequireInit("profile");
  std::map<std::string, ProfileEntry> table;
  profile_ = &table;
  auto t0 = Clock::now();
  try {
    Invoke(name, args);
  } catch (...) {
    profile_ = nullptr;
    throw;
  }
  double total = std::chrono::duration<double>(Clock::now() - t0).count();
  profile_ = nullptr;
  std::vector<std::pair<std::string, ProfileEntry>> rows(table.begin(), table.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.seconds > b.second.seconds;
  });
  double in_calls = 0;
  size_t width = 24;
  for (const auto& r : rows) {
    in_calls += r.second.seconds;
    width = std::max(width, r.first.size());
  }
  std::ostringstream os;
  os << std::fixed;
  auto row = [&](const std::string& n, const std::string& calls, double sec) {
    double pct = total > 0 ? 100.0 * sec / total : 0.0;
    os << std::left << std::setw(static_cast<int>(width)) << n << "  " << std::right << std::setw(6)
       << calls << "  " << std::setw(12) << std::setprecision(2) << sec * 1e6 << "  "
       << std::setw(7) << std::setprecision(2) << pct << "\n";
  };
  os << std::left << std::setw(static_cast<int>(width)) << "Name"
     << "  " << std::right << std::setw(6) << "Calls"
     << "  " << std::setw(12) << "Time (us)"
     << "  " << std::setw(7) << "Percent"
     << "\n";
  for (const auto& r : rows) row(r.first, std::to_string(r.second.calls), r.second.seconds);
  row("(VM interpreter)", "-", std::max(0.0, total - in_calls));
  row("Total (" + name + ")", "1", total);
  return os.str();
}

// ---- the module interface --------------------------------------------------------------------

std::vector<std::string> VirtualMachineNode::FunctionNames() const {
  std::vector<std::string> out;
  if (!exec_) return out;
  for (const auto& f : exec_->func_table) {
    if (f.kind == VMFuncInfo::Kind::kVMFunc) out.push_back(f.name);
  }
  return out;
}

namespace {

std::vector<Any> ArgsFrom(PackedArgs args, int first) {
  return std::vector<Any>(args.data() + first, args.data() + args.size());
}

/*! \brief Walk into a (nested) tuple output with the indices args[first..]. */
Any OutputAt(const Any& out, PackedArgs args, int first, const std::string& fname) {
  Any cur = out;
  for (int i = first; i < args.size(); ++i) {
    int64_t idx = args[i].cast<int64_t>();
    auto* arr = cur.as<runtime::ArrayNode>();
    if (!arr) {
      MINITVM_THROW(ValueError) << "get_output(" << fname << "): index " << idx
                                << " into a value that is not a tuple (" << cur.type_name() << ")";
    }
    if (idx < 0 || idx >= static_cast<int64_t>(arr->data.size())) {
      MINITVM_THROW(IndexError) << "get_output(" << fname << "): index " << idx
                                << " out of range for a tuple of " << arr->data.size();
    }
    cur = arr->data[idx];
  }
  return cur;
}

}  // namespace

std::optional<PackedFunc> VirtualMachineNode::GetFunction(const std::string& name) {
  auto self = runtime::GetRef<Module>(this);
  auto vm = [self]() { return static_cast<VirtualMachineNode*>(self.mutable_node()); };
  if (name == "vm_initialization") {
    return PackedFunc(
        [vm](PackedArgs args, Any* rv) {
          if (args.size() == 0 || args.size() % 3 != 0) {
            MINITVM_THROW(TypeError)
                << "vm_initialization expects (device_type, device_id, alloc_type) for each "
                   "device, got "
                << args.size() << " arguments";
          }
          std::vector<Device> devs;
          std::vector<AllocatorType> allocs;
          for (int i = 0; i < args.size(); i += 3) {
            int64_t type = args[i].cast<int64_t>();
            int64_t id = args[i + 1].cast<int64_t>();
            int64_t alloc = args[i + 2].cast<int64_t>();
            if (type != kDLCPU && type != kDLCUDA) {
              MINITVM_THROW(ValueError) << "vm_initialization: unknown device type " << type;
            }
            if (alloc != 1 && alloc != 2) {
              MINITVM_THROW(ValueError) << "vm_initialization: allocator type " << alloc
                                        << " (expected 1 = naive or 2 = pooled)";
            }
            devs.push_back(Device{static_cast<DLDeviceType>(type), static_cast<int>(id)});
            allocs.push_back(static_cast<AllocatorType>(alloc));
          }
          vm()->Init(devs, allocs);
        },
        name);
  }
  if (name == "set_input") {
    return PackedFunc(
        [vm](PackedArgs args, Any* rv) {
          if (args.size() < 1) MINITVM_THROW(TypeError) << "set_input expects (func_name, *args)";
          std::string fname = args[0].cast<std::string>();
          VirtualMachineNode* m = vm();
          m->RequireInit("set_input");
          std::vector<Any> in = ArgsFrom(args, 1);
          m->CheckArgs(m->FindVMFunc(fname), in);
          m->inputs_[fname] = std::move(in);
        },
        name);
  }
  if (name == "invoke_stateful") {
    return PackedFunc::FromTyped(
        [vm](std::string fname) {
          VirtualMachineNode* m = vm();
          auto it = m->inputs_.find(fname);
          if (it == m->inputs_.end()) {
            m->FindVMFunc(fname);  // AttributeError for an unknown function first
            MINITVM_THROW(ValueError)
                << "invoke_stateful(" << fname << "): no inputs were set (call set_input first)";
          }
          m->outputs_[fname] = m->Invoke(fname, it->second);
        },
        name);
  }
  if (name == "get_output_arity" || name == "get_output") {
    bool arity = name == "get_output_arity";
    return PackedFunc(
        [vm, arity](PackedArgs args, Any* rv) {
          if (args.size() < 1) MINITVM_THROW(TypeError) << "get_output expects (func_name, *idx)";
          std::string fname = args[0].cast<std::string>();
          VirtualMachineNode* m = vm();
          auto it = m->outputs_.find(fname);
          if (it == m->outputs_.end()) {
            MINITVM_THROW(ValueError)
                << "get_output(" << fname << "): no output (call invoke_stateful first)";
          }
          Any out = OutputAt(it->second, args, 1, fname);
          if (!arity) {
            *rv = out;
          } else if (auto* arr = out.as<runtime::ArrayNode>()) {
            *rv = static_cast<int64_t>(arr->data.size());
          } else {
            *rv = int64_t{-1};
          }
        },
        name);
  }
  if (name == "get_function_arity") {
    return PackedFunc::FromTyped(
        [vm](std::string fname) {
          VirtualMachineNode* m = vm();
          return m->exec_->func_table[m->FindVMFunc(fname)].num_args;
        },
        name);
  }
  if (name == "get_function_param_name") {
    return PackedFunc::FromTyped(
        [vm](std::string fname, int64_t i) {
          VirtualMachineNode* m = vm();
          const VMFuncInfo& f = m->exec_->func_table[m->FindVMFunc(fname)];
          if (i < 0 || i >= f.num_args) {
            MINITVM_THROW(IndexError) << "get_function_param_name: " << fname << " has "
                                      << f.num_args << " parameters, not " << i + 1;
          }
          return i < static_cast<int64_t>(f.param_names.size()) ? f.param_names[i]
                                                                : "#" + std::to_string(i);
        },
        name);
  }
  if (name == "profile") {
    return PackedFunc(
        [vm](PackedArgs args, Any* rv) {
          if (args.size() < 1) MINITVM_THROW(TypeError) << "profile expects (func_name, *args)";
          *rv = vm()->Profile(args[0].cast<std::string>(), ArgsFrom(args, 1));
        },
        name);
  }
  if (name == "save_function") {
    return PackedFunc(
        [vm](PackedArgs args, Any* rv) {
          if (args.size() < 2) {
            MINITVM_THROW(TypeError) << "save_function expects (func_name, saved_name, *args)";
          }
          VirtualMachineNode* m = vm();
          std::string fname = args[0].cast<std::string>();
          std::vector<Any> in = ArgsFrom(args, 2);
          m->RequireInit("save_function");
          m->CheckArgs(m->FindVMFunc(fname), in);
          m->saved_[args[1].cast<std::string>()] = {fname, std::move(in)};
        },
        name);
  }
  if (auto s = saved_.find(name); s != saved_.end()) {
    return PackedFunc(
        [vm, name](PackedArgs args, Any* rv) {
          VirtualMachineNode* m = vm();
          const auto& [fname, in] = m->saved_.at(name);
          *rv = m->Invoke(fname, in);
        },
        name);
  }
  if (!exec_) return std::nullopt;
  auto it = exec_->func_map.find(name);
  if (it == exec_->func_map.end() ||
      exec_->func_table[it->second].kind != VMFuncInfo::Kind::kVMFunc) {
    return std::nullopt;
  }
  // The index is resolved here, once per handle: a call goes straight to the checks and the
  // bytecode, on the arguments where the caller put them (no copy, no lookup by name).
  const int64_t func_idx = it->second;
  return PackedFunc(
      [vm, func_idx](PackedArgs args, Any* rv) {
        *rv = vm()->InvokeChecked(func_idx, args.data(), args.size());
      },
      name);
}

MINITVM_REGISTER_GLOBAL("relax_vm.VirtualMachine").set_body_typed([](Module exec) {
  return VirtualMachineCreate(GetExecutable(exec, "VirtualMachine"));
});

}  // namespace relax_vm
}  // namespace minitvm
