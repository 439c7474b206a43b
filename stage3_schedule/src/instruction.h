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
#include <tuple>
#include <type_traits>
#include <utility>
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

/*!
 * \brief Register a kind (at load time). This also registers the global function
 * `"tir.schedule.<name>"` (see RegisterScheduleGlobal), so a new primitive needs no other table.
 */
bool RegisterInstructionKind(InstructionKindInfo info);
/*!
 * \brief Register `"tir.schedule.<kind>"`, called as `(sch, params...)` with the parameters in
 * the Python method's order (`python_params`, or inputs then attributes; a variadic kind takes
 * its handles as one list). Missing trailing parameters take their `defaults`. Returns the list
 * of new handles when `returns_list`, else the single new handle, else None.
 */
void RegisterScheduleGlobal(const InstructionKindInfo& info);
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

// ---- typed primitives ----------------------------------------------------------------------

/*!
 * \brief A recorded value as a handle: TypeError "expected a block but got a loop" (or the
 * reverse) for a handle of the other kind, and "expected a BlockRV or LoopRV handle" for
 * anything else.
 */
ObjectRef UnpackHandle(const Any& value, bool want_loop);

/*! \brief How a recorded value becomes a parameter of type T (Any's cast, handles checked). */
template <typename T>
struct PrimitiveArg {
  static T Get(const Any& v) { return v.cast<T>(); }
};
template <>
struct PrimitiveArg<BlockRV> {
  static BlockRV Get(const Any& v) { return Downcast<BlockRV>(UnpackHandle(v, false)); }
};
template <>
struct PrimitiveArg<LoopRV> {
  static LoopRV Get(const Any& v) { return Downcast<LoopRV>(UnpackHandle(v, true)); }
};

namespace detail {
template <typename Fn>
struct PrimitiveSignature;
template <typename... Args>
struct PrimitiveSignature<Array<ObjectRef> (*)(ScheduleNode*, Args...)> {
  using Params = std::tuple<std::decay_t<Args>...>;
};
/*! \brief Unpack `values` into the parameter types of `Fn` and call it. */
template <typename Fn, size_t... I>
Array<ObjectRef> CallUnpacked(Fn fn, ScheduleNode* self, const std::vector<Any>& values,
                              std::index_sequence<I...>) {
  using Params = typename PrimitiveSignature<Fn>::Params;
  return fn(self, PrimitiveArg<std::tuple_element_t<I, Params>>::Get(values[I])...);
}
}  // namespace detail

/*! \brief True for `Array<...>`: a primitive whose first parameter is a list of handles. */
template <typename T>
struct IsHandleList : std::false_type {};
template <typename T>
struct IsHandleList<Array<T>> : std::true_type {};

/*!
 * \brief The typed unpacking step of a primitive: an `apply` that calls
 * `fn(self, inputs..., attrs...)` with every recorded value cast to the type `fn` declares
 * (a TypeError names the expected type). A primitive whose first parameter is a list
 * (`const Array<ObjectRef>& loops`) is variadic: its handles arrive as that one list.
 *
 *     Array<ObjectRef> SetScope(ScheduleNode* self, const BlockRV& block, int64_t buffer_index,
 *                               const std::string& storage_scope);
 *     k.apply = TypedApply(SetScope);
 */
template <typename... Args>
std::function<Array<ObjectRef>(ScheduleNode*, const Array<Any>&, const Array<Any>&)> TypedApply(
    Array<ObjectRef> (*fn)(ScheduleNode*, Args...)) {
  using Fn = Array<ObjectRef> (*)(ScheduleNode*, Args...);
  constexpr bool kVariadic = [] {
    if constexpr (sizeof...(Args) == 0) {
      return false;
    } else {
      return IsHandleList<std::decay_t<std::tuple_element_t<0, std::tuple<Args...>>>>::value;
    }
  }();
  return [fn](ScheduleNode* self, const Array<Any>& inputs, const Array<Any>& attrs) {
    std::vector<Any> values;
    if (kVariadic) {
      values.push_back(Any(inputs));
    } else {
      for (const Any& v : inputs) values.push_back(v);
    }
    for (const Any& v : attrs) values.push_back(v);
    if (values.size() != sizeof...(Args)) {
      MINITVM_THROW(TypeError) << "schedule instruction expects " << sizeof...(Args)
                               << " inputs and attributes but got " << values.size();
    }
    return detail::CallUnpacked<Fn>(fn, self, values, std::index_sequence_for<Args...>{});
  };
}

/*!
 * \brief A kind from its names and its typed primitive: `name` ("Split"), the Python `method`
 * ("split"), the keyword names of the inputs and of the attributes. A primitive taking a list
 * of handles first makes a variadic kind (inputs printed positionally). Set the other fields
 * (defaults, output_kind, returns_list, ...) on the result.
 */
template <typename... Args>
InstructionKindInfo MakeInstructionKind(std::string name, std::string method,
                                        std::vector<std::string> input_names,
                                        std::vector<std::string> attr_names,
                                        Array<ObjectRef> (*fn)(ScheduleNode*, Args...)) {
  InstructionKindInfo k;
  k.name = std::move(name);
  k.method = std::move(method);
  k.input_names = std::move(input_names);
  k.attr_names = std::move(attr_names);
  if constexpr (sizeof...(Args) > 0) {
    k.variadic = IsHandleList<std::decay_t<std::tuple_element_t<0, std::tuple<Args...>>>>::value;
  }
  k.apply = TypedApply(fn);
  return k;
}

}  // namespace tir
}  // namespace minitvm

#define MINITVM_INST_CONCAT_(a, b) a##b
#define MINITVM_INST_CONCAT(a, b) MINITVM_INST_CONCAT_(a, b)
/*! \brief Register an instruction kind at load time from an InstructionKindInfo expression. */
#define MINITVM_REGISTER_INST_KIND(...)                                                 \
  [[maybe_unused]] static const bool MINITVM_INST_CONCAT(_minitvm_inst_, __COUNTER__) = \
      ::minitvm::tir::RegisterInstructionKind(__VA_ARGS__)

#endif  // MINITVM_STAGE3_SRC_INSTRUCTION_H_
