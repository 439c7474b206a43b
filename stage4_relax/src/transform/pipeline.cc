/*!
 * \file transform/pipeline.cc
 * \brief The Relax pipelines (stage 4), TVM's `relax.get_pipeline(name)`: named Sequentials of
 * Relax passes.
 *   - "zero": LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR (TVM's zero
 *     pipeline);
 *   - "default": "zero" with DeadCodeElimination after FoldConstant (a dead binding would keep
 *     its producer from fusing with the real consumer) and again at the end (the dead bindings
 *     and PrimFuncs that folding and fusion leave behind), and first FuseTransposeMatmul (stage 5,
 *     when built: matmul(x, permute_dims(w)) legalized as one kernel reading w as it is).
 * Every pass is found by its registered name ("relax.transform.<Name>") when the pipeline is
 * built, so a pass that is not compiled in (FuseOps and FuseTIR live in their own files) is left
 * out rather than breaking the pipeline.
 */
#include <sstream>

#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

/*! \brief The pass the global "relax.transform.<name>" makes with its default arguments. */
std::optional<Pass> PassByName(const std::string& name) {
  auto f = runtime::Registry::Get("relax.transform." + name);
  if (!f) return std::nullopt;
  // FuseOps takes TVM's fuse_opt_level, whose default -1 means "the PassContext's opt_level".
  if (name == "FuseOps") {
    try {
      if (auto p = (*f)(Any(int64_t{-1})).try_cast<Pass>()) return *p;
    } catch (const Error&) {
    }
  }
  // Optional parameters take their defaults from null arguments; try the common arities.
  for (int nargs = 0; nargs <= 2; ++nargs) {
    try {
      Any out = nargs == 0 ? (*f)() : nargs == 1 ? (*f)(Any()) : (*f)(Any(), Any());
      if (auto p = out.try_cast<Pass>()) return *p;
    } catch (const Error&) {
      continue;
    }
  }
  return std::nullopt;
}

std::vector<std::string> PipelinePasses(const std::string& name) {
  std::vector<std::string> zero = {"LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "FuseOps",
                                   "FuseTIR"};
  if (name == "zero") return zero;
  if (name == "default") {
    // Dead bindings (folded constants, unused values) removed before grouping, so they do not
    // keep a producer from fusing with its one real consumer; and once more after fusion.
    // FuseTransposeMatmul (stage 5, when built): matmul(x, permute_dims(w)) as one kernel.
    // An inference batch norm becomes elementwise arithmetic that FuseOps puts into the kernel
    // of the conv (or matmul) producing its input; CanonicalizeBindings reads `bn[0]` through
    // the tuple the decomposition builds. Before that, a batch norm after a conv2d by a constant
    // kernel (weights bound) is folded into the kernel and a bias (FoldConstant computes them).
    return {"FuseTransposeMatmul",
            "FoldInferenceBatchnormToConv2D",
            "DecomposeInferenceBatchNorm",
            "CanonicalizeBindings",
            "LegalizeOps",
            "AnnotateTIROpPattern",
            "FoldConstant",
            "DeadCodeElimination",
            "FuseOps",
            "FuseTIR",
            "DeadCodeElimination"};
  }
  return {};
}

}  // namespace
}  // namespace transform

std::vector<std::string> PipelineNames() { return {"default", "zero"}; }

transform::Pass GetPipeline(const std::string& name) {
  std::vector<std::string> names = transform::PipelinePasses(name);
  if (names.empty()) {
    std::ostringstream known;
    bool first = true;
    for (const std::string& n : PipelineNames()) {
      known << (first ? "" : ", ") << "\"" << n << "\"";
      first = false;
    }
    MINITVM_THROW(ValueError) << "relax.get_pipeline: unknown pipeline \"" << name
                              << "\"; the known pipelines are " << known.str();
  }
  Array<transform::Pass> passes;
  for (const std::string& p : names) {
    if (auto pass = transform::PassByName(p)) passes.push_back(*pass);
  }
  return minitvm::transform::Sequential(passes, "relax.pipeline." + name);
}

MINITVM_REGISTER_GLOBAL("relax.get_pipeline").set_body_typed([](std::string name) {
  return GetPipeline(name);
});
MINITVM_REGISTER_GLOBAL("relax.PipelineNames").set_body_typed([]() {
  Array<String> out;
  for (const std::string& n : PipelineNames()) out.push_back(String(n));
  return out;
});

}  // namespace relax
}  // namespace minitvm
