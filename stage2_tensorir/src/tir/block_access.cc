/*!
 * \file block_access.cc
 * \brief Detection of the regions a block reads and writes (stage 2), with the small affine
 * interval arithmetic it needs to relax loops inside the block.
 *
 * The relaxation works on affine forms `c + sum(coef_k * atom_k)`: an atom is a variable or a
 * non-affine sub-expression (compared structurally). A relaxed variable contributes its lower
 * or upper bound depending on the sign of its coefficient; floordiv/floormod by a positive
 * constant and min/max are relaxed through their operands. Anything else falls back to the
 * whole extent of the buffer dimension, which is always a correct (if loose) answer.
 */
#include "minitvm/tir/block_access.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {
namespace {

// ---- structural comparison of index atoms ---------------------------------------------------

bool DeepEqual(const PrimExpr& a, const PrimExpr& b);

bool DeepEqualArray(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!DeepEqual(a[i], b[i])) return false;
  }
  return true;
}

bool DeepEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->type_index() != b->type_index() || a.dtype() != b.dtype()) return false;
  if (auto* x = a.as<IntImmNode>()) return x->value == b.as<IntImmNode>()->value;
  if (auto* x = a.as<FloatImmNode>()) return x->value == b.as<FloatImmNode>()->value;
  if (auto* x = a.as<StringImmNode>()) return x->value == b.as<StringImmNode>()->value;
  if (a.as<VarNode>()) return false;  // variables compare by identity
  if (auto* x = a.as<BinaryOpNode>()) {
    auto* y = b.as<BinaryOpNode>();
    return DeepEqual(x->a, y->a) && DeepEqual(x->b, y->b);
  }
  if (auto* x = a.as<CastNode>()) return DeepEqual(x->value, b.as<CastNode>()->value);
  if (auto* x = a.as<NotNode>()) return DeepEqual(x->a, b.as<NotNode>()->a);
  if (auto* x = a.as<SelectNode>()) {
    auto* y = b.as<SelectNode>();
    return DeepEqual(x->condition, y->condition) && DeepEqual(x->true_value, y->true_value) &&
           DeepEqual(x->false_value, y->false_value);
  }
  if (auto* x = a.as<BufferLoadNode>()) {
    auto* y = b.as<BufferLoadNode>();
    return x->buffer.same_as(y->buffer) && DeepEqualArray(x->indices, y->indices);
  }
  if (auto* x = a.as<CallNode>()) {
    auto* y = b.as<CallNode>();
    return x->op == y->op && DeepEqualArray(x->args, y->args);
  }
  if (auto* x = a.as<RampNode>()) {
    auto* y = b.as<RampNode>();
    return x->lanes == y->lanes && DeepEqual(x->base, y->base) && DeepEqual(x->stride, y->stride);
  }
  if (auto* x = a.as<BroadcastNode>()) {
    auto* y = b.as<BroadcastNode>();
    return x->lanes == y->lanes && DeepEqual(x->value, y->value);
  }
  return false;
}

// ---- affine forms --------------------------------------------------------------------------

/*! \brief c + sum(coef * atom). */
struct Affine {
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t c = 0;
  DataType dtype = DataType::Int(32);

  void AddTerm(const PrimExpr& atom, int64_t coef) {
    if (coef == 0) return;
    for (auto it = terms.begin(); it != terms.end(); ++it) {
      if (DeepEqual(it->first, atom)) {
        it->second += coef;
        if (it->second == 0) terms.erase(it);
        return;
      }
    }
    terms.emplace_back(atom, coef);
  }
  void Add(const Affine& o, int64_t scale) {
    c += o.c * scale;
    for (const auto& [atom, coef] : o.terms) AddTerm(atom, coef * scale);
  }
  bool IsConst() const { return terms.empty(); }
};

Affine ToAffine(const PrimExpr& e) {
  Affine out;
  out.dtype = e.dtype();
  if (auto* imm = e.as<IntImmNode>()) {
    out.c = imm->value;
    return out;
  }
  if (auto* add = e.as<AddNode>()) {
    out = ToAffine(add->a);
    out.Add(ToAffine(add->b), 1);
    out.dtype = e.dtype();
    return out;
  }
  if (auto* sub = e.as<SubNode>()) {
    out = ToAffine(sub->a);
    out.Add(ToAffine(sub->b), -1);
    out.dtype = e.dtype();
    return out;
  }
  if (auto* mul = e.as<MulNode>()) {
    Affine a = ToAffine(mul->a), b = ToAffine(mul->b);
    if (b.IsConst()) {
      out.Add(a, b.c);
      return out;
    }
    if (a.IsConst()) {
      out.Add(b, a.c);
      return out;
    }
  }
  out.AddTerm(e, 1);
  return out;
}

PrimExpr FromAffine(const Affine& a) {
  PrimExpr e;
  for (const auto& [atom, coef] : a.terms) {
    PrimExpr atom_t = atom.dtype() == a.dtype ? atom : cast(a.dtype, atom);
    if (!e.defined()) {
      e = coef == 1 ? atom_t : (coef == -1 ? -atom_t : atom_t * make_const(a.dtype, coef));
    } else if (coef > 0) {
      e = e + (coef == 1 ? atom_t : atom_t * make_const(a.dtype, coef));
    } else {
      e = e - (coef == -1 ? atom_t : atom_t * make_const(a.dtype, -coef));
    }
  }
  if (!e.defined()) return make_const(a.dtype, a.c);
  if (a.c > 0) return e + make_const(a.dtype, a.c);
  if (a.c < 0) return e - make_const(a.dtype, -a.c);
  return e;
}

/*! \brief a - b as a constant, when it is one. */
std::optional<int64_t> ConstDiff(const PrimExpr& a, const PrimExpr& b) {
  Affine d = ToAffine(a);
  d.Add(ToAffine(b), -1);
  if (d.IsConst()) return d.c;
  return std::nullopt;
}

/*! \brief Simplify an index expression by normalising its affine form. */
PrimExpr Normalize(const PrimExpr& e) { return FromAffine(ToAffine(e)); }

// ---- interval relaxation -------------------------------------------------------------------

/*! \brief Inclusive bounds [lo, hi]; undefined when unknown. */
struct Bound {
  PrimExpr lo, hi;
  bool ok() const { return lo.defined() && hi.defined(); }
};

int64_t FloorDivI(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

class Relaxer {
 public:
  /*! \brief Variables relaxed over inclusive bounds (innermost last). */
  std::vector<std::pair<const VarNode*, Bound>> relax;

  bool UsesRelaxed(const PrimExpr& e) const {
    if (relax.empty()) return false;
    bool found = false;
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (found) return;
      if (auto* v = n.as<VarNode>()) found = Find(v) != nullptr;
    });
    return found;
  }

  const Bound* Find(const VarNode* v) const {
    for (auto it = relax.rbegin(); it != relax.rend(); ++it) {
      if (it->first == v) return &it->second;
    }
    return nullptr;
  }

  Bound Relax(const PrimExpr& e) const {
    if (!UsesRelaxed(e)) return {e, e};
    if (auto* v = e.as<VarNode>()) return *Find(v);
    if (auto* ramp = e.as<RampNode>()) {
      auto stride = AsConstInt(ramp->stride);
      if (!stride) return {};
      Bound b = Relax(ramp->base);
      if (!b.ok()) return {};
      int64_t span = *stride * (ramp->lanes - 1);
      PrimExpr s = make_const(ramp->base.dtype(), span);
      return span >= 0 ? Bound{b.lo, Normalize(b.hi + s)} : Bound{Normalize(b.lo + s), b.hi};
    }
    if (auto* bc = e.as<BroadcastNode>()) return Relax(bc->value);
    Affine a = ToAffine(e);
    Affine lo, hi;
    lo.dtype = hi.dtype = e.dtype();
    lo.c = hi.c = a.c;
    for (const auto& [atom, coef] : a.terms) {
      if (!UsesRelaxed(atom)) {
        lo.AddTerm(atom, coef);
        hi.AddTerm(atom, coef);
        continue;
      }
      Bound b = atom.as<VarNode>() ? *Find(atom.as<VarNode>()) : RelaxNonLinear(atom);
      if (!b.ok()) return {};
      if (coef > 0) {
        lo.Add(ToAffine(b.lo), coef);
        hi.Add(ToAffine(b.hi), coef);
      } else {
        lo.Add(ToAffine(b.hi), coef);
        hi.Add(ToAffine(b.lo), coef);
      }
    }
    return {FromAffine(lo), FromAffine(hi)};
  }

 private:
  Bound RelaxNonLinear(const PrimExpr& e) const {
    if (auto* fd = e.as<FloorDivNode>()) {
      auto c = AsConstInt(fd->b);
      if (!c || *c <= 0) return {};
      Bound b = Relax(fd->a);
      if (!b.ok()) return {};
      return {floordiv(b.lo, fd->b), floordiv(b.hi, fd->b)};
    }
    if (auto* fm = e.as<FloorModNode>()) {
      auto c = AsConstInt(fm->b);
      if (!c || *c <= 0) return {};
      Bound b = Relax(fm->a);
      if (!b.ok()) return {};
      auto lo = AsConstInt(b.lo), hi = AsConstInt(b.hi);
      if (lo && hi && FloorDivI(*lo, *c) == FloorDivI(*hi, *c)) {
        return {make_const(e.dtype(), *lo - FloorDivI(*lo, *c) * *c),
                make_const(e.dtype(), *hi - FloorDivI(*hi, *c) * *c)};
      }
      return {make_zero(e.dtype()), make_const(e.dtype(), *c - 1)};
    }
    if (auto* mn = e.as<MinNode>()) {
      Bound a = Relax(mn->a), b = Relax(mn->b);
      if (!a.ok() || !b.ok()) return {};
      return {MinOf(a.lo, b.lo), MinOf(a.hi, b.hi)};
    }
    if (auto* mx = e.as<MaxNode>()) {
      Bound a = Relax(mx->a), b = Relax(mx->b);
      if (!a.ok() || !b.ok()) return {};
      return {MaxOf(a.lo, b.lo), MaxOf(a.hi, b.hi)};
    }
    return {};
  }

 public:
  static PrimExpr MinOf(const PrimExpr& a, const PrimExpr& b) {
    if (auto d = ConstDiff(a, b)) return *d <= 0 ? a : b;
    return min(a, b);
  }
  static PrimExpr MaxOf(const PrimExpr& a, const PrimExpr& b) {
    if (auto d = ConstDiff(a, b)) return *d >= 0 ? a : b;
    return max(a, b);
  }
};

Range BoundToRange(const Bound& b) {
  Affine ext = ToAffine(b.hi);
  ext.Add(ToAffine(b.lo), -1);
  ext.c += 1;
  return Range(Normalize(b.lo), FromAffine(ext));
}

// ---- the detector --------------------------------------------------------------------------

/*! \brief The hull of the accesses of one buffer. */
struct Access {
  Buffer buffer;
  std::vector<Bound> dims;
};

class AccessDetector : public StmtExprVisitor {
 public:
  std::vector<Access> reads, writes;

  void Run(const Block& block) {
    for (const Buffer& b : block->alloc_buffers) local_.insert(b.get());
    for (const MatchBufferRegion& m : block->match_buffers) matched_[m->buffer.get()] = m->source;
    if (block->init.defined()) VisitStmt(block->init);
    VisitStmt(block->body);
  }

  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    Bound lo = relaxer_.Relax(op->min);
    Bound hi = relaxer_.Relax(Normalize(op->min + op->extent - make_const(op->extent.dtype(), 1)));
    relaxer_.relax.emplace_back(op->loop_var.get(), Bound{lo.lo, hi.hi});
    VisitStmt(op->body);
    relaxer_.relax.pop_back();
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    Bound b = relaxer_.Relax(op->value);
    relaxer_.relax.emplace_back(op->var.get(), b);
    VisitStmt(op->body);
    relaxer_.relax.pop_back();
  }
  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    Bound b = relaxer_.Relax(op->value);
    relaxer_.relax.emplace_back(op->var.get(), b);
    VisitExpr(op->body);
    relaxer_.relax.pop_back();
  }
  void VisitStmt_(const AllocateNode* op) override {
    local_vars_.insert(op->buffer_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    local_.insert(op->buffer.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Record(&reads, op->buffer, op->indices);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    VisitExpr(op->value);
    for (const PrimExpr& i : op->indices) VisitExpr(i);
    Record(&writes, op->buffer, op->indices);
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    for (const PrimExpr& v : op->iter_values) VisitExpr(v);
    VisitExpr(op->predicate);
    const Block& inner = op->block;
    for (const Buffer& b : inner->alloc_buffers) local_.insert(b.get());
    Map<Var, PrimExpr> bind;
    for (size_t i = 0; i < inner->iter_vars.size(); ++i) {
      bind.Set(inner->iter_vars[i]->var, op->iter_values[i]);
    }
    auto add = [&](std::vector<Access>* out, const BufferRegion& region) {
      // A nested block's access of a buffer allocated here (or by the nested block) is local.
      if (local_.count(region->buffer.get()) || local_vars_.count(region->buffer->data.get())) {
        return;
      }
      std::vector<Bound> dims;
      for (const Range& r : region->region) {
        PrimExpr lo = Substitute(r->min, bind);
        PrimExpr hi =
            Substitute(Normalize(r->min + r->extent - make_const(r->extent.dtype(), 1)), bind);
        dims.push_back({relaxer_.Relax(lo).lo, relaxer_.Relax(hi).hi});
      }
      Merge(out, region->buffer, dims);
    };
    for (const BufferRegion& r : inner->reads) add(&reads, r);
    for (const BufferRegion& r : inner->writes) add(&writes, r);
  }

 private:
  void Record(std::vector<Access>* out, const Buffer& buffer, const Array<PrimExpr>& indices) {
    if (local_.count(buffer.get()) || local_vars_.count(buffer->data.get())) return;
    auto it = matched_.find(buffer.get());
    if (it != matched_.end()) {
      std::vector<Bound> dims;
      for (const Range& r : it->second->region) {
        dims.push_back({r->min, Normalize(r->min + r->extent - make_const(r->extent.dtype(), 1))});
      }
      Merge(out, it->second->buffer, dims);
      return;
    }
    std::vector<Bound> dims;
    for (const PrimExpr& i : indices) dims.push_back(relaxer_.Relax(i));
    Merge(out, buffer, dims);
  }

  static void Merge(std::vector<Access>* out, const Buffer& buffer, std::vector<Bound> dims) {
    // An unknown bound in a dimension widens it to the whole dimension.
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!dims[d].ok()) {
        PrimExpr ext = buffer->shape[d];
        dims[d] = {make_zero(ext.dtype()), Normalize(ext - make_const(ext.dtype(), 1))};
      }
    }
    for (Access& a : *out) {
      if (!a.buffer.same_as(buffer)) continue;
      for (size_t d = 0; d < dims.size(); ++d) {
        a.dims[d].lo = Relaxer::MinOf(a.dims[d].lo, dims[d].lo);
        a.dims[d].hi = Relaxer::MaxOf(a.dims[d].hi, dims[d].hi);
      }
      return;
    }
    out->push_back({buffer, std::move(dims)});
  }

  Relaxer relaxer_;
  std::unordered_set<const Object*> local_;
  std::unordered_set<const Object*> local_vars_;
  std::unordered_map<const Object*, BufferRegion> matched_;
};

Array<BufferRegion> ToRegions(const std::vector<Access>& accesses,
                              const std::unordered_set<const Object*>& exclude) {
  Array<BufferRegion> out;
  for (const Access& a : accesses) {
    if (exclude.count(a.buffer.get())) continue;
    Array<Range> region;
    for (const Bound& b : a.dims) region.push_back(BoundToRange(b));
    out.push_back(BufferRegion(a.buffer, region));
  }
  return out;
}

}  // namespace

BlockAccessRegion GetBlockAccessRegion(const Block& block) {
  AccessDetector detector;
  detector.Run(block);
  std::unordered_set<const Object*> exclude;
  if (block->init.defined()) {
    for (const Access& w : detector.writes) exclude.insert(w.buffer.get());
  }
  BlockAccessRegion out;
  out.reads = ToRegions(detector.reads, exclude);
  out.writes = ToRegions(detector.writes, {});
  return out;
}

Range RelaxIndex(const PrimExpr& e, const std::vector<std::pair<Var, Range>>& relax,
                 const Range& fallback) {
  Relaxer r;
  for (const auto& [v, rng] : relax) {
    Bound lo = r.Relax(rng->min);
    Bound hi = r.Relax(Normalize(rng->min + rng->extent - make_const(rng->extent.dtype(), 1)));
    r.relax.emplace_back(v.get(), Bound{lo.lo, hi.hi});
  }
  Bound b = r.Relax(e);
  if (!b.ok()) return fallback;
  return BoundToRange(b);
}

MINITVM_REGISTER_GLOBAL("tir.analysis.GetBlockAccessRegion").set_body_typed([](Block block) {
  BlockAccessRegion r = GetBlockAccessRegion(block);
  return Array<Any>{r.reads, r.writes};
});

}  // namespace tir
}  // namespace minitvm
