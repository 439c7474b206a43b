/*!
 * \file utils.cc
 * \brief Helpers shared by the schedule primitives (stage 3): IR edits by node identity,
 * buffer replacement, block access regions, affine-binding analysis and common checks.
 */
#include "utils.h"

#include <algorithm>
#include <map>

#include "minitvm/arith/linear_form.h"
#include "minitvm/ir/structural.h"
#include "minitvm/tir/analysis/block_access.h"

namespace minitvm {
namespace tir {
namespace sched {

// ---- editing the IR -----------------------------------------------------------------------

namespace {

/*! \brief Replaces nodes by identity; an undefined replacement removes the node. */
class NodeReplacer : public StmtMutator {
 public:
  explicit NodeReplacer(const std::unordered_map<const Object*, Stmt>& repl) : repl_(repl) {}

  Stmt VisitStmt(const Stmt& s) override {
    if (!s.defined()) return s;
    auto it = repl_.find(s.get());
    if (it != repl_.end()) return it->second;
    return StmtMutator::VisitStmt(s);
  }
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    Array<Stmt> kept;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      Stmt now = VisitStmt(s);
      if (!now.same_as(s)) changed = true;
      if (now.defined()) kept.push_back(now);
    }
    if (!changed) return GetRef<Stmt>(op);
    if (kept.empty()) return Stmt();
    return SeqStmt::Flatten(kept);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (!body.defined()) return Stmt();
    if (body.same_as(op->body)) return GetRef<Stmt>(op);
    For f = GetRef<For>(op);
    f.CopyOnWrite()->body = body;
    return f;
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    Stmt t = VisitStmt(op->then_case);
    Stmt e = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
    if (!t.defined() && !e.defined()) return Stmt();
    if (t.same_as(op->then_case) && e.same_as(op->else_case)) return GetRef<Stmt>(op);
    if (!t.defined()) return IfThenElse(!op->condition, e);
    return IfThenElse(op->condition, t, e);
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (!body.defined()) return Stmt();
    if (body.same_as(op->body)) return GetRef<Stmt>(op);
    return LetStmt(op->var, op->value, body);
  }
  Stmt VisitStmt_(const AttrStmtNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (!body.defined()) return Stmt();
    if (body.same_as(op->body)) return GetRef<Stmt>(op);
    return AttrStmt(op->node, op->attr_key, op->value, body);
  }
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    Stmt block = VisitStmt(op->block);
    if (!block.defined()) return Stmt();
    if (block.same_as(op->block)) return GetRef<Stmt>(op);
    return BlockRealize(op->iter_values, op->predicate, Downcast<Block>(block));
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt init = op->init.defined() ? VisitStmt(op->init) : Stmt();
    Stmt body = VisitStmt(op->body);
    if (init.same_as(op->init) && body.same_as(op->body)) return GetRef<Stmt>(op);
    if (!body.defined()) {
      // The root block keeps an empty body; any other block disappears with its content.
      if (op->name_hint.str() != "root") return Stmt();
      body = Evaluate(IntImm(DataType::Int(32), 0));
    }
    Block b = GetRef<Block>(op);
    BlockNode* n = b.CopyOnWrite();
    n->init = init;
    n->body = body;
    return b;
  }

 private:
  const std::unordered_map<const Object*, Stmt>& repl_;
};

/*! \brief Replaces buffers in every place a block or statement names them. */
class BufferReplacer : public StmtExprMutator {
 public:
  explicit BufferReplacer(const std::unordered_map<const BufferNode*, Buffer>& bmap)
      : bmap_(bmap) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;
  Buffer VisitBuffer(const Buffer& buffer) override {
    auto it = bmap_.find(buffer.get());
    return it == bmap_.end() ? buffer : it->second;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    Block b = Downcast<Block>(s);
    bool change = false;
    for (const Buffer& buf : b->alloc_buffers) change |= bmap_.count(buf.get()) > 0;
    for (const MatchBufferRegion& m : b->match_buffers) change |= bmap_.count(m->buffer.get()) > 0;
    if (!change) return b;
    BlockNode* n = b.CopyOnWrite();
    Array<Buffer> allocs;
    for (const Buffer& buf : n->alloc_buffers) allocs.push_back(VisitBuffer(buf));
    n->alloc_buffers = allocs;
    Array<MatchBufferRegion> matches;
    for (const MatchBufferRegion& m : n->match_buffers) {
      matches.push_back(MatchBufferRegion(VisitBuffer(m->buffer), m->source));
    }
    n->match_buffers = matches;
    return b;
  }

 private:
  const std::unordered_map<const BufferNode*, Buffer>& bmap_;
};

}  // namespace

Stmt ReplaceStmts(const Stmt& root, const std::unordered_map<const Object*, Stmt>& repl) {
  return NodeReplacer(repl).VisitStmt(root);
}

PrimFunc ReplaceInFunc(const PrimFunc& func, const std::unordered_map<const Object*, Stmt>& repl) {
  Stmt body = ReplaceStmts(func->body, repl);
  if (!body.defined()) body = Evaluate(IntImm(DataType::Int(32), 0));
  return WithBody(func, body);
}

PrimFunc WithBody(const PrimFunc& func, Stmt body) {
  if (body.same_as(func->body)) return func;
  PrimFunc f = func;
  f.CopyOnWrite()->body = std::move(body);
  return f;
}

Stmt ReplaceBuffers(const Stmt& stmt, const std::unordered_map<const BufferNode*, Buffer>& bmap) {
  return BufferReplacer(bmap).VisitStmt(stmt);
}

Stmt SubstituteVars(const Stmt& stmt, const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  if (vmap.empty()) return stmt;
  return Substitute(stmt, [&](const Var& v) -> PrimExpr {
    auto it = vmap.find(v.get());
    return it == vmap.end() ? PrimExpr() : it->second;
  });
}

PrimExpr SubstituteVars(const PrimExpr& e,
                        const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  if (vmap.empty()) return e;
  return Substitute(e, [&](const Var& v) -> PrimExpr {
    auto it = vmap.find(v.get());
    return it == vmap.end() ? PrimExpr() : it->second;
  });
}

Stmt MakeLoopNest(const std::vector<Var>& vars, const std::vector<PrimExpr>& extents, Stmt body) {
  for (size_t i = vars.size(); i-- > 0;) {
    body = For(vars[i], IntImm(vars[i].dtype(), 0), extents[i], ForKind::kSerial, body);
  }
  return body;
}

std::vector<Stmt> AsSeq(const Stmt& body) {
  if (auto* seq = body.as<SeqStmtNode>()) return seq->seq.to_vector();
  return {body};
}

// ---- access regions -----------------------------------------------------------------------

std::pair<Array<BufferRegion>, Array<BufferRegion>> ComputeBlockAccess(const Block& block) {
  BlockAccessRegion r = GetBlockAccessRegion(block);
  return {r.reads, r.writes};
}

Block RecomputeAccess(const Block& block) {
  auto [reads, writes] = ComputeBlockAccess(block);
  Block b = block;
  BlockNode* n = b.CopyOnWrite();
  n->reads = reads;
  n->writes = writes;
  return b;
}

PrimFunc RefreshOuterBlockAccess(const PrimFunc& func) {
  class Refresher : public StmtMutator {
   public:
    Stmt VisitStmt_(const BlockNode* op) override {
      Stmt s = StmtMutator::VisitStmt_(op);
      if (op->name_hint.str() == "root") return s;
      bool has_inner = false;
      PostOrderVisit(op->body,
                     [&](const ObjectRef& n) { has_inner |= n.as<BlockNode>() != nullptr; });
      if (!has_inner) return s;
      Block b = Downcast<Block>(s);
      auto [reads, writes] = ComputeBlockAccess(b);
      // The same regions in another order are kept as they are (decompose_reduction puts the
      // update's written regions first, as TVM does).
      auto same_set = [](const Array<BufferRegion>& x, const Array<BufferRegion>& y) {
        if (x.size() != y.size()) return false;
        for (const BufferRegion& r : x) {
          bool found = false;
          for (const BufferRegion& q : y) found = found || StructuralEqual(r, q);
          if (!found) return false;
        }
        return true;
      };
      if (same_set(reads, b->reads) && same_set(writes, b->writes)) return b;
      BlockNode* n = b.CopyOnWrite();
      n->reads = reads;
      n->writes = writes;
      return b;
    }
  };
  return WithBody(func, Refresher().VisitStmt(func->body));
}

// ---- arithmetic ---------------------------------------------------------------------------

void BindLoops(arith::Analyzer* analyzer, const std::vector<const ForNode*>& loops,
               bool bind_unit_loops) {
  for (const ForNode* loop : loops) {
    auto ext = ConstValue(loop->extent);
    if (!bind_unit_loops && ext && *ext == 1) continue;
    analyzer->Bind(loop->loop_var, Range(loop->min, loop->extent), true);
  }
}

std::optional<int64_t> ConstValue(const PrimExpr& e) { return AsConstInt(e); }

Array<PrimExpr> SimplifyAll(arith::Analyzer* analyzer, const Array<PrimExpr>& values) {
  Array<PrimExpr> out;
  for (const PrimExpr& v : values) out.push_back(analyzer->Simplify(v));
  return out;
}

std::vector<PrimExpr> SplitConjuncts(const PrimExpr& cond) {
  std::vector<PrimExpr> out;
  if (auto* a = cond.as<AndNode>()) {
    for (const PrimExpr& e : SplitConjuncts(a->a)) out.push_back(e);
    for (const PrimExpr& e : SplitConjuncts(a->b)) out.push_back(e);
  } else if (auto v = ConstValue(cond); !(v && *v == 1)) {
    out.push_back(cond);
  }
  return out;
}

PrimExpr JoinConjuncts(const std::vector<PrimExpr>& conds) {
  PrimExpr out;
  for (const PrimExpr& c : conds) out = out.defined() ? (out && c) : c;
  return out.defined() ? out : IntImm(DataType::Bool(), 1);
}

LinearForm ToLinear(const PrimExpr& e) {
  LinearForm out;
  std::optional<arith::LinearForm> form = arith::ToLinearForm(e);
  if (!form) {
    out.ok = false;
    return out;
  }
  for (const auto& [atom, coeff] : form->terms) out.terms.emplace_back(atom.as<VarNode>(), coeff);
  out.constant = form->constant;
  return out;
}

Range RelaxRange(arith::Analyzer* analyzer, const PrimExpr& min, const PrimExpr& extent,
                 const std::unordered_map<const VarNode*, arith::IntSet>& dom) {
  std::optional<Range> r = arith::RelaxRange(analyzer, min, extent, dom);
  if (!r) {
    MINITVM_THROW(ValueError) << "cannot bound the region [" << ExprStr(min) << ", +"
                              << ExprStr(extent) << ")";
  }
  return *r;
}

Range UnionRange(arith::Analyzer* analyzer, const Range& a, const Range& b) {
  if (StructuralEqual(a->min, b->min) && StructuralEqual(a->extent, b->extent)) return a;
  PrimExpr a_end = a->min + a->extent, b_end = b->min + b->extent;
  PrimExpr lo = analyzer->CanProve(a->min <= b->min)   ? a->min
                : analyzer->CanProve(b->min <= a->min) ? b->min
                                                       : tir::min(a->min, b->min);
  PrimExpr hi = analyzer->CanProve(a_end >= b_end)   ? a_end
                : analyzer->CanProve(b_end >= a_end) ? b_end
                                                     : tir::max(a_end, b_end);
  return Range(analyzer->Simplify(lo), analyzer->Simplify(hi - lo));
}

// ---- variables ----------------------------------------------------------------------------

std::unordered_set<const VarNode*> UsedVars(const PrimExpr& e) {
  std::unordered_set<const VarNode*> out;
  if (!e.defined()) return out;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (auto* v = n.as<VarNode>()) out.insert(v);
  });
  return out;
}

bool UsesVar(const PrimExpr& e, const VarNode* v) { return UsedVars(e).count(v) > 0; }

bool UsesVar(const Stmt& s, const VarNode* v) {
  bool found = false;
  PostOrderVisit(s, [&](const ObjectRef& n) {
    if (n.get() == v) found = true;
  });
  return found;
}

// ---- affine bindings ----------------------------------------------------------------------

namespace {

/*! \brief A binding split into plain linear terms and fused (div/mod) terms. */
struct AffineTerms {
  std::map<const VarNode*, int64_t> linear;
  std::unordered_set<const VarNode*> fused_vars;
  bool ok = true;
  std::string why;
};

bool UsesAny(const PrimExpr& e, const std::unordered_set<const VarNode*>& vars) {
  for (const VarNode* v : UsedVars(e)) {
    if (vars.count(v)) return true;
  }
  return false;
}

/*! \brief True when e is a (quasi-)affine expression of the loop variables. */
bool IsQuasiAffine(const PrimExpr& e, const std::unordered_set<const VarNode*>& loops) {
  if (!UsesAny(e, loops)) return true;
  if (e.as<VarNode>()) return true;
  if (auto* op = e.as<AddNode>()) return IsQuasiAffine(op->a, loops) && IsQuasiAffine(op->b, loops);
  if (auto* op = e.as<SubNode>()) return IsQuasiAffine(op->a, loops) && IsQuasiAffine(op->b, loops);
  if (auto* op = e.as<MulNode>()) {
    if (!UsesAny(op->a, loops)) return IsQuasiAffine(op->b, loops);
    if (!UsesAny(op->b, loops)) return IsQuasiAffine(op->a, loops);
    return false;
  }
  if (auto* op = e.as<FloorDivNode>()) {
    return ConstValue(op->b).value_or(0) > 0 && IsQuasiAffine(op->a, loops);
  }
  if (auto* op = e.as<FloorModNode>()) {
    return ConstValue(op->b).value_or(0) > 0 && IsQuasiAffine(op->a, loops);
  }
  if (auto* op = e.as<CastNode>()) return IsQuasiAffine(op->value, loops);
  return false;
}

void Decompose(const PrimExpr& e, int64_t scale, const std::unordered_set<const VarNode*>& loops,
               AffineTerms* out) {
  if (!out->ok || !UsesAny(e, loops)) return;
  if (auto* v = e.as<VarNode>()) {
    out->linear[v] += scale;
  } else if (auto* op = e.as<AddNode>()) {
    Decompose(op->a, scale, loops, out);
    Decompose(op->b, scale, loops, out);
  } else if (auto* op = e.as<SubNode>()) {
    Decompose(op->a, scale, loops, out);
    Decompose(op->b, -scale, loops, out);
  } else if (auto* op = e.as<MulNode>()) {
    if (auto c = ConstValue(op->b)) {
      Decompose(op->a, scale * *c, loops, out);
    } else if (auto c2 = ConstValue(op->a)) {
      Decompose(op->b, scale * *c2, loops, out);
    } else {
      out->ok = false;
      out->why = "the product " + ExprStr(e) + " multiplies loop variables by non-constants";
    }
  } else if (e.as<FloorDivNode>() || e.as<FloorModNode>()) {
    if (!IsQuasiAffine(e, loops)) {
      out->ok = false;
      out->why = ExprStr(e) + " divides by a non-constant or a non-affine expression";
      return;
    }
    for (const VarNode* v : UsedVars(e)) {
      if (loops.count(v)) out->fused_vars.insert(v);
    }
  } else if (auto* op = e.as<CastNode>()) {
    Decompose(op->value, scale, loops, out);
  } else {
    out->ok = false;
    out->why = ExprStr(e) + " is not an affine expression of the loop variables";
  }
}

}  // namespace

bool IsAffineBinding(const BlockRealizeNode* realize, const std::vector<const ForNode*>& loops,
                     std::string* why) {
  std::unordered_set<const VarNode*> loop_vars;
  for (const ForNode* l : loops) loop_vars.insert(l->loop_var.get());
  std::vector<AffineTerms> terms;
  const BlockNode* block = realize->block.get();
  for (size_t i = 0; i < realize->iter_values.size(); ++i) {
    AffineTerms t;
    Decompose(realize->iter_values[i], 1, loop_vars, &t);
    if (!t.ok) {
      if (why) {
        *why = "iterator " + block->iter_vars[i]->var->name_hint.str() + " is bound to " +
               ExprStr(realize->iter_values[i]) + ": " + t.why;
      }
      return false;
    }
    for (const auto& [v, c] : t.linear) {
      if (c != 0 && t.fused_vars.count(v)) {
        if (why) {
          *why = "loop variable " + v->name_hint.str() + " appears twice in the binding " +
                 ExprStr(realize->iter_values[i]);
        }
        return false;
      }
    }
    terms.push_back(std::move(t));
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    for (const auto& [v, c] : terms[i].linear) {
      if (c == 0) continue;
      for (size_t j = 0; j < terms.size(); ++j) {
        if (i == j) continue;
        auto it = terms[j].linear.find(v);
        bool used =
            (it != terms[j].linear.end() && it->second != 0) || terms[j].fused_vars.count(v);
        if (used) {
          if (why) {
            *why = "loop variable " + v->name_hint.str() + " drives both iterator " +
                   block->iter_vars[i]->var->name_hint.str() + " and iterator " +
                   block->iter_vars[j]->var->name_hint.str();
          }
          return false;
        }
      }
    }
  }
  return true;
}

std::set<IterVarType> IterTypesOfLoop(const BlockRealizeNode* realize, const VarNode* loop_var) {
  std::set<IterVarType> out;
  const BlockNode* block = realize->block.get();
  for (size_t i = 0; i < realize->iter_values.size(); ++i) {
    if (UsesVar(realize->iter_values[i], loop_var)) out.insert(block->iter_vars[i]->iter_type);
  }
  return out;
}

// ---- blocks -------------------------------------------------------------------------------

bool IsReductionBlock(const BlockNode* block) {
  if (block->init.defined()) return true;
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type == kCommReduce) return true;
  }
  return false;
}

std::vector<const BlockNode*> BlocksInScope(const FuncIndex& index, const BlockNode* scope) {
  std::vector<const BlockNode*> out;
  for (const BlockNode* b : index.blocks()) {
    if (b != scope && index.ScopeBlock(b) == scope) out.push_back(b);
  }
  return out;
}

bool RegionsHave(const Array<BufferRegion>& regions, const BufferNode* buffer) {
  for (const BufferRegion& r : regions) {
    if (r->buffer.get() == buffer) return true;
  }
  return false;
}

bool IsCompleteBlock(const FuncIndex& index, const BlockNode* block, const BlockNode* scope,
                     std::string* why) {
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != kDataPar) {
      if (why) *why = "iterator " + iv->var->name_hint.str() + " is not data-parallel";
      return false;
    }
  }
  if (block->init.defined()) {
    if (why) *why = "the block has an init statement";
    return false;
  }
  for (const BufferRegion& w : block->writes) {
    if (RegionsHave(block->reads, w->buffer.get())) {
      if (why) *why = "the block reads the buffer " + w->buffer->name.str() + " it writes";
      return false;
    }
    for (const BlockNode* other : BlocksInScope(index, scope)) {
      if (other != block && RegionsHave(other->writes, w->buffer.get())) {
        if (why) {
          *why = "block \"" + other->name_hint.str() + "\" also writes " + w->buffer->name.str();
        }
        return false;
      }
    }
  }
  return true;
}

std::vector<const BlockNode*> Producers(const FuncIndex& index, const BlockNode* block) {
  std::vector<const BlockNode*> out;
  for (const BlockNode* other : BlocksInScope(index, index.ScopeBlock(block))) {
    if (other == block) continue;
    for (const BufferRegion& w : other->writes) {
      if (RegionsHave(block->reads, w->buffer.get())) {
        out.push_back(other);
        break;
      }
    }
  }
  return out;
}

std::vector<const BlockNode*> Consumers(const FuncIndex& index, const BlockNode* block) {
  std::vector<const BlockNode*> out;
  for (const BlockNode* other : BlocksInScope(index, index.ScopeBlock(block))) {
    if (other == block) continue;
    for (const BufferRegion& r : other->reads) {
      if (RegionsHave(block->writes, r->buffer.get())) {
        out.push_back(other);
        break;
      }
    }
  }
  return out;
}

Buffer BlockBuffer(const BlockNode* block, int64_t i, bool write, const std::string& primitive) {
  const Array<BufferRegion>& regions = write ? block->writes : block->reads;
  if (i >= 0 && i < static_cast<int64_t>(regions.size())) return regions[i]->buffer;
  std::string count = std::to_string(regions.size()) + " buffer(s)";
  ScheduleError err("IndexOutOfRangeError",
                    primitive + ": block " + BlockName(block) + (write ? " writes " : " reads ") +
                        count + "; index " + std::to_string(i) + " is out of range");
  err.Check(std::string("the buffer index is within the block's ") + (write ? "writes" : "reads"),
            false)
      .At(GetRef<ObjectRef>(block), std::string(write ? "T.writes" : "T.reads") + " has " + count);
  throw err;
}

const BlockNode* AllocatingBlock(const FuncIndex& index, const BufferNode* buffer) {
  for (const BlockNode* b : index.blocks()) {
    for (const Buffer& buf : b->alloc_buffers) {
      if (buf.get() == buffer) return b;
    }
  }
  return nullptr;
}

std::string LoopName(const ForNode* loop) { return "\"" + loop->loop_var->name_hint.str() + "\""; }
std::string BlockName(const BlockNode* block) { return "\"" + block->name_hint.str() + "\""; }

std::string UniqueBlockName(const FuncIndex& index, const std::string& base) {
  if (index.BlocksNamed(base).empty()) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (index.BlocksNamed(name).empty()) return name;
  }
}

// ---- checks -------------------------------------------------------------------------------

const ForNode* AsLoop(const StmtNode* stmt) {
  auto* loop = dynamic_cast<const ForNode*>(stmt);
  if (loop == nullptr) MINITVM_THROW(TypeError) << "expected a loop but got a block";
  return loop;
}

const BlockNode* AsBlock(const StmtNode* stmt) {
  auto* block = dynamic_cast<const BlockNode*>(stmt);
  if (block == nullptr) MINITVM_THROW(TypeError) << "expected a block but got a loop";
  return block;
}

void CheckPlainLoop(const ForNode* loop, const std::string& primitive) {
  bool plain_kind = loop->kind == ForKind::kSerial;
  bool no_ann = loop->annotations.empty();
  if (plain_kind && no_ann) return;
  ScheduleError err(
      "HasAnnotationOrThreadBindingError",
      primitive + " needs a plain serial loop, but loop " + LoopName(loop) +
          (plain_kind ? " has annotations" : std::string(" is ") + ForKindName(loop->kind)));
  err.Subject("loop " + LoopName(loop))
      .Check("the loop is serial (not parallel, vectorized, unrolled or thread-bound)", plain_kind)
      .Check("the loop has no annotations", no_ann)
      .At(GetRef<ObjectRef>(loop),
          "loop " + LoopName(loop) + " is " + (plain_kind ? "annotated" : ForKindName(loop->kind)));
  throw err;
}

void CheckLoopStartsAtZero(arith::Analyzer* analyzer, const ForNode* loop) {
  if (analyzer->CanProveEqual(loop->min, IntImm(loop->min.dtype(), 0))) return;
  ScheduleError err("LoopNotStartWithZeroError",
                    "loop " + LoopName(loop) + " starts at " + ExprStr(loop->min) + ", not at 0");
  err.Subject("loop " + LoopName(loop))
      .Check("the loop starts at 0", false)
      .At(GetRef<ObjectRef>(loop), "starts at " + ExprStr(loop->min));
  throw err;
}

void CheckAffineUnder(const FuncIndex& index, const StmtNode* stmt, const std::string& primitive) {
  for (const BlockNode* b : index.blocks()) {
    if (b == index.root() || !index.IsAncestor(stmt, b)) continue;
    const StmtSRef& s = index.Get(b);
    if (s.realize == nullptr) continue;
    std::string why;
    if (!IsAffineBinding(s.realize, index.LoopsAbove(b), &why)) {
      ScheduleError err("NotAffineBindingError", primitive +
                                                     " needs affine block bindings, but block " +
                                                     BlockName(b) + " is not affinely bound");
      err.Subject("block " + BlockName(b))
          .Check("every block iterator is an affine function of the loops above it", false)
          .Detail(why)
          .At(GetRef<ObjectRef>(b), why);
      throw err;
    }
  }
}

}  // namespace sched
}  // namespace tir
}  // namespace minitvm
