/*!
 * \file minitvm/relax/interpreter.h
 * \brief The Relax reference interpreter (stage 4): runs an un-lowered Relax function directly,
 * binding by binding, and is what every later Relax stage (legalisation, fusion, the VM) is
 * compared with.
 *
 * Semantics, in short:
 *   - Arguments are checked against the parameters' struct info before anything runs: count
 *     (TypeError), kind (TypeError), dtype, rank and static dimensions (ValueError); symbolic
 *     dimensions are bound the first time they are seen and checked afterwards.
 *   - A call of an operator runs the operator's `FReference` attribute (op_attr.h), which
 *     computes with the stage-1 lownumpy reference ops; its result is then checked against the
 *     call's inferred struct info (InternalError when they disagree: an inference bug).
 *   - `call_tir` allocates the outputs from its output struct info (symbolic dimensions from
 *     the bound shape variables) and runs the PrimFunc with the TIR interpreter in
 *     destination-passing style; `call_dps_packed` does the same with a global (packed)
 *     function; `call_pure_packed` and calls of an ExternFunc call the global function and
 *     return what it returns; a GlobalVar callee runs that Relax function of the module.
 *   - `R.match_cast` checks the value (ValueError naming the binding and both shapes) and
 *     binds the symbolic variables it defines.
 *
 * Values (runtime::Any):
 *   | Relax value       | runtime value                                             |
 *   |-------------------|-----------------------------------------------------------|
 *   | tensor            | `runtime::NDArray` (CPU)                                  |
 *   | tuple             | `runtime::Array<Any>` of the field values                 |
 *   | shape             | `relax::ShapeTuple` (type key "runtime.ShapeTuple"); an    |
 *   |                   | argument may also be passed as an Array of ints            |
 *   | PrimValue         | int (int64), float (double) or bool                       |
 *   | string / dtype    | `String` / `DataType`                                     |
 *   | function          | a `relax::Function`, a `PackedFunc`, or a closure         |
 */
#ifndef MINITVM_RELAX_INTERPRETER_H_
#define MINITVM_RELAX_INTERPRETER_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/relax/expr.h"
#include "minitvm/runtime/any.h"

namespace minitvm {
namespace relax {

/*! \brief A shape as a run-time value (what `R.shape([n, 4])` evaluates to). */
class ShapeTupleNode : public Object {
 public:
  std::vector<int64_t> values;
  MINITVM_DECLARE_OBJECT_INFO(ShapeTupleNode, Object, "runtime.ShapeTuple");
};
/*! \brief Handle to a run-time shape. */
class ShapeTuple : public ObjectRef {
 public:
  explicit ShapeTuple(std::vector<int64_t> values);
  const std::vector<int64_t>& values() const { return get()->values; }
  size_t size() const { return get()->values.size(); }
  int64_t operator[](size_t i) const { return get()->values[i]; }
  MINITVM_DEFINE_OBJECT_REF_METHODS(ShapeTuple, ObjectRef, ShapeTupleNode);
};

/*!
 * \brief Run the Relax function `func_name` of `mod` on `args` and return its result.
 * ValueError when the module has no Relax function of that name.
 */
runtime::Any Interpret(const IRModule& mod, const std::string& func_name,
                       const std::vector<runtime::Any>& args);

/*!
 * \brief Run `func` on `args`; `mod` (optional) supplies the functions its GlobalVar callees
 * and `call_tir` name.
 */
runtime::Any Interpret(const Function& func, const std::vector<runtime::Any>& args,
                       const std::optional<IRModule>& mod = std::nullopt);

/*!
 * \brief Describe a run-time value for messages: "a tensor of shape (2, 3) and dtype float32",
 * "a tuple of 2 fields", "the shape (1, 4)", "the int 3".
 */
std::string DescribeValue(const runtime::Any& value);

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_INTERPRETER_H_
