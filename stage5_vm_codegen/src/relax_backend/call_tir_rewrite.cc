/*!
 * \file call_tir_rewrite.cc
 * \brief CallTIRRewrite (stage 5 lowering of Relax for the VM): destination-passing style made
 * explicit. `y = R.call_tir(f, (x, w), out_sinfo)` becomes
 *
 *     y = R.builtin.alloc_tensor(R.shape([...]), R.dtype("float32"), R.prim_value(0))
 *     _ = cls.f(x, w, y)          # impure: writes y
 *
 * (for several outputs `alloc`, `alloc1`, ... and `y = (alloc, alloc1)`), and the same for
 * `R.call_dps_packed` with the ExternFunc as callee. The tir_vars of call_tir are passed after
 * the outputs as int64 PrimValues. Since the rewritten calls are impure, dataflow blocks become
 * plain binding blocks and DataflowVars plain Vars (TVM's ToNonDataflow), and the function is
 * marked "relax.force_pure" (its signature stays pure).
 */
#include <string>
#include <unordered_map>

#include "lowering_utils.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax_vm {

using namespace relax;  // NOLINT(build/namespaces)

namespace {

class CallTIRRewriter : public ExprMutator {
 public:
  explicit CallTIRRewriter(std::string func_name) : func_name_(std::move(func_name)) {}

  Var VisitVarDef(const Var& var) override {
    if (!var.as<DataflowVarNode>()) return ExprMutator::VisitVarDef(var);
    auto it = var_remap_.find(var.get());
    if (it != var_remap_.end()) return it->second;
    StructInfo info =
        var->struct_info_.defined() ? Downcast<StructInfo>(var->struct_info_) : StructInfo();
    Var fresh(var->name_hint, info);
    var_remap_[var.get()] = fresh;
    return fresh;
  }

  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    BindingBlock out = ExprMutator::VisitBindingBlock(block);
    if (out.as<DataflowBlockNode>()) return BindingBlock(out->bindings);
    return out;
  }

  Array<Binding> VisitBinding(const Binding& binding) override {
    const auto* vb = binding.as<VarBindingNode>();
    if (vb) {
      const auto* call = vb->value.as<CallNode>();
      if (call && (IsOp(call->op, "relax.call_tir") || IsOp(call->op, "relax.call_dps_packed"))) {
        return RewriteDPS(vb->var, call);
      }
    }
    return ExprMutator::VisitBinding(binding);
  }

  bool changed() const { return changed_; }

 private:
  std::string UniqueName(const std::string& base) {
    int64_t n = counter_[base]++;
    return n == 0 ? base : base + std::to_string(n);
  }

  Array<Binding> RewriteDPS(const Var& var, const CallNode* call) {
    changed_ = true;
    const bool is_tir = IsOp(call->op, "relax.call_tir");
    const std::string what = is_tir ? "R.call_tir" : "R.call_dps_packed";
    std::vector<Binding> out;
    if (call->args.size() < 2 || call->sinfo_args.size() != 1) {
      MINITVM_THROW(ValueError) << "CallTIRRewrite: in function " << func_name_ << ", binding "
                                << var->name_hint << ": " << what
                                << " needs a callee, an argument tuple and one out_sinfo";
    }
    Expr callee = VisitExpr(call->args[0]);
    // The inputs: a Tuple literal, or a tuple-valued variable taken apart.
    Array<Expr> inputs;
    Expr targs = VisitExpr(call->args[1]);
    if (const auto* t = targs.as<TupleNode>()) {
      inputs = t->fields;
    } else if (const auto* tinfo = GetStructInfoAs<TupleStructInfoNode>(targs)) {
      for (size_t i = 0; i < tinfo->fields.size(); ++i) {
        TupleGetItem item(targs, static_cast<int64_t>(i));
        UpdateStructInfo(item, tinfo->fields[i]);
        inputs.push_back(detail::Emit(&out, UniqueName("arg"), item));
      }
    } else {
      inputs.push_back(targs);
    }
    // The outputs, one allocation each.
    StructInfo out_sinfo = VisitStructInfo(call->sinfo_args[0]);
    Array<StructInfo> outs;
    const bool multi = out_sinfo.as<TupleStructInfoNode>() != nullptr;
    if (multi) {
      outs = out_sinfo.as<TupleStructInfoNode>()->fields;
    } else {
      outs.push_back(out_sinfo);
    }
    Array<Expr> allocs;
    for (size_t i = 0; i < outs.size(); ++i) {
      const auto* t = outs[i].as<TensorStructInfoNode>();
      if (!t || !t->shape.defined() || t->IsUnknownDtype()) {
        MINITVM_THROW(ValueError)
            << "CallTIRRewrite: in function " << func_name_ << ", binding " << var->name_hint
            << ": output " << i << " of " << what << " is " << StructInfoToString(outs[i])
            << "; an output needs a tensor struct info with a known shape and dtype";
      }
      Expr shape = VisitExpr(t->shape);
      Expr alloc = Normalize(op::builtin::alloc_tensor(shape, DataTypeImm(t->dtype),
                                                       PrimValue(IntImm(DataType::Int(64), 0)),
                                                       StringImm("global")));
      std::string name = multi ? UniqueName("alloc") : var->name_hint.str();
      allocs.push_back(detail::Emit(&out, name, alloc));
    }
    // The impure call writing the outputs.
    Array<Expr> args = inputs;
    for (const Expr& a : allocs) args.push_back(a);
    if (call->args.size() > 2) {
      Expr tir_vars = VisitExpr(call->args[2]);
      if (const auto* s = tir_vars.as<ShapeExprNode>()) {
        for (const PrimExpr& v : s->values) {
          PrimValue pv(v);
          UpdateStructInfo(pv, PrimStructInfo(v));
          args.push_back(pv);
        }
      } else {
        MINITVM_THROW(ValueError) << "CallTIRRewrite: in function " << func_name_ << ", binding "
                                  << var->name_hint
                                  << ": the tir_vars of R.call_tir must be a ShapeExpr, not a "
                                  << tir_vars->GetTypeKey();
      }
    }
    Call kernel(callee, args, {}, {detail::VoidInfo()});
    UpdateStructInfo(kernel, detail::VoidInfo());
    out.push_back(VarBinding(Var("_", detail::VoidInfo()), kernel));
    // The result: the allocation itself, or a tuple of them.
    if (!multi) {
      var_remap_[var.get()] = Downcast<Var>(allocs[0]);
    } else {
      Tuple tuple(allocs);
      Array<StructInfo> fields;
      for (const Expr& a : allocs) fields.push_back(GetStructInfo(a));
      UpdateStructInfo(tuple, TupleStructInfo(fields));
      var_remap_[var.get()] = detail::Emit(&out, var->name_hint.str(), tuple);
    }
    return Array<Binding>(out);
  }

  std::string func_name_;
  std::unordered_map<std::string, int64_t> counter_;
  bool changed_ = false;
};

}  // namespace

Pass CallTIRRewrite() {
  return detail::RelaxFunctionPass("CallTIRRewrite",
                                   [](const Function& func, const std::string& name) -> Function {
                                     CallTIRRewriter rewriter(name);
                                     Function out = Downcast<Function>(rewriter.VisitExpr(func));
                                     if (out.same_as(func)) return func;
                                     if (rewriter.changed())
                                       out = WithAttr(out, "relax.force_pure", Any(true));
                                     return out;
                                   });
}

MINITVM_REGISTER_GLOBAL("relax.transform.CallTIRRewrite").set_body_typed([]() {
  return CallTIRRewrite();
});

}  // namespace relax_vm
}  // namespace minitvm
