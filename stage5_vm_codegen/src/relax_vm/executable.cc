/*!
 * \file executable.cc
 * \brief The Relax VM executable (stage 5): instruction constructors, the function table, the
 * binary format (SaveToBytes / LoadFromBytes, documented in executable.h), the structural
 * check every loaded or hand-built executable goes through, and the executable's runtime
 * functions ("vm_load_executable", "as_text", "stats", "save_to_bytes", ...).
 *
 * The payload, after the header (magic "MTVMEXEC", u32 version, u64 payload length):
 *
 *   u64 #functions, each: u32 kind | str name | i64 start, end, num_args, registers |
 *                         u64 #params | str param...
 *   u64 #constants, each a tagged value (see ConstTag)
 *   u64 #instructions, each: i32 opcode | Call: i64 dst, i64 func, u64 #args, (i32 kind,
 *                            i64 value)... | Ret: i64 reg | Goto: i64 offset |
 *                            If: i64 cond, i64 false_offset
 *
 * where `str` is u64 length + bytes. Then the u64 FNV-1a checksum of the payload. Reading never
 * trusts a count: every length is checked against the bytes that remain before anything is
 * allocated, so truncated or corrupted input fails with a ValueError and never crashes.
 */
#include "minitvm/relax_vm/executable.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "minitvm/relax/interpreter.h"
#include "minitvm/relax_vm/vm.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax_vm {

using runtime::Array;
using runtime::DataType;
using runtime::ObjectPtr;
using runtime::PackedArgs;
using runtime::PackedFunc;

// ---- instructions and the function table ----------------------------------------------------

Instruction Instruction::Call(int64_t func_idx, std::vector<InstrArg> args, RegName dst) {
  Instruction i;
  i.op = Opcode::kCall;
  i.func_idx = func_idx;
  i.args = std::move(args);
  i.dst = dst;
  return i;
}
Instruction Instruction::Ret(RegName result) {
  Instruction i;
  i.op = Opcode::kRet;
  i.result = result;
  return i;
}
Instruction Instruction::Goto(int64_t pc_offset) {
  Instruction i;
  i.op = Opcode::kGoto;
  i.pc_offset = pc_offset;
  return i;
}
Instruction Instruction::If(RegName cond, int64_t false_offset) {
  Instruction i;
  i.op = Opcode::kIf;
  i.cond = cond;
  i.false_offset = false_offset;
  return i;
}

int64_t ExecutableNode::GetOrAddPackedFunc(const std::string& name) {
  auto it = func_map.find(name);
  if (it != func_map.end()) return it->second;
  VMFuncInfo info;
  info.kind = VMFuncInfo::Kind::kPackedFunc;
  info.name = name;
  func_table.push_back(std::move(info));
  int64_t idx = static_cast<int64_t>(func_table.size()) - 1;
  func_map[name] = idx;
  return idx;
}

// ---- the structural check --------------------------------------------------------------------

namespace {

/*! \brief Registers beyond this are refused: a corrupted count must not allocate gigabytes. */
constexpr int64_t kMaxRegisters = int64_t{1} << 24;

std::string FuncLabel(const VMFuncInfo& f) { return "function \"" + f.name + "\""; }

}  // namespace

void CheckExecutable(const ExecutableNode& exec, const std::string& where) {
  auto fail = [&]() -> std::ostringstream {
    std::ostringstream os;
    os << where << ": ";
    return os;
  };
  auto raise = [](const std::ostringstream& os) { MINITVM_THROW(ValueError) << os.str(); };
  const int64_t n_funcs = static_cast<int64_t>(exec.func_table.size());
  const int64_t n_consts = static_cast<int64_t>(exec.constants.size());
  const int64_t n_instrs = static_cast<int64_t>(exec.instructions.size());
  std::unordered_set<std::string> names;
  for (int64_t fi = 0; fi < n_funcs; ++fi) {
    const VMFuncInfo& f = exec.func_table[fi];
    if (!names.insert(f.name).second) {
      auto os = fail();
      os << "function table entry " << fi << " repeats the name \"" << f.name << "\"";
      raise(os);
    }
    auto it = exec.func_map.find(f.name);
    if (it == exec.func_map.end() || it->second != fi) {
      auto os = fail();
      os << "the function map does not send \"" << f.name << "\" to entry " << fi;
      raise(os);
    }
    if (f.kind != VMFuncInfo::Kind::kVMFunc) continue;
    if (f.start_instr < 0 || f.start_instr > f.end_instr || f.end_instr > n_instrs) {
      auto os = fail();
      os << FuncLabel(f) << " has instructions [" << f.start_instr << ", " << f.end_instr
         << ") outside the " << n_instrs << " instructions of the executable";
      raise(os);
    }
    if (f.num_args < 0 || f.register_file_size < f.num_args ||
        f.register_file_size > kMaxRegisters) {
      auto os = fail();
      os << FuncLabel(f) << " has " << f.num_args << " parameters and " << f.register_file_size
         << " registers (need 0 <= parameters <= registers <= " << kMaxRegisters << ")";
      raise(os);
    }
    if (!f.param_names.empty() && static_cast<int64_t>(f.param_names.size()) != f.num_args) {
      auto os = fail();
      os << FuncLabel(f) << " has " << f.num_args << " parameters but " << f.param_names.size()
         << " parameter names";
      raise(os);
    }
    auto check_reg = [&](int64_t pc, RegName r, bool allow_void, bool allow_vm, const char* what) {
      if (r >= 0 && r < f.register_file_size) return;
      if (allow_void && r == Instruction::kVoidRegister) return;
      if (allow_vm && r == Instruction::kVMRegister) return;
      auto os = fail();
      os << FuncLabel(f) << ", instruction " << pc << ": " << what << " register " << r
         << " is out of range (the function has " << f.register_file_size << " registers)";
      raise(os);
    };
    auto check_target = [&](int64_t pc, int64_t target, const char* what) {
      if (target >= f.start_instr && target < f.end_instr) return;
      auto os = fail();
      os << FuncLabel(f) << ", instruction " << pc << ": " << what << " jumps to " << target
         << ", outside the function's instructions [" << f.start_instr << ", " << f.end_instr
         << ")";
      raise(os);
    };
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = exec.instructions[pc];
      switch (in.op) {
        case Instruction::Opcode::kCall:
          if (in.func_idx < 0 || in.func_idx >= n_funcs) {
            auto os = fail();
            os << FuncLabel(f) << ", instruction " << pc << ": call of function " << in.func_idx
               << " but the table has " << n_funcs << " functions";
            raise(os);
          }
          check_reg(pc, in.dst, true, false, "destination");
          for (size_t a = 0; a < in.args.size(); ++a) {
            const InstrArg& arg = in.args[a];
            switch (arg.kind) {
              case InstrArg::Kind::kRegister:
                check_reg(pc, arg.value, false, true, "argument");
                break;
              case InstrArg::Kind::kImmediate:
                break;
              case InstrArg::Kind::kConstIdx:
                if (arg.value < 0 || arg.value >= n_consts) {
                  auto os = fail();
                  os << FuncLabel(f) << ", instruction " << pc << ": constant " << arg.value
                     << " out of range (the pool has " << n_consts << " constants)";
                  raise(os);
                }
                break;
              case InstrArg::Kind::kFuncIdx:
                if (arg.value < 0 || arg.value >= n_funcs) {
                  auto os = fail();
                  os << FuncLabel(f) << ", instruction " << pc << ": function argument "
                     << arg.value << " out of range (the table has " << n_funcs << " functions)";
                  raise(os);
                }
                break;
              default: {
                auto os = fail();
                os << FuncLabel(f) << ", instruction " << pc << ": unknown argument kind "
                   << static_cast<int>(arg.kind);
                raise(os);
              }
            }
          }
          break;
        case Instruction::Opcode::kRet:
          check_reg(pc, in.result, false, false, "result");
          break;
        case Instruction::Opcode::kGoto:
          check_target(pc, pc + in.pc_offset, "goto");
          break;
        case Instruction::Opcode::kIf:
          check_reg(pc, in.cond, false, false, "condition");
          check_target(pc, pc + 1, "if (true branch)");
          check_target(pc, pc + in.false_offset, "if (false branch)");
          break;
        default: {
          auto os = fail();
          os << FuncLabel(f) << ", instruction " << pc << ": unknown opcode "
             << static_cast<int>(in.op);
          raise(os);
        }
      }
    }
  }
}

// ---- the binary format -----------------------------------------------------------------------

namespace {

constexpr char kMagic[8] = {'M', 'T', 'V', 'M', 'E', 'X', 'E', 'C'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 8 + 4 + 8;
constexpr size_t kChecksumBytes = 8;
/*! \brief Nesting limit of tuple constants (a corrupted file must not recurse without end). */
constexpr int kMaxConstDepth = 32;
/*! \brief Rank limit of array and shape constants. */
constexpr uint64_t kMaxRank = 64;

/*! \brief Tags of the constants in the pool. */
enum class ConstTag : uint8_t {
  kNull = 0,
  kInt = 1,
  kFloat = 2,
  kBool = 3,
  kString = 4,
  kDataType = 5,
  kShapeTuple = 6,
  kNDArray = 7,
  kTuple = 8,
  kDevice = 9,
};

uint64_t Fnv1a(const char* data, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

/*! \brief Appends little-endian values to a byte string. */
class Writer {
 public:
  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    char buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));  // the supported hosts are little-endian
    out.append(buf, sizeof(T));
  }
  void PutStr(const std::string& s) {
    Put<uint64_t>(s.size());
    out.append(s);
  }
  void PutDType(DataType t) {
    Put<uint8_t>(static_cast<uint8_t>(t.code()));
    Put<uint8_t>(static_cast<uint8_t>(t.bits()));
    Put<uint16_t>(static_cast<uint16_t>(t.lanes()));
  }
  void PutConst(const Any& v, int64_t index);
  std::string out;
};

void Writer::PutConst(const Any& v, int64_t index) {
  if (v.is_null()) {
    Put(ConstTag::kNull);
  } else if (v.is_int()) {
    Put(ConstTag::kInt);
    Put<int64_t>(v.raw_int());
  } else if (v.is_float()) {
    Put(ConstTag::kFloat);
    Put<double>(v.raw_float());
  } else if (v.is_bool()) {
    Put(ConstTag::kBool);
    Put<uint8_t>(v.raw_int() != 0);
  } else if (v.tag() == Any::kDataType) {
    Put(ConstTag::kDataType);
    PutDType(v.raw_dtype());
  } else if (v.tag() == Any::kDevice) {
    Put(ConstTag::kDevice);
    Put<int32_t>(v.raw_device().device_type);
    Put<int32_t>(v.raw_device().device_id);
  } else if (v.is_string()) {
    Put(ConstTag::kString);
    PutStr(v.cast<std::string>());
  } else if (auto* s = v.as<relax::ShapeTupleNode>()) {
    Put(ConstTag::kShapeTuple);
    Put<uint64_t>(s->values.size());
    for (int64_t d : s->values) Put<int64_t>(d);
  } else if (v.as<runtime::NDArrayNode>()) {
    NDArray arr = v.cast<NDArray>();
    if (arr->device.device_type != kDLCPU || !arr.IsContiguous()) arr = arr.CopyTo(runtime::CPU());
    Put(ConstTag::kNDArray);
    PutDType(arr.dtype());
    Put<uint64_t>(arr.Shape().size());
    for (int64_t d : arr.Shape()) Put<int64_t>(d);
    Put<uint64_t>(arr.NBytes());
    size_t at = out.size();
    out.resize(at + arr.NBytes());
    if (arr.NBytes() > 0) arr.CopyToBytes(out.data() + at, arr.NBytes());
  } else if (auto* a = v.as<runtime::ArrayNode>()) {
    Put(ConstTag::kTuple);
    Put<uint64_t>(a->data.size());
    for (const Any& e : a->data) PutConst(e, index);
  } else {
    MINITVM_THROW(ValueError) << "SaveToBytes: constant " << index << " is a " << v.type_name()
                              << ", which the executable format cannot store (it stores "
                                 "NDArray, ShapeTuple, str, int, float, bool, DataType, Device "
                                 "and tuples of them)";
  }
}

/*! \brief Reads little-endian values; every read is bounds-checked (ValueError). */
class Reader {
 public:
  Reader(const char* data, size_t size) : data_(data), size_(size) {}

  [[noreturn]] void Fail(const std::string& what) const {
    MINITVM_THROW(ValueError) << "LoadFromBytes: malformed executable: " << what << " (at byte "
                              << kHeaderBytes + pos_ << " of the file)";
  }
  void Need(uint64_t n, const char* what) const {
    if (n > size_ - pos_) {
      std::ostringstream os;
      os << "reading " << what << " needs " << n << " bytes but only " << size_ - pos_
         << " remain in the payload";
      Fail(os.str());
    }
  }
  template <typename T>
  T Get(const char* what) {
    Need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  /*! \brief A count of items of at least `min_item_bytes` each, checked against what remains. */
  uint64_t GetCount(const char* what, uint64_t min_item_bytes) {
    uint64_t n = Get<uint64_t>(what);
    if (min_item_bytes > 0 && n > (size_ - pos_) / min_item_bytes) {
      std::ostringstream os;
      os << what << " is " << n << " but only " << size_ - pos_ << " bytes remain";
      Fail(os.str());
    }
    return n;
  }
  std::string GetStr(const char* what) {
    uint64_t n = GetCount(what, 1);
    std::string s(data_ + pos_, n);
    pos_ += n;
    return s;
  }
  DataType GetDType(const char* what) {
    uint8_t code = Get<uint8_t>(what);
    uint8_t bits = Get<uint8_t>(what);
    uint16_t lanes = Get<uint16_t>(what);
    bool ok = code <= DataType::kBFloat && code != DataType::kHandle && lanes >= 1 &&
              (bits == 8 || bits == 16 || bits == 32 || bits == 64 ||
               (bits == 1 && code == DataType::kUInt));
    if (code == DataType::kHandle) ok = (bits == 64 && lanes == 1) || (bits == 0 && lanes == 0);
    if (!ok) {
      std::ostringstream os;
      os << what << " is not a valid data type (code " << int(code) << ", bits " << int(bits)
         << ", lanes " << lanes << ")";
      Fail(os.str());
    }
    return DataType(code, bits, lanes);
  }
  Any GetConst(int depth);
  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

Any Reader::GetConst(int depth) {
  if (depth > kMaxConstDepth) Fail("constant tuples nested more than 32 deep");
  auto tag = static_cast<ConstTag>(Get<uint8_t>("a constant's tag"));
  switch (tag) {
    case ConstTag::kNull:
      return Any();
    case ConstTag::kInt:
      return Any(Get<int64_t>("an int constant"));
    case ConstTag::kFloat:
      return Any(Get<double>("a float constant"));
    case ConstTag::kBool: {
      uint8_t b = Get<uint8_t>("a bool constant");
      if (b > 1) Fail("a bool constant is " + std::to_string(b));
      return Any(b == 1);
    }
    case ConstTag::kString:
      return Any(runtime::String(GetStr("a string constant's length")));
    case ConstTag::kDataType: {
      auto code = Get<uint8_t>("a dtype constant");
      auto bits = Get<uint8_t>("a dtype constant");
      auto lanes = Get<uint16_t>("a dtype constant");
      // Any dtype value is allowed here (void included): it is data, not a layout.
      return Any(DataType(code, bits, lanes));
    }
    case ConstTag::kDevice: {
      int32_t type = Get<int32_t>("a device constant");
      int32_t id = Get<int32_t>("a device constant");
      if (type != kDLCPU && type != kDLCUDA) Fail("unknown device type " + std::to_string(type));
      return Any(runtime::Device{static_cast<DLDeviceType>(type), id});
    }
    case ConstTag::kShapeTuple: {
      uint64_t n = GetCount("a shape constant's rank", 8);
      if (n > kMaxRank) Fail("a shape constant of rank " + std::to_string(n));
      std::vector<int64_t> dims(n);
      for (auto& d : dims) d = Get<int64_t>("a shape constant's dimension");
      return Any(relax::ShapeTuple(std::move(dims)));
    }
    case ConstTag::kNDArray: {
      DataType dtype = GetDType("an array constant's dtype");
      if (dtype.is_handle() || dtype.is_void()) Fail("an array constant of handle type");
      uint64_t ndim = GetCount("an array constant's rank", 8);
      if (ndim > kMaxRank) Fail("an array constant of rank " + std::to_string(ndim));
      std::vector<int64_t> shape(ndim);
      int64_t numel = 1;
      for (auto& d : shape) {
        d = Get<int64_t>("an array constant's dimension");
        if (d < 0) Fail("an array constant has the negative dimension " + std::to_string(d));
        if (__builtin_mul_overflow(numel, d, &numel)) Fail("an array constant's size overflows");
      }
      uint64_t nbytes = Get<uint64_t>("an array constant's byte count");
      int64_t expect = 0;
      if (__builtin_mul_overflow(numel, static_cast<int64_t>(dtype.bytes()), &expect) ||
          static_cast<uint64_t>(expect) != nbytes) {
        std::ostringstream os;
        os << "an array constant of shape " << runtime::ShapeToString(shape) << " and " << dtype
           << " says it has " << nbytes << " bytes";
        Fail(os.str());
      }
      Need(nbytes, "an array constant's data");
      NDArray arr = NDArray::Empty(shape, dtype, runtime::CPU());
      if (nbytes > 0) arr.CopyFromBytes(data_ + pos_, nbytes);
      pos_ += nbytes;
      return Any(arr);
    }
    case ConstTag::kTuple: {
      uint64_t n = GetCount("a tuple constant's size", 1);
      std::vector<Any> fields;
      fields.reserve(n);
      for (uint64_t i = 0; i < n; ++i) fields.push_back(GetConst(depth + 1));
      return Any(Array<Any>(fields));
    }
  }
  Fail("unknown constant tag " + std::to_string(static_cast<int>(tag)));
}

}  // namespace

std::string ExecutableNode::SaveToBytes() const {
  Writer w;
  w.Put<uint64_t>(func_table.size());
  for (const VMFuncInfo& f : func_table) {
    w.Put<uint32_t>(static_cast<uint32_t>(f.kind));
    w.PutStr(f.name);
    w.Put<int64_t>(f.start_instr);
    w.Put<int64_t>(f.end_instr);
    w.Put<int64_t>(f.num_args);
    w.Put<int64_t>(f.register_file_size);
    w.Put<uint64_t>(f.param_names.size());
    for (const auto& p : f.param_names) w.PutStr(p);
  }
  w.Put<uint64_t>(constants.size());
  for (size_t i = 0; i < constants.size(); ++i) w.PutConst(constants[i], i);
  w.Put<uint64_t>(instructions.size());
  for (const Instruction& in : instructions) {
    w.Put<int32_t>(static_cast<int32_t>(in.op));
    switch (in.op) {
      case Instruction::Opcode::kCall:
        w.Put<int64_t>(in.dst);
        w.Put<int64_t>(in.func_idx);
        w.Put<uint64_t>(in.args.size());
        for (const InstrArg& a : in.args) {
          w.Put<int32_t>(static_cast<int32_t>(a.kind));
          w.Put<int64_t>(a.value);
        }
        break;
      case Instruction::Opcode::kRet:
        w.Put<int64_t>(in.result);
        break;
      case Instruction::Opcode::kGoto:
        w.Put<int64_t>(in.pc_offset);
        break;
      case Instruction::Opcode::kIf:
        w.Put<int64_t>(in.cond);
        w.Put<int64_t>(in.false_offset);
        break;
      default:
        MINITVM_THROW(ValueError) << "SaveToBytes: instruction with unknown opcode "
                                  << static_cast<int>(in.op);
    }
  }
  std::string out(kMagic, sizeof(kMagic));
  Writer header;
  header.Put<uint32_t>(kFormatVersion);
  header.Put<uint64_t>(w.out.size());
  out += header.out;
  out += w.out;
  Writer tail;
  tail.Put<uint64_t>(Fnv1a(w.out.data(), w.out.size()));
  out += tail.out;
  return out;
}

ObjectPtr<ExecutableNode> ExecutableNode::LoadFromBytes(const std::string& bytes) {
  auto fail = [](const std::string& why) { MINITVM_THROW(ValueError) << "LoadFromBytes: " << why; };
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    if (bytes.size() < sizeof(kMagic) && std::memcmp(bytes.data(), kMagic, bytes.size()) == 0) {
      fail("truncated executable: " + std::to_string(bytes.size()) +
           " bytes, less than the header (" + std::to_string(kHeaderBytes) + " bytes)");
    }
    fail("not a minitvm VM executable (the file does not start with the magic \"MTVMEXEC\")");
  }
  if (bytes.size() < kHeaderBytes) {
    fail("truncated executable: " + std::to_string(bytes.size()) +
         " bytes, less than the header (" + std::to_string(kHeaderBytes) + " bytes)");
  }
  uint32_t version;
  uint64_t length;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&length, bytes.data() + 12, 8);
  if (version != kFormatVersion) {
    fail("unsupported executable format version " + std::to_string(version) +
         " (this build reads version " + std::to_string(kFormatVersion) + ")");
  }
  const uint64_t have = bytes.size() - kHeaderBytes;
  if (length > have || have - length < kChecksumBytes) {
    fail("truncated executable: the header announces a payload of " + std::to_string(length) +
         " bytes plus an 8-byte checksum, but only " + std::to_string(have) +
         " bytes follow the header");
  }
  if (have - length > kChecksumBytes) {
    fail(std::to_string(have - length - kChecksumBytes) +
         " unexpected bytes after the checksum (the file is corrupted or was concatenated)");
  }
  const char* payload = bytes.data() + kHeaderBytes;
  uint64_t stored;
  std::memcpy(&stored, payload + length, 8);
  uint64_t actual = Fnv1a(payload, length);
  if (stored != actual) {
    std::ostringstream os;
    os << "checksum mismatch: the file is corrupted (stored 0x" << std::hex << stored
       << ", computed 0x" << actual << ")";
    fail(os.str());
  }

  Reader r(payload, length);
  auto exec = runtime::make_object<ExecutableNode>();
  uint64_t n_funcs = r.GetCount("the number of functions", 4 + 8 + 32 + 8);
  exec->func_table.reserve(n_funcs);
  for (uint64_t i = 0; i < n_funcs; ++i) {
    VMFuncInfo f;
    uint32_t kind = r.Get<uint32_t>("a function's kind");
    if (kind > static_cast<uint32_t>(VMFuncInfo::Kind::kVMTIRFunc)) {
      r.Fail("function " + std::to_string(i) + " has the unknown kind " + std::to_string(kind));
    }
    f.kind = static_cast<VMFuncInfo::Kind>(kind);
    f.name = r.GetStr("a function's name");
    f.start_instr = r.Get<int64_t>("a function's first instruction");
    f.end_instr = r.Get<int64_t>("a function's last instruction");
    f.num_args = r.Get<int64_t>("a function's parameter count");
    f.register_file_size = r.Get<int64_t>("a function's register count");
    uint64_t n_params = r.GetCount("a function's number of parameter names", 8);
    for (uint64_t p = 0; p < n_params; ++p) f.param_names.push_back(r.GetStr("a parameter name"));
    if (exec->func_map.count(f.name)) {
      r.Fail("the function name \"" + f.name + "\" appears twice");
    }
    exec->func_map[f.name] = static_cast<int64_t>(exec->func_table.size());
    exec->func_table.push_back(std::move(f));
  }
  uint64_t n_consts = r.GetCount("the number of constants", 1);
  exec->constants.reserve(n_consts);
  for (uint64_t i = 0; i < n_consts; ++i) exec->constants.push_back(r.GetConst(0));
  uint64_t n_instrs = r.GetCount("the number of instructions", 4 + 8);
  exec->instructions.reserve(n_instrs);
  for (uint64_t i = 0; i < n_instrs; ++i) {
    int32_t op = r.Get<int32_t>("an opcode");
    Instruction in;
    switch (static_cast<Instruction::Opcode>(op)) {
      case Instruction::Opcode::kCall: {
        RegName dst = r.Get<int64_t>("a call's destination");
        int64_t func = r.Get<int64_t>("a call's function");
        uint64_t n_args = r.GetCount("a call's number of arguments", 12);
        std::vector<InstrArg> args(n_args);
        for (auto& a : args) {
          int32_t kind = r.Get<int32_t>("an argument's kind");
          if (kind < 0 || kind > static_cast<int32_t>(InstrArg::Kind::kFuncIdx)) {
            r.Fail("instruction " + std::to_string(i) + " has an argument of unknown kind " +
                   std::to_string(kind));
          }
          a.kind = static_cast<InstrArg::Kind>(kind);
          a.value = r.Get<int64_t>("an argument's value");
        }
        in = Instruction::Call(func, std::move(args), dst);
        break;
      }
      case Instruction::Opcode::kRet:
        in = Instruction::Ret(r.Get<int64_t>("a return register"));
        break;
      case Instruction::Opcode::kGoto:
        in = Instruction::Goto(r.Get<int64_t>("a goto offset"));
        break;
      case Instruction::Opcode::kIf: {
        RegName cond = r.Get<int64_t>("an if condition");
        in = Instruction::If(cond, r.Get<int64_t>("an if offset"));
        break;
      }
      default:
        r.Fail("instruction " + std::to_string(i) + " has the unknown opcode " +
               std::to_string(op));
    }
    exec->instructions.push_back(std::move(in));
  }
  if (r.remaining() != 0) {
    r.Fail(std::to_string(r.remaining()) + " bytes left over at the end of the payload");
  }
  CheckExecutable(*exec, "LoadFromBytes: malformed executable");
  return exec;
}

// ---- runtime functions of the executable ----------------------------------------------------

namespace {

NDArray BytesToArray(const std::string& bytes) {
  NDArray arr = NDArray::Empty({static_cast<int64_t>(bytes.size())}, DataType::UInt(8));
  if (!bytes.empty()) arr.CopyFromBytes(bytes.data(), bytes.size());
  return arr;
}

std::string ArrayToBytes(const NDArray& arr) {
  if (arr.dtype() != DataType::UInt(8) && arr.dtype() != DataType::Int(8)) {
    MINITVM_THROW(TypeError) << "executable bytes: expected a uint8 array, got " << arr.dtype();
  }
  NDArray compact =
      arr.IsContiguous() && arr.device().device_type == kDLCPU ? arr : arr.CopyTo(runtime::CPU());
  std::string out(compact.NBytes(), '\0');
  if (!out.empty()) compact.CopyToBytes(out.data(), out.size());
  return out;
}

void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out) MINITVM_THROW(ValueError) << "cannot write " << path << ": " << std::strerror(errno);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) MINITVM_THROW(ValueError) << "cannot write " << path << ": write failed";
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) MINITVM_THROW(ValueError) << "cannot read " << path << ": " << std::strerror(errno);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

std::optional<PackedFunc> ExecutableNode::GetFunction(const std::string& name) {
  auto self = runtime::GetRef<runtime::Module>(this);
  auto exec_ptr = [self]() {
    return ObjectPtr<ExecutableNode>(
        const_cast<ExecutableNode*>(static_cast<const ExecutableNode*>(self.get())));
  };
  if (name == "vm_load_executable" || name == "vm_profiler_load_executable") {
    return PackedFunc::FromTyped([exec_ptr]() { return VirtualMachineCreate(exec_ptr()); }, name);
  }
  if (name == "as_text") {
    return PackedFunc::FromTyped([exec_ptr]() { return exec_ptr()->AsText(); }, name);
  }
  if (name == "stats") {
    return PackedFunc::FromTyped([exec_ptr]() { return exec_ptr()->Stats(); }, name);
  }
  if (name == "save_to_bytes") {
    return PackedFunc::FromTyped([exec_ptr]() { return BytesToArray(exec_ptr()->SaveToBytes()); },
                                 name);
  }
  if (name == "save_to_file") {
    return PackedFunc::FromTyped(
        [exec_ptr](std::string path) { WriteFileBytes(path, exec_ptr()->SaveToBytes()); }, name);
  }
  if (name == "get_function_names") {
    return PackedFunc::FromTyped(
        [exec_ptr]() {
          Array<runtime::String> out;
          for (const auto& f : exec_ptr()->func_table) {
            if (f.kind == VMFuncInfo::Kind::kVMFunc) out.push_back(f.name);
          }
          return out;
        },
        name);
  }
  return std::nullopt;
}

/*! \brief The executable held by `mod`; TypeError when it is another kind of module. */
ObjectPtr<ExecutableNode> GetExecutable(const runtime::Module& mod, const std::string& what) {
  auto* node = mod.as<ExecutableNode>();
  if (!node) {
    MINITVM_THROW(TypeError) << what
                             << ": expected a relax.Executable module, got a module of kind "
                             << (mod.defined() ? mod->kind() : std::string("None"));
  }
  return ObjectPtr<ExecutableNode>(const_cast<ExecutableNode*>(node));
}

/*! \brief Load from bytes; a library module (the kernels) given as `lib` becomes the import. */
runtime::Module ExecutableFromBytes(const std::string& bytes,
                                    const std::optional<runtime::Module>& lib) {
  auto exec = ExecutableNode::LoadFromBytes(bytes);
  runtime::Module mod(exec);
  if (lib && lib->defined()) mod.Import(*lib);
  return mod;
}

MINITVM_REGISTER_GLOBAL("relax_vm.ExecutableSaveToBytes").set_body_typed([](runtime::Module mod) {
  return BytesToArray(GetExecutable(mod, "save_to_bytes")->SaveToBytes());
});
MINITVM_REGISTER_GLOBAL("relax_vm.ExecutableLoadFromBytes").set_body_typed([](NDArray bytes) {
  return ExecutableFromBytes(ArrayToBytes(bytes), std::nullopt);
});
MINITVM_REGISTER_GLOBAL("relax_vm.ExecutableSaveToFile")
    .set_body_typed([](runtime::Module mod, std::string path) {
      WriteFileBytes(path, GetExecutable(mod, "save_to_file")->SaveToBytes());
    });
MINITVM_REGISTER_GLOBAL("relax_vm.ExecutableLoadFromFile").set_body_typed([](std::string path) {
  std::string bytes = ReadFileBytes(path);
  try {
    return ExecutableFromBytes(bytes, std::nullopt);
  } catch (const Error& e) {
    MINITVM_THROW_KIND(e.kind()) << path << ": " << e.what();
  }
});
MINITVM_REGISTER_GLOBAL("relax_vm.ExecutableAsText").set_body_typed([](runtime::Module mod) {
  return GetExecutable(mod, "as_text")->AsText();
});
MINITVM_REGISTER_GLOBAL("relax_vm.ExecutableStats").set_body_typed([](runtime::Module mod) {
  return GetExecutable(mod, "stats")->Stats();
});
// A hand-built executable, for tests and lessons (what code generation makes, written out):
//   funcs:  [[name, kind, start, end, num_args, registers, [param names]], ...]
//   consts: [value, ...]
//   instrs: [[1 (Call), dst, func, arg kind, arg value, ...], [2 (Ret), reg],
//            [3 (Goto), offset], [4 (If), cond, false_offset], ...]
// It goes through the same structural check as a loaded executable.
MINITVM_REGISTER_GLOBAL("relax_vm.ExecutableFromParts")
    .set_body_typed([](Array<Array<Any>> funcs, Array<Any> consts, Array<Array<int64_t>> instrs) {
      auto exec = runtime::make_object<ExecutableNode>();
      for (const Array<Any>& f : funcs) {
        if (f.size() != 7) {
          MINITVM_THROW(ValueError) << "ExecutableFromParts: a function entry has 7 fields "
                                       "(name, kind, start, end, num_args, registers, params), "
                                       "got "
                                    << f.size();
        }
        VMFuncInfo info;
        info.name = f[0].cast<std::string>();
        int64_t kind = f[1].cast<int64_t>();
        if (kind < 0 || kind > 2) MINITVM_THROW(ValueError) << "bad function kind " << kind;
        info.kind = static_cast<VMFuncInfo::Kind>(kind);
        info.start_instr = f[2].cast<int64_t>();
        info.end_instr = f[3].cast<int64_t>();
        info.num_args = f[4].cast<int64_t>();
        info.register_file_size = f[5].cast<int64_t>();
        for (const Any& p : f[6].cast<Array<Any>>())
          info.param_names.push_back(p.cast<std::string>());
        if (exec->func_map.count(info.name)) {
          MINITVM_THROW(ValueError)
              << "ExecutableFromParts: function \"" << info.name << "\" appears twice";
        }
        exec->func_map[info.name] = static_cast<int64_t>(exec->func_table.size());
        exec->func_table.push_back(std::move(info));
      }
      for (const Any& c : consts) exec->constants.push_back(c);
      for (const Array<int64_t>& in : instrs) {
        std::vector<int64_t> v = in.to_vector();
        auto need = [&](size_t n) {
          if (v.size() != n) {
            MINITVM_THROW(ValueError) << "ExecutableFromParts: instruction with opcode " << v[0]
                                      << " needs " << n << " fields, got " << v.size();
          }
        };
        if (v.empty()) MINITVM_THROW(ValueError) << "ExecutableFromParts: empty instruction";
        switch (v[0]) {
          case 1: {
            if (v.size() < 3 || (v.size() - 3) % 2 != 0) need(3);
            std::vector<InstrArg> args;
            for (size_t i = 3; i < v.size(); i += 2) {
              if (v[i] < 0 || v[i] > 3) MINITVM_THROW(ValueError) << "bad argument kind " << v[i];
              args.push_back({static_cast<InstrArg::Kind>(v[i]), v[i + 1]});
            }
            exec->instructions.push_back(Instruction::Call(v[2], std::move(args), v[1]));
            break;
          }
          case 2:
            need(2);
            exec->instructions.push_back(Instruction::Ret(v[1]));
            break;
          case 3:
            need(2);
            exec->instructions.push_back(Instruction::Goto(v[1]));
            break;
          case 4:
            need(3);
            exec->instructions.push_back(Instruction::If(v[1], v[2]));
            break;
          default:
            MINITVM_THROW(ValueError) << "ExecutableFromParts: unknown opcode " << v[0];
        }
      }
      CheckExecutable(*exec, "ExecutableFromParts");
      return runtime::Module(ObjectPtr<runtime::Object>(std::move(exec)));
    });
// The loader export_library's blob goes through (see runtime_cpu::LoadLibraryModule): the
// executable's bytes and the library module that holds the kernels.
MINITVM_REGISTER_GLOBAL("runtime.module.loadbinary_relax.Executable")
    .set_body_typed([](std::string bytes, runtime::Module lib) {
      return ExecutableFromBytes(bytes, lib);
    });

}  // namespace relax_vm
}  // namespace minitvm
