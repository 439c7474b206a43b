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
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

bool LegalizeKeepsOp(const std::string& name) {
  return name == "relax.call_tir" || name == "relax.call_dps_packed" ||
         name == "relax.call_pure_packed" || name == "relax.call_builtin_with_ctx" ||
         name.rfind("relax.builtin.", 0) == 0 || name.rfind("relax.memory.", 0) == 0;
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

}  // namespace

Pass LegalizeOps(Map<String, runtime::PackedFunc> customize_legalize_map) {
  return minitvm::transform::CreateModulePass(
      [customize_legalize_map](IRModule mod, PassContext) {
        std::set<std::string> missing;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          if (const auto* f = mod->Lookup(gv).as<FunctionNode>()) {
            MissingLegalizeCollector(customize_legalize_map, &missing)
                .VisitExpr(GetRef<Function>(f));
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
        return RewriteCalls(
            mod,
            [customize_legalize_map](BlockBuilder bb, const Call& call) -> std::optional<Expr> {
              const auto* o = call->op.as<OpNode>();
              if (LegalizeKeepsOp(o->name)) return std::nullopt;
              runtime::PackedFunc f;
              if (auto custom = customize_legalize_map.Get(o->name)) {
                f = *custom;
              } else {
                Any attr = GetRef<Op>(o).GetAttr(kFLegalize);
                if (attr.is_null()) return std::nullopt;  // reported before the rewrite began
                f = attr.cast<runtime::PackedFunc>();
              }
              try {
                return f(bb, call).cast<Expr>();
              } catch (const Error& e) {
                throw Error(e.kind(), std::string(e.what()) + " (while legalizing " +
                                          std::string(o->name) + ")");
              }
            });
      },
      0, "LegalizeOps");
}

MINITVM_REGISTER_GLOBAL("relax.transform.LegalizeOps")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      // customize_legalize_map is optional (None or absent).
      Map<String, runtime::PackedFunc> custom;
      if (args.size() > 0 && !args[0].is_null()) {
        custom = args[0].cast<Map<String, runtime::PackedFunc>>();
      }
      *rv = LegalizeOps(custom);
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
