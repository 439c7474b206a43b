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

// ---- linear forms ------------------------------------------------------------------------

int64_t LinearForm::Coeff(const Var& v) const {
  for (const auto& [var, c] : terms) {
    if (var.same_as(v)) return c;
  }
  return 0;
}

void LinearForm::Add(const Var& v, int64_t c) {
  for (auto& [var, coeff] : terms) {
    if (var.same_as(v)) {
      coeff += c;
      return;
    }
  }
  terms.emplace_back(v, c);
}

LinearForm LinearForm::operator-(const LinearForm& other) const {
  LinearForm r = *this;
  for (const auto& [v, c] : other.terms) r.Add(v, -c);
  r.constant -= other.constant;
  return r;
}

LinearForm LinearForm::Without(const std::unordered_set<const VarNode*>& vars) const {
  LinearForm r;
  r.constant = constant;
  for (const auto& [v, c] : terms) {
    if (!vars.count(v.get())) r.terms.emplace_back(v, c);
  }
  return r;
}

bool LinearForm::Equals(const LinearForm& other) const {
  if (constant != other.constant) return false;
  LinearForm d = *this - other;
  for (const auto& [v, c] : d.terms) {
    if (c != 0) return false;
  }
  return true;
}

PrimExpr LinearForm::ToExpr(DataType dtype) const {
  PrimExpr result;
  for (const auto& [v, c] : terms) {
    if (c == 0) continue;
    PrimExpr x = v.dtype() == dtype ? PrimExpr(v) : cast(dtype, v);
    PrimExpr t = c == 1 ? x : x * IntImm(dtype, c);
    result = result.defined() ? result + t : t;
  }
  if (!result.defined()) return IntImm(dtype, constant);
  if (constant != 0) result = result + IntImm(dtype, constant);
  return result;
}

namespace {
std::optional<LinearForm> Linear(const PrimExpr& e) {
  if (auto* imm = e.as<IntImmNode>()) {
    LinearForm f;
    f.constant = imm->value;
    return f;
  }
  if (auto* v = e.as<VarNode>()) {
    LinearForm f;
    f.terms.emplace_back(GetRef<Var>(v), 1);
    return f;
  }
  if (auto* c = e.as<CastNode>()) {
    if (c->dtype.is_scalar() && (c->dtype.is_int() || c->dtype.is_uint()) &&
        (c->value.dtype().is_int() || c->value.dtype().is_uint())) {
      return Linear(c->value);
    }
    return std::nullopt;
  }
  if (auto* a = e.as<AddNode>()) {
    auto x = Linear(a->a), y = Linear(a->b);
    if (!x || !y) return std::nullopt;
    for (const auto& [v, c] : y->terms) x->Add(v, c);
    x->constant += y->constant;
    return x;
  }
  if (auto* s = e.as<SubNode>()) {
    auto x = Linear(s->a), y = Linear(s->b);
    if (!x || !y) return std::nullopt;
    return *x - *y;
  }
  if (auto* m = e.as<MulNode>()) {
    auto x = Linear(m->a), y = Linear(m->b);
    if (!x || !y) return std::nullopt;
    const LinearForm* k = x->terms.empty() ? &*x : (y->terms.empty() ? &*y : nullptr);
    if (!k) return std::nullopt;
    const LinearForm* other = k == &*x ? &*y : &*x;
    LinearForm r;
    for (const auto& [v, c] : other->terms) r.terms.emplace_back(v, c * k->constant);
    r.constant = other->constant * k->constant;
    return r;
  }
  return std::nullopt;
}
}  // namespace

std::optional<LinearForm> ToLinearForm(const PrimExpr& e) {
  if (!e.defined() || !e.dtype().is_scalar() || !(e.dtype().is_int() || e.dtype().is_uint())) {
    return std::nullopt;
  }
  return Linear(e);
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
