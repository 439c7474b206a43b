/*!
 * \file transform/dead_code_elimination.cc
 * \brief DeadCodeElimination (stage 4), TVM's `relax.transform.DeadCodeElimination()`:
 *   1. removes the functions that no entry function reaches (entries: the functions with a
 *      "global_symbol" attribute, plus the names given; with no entry at all every function is
 *      kept, since nothing says which are used);
 *   2. removes, inside every Relax function, the bindings whose variable is never used and whose
 *      value is pure (a `match_cast` stays: it checks at run time and defines shape variables;
 *      an impure call stays: it has an effect). Removal runs backwards, so a chain of dead
 *      bindings goes at once; emptied blocks disappear.
 */
#include <unordered_set>

#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

class RemoveUnusedBindings : public ExprMutator {
 public:
  Expr VisitExpr_(const SeqExprNode* op) override {
    Expr visited = ExprMutator::VisitExpr_(op);
    const auto* seq = visited.as<SeqExprNode>();
    std::unordered_set<const VarNode*> used;
    auto use = [&](const Expr& e) {
      for (const Var& v : FreeVars(e)) used.insert(v.get());
    };
    use(seq->body);
    // Shape-typed variables may be referenced from struct info only (R.Tensor(s) of a shape s).
    bool changed = false;
    std::vector<BindingBlock> blocks;
    for (const BindingBlock& b : seq->blocks) blocks.push_back(b);
    for (auto bit = blocks.rbegin(); bit != blocks.rend(); ++bit) {
      std::vector<Binding> kept;
      const BindingBlock& block = *bit;
      for (size_t k = block->bindings.size(); k-- > 0;) {
        Binding b = block->bindings[k];
        Expr value;
        bool is_match_cast = false;
        if (const auto* vb = b.as<VarBindingNode>()) value = vb->value;
        if (const auto* mc = b.as<MatchCastNode>()) {
          value = mc->value;
          is_match_cast = true;
        }
        bool live = used.count(b->var.get()) || is_match_cast || !IsPureValue(value) ||
                    GetStructInfoAs<ShapeStructInfoNode>(b->var);
        if (!live) {
          changed = true;
          continue;
        }
        use(value);
        kept.push_back(b);
      }
      if (kept.size() == block->bindings.size()) continue;
      Array<Binding> bindings;
      for (auto it = kept.rbegin(); it != kept.rend(); ++it) bindings.push_back(*it);
      *bit = block.as<DataflowBlockNode>() ? BindingBlock(DataflowBlock(bindings))
                                           : BindingBlock(bindings);
    }
    if (!changed) return visited;
    Array<BindingBlock> out;
    for (const BindingBlock& b : blocks) {
      if (!b->bindings.empty()) out.push_back(b);
    }
    SeqExpr result(out, seq->body);
    result->struct_info_ = seq->struct_info_;
    return result;
  }
};

/*! \brief The GlobalVars a function refers to. */
std::vector<GlobalVar> Callees(const BaseFunc& f) {
  struct V : ExprVisitor {
    std::vector<GlobalVar> out;
    void VisitExpr_(const GlobalVarNode* op) override { out.push_back(GetRef<GlobalVar>(op)); }
  } v;
  if (const auto* rf = f.as<FunctionNode>()) v.VisitExpr(GetRef<Function>(rf));
  return v.out;
}

}  // namespace

Pass DeadCodeElimination(Array<String> entry_functions) {
  return minitvm::transform::CreateModulePass(
      [entry_functions](IRModule mod, PassContext) {
        // 1. Unused bindings (first, so that the kernels only dead bindings called go too).
        mod = MapRelaxFunctions(
            mod, [](const Function& f) { return RemoveUnusedBindings().VisitExpr(f); });
        // 2. Unreachable functions.
        std::vector<GlobalVar> work;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          bool entry = mod->Lookup(gv)->attrs.count("global_symbol") > 0;
          for (const String& n : entry_functions) entry = entry || n == gv->name_hint;
          if (entry) work.push_back(gv);
        }
        IRModule out = mod;
        if (!work.empty()) {
          std::unordered_set<std::string> reached;
          while (!work.empty()) {
            GlobalVar gv = work.back();
            work.pop_back();
            if (!reached.insert(gv->name_hint).second) continue;
            if (!mod->ContainGlobalVar(gv->name_hint)) continue;
            for (const GlobalVar& c : Callees(mod->Lookup(gv->name_hint))) work.push_back(c);
          }
          for (const GlobalVar& gv : mod->GetGlobalVars()) {
            if (!reached.count(gv->name_hint)) out.Remove(gv);
          }
        }
        return out;
      },
      0, "DeadCodeElimination");
}

MINITVM_REGISTER_GLOBAL("relax.transform.DeadCodeElimination")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      Array<String> entries;
      if (args.size() > 0 && !args[0].is_null()) entries = args[0].cast<Array<String>>();
      *rv = DeadCodeElimination(entries);
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
