/*!
 * \file int_eval.cc
 * \brief EvalIntExpr: evaluate integer TensorIR expressions for given variable values
 * (stage 2), the reference the simplifier's property tests compare against.
 */
#include "minitvm/arith/int_eval.h"

#include <algorithm>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/expr_functor.h"

namespace minitvm {
namespace arith {
namespace {

using namespace tir;  // NOLINT(build/namespaces)

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/*! \brief Wrap a value to the width of an integer dtype (two's complement). */
int64_t WrapTo(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits() >= 64) return v;
  uint64_t mask = (uint64_t(1) << t.bits()) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits() - 1))) u |= ~mask;
  return static_cast<int64_t>(u);
}

class Evaluator : public ExprFunctor<int64_t(const PrimExpr&)> {
 public:
  explicit Evaluator(const IntEnv& env) : env_(env) {}

  int64_t VisitExpr(const PrimExpr& e) override {
    if (!e.defined()) MINITVM_THROW(ValueError) << "EvalIntExpr: undefined expression";
    if (!e.dtype().is_scalar() || !(e.dtype().is_int() || e.dtype().is_uint())) {
      MINITVM_THROW(ValueError) << "EvalIntExpr: not an integer scalar: " << e.dtype();
    }
    return ExprFunctor::VisitExpr(e);
  }
  int64_t VisitExpr_(const IntImmNode* op) override { return op->value; }
  int64_t VisitExpr_(const VarNode* op) override {
    auto it = env_.find(op);
    if (it == env_.end()) {
      MINITVM_THROW(ValueError) << "EvalIntExpr: no value for variable " << op->name_hint;
    }
    return it->second;
  }
  int64_t VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }
  int64_t VisitExpr_(const CastNode* op) override {
    return WrapTo(op->dtype, VisitExpr(op->value));
  }
  // + - * wrap around at the dtype's width, as compiled code does (unsigned math avoids UB).
  int64_t VisitExpr_(const AddNode* op) override {
    uint64_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    return WrapTo(op->dtype, static_cast<int64_t>(a + b));
  }
  int64_t VisitExpr_(const SubNode* op) override {
    uint64_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    return WrapTo(op->dtype, static_cast<int64_t>(a - b));
  }
  int64_t VisitExpr_(const MulNode* op) override {
    uint64_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    return WrapTo(op->dtype, static_cast<int64_t>(a * b));
  }
  int64_t VisitExpr_(const DivNode* op) override {
    int64_t a = VisitExpr(op->a), b = Divisor(op->b);
    return a / b;
  }
  int64_t VisitExpr_(const ModNode* op) override {
    int64_t a = VisitExpr(op->a), b = Divisor(op->b);
    return a % b;
  }
  int64_t VisitExpr_(const FloorDivNode* op) override {
    int64_t a = VisitExpr(op->a), b = Divisor(op->b);
    return FloorDivInt(a, b);
  }
  int64_t VisitExpr_(const FloorModNode* op) override {
    int64_t a = VisitExpr(op->a), b = Divisor(op->b);
    return a - FloorDivInt(a, b) * b;
  }
  int64_t VisitExpr_(const MinNode* op) override {
    return std::min(VisitExpr(op->a), VisitExpr(op->b));
  }
  int64_t VisitExpr_(const MaxNode* op) override {
    return std::max(VisitExpr(op->a), VisitExpr(op->b));
  }
  int64_t VisitExpr_(const EQNode* op) override { return VisitExpr(op->a) == VisitExpr(op->b); }
  int64_t VisitExpr_(const NENode* op) override { return VisitExpr(op->a) != VisitExpr(op->b); }
  int64_t VisitExpr_(const LTNode* op) override { return VisitExpr(op->a) < VisitExpr(op->b); }
  int64_t VisitExpr_(const LENode* op) override { return VisitExpr(op->a) <= VisitExpr(op->b); }
  int64_t VisitExpr_(const GTNode* op) override { return VisitExpr(op->a) > VisitExpr(op->b); }
  int64_t VisitExpr_(const GENode* op) override { return VisitExpr(op->a) >= VisitExpr(op->b); }
  int64_t VisitExpr_(const AndNode* op) override {
    int64_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    return a && b;
  }
  int64_t VisitExpr_(const OrNode* op) override {
    int64_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    return a || b;
  }
  int64_t VisitExpr_(const NotNode* op) override { return !VisitExpr(op->a); }
  int64_t VisitExpr_(const SelectNode* op) override {
    int64_t c = VisitExpr(op->condition);
    int64_t t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    return c ? t : f;
  }
  int64_t VisitExpr_(const LetNode* op) override {
    IntEnv inner = env_;
    inner[op->var.get()] = VisitExpr(op->value);
    return Evaluator(inner).VisitExpr(op->body);
  }
  int64_t VisitExpr_(const CallNode* op) override {
    if (op->op == "tir.if_then_else" && op->args.size() == 3) {
      return VisitExpr(op->args[0]) ? VisitExpr(op->args[1]) : VisitExpr(op->args[2]);
    }
    if (op->op == "tir.likely" && op->args.size() == 1) return VisitExpr(op->args[0]);
    MINITVM_THROW(ValueError) << "EvalIntExpr: cannot evaluate call to " << op->op;
  }
  int64_t VisitExprDefault_(const Object* op) override {
    MINITVM_THROW(ValueError) << "EvalIntExpr: cannot evaluate " << op->GetTypeKey();
  }

 private:
  int64_t Divisor(const PrimExpr& e) {
    int64_t b = VisitExpr(e);
    if (b == 0) MINITVM_THROW(ValueError) << "EvalIntExpr: division by zero";
    return b;
  }
  const IntEnv& env_;
};

}  // namespace

int64_t EvalIntExpr(const PrimExpr& e, const IntEnv& env) { return Evaluator(env).VisitExpr(e); }

MINITVM_REGISTER_GLOBAL("arith.EvalIntExpr")
    .set_body_typed([](PrimExpr e, Map<tir::Var, int64_t> values) {
      IntEnv env;
      for (const auto& kv : values.items()) env[kv.first.get()] = kv.second;
      return EvalIntExpr(e, env);
    });

}  // namespace arith
}  // namespace minitvm
