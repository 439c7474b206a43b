/*!
 * \file viz/api.cc
 * \brief The Relax graph visualizer's global functions (stage 4), reached from Python's
 * `minitvm.contrib.relax_viz`: "relax.viz.BuildModel", "relax.viz.Diff" (a model as plain
 * values), "relax.viz.ToDot", "relax.viz.ToTerm", "relax.viz.ToHtml", "relax.viz.Render" (from
 * such a value), "relax.viz.HasGraphviz" and "relax.viz.FormatFromPath".
 */
#include "minitvm/relax/viz.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {
namespace viz {

namespace {

VizOptions MakeOptions(const Any& functions, const Any& weights, bool expand_fused) {
  VizOptions o;
  if (!functions.is_null()) {
    for (const String& f : functions.cast<Array<String>>()) o.functions.push_back(f);
  }
  if (!weights.is_null()) {
    for (const String& w : weights.cast<Array<String>>()) o.weights.insert(w);
  }
  o.expand_fused = expand_fused;
  return o;
}

}  // namespace

MINITVM_REGISTER_GLOBAL("relax.viz.BuildModel")
    .set_body_typed([](IRModule mod, Any functions, Any weights, bool expand_fused) {
      return ToValue(BuildModel(mod, MakeOptions(functions, weights, expand_fused)));
    });
MINITVM_REGISTER_GLOBAL("relax.viz.Diff")
    .set_body_typed([](IRModule before, IRModule after, std::string func, Any weights,
                       bool expand_fused) {
      return ToValue(Diff(before, after, func, MakeOptions(Any(), weights, expand_fused)));
    });
MINITVM_REGISTER_GLOBAL("relax.viz.ToDot").set_body_typed([](Any model) {
  return ToDot(FromValue(model));
});
MINITVM_REGISTER_GLOBAL("relax.viz.ToTerm").set_body_typed([](Any model, int64_t max_nodes) {
  return ToTerm(FromValue(model), max_nodes);
});
MINITVM_REGISTER_GLOBAL("relax.viz.ToHtml").set_body_typed([](Any model) {
  return ToHtml(FromValue(model));
});
MINITVM_REGISTER_GLOBAL("relax.viz.Render")
    .set_body_typed([](Any model, std::string path, std::string format) {
      Render(FromValue(model), path, format);
    });
MINITVM_REGISTER_GLOBAL("relax.viz.HasGraphviz").set_body_typed([]() { return HasGraphviz(); });
MINITVM_REGISTER_GLOBAL("relax.viz.FormatFromPath").set_body_typed([](std::string path) {
  return FormatFromPath(path);
});

}  // namespace viz
}  // namespace relax
}  // namespace minitvm
