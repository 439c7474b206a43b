/*!
 * \file lower_alloc_tensor.cc
 * \brief LowerAllocTensor (stage 5 lowering of Relax for the VM): every
 * `R.builtin.alloc_tensor(shape, dtype, dev, scope)` the memory planner left (results of the
 * function, symbolic shapes, allocations inside If branches) gets a storage of its own:
 *
 *     storage = R.memory.alloc_storage(R.shape([<bytes>]), dev, scope, dtype)
 *     t = R.memory.alloc_tensor(storage, 0, shape, dtype)
 *
 * The byte count is a TIR expression (`n * 3136` for a symbolic shape; VMShapeLower computes
 * it at run time). An allocation whose shape is a shape-valued variable of unknown dimensions
 * stays (LowerRuntimeBuiltin makes it `vm.builtin.alloc_tensor_simple`).
 */
#include <string>

#include "lowering_utils.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace relax_vm {

using namespace relax;  // NOLINT(build/namespaces)

namespace {

class AllocTensorLowerer : public ExprMutator {
 public:
  Array<Binding> VisitBinding(const Binding& binding) override {
    const auto* vb = binding.as<VarBindingNode>();
    const CallNode* call = vb ? detail::AsOpCall(vb->value, "relax.builtin.alloc_tensor") : nullptr;
    if (!call || call->args.size() != 4) return ExprMutator::VisitBinding(binding);
    Expr shape = VisitExpr(call->args[0]);
    std::optional<Array<PrimExpr>> dims;
    if (const auto* s = shape.as<ShapeExprNode>()) {
      dims = s->values;
    } else if (const auto* si = GetStructInfoAs<ShapeStructInfoNode>(shape)) {
      if (si->values.defined()) dims = si->values;
    }
    const auto* dtype = call->args[1].as<DataTypeImmNode>();
    if (!dims || !dtype) return ExprMutator::VisitBinding(binding);
    // Constant dimensions first, so that `n * 1024` and not `4 * n * 256` is left to compute.
    int64_t static_bytes = dtype->value.bytes();
    for (const PrimExpr& d : *dims) {
      if (const auto* imm = d.as<IntImmNode>()) static_bytes *= imm->value;
    }
    PrimExpr bytes;
    for (const PrimExpr& d : *dims) {
      if (d.as<IntImmNode>()) continue;
      PrimExpr d64 = d.dtype() == DataType::Int(64) ? d : tir::Cast(DataType::Int(64), d);
      bytes = bytes.defined() ? bytes * d64 : d64;
    }
    PrimExpr size = IntImm(DataType::Int(64), static_bytes);
    bytes = bytes.defined() ? (static_bytes == 1 ? bytes : bytes * size) : size;
    std::vector<Binding> out;
    Expr storage = Normalize(
        op::memory::alloc_storage(ShapeExpr({bytes}), call->args[2], call->args[3], call->args[1]));
    Var storage_var = detail::Emit(&out, "storage", storage);
    Expr tensor = Normalize(op::memory::alloc_tensor(
        storage_var, PrimValue(IntImm(DataType::Int(64), 0)), shape, call->args[1]));
    Var var = VisitVarDef(vb->var);
    out.push_back(VarBinding(var, tensor));
    return Array<Binding>(out);
  }
};

}  // namespace

Pass LowerAllocTensor() {
  return detail::RelaxFunctionPass("LowerAllocTensor",
                                   [](const Function& func, const std::string&) -> Function {
                                     AllocTensorLowerer lowerer;
                                     return Downcast<Function>(lowerer.VisitExpr(func));
                                   });
}

MINITVM_REGISTER_GLOBAL("relax.transform.LowerAllocTensor").set_body_typed([]() {
  return LowerAllocTensor();
});

}  // namespace relax_vm
}  // namespace minitvm
