/*!
 * \file primitive/compute_at.cc
 * \brief `compute_at` and `reverse_compute_at` (stage 3): move a block under a loop.
 *
 * compute_at moves a producer under a loop of its consumers and shrinks its iteration space
 * to the region those consumers read in one iteration of the loop; reverse_compute_at moves a
 * consumer under a loop of its producers and shrinks it to what they write in one iteration.
 * The region is found by relaxing the consumers' (producers') access regions over the loops
 * inside the target loop with `arith::Analyzer::int_set`. The moved block gets fresh loops
 * `ax0, ax1, ...` (unit loops only with preserve_unit_loops) and a `T.where` when the region
 * may leave its iteration domain.
 */
#include <algorithm>

#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*!
 * \brief An integer interval [min, max] whose undefined end is infinite, or nothing (TVM's
 * IntSet as compute_at uses it).
 */
struct Interval {
  bool nothing = true;
  PrimExpr min, max;

  static Interval Of(PrimExpr lo, PrimExpr hi) {
    Interval s;
    s.nothing = false;
    s.min = std::move(lo);
    s.max = std::move(hi);
    return s;
  }
  bool HasLower() const { return !nothing && min.defined(); }
  bool HasUpper() const { return !nothing && max.defined(); }
};

/*! \brief The ends simplified with `analyzer` (infinite ends stay infinite). */
Interval Simplified(arith::Analyzer* analyzer, const Interval& s) {
  if (s.nothing) return s;
  return Interval::Of(s.min.defined() ? analyzer->Simplify(s.min) : s.min,
                      s.max.defined() ? analyzer->Simplify(s.max) : s.max);
}

/*! \brief Union of two intervals, simplified without context (as arith::Union). */
Interval UnionOf(const Interval& a, const Interval& b) {
  if (a.nothing) return b;
  if (b.nothing) return a;
  arith::Analyzer ana;
  PrimExpr lo =
      a.min.defined() && b.min.defined() ? ana.Simplify(tir::min(a.min, b.min)) : PrimExpr();
  PrimExpr hi =
      a.max.defined() && b.max.defined() ? ana.Simplify(tir::max(a.max, b.max)) : PrimExpr();
  return Interval::Of(lo, hi);
}

/*! \brief Intersection of two intervals, simplified without context (as arith::Intersect). */
Interval IntersectOf(const Interval& a, const Interval& b) {
  if (a.nothing || b.nothing) return Interval();
  arith::Analyzer ana;
  PrimExpr lo = !a.min.defined() ? b.min : !b.min.defined() ? a.min : tir::max(a.min, b.min);
  PrimExpr hi = !a.max.defined() ? b.max : !b.max.defined() ? a.max : tir::min(a.max, b.max);
  if (lo.defined() && hi.defined() && ana.CanProve(hi < lo)) return Interval();
  return Interval::Of(lo.defined() ? ana.Simplify(lo) : lo, hi.defined() ? ana.Simplify(hi) : hi);
}

/*! \brief a == b provably (false when either is infinite). */
bool ProvedEqual(arith::Analyzer* analyzer, const PrimExpr& a, const PrimExpr& b) {
  return a.defined() && b.defined() && analyzer->CanProveEqual(a, b);
}

/*!
 * \brief The iteration domain a block iterator needs (`dom`, always bounded once solved) and
 * the range it may not leave (`bound`: the buffer shape and the iterator's own domain), which
 * becomes a predicate when it cannot be merged into `dom` (TVM's BlockVarDomainInfo).
 */
struct VarDomain {
  Interval dom, bound;

  void Union(const VarDomain& other) {
    // (d0 ^ b0) v (d1 ^ b1) is relaxed to (d0 v d1) ^ (b0 v b1).
    dom = UnionOf(dom, other.dom);
    bound = UnionOf(bound, other.bound);
  }

  void Simplify(arith::Analyzer* analyzer) {
    if (dom.nothing) {
      // Nothing needed from this iterator: it keeps its bound (its own domain).
      if (bound.HasLower() && bound.HasUpper()) std::swap(dom, bound);
      dom = Simplified(analyzer, dom);
      return;
    }
    dom = Simplified(analyzer, dom);
    bound = Simplified(analyzer, bound);
    Interval both = Simplified(analyzer, IntersectOf(dom, bound));
    if (both.nothing) return;
    if (ProvedEqual(analyzer, dom.min, both.min) && ProvedEqual(analyzer, dom.max, both.max)) {
      bound = Interval();  // dom lies within bound
    } else if (ProvedEqual(analyzer, bound.min, both.min) &&
               ProvedEqual(analyzer, bound.max, both.max)) {
      dom = bound;  // bound lies within dom
      bound = Interval();
    } else if (both.min.defined() && both.max.defined() && ConstValue(both.min) &&
               ConstValue(both.max)) {
      dom = both;  // a constant intersection becomes the loop range
      bound = Interval();
    }
  }
};

using NDInterval = std::vector<Interval>;
using BufferIntervals = std::vector<std::pair<const BufferNode*, std::vector<NDInterval>>>;

std::vector<NDInterval>* FindBuffer(BufferIntervals* map, const BufferNode* buf) {
  for (auto& [b, list] : *map) {
    if (b == buf) return &list;
  }
  return nullptr;
}

NDInterval UnionND(const std::vector<NDInterval>& list) {
  NDInterval out = list[0];
  for (size_t i = 1; i < list.size(); ++i) {
    for (size_t d = 0; d < out.size(); ++d) out[d] = UnionOf(out[d], list[i][d]);
  }
  return out;
}

/*! \brief The storage rank of a scope ("global" 0, "shared" 1, "warp" 2, "local" 3, ...). */
int StorageRank(const std::string& scope) {
  std::string base = scope.substr(0, scope.find('.'));
  if (base == "shared") return 1;
  if (base == "warp") return 2;
  if (base == "local") return 3;
  if (base == "wmma") return 4;
  return 0;
}

/*!
 * \brief Whether a buffer of `scope` is shared between the threads of a loop bound to `tag`, so
 * that what one thread needs must be made by all of them (TVM's CanRelaxStorageUnderThread).
 */
bool RelaxUnderThread(const std::string& scope, const std::string& tag) {
  int rank = StorageRank(scope);
  int thread_rank = -1, dim = -1;
  if (tag.rfind("blockIdx.", 0) == 0) {
    thread_rank = 0;
    dim = tag.size() > 9 ? tag[9] - 'x' : -1;
  } else if (tag.rfind("threadIdx.", 0) == 0) {
    thread_rank = 1;
    dim = tag.size() > 10 ? tag[10] - 'x' : -1;
  } else if (tag.rfind("vthread", 0) == 0 || tag == "cthread") {
    thread_rank = 1;
  } else {
    return false;
  }
  if (rank == 2) return thread_rank == 1 && dim == 0;
  return rank <= thread_rank;
}

/*! \brief Every loop enclosing `stmt` (and `stmt` itself when a loop), across block scopes. */
std::vector<const ForNode*> EnclosingLoops(const FuncIndex& index, const StmtNode* stmt) {
  std::vector<const ForNode*> out;
  if (auto* l = dynamic_cast<const ForNode*>(stmt)) out.push_back(l);
  for (const StmtNode* cur = stmt; cur != nullptr;) {
    std::vector<const ForNode*> above = index.LoopsAbove(cur);
    out.insert(out.end(), above.rbegin(), above.rend());
    const BlockNode* scope = index.ScopeBlock(cur);
    if (scope == nullptr || scope == cur) break;
    cur = scope;
  }
  return out;
}

/*!
 * \brief Add to `out` the regions of `out`'s buffers that `related` blocks touch in one
 * iteration of `loop`: their reads (`use_writes` false) or writes, with the loops between them
 * and `loop` relaxed — and, for compute_at, the thread-bound loops above that share a
 * non-global buffer (TVM's RelaxBufferRegions).
 */
void RelaxRegions(arith::Analyzer* analyzer, const FuncIndex& index, const ForNode* loop,
                  const std::vector<const BlockNode*>& related, bool use_writes,
                  bool relax_storage_scope, BufferIntervals* out) {
  for (const BlockNode* r : related) {
    const StmtSRef& s = index.Get(r);
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < r->iter_vars.size(); ++i) {
      vmap[r->iter_vars[i]->var.get()] = s.realize->iter_values[i];
    }
    std::unordered_map<const VarNode*, arith::IntSet> inner;
    bool inside = false;
    for (const ForNode* l : index.LoopsAbove(r)) {
      if (inside) inner[l->loop_var.get()] = arith::IntSet::FromRange(Range(l->min, l->extent));
      if (l == loop) inside = true;
    }
    const Array<BufferRegion>& regions = use_writes ? r->writes : r->reads;
    for (const BufferRegion& br : regions) {
      std::vector<NDInterval>* list = FindBuffer(out, br->buffer.get());
      if (list == nullptr) continue;
      std::unordered_map<const VarNode*, arith::IntSet> dom = inner;
      if (relax_storage_scope && StorageRank(br->buffer->scope) != 0) {
        for (const ForNode* l : EnclosingLoops(index, loop)) {
          if (l->kind == ForKind::kThreadBinding && l->thread_binding.defined() &&
              RelaxUnderThread(br->buffer->scope, l->thread_binding->thread_tag.str())) {
            dom[l->loop_var.get()] = arith::IntSet::FromRange(Range(l->min, l->extent));
          }
        }
      }
      NDInterval nd;
      for (const Range& rg : br->region) {
        PrimExpr lo = SubstituteVars(rg->min, vmap);
        PrimExpr hi = SubstituteVars(rg->min + rg->extent - 1, vmap);
        arith::IntSet a = analyzer->int_set(lo, dom);
        arith::IntSet b = analyzer->int_set(analyzer->Simplify(hi), dom);
        nd.push_back(Interval::Of(a.min(), b.max()));
      }
      list->push_back(std::move(nd));
    }
  }
}

/*! \brief The region one instance of the block provides: its writes (or reads, reverse). */
NDInterval RegionInterval(const Array<Range>& region) {
  NDInterval nd;
  for (const Range& r : region) {
    if (ConstValue(r->extent) == 1) {
      nd.push_back(Interval::Of(r->min, r->min));
    } else {
      nd.push_back(Interval::Of(r->min, r->min + r->extent - 1));
    }
  }
  return nd;
}

/*!
 * \brief One dimension: the block iterator the provided index names and the domain it needs to
 * cover `required` (TVM's SolveBlockVarDomain). nullopt when the index is not of a solvable
 * form; a null var when the index is a constant.
 */
std::optional<std::pair<const VarNode*, VarDomain>> SolveDim(arith::Analyzer* analyzer,
                                                             const Interval& provided,
                                                             const Interval& required,
                                                             const PrimExpr& dim_max) {
  PrimExpr pmin = analyzer->Simplify(provided.min);
  PrimExpr pmax = analyzer->Simplify(provided.max);
  PrimExpr rmin = required.min.defined() ? analyzer->Simplify(required.min) : PrimExpr();
  PrimExpr rmax = required.max.defined() ? analyzer->Simplify(required.max) : PrimExpr();
  auto div = [](const PrimExpr& a, const PrimExpr& b) {
    return a.defined() ? floordiv(a, b) : PrimExpr();
  };
  PrimExpr zero = IntImm(dim_max.dtype(), 0);
  if (auto* mul = pmin.as<MulNode>()) {
    // v * e: the iterator covers [rmin // e, rmax // e].
    const VarNode* v = mul->a.as<VarNode>();
    PrimExpr e = mul->b;
    if (v == nullptr) {
      v = mul->b.as<VarNode>();
      e = mul->a;
    }
    if (v != nullptr) {
      VarDomain info{Interval::Of(div(rmin, e), div(rmax, e)),
                     Interval::Of(zero, floordiv(dim_max, e))};
      return std::make_pair(v, info);
    }
  }
  if (!analyzer->CanProveEqual(pmin, pmax)) return std::nullopt;
  if (auto* v = pmin.as<VarNode>()) {
    return std::make_pair(v, VarDomain{Interval::Of(rmin, rmax), Interval::Of(zero, dim_max)});
  }
  if (auto* fd = pmin.as<FloorDivNode>()) {
    // a <= x // f <= b (f >= 1) needs a * f <= x <= b * f + f - 1.
    PrimExpr f = fd->b;
    if (!analyzer->CanProveGreaterEqual(f, 1)) return std::nullopt;
    PrimExpr lo = rmin.defined() ? rmin * f : PrimExpr();
    PrimExpr hi = rmax.defined() ? analyzer->Simplify(rmax * f + f - 1) : PrimExpr();
    if (auto* v = fd->a.as<VarNode>()) {
      VarDomain info{Interval::Of(lo, hi),
                     Interval::Of(zero, analyzer->Simplify(dim_max * f + f - 1))};
      return std::make_pair(v, info);
    }
    return SolveDim(analyzer, Interval::Of(fd->a, fd->a), Interval::Of(lo, hi), dim_max);
  }
  if (auto* fm = pmin.as<FloorModNode>()) {
    // x % f says nothing about the range of x.
    if (auto* v = fm->a.as<VarNode>()) return std::make_pair(v, VarDomain());
    // minitvm writes TVM's `v % 4 // 2` as `v // 2 % 2`: no constraint on v either.
    PrimExpr inner = fm->a;
    while (auto* d = inner.as<FloorDivNode>()) {
      if (!analyzer->CanProveGreaterEqual(d->b, 1)) break;
      inner = d->a;
    }
    if (auto* v = inner.as<VarNode>()) return std::make_pair(v, VarDomain());
    if (analyzer->CanProveGreaterEqual(fm->a, 1) && analyzer->CanProveGreaterEqual(fm->b, 1) &&
        rmin.defined() && analyzer->CanProveGreaterEqual(rmin, 0)) {
      return SolveDim(analyzer, Interval::Of(fm->a, fm->a), Interval::Of(rmin, PrimExpr()),
                      dim_max);
    }
  }
  return std::nullopt;
}

/*!
 * \brief The affine view of a provided index: `base + scale * (source // lower % extent)`, the
 * source one block iterator or several fused (`v0 * s0 + v1 * s1 + ...`, mixed radix).
 */
struct IterSplit {
  int source = -1;  ///< index into the sources; -1 for a constant index
  PrimExpr lower, extent;
  int64_t scale = 1;
};
struct IterSource {
  std::vector<std::pair<const VarNode*, PrimExpr>> vars;  ///< outermost first, with strides
  std::vector<PrimExpr> extents;
  PrimExpr extent;
};

/*!
 * \brief Detect the provided indices as a bijective affine map of the block iterators (a small
 * DetectIterMap): every iterator of extent > 1 used, the splits of each source tiling it.
 */
class AffineIndices {
 public:
  AffineIndices(arith::Analyzer* analyzer, const Array<IterVar>& iter_vars) : analyzer_(analyzer) {
    for (const IterVar& iv : iter_vars) {
      if (ConstValue(iv->dom->min) != 0) ok_ = false;
      iters_.emplace_back(iv->var.get(), iv->dom->extent);
    }
  }

  bool Detect(const std::vector<PrimExpr>& indices) {
    if (!ok_) return false;
    for (const PrimExpr& e : indices) {
      std::optional<Sum> s = Parse(e);
      if (!s || s->terms.size() > 1) return false;
      IterSplit split;
      if (s->terms.size() == 1) {
        split = s->terms[0].first;
        split.scale = s->terms[0].second;
        if (split.scale != 1 && split.scale != -1) return false;
      }
      splits_.push_back(split);
      bases_.push_back(s->base);
    }
    // Each source tiled exactly by its splits; each iterator in one source; all used.
    std::unordered_map<const VarNode*, int> uses;
    for (size_t k = 0; k < sources_.size(); ++k) {
      std::vector<const IterSplit*> mine;
      for (const IterSplit& sp : splits_) {
        if (sp.source == static_cast<int>(k)) mine.push_back(&sp);
      }
      if (mine.empty()) continue;
      PrimExpr expected = IntImm(DataType::Int(32), 1);
      std::vector<bool> used(mine.size(), false);
      for (size_t n = 0; n < mine.size(); ++n) {
        size_t j = 0;
        while (j < mine.size() && (used[j] || !analyzer_->CanProveEqual(mine[j]->lower, expected)))
          ++j;
        if (j == mine.size()) return false;
        used[j] = true;
        expected = analyzer_->Simplify(mine[j]->lower * mine[j]->extent);
      }
      if (!analyzer_->CanProveEqual(expected, sources_[k].extent)) return false;
      for (const auto& [v, stride] : sources_[k].vars) ++uses[v];
    }
    for (const auto& [v, ext] : iters_) {
      if (uses[v] > 1) return false;
      if (uses[v] == 0 && ConstValue(ext) != 1) return false;
    }
    return true;
  }

  /*! \brief The iterator values at which the indices equal `point` (InverseAffineIterMap). */
  std::unordered_map<const VarNode*, PrimExpr> Inverse(const std::vector<PrimExpr>& point) const {
    std::vector<PrimExpr> acc(sources_.size());
    for (size_t i = 0; i < splits_.size(); ++i) {
      const IterSplit& sp = splits_[i];
      if (sp.source < 0) continue;
      PrimExpr in = point[i];
      if (bases_[i] != 0) in = in - IntImm(in.dtype(), bases_[i]);
      if (sp.scale != 1) in = in * IntImm(in.dtype(), sp.scale);
      if (ConstValue(sp.lower) != 1) in = in * sp.lower;
      acc[sp.source] = acc[sp.source].defined() ? acc[sp.source] + in : in;
    }
    std::unordered_map<const VarNode*, PrimExpr> out;
    for (size_t k = 0; k < sources_.size(); ++k) {
      if (!acc[k].defined()) continue;
      const IterSource& src = sources_[k];
      for (size_t j = 0; j < src.vars.size(); ++j) {
        PrimExpr v = src.vars.size() == 1 ? acc[k] : floordiv(acc[k], src.vars[j].second);
        if (j > 0) v = floormod(v, src.extents[j]);
        out[src.vars[j].first] = v;
      }
    }
    return out;
  }

 private:
  struct Sum {
    std::vector<std::pair<IterSplit, int64_t>> terms;
    int64_t base = 0;
  };

  std::optional<PrimExpr> ExtentOf(const VarNode* v) const {
    for (const auto& [u, ext] : iters_) {
      if (u == v) return ext;
    }
    return std::nullopt;
  }

  int NewSource(IterSource src) {
    sources_.push_back(std::move(src));
    return static_cast<int>(sources_.size()) - 1;
  }

  /*! \brief Fuse a sum of whole iterators (mixed radix) into one split of a new source. */
  std::optional<std::pair<IterSplit, int64_t>> Fuse(const Sum& s) {
    std::vector<std::pair<const IterSplit*, int64_t>> terms;
    for (const auto& t : s.terms) {
      const IterSource& src = sources_[t.first.source];
      if (src.vars.size() != 1 || ConstValue(t.first.lower) != 1 ||
          !analyzer_->CanProveEqual(t.first.extent, src.extent)) {
        return std::nullopt;
      }
      terms.emplace_back(&t.first, t.second);
    }
    std::sort(terms.begin(), terms.end(),
              [](const auto& a, const auto& b) { return std::abs(a.second) > std::abs(b.second); });
    int64_t unit = terms.back().second;
    if (unit == 0) return std::nullopt;
    IterSource fused;
    PrimExpr stride = IntImm(DataType::Int(32), 1);
    for (size_t j = terms.size(); j-- > 0;) {
      const IterSplit* sp = terms[j].first;
      auto c = ConstValue(stride);
      if (!c || terms[j].second != *c * unit) return std::nullopt;
      fused.vars.insert(fused.vars.begin(), {sources_[sp->source].vars[0].first, stride});
      fused.extents.insert(fused.extents.begin(), sp->extent);
      stride = analyzer_->Simplify(stride * sp->extent);
    }
    fused.extent = stride;
    IterSplit out;
    out.source = -1;
    for (size_t k = 0; k < sources_.size() && out.source < 0; ++k) {
      const IterSource& o = sources_[k];
      bool same = o.vars.size() == fused.vars.size();
      for (size_t j = 0; same && j < o.vars.size(); ++j) {
        same = o.vars[j].first == fused.vars[j].first &&
               analyzer_->CanProveEqual(o.vars[j].second, fused.vars[j].second);
      }
      if (same) out.source = static_cast<int>(k);
    }
    if (out.source < 0) out.source = NewSource(fused);
    out.lower = IntImm(DataType::Int(32), 1);
    out.extent = stride;
    return std::make_pair(out, unit);
  }

  /*! \brief A single split (a sum of one term with coefficient 1), fusing when needed. */
  std::optional<IterSplit> AsSplit(const Sum& s) {
    if (s.base != 0 || s.terms.empty()) return std::nullopt;
    if (s.terms.size() == 1 && s.terms[0].second == 1) return s.terms[0].first;
    auto f = Fuse(s);
    if (!f || f->second != 1) return std::nullopt;
    return f->first;
  }

  std::optional<Sum> Parse(const PrimExpr& e) {
    Sum s;
    if (auto c = ConstValue(e)) {
      s.base = *c;
      return s;
    }
    if (auto* v = e.as<VarNode>()) {
      std::optional<PrimExpr> ext = ExtentOf(v);
      if (!ext) return std::nullopt;
      for (size_t k = 0; k < sources_.size(); ++k) {
        if (sources_[k].vars.size() == 1 && sources_[k].vars[0].first == v) {
          s.terms.push_back(
              {IterSplit{static_cast<int>(k), IntImm(DataType::Int(32), 1), *ext}, 1});
          return s;
        }
      }
      IterSource src{{{v, IntImm(DataType::Int(32), 1)}}, {*ext}, *ext};
      s.terms.push_back({IterSplit{NewSource(src), IntImm(DataType::Int(32), 1), *ext}, 1});
      return s;
    }
    if (auto* add = e.as<AddNode>()) return Combine(Parse(add->a), Parse(add->b), 1);
    if (auto* sub = e.as<SubNode>()) return Combine(Parse(sub->a), Parse(sub->b), -1);
    if (auto* mul = e.as<MulNode>()) {
      std::optional<int64_t> c = ConstValue(mul->b);
      PrimExpr x = mul->a;
      if (!c) {
        c = ConstValue(mul->a);
        x = mul->b;
      }
      if (!c) return std::nullopt;
      std::optional<Sum> inner = Parse(x);
      if (!inner) return std::nullopt;
      for (auto& t : inner->terms) t.second *= *c;
      inner->base *= *c;
      return inner;
    }
    if (auto* fd = e.as<FloorDivNode>()) {
      std::optional<int64_t> c = ConstValue(fd->b);
      std::optional<Sum> inner = Parse(fd->a);
      if (!c || *c <= 0 || !inner) return std::nullopt;
      std::optional<IterSplit> sp = AsSplit(*inner);
      if (!sp) return std::nullopt;
      std::optional<int64_t> ext = ConstValue(sp->extent);
      if (!ext || *ext % *c != 0) return std::nullopt;
      sp->lower = analyzer_->Simplify(sp->lower * IntImm(sp->lower.dtype(), *c));
      sp->extent = IntImm(sp->extent.dtype(), *ext / *c);
      Sum out;
      out.terms.push_back({*sp, 1});
      return out;
    }
    if (auto* fm = e.as<FloorModNode>()) {
      std::optional<int64_t> c = ConstValue(fm->b);
      std::optional<Sum> inner = Parse(fm->a);
      if (!c || *c <= 0 || !inner) return std::nullopt;
      std::optional<IterSplit> sp = AsSplit(*inner);
      if (!sp) return std::nullopt;
      std::optional<int64_t> ext = ConstValue(sp->extent);
      if (!ext || *ext % *c != 0) return std::nullopt;
      sp->extent = IntImm(sp->extent.dtype(), *c);
      Sum out;
      out.terms.push_back({*sp, 1});
      return out;
    }
    return std::nullopt;
  }

  std::optional<Sum> Combine(std::optional<Sum> a, std::optional<Sum> b, int64_t sign) {
    if (!a || !b) return std::nullopt;
    for (auto& t : b->terms) a->terms.push_back({t.first, t.second * sign});
    a->base += sign * b->base;
    if (a->terms.size() > 1) {
      auto f = Fuse(*a);
      if (!f) return std::nullopt;
      a->terms = {*f};
    }
    return a;
  }

  arith::Analyzer* analyzer_;
  bool ok_ = true;
  std::vector<std::pair<const VarNode*, PrimExpr>> iters_;
  std::vector<IterSource> sources_;
  std::vector<IterSplit> splits_;
  std::vector<int64_t> bases_;
};

/*!
 * \brief The domains of the block iterators that cover the required regions, per buffer: by
 * inverting the provided indices when they are a bijective affine map of the iterators, else
 * dimension by dimension (TVM's CalculateBlockVarDomain).
 */
std::vector<VarDomain> BlockVarDomains(arith::Analyzer* analyzer, const BlockNode* block,
                                       const BufferIntervals& provided,
                                       const BufferIntervals& required) {
  std::unordered_map<const VarNode*, VarDomain> doms;
  for (const IterVar& iv : block->iter_vars) doms[iv->var.get()] = VarDomain();
  for (const auto& [buf, provided_list] : provided) {
    const std::vector<NDInterval>* req_list = nullptr;
    for (const auto& [b, list] : required) {
      if (b == buf) req_list = &list;
    }
    if (req_list == nullptr || req_list->empty()) continue;
    NDInterval req = UnionND(*req_list);
    NDInterval prov = UnionND(provided_list);
    size_t ndim = buf->shape.size();
    // The affine way: single points only, bijective.
    bool done = false;
    bool points = true;
    for (const Interval& p : prov) points = points && analyzer->CanProveEqual(p.min, p.max);
    bool bounded = true;
    for (const Interval& r : req) bounded = bounded && r.HasLower() && r.HasUpper();
    if (points && bounded) {
      AffineIndices affine(analyzer, block->iter_vars);
      std::vector<PrimExpr> indices;
      for (const Interval& p : prov) indices.push_back(p.min);
      if (affine.Detect(indices)) {
        std::vector<PrimExpr> lo, hi, zero, last;
        for (size_t d = 0; d < ndim; ++d) {
          lo.push_back(req[d].min);
          hi.push_back(req[d].max);
          DataType t = buf->shape[d].dtype();
          zero.push_back(IntImm(t, 0));
          last.push_back(tir::max(buf->shape[d] - IntImm(t, 1), IntImm(t, 0)));
        }
        auto range_of = [&](const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
          auto ia = affine.Inverse(a), ib = affine.Inverse(b);
          std::unordered_map<const VarNode*, Interval> out;
          for (const auto& [v, x] : ia) {
            const PrimExpr& y = ib.at(v);
            out[v] = Interval::Of(analyzer->Simplify(tir::min(x, y)),
                                  analyzer->Simplify(tir::max(x, y)));
          }
          return out;
        };
        auto dom = range_of(lo, hi);
        auto bound = range_of(zero, last);
        for (const auto& [v, s] : dom) doms[v].Union(VarDomain{s, bound.at(v)});
        done = true;
      }
    }
    if (done) continue;
    for (size_t d = 0; d < ndim; ++d) {
      const Interval& p = prov[d];
      DataType t = buf->shape[d].dtype();
      PrimExpr dim_max = tir::max(buf->shape[d] - IntImm(t, 1), IntImm(t, 0));
      if (analyzer->CanProveEqual(p.min, p.max) && ConstValue(analyzer->Simplify(p.min))) continue;
      auto solved = SolveDim(analyzer, p, req[d], dim_max);
      if (!solved) {
        MINITVM_THROW(InternalError)
            << "compute_at: cannot solve the block iterator of buffer " << buf->name.str()
            << " index " << ExprStr(p.min) << " (dimension " << d
            << "): expected v, v * c, v // c or v % c";
      }
      auto it = doms.find(solved->first);
      if (it != doms.end()) it->second.Union(solved->second);
    }
  }
  std::vector<VarDomain> out;
  for (const IterVar& iv : block->iter_vars) {
    VarDomain& info = doms.at(iv->var.get());
    Interval own = Interval::Of(iv->dom->min, iv->dom->min + iv->dom->extent - 1);
    info.bound = info.bound.nothing ? own : IntersectOf(info.bound, own);
    info.Simplify(analyzer);
    out.push_back(info);
  }
  return out;
}

bool ContainsAny(const Stmt& s, const std::vector<const BlockNode*>& blocks) {
  bool found = false;
  PostOrderVisit(s, [&](const ObjectRef& n) {
    if (auto* b = n.as<BlockNode>()) {
      if (std::find(blocks.begin(), blocks.end(), b) != blocks.end()) found = true;
    }
  });
  return found;
}

/*!
 * \brief compute_at (`kReverse` false) or reverse_compute_at (true): move `block_rv` under
 * `loop_rv` at `position` (-1 the last valid place, -2 the first).
 */
template <bool kReverse>
Array<ObjectRef> ComputeAt(ScheduleNode* self, const BlockRV& block_rv, const LoopRV& loop_rv,
                           bool preserve_unit_loops, int64_t position) {
  const bool reverse = kReverse;
  const std::string primitive = reverse ? "reverse_compute_at" : "compute_at";
  // Step 1: the block and the loop (of one function) and the preconditions.
  auto [func, bstmt] = self->Resolve(block_rv);
  auto [lfunc, lstmt] = self->Resolve(loop_rv);
  if (func != lfunc) MINITVM_THROW(ValueError) << primitive << ": block and loop in two functions";
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(bstmt);
  const ForNode* loop = AsLoop(lstmt);
  if (block == index.root() || index.Get(block).realize == nullptr) {
    MINITVM_THROW(ValueError) << primitive << ": the root block cannot be moved";
  }
  const BlockNode* scope = index.ScopeBlock(block);

  // The loop must be in the block's scope and not inside the block.
  bool loop_in_block = index.IsAncestor(block, loop);
  bool same_scope = !loop_in_block && index.ScopeBlock(loop) == scope;
  if (!same_scope) {
    ScheduleError err("LoopPositionError",
                      "loop " + LoopName(loop) + " is " +
                          (loop_in_block ? "inside block " + BlockName(block)
                                         : "in another block scope than " + BlockName(block)));
    err.Subject("block " + BlockName(block))
        .Subject("loop " + LoopName(loop))
        .Check("the loop is not inside the block", !loop_in_block)
        .Check("the loop and the block are in the same block scope", same_scope)
        .At(GetRef<ObjectRef>(loop), "target loop")
        .At(GetRef<ObjectRef>(block), "block to move");
    throw err;
  }

  // The block: complete (or, for compute_at, a reduction), and the only writer of its outputs.
  std::string why;
  bool complete = IsCompleteBlock(index, block, scope, &why);
  bool single_writer = true;
  for (const BufferRegion& w : block->writes) {
    for (const BlockNode* other : BlocksInScope(index, scope)) {
      if (other != block && RegionsHave(other->writes, w->buffer.get())) single_writer = false;
    }
  }
  if (!single_writer) {
    ScheduleError err("NotStagePipelineError",
                      BlockName(block) +
                          " is not a complete block: another block of the scope "
                          "also writes what it writes");
    err.Subject("block " + BlockName(block))
        .Check("each buffer of the scope is written by one block", false)
        .At(GetRef<ObjectRef>(block), "not the only writer of its output");
    throw err;
  }
  bool reduction = IsReductionBlock(block);
  // As TVM (CheckCompleteOrReductionBlock), both directions move a complete or a reduction
  // block: reverse_compute_at of the block that consumes an rfactor result is allowed.
  if (!complete && !reduction) {
    ScheduleError err("NotCompleteOrReductionBlockError",
                      primitive + " needs a complete or reduction block, but in block " +
                          BlockName(block) + " " + why);
    err.Subject("block " + BlockName(block))
        .Check("the block is complete or a reduction", false)
        .At(GetRef<ObjectRef>(block), why);
    throw err;
  }
  // As TVM, no affine-binding check: the regions are relaxed with interval arithmetic, which
  // is conservative for any binding.
  // TVM's compute_at has no compact-dataflow check on the target loop's other blocks (only
  // parallel/vectorize/bind have one, see for_kind.cc).

  // The loop must not enclose the block already, and compute_at does not move an output block
  // (its writes are the function's result), as in TVM.
  if (index.IsAncestor(loop, block)) {
    ScheduleError err("LoopPositionError", primitive + ": loop " + LoopName(loop) +
                                               " is an ancestor of block " + BlockName(block) +
                                               " already");
    err.Subject("loop " + LoopName(loop))
        .Subject("block " + BlockName(block))
        .Check("the loop is not an ancestor of the block", false)
        .At(GetRef<ObjectRef>(loop), "encloses the block");
    throw err;
  }
  if (!reverse) {
    for (const BufferRegion& w : block->writes) {
      for (const auto& [param, buf] : index.func()->buffer_map.items()) {
        if (buf.get() != w->buffer.get()) continue;
        ScheduleError err("OutputBlockError",
                          primitive + " cannot move " + BlockName(block) +
                              ": it is an output block (it writes the function's buffer " +
                              buf->name.str() + ")");
        err.Subject("block " + BlockName(block))
            .Check("the block is not an output block", false)
            .At(GetRef<ObjectRef>(block), "writes " + buf->name.str());
        throw err;
      }
    }
  }

  // The related blocks (consumers for compute_at, producers for reverse) must all be under the
  // loop: they are the ones that decide the region.
  std::vector<const BlockNode*> all_related =
      reverse ? Producers(index, block) : Consumers(index, block);
  std::vector<const BlockNode*> related, outside;
  for (const BlockNode* r : all_related) {
    (index.IsAncestor(loop, r) ? related : outside).push_back(r);
  }
  if (related.empty() || !outside.empty()) {
    std::string role = reverse ? "producer" : "consumer";
    ScheduleError err(
        reverse ? "NotAllProducersUnderLoopError" : "NotAllConsumersUnderLoopError",
        related.empty()
            ? "no " + role + " of block " + BlockName(block) + " is under loop " + LoopName(loop)
            : primitive + " requires all the " + role + "s of block " + BlockName(block) +
                  " to be under the target loop, but the " + role + " " + BlockName(outside[0]) +
                  " is not under loop " + LoopName(loop));
    err.Subject("block " + BlockName(block))
        .Subject("loop " + LoopName(loop))
        .Check("at least one " + role + " is under the loop", !related.empty())
        .Check("every " + role + " is under the loop", outside.empty())
        .At(GetRef<ObjectRef>(loop), "target loop");
    for (const BlockNode* o : outside) err.At(GetRef<ObjectRef>(o), role + " outside the loop");
    throw err;
  }

  // The region: what one instance of the block provides (its writes, or its reads for
  // reverse_compute_at), what the related blocks need of it in one iteration of the loop, and
  // from both the domain each block iterator must cover (as TVM).
  arith::Analyzer analyzer;
  std::vector<const ForNode*> outer = index.LoopsAbove(loop);
  outer.push_back(loop);
  BindLoops(&analyzer, outer);
  // As TVM (AddShapeVarBounds): the variables of the parameters' shapes are non-negative.
  for (const auto& [param, buf] : index.func()->buffer_map.items()) {
    for (const PrimExpr& d : buf->shape) {
      if (auto* v = d.as<VarNode>()) {
        analyzer.Bind(GetRef<Var>(v), Range(IntImm(v->dtype, 0), max_value(v->dtype)), true);
      }
    }
  }
  BufferIntervals provided, required;
  for (const BufferRegion& br : reverse ? block->reads : block->writes) {
    if (std::vector<NDInterval>* list = FindBuffer(&provided, br->buffer.get())) {
      list->push_back(RegionInterval(br->region));
    } else {
      provided.emplace_back(br->buffer.get(), std::vector<NDInterval>{RegionInterval(br->region)});
      required.emplace_back(br->buffer.get(), std::vector<NDInterval>{});
    }
  }
  RelaxRegions(&analyzer, index, loop, related, /*use_writes=*/reverse,
               /*relax_storage_scope=*/!reverse, &required);
  std::vector<VarDomain> doms = BlockVarDomains(&analyzer, block, provided, required);

  // The loops of the moved block: one per iterator whose domain is not a single point (all
  // with preserve_unit_loops), the bound kept as a predicate where it was not merged.
  std::vector<Var> loop_vars;
  std::vector<PrimExpr> loop_extents;
  Array<PrimExpr> bindings;
  PrimExpr predicate = IntImm(DataType::Bool(), 1);
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    const VarDomain& info = doms[k];
    Range cover = iv->dom;
    if (info.dom.HasLower() && info.dom.HasUpper()) {
      arith::Analyzer fresh;
      cover = Range(fresh.Simplify(info.dom.min), fresh.Simplify(info.dom.max + 1 - info.dom.min));
    }
    PrimExpr value = cover->min;
    if (preserve_unit_loops || ConstValue(cover->extent) != 1) {
      int bits = std::max(cover->min.dtype().bits(), cover->extent.dtype().bits());
      Var v("ax" + std::to_string(loop_vars.size()), DataType::Int(bits));
      loop_vars.push_back(v);
      loop_extents.push_back(analyzer.Simplify(cover->extent));
      value = cover->min + v;  // as TVM: `min + ax` is kept unsimplified (only 0 + ax folds)
      analyzer.Bind(v, Range(IntImm(v.dtype(), 0), cover->extent), true);
    }
    bindings.push_back(value);
    if (!info.bound.nothing) {
      if (info.bound.HasLower()) {
        PrimExpr lower = value >= info.bound.min;
        if (!analyzer.CanProve(lower)) predicate = predicate && lower;
      }
      if (info.bound.HasUpper()) {
        PrimExpr upper = value < info.bound.max + 1;
        if (!analyzer.CanProve(upper)) predicate = predicate && upper;
      }
    }
  }
  Stmt nest =
      MakeLoopNest(loop_vars, loop_extents,
                   BlockRealize(bindings, analyzer.Simplify(predicate), GetRef<Block>(block)));

  // Remove the block from where it is, then insert it into the loop's body.
  Stmt body = ReplaceStmts(index.func()->body, {{index.Get(block).realize, Stmt()}});
  PrimFunc removed = WithBody(index.func(), body);
  FuncIndex mid(removed);
  const ForNode* target = mid.LoopOfVar(loop->loop_var.get());
  MINITVM_ICHECK(target != nullptr) << "the target loop vanished when the block was removed";
  std::vector<Stmt> seq = AsSeq(target->body);
  int64_t n = static_cast<int64_t>(seq.size());
  std::vector<const BlockNode*> block_producers = Producers(index, block);
  std::vector<const BlockNode*> block_consumers = Consumers(index, block);
  int64_t first_consumer = n, last_producer = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (ContainsAny(seq[i], block_consumers) && first_consumer == n) first_consumer = i;
    if (ContainsAny(seq[i], block_producers)) last_producer = i;
  }
  // As in TVM: -1 is the last valid position (right before the first consumer), -2 the first
  // (right after the last producer); any other index must be one of the valid positions.
  int64_t first_valid = last_producer + 1, last_valid = first_consumer;
  int64_t pos = position == -1 ? last_valid : position == -2 ? first_valid : position;
  if (pos < first_valid || pos > last_valid) {
    std::string valid = first_valid > last_valid
                            ? std::string("there is none: a consumer of ") + BlockName(block) +
                                  " runs before one of its producers"
                            : "-1 (the last valid position), -2 (the first) or an index in [" +
                                  std::to_string(first_valid) + ", " + std::to_string(last_valid) +
                                  "]";
    ScheduleError err("InsertionPositionError",
                      "index " + std::to_string(position) + " is not a valid position in loop " +
                          LoopName(loop) + " for " + BlockName(block) + ": " + valid);
    err.Check("the block runs after its producers and before its consumers", false)
        .Detail("the valid positions are after all producers and before all consumers of " +
                BlockName(block) + " in the body of loop " + LoopName(loop))
        .At(GetRef<ObjectRef>(loop), "insertion at " + std::to_string(position));
    throw err;
  }
  seq.insert(seq.begin() + pos, nest);
  For new_loop = GetRef<For>(target);
  new_loop.CopyOnWrite()->body = SeqStmt::Flatten(Array<Stmt>(seq));
  PrimFunc result = ReplaceInFunc(removed, {{target, new_loop}});
  self->mutable_state()->Replace(func, result);
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("ComputeAt", "compute_at", {"block", "loop"},
                               {"preserve_unit_loops", "index"}, ComputeAt<false>);
  k.defaults = {{"preserve_unit_loops", Any(false)}, {"index", Any(-1)}};
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("ReverseComputeAt", "reverse_compute_at", {"block", "loop"},
                               {"preserve_unit_loops", "index"}, ComputeAt<true>);
  k.defaults = {{"preserve_unit_loops", Any(false)}, {"index", Any(-1)}};
  return k;
}());

}  // namespace tir
}  // namespace minitvm
