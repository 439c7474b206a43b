/*!
 * \file attach_global_symbol.cc
 * \brief AttachGlobalSymbol (stage 5 lowering of Relax for the VM): every function of the
 * module — Relax functions and PrimFuncs — without a "global_symbol" attribute gets its
 * GlobalVar's name, the name the VM and the kernel library know it by. Functions that have one
 * keep it. Also the lowering pipeline, `LoweringPipeline()`.
 */
#include <string>

#include "lowering_utils.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

Pass AttachGlobalSymbol() {
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
            out.Add(gv,
                    WithAttr(GetRef<tir::PrimFunc>(pf), "global_symbol", Any(String(gv->name_hint))));
          }
        }
        return changed ? out : mod;
      },
      0, "AttachGlobalSymbol");
}

Pass LoweringPipeline() {
  return transform::Sequential({CallTIRRewrite(), StaticPlanBlockMemory(), LowerAllocTensor(),
                                KillAfterLastUse(), LowerRuntimeBuiltin(), VMShapeLower(),
                                AttachGlobalSymbol()},
                               "relax.vm_lowering_pipeline");
}

MINITVM_REGISTER_GLOBAL("relax.transform.AttachGlobalSymbol").set_body_typed([]() {
  return AttachGlobalSymbol();
});
MINITVM_REGISTER_GLOBAL("relax.vm.LoweringPipeline").set_body_typed([]() {
  return LoweringPipeline();
});

}  // namespace relax_vm
}  // namespace minitvm
