/*!
 * \file transform/lift_transform_params.cc
 * \brief LiftTransformParams (stage 4), TVM's `relax.transform.LiftTransformParams()`: the work a
 * Relax function does on its weights alone moves into a function of its own, run once.
 *
 * A Relax function with the integer attribute "num_input" = n takes its runtime inputs first and
 * its weights (parameters n, n+1, ...) after them. A binding of a dataflow block whose value uses
 * only weights, bindings already lifted and constants (no input, no symbolic shape variable) can
 * be computed before the first call. Such bindings go into a new function
 * `<name>_transform_params(model_params)`: one parameter, the tuple of the weights in parameter
 * order, and it returns a tuple of
 *   1. the weights the function still needs as they are, in parameter order, then
 *   2. the lifted values the function needs, in binding order.
 * The function itself then takes its n inputs followed by those values, one parameter each, and
 * no longer computes them; "num_input" stays n. The transform function has "num_input" = 0 and
 * "global_symbol" = its name. Bindings that use no weight at all (constants, `R.zeros`) stay in the
 * function, and are copied into the transform function only when a lifted value needs them.
 *
 * Functions without "num_input" and functions whose name ends in "transform_params" are left
 * alone. `shared_transform` = true makes one function "transform_params" instead, shared by all
 * functions with "num_input": minitvm supports it when there is one such function (TVM then gives
 * the same result under that name); with several, TVM keeps only the bindings common to all of
 * them, which minitvm does not (ValueError).
 *
 * With the layout-rewrite preprocessing split off (SplitLayoutRewritePreproc), the weight packing
 * calls are such bindings: `main_transform_params` packs the weights once and `main` runs only the
 * compute kernels (relax.pipeline.static_shape_tuning_pipeline(cpu_weight_prepack=True)).
 */
#include <sstream>
#include <unordered_map>
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

constexpr const char* kSuffix = "transform_params";

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/*! \brief "num_input" of `func` checked against its parameters; nullopt when it has none. */
std::optional<size_t> NumInput(const Function& func, const std::string& name) {
  auto v = func->attrs.Get("num_input");
  if (!v) return std::nullopt;
  std::optional<int64_t> n = AttrAsInt(*v);
  if (!n) {
    MINITVM_THROW(ValueError) << "LiftTransformParams: function " << name
                              << " has \"num_input\" = " << v->ToString()
                              << ", which is not an integer";
  }
  if (*n < 0 || *n > static_cast<int64_t>(func->params.size())) {
    MINITVM_THROW(ValueError) << "LiftTransformParams: function " << name
                              << " has \"num_input\" = " << *n << ", but it has "
                              << func->params.size() << " parameters (num_input must be in 0.."
                              << func->params.size() << ")";
  }
  return static_cast<size_t>(*n);
}

using VarSet = std::unordered_set<const VarNode*>;

/*! \brief Which bindings of one function can be lifted, and what the function still needs. */
struct LiftPlan {
  std::vector<Binding> lifted;  ///< in order; some use no weight (copied, not removed)
  VarSet liftable;              ///< weights and lifted variables
  VarSet needs_weight;          ///< weights and lifted variables that depend on one
  VarSet at_runtime;            ///< variables the rewritten function still uses
};

LiftPlan Plan(const Function& func, size_t num_input) {
  LiftPlan plan;
  for (size_t i = num_input; i < func->params.size(); ++i) {
    plan.liftable.insert(func->params[i].get());
    plan.needs_weight.insert(func->params[i].get());
  }
  const auto* seq = func->body.as<SeqExprNode>();
  auto use_all = [&](const Expr& e) {
    for (const Var& v : FreeVars(e)) plan.at_runtime.insert(v.get());
  };
  if (!seq) {
    use_all(func->body);
    return plan;
  }
  for (const BindingBlock& block : seq->blocks) {
    const bool dataflow = block.as<DataflowBlockNode>() != nullptr;
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      bool can = dataflow && vb && !vb->value.as<ExternFuncNode>() && !vb->value.as<FunctionNode>();
      Array<Var> free = vb ? FreeVars(vb->value) : FreeVars(b.as<MatchCastNode>()->value);
      for (const Var& v : free) can = can && plan.liftable.count(v.get());
      // A value whose shape has symbolic variables is left where it is (they are defined by the
      // function's inputs or its own match_casts).
      if (can && b->var->struct_info_.defined()) {
        can = TIRVarsInStructInfo(Downcast<StructInfo>(b->var->struct_info_)).empty();
      }
      if (can) {
        plan.lifted.push_back(b);
        plan.liftable.insert(b->var.get());
        for (const Var& v : free) {
          if (plan.needs_weight.count(v.get())) {
            plan.needs_weight.insert(b->var.get());
            break;
          }
        }
      } else {
        for (const Var& v : free) plan.at_runtime.insert(v.get());
      }
    }
  }
  use_all(seq->body);
  return plan;
}

/*! \brief Copies a function with a fresh variable for every definition (no sharing of Vars). */
class FreshVars : public ExprMutator {
 public:
  Var VisitVarDef(const Var& var) override {
    auto it = var_remap_.find(var.get());
    if (it != var_remap_.end()) return it->second;
    StructInfo info =
        var->struct_info_.defined() ? Downcast<StructInfo>(var->struct_info_) : StructInfo();
    Var fresh = var.as<DataflowVarNode>() ? Var(DataflowVar(var->name_hint, info))
                                          : Var(var->name_hint, info);
    var_remap_[var.get()] = fresh;
    return fresh;
  }
  /*! \brief Define `fresh` in place of `var`. */
  void Seed(const Var& var, const Var& fresh) { var_remap_[var.get()] = fresh; }
};

StructInfo InfoOf(const Var& v) {
  if (!v->struct_info_.defined()) {
    MINITVM_THROW(ValueError) << "LiftTransformParams: variable " << v->name_hint
                              << " has no struct info (normalise the module first)";
  }
  return Downcast<StructInfo>(v->struct_info_);
}

/*! \brief The values `<name>_transform_params` returns, in TVM's order. */
std::vector<Var> Outputs(const Function& func, size_t num_input, const LiftPlan& plan) {
  std::vector<Var> out;
  for (size_t i = num_input; i < func->params.size(); ++i) {
    if (plan.at_runtime.count(func->params[i].get())) out.push_back(func->params[i]);
  }
  for (const Binding& b : plan.lifted) {
    if (plan.needs_weight.count(b->var.get()) && plan.at_runtime.count(b->var.get())) {
      out.push_back(b->var);
    }
  }
  return out;
}

Function MakeTransformFunction(const Function& func, size_t num_input, const LiftPlan& plan,
                               const std::vector<Var>& outputs, const std::string& symbol) {
  Array<StructInfo> weight_infos;
  for (size_t i = num_input; i < func->params.size(); ++i) {
    weight_infos.push_back(InfoOf(func->params[i]));
  }
  Var model_params("model_params", TupleStructInfo(weight_infos));
  Array<Binding> bindings;
  for (size_t i = num_input; i < func->params.size(); ++i) {
    TupleGetItem item(model_params, static_cast<int64_t>(i - num_input));
    UpdateStructInfo(item, weight_infos[i - num_input]);
    bindings.push_back(VarBinding(func->params[i], item));
  }
  for (const Binding& b : plan.lifted) bindings.push_back(b);
  Array<Expr> fields;
  Array<StructInfo> infos;
  for (const Var& v : outputs) {
    fields.push_back(v);
    infos.push_back(InfoOf(v));
  }
  Tuple tuple(fields);
  UpdateStructInfo(tuple, TupleStructInfo(infos));
  Var result("output_tuple", TupleStructInfo(infos));
  bindings.push_back(VarBinding(result, tuple));
  SeqExpr body({DataflowBlock(bindings)}, result);
  UpdateStructInfo(body, TupleStructInfo(infos));
  Map<String, Any> attrs;
  attrs.Set("num_input", Any(int64_t{0}));
  attrs.Set("global_symbol", Any(String(symbol)));
  Function f({model_params}, body, TupleStructInfo(infos), /*is_pure=*/true, attrs);
  // The weights, taken out of the tuple inside the dataflow block, become dataflow variables.
  FreshVars fresh;
  for (size_t i = num_input; i < func->params.size(); ++i) {
    fresh.Seed(func->params[i],
               DataflowVar(func->params[i]->name_hint, weight_infos[i - num_input]));
  }
  return Downcast<Function>(fresh.VisitExpr(f));
}

/*! \brief The function without its lifted bindings, taking the transformed values. */
class RuntimeRewriter : public ExprMutator {
 public:
  RuntimeRewriter(const LiftPlan& plan, const std::vector<Var>& outputs) {
    for (const Binding& l : plan.lifted) {
      if (plan.needs_weight.count(l->var.get())) drop_.insert(l->var.get());
    }
    for (const Var& v : outputs) {
      Var param(v->name_hint, InfoOf(v));
      var_remap_[v.get()] = param;
      new_params.push_back(param);
    }
  }
  Array<Binding> VisitBinding(const Binding& b) override {
    if (drop_.count(b->var.get())) return {};
    return ExprMutator::VisitBinding(b);
  }
  Array<Var> new_params;

 private:
  VarSet drop_;  ///< the lifted bindings that use a weight: computed by the transform now
};

Function MakeRuntimeFunction(const Function& func, size_t num_input, const LiftPlan& plan,
                             const std::vector<Var>& outputs) {
  RuntimeRewriter rw(plan, outputs);
  Array<Var> params;
  for (size_t i = 0; i < num_input; ++i) params.push_back(func->params[i]);
  for (const Var& p : rw.new_params) params.push_back(p);
  Expr body = rw.VisitExpr(func->body);
  return Function(params, body, func->ret_struct_info, func->is_pure, func->attrs);
}

/*!
 * \brief `f` without the unused bindings of its dataflow blocks (pure by construction): the
 * weights the transform takes but does not return, weight-free bindings left in the function.
 * Done here, not by DeadCodeElimination, which would also drop functions unreachable from the
 * entries (a module whose only "global_symbol" is the new transform function).
 */
Function RemoveUnusedDataflowBindings(const Function& f) {
  const auto* seq = f->body.as<SeqExprNode>();
  if (!seq) return f;
  VarSet used;
  for (const Var& v : FreeVars(seq->body)) used.insert(v.get());
  std::vector<BindingBlock> blocks;
  for (const BindingBlock& b : seq->blocks) blocks.push_back(b);
  bool changed = false;
  for (auto bit = blocks.rbegin(); bit != blocks.rend(); ++bit) {
    const bool dataflow = bit->as<DataflowBlockNode>() != nullptr;
    std::vector<Binding> kept;
    const Array<Binding>& bindings = (*bit)->bindings;
    for (size_t i = bindings.size(); i-- > 0;) {
      const Binding& b = bindings[i];
      // Shape and prim values may be used from struct info only: they stay.
      const bool value_kind = GetStructInfoAs<TensorStructInfoNode>(b->var) ||
                              GetStructInfoAs<TupleStructInfoNode>(b->var);
      if (dataflow && b.as<VarBindingNode>() && value_kind && !used.count(b->var.get())) {
        changed = true;
        continue;
      }
      const Expr& value =
          b.as<VarBindingNode>() ? b.as<VarBindingNode>()->value : b.as<MatchCastNode>()->value;
      for (const Var& v : FreeVars(value)) used.insert(v.get());
      kept.push_back(b);
    }
    Array<Binding> in_order(kept.rbegin(), kept.rend());
    *bit = dataflow ? BindingBlock(DataflowBlock(in_order)) : BindingBlock(in_order);
  }
  if (!changed) return f;
  Array<BindingBlock> nonempty;
  for (const BindingBlock& b : blocks) {
    if (!b->bindings.empty()) nonempty.push_back(b);
  }
  SeqExpr body(nonempty, seq->body);
  body->struct_info_ = seq->struct_info_;
  return Function(f->params, body, f->ret_struct_info, f->is_pure, f->attrs);
}

/*! \brief The functions to lift, sorted by name: all with "num_input", or the named ones. */
std::vector<std::pair<GlobalVar, Function>> Targets(const IRModule& mod,
                                                    const std::vector<std::string>& names) {
  std::vector<std::pair<GlobalVar, Function>> out;
  if (!names.empty()) {
    for (const std::string& name : names) {
      auto gv = mod->GetGlobalVar(name);
      if (!gv) {
        MINITVM_THROW(ValueError) << "LiftTransformParams: shared_transform names function " << name
                                  << ", which the module does not have";
      }
      const auto* f = mod->Lookup(*gv).as<FunctionNode>();
      if (!f || !NumInput(GetRef<Function>(f), name)) {
        MINITVM_THROW(ValueError) << "LiftTransformParams: shared_transform names " << name
                                  << ", which is not a Relax function with \"num_input\"";
      }
      out.emplace_back(*gv, GetRef<Function>(f));
    }
    return out;
  }
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    const auto* f = mod->Lookup(gv).as<FunctionNode>();
    if (!f || EndsWith(gv->name_hint, kSuffix)) continue;
    if (NumInput(GetRef<Function>(f), gv->name_hint)) out.emplace_back(gv, GetRef<Function>(f));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first->name_hint < b.first->name_hint; });
  return out;
}

IRModule Lift(IRModule mod, bool shared, const std::vector<std::string>& names) {
  auto targets = Targets(mod, names);
  if (targets.empty()) return mod;
  if (shared && targets.size() > 1) {
    std::ostringstream os;
    for (size_t i = 0; i < targets.size(); ++i) {
      os << (i ? ", " : "") << targets[i].first->name_hint;
    }
    MINITVM_THROW(ValueError)
        << "LiftTransformParams: shared_transform makes one \"transform_params\" for all "
           "functions with \"num_input\", which minitvm supports for one function only; the "
           "module has "
        << targets.size() << " (" << os.str()
        << "): use shared_transform=False for one <name>_transform_params each";
  }
  for (const auto& [gv, func] : targets) {
    const std::string name = gv->name_hint;
    const std::string tname = shared ? std::string(kSuffix) : name + "_" + kSuffix;
    if (mod->ContainGlobalVar(tname)) {
      MINITVM_THROW(ValueError) << "LiftTransformParams: the module already has a function "
                                << tname << " (lifting " << name << " twice is not supported)";
    }
    size_t num_input = *NumInput(func, name);
    LiftPlan plan = Plan(func, num_input);
    std::vector<Var> outputs = Outputs(func, num_input, plan);
    Function transform = MakeTransformFunction(func, num_input, plan, outputs, tname);
    Function runtime = MakeRuntimeFunction(func, num_input, plan, outputs);
    mod.Add(gv, RemoveUnusedDataflowBindings(runtime));
    mod.Add(GlobalVar(String(tname)), RemoveUnusedDataflowBindings(transform));
  }
  return mod;
}

}  // namespace

Pass LiftTransformParams(bool shared_transform, Array<String> function_names) {
  std::vector<std::string> names;
  for (const String& n : function_names) names.push_back(n);
  return minitvm::transform::CreateModulePass(
      [shared_transform, names](IRModule mod, PassContext) {
        return Lift(mod, shared_transform, names);
      },
      1, "LiftTransformParams");
}

MINITVM_REGISTER_GLOBAL("relax.transform.LiftTransformParams")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      // shared_transform: a bool, or (TVM) a list of function names (one shared function).
      if (args.size() == 0 || args[0].is_null() || args[0].is_bool() || args[0].is_int()) {
        bool shared = args.size() > 0 && !args[0].is_null() && args[0].cast<bool>();
        *rv = LiftTransformParams(shared);
        return;
      }
      if (auto names = args[0].try_cast<Array<String>>()) {
        // An empty list means every function with "num_input", as true does.
        *rv = LiftTransformParams(true, *names);
        return;
      }
      MINITVM_THROW(TypeError) << "LiftTransformParams: shared_transform must be a bool or a list "
                                  "of function names, not "
                               << args[0].ToString();
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
