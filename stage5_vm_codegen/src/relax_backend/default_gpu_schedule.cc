/*!
 * \file default_gpu_schedule.cc
 * \brief The GPU default schedule of stage 5 ("relax.transform.DefaultGPUSchedule"), TVM's
 * DefaultGPUSchedule idea: every block of every PrimFunc that has no thread binding yet gets
 * its leading spatial loops fused, split by the block size (256 threads, or the loop's extent
 * when smaller, capped by the target's max_threads_per_block) and bound to
 * `blockIdx.x` / `threadIdx.x`; reduction loops stay serial inside each thread. Each block
 * becomes one kernel. A block with no spatial loop (a reduction to a scalar) gets a unit loop
 * bound to one thread.
 */
#include <string>
#include <vector>

#include "minitvm/relax_vm/default_schedule.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/schedule/schedule.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax_vm {

using tir::BlockRV;
using tir::LoopRV;
using tir::PrimFunc;
using tir::Schedule;

namespace {

bool HasThreadBinding(const PrimFunc& f) {
  bool found = false;
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    auto* loop = n.as<tir::ForNode>();
    found = found || (loop && loop->kind == tir::ForKind::kThreadBinding);
  });
  return found;
}

std::vector<std::string> BlockNamesOf(const PrimFunc& f) {
  std::vector<std::string> names;
  const tir::BlockNode* root = nullptr;
  if (auto* r = f->body.as<tir::BlockRealizeNode>()) root = r->block.get();
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (auto* b = n.as<tir::BlockNode>(); b && b != root) names.push_back(b->name_hint.str());
  });
  return names;
}

/*! \brief Whether loop variable `v` feeds only data-parallel iterators of the block. */
bool IsSpatialLoop(const tir::BlockRealizeNode* realize, const tir::VarNode* v) {
  for (size_t i = 0; i < realize->iter_values.size(); ++i) {
    bool uses = false;
    tir::PostOrderVisit(tir::Evaluate(realize->iter_values[i]),
                        [&](const ObjectRef& n) { uses = uses || n.get() == v; });
    if (uses && realize->block->iter_vars[i]->iter_type != tir::kDataPar) return false;
  }
  return true;
}

const tir::BlockRealizeNode* FindRealize(const Schedule& sch, const std::string& name) {
  const auto* f = sch->mod()->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  const tir::BlockRealizeNode* out = nullptr;
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (auto* r = n.as<tir::BlockRealizeNode>(); r && r->block->name_hint == name) out = r;
  });
  return out;
}

}  // namespace

PrimFunc DefaultGPUSchedulePrimFunc(const PrimFunc& func, const target::Target& target) {
  if (HasThreadBinding(func)) return func;
  int64_t max_threads = target->GetAttr<int64_t>("max_threads_per_block").value_or(1024);
  int64_t block_size = std::min<int64_t>(256, max_threads);
  Schedule sch = Schedule::Create(func);
  for (const std::string& name : BlockNamesOf(func)) {
    BlockRV b = sch->GetBlock(name);
    Array<LoopRV> loops = sch->GetLoops(b);
    const tir::BlockRealizeNode* realize = FindRealize(sch, name);
    Array<LoopRV> spatial;
    for (const LoopRV& l : loops) {
      if (!IsSpatialLoop(realize, sch->Get(l)->loop_var.get())) break;
      spatial.push_back(l);
    }
    if (spatial.empty()) {
      MINITVM_THROW(ValueError) << "DefaultGPUSchedule: block " << name
                                << " has no spatial loop to bind to GPU threads";
    }
    LoopRV fused = spatial.size() == 1 ? spatial[0] : sch->Fuse(spatial);
    auto extent = AsConstInt(sch->Get(fused)->extent);
    int64_t threads = extent ? std::min(*extent, block_size) : block_size;
    Array<LoopRV> parts = sch->Split(fused, {std::nullopt, threads});
    sch->Bind(parts[0], "blockIdx.x");
    sch->Bind(parts[1], "threadIdx.x");
  }
  const auto* out = sch->mod()->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  PrimFunc result = GetRef<PrimFunc>(out);
  result.CopyOnWrite()->attrs = func->attrs;
  return WithAttr(result, "tir.is_scheduled", Any(true));
}

transform::Pass DefaultGPUSchedule(const target::Target& target) {
  return transform::CreateModulePass(
      [target](IRModule mod, transform::PassContext) {
        IRModule out(mod->functions, mod->attrs);
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          const auto* f = mod->Lookup(gv).as<tir::PrimFuncNode>();
          if (!f) continue;
          out.Add(gv, DefaultGPUSchedulePrimFunc(GetRef<PrimFunc>(f), target));
        }
        return out;
      },
      0, "DefaultGPUSchedule");
}

MINITVM_REGISTER_GLOBAL("relax.transform.DefaultGPUSchedule").set_body_typed([](Any target) {
  target::Target t = target.is_null()     ? target::Target("cuda")
                     : target.is_string() ? target::Target(target.cast<std::string>())
                                          : target.cast<target::Target>();
  return DefaultGPUSchedule(t);
});

}  // namespace relax_vm
}  // namespace minitvm
