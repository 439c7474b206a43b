/*!
 * \file transform/fold_constant.cc
 * \brief FoldConstant (stage 4), TVM's `relax.transform.FoldConstant()`: a call whose arguments
 * are all constants (tensors, shapes, scalars, strings, dtypes, the callee of `call_tir`) is
 * evaluated at compile time — by the Relax reference interpreter, so an operator and a
 * `call_tir` fold alike — and replaced by the resulting `R.const` (a tuple of them for a tuple
 * result). Uses of a folded variable see the constant, so chains fold in one run; the dead
 * bindings are left to DeadCodeElimination. Impure calls, packed calls and allocations are not
 * folded; neither is a result whose shape is not static, or one over 2^22 elements.
 */
#include <unordered_map>

#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

bool IsConstantArg(const Expr& e) {
  if (e.as<ConstantNode>() || e.as<StringImmNode>() || e.as<DataTypeImmNode>() ||
      e.as<GlobalVarNode>()) {
    return true;
  }
  if (const auto* s = e.as<ShapeExprNode>()) {
    for (const PrimExpr& v : s->values) {
      if (!v.as<IntImmNode>()) return false;
    }
    return true;
  }
  if (const auto* p = e.as<PrimValueNode>()) {
    return p->value.as<IntImmNode>() || p->value.as<FloatImmNode>();
  }
  if (const auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (!IsConstantArg(f)) return false;
    }
    return true;
  }
  return false;
}

/*! \brief Whether `info` is a tensor (or tuple of tensors) of static shape, small enough. */
bool StaticTensorInfo(const StructInfo& info) {
  if (const auto* t = info.as<TensorStructInfoNode>()) {
    auto shape = t->GetShape();
    if (!shape || t->IsUnknownDtype()) return false;
    int64_t n = 1;
    for (const PrimExpr& d : *shape) {
      auto c = AsConstInt(d);
      if (!c) return false;
      n *= *c;
    }
    return n <= (int64_t{1} << 22);
  }
  if (const auto* tup = info.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tup->fields) {
      if (!StaticTensorInfo(f)) return false;
    }
    return !tup->fields.empty();
  }
  return false;
}

std::optional<Expr> ToConstant(const Any& value) {
  if (auto nd = value.try_cast<NDArray>()) return Constant(*nd);
  if (const auto* arr = value.as<runtime::ArrayNode>()) {
    Array<Expr> fields;
    for (const Any& f : arr->data) {
      auto c = ToConstant(f);
      if (!c) return std::nullopt;
      fields.push_back(*c);
    }
    Tuple t(fields);
    Array<StructInfo> infos;
    for (const Expr& f : fields) infos.push_back(GetStructInfo(f));
    UpdateStructInfo(t, TupleStructInfo(infos));
    return t;
  }
  return std::nullopt;
}

class FoldMutator : public ExprMutator {
 public:
  explicit FoldMutator(IRModule mod) : mod_(mod), bb_(mod) {}

  Expr VisitExpr_(const VarNode* op) override {
    auto it = folded_.find(op);
    if (it != folded_.end()) return it->second;
    return ExprMutator::VisitExpr_(op);
  }

  Expr VisitExpr_(const CallNode* op) override {
    Expr visited = ExprMutator::VisitExpr_(op);
    if (!visited->struct_info_.defined()) visited = bb_.Normalize(visited);
    const auto* call = visited.as<CallNode>();
    if (!call) return visited;
    auto folded = TryFold(GetRef<Call>(call));
    return folded ? *folded : visited;
  }

  Array<Binding> VisitBinding(const Binding& binding) override {
    Array<Binding> out = ExprMutator::VisitBinding(binding);
    for (const Binding& b : out) {
      const auto* vb = b.as<VarBindingNode>();
      if (vb && (vb->value.as<ConstantNode>() ||
                 (vb->value.as<TupleNode>() && IsConstantArg(vb->value)))) {
        folded_[binding->var.get()] = vb->value;
      }
    }
    return out;
  }

 private:
  std::optional<Expr> TryFold(const Call& call) {
    const auto* o = call->op.as<OpNode>();
    if (!o) return std::nullopt;
    std::string name = o->name;
    if (name == "relax.call_dps_packed" || name == "relax.call_pure_packed" ||
        name.rfind("relax.builtin.", 0) == 0 || name.rfind("relax.memory.", 0) == 0) {
      return std::nullopt;
    }
    if (!IsPureValue(call)) return std::nullopt;
    for (const Expr& a : call->args) {
      if (!IsConstantArg(a)) return std::nullopt;
    }
    if (!call->struct_info_.defined()) return std::nullopt;
    StructInfo info = GetStructInfo(call);
    if (!StaticTensorInfo(info)) return std::nullopt;
    try {
      Var v("folded", info);
      SeqExpr body({BindingBlock({VarBinding(v, call)})}, v);
      UpdateStructInfo(body, info);
      Function f({}, body, info);
      return ToConstant(Interpret(f, {}, mod_));
    } catch (const Error&) {
      return std::nullopt;  // leave what cannot be evaluated now to run time
    }
  }

  IRModule mod_;
  BlockBuilder bb_;
  std::unordered_map<const VarNode*, Expr> folded_;
};

}  // namespace

Pass FoldConstant() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        return MapRelaxFunctions(
            mod, [mod](const Function& f) { return FoldMutator(mod).VisitExpr(f); });
      },
      0, "FoldConstant");
}

MINITVM_REGISTER_GLOBAL("relax.transform.FoldConstant").set_body_typed([]() {
  return FoldConstant();
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
