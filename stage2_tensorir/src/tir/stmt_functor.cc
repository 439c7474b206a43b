/*!
 * \file stmt_functor.cc
 * \brief The default StmtVisitor (walk) and StmtMutator (copy-on-write rebuild), plus
 * PostOrderVisit and Substitute (stage 2).
 */
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {

// ---- StmtVisitor -------------------------------------------------------------------------

void StmtVisitor::VisitBufferRegion(const BufferRegion& region) {
  for (const Range& r : region->region) {
    VisitExpr(r->min);
    VisitExpr(r->extent);
  }
}
void StmtVisitor::VisitStmt_(const BufferStoreNode* op) {
  VisitExpr(op->value);
  for (const PrimExpr& i : op->indices) VisitExpr(i);
}
void StmtVisitor::VisitStmt_(const ForNode* op) {
  VisitExpr(op->min);
  VisitExpr(op->extent);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const WhileNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  if (op->else_case.defined()) VisitStmt(op->else_case);
}
void StmtVisitor::VisitStmt_(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}
void StmtVisitor::VisitStmt_(const EvaluateNode* op) { VisitExpr(op->value); }
void StmtVisitor::VisitStmt_(const LetStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const AssertStmtNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->message);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const AllocateNode* op) {
  for (const PrimExpr& e : op->extents) VisitExpr(e);
  VisitExpr(op->condition);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const DeclBufferNode* op) { VisitStmt(op->body); }
void StmtVisitor::VisitStmt_(const AttrStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const BlockNode* op) {
  for (const IterVar& iv : op->iter_vars) {
    VisitExpr(iv->dom->min);
    VisitExpr(iv->dom->extent);
  }
  for (const BufferRegion& r : op->reads) VisitBufferRegion(r);
  for (const BufferRegion& r : op->writes) VisitBufferRegion(r);
  for (const MatchBufferRegion& m : op->match_buffers) VisitBufferRegion(m->source);
  if (op->init.defined()) VisitStmt(op->init);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const BlockRealizeNode* op) {
  for (const PrimExpr& v : op->iter_values) VisitExpr(v);
  VisitExpr(op->predicate);
  VisitStmt(op->block);
}

// ---- StmtMutator -------------------------------------------------------------------------

namespace {
template <typename T, typename F>
Array<T> MutateArray(const Array<T>& arr, F fmutate) {
  Array<T> out = arr;
  for (size_t i = 0; i < arr.size(); ++i) {
    T old = arr[i];
    T now = fmutate(old);
    if (!now.same_as(old)) out.Set(i, now);
  }
  return out;
}
}  // namespace

BufferRegion StmtMutator::VisitBufferRegion(const BufferRegion& region) {
  Buffer buffer = VisitBuffer(region->buffer);
  Array<Range> ranges = MutateArray(region->region, [this](const Range& r) {
    PrimExpr min = VisitExpr(r->min);
    PrimExpr extent = VisitExpr(r->extent);
    if (min.same_as(r->min) && extent.same_as(r->extent)) return r;
    return Range(min, extent);
  });
  if (buffer.same_as(region->buffer) && ranges.same_as(region->region)) return region;
  return BufferRegion(buffer, ranges);
}

Stmt StmtMutator::VisitStmt_(const BufferStoreNode* op) {
  Buffer buffer = VisitBuffer(op->buffer);
  PrimExpr value = VisitExpr(op->value);
  Array<PrimExpr> indices =
      MutateArray(op->indices, [this](const PrimExpr& e) { return VisitExpr(e); });
  if (buffer.same_as(op->buffer) && value.same_as(op->value) && indices.same_as(op->indices)) {
    return GetRef<Stmt>(op);
  }
  return BufferStore(buffer, value, indices);
}
Stmt StmtMutator::VisitStmt_(const ForNode* op) {
  PrimExpr min = VisitExpr(op->min);
  PrimExpr extent = VisitExpr(op->extent);
  Stmt body = VisitStmt(op->body);
  if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
    return GetRef<Stmt>(op);
  }
  For f = GetRef<For>(op);
  ForNode* n = f.CopyOnWrite();
  n->min = min;
  n->extent = extent;
  n->body = body;
  return f;
}
Stmt StmtMutator::VisitStmt_(const WhileNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt body = VisitStmt(op->body);
  if (c.same_as(op->condition) && body.same_as(op->body)) return GetRef<Stmt>(op);
  return While(c, body);
}
Stmt StmtMutator::VisitStmt_(const IfThenElseNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt t = VisitStmt(op->then_case);
  Stmt e = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) {
    return GetRef<Stmt>(op);
  }
  return IfThenElse(c, t, e);
}
Stmt StmtMutator::VisitStmt_(const SeqStmtNode* op) {
  Array<Stmt> seq = MutateArray(op->seq, [this](const Stmt& s) { return VisitStmt(s); });
  if (seq.same_as(op->seq)) return GetRef<Stmt>(op);
  return SeqStmt::Flatten(seq);
}
Stmt StmtMutator::VisitStmt_(const EvaluateNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<Stmt>(op);
  return Evaluate(v);
}
Stmt StmtMutator::VisitStmt_(const LetStmtNode* op) {
  PrimExpr v = VisitExpr(op->value);
  Stmt body = VisitStmt(op->body);
  if (v.same_as(op->value) && body.same_as(op->body)) return GetRef<Stmt>(op);
  return LetStmt(op->var, v, body);
}
Stmt StmtMutator::VisitStmt_(const AssertStmtNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  PrimExpr m = VisitExpr(op->message);
  Stmt body = VisitStmt(op->body);
  if (c.same_as(op->condition) && m.same_as(op->message) && body.same_as(op->body)) {
    return GetRef<Stmt>(op);
  }
  return AssertStmt(c, m, body);
}
Stmt StmtMutator::VisitStmt_(const AllocateNode* op) {
  Array<PrimExpr> extents =
      MutateArray(op->extents, [this](const PrimExpr& e) { return VisitExpr(e); });
  PrimExpr c = VisitExpr(op->condition);
  Stmt body = VisitStmt(op->body);
  if (extents.same_as(op->extents) && c.same_as(op->condition) && body.same_as(op->body)) {
    return GetRef<Stmt>(op);
  }
  return Allocate(op->buffer_var, op->dtype, extents, c, body, op->scope, op->annotations);
}
Stmt StmtMutator::VisitStmt_(const DeclBufferNode* op) {
  Stmt body = VisitStmt(op->body);
  if (body.same_as(op->body)) return GetRef<Stmt>(op);
  return DeclBuffer(op->buffer, body);
}
Stmt StmtMutator::VisitStmt_(const AttrStmtNode* op) {
  PrimExpr v = VisitExpr(op->value);
  Stmt body = VisitStmt(op->body);
  if (v.same_as(op->value) && body.same_as(op->body)) return GetRef<Stmt>(op);
  return AttrStmt(op->node, op->attr_key, v, body);
}
Stmt StmtMutator::VisitStmt_(const BlockNode* op) {
  Array<IterVar> iter_vars = MutateArray(op->iter_vars, [this](const IterVar& iv) {
    PrimExpr min = VisitExpr(iv->dom->min);
    PrimExpr extent = VisitExpr(iv->dom->extent);
    if (min.same_as(iv->dom->min) && extent.same_as(iv->dom->extent)) return iv;
    return IterVar(Range(min, extent), iv->var, iv->iter_type, iv->thread_tag);
  });
  auto fregion = [this](const BufferRegion& r) { return VisitBufferRegion(r); };
  Array<BufferRegion> reads = MutateArray(op->reads, fregion);
  Array<BufferRegion> writes = MutateArray(op->writes, fregion);
  Array<MatchBufferRegion> match_buffers =
      MutateArray(op->match_buffers, [this](const MatchBufferRegion& m) {
        BufferRegion src = VisitBufferRegion(m->source);
        if (src.same_as(m->source)) return m;
        return MatchBufferRegion(m->buffer, src);
      });
  Stmt init = op->init.defined() ? VisitStmt(op->init) : Stmt();
  Stmt body = VisitStmt(op->body);
  if (iter_vars.same_as(op->iter_vars) && reads.same_as(op->reads) && writes.same_as(op->writes) &&
      match_buffers.same_as(op->match_buffers) && init.same_as(op->init) &&
      body.same_as(op->body)) {
    return GetRef<Stmt>(op);
  }
  Block b = GetRef<Block>(op);
  BlockNode* n = b.CopyOnWrite();
  n->iter_vars = iter_vars;
  n->reads = reads;
  n->writes = writes;
  n->match_buffers = match_buffers;
  n->init = init;
  n->body = body;
  return b;
}
Stmt StmtMutator::VisitStmt_(const BlockRealizeNode* op) {
  Array<PrimExpr> values =
      MutateArray(op->iter_values, [this](const PrimExpr& e) { return VisitExpr(e); });
  PrimExpr pred = VisitExpr(op->predicate);
  Stmt block = VisitStmt(op->block);
  if (values.same_as(op->iter_values) && pred.same_as(op->predicate) && block.same_as(op->block)) {
    return GetRef<Stmt>(op);
  }
  return BlockRealize(values, pred, Downcast<Block>(block));
}

// ---- utilities ---------------------------------------------------------------------------

void PostOrderVisit(const Stmt& stmt, const std::function<void(const ObjectRef&)>& f) {
  class Visitor : public StmtExprVisitor {
   public:
    explicit Visitor(const std::function<void(const ObjectRef&)>& f) : f_(f) {}
    void VisitStmt(const Stmt& s) override {
      StmtVisitor::VisitStmt(s);
      f_(s);
    }
    void VisitExpr(const PrimExpr& e) override {
      ExprVisitor::VisitExpr(e);
      f_(e);
    }

   private:
    const std::function<void(const ObjectRef&)>& f_;
  };
  Visitor(f).VisitStmt(stmt);
}

namespace {
class VarSubstituter : public StmtExprMutator {
 public:
  explicit VarSubstituter(std::function<PrimExpr(const Var&)> vmap) : vmap_(std::move(vmap)) {}
  using StmtExprMutator::VisitExpr;
  PrimExpr VisitExpr_(const VarNode* op) override {
    PrimExpr r = vmap_(GetRef<Var>(op));
    return r.defined() ? r : GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override {
    PrimExpr r = vmap_(GetRef<Var>(op));
    return r.defined() ? r : GetRef<PrimExpr>(op);
  }

 private:
  std::function<PrimExpr(const Var&)> vmap_;
};
std::function<PrimExpr(const Var&)> MapLookup(const Map<Var, PrimExpr>& vmap) {
  return [vmap](const Var& v) -> PrimExpr {
    if (auto r = vmap.Get(v)) return *r;
    return PrimExpr();
  };
}
}  // namespace

Stmt Substitute(const Stmt& stmt, std::function<PrimExpr(const Var&)> vmap) {
  return VarSubstituter(std::move(vmap)).VisitStmt(stmt);
}
PrimExpr Substitute(const PrimExpr& expr, std::function<PrimExpr(const Var&)> vmap) {
  return VarSubstituter(std::move(vmap)).VisitExpr(expr);
}
Stmt Substitute(const Stmt& stmt, const Map<Var, PrimExpr>& vmap) {
  return Substitute(stmt, MapLookup(vmap));
}
PrimExpr Substitute(const PrimExpr& expr, const Map<Var, PrimExpr>& vmap) {
  return Substitute(expr, MapLookup(vmap));
}

}  // namespace tir
}  // namespace minitvm
