/*!
 * \file attach_global_symbol.cc
 * \brief The lowering pipeline of Relax for the VM (stage 5), `LoweringPipeline()`, and its
 * last pass AttachGlobalSymbol: every function of the module — Relax functions and PrimFuncs —
 * without a "global_symbol" attribute gets its GlobalVar's name, the name the VM and the kernel
 * library know it by. Stage 4 registers that pass as "relax.transform.AttachGlobalSymbol";
 * `relax_vm::AttachGlobalSymbol()` returns the registered one, and only when it is missing a
 * local equivalent (so the name is registered once).
 */
#include <string>

#include "lowering_utils.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

namespace {

Pass LocalAttachGlobalSymbol() {
  return transform::CreateModulePass(
      [](IRModule mod, transform::PassContext) {
        IRModule out = mod;
        bool changed = false;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          BaseFunc f = mod->Lookup(gv);
          if (f->attrs.Get(String("global_symbol"))) continue;
          if (!changed) out = IRModule(mod->functions, mod->attrs);
          changed = true;
          if (const auto* rf = f.as<relax::FunctionNode>()) {
            out.Add(gv, WithAttr(GetRef<relax::Function>(rf), "global_symbol",
                                 Any(String(gv->name_hint))));
          } else if (const auto* pf = f.as<tir::PrimFuncNode>()) {
            out.Add(gv, WithAttr(GetRef<tir::PrimFunc>(pf), "global_symbol",
                                 Any(String(gv->name_hint))));
          }
        }
        return changed ? out : mod;
      },
      0, "AttachGlobalSymbol");
}

}  // namespace

Pass AttachGlobalSymbol() {
  if (auto f = runtime::Registry::Get("relax.transform.AttachGlobalSymbol")) {
    return (*f)().cast<Pass>();
  }
  return LocalAttachGlobalSymbol();
}

Pass LoweringPipeline() {
  return transform::Sequential(
      {CallTIRRewrite(), StaticPlanBlockMemory(), LowerAllocTensor(), KillAfterLastUse(),
       LowerRuntimeBuiltin(), VMShapeLower(), AttachGlobalSymbol()},
      "relax.vm_lowering_pipeline");
}

MINITVM_REGISTER_GLOBAL("relax.vm.LoweringPipeline").set_body_typed([]() {
  return LoweringPipeline();
});

}  // namespace relax_vm
}  // namespace minitvm
