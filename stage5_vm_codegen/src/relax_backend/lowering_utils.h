/*!
 * \file lowering_utils.h
 * \brief Helpers shared by the Relax-to-VM lowering passes and VM code generation (stage 5):
 * making calls of the VM builtins with their struct info, fresh binding variables, static
 * shape sizes, and the alias analysis that tells which allocations a value may refer to.
 */
#ifndef MINITVM_RELAX_BACKEND_LOWERING_UTILS_H_
#define MINITVM_RELAX_BACKEND_LOWERING_UTILS_H_

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/ir/transform.h"
#include "minitvm/relax/expr.h"
#include "minitvm/relax/struct_info.h"

namespace minitvm {
namespace relax_vm {
namespace detail {

/*! \brief `R.Tuple()`: the struct info of a call whose result is not a value. */
relax::StructInfo VoidInfo();

/*! \brief `R.call_packed(name, *args, sinfo_args=(ret,))`: a call of the ExternFunc `name`. */
relax::Call CallPacked(const std::string& name, Array<relax::Expr> args,
                       const relax::StructInfo& ret);

/*!
 * \brief `R.call_builtin_with_ctx(name, (args...), sinfo_args=(ret,))`: a builtin that takes
 * the VM itself as its first argument.
 */
relax::Call CallBuiltinWithCtx(const std::string& name, Array<relax::Expr> args,
                               const relax::StructInfo& ret);

/*! \brief A plain (non-dataflow) variable carrying `info`. */
relax::Var MakeVar(const std::string& name, const relax::StructInfo& info);

/*! \brief A binding `var = value` of a fresh variable named `name` with the value's info. */
relax::Var Emit(std::vector<relax::Binding>* out, const std::string& name,
                const relax::Expr& value);

/*! \brief The dimensions when they are all constants. */
std::optional<std::vector<int64_t>> StaticShape(const Array<PrimExpr>& dims);

/*! \brief The size in bytes of a dense tensor of `shape` and `dtype`. */
int64_t NumBytes(const std::vector<int64_t>& shape, DataType dtype);

/*! \brief The dtype as an "R.dtype" string argument ("float32"). */
relax::StringImm DTypeString(DataType dtype);

/*! \brief An int64 PrimValue. */
relax::PrimValue Int64Value(int64_t v);

/*! \brief Whether `value` is a call of the op `name`. */
const relax::CallNode* AsOpCall(const relax::Expr& value, const char* name);

/*!
 * \brief A module pass that rewrites every Relax function with `frewrite(func, name)`; a
 * function returned unchanged stays the same object.
 */
transform::Pass RelaxFunctionPass(
    const std::string& name,
    std::function<relax::Function(const relax::Function&, const std::string&)> frewrite);

/*!
 * \brief Which root values (allocations) each variable of a function's top-level bindings may
 * refer to: a var bound to a root refers to itself; any other binding propagates the roots of
 * the free variables of its value. `Roots(v)` is then the set a use of `v` keeps alive.
 */
class AliasAnalysis {
 public:
  /*!
   * \brief Analyse `bindings` (in order); `is_root(binding)` says which bindings create a
   * root. Every other binding's variable may refer to the roots of its value's free variables
   * (conservative: a packed call may return its argument).
   */
  AliasAnalysis(const std::vector<relax::Binding>& bindings,
                const std::function<bool(const relax::Binding&)>& is_root);
  /*! \brief The roots a variable may refer to (empty when none). */
  const std::unordered_set<const relax::VarNode*>& Roots(const relax::VarNode* var) const;
  /*! \brief Every root an expression's free variables may refer to. */
  std::unordered_set<const relax::VarNode*> RootsOfExpr(const relax::Expr& e) const;

 private:
  std::unordered_map<const relax::VarNode*, std::unordered_set<const relax::VarNode*>> roots_;
  std::unordered_set<const relax::VarNode*> empty_;
};

/*! \brief The top-level bindings of a function body (all blocks, in order). */
std::vector<relax::Binding> TopLevelBindings(const relax::Function& func);

/*! \brief The value of a binding (VarBinding value or MatchCast value). */
relax::Expr BindingValue(const relax::Binding& b);

}  // namespace detail
}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_BACKEND_LOWERING_UTILS_H_
