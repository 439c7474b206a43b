/*!
 * \file instruction.h
 * \brief Instruction kinds (stage 3, internal): for each primitive, how it is applied from
 * recorded inputs and attributes, and how it is printed as a line of Python.
 *
 * Each primitive's source file registers its kind next to the transformation
 * (`MINITVM_REGISTER_INST_KIND`), so that a reader finds everything about `split` in
 * `split.cc`. The Schedule methods, trace replay and the FFI all go through
 * `ScheduleNode::Apply(kind, inputs, attrs)`, which looks the kind up here.
 */
#ifndef MINITVM_STAGE3_SRC_INSTRUCTION_H_
#define MINITVM_STAGE3_SRC_INSTRUCTION_H_

#include <functional>
#include <string>
#include <vector>

#include "minitvm/tir/schedule/schedule.h"

namespace minitvm {
namespace tir {

/*! \brief How one kind of instruction applies and prints. */
struct InstructionKindInfo {
  /*! \brief The kind, e.g. "Split". */
  std::string name;
  /*! \brief The Schedule method in Python, e.g. "split". */
  std::string method;
  /*! \brief Keyword names of the inputs; empty with `variadic` means positional inputs. */
  std::vector<std::string> input_names;
  /*! \brief Inputs are printed positionally (reorder, fuse). */
  bool variadic = false;
  /*! \brief Keyword names of the attributes. */
  std::vector<std::string> attr_names;
  /*! \brief The method returns a list (`l1, l2 = ...`), not a single handle. */
  bool returns_list = false;
  /*! \brief What the outputs are: 'b' for blocks, 'l' for loops. */
  char output_kind = 'b';
  /*! \brief Parameter order of the Python method when it differs from inputs + attrs. */
  std::vector<std::string> python_params;
  /*! \brief Default values of optional parameters, by keyword name (for parsing Python). */
  std::vector<std::pair<std::string, Any>> defaults;
  /*! \brief Apply: inputs hold the schedule's own handles; returns the new handles. */
  std::function<Array<ObjectRef>(ScheduleNode*, const Array<Any>&, const Array<Any>&)> apply;
  /*! \brief Optional custom printer of the call's argument list (without parentheses). */
  std::function<std::string(const std::vector<std::string>& inputs, const Array<Any>& attrs)>
      print_args;
};

/*! \brief Register a kind (at load time). */
bool RegisterInstructionKind(InstructionKindInfo info);
/*! \brief The kind named `name`; ValueError listing the kinds when unknown. */
const InstructionKindInfo& GetInstructionKind(const std::string& name);

/*! \brief A Python literal for a plain value: `True`, `4`, `"shared"`, `None`, `[1, 2]`. */
std::string PythonLiteral(const Any& value);

/*!
 * \brief One instruction as Python. `name_of` gives the trace name of a handle.
 */
std::string InstructionAsPython(const std::string& kind, const Array<Any>& inputs,
                                const Array<Any>& attrs, const Array<ObjectRef>& outputs,
                                const std::function<std::string(const ObjectRef&)>& name_of);

}  // namespace tir
}  // namespace minitvm

#define MINITVM_INST_CONCAT_(a, b) a##b
#define MINITVM_INST_CONCAT(a, b) MINITVM_INST_CONCAT_(a, b)
/*! \brief Register an instruction kind at load time from an InstructionKindInfo expression. */
#define MINITVM_REGISTER_INST_KIND(...)                                                 \
  [[maybe_unused]] static const bool MINITVM_INST_CONCAT(_minitvm_inst_, __COUNTER__) = \
      ::minitvm::tir::RegisterInstructionKind(__VA_ARGS__)

#endif  // MINITVM_STAGE3_SRC_INSTRUCTION_H_
