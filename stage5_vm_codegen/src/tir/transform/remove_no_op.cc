/*!
 * \file remove_no_op.cc
 * \brief RemoveNoOp (stage 5): drop statements that do nothing — evaluations of constants,
 * loops and branches whose bodies are empty, empty sequences — so that printed lowered code
 * shows only what runs.
 */
#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

class NoOpRemover : public StmtMutator {
 public:
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    Array<Stmt> kept;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      Stmt x = VisitStmt(s);
      changed = changed || !x.same_as(s);
      if (IsNoOp(x)) {
        changed = true;
      } else {
        kept.push_back(x);
      }
    }
    if (!changed) return GetRef<Stmt>(op);
    if (kept.empty()) return MakeNoOp();
    return SeqStmt::Flatten(kept);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    auto* loop = s.as<ForNode>();
    if (IsNoOp(loop->body)) return MakeNoOp();
    auto ext = AsConstInt(loop->extent);
    if (ext && *ext <= 0) return MakeNoOp();
    return s;
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    auto* branch = s.as<IfThenElseNode>();
    bool else_empty = !branch->else_case.defined() || IsNoOp(branch->else_case);
    if (IsNoOp(branch->then_case) && else_empty) return MakeNoOp();
    if (branch->else_case.defined() && else_empty) {
      return IfThenElse(branch->condition, branch->then_case);
    }
    return s;
  }
  Stmt VisitStmt_(const AllocateNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    auto* alloc = s.as<AllocateNode>();
    return IsNoOp(alloc->body) ? MakeNoOp() : s;
  }
  Stmt VisitStmt_(const DeclBufferNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    return IsNoOp(s.as<DeclBufferNode>()->body) ? MakeNoOp() : s;
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    return IsNoOp(s.as<LetStmtNode>()->body) ? MakeNoOp() : s;
  }
};

}  // namespace

Pass RemoveNoOp() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        Stmt body = NoOpRemover().VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.RemoveNoOp");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
