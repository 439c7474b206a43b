/*!
 * \file analysis/var_analysis.cc
 * \brief Which variables a Relax expression defines and uses (stage 4): `FreeVars`,
 * `BoundVars`, `AllVars` of analysis.h, and their Python globals.
 */
#include <unordered_set>

#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {

namespace {

/*! \brief Records definitions and uses of variables, each list in order of first appearance. */
class VarCollector : public ExprVisitor {
 public:
  void VisitVarDef(const Var& var) override {
    Add(var, &bound_, &bound_seen_);
    Add(var, &all_, &all_seen_);
    ExprVisitor::VisitVarDef(var);
  }
  void VisitExpr_(const VarNode* op) override {
    Var var = GetRef<Var>(op);
    Add(var, &used_, &used_seen_);
    Add(var, &all_, &all_seen_);
  }

  Array<Var> Free() const {
    Array<Var> out;
    for (const Var& v : used_) {
      if (!bound_seen_.count(v.get())) out.push_back(v);
    }
    return out;
  }

  Array<Var> bound_, used_, all_;

 private:
  static void Add(const Var& v, Array<Var>* list, std::unordered_set<const Object*>* seen) {
    if (seen->insert(v.get()).second) list->push_back(v);
  }
  std::unordered_set<const Object*> bound_seen_, used_seen_, all_seen_;
};

}  // namespace

Array<Var> FreeVars(const Expr& expr) {
  VarCollector c;
  c.VisitExpr(expr);
  return c.Free();
}

Array<Var> BoundVars(const Expr& expr) {
  VarCollector c;
  c.VisitExpr(expr);
  return c.bound_;
}

Array<Var> AllVars(const Expr& expr) {
  VarCollector c;
  c.VisitExpr(expr);
  return c.all_;
}

MINITVM_REGISTER_GLOBAL("relax.analysis.free_vars").set_body_typed([](Expr e) {
  if (!e.defined()) MINITVM_THROW(ValueError) << "relax.analysis.free_vars: no expression (None)";
  return FreeVars(e);
});
MINITVM_REGISTER_GLOBAL("relax.analysis.bound_vars").set_body_typed([](Expr e) {
  if (!e.defined()) MINITVM_THROW(ValueError) << "relax.analysis.bound_vars: no expression (None)";
  return BoundVars(e);
});
MINITVM_REGISTER_GLOBAL("relax.analysis.all_vars").set_body_typed([](Expr e) {
  if (!e.defined()) MINITVM_THROW(ValueError) << "relax.analysis.all_vars: no expression (None)";
  return AllVars(e);
});

}  // namespace relax
}  // namespace minitvm
