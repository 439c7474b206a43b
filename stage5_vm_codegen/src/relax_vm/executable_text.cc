/*!
 * \file executable_text.cc
 * \brief The readable forms of the Relax VM executable (stage 5): `AsText()` and `Stats()`.
 * (The instruction constructors, the function table, serialisation and the VM itself live in
 * executable.cc and vm*.cc.)
 *
 * AsText prints one function after another, an instruction per line:
 *
 *     @main(x, w):
 *       call  vm.builtin.check_tensor_info in: %0, i2, c[0], c[1] dst: %void
 *       call  matmul in: %0, %1, %2 dst: %void
 *       if    %5, 3
 *       goto  2
 *       ret   %2
 *
 * Arguments: `%N` a register, `%vm` the VM, `iV` an immediate, `c[K]` a constant-pool entry,
 * `f[name]` a function of the table as a value.
 */
#include <sstream>
#include <string>

#include "minitvm/relax/interpreter.h"
#include "minitvm/relax_vm/executable.h"

namespace minitvm {
namespace relax_vm {

// The instruction constructors and GetOrAddPackedFunc are defined in executable.cc.

namespace {

std::string RegText(RegName r) {
  if (r == Instruction::kVoidRegister) return "%void";
  if (r == Instruction::kVMRegister) return "%vm";
  return "%" + std::to_string(r);
}

/*! \brief A constant-pool entry in a few words: "tensor float32 (784, 256)", "shape (1, 784)". */
std::string ConstantText(const Any& c) {
  if (c.as<runtime::NDArrayNode>()) {
    runtime::NDArray a = c.cast<runtime::NDArray>();
    return "tensor " + DataTypeToString(a.dtype()) + " " + runtime::ShapeToString(a.Shape());
  }
  if (auto* s = c.as<relax::ShapeTupleNode>()) return "shape " + runtime::ShapeToString(s->values);
  if (c.is_string()) return "str \"" + c.cast<std::string>() + "\"";
  if (c.tag() == Any::kDataType) return "dtype " + DataTypeToString(c.raw_dtype());
  if (c.is_int()) return "int " + std::to_string(c.raw_int());
  if (c.is_bool()) return std::string("bool ") + (c.raw_int() ? "True" : "False");
  if (c.is_float()) {
    std::ostringstream os;
    os << "float " << c.raw_float();
    return os.str();
  }
  if (c.is_null()) return "None";
  return c.ToString();
}

}  // namespace

std::string ExecutableNode::AsText() const {
  std::ostringstream os;
  auto arg_text = [this](const InstrArg& a) -> std::string {
    switch (a.kind) {
      case InstrArg::Kind::kRegister:
        return RegText(a.value);
      case InstrArg::Kind::kImmediate:
        return "i" + std::to_string(a.value);
      case InstrArg::Kind::kConstIdx:
        return "c[" + std::to_string(a.value) + "]";
      case InstrArg::Kind::kFuncIdx:
        if (a.value >= 0 && a.value < static_cast<int64_t>(func_table.size())) {
          return "f[" + func_table[a.value].name + "]";
        }
        return "f[#" + std::to_string(a.value) + "]";
    }
    return "?";
  };
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != VMFuncInfo::Kind::kVMFunc) continue;
    os << "@" << f.name << "(";
    for (size_t i = 0; i < f.param_names.size(); ++i) os << (i ? ", " : "") << f.param_names[i];
    os << "):\n";
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      if (pc < 0 || pc >= static_cast<int64_t>(instructions.size())) break;
      const Instruction& in = instructions[pc];
      switch (in.op) {
        case Instruction::Opcode::kCall: {
          std::string callee =
              in.func_idx >= 0 && in.func_idx < static_cast<int64_t>(func_table.size())
                  ? func_table[in.func_idx].name
                  : "#" + std::to_string(in.func_idx);
          os << "  call  " << callee << " in: ";
          for (size_t i = 0; i < in.args.size(); ++i) os << (i ? ", " : "") << arg_text(in.args[i]);
          os << " dst: " << RegText(in.dst) << "\n";
          break;
        }
        case Instruction::Opcode::kRet:
          os << "  ret   " << RegText(in.result) << "\n";
          break;
        case Instruction::Opcode::kGoto:
          os << "  goto  " << in.pc_offset << "\n";
          break;
        case Instruction::Opcode::kIf:
          os << "  if    " << RegText(in.cond) << ", " << in.false_offset << "\n";
          break;
      }
    }
    os << "\n";
  }
  return os.str();
}

std::string ExecutableNode::Stats() const {
  std::ostringstream os;
  os << "Relax VM executable statistics:\n";
  int64_t num_vm = 0, num_packed = 0;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind == VMFuncInfo::Kind::kVMFunc) ++num_vm;
    if (f.kind == VMFuncInfo::Kind::kPackedFunc) ++num_packed;
  }
  os << "  VM functions (" << num_vm << "):";
  bool first = true;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != VMFuncInfo::Kind::kVMFunc) continue;
    os << (first ? " " : ", ") << f.name << " (" << f.num_args << " args, " << f.register_file_size
       << " registers, " << (f.end_instr - f.start_instr) << " instructions)";
    first = false;
  }
  os << "\n  Packed functions (" << num_packed << "):";
  first = true;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != VMFuncInfo::Kind::kPackedFunc) continue;
    os << (first ? " " : ", ") << f.name;
    first = false;
  }
  int64_t tensor_bytes = 0;
  for (const Any& c : constants) {
    if (c.as<runtime::NDArrayNode>()) {
      tensor_bytes += static_cast<int64_t>(c.cast<runtime::NDArray>().NBytes());
    }
  }
  os << "\n  Constant pool (" << constants.size() << " entries, " << tensor_bytes
     << " bytes of tensors):\n";
  for (size_t i = 0; i < constants.size(); ++i) {
    os << "    c[" << i << "] " << ConstantText(constants[i]) << "\n";
  }
  int64_t calls = 0, rets = 0, gotos = 0, ifs = 0;
  for (const Instruction& in : instructions) {
    switch (in.op) {
      case Instruction::Opcode::kCall:
        ++calls;
        break;
      case Instruction::Opcode::kRet:
        ++rets;
        break;
      case Instruction::Opcode::kGoto:
        ++gotos;
        break;
      case Instruction::Opcode::kIf:
        ++ifs;
        break;
    }
  }
  os << "  Instructions (" << instructions.size() << "): call " << calls << ", ret " << rets
     << ", goto " << gotos << ", if " << ifs << "\n";
  return os.str();
}

}  // namespace relax_vm
}  // namespace minitvm
