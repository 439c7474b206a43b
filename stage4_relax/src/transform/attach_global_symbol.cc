/*!
 * \file transform/attach_global_symbol.cc
 * \brief AttachGlobalSymbol (stage 4), TVM's `relax.transform.AttachGlobalSymbol()`: every
 * function of the module (Relax or TIR) that has no "global_symbol" attribute gets its name in
 * the module as one, so code generation exports it under that name. A function that already
 * has one keeps it.
 */
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax {
namespace transform {

Pass AttachGlobalSymbol() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        IRModule out = mod;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          BaseFunc f = mod->Lookup(gv);
          if (f->attrs.count("global_symbol")) continue;
          Any name = Any(String(gv->name_hint));
          if (const auto* rf = f.as<FunctionNode>()) {
            out.Add(gv, WithAttr(GetRef<Function>(rf), "global_symbol", name));
          } else if (const auto* pf = f.as<tir::PrimFuncNode>()) {
            out.Add(gv, WithAttr(GetRef<tir::PrimFunc>(pf), "global_symbol", name));
          }
        }
        return out;
      },
      0, "AttachGlobalSymbol");
}

MINITVM_REGISTER_GLOBAL("relax.transform.AttachGlobalSymbol").set_body_typed([]() {
  return AttachGlobalSymbol();
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
