/*!
 * \file analysis/well_formed.cc
 * \brief The well-formedness check of Relax modules and functions (stage 4), TVM's
 * `relax.analysis.well_formed`: the rules are listed in analysis.h. Every violation becomes one
 * line `[rule] function "f", variable "x": what is wrong`, so a pass that breaks the IR is
 * told where and how.
 */
#include <sstream>
#include <unordered_set>

#include "minitvm/arith/analyzer.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax {

namespace {

class WellFormedChecker : public ExprVisitor {
 public:
  WellFormedChecker(std::optional<IRModule> mod, bool check_struct_info)
      : mod_(std::move(mod)), check_struct_info_(check_struct_info) {}

  void CheckFunction(const std::string& name, const Function& func) {
    fname_ = name;
    defined_.clear();
    VisitExpr(func);
  }

  Array<String> violations;

  // ---- definitions ----
  void VisitVarDef(const Var& var) override {
    if (!ever_defined_.insert(var.get()).second) {
      Report("defined-twice", var->name_hint, "the variable is defined more than once");
    }
    defined_.insert(var.get());
    if (var.as<DataflowVarNode>()) {
      if (!in_dataflow_) {
        Report("dataflow-var-outside-block", var->name_hint,
               "a DataflowVar is bound outside a dataflow block (or is a function parameter)");
      } else {
        block_dataflow_vars_.insert(var.get());
      }
    }
    if (check_struct_info_ && !var->struct_info_.defined()) {
      Report("missing-struct-info", var->name_hint, "the variable has no struct info");
    }
  }

  // ---- uses ----
  void VisitExpr_(const VarNode* op) override {
    bool is_df = GetRef<Var>(op).as<DataflowVarNode>() != nullptr;
    if (is_df && ever_defined_.count(op) && (!in_dataflow_ || !block_dataflow_vars_.count(op))) {
      Report("dataflow-var-scope", op->name_hint,
             "a DataflowVar is used outside the dataflow block that binds it");
      return;
    }
    if (!defined_.count(op)) {
      Report("undefined-var", op->name_hint,
             ever_defined_.count(op) ? "the variable is used outside the scope that defines it"
                                     : "the variable is used but never defined (or is used "
                                       "before its definition)");
    }
  }

  void VisitExpr_(const GlobalVarNode* op) override {
    if (mod_ && !(*mod_)->ContainGlobalVar(op->name_hint)) {
      Report("unknown-global-var", op->name_hint,
             "the GlobalVar refers to no function of the module");
    }
  }

  void VisitExpr_(const FunctionNode* op) override {
    if (!op->body.as<SeqExprNode>()) {
      Report("body-not-seq-expr", "", "the body of the function is not a SeqExpr");
    }
    auto saved = defined_;
    ExprVisitor::VisitExpr_(op);
    defined_ = std::move(saved);
    // The annotated result must describe what the body computes (a wrong annotation would
    // mislead every caller's struct info).
    Expr result = op->body;
    if (result.defined() && !result->struct_info_.defined()) {
      if (const auto* seq = result.as<SeqExprNode>()) result = seq->body;
    }
    if (check_struct_info_ && op->ret_struct_info.defined() && result.defined() &&
        result->struct_info_.defined()) {
      StructInfo body_info = Downcast<StructInfo>(result->struct_info_);
      if (!IsBaseOf(op->ret_struct_info, body_info)) {
        Report("return-struct-info-mismatch", "",
               "the annotated return struct info " + StructInfoToString(op->ret_struct_info) +
                   " is not a base of the body's " + StructInfoToString(body_info));
      }
    }
  }

  void VisitExpr_(const SeqExprNode* op) override {
    auto saved = defined_;
    ExprVisitor::VisitExpr_(op);
    defined_ = std::move(saved);
  }

  void VisitExpr_(const CallNode* op) override {
    ExprVisitor::VisitExpr_(op);
    if (IsOp(op->op, "relax.call_tir")) CheckCallTIR(op);
  }

  // ---- blocks and bindings ----
  void VisitBindingBlock_(const DataflowBlockNode* block) override {
    bool saved = in_dataflow_;
    in_dataflow_ = true;
    block_dataflow_vars_.clear();
    ExprVisitor::VisitBindingBlock_(block);
    for (const VarNode* v : block_dataflow_vars_) defined_.erase(v);
    block_dataflow_vars_.clear();
    in_dataflow_ = saved;
  }
  void VisitBindingBlock_(const BindingBlockNode* block) override {
    bool saved = in_dataflow_;
    in_dataflow_ = false;
    ExprVisitor::VisitBindingBlock_(block);
    in_dataflow_ = saved;
  }

  void VisitBinding_(const VarBindingNode* b) override {
    CheckValue(b->var, b->value);
    ExprVisitor::VisitBinding_(b);
    if (check_struct_info_ && b->var->struct_info_.defined() && b->value->struct_info_.defined()) {
      StructInfo var_info = Downcast<StructInfo>(b->var->struct_info_);
      StructInfo value_info = Downcast<StructInfo>(b->value->struct_info_);
      if (!IsBaseOf(var_info, value_info)) {
        Report("struct-info-mismatch", b->var->name_hint,
               "the variable's struct info " + StructInfoToString(var_info) +
                   " is not a base of its value's " + StructInfoToString(value_info));
      }
    }
  }
  void VisitBinding_(const MatchCastNode* b) override {
    CheckValue(b->var, b->value);
    ExprVisitor::VisitBinding_(b);
  }

 private:
  void CheckValue(const Var& var, const Expr& value) {
    if (check_struct_info_ && !value->struct_info_.defined()) {
      Report("missing-struct-info", var->name_hint, "the bound value has no struct info");
    }
    if (in_dataflow_) {
      if (auto callee = ImpureCallee(value)) {
        Report("impure-in-dataflow", var->name_hint,
               "the value calls " + *callee + ", which is impure, inside a dataflow block");
      }
    }
  }

  std::optional<std::string> ImpureCallee(const Expr& value) {
    const auto* call = value.as<CallNode>();
    if (!call) return std::nullopt;
    if (const auto* o = call->op.as<OpNode>()) {
      OpAttrMap<bool> fpurity(kFPurity);
      Op op = GetRef<Op>(o);
      if (fpurity.count(op) && !fpurity[op]) return "operator " + std::string(o->name);
      return std::nullopt;
    }
    StructInfo info;
    if (const auto* g = call->op.as<GlobalVarNode>()) {
      if (mod_) {
        if (auto gv = (*mod_)->GetGlobalVar(g->name_hint)) {
          info = Downcast<StructInfo>((*mod_)->Lookup(*gv)->struct_info_);
        }
      }
    }
    if (!info.defined() && call->op->struct_info_.defined()) {
      info = Downcast<StructInfo>(call->op->struct_info_);
    }
    const auto* f = info.defined() ? info.as<FuncStructInfoNode>() : nullptr;
    if (f && !f->purity) {
      if (const auto* g = call->op.as<GlobalVarNode>()) {
        return "function \"" + std::string(g->name_hint) + "\"";
      }
      if (const auto* v = call->op.as<VarNode>()) {
        return "function \"" + std::string(v->name_hint) + "\"";
      }
      if (const auto* e = call->op.as<ExternFuncNode>()) {
        return "extern function \"" + std::string(e->global_symbol) + "\"";
      }
      return std::string("an impure function");
    }
    return std::nullopt;
  }

  void CheckCallTIR(const CallNode* call) {
    std::string what = "R.call_tir";
    if (call->args.empty()) return;
    const auto* gv = call->args[0].as<GlobalVarNode>();
    if (!gv || !mod_) return;
    if (!(*mod_)->ContainGlobalVar(gv->name_hint)) return;  // reported as unknown-global-var
    BaseFunc callee = (*mod_)->Lookup(gv->name_hint);
    const auto* prim = callee.as<tir::PrimFuncNode>();
    std::string cname = gv->name_hint;
    if (!prim) {
      Report("call-tir-signature", cname, "R.call_tir calls \"" + cname + "\", not a PrimFunc");
      return;
    }
    if (call->sinfo_args.empty()) return;
    std::vector<const TensorStructInfoNode*> outs;
    StructInfo out = call->sinfo_args[0];
    if (const auto* t = out.as<TensorStructInfoNode>()) {
      outs.push_back(t);
    } else if (const auto* tup = out.as<TupleStructInfoNode>()) {
      for (const StructInfo& f : tup->fields) {
        if (const auto* t = f.as<TensorStructInfoNode>()) outs.push_back(t);
      }
    }
    // The buffers of the PrimFunc, in parameter order: inputs first, outputs last.
    std::vector<tir::Buffer> buffers;
    for (const tir::Var& p : prim->params) {
      if (auto b = prim->buffer_map.Get(p)) buffers.push_back(*b);
    }
    std::vector<const TensorStructInfoNode*> ins;
    if (call->args.size() > 1) {
      if (const auto* tup = call->args[1].as<TupleNode>()) {
        for (const Expr& a : tup->fields) ins.push_back(GetStructInfoAs<TensorStructInfoNode>(a));
      } else {
        ins.push_back(GetStructInfoAs<TensorStructInfoNode>(call->args[1]));
      }
    }
    if (buffers.size() != ins.size() + outs.size()) {
      Report("call-tir-signature", cname,
             "PrimFunc \"" + cname + "\" has " + std::to_string(buffers.size()) +
                 " buffer parameter(s) but R.call_tir passes " + std::to_string(ins.size()) +
                 " input(s) and " + std::to_string(outs.size()) + " output(s)");
      return;
    }
    // Bind the PrimFunc's symbolic dims from the input arguments' shapes.
    Map<tir::Var, PrimExpr> vmap;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!ins[i]) continue;
      auto shape = ins[i]->GetShape();
      if (!shape || shape->size() != buffers[i]->shape.size()) continue;
      for (size_t d = 0; d < shape->size(); ++d) {
        if (const auto* v = buffers[i]->shape[d].as<tir::VarNode>()) {
          tir::Var var = GetRef<tir::Var>(v);
          if (!vmap.count(var)) vmap.Set(var, (*shape)[d]);
        }
      }
    }
    arith::Analyzer analyzer;
    for (size_t k = 0; k < outs.size(); ++k) {
      const tir::Buffer& buf = buffers[ins.size() + k];
      const TensorStructInfoNode* o = outs[k];
      std::string label =
          "output " + std::to_string(k) + " (buffer \"" + std::string(buf->name) + "\")";
      if (!o->IsUnknownDtype() && o->dtype != buf->dtype) {
        Report("call-tir-signature", cname,
               label + " has dtype " + runtime::DataTypeToString(buf->dtype) +
                   " but out_sinfo says " + runtime::DataTypeToString(o->dtype));
      }
      if (!o->IsUnknownNdim() && o->ndim != static_cast<int64_t>(buf->shape.size())) {
        Report("call-tir-signature", cname,
               label + " has " + std::to_string(buf->shape.size()) +
                   " dimension(s) but out_sinfo says " + std::to_string(o->ndim));
        continue;
      }
      auto shape = o->GetShape();
      if (!shape || shape->size() != buf->shape.size()) continue;
      for (size_t d = 0; d < shape->size(); ++d) {
        PrimExpr expect = tir::Substitute(buf->shape[d], vmap);
        PrimExpr got = (*shape)[d];
        auto a = AsConstInt(analyzer.Simplify(expect));
        auto b = AsConstInt(analyzer.Simplify(got));
        if (a && b && *a != *b) {
          std::ostringstream os;
          os << label << " has extent " << *a << " in dimension " << d << " but out_sinfo says "
             << *b;
          Report("call-tir-signature", cname, os.str());
        }
      }
    }
  }

  void Report(const std::string& rule, const std::string& var, const std::string& what) {
    std::ostringstream os;
    os << "[" << rule << "] function \"" << fname_ << "\"";
    if (!var.empty()) os << ", variable \"" << var << "\"";
    os << ": " << what;
    violations.push_back(os.str());
  }

  std::optional<IRModule> mod_;
  bool check_struct_info_;
  std::string fname_;
  bool in_dataflow_ = false;
  std::unordered_set<const VarNode*> block_dataflow_vars_;
  std::unordered_set<const VarNode*> defined_;
  std::unordered_set<const VarNode*> ever_defined_;
};

}  // namespace

Array<String> WellFormedViolations(const IRModule& mod, bool check_struct_info) {
  WellFormedChecker checker(mod, check_struct_info);
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    if (const auto* fn = f.as<FunctionNode>()) {
      checker.CheckFunction(gv->name_hint, GetRef<Function>(fn));
    }
  }
  return checker.violations;
}

Array<String> WellFormedViolations(const Function& func, bool check_struct_info) {
  WellFormedChecker checker(std::nullopt, check_struct_info);
  std::string name = func->GetAttr<String>("global_symbol").value_or(String("<function>"));
  checker.CheckFunction(name, func);
  return checker.violations;
}

bool WellFormed(const IRModule& mod, bool check_struct_info) {
  return WellFormedViolations(mod, check_struct_info).empty();
}
bool WellFormed(const Function& func, bool check_struct_info) {
  return WellFormedViolations(func, check_struct_info).empty();
}

namespace {
Array<String> ViolationsOf(const ObjectRef& obj, bool check_struct_info) {
  if (const auto* m = obj.as<IRModuleNode>()) {
    return WellFormedViolations(GetRef<IRModule>(m), check_struct_info);
  }
  if (const auto* f = obj.as<FunctionNode>()) {
    return WellFormedViolations(GetRef<Function>(f), check_struct_info);
  }
  MINITVM_THROW(TypeError) << "well_formed: expects an IRModule or a relax.Function, not "
                           << (obj.defined() ? obj->GetTypeKey() : std::string("None"));
}
}  // namespace

MINITVM_REGISTER_GLOBAL("relax.analysis.well_formed")
    .set_body_typed([](ObjectRef obj, bool check_struct_info) {
      return ViolationsOf(obj, check_struct_info).empty();
    });
MINITVM_REGISTER_GLOBAL("relax.analysis.WellFormedViolations")
    .set_body_typed([](ObjectRef obj, bool check_struct_info) {
      return ViolationsOf(obj, check_struct_info);
    });

}  // namespace relax
}  // namespace minitvm
