/*!
 * \file transform/canonicalize_bindings.cc
 * \brief CanonicalizeBindings (stage 4), TVM's `relax.transform.CanonicalizeBindings()`:
 * removes the bindings that only rename — `y = x` — and the trivial `y = R.match_cast(x, S)`
 * whose x is already known to satisfy S; later uses of y use x. One case stays: a Var output of
 * a dataflow block bound to a DataflowVar (`gv = lv`), because lv is not visible after the
 * block. As TVM's, it also reads an item of a tuple built in the same function:
 * `t = (a, b); y = t[1]` makes y stand for b (DeadCodeElimination may then drop `t`).
 */
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {
class CanonicalizeMutator : public ExprMutator {
 public:
  Array<Binding> VisitBinding(const Binding& binding) override {
    Expr value;
    if (const auto* b = binding.as<VarBindingNode>()) {
      value = VisitExpr(b->value);
    } else if (const auto* m = binding.as<MatchCastNode>()) {
      value = VisitExpr(m->value);
      // Trivial only when the value's info already satisfies the cast and the cast defines
      // no new symbolic variable.
      if (!value->struct_info_.defined() || !IsBaseOf(m->struct_info, GetStructInfo(value))) {
        return ExprMutator::VisitBinding(binding);
      }
    }
    if (const auto* b = binding.as<VarBindingNode>()) {
      if (const auto* tuple = value.as<TupleNode>()) tuples_[b->var.get()] = GetRef<Tuple>(tuple);
      // t[i] of a tuple built here is its i-th field.
      if (const auto* item = value.as<TupleGetItemNode>()) {
        const auto* tv = item->tuple.as<VarNode>();
        auto it = tv ? tuples_.find(tv) : tuples_.end();
        if (it != tuples_.end() && item->index >= 0 &&
            item->index < static_cast<int64_t>(it->second->fields.size())) {
          value = it->second->fields[item->index];
        }
      }
    }
    const auto* src = value.as<VarNode>();
    const Var& var = binding->var;
    bool escapes = !var.as<DataflowVarNode>() && value.as<DataflowVarNode>();
    if (!src || escapes) return ExprMutator::VisitBinding(binding);
    var_remap_[var.get()] = GetRef<Var>(src);
    return {};
  }

 private:
  /*! rief Variables bound to a Tuple literal in the function being visited. */
  std::unordered_map<const VarNode*, Tuple> tuples_;
};
}  // namespace

Pass CanonicalizeBindings() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        return MapRelaxFunctions(
            mod, [](const Function& f) { return CanonicalizeMutator().VisitExpr(f); });
      },
      0, "CanonicalizeBindings");
}

MINITVM_REGISTER_GLOBAL("relax.transform.CanonicalizeBindings").set_body_typed([]() {
  return CanonicalizeBindings();
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
