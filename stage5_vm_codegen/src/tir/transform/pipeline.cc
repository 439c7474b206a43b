/*!
 * \file pipeline.cc
 * \brief PrimFunc passes and the default TIR pipeline (stage 5): `CreatePrimFuncPass`, the
 * ordered list of lowering passes that `build` runs (registered as the llvm target's
 * "target.tir_pipeline.llvm", which the build driver looks up), and the "tir.transform.*" globals.
 */
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

using minitvm::transform::CreateModulePass;
using minitvm::transform::Sequential;

Pass CreatePrimFuncPass(std::function<PrimFunc(PrimFunc, IRModule, PassContext)> func,
                        int64_t opt_level, String name, Array<String> required) {
  return CreateModulePass(
      [func](IRModule mod, PassContext ctx) {
        IRModule result = mod;
        bool changed = false;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          BaseFunc f = mod->Lookup(gv);
          auto* pf = f.as<PrimFuncNode>();
          if (!pf) continue;
          PrimFunc updated = func(GetRef<PrimFunc>(pf), mod, ctx);
          if (!updated.same_as(f)) {
            if (!changed) {
              result = IRModule(mod->functions, mod->attrs);
              changed = true;
            }
            result.Add(gv, updated);
          }
        }
        return result;
      },
      opt_level, std::move(name), std::move(required));
}

Array<Pass> GetDefaultTIRPipelinePasses() {
  return {LowerInitBlock(),
          PlanAndUpdateBufferAllocationLocation(),
          ConvertBlocksToOpaque(),
          CompactBufferAllocation(),
          LowerOpaqueBlock(),
          FlattenBuffer(),
          Simplify(),
          VectorizeLoop(),
          UnrollLoop(),
          Simplify(),
          RemoveNoOp(),
          LowerIntrin(),
          MakePackedAPI()};
}

Pass GetDefaultTIRPipeline() {
  return Sequential(GetDefaultTIRPipelinePasses(), "tir.default_pipeline", 0);
}

MINITVM_REGISTER_GLOBAL("tir.transform.LowerInitBlock").set_body_typed(LowerInitBlock);
MINITVM_REGISTER_GLOBAL("tir.transform.PlanAndUpdateBufferAllocationLocation")
    .set_body_typed(PlanAndUpdateBufferAllocationLocation);
MINITVM_REGISTER_GLOBAL("tir.transform.ConvertBlocksToOpaque")
    .set_body_typed(ConvertBlocksToOpaque);
MINITVM_REGISTER_GLOBAL("tir.transform.CompactBufferAllocation")
    .set_body_typed(CompactBufferAllocation);
MINITVM_REGISTER_GLOBAL("tir.transform.LowerOpaqueBlock").set_body_typed(LowerOpaqueBlock);
MINITVM_REGISTER_GLOBAL("tir.transform.FlattenBuffer").set_body_typed(FlattenBuffer);
MINITVM_REGISTER_GLOBAL("tir.transform.Simplify").set_body_typed(Simplify);
MINITVM_REGISTER_GLOBAL("tir.transform.VectorizeLoop").set_body_typed(VectorizeLoop);
MINITVM_REGISTER_GLOBAL("tir.transform.UnrollLoop").set_body_typed(UnrollLoop);
MINITVM_REGISTER_GLOBAL("tir.transform.RemoveNoOp").set_body_typed(RemoveNoOp);
MINITVM_REGISTER_GLOBAL("tir.transform.LowerIntrin").set_body_typed(LowerIntrin);
MINITVM_REGISTER_GLOBAL("tir.transform.MakePackedAPI").set_body_typed(MakePackedAPI);
MINITVM_REGISTER_GLOBAL("tir.transform.GetDefaultTIRPipeline")
    .set_body_typed(GetDefaultTIRPipeline);
MINITVM_REGISTER_GLOBAL("tir.transform.DefaultTIRPipelinePasses")
    .set_body_typed(GetDefaultTIRPipelinePasses);
// The pipeline the build driver runs for `pipeline="default"` on an llvm target.
MINITVM_REGISTER_GLOBAL("target.tir_pipeline.llvm").set_body_typed(GetDefaultTIRPipeline);
// A PrimFunc pass from a packed function (func, mod, ctx) -> func, e.g. written in Python.
MINITVM_REGISTER_GLOBAL("tir.transform.MakePrimFuncPass")
    .set_body_typed([](runtime::PackedFunc f, int64_t opt_level, String name,
                       Array<String> required) {
      return CreatePrimFuncPass([f](PrimFunc func, IRModule mod,
                                    PassContext ctx) { return f(func, mod, ctx).cast<PrimFunc>(); },
                                opt_level, std::move(name), std::move(required));
    });

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
