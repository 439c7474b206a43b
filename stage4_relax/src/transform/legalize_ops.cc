/*!
 * \file transform/legalize_ops.cc
 * \brief LegalizeOps (stage 4), TVM's `relax.transform.LegalizeOps()`: every call of a Relax
 * operator becomes `R.call_tir` of a PrimFunc built by the operator's `FLegalize` attribute
 * (the files of `transform/legalize/`, through the TE operator library). The PrimFuncs join
 * the module (identical ones are shared); symbolic shapes stay symbolic.
 *
 * The calls that are already low-level stay: `call_tir`, `call_dps_packed`, `call_pure_packed`
 * and the `builtin.*` / `memory.*` allocation ops. Any other operator without a legalization
 * is a ValueError listing every such operator of the module — never silently kept.
 */
#include <set>
#include <sstream>

#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {
namespace transform {

bool LegalizeKeepsOp(const std::string& name) {
  return name == "relax.call_tir" || name == "relax.call_dps_packed" ||
         name == "relax.call_pure_packed" || name.rfind("relax.builtin.", 0) == 0 ||
         name.rfind("relax.memory.", 0) == 0;
}

namespace {

/*! \brief Collects the operators of a function that have no legalization. */
class MissingLegalizeCollector : public ExprVisitor {
 public:
  MissingLegalizeCollector(const Map<String, runtime::PackedFunc>& custom,
                           std::set<std::string>* missing)
      : custom_(custom), missing_(missing) {}
  void VisitExpr_(const CallNode* op) override {
    if (const auto* o = op->op.as<OpNode>()) {
      std::string name = o->name;
      if (!LegalizeKeepsOp(name) && !custom_.count(name) && !GetRef<Op>(o).HasAttr(kFLegalize)) {
        missing_->insert(name);
      }
    }
    ExprVisitor::VisitExpr_(op);
  }

 private:
  const Map<String, runtime::PackedFunc>& custom_;
  std::set<std::string>* missing_;
};

/*!
 * \brief Rebuilds each binding block through a BlockBuilder, so that a legalizer can emit
 * helper bindings in front of the binding it rewrites.
 */
class LegalizeMutator : public ExprMutator {
 public:
  LegalizeMutator(BlockBuilder bb, Map<String, runtime::PackedFunc> custom)
      : bb_(std::move(bb)), custom_(std::move(custom)) {}

  Expr VisitExpr_(const CallNode* op) override {
    Expr visited = ExprMutator::VisitExpr_(op);
    const auto* call = visited.as<CallNode>();
    const auto* o = call ? call->op.as<OpNode>() : nullptr;
    if (!o || LegalizeKeepsOp(o->name)) return visited;
    Call c = GetRef<Call>(call);
    if (!c->struct_info_.defined()) c = Downcast<Call>(bb_.Normalize(c));
    runtime::PackedFunc f;
    if (auto custom = custom_.Get(o->name)) {
      f = *custom;
    } else {
      Any attr = GetRef<Op>(o).GetAttr(kFLegalize);
      if (attr.is_null()) return visited;  // reported before the rewrite started
      f = attr.cast<runtime::PackedFunc>();
    }
    Expr out;
    try {
      out = f(bb_, c).cast<Expr>();
    } catch (const Error& e) {
      throw Error(e.kind(), std::string(e.what()) + " (while legalizing " +
                                std::string(o->name) + ")");
    }
    return bb_.Normalize(out);
  }

  Array<Binding> VisitBinding(const Binding& binding) override {
    if (const auto* b = binding.as<VarBindingNode>()) {
      Expr value = VisitExpr(b->value);
      if (!value->struct_info_.defined()) value = bb_.Normalize(value);
      Var var = VisitVarDef(b->var);
      if (value.same_as(b->value) && var.same_as(b->var)) return {binding};
      StructInfo have = GetStructInfo(value);
      if (!var->struct_info_.defined() || !IsBaseOf(GetStructInfo(var), have)) {
        Var fresh = var.as<DataflowVarNode>() ? Var(DataflowVar(var->name_hint, have))
                                              : Var(var->name_hint, have);
        var_remap_[b->var.get()] = fresh;
        var = fresh;
      }
      return {VarBinding(var, value)};
    }
    Array<Binding> out = ExprMutator::VisitBinding(binding);
    return out;
  }

  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    bool df = block.as<DataflowBlockNode>() != nullptr;
    if (df) {
      bb_.BeginDataflowBlock();
    } else {
      bb_.BeginBindingBlock();
    }
    bool unchanged = true;
    try {
      for (const Binding& b : block->bindings) {
        Array<Binding> out = VisitBinding(b);
        if (!(out.size() == 1 && out[0].same_as(b))) unchanged = false;
        for (const Binding& nb : out) bb_.EmitNormalized(nb);
      }
    } catch (...) {
      bb_.EndBlock();
      throw;
    }
    BindingBlock result = bb_.EndBlock();
    if (unchanged && result->bindings.size() == block->bindings.size()) return block;
    return result;
  }

 private:
  BlockBuilder bb_;
  Map<String, runtime::PackedFunc> custom_;
};

}  // namespace

Pass LegalizeOps(Map<String, runtime::PackedFunc> customize_legalize_map) {
  return minitvm::transform::CreateModulePass(
      [customize_legalize_map](IRModule mod, PassContext) {
        std::set<std::string> missing;
        std::vector<std::pair<GlobalVar, Function>> funcs;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          if (const auto* f = mod->Lookup(gv).as<FunctionNode>()) {
            MissingLegalizeCollector(customize_legalize_map, &missing)
                .VisitExpr(GetRef<Function>(f));
            funcs.emplace_back(gv, GetRef<Function>(f));
          }
        }
        if (!missing.empty()) {
          std::ostringstream os;
          bool first = true;
          for (const std::string& m : missing) {
            os << (first ? "" : ", ") << m;
            first = false;
          }
          MINITVM_THROW(ValueError)
              << "LegalizeOps: no legalization (FLegalize) for the operator(s) " << os.str()
              << "; register one with MINITVM_REGISTER_OP(name).set_attr(\"FLegalize\", ...) or "
                 "pass customize_legalize_map";
        }
        BlockBuilder bb(mod);
        bool changed = false;
        for (const auto& [gv, func] : funcs) {
          LegalizeMutator mutator(bb, customize_legalize_map);
          Expr out = mutator.VisitExpr(func);
          if (out.same_as(func)) continue;
          bb.UpdateFunction(gv, Downcast<BaseFunc>(out));
          changed = true;
        }
        return changed ? bb.Get() : mod;
      },
      0, "LegalizeOps");
}

MINITVM_REGISTER_GLOBAL("relax.transform.LegalizeOps")
    .set_body_typed([](std::optional<Map<String, runtime::PackedFunc>> custom) {
      return LegalizeOps(custom.value_or(Map<String, runtime::PackedFunc>()));
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
