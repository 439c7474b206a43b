/*!
 * \file transform/attach_attr_layout_free_buffers.cc
 * \brief AttachAttrLayoutFreeBuffers (stage 4), TVM's
 * `relax.transform.AttachAttrLayoutFreeBuffers()`: a PrimFunc parameter that receives a Relax
 * constant (what BindParams makes of a bound weight) or a variable bound to one is "layout free":
 * the PrimFunc may read it in any layout it likes, because the layout transformation is done
 * once, at compile time (FoldConstant). As in TVM, the parameters of a Relax function with a
 * "num_input" attribute from that index on (the weights passed as arguments) are layout free too,
 * when the pass is made with `mark_num_input` (the Python / TVM form): LiftTransformParams then
 * moves their transformation into `<name>_transform_params`, run once by the user. tvm.compile's
 * "default" build makes the pass without it, so that there "layout free" means "constant": a
 * weight passed as an argument without lifting would otherwise be packed on every call by a
 * kernel of its own (no gain, one more pass over the weight). The indices of
 * those parameters go to the PrimFunc's attribute "layout_free_buffers" (an array of integers,
 * in parameter order), which the CPU schedule rules (stage 5) read to put their weight packing
 * into a block of its own marked "meta_schedule.layout_rewrite_preproc";
 * SplitLayoutRewritePreproc then moves that block out of the kernel.
 *
 * A PrimFunc called from several places with different layout-free parameters is copied once per
 * distinct set (the copy gets a fresh name made from the old one); when all its calls agree, it is
 * updated in place. Calls that pass nothing layout free leave the PrimFunc as it is (TVM attaches
 * an empty array there). DeadCodeElimination runs afterwards, as in TVM.
 */
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

using LayoutFreeSet = std::vector<int64_t>;

/*! \brief The variables of one module's Relax functions whose values are layout free. */
class LayoutFreeVars : public ExprVisitor {
 public:
  void VisitBinding_(const VarBindingNode* b) override {
    if (b->value.as<ConstantNode>()) vars.insert(b->var.get());
    ExprVisitor::VisitBinding_(b);
  }
  std::unordered_set<const VarNode*> vars;
};

/*! \brief Whether `e` is a constant or a variable the scan found layout free. */
bool IsLayoutFree(const Expr& e, const std::unordered_set<const VarNode*>& vars) {
  if (e.as<ConstantNode>()) return true;
  const auto* v = e.as<VarNode>();
  return v && vars.count(v);
}

/*! \brief The callee of a call_tir and the layout-free indices among its arguments. */
std::optional<std::pair<GlobalVar, LayoutFreeSet>> LayoutFreeArgs(
    const CallNode* call, const IRModule& mod, const std::unordered_set<const VarNode*>& vars) {
  if (!IsOp(call->op, "relax.call_tir") || call->args.size() < 2) return std::nullopt;
  const auto* gv = call->args[0].as<GlobalVarNode>();
  const auto* args = call->args[1].as<TupleNode>();
  if (!gv || !args || !mod->ContainGlobalVar(gv->name_hint)) return std::nullopt;
  if (!mod->Lookup(GetRef<GlobalVar>(gv)).as<tir::PrimFuncNode>()) return std::nullopt;
  LayoutFreeSet free;
  for (size_t i = 0; i < args->fields.size(); ++i) {
    if (IsLayoutFree(args->fields[i], vars)) free.push_back(static_cast<int64_t>(i));
  }
  return std::make_pair(GetRef<GlobalVar>(gv), free);
}

tir::PrimFunc WithLayoutFree(const tir::PrimFunc& f, const LayoutFreeSet& free) {
  Array<Any> indices;
  for (int64_t i : free) indices.push_back(Any(i));
  return WithAttr(f, "layout_free_buffers", Any(indices));
}

/*! \brief The value of an integer "num_input" attribute within 0..params, else nullopt. */
std::optional<size_t> NumInputAttr(const FunctionNode* f) {
  auto v = f->attrs.Get("num_input");
  if (!v) return std::nullopt;
  std::optional<int64_t> n = AttrAsInt(*v);
  if (!n || *n < 0 || *n > static_cast<int64_t>(f->params.size())) return std::nullopt;
  return static_cast<size_t>(*n);
}

IRModule Attach(const IRModule& mod, bool mark_num_input) {
  LayoutFreeVars scan;
  std::vector<std::pair<GlobalVar, Function>> funcs;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (const auto* f = mod->Lookup(gv).as<FunctionNode>()) {
      funcs.emplace_back(gv, GetRef<Function>(f));
      scan.VisitExpr(GetRef<Function>(f));
      // The weights of a function with "num_input" (TVM's form of the pass).
      if (auto n = NumInputAttr(f); n && mark_num_input) {
        for (size_t i = *n; i < f->params.size(); ++i) scan.vars.insert(f->params[i].get());
      }
    }
  }
  // Every call_tir: which sets of layout-free indices each PrimFunc is called with.
  std::map<std::string, std::set<LayoutFreeSet>> uses;
  struct CallScan : ExprVisitor {
    const IRModule* mod;
    const std::unordered_set<const VarNode*>* vars;
    std::map<std::string, std::set<LayoutFreeSet>>* uses;
    void VisitExpr_(const CallNode* op) override {
      if (auto r = LayoutFreeArgs(op, *mod, *vars)) (*uses)[r->first->name_hint].insert(r->second);
      ExprVisitor::VisitExpr_(op);
    }
  } calls;
  calls.mod = &mod;
  calls.vars = &scan.vars;
  calls.uses = &uses;
  for (const auto& [gv, f] : funcs) calls.VisitExpr(f);
  // One agreeing non-empty set: the PrimFunc itself gets the attribute. Several sets: one copy
  // per non-empty set, made while the calls are rewritten.
  IRModule out = mod;
  bool copies = false;
  for (const auto& [name, sets] : uses) {
    if (sets.size() == 1 && !sets.begin()->empty()) {
      GlobalVar gv = *mod->GetGlobalVar(name);
      auto f = Downcast<tir::PrimFunc>(mod->Lookup(gv));
      out.Add(gv, WithLayoutFree(f, *sets.begin()));
    } else if (sets.size() > 1) {
      copies = true;
    }
  }
  if (!copies) return out;
  std::map<std::pair<std::string, LayoutFreeSet>, GlobalVar> made;
  return RewriteCalls(out, [&](BlockBuilder bb, const Call& call) -> std::optional<Expr> {
    auto r = LayoutFreeArgs(call.get(), out, scan.vars);
    if (!r || r->second.empty() || uses[r->first->name_hint].size() < 2) return std::nullopt;
    auto key = std::make_pair(r->first->name_hint, r->second);
    auto it = made.find(key);
    if (it == made.end()) {
      auto f = Downcast<tir::PrimFunc>(out->Lookup(r->first));
      GlobalVar copy = bb.AddFunction(WithLayoutFree(f, r->second), r->first->name_hint);
      it = made.emplace(key, copy).first;
    }
    Array<Expr> args = call->args;
    args.Set(0, it->second);
    return Call(call->op, args, call->attrs, call->sinfo_args);
  });
}

}  // namespace

Pass AttachAttrLayoutFreeBuffers(bool mark_num_input) {
  Pass attach = minitvm::transform::CreateModulePass(
      [mark_num_input](IRModule mod, PassContext) { return Attach(mod, mark_num_input); }, 0,
      "_AttachAttrLayoutFreeBuffers");
  // The PrimFuncs that copies replaced everywhere go.
  return minitvm::transform::Sequential({attach, DeadCodeElimination()},
                                        "AttachAttrLayoutFreeBuffers");
}

// Optional argument: mark_num_input (default true, TVM's form).
MINITVM_REGISTER_GLOBAL("relax.transform.AttachAttrLayoutFreeBuffers")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      bool mark = args.size() == 0 || args[0].is_null() || args[0].cast<bool>();
      *rv = AttachAttrLayoutFreeBuffers(mark);
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
