/*!
 * \file kill_after_last_use.cc
 * \brief KillAfterLastUse (stage 5 lowering of Relax for the VM): right after the last
 * top-level binding that uses a tensor made by `R.memory.alloc_tensor` (or any value that may
 * refer to it), `_ = R.memory.kill_tensor(t)`; after the last use of a storage and of every
 * tensor placed in it, `_ = R.memory.kill_storage(s)`. The VM then drops the register, so the
 * memory goes back as early as possible. Values the function returns (or that may refer to
 * them) are never killed; kills go only into plain binding blocks (they are impure).
 */
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

Function KillInFunction(const Function& func) {
  const auto* seq = func->body.as<SeqExprNode>();
  if (!seq) return func;
  std::vector<Binding> bindings = detail::TopLevelBindings(func);
  auto is_tensor = [](const Binding& b) {
    const auto* vb = b.as<VarBindingNode>();
    return vb && detail::AsOpCall(vb->value, "relax.memory.alloc_tensor");
  };
  auto is_storage = [](const Binding& b) {
    const auto* vb = b.as<VarBindingNode>();
    return vb && detail::AsOpCall(vb->value, "relax.memory.alloc_storage");
  };
  detail::AliasAnalysis aa(bindings,
                           [&](const Binding& b) { return is_tensor(b) || is_storage(b); });
  std::unordered_set<const VarNode*> returned = aa.RootsOfExpr(seq->body);

  // Last use of every root (its own binding when never used), and the storage of each tensor.
  std::unordered_map<const VarNode*, int64_t> last_use;
  std::unordered_map<const VarNode*, const VarNode*> storage_of;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = bindings[i];
    for (const VarNode* r : aa.RootsOfExpr(detail::BindingValue(b))) {
      last_use[r] = static_cast<int64_t>(i);
    }
    if (is_tensor(b) || is_storage(b)) {
      last_use[b->var.get()] = static_cast<int64_t>(i);
    }
    if (is_tensor(b)) {
      const auto* call = Downcast<VarBinding>(b)->value.as<CallNode>();
      if (const auto* s = call->args[0].as<VarNode>()) storage_of[b->var.get()] = s;
    }
  }
  // A storage lives as long as its tensors; one holding a returned tensor is never killed.
  for (const auto& [t, s] : storage_of) {
    if (!last_use.count(s)) continue;
    last_use[s] = std::max(last_use[s], last_use[t]);
    if (returned.count(t)) returned.insert(s);
  }
  std::map<int64_t, std::vector<Binding>> kills;
  // Tensors first, then storages, at each position (a storage outlives its tensors).
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < bindings.size(); ++i) {
      const Binding& b = bindings[i];
      const VarNode* r = b->var.get();
      if (returned.count(r)) continue;
      if (pass == 0 && !is_tensor(b)) continue;
      if (pass == 1 && !is_storage(b)) continue;
      Expr kill =
          Normalize(pass == 0 ? op::memory::kill_tensor(b->var) : op::memory::kill_storage(b->var));
      kills[last_use[r]].push_back(VarBinding(Var("_", detail::VoidInfo()), kill));
    }
  }
  if (kills.empty()) return func;

  Array<BindingBlock> blocks;
  int64_t index = 0;
  bool changed = false;
  for (const BindingBlock& block : seq->blocks) {
    const bool dataflow = block.as<DataflowBlockNode>() != nullptr;
    Array<Binding> out;
    for (const Binding& b : block->bindings) {
      out.push_back(b);
      auto it = kills.find(index++);
      if (it == kills.end() || dataflow) continue;
      for (const Binding& k : it->second) out.push_back(k);
      changed = true;
    }
    blocks.push_back(dataflow ? BindingBlock(DataflowBlock(out)) : BindingBlock(out));
  }
  if (!changed) return func;
  SeqExpr body(blocks, seq->body);
  UpdateStructInfo(body, GetStructInfo(seq->body));
  Function result = func;
  result.CopyOnWrite()->body = body;
  return result;
}

}  // namespace

Pass KillAfterLastUse() {
  return detail::RelaxFunctionPass(
      "KillAfterLastUse",
      [](const Function& func, const std::string&) -> Function { return KillInFunction(func); });
}

MINITVM_REGISTER_GLOBAL("relax.transform.KillAfterLastUse").set_body_typed([]() {
  return KillAfterLastUse();
});

}  // namespace relax_vm
}  // namespace minitvm
