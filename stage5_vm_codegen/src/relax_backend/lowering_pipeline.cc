/*!
 * \file lowering_pipeline.cc
 * \brief The lowering pipeline of Relax for the VM (stage 5), `LoweringPipeline()`. Its last
 * pass is stage 4's AttachGlobalSymbol (`relax::transform::AttachGlobalSymbol`): every function
 * without a "global_symbol" gets its GlobalVar's name, the name the VM and the kernel library
 * know it by.
 */
#include "minitvm/relax/transform.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax_vm {

Pass LoweringPipeline() {
  return transform::Sequential({RewriteDataflowReshape(), CallTIRRewrite(), StaticPlanBlockMemory(),
                                LowerAllocTensor(), KillAfterLastUse(), LowerRuntimeBuiltin(),
                                VMShapeLower(), relax::transform::AttachGlobalSymbol()},
                               "relax.vm_lowering_pipeline");
}

MINITVM_REGISTER_GLOBAL("relax.vm.LoweringPipeline").set_body_typed([]() {
  return LoweringPipeline();
});

}  // namespace relax_vm
}  // namespace minitvm
