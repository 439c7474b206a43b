/*!
 * \file minitvm/relax_vm/vm.h
 * \brief The Relax virtual machine (stage 5): runs the bytecode of an `Executable`
 * (executable.h) — frames of registers, the four instructions, calls into the compiled kernels,
 * the "vm.builtin.*" functions and any registered packed function.
 *
 * The VM is a runtime Module of kind "relax.VirtualMachine", driven through named functions as
 * TVM's is (the C++ deploy path of the quick start, and what `relax.VirtualMachine` in Python
 * calls):
 *
 *   | function                           | what it does                                        |
 *   |------------------------------------|-----------------------------------------------------|
 *   | vm_initialization(dt, id, alloc..) | devices (type, id, allocator: 1 naive, 2 pooled)    |
 *   |                                    | triples; resolves every packed function once        |
 *   | <name of a VM function>            | a PackedFunc that runs it                           |
 *   | set_input(name, args...)           | store the arguments of `name`                       |
 *   | invoke_stateful(name)              | run `name` on them, keep the result                 |
 *   | get_output_arity(name, idx...)     | tuple size of the kept result (-1: not a tuple)     |
 *   | get_output(name, idx...)           | the kept result (or an element of it)               |
 *   | get_function_arity(name)           | number of parameters                                |
 *   | get_function_param_name(name, i)   | name of parameter i                                 |
 *   | profile(name, args...)             | run once timing every packed call: a text table     |
 *   | save_function(name, saved, args..) | `saved` becomes a function of no arguments that runs |
 *   |                                    | `name` on these arguments (for timing)               |
 *
 * Packed functions are resolved when the VM is initialised: first in the executable's
 * imports (the kernel library), then in the global registry; a missing one is a ValueError
 * naming it. Before a VM function runs, its argument count is checked (TypeError naming the
 * function, the parameters and both counts) and every NDArray argument must be on a device
 * the VM was initialised with (ValueError naming the parameter and both devices); dtype and
 * shape checks are the `vm.builtin.check_tensor_info` / `match_shape` calls the lowering puts
 * at the start of each function, so they too fail before any kernel runs.
 *
 * The per-call cost is kept low (docs/performance.md, "VM overhead"): a function handle resolves
 * its index once; initialisation plans the bytecode once, so that the argument checks and
 * allocations whose arguments are constants run inline (`PlannedInstr`), with the builtin
 * called only to report a failing check; registers are kept per call depth; the pooled allocator
 * hands the same tensors out again on the next call. A VM is therefore not for concurrent calls
 * from several threads.
 */
#ifndef MINITVM_RELAX_VM_VM_H_
#define MINITVM_RELAX_VM_VM_H_

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/relax_vm/executable.h"
#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace relax_vm {

/*! \brief How the VM allocates storage (TVM's numbering). */
enum class AllocatorType : int { kNaive = 1, kPooled = 2 };

/*!
 * \brief Hands out storage (1-D uint8 NDArrays) for one device, and tensors in it. The pooled
 * allocator keeps every storage it made and gives one back out once nothing else holds it; it
 * also keeps the tensors (views) it made in each storage, so that a call that asks for the same
 * tensor in the same storage again (every call of a statically planned function does) gets the
 * same view back instead of a new one.
 */
class Allocator {
 public:
  Allocator(runtime::Device device, AllocatorType type) : device_(device), type_(type) {}
  /*! \brief Storage of at least `nbytes` bytes. */
  NDArray Alloc(int64_t nbytes);
  /*!
   * \brief A compact tensor of `shape` and `dtype` at `byte_offset` in `storage`; the caller has
   * checked that it fits. Pooled: a view made earlier for the same storage, offset, shape and
   * dtype is handed out again when nothing but the pool holds it.
   */
  NDArray View(const NDArray& storage, int64_t byte_offset, const std::vector<int64_t>& shape,
               runtime::DataType dtype);
  /*! \brief Bytes currently held by the pool (pooled) or 0. */
  int64_t PooledBytes() const;
  runtime::Device device() const { return device_; }
  AllocatorType type() const { return type_; }

 private:
  /*! \brief A pooled storage and the views of it the pool keeps (each holds the storage). */
  struct Entry {
    NDArray storage;
    std::vector<NDArray> views;
  };
  /*! \brief Nothing outside the pool holds the storage or any of its kept views. */
  static bool IsFree(const Entry& e);

  runtime::Device device_;
  AllocatorType type_;
  std::vector<Entry> pool_;
};

/*! \brief Per-function timing collected by `profile`. */
struct ProfileEntry {
  int64_t calls = 0;
  double seconds = 0;
};

/*!
 * \brief The virtual machine. Create it with `VirtualMachineCreate(exec)` (or through the
 * executable's "vm_load_executable"), then call "vm_initialization".
 */
class VirtualMachineNode : public runtime::ModuleNode {
 public:
  std::string kind() const override { return "relax.VirtualMachine"; }
  std::optional<runtime::PackedFunc> GetFunction(const std::string& name) override;
  std::vector<std::string> FunctionNames() const override;

  /*! \brief Use `exec` (keeps it alive). */
  void LoadExecutable(runtime::ObjectPtr<ExecutableNode> exec);
  /*! \brief Devices and allocators; then resolve every packed function of the table. */
  void Init(const std::vector<runtime::Device>& devices, const std::vector<AllocatorType>& allocs);
  /*! \brief Run VM function `name` on `args` (checked: count, devices). */
  runtime::Any Invoke(const std::string& name, const std::vector<runtime::Any>& args);
  /*!
   * \brief Run VM function number `func_idx` on `num_args` arguments at `args`, checked as
   * `Invoke` checks them. The function handles `GetFunction` returns call this: the name is
   * resolved once, when the handle is made.
   */
  runtime::Any InvokeChecked(int64_t func_idx, const runtime::Any* args, int64_t num_args);
  /*! \brief Run VM function number `func_idx` (no argument checks beyond the count). */
  runtime::Any InvokeBytecode(int64_t func_idx, const std::vector<runtime::Any>& args);
  /*! \brief The same, on `num_args` arguments at `args` (not copied). */
  runtime::Any InvokeBytecode(int64_t func_idx, const runtime::Any* args, int64_t num_args);

  /*! \brief The allocator of device number `index` (as numbered at initialisation). */
  Allocator* GetAllocator(int64_t index);
  /*! \brief Device number `index`; ValueError when out of range. */
  runtime::Device GetDevice(int64_t index) const;
  const std::vector<runtime::Device>& devices() const { return devices_; }
  const ExecutableNode* exec() const { return exec_.get(); }

  /*! \brief Run `name` once on `args` timing each packed call; the table as text. */
  std::string Profile(const std::string& name, const std::vector<runtime::Any>& args);

  MINITVM_DECLARE_OBJECT_INFO(VirtualMachineNode, runtime::ModuleNode, "relax.VirtualMachine");

 private:
  /*! \brief The index of VM function `name`; AttributeError when there is none. */
  int64_t FindVMFunc(const std::string& name) const;
  /*! \brief Count and device checks of the arguments of VM function `func_idx`. */
  void CheckArgs(int64_t func_idx, const std::vector<runtime::Any>& args) const;
  void CheckArgs(int64_t func_idx, const runtime::Any* args, int64_t num_args) const;
  /*! \brief Call table entry `func_idx` (packed or VM function). */
  runtime::Any CallFunc(int64_t func_idx, const runtime::Any* args, int64_t num_args);
  /*! \brief A function of the table as a value (argument kind kFuncIdx). */
  runtime::Any FuncAsValue(int64_t func_idx);
  /*! \brief ValueError "<what><name>: the VM is not initialised" unless it is. */
  void RequireInit(const char* what, const std::string& name = std::string()) const {
    if (!initialized_) ThrowNotInitialised(what, name);
  }
  [[noreturn]] void ThrowNotInitialised(const char* what, const std::string& name) const;

  /*!
   * \brief What `Init` worked out once for one instruction, so that the interpreter does not
   * redo it on every call: the builtins below run inline (no packed call, no conversion of
   * their constant arguments) as long as their checks pass; when one fails, the builtin itself
   * is called and raises its usual error. Everything else is a packed call.
   */
  struct PlannedInstr {
    enum class Op : uint8_t {
      kPackedCall,    ///< anything else
      kNullValue,     ///< vm.builtin.null_value
      kCopy,          ///< vm.builtin.copy of a register
      kCheckTensor,   ///< vm.builtin.check_tensor_info with constant rank and dtype
      kMatchShape,    ///< vm.builtin.match_shape of a tensor against constant dimensions
      kAllocStorage,  ///< vm.builtin.alloc_storage of a constant size
      kAllocTensor,   ///< vm.builtin.alloc_tensor of a constant shape, dtype and offset
    };
    Op op = Op::kPackedCall;
    RegName src = 0;            ///< the register read (value, storage, copied value)
    int64_t ndim = -1;          ///< kCheckTensor: rank (-1: any)
    bool check_dtype = false;   ///< kCheckTensor: whether `dtype` is checked
    runtime::DataType dtype;    ///< kCheckTensor, kAllocTensor
    int64_t index = 0;          ///< kAllocStorage: device index; kAllocTensor: byte offset
    int64_t nbytes = 0;         ///< kAllocStorage: size; kAllocTensor: bytes needed
    std::vector<int64_t> dims;  ///< kMatchShape: dimensions (-1: any); kAllocTensor: shape
  };
  /*! \brief Fill `plan_` (called by `Init`, once the packed functions are resolved). */
  void PlanInstructions();
  /*! \brief Run a planned builtin inline; false when its check fails (then call it). */
  bool RunPlanned(const PlannedInstr& p, const Instruction& in, std::vector<runtime::Any>* regs);

  /*! \brief Registers and a buffer for call arguments, one per call depth, kept between calls. */
  struct Frame {
    std::vector<runtime::Any> regs;
    std::vector<runtime::Any> call_args;
  };
  std::vector<std::unique_ptr<Frame>> frames_;
  std::vector<PlannedInstr> plan_;

  runtime::ObjectPtr<ExecutableNode> exec_;
  std::vector<runtime::Device> devices_;
  std::vector<std::unique_ptr<Allocator>> allocators_;
  /*! \brief Resolved packed functions, one per table entry (undefined for VM functions). */
  std::vector<runtime::PackedFunc> packed_;
  bool initialized_ = false;
  int depth_ = 0;
  /*! \brief set_input / invoke_stateful state, per function name. */
  std::unordered_map<std::string, std::vector<runtime::Any>> inputs_;
  std::unordered_map<std::string, runtime::Any> outputs_;
  /*! \brief save_function: saved name → (function, arguments). */
  std::unordered_map<std::string, std::pair<std::string, std::vector<runtime::Any>>> saved_;
  /*! \brief Non-null while `Profile` runs. */
  std::map<std::string, ProfileEntry>* profile_ = nullptr;
};

/*! \brief A VM over `exec`, not yet initialised. */
runtime::Module VirtualMachineCreate(runtime::ObjectPtr<ExecutableNode> exec);

/*!
 * \brief Check that `exec` is well formed: names unique and mapped, instruction ranges, register
 * numbers, constant and function indices in range, jumps inside their function. ValueError
 * starting with `where`. Every loaded executable and every VM goes through it, so bytecode
 * never reads outside its arrays.
 */
void CheckExecutable(const ExecutableNode& exec, const std::string& where);

/*! \brief The executable held by `mod`; TypeError naming `what` when it is another module. */
runtime::ObjectPtr<ExecutableNode> GetExecutable(const runtime::Module& mod,
                                                 const std::string& what);

/*!
 * \brief Load an executable from its bytes (ValueError when malformed); `lib`, when given, is
 * imported (the kernel library of an exported shared library).
 */
runtime::Module ExecutableFromBytes(const std::string& bytes,
                                    const std::optional<runtime::Module>& lib);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_VM_H_
