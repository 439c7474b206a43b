/*!
 * \file pipeline.cc
 * \brief PrimFunc passes and the default TIR pipeline (stage 5): `CreatePrimFuncPass`, the
 * ordered list of lowering passes that `build` runs (registered as the llvm target's
 * "target.tir_pipeline.llvm", which the build driver looks up), and the "tir.transform.*" globals.
 */
#include <vector>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/transform/gpu.h"
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
  // The checked build mode, as in TVM: "tir.instrument_bound_checkers" set in the current
  // PassContext starts the pipeline with asserts on indices and divisors (docs/hardening.md).
  bool checked = PassContext::Current().GetConfig<bool>("tir.instrument_bound_checkers", false);
  std::vector<Pass> passes = {InstrumentBoundCheckers(),  // only in the checked build mode
                              LowerInitBlock(),
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
  return Array<Pass>(passes.begin() + (checked ? 0 : 1), passes.end());
}

Pass GetDefaultTIRPipeline() {
  return Sequential(GetDefaultTIRPipelinePasses(), "tir.default_pipeline", 0);
}

Array<Pass> GetCUDATIRPipelinePasses(const target::Target& target) {
  Array<Pass> passes;
  for (const Pass& p : GetDefaultTIRPipelinePasses()) {
    if (p->info->name != "tir.MakePackedAPI") passes.push_back(p);  // the host module unpacks
  }
  // The GPU passes (minitvm/tir/transform/gpu.h), after the default ones.
  for (Pass p : {VerifyGPUCode(GPULimits::FromTarget(target)),  // threads, shared bytes, extents
                 ThreadSync("shared"),                          // __syncthreads() where needed
                 SplitHostDevice(),                             // kernels become device funcs
                 LowerDeviceKernelLaunch()}) {                  // host calls with launch dims
    passes.push_back(p);
  }
  return passes;
}

MINITVM_REGISTER_GLOBAL("tir.transform.InstrumentBoundCheckers")
    .set_body_typed(InstrumentBoundCheckers);
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
// The pipeline the build driver runs for `pipeline="default"` on a cuda target.
MINITVM_REGISTER_GLOBAL("target.tir_pipeline.cuda").set_body_typed([]() {
  return Sequential(GetCUDATIRPipelinePasses(target::Target("cuda")), "tir.cuda_pipeline", 0);
});
MINITVM_REGISTER_GLOBAL("tir.transform.CUDATIRPipelinePasses").set_body_typed([](Any target) {
  target::Target t = target.is_null()     ? target::Target("cuda")
                     : target.is_string() ? target::Target(target.cast<std::string>())
                                          : target.cast<target::Target>();
  return GetCUDATIRPipelinePasses(t);
});
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
