/*!
 * \file transform/to_non_dataflow.cc
 * \brief ToNonDataflow (stage 4), TVM's `relax.transform.ToNonDataflow()`: every dataflow block
 * becomes a plain binding block and every DataflowVar a Var of the same name and struct info
 * (what lowering to the VM wants: no block-local variables left).
 */
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {
class ToNonDataflowMutator : public ExprMutator {
 public:
  Var VisitVarDef(const Var& var) override {
    if (!var.as<DataflowVarNode>()) return ExprMutator::VisitVarDef(var);
    auto it = var_remap_.find(var.get());
    if (it != var_remap_.end()) return it->second;
    StructInfo info;
    if (var->struct_info_.defined())
      info = VisitStructInfo(Downcast<StructInfo>(var->struct_info_));
    Var fresh(var->name_hint, info);
    var_remap_[var.get()] = fresh;
    return fresh;
  }
  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    BindingBlock out = ExprMutator::VisitBindingBlock(block);
    if (out.as<DataflowBlockNode>()) return BindingBlock(out->bindings);
    return out;
  }
};
}  // namespace

Pass ToNonDataflow() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        return MapRelaxFunctions(
            mod, [](const Function& f) { return ToNonDataflowMutator().VisitExpr(f); });
      },
      0, "ToNonDataflow");
}

MINITVM_REGISTER_GLOBAL("relax.transform.ToNonDataflow").set_body_typed([]() {
  return ToNonDataflow();
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
