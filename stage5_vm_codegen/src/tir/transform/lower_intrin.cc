/*!
 * \file lower_intrin.cc
 * \brief LowerIntrin (stage 5): rewrite composite intrinsics in terms of primitive ones the
 * code generator maps to LLVM intrinsics or libm — `rsqrt(x)` → `1 / sqrt(x)`; `sigmoid` is
 * left to the code generator, which computes it without overflow — and turn floor division/modulo
 * whose operands are known to be non-negative into the cheaper truncating forms.
 */
#include "ir_utils.h"
#include "minitvm/arith/analyzer.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

class IntrinLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const CallNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* call = e.as<CallNode>();
    const std::string& name = call->op.str();
    DataType t = call->dtype;
    // tir.sigmoid stays: the code generator computes it without overflow for large |x|.
    if (name == "tir.rsqrt") {
      return Div(One(t), Call(t, "tir.sqrt", {call->args[0]}));
    }
    return e;
  }
  Stmt VisitStmt_(const ForNode* op) override {
    analyzer_.Bind(op->loop_var, Range(op->min, op->extent), true);
    return StmtExprMutator::VisitStmt_(op);
  }
  PrimExpr VisitExpr_(const FloorDivNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* d = e.as<FloorDivNode>();
    if (d && NonNegativeInt(d->a) && PositiveInt(d->b)) return Div(d->a, d->b);
    return e;
  }
  PrimExpr VisitExpr_(const FloorModNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* m = e.as<FloorModNode>();
    if (m && NonNegativeInt(m->a) && PositiveInt(m->b)) return Mod(m->a, m->b);
    return e;
  }

 private:
  static PrimExpr One(DataType t) {
    return t.is_scalar() ? make_const(t, 1) : Broadcast(make_const(t.element_of(), 1), t.lanes());
  }
  bool NonNegativeInt(const PrimExpr& e) {
    if (!e.dtype().is_scalar() || !e.dtype().is_int()) return false;
    try {
      return analyzer_.CanProveGreaterEqual(e, 0);
    } catch (const Error&) {
      return false;
    }
  }
  bool PositiveInt(const PrimExpr& e) {
    auto v = AsConstInt(e);
    return e.dtype().is_scalar() && e.dtype().is_int() && v && *v > 0;
  }
  arith::Analyzer analyzer_;
};

}  // namespace

Pass LowerIntrin() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        Stmt body = IntrinLowerer().VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.LowerIntrin");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
