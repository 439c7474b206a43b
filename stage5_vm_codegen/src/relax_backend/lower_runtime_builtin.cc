/*!
 * \file lower_runtime_builtin.cc
 * \brief LowerRuntimeBuiltin (stage 5 lowering of Relax for the VM): what is left of Relax
 * operators and tuple values becomes calls of the VM builtins (transform.h's table):
 *
 *   | before                                       | after (ExternFunc "vm.builtin.*")         |
 *   |----------------------------------------------|-------------------------------------------|
 *   | R.memory.alloc_storage(size, dev, scope, dt) | with_ctx alloc_storage(size, dev, "dt",   |
 *   |                                              |   scope)                                  |
 *   | R.memory.alloc_tensor(s, offset, shape, dt)  | alloc_tensor(s, offset, shape, "dt")      |
 *   | R.builtin.alloc_tensor(shape, dt, dev, scope)| with_ctx alloc_tensor_simple(shape, "dt", |
 *   |                                              |   dev)                                    |
 *   | (a, b)                                       | make_tuple(a, b)                          |
 *   | t[i]                                         | tuple_getitem(t, i)                       |
 *   | R.reshape(x, shape)                          | reshape(x, shape)                         |
 *   | R.shape_of(x)                                | shape_of(x)                               |
 *   | R.call_pure_packed(f, args...)               | R.call_packed(f, args...)                 |
 *
 * "with_ctx" is `R.call_builtin_with_ctx("vm.builtin.<name>", (args...))` (the VM is passed
 * first), the others `R.call_packed("vm.builtin.<name>", args...)`.
 *
 * Dtypes become string arguments. The kills stay: code generation turns them into a register
 * reset. Every rewritten call keeps the struct info of the value it replaces.
 */
#include <string>

#include "lowering_utils.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax_vm {

using namespace relax;  // NOLINT(build/namespaces)

namespace {

Expr DTypeArg(const Expr& e) {
  if (const auto* d = e.as<DataTypeImmNode>()) return detail::DTypeString(d->value);
  return e;
}

class RuntimeBuiltinLowerer : public ExprMutator {
 public:
  Array<Binding> VisitBinding(const Binding& binding) override {
    const auto* vb = binding.as<VarBindingNode>();
    if (!vb) return ExprMutator::VisitBinding(binding);
    Expr value = ExprMutator::VisitExpr(vb->value);
    StructInfo info = GetStructInfo(vb->value);
    std::optional<Expr> lowered = Lower(value, info);
    Var var = VisitVarDef(vb->var);
    if (!lowered) {
      if (var.same_as(vb->var) && value.same_as(vb->value)) return {binding};
      return {VarBinding(var, value)};
    }
    return {VarBinding(var, *lowered)};
  }

 private:
  std::optional<Expr> Lower(const Expr& value, const StructInfo& info) {
    if (const auto* t = value.as<TupleNode>()) {
      return detail::CallPacked("vm.builtin.make_tuple", t->fields, info);
    }
    if (const auto* g = value.as<TupleGetItemNode>()) {
      return detail::CallPacked("vm.builtin.tuple_getitem",
                                {g->tuple, detail::Int64Value(g->index)}, info);
    }
    const auto* call = value.as<CallNode>();
    if (!call) return std::nullopt;
    const auto& a = call->args;
    if (IsOp(call->op, "relax.memory.alloc_storage") && a.size() == 4) {
      return detail::CallBuiltinWithCtx("vm.builtin.alloc_storage",
                                        {a[0], a[1], DTypeArg(a[3]), a[2]}, info);
    }
    if (IsOp(call->op, "relax.memory.alloc_tensor") && a.size() == 4) {
      return detail::CallPacked("vm.builtin.alloc_tensor", {a[0], a[1], a[2], DTypeArg(a[3])},
                                info);
    }
    if (IsOp(call->op, "relax.builtin.alloc_tensor") && a.size() == 4) {
      return detail::CallBuiltinWithCtx("vm.builtin.alloc_tensor_simple",
                                        {a[0], DTypeArg(a[1]), a[2]}, info);
    }
    if (IsOp(call->op, "relax.reshape") && a.size() == 2) {
      return detail::CallPacked("vm.builtin.reshape", {a[0], a[1]}, info);
    }
    if (IsOp(call->op, "relax.shape_of") && a.size() == 1) {
      return detail::CallPacked("vm.builtin.shape_of", {a[0]}, info);
    }
    if (IsOp(call->op, "relax.call_pure_packed") && !a.empty()) {
      Array<Expr> args;
      for (size_t i = 1; i < a.size(); ++i) args.push_back(a[i]);
      Call out(a[0], args, {}, {info});
      UpdateStructInfo(out, info);
      return out;
    }
    return std::nullopt;
  }
};

}  // namespace

Pass LowerRuntimeBuiltin() {
  return detail::RelaxFunctionPass("LowerRuntimeBuiltin",
                                   [](const Function& func, const std::string&) -> Function {
                                     RuntimeBuiltinLowerer lowerer;
                                     return Downcast<Function>(lowerer.VisitExpr(func));
                                   });
}

MINITVM_REGISTER_GLOBAL("relax.transform.LowerRuntimeBuiltin").set_body_typed([]() {
  return LowerRuntimeBuiltin();
});

}  // namespace relax_vm
}  // namespace minitvm
