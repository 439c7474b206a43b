/*!
 * \file static_plan_block_memory.cc
 * \brief StaticPlanBlockMemory (stage 5 lowering of Relax for the VM): storage reuse for the
 * statically shaped intermediates of a function.
 *
 * The plan, in short (a simplification of TVM's pass):
 *   - candidates are the top-level bindings `t = R.builtin.alloc_tensor(<static shape>, ...)`
 *     whose tensor is not (part of) what the function returns;
 *   - a candidate lives from its binding to the last top-level binding that uses it or any
 *     value that may refer to it (tuples, copies, packed calls: the alias analysis of
 *     lowering_utils.h; a use inside an `If` counts at the If's binding);
 *   - candidates are placed in binding order, greedily: storages whose tensor died before
 *     are free; among the free storages of the same dtype the smallest one large enough is
 *     taken, else the largest one is grown, else a new storage is made (best fit);
 *   - `t = R.memory.alloc_tensor(storage, 0, shape, dtype)` replaces each candidate, its
 *     storage `R.memory.alloc_storage(R.shape([bytes]), 0, "global", dtype)` bound right
 *     before the first tensor placed in it.
 * Allocations inside If branches and those of symbolic shape are left to LowerAllocTensor.
 * The planned bytes (the sum of the storage sizes) go into the function attribute
 * "relax.memory_plan_peak_bytes".
 */
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "lowering_utils.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax_vm {

using namespace relax;  // NOLINT(build/namespaces)

namespace {

/*! \brief One planned tensor. */
struct Candidate {
  int64_t def = 0;
  int64_t last_use = 0;
  int64_t bytes = 0;
  DataType dtype;
  int64_t storage = -1;
};

/*! \brief One storage of the plan. */
struct StorageToken {
  int64_t bytes = 0;
  DataType dtype;
  bool free = true;
  int64_t first_def = -1;  ///< binding index of the first tensor placed in it
};

struct Plan {
  std::unordered_map<const VarNode*, Candidate> candidates;
  std::vector<StorageToken> storages;
  PlannedMemory figures;
};

/*! \brief The static shape and dtype of a `builtin.alloc_tensor` binding, if it has them. */
bool StaticAlloc(const Binding& b, std::vector<int64_t>* shape, DataType* dtype) {
  const auto* vb = b.as<VarBindingNode>();
  if (!vb) return false;
  const CallNode* call = detail::AsOpCall(vb->value, "relax.builtin.alloc_tensor");
  if (!call || call->args.size() < 2) return false;
  const auto* s = call->args[0].as<ShapeExprNode>();
  const auto* d = call->args[1].as<DataTypeImmNode>();
  if (!s || !d) return false;
  auto dims = detail::StaticShape(s->values);
  if (!dims) return false;
  if (shape) *shape = *dims;
  if (dtype) *dtype = d->value;
  return true;
}

Plan MakePlan(const Function& func) {
  Plan plan;
  std::vector<Binding> bindings = detail::TopLevelBindings(func);
  auto is_root = [](const Binding& b) { return StaticAlloc(b, nullptr, nullptr); };
  detail::AliasAnalysis aa(bindings, is_root);
  const auto* seq = func->body.as<SeqExprNode>();
  if (!seq) return plan;
  std::unordered_set<const VarNode*> returned = aa.RootsOfExpr(seq->body);

  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = bindings[i];
    std::vector<int64_t> shape;
    DataType dtype;
    if (StaticAlloc(b, &shape, &dtype) && !returned.count(b->var.get())) {
      Candidate c;
      c.def = c.last_use = static_cast<int64_t>(i);
      c.bytes = detail::NumBytes(shape, dtype);
      c.dtype = dtype;
      plan.candidates[b->var.get()] = c;
      continue;
    }
    for (const VarNode* r : aa.RootsOfExpr(detail::BindingValue(b))) {
      auto it = plan.candidates.find(r);
      if (it != plan.candidates.end()) it->second.last_use = static_cast<int64_t>(i);
    }
  }

  // Greedy placement in binding order.
  std::vector<std::pair<int64_t, const VarNode*>> order;
  for (const auto& [var, c] : plan.candidates) order.emplace_back(c.def, var);
  std::sort(order.begin(), order.end());
  std::vector<const VarNode*> live;
  for (const auto& [def, var] : order) {
    Candidate& c = plan.candidates[var];
    // Release the storages of tensors dead before this binding.
    std::vector<const VarNode*> still;
    for (const VarNode* l : live) {
      const Candidate& lc = plan.candidates[l];
      if (lc.last_use < def) {
        plan.storages[lc.storage].free = true;
      } else {
        still.push_back(l);
      }
    }
    live.swap(still);
    int64_t best = -1;
    int64_t largest = -1;
    for (size_t s = 0; s < plan.storages.size(); ++s) {
      const StorageToken& tok = plan.storages[s];
      if (!tok.free || tok.dtype != c.dtype) continue;
      if (tok.bytes >= c.bytes && (best < 0 || tok.bytes < plan.storages[best].bytes)) {
        best = static_cast<int64_t>(s);
      }
      if (largest < 0 || tok.bytes > plan.storages[largest].bytes) {
        largest = static_cast<int64_t>(s);
      }
    }
    if (best < 0 && largest >= 0) {
      best = largest;
      plan.storages[best].bytes = c.bytes;  // grow it
    }
    if (best < 0) {
      StorageToken tok;
      tok.bytes = c.bytes;
      tok.dtype = c.dtype;
      tok.first_def = def;
      plan.storages.push_back(tok);
      best = static_cast<int64_t>(plan.storages.size()) - 1;
    }
    plan.storages[best].free = false;
    c.storage = best;
    live.push_back(var);
  }

  // Figures.
  for (const StorageToken& tok : plan.storages) plan.figures.planned_bytes += tok.bytes;
  for (const auto& [var, c] : plan.candidates) plan.figures.sum_of_intermediates += c.bytes;
  for (size_t i = 0; i < bindings.size(); ++i) {
    int64_t live_bytes = 0;
    for (const auto& [var, c] : plan.candidates) {
      if (c.def <= static_cast<int64_t>(i) && static_cast<int64_t>(i) <= c.last_use) {
        live_bytes += c.bytes;
      }
    }
    plan.figures.largest_live_set = std::max(plan.figures.largest_live_set, live_bytes);
  }
  return plan;
}

Function ApplyPlan(const Function& func, const Plan& plan) {
  const auto* seq = func->body.as<SeqExprNode>();
  if (!seq) return func;
  std::vector<Var> storage_vars(plan.storages.size());
  int64_t counter = 0;
  Array<BindingBlock> blocks;
  for (const BindingBlock& block : seq->blocks) {
    std::vector<Binding> out;
    for (const Binding& b : block->bindings) {
      auto it = plan.candidates.find(b->var.get());
      if (it == plan.candidates.end()) {
        out.push_back(b);
        continue;
      }
      const Candidate& c = it->second;
      const auto* call = Downcast<VarBinding>(b)->value.as<CallNode>();
      if (!storage_vars[c.storage].defined()) {
        const StorageToken& tok = plan.storages[c.storage];
        Expr storage = Normalize(
            op::memory::alloc_storage(ShapeExpr({IntImm(DataType::Int(64), tok.bytes)}),
                                      call->args[2], StringImm("global"), DataTypeImm(tok.dtype)));
        std::string name = counter == 0 ? "storage" : "storage" + std::to_string(counter);
        ++counter;
        storage_vars[c.storage] = detail::Emit(&out, name, storage);
      }
      Expr tensor = Normalize(op::memory::alloc_tensor(storage_vars[c.storage],
                                                       PrimValue(IntImm(DataType::Int(64), 0)),
                                                       call->args[0], call->args[1]));
      out.push_back(VarBinding(b->var, tensor));
    }
    blocks.push_back(BindingBlock(Array<Binding>(out)));
  }
  SeqExpr body(blocks, seq->body);
  UpdateStructInfo(body, GetStructInfo(seq->body));
  Function out = func;
  out.CopyOnWrite()->body = body;
  return out;
}

}  // namespace

PlannedMemory EstimatePlannedMemory(const Function& func) { return MakePlan(func).figures; }

Pass StaticPlanBlockMemory() {
  return detail::RelaxFunctionPass(
      "StaticPlanBlockMemory", [](const Function& func, const std::string&) -> Function {
        Plan plan = MakePlan(func);
        // Planned already (the pipeline run twice): keep the figure of the first plan.
        if (plan.candidates.empty() && func->attrs.Get(String(kMemoryPlanPeakBytes))) return func;
        Function out = plan.candidates.empty() ? func : ApplyPlan(func, plan);
        return WithAttr(out, kMemoryPlanPeakBytes, Any(plan.figures.planned_bytes));
      });
}

MINITVM_REGISTER_GLOBAL("relax.transform.StaticPlanBlockMemory").set_body_typed([]() {
  return StaticPlanBlockMemory();
});

/*
 * "relax.vm.PlannedMemory"(mod) → {function name: [planned_bytes, sum_of_intermediates,
 * largest_live_set]} for every Relax function; CallTIRRewrite is applied first when the module
 * still has call_tir / call_dps_packed.
 */
MINITVM_REGISTER_GLOBAL("relax.vm.PlannedMemory").set_body_typed([](IRModule mod) {
  IRModule lowered = CallTIRRewrite()(mod);
  Map<String, Array<Any>> out;
  for (const GlobalVar& gv : lowered->GetGlobalVars()) {
    const auto* f = lowered->Lookup(gv).as<FunctionNode>();
    if (!f) continue;
    PlannedMemory m = EstimatePlannedMemory(GetRef<Function>(f));
    out.Set(gv->name_hint,
            Array<Any>{Any(m.planned_bytes), Any(m.sum_of_intermediates), Any(m.largest_live_set)});
  }
  return out;
});

}  // namespace relax_vm
}  // namespace minitvm
