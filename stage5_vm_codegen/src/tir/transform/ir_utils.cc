/*!
 * \file ir_utils.cc
 * \brief Helpers shared by the stage-5 passes and code generator (see ir_utils.h).
 */
#include "ir_utils.h"

namespace minitvm {
namespace tir {

bool IsNoOp(const Stmt& s) {
  if (!s.defined()) return true;
  if (auto* e = s.as<EvaluateNode>()) {
    return e->value.as<IntImmNode>() != nullptr || e->value.as<FloatImmNode>() != nullptr;
  }
  if (auto* seq = s.as<SeqStmtNode>()) {
    for (const Stmt& x : seq->seq) {
      if (!IsNoOp(x)) return false;
    }
    return true;
  }
  return false;
}

// ---- variable uses -----------------------------------------------------------------------

namespace {
class UndefinedVarCollector : public StmtExprVisitor {
 public:
  std::vector<Var> result;
  std::unordered_set<const VarNode*> defined;
  std::unordered_set<const VarNode*> seen;

  void Use(const Var& v) {
    if (defined.count(v.get()) || seen.count(v.get())) return;
    seen.insert(v.get());
    result.push_back(v);
  }
  void Define(const Var& v) { defined.insert(v.get()); }

  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;
  void VisitExpr_(const VarNode* op) override { Use(GetRef<Var>(op)); }
  void VisitExpr_(const SizeVarNode* op) override { Use(GetRef<Var>(op)); }
  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    Define(op->var);
    VisitExpr(op->body);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Use(op->buffer->data);
    ExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Use(op->buffer->data);
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    Define(op->loop_var);
    VisitStmt(op->body);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    Define(op->var);
    VisitStmt(op->body);
  }
  void VisitStmt_(const AllocateNode* op) override {
    Define(op->buffer_var);
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) Define(iv->var);
    for (const Buffer& b : op->alloc_buffers) Define(b->data);
    for (const MatchBufferRegion& m : op->match_buffers) Define(m->buffer->data);
    StmtVisitor::VisitStmt_(op);
  }
};

class VarUseFinder : public StmtExprVisitor {
 public:
  explicit VarUseFinder(const VarNode* v) : v_(v) {}
  bool found = false;
  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;
  void VisitExpr(const PrimExpr& e) override {
    if (!found) StmtExprVisitor::VisitExpr(e);
  }
  void VisitStmt(const Stmt& s) override {
    if (!found) StmtVisitor::VisitStmt(s);
  }
  void VisitExpr_(const VarNode* op) override { found = found || op == v_; }
  void VisitExpr_(const SizeVarNode* op) override { found = found || op == v_; }
  void VisitExpr_(const BufferLoadNode* op) override {
    found = found || op->buffer->data.get() == v_;
    ExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    found = found || op->buffer->data.get() == v_;
    StmtVisitor::VisitStmt_(op);
  }

 private:
  const VarNode* v_;
};
}  // namespace

std::vector<Var> UndefinedVars(const Stmt& stmt, const std::vector<Var>& defined) {
  UndefinedVarCollector c;
  for (const Var& v : defined) c.Define(v);
  c.VisitStmt(stmt);
  return c.result;
}

bool UsesVar(const PrimExpr& e, const VarNode* v) {
  VarUseFinder f(v);
  f.VisitExpr(e);
  return f.found;
}
bool UsesVar(const Stmt& s, const VarNode* v) {
  VarUseFinder f(v);
  f.VisitStmt(s);
  return f.found;
}

PrimExpr ShapeProduct(const Array<PrimExpr>& shape) {
  PrimExpr p;
  for (const PrimExpr& d : shape) p = p.defined() ? p * d : d;
  return p.defined() ? p : PrimExpr(1);
}

}  // namespace tir
}  // namespace minitvm
