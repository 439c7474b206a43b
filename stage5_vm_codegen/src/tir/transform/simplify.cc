/*!
 * \file simplify.cc
 * \brief Simplify (stage 5): run the arithmetic simplifier (arith::Analyzer) over every
 * integer expression with the enclosing loop ranges known, and fold the statements that
 * become trivial: `if` on a constant, loops of extent 0 or 1, asserts that always hold.
 */
#include "ir_utils.h"
#include "minitvm/arith/analyzer.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

class StmtSimplifier : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr(const PrimExpr& e) override {
    DataType t = e.dtype();
    if (t.is_scalar() && (t.is_int() || t.is_uint()) && !e.as<IntImmNode>()) {
      try {
        return analyzer_.Simplify(e);
      } catch (const Error&) {
        // Something the simplifier does not handle: simplify the parts instead.
      }
    }
    return ExprMutator::VisitExpr(e);
  }

  Stmt VisitStmt_(const ForNode* op) override {
    PrimExpr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
    auto ext = AsConstInt(extent);
    if (ext && *ext <= 0) return MakeNoOp();
    if (ext && *ext == 1 && op->kind != ForKind::kThreadBinding) {
      // A loop of one iteration is its body with the loop variable replaced by min.
      Var v = op->loop_var;
      Stmt body =
          Substitute(op->body, [&](const Var& x) { return x.same_as(v) ? min : PrimExpr(); });
      return VisitStmt(body);
    }
    analyzer_.Bind(op->loop_var, Range(min, extent), /*allow_override=*/true);
    Stmt body = VisitStmt(op->body);
    if (IsNoOp(body)) return MakeNoOp();
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
      return GetRef<Stmt>(op);
    }
    For loop = GetRef<For>(op);
    ForNode* n = loop.CopyOnWrite();
    n->min = min, n->extent = extent, n->body = body;
    return loop;
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    PrimExpr cond = VisitExpr(op->condition);
    if (IsConstTrue(cond)) return VisitStmt(op->then_case);
    if (IsConstFalse(cond)) return op->else_case.defined() ? VisitStmt(op->else_case) : MakeNoOp();
    Stmt t = VisitStmt(op->then_case);
    Stmt e = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
    if (e.defined() && IsNoOp(e)) e = Stmt();
    if (IsNoOp(t) && !e.defined()) return MakeNoOp();
    if (cond.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) {
      return GetRef<Stmt>(op);
    }
    return IfThenElse(cond, t, e);
  }
  Stmt VisitStmt_(const AssertStmtNode* op) override {
    PrimExpr cond = VisitExpr(op->condition);
    if (IsConstTrue(cond)) return VisitStmt(op->body);
    Stmt body = VisitStmt(op->body);
    if (cond.same_as(op->condition) && body.same_as(op->body)) return GetRef<Stmt>(op);
    return AssertStmt(cond, op->message, body);
  }

 private:
  arith::Analyzer analyzer_;
};

}  // namespace

Pass Simplify() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        Stmt body = StmtSimplifier().VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.Simplify");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
