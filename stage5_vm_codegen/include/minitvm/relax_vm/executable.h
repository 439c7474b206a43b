/*!
 * \file minitvm/relax_vm/executable.h
 * \brief The Relax VM executable (stage 5): bytecode, function table and constant pool — what
 * VM code generation produces from a lowered Relax module and what `relax.VirtualMachine` runs.
 *
 * The instruction set is TVM's, four instructions:
 *
 *   | opcode | fields                          | meaning                                         |
 *   |--------|---------------------------------|-------------------------------------------------|
 *   | Call   | dst, func_idx, args[]           | dst = func_table[func_idx](args...)             |
 *   | Ret    | result                          | return register `result`                        |
 *   | Goto   | pc_offset                       | pc += pc_offset                                 |
 *   | If     | cond, false_offset              | if register `cond` is 0: pc += false_offset,    |
 *   |        |                                 | else pc += 1                                    |
 *
 * A call argument is a register, an immediate (int64), an index into the constant pool, or an
 * index into the function table (a function as a value). Registers are per frame; the
 * parameters of a VM function occupy registers 0..num_args-1. `kVoidRegister` is the
 * destination of a call whose result is not used; `kVMRegister` as an argument passes the VM
 * itself (builtins that need its state, e.g. allocation, take it first).
 *
 * Functions in the table are of three kinds: a *packed function* (found by name when the VM
 * starts: first in the kernel library — the LLVM-compiled PrimFuncs — then in the global
 * registry, e.g. "vm.builtin.alloc_storage" or a Python function registered as "env.linear"),
 * a *VM function* (bytecode in this executable), or a *VM TIR function* (unused here; kept for
 * TVM's numbering).
 *
 * Binary format (SaveToBytes / LoadFromBytes), little-endian:
 *   magic "MTVMEXEC" (8 bytes) | u32 format version | u64 payload length | payload |
 *   u64 FNV-1a checksum of the payload.
 * A truncated file, a wrong magic or version, a checksum mismatch or an out-of-range index in
 * the payload is rejected with a ValueError that says which; nothing is half-loaded.
 */
#ifndef MINITVM_RELAX_VM_EXECUTABLE_H_
#define MINITVM_RELAX_VM_EXECUTABLE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace relax_vm {

using runtime::Any;
using runtime::NDArray;

/*! \brief A register number. */
using RegName = int64_t;

/*! \brief One argument of a Call instruction. */
struct InstrArg {
  enum class Kind : int32_t { kRegister = 0, kImmediate = 1, kConstIdx = 2, kFuncIdx = 3 };
  Kind kind = Kind::kRegister;
  int64_t value = 0;
  static InstrArg Register(RegName r) { return {Kind::kRegister, r}; }
  static InstrArg Immediate(int64_t v) { return {Kind::kImmediate, v}; }
  static InstrArg ConstIdx(int64_t i) { return {Kind::kConstIdx, i}; }
  static InstrArg FuncIdx(int64_t i) { return {Kind::kFuncIdx, i}; }
};

/*! \brief One bytecode instruction. */
struct Instruction {
  enum class Opcode : int32_t { kCall = 1, kRet = 2, kGoto = 3, kIf = 4 };
  /*! \brief Destination that discards the result. */
  static constexpr RegName kVoidRegister = -1;
  /*! \brief As an argument: the VM itself. */
  static constexpr RegName kVMRegister = -2;

  Opcode op = Opcode::kRet;
  RegName dst = kVoidRegister;  ///< Call: where the result goes
  int64_t func_idx = 0;         ///< Call: index into the function table
  std::vector<InstrArg> args;   ///< Call: the arguments
  RegName result = 0;           ///< Ret: the register returned
  int64_t pc_offset = 0;        ///< Goto: relative jump
  RegName cond = 0;             ///< If: the condition register
  int64_t false_offset = 0;     ///< If: relative jump when the condition is 0

  static Instruction Call(int64_t func_idx, std::vector<InstrArg> args, RegName dst);
  static Instruction Ret(RegName result);
  static Instruction Goto(int64_t pc_offset);
  static Instruction If(RegName cond, int64_t false_offset);
};

/*! \brief One entry of the function table. */
struct VMFuncInfo {
  enum class Kind : int32_t { kPackedFunc = 0, kVMFunc = 1, kVMTIRFunc = 2 };
  Kind kind = Kind::kPackedFunc;
  /*! \brief The name: a global function / kernel symbol, or the VM function's name. */
  std::string name;
  /*! \brief VM functions: their instructions are [start_instr, end_instr). */
  int64_t start_instr = 0;
  int64_t end_instr = 0;
  /*! \brief VM functions: number of parameters and of registers. */
  int64_t num_args = 0;
  int64_t register_file_size = 0;
  /*! \brief VM functions: parameter names (for error messages: "argument x of main"). */
  std::vector<std::string> param_names;
};

/*!
 * \brief The executable: function table, constant pool and bytecode, plus the kernel library
 * (the compiled PrimFuncs) as an imported runtime module. A runtime Module of kind
 * "relax.Executable" whose function "vm_load_executable" makes a VM over it (the C++ deploy
 * path of the quick start).
 */
class ExecutableNode : public runtime::ModuleNode {
 public:
  std::vector<VMFuncInfo> func_table;
  std::unordered_map<std::string, int64_t> func_map;
  /*! \brief Constant pool: NDArrays, shapes (runtime.ShapeTuple), strings, ints, dtypes. */
  std::vector<Any> constants;
  /*! \brief All VM functions' instructions, each function a contiguous range. */
  std::vector<Instruction> instructions;

  std::string kind() const override { return "relax.Executable"; }
  std::optional<runtime::PackedFunc> GetFunction(const std::string& name) override;

  /*! \brief Index of function `name`, adding a packed-function entry when it is new. */
  int64_t GetOrAddPackedFunc(const std::string& name);
  /*! \brief The bytecode as readable text (one function after another). */
  std::string AsText() const;
  /*! \brief Counts: functions, constants (with bytes), instructions by opcode. */
  std::string Stats() const;
  /*! \brief The binary form (format above; the kernel library is not included). */
  std::string SaveToBytes() const;
  /*! \brief Read the binary form; ValueError for anything malformed. */
  static runtime::ObjectPtr<ExecutableNode> LoadFromBytes(const std::string& bytes);

  MINITVM_DECLARE_OBJECT_INFO(ExecutableNode, runtime::ModuleNode, "relax.Executable");
};

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_EXECUTABLE_H_
