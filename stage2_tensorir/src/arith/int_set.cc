/*!
 * \file int_set.cc
 * \brief Symbolic interval sets (stage 2): the range of values an expression takes when some
 * of its variables range over given sets, with symbolic ends — e.g. `i0 * 4 + i1` over
 * i1 ∈ [0, 3] is [i0 * 4, i0 * 4 + 3]. This is what region inference (compute_at) needs.
 *
 * The evaluation is interval arithmetic on the canonical form: each operator maps its
 * operands' intervals to an interval (multiplying by a negative constant swaps the ends,
 * floordiv by a positive constant is monotone, ...). When no rule applies the constant
 * bounds are used, and when even those are unknown the end is left unbounded.
 */
#include <unordered_set>

#include "analyzer_impl.h"
#include "minitvm/ir/structural.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace arith {

using namespace tir;  // NOLINT(build/namespaces)

IntSet IntSet::FromRange(const Range& r) {
  if (auto e = AsConstInt(r->extent); e && *e == 1) return SinglePoint(r->min);
  Analyzer analyzer;
  return Interval(r->min, analyzer.Simplify(r->min + r->extent - 1));
}

Range IntSet::CoverRange(const Range& fallback) const {
  if (!HasLowerBound() || !HasUpperBound()) return fallback;
  if (IsSinglePoint()) return Range(min_, IntImm(min_.dtype(), 1));
  Analyzer analyzer;
  return Range(min_, analyzer.Simplify(max_ - min_ + 1));
}

namespace {

using DomMap = std::unordered_map<const VarNode*, IntSet>;

/*! \brief True when e mentions a variable of dom. */
bool UsesDomVar(const PrimExpr& e, const DomMap& dom) {
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (auto* v = n.as<VarNode>()) found = found || dom.count(v) > 0;
  });
  return found;
}

class IntSetEvaluator : public ExprFunctor<IntSet(const PrimExpr&)> {
 public:
  IntSetEvaluator(AnalyzerContext* ctx, const DomMap& dom) : ctx_(ctx), dom_(dom) {}

  IntSet VisitExpr(const PrimExpr& e) override {
    DataType t = e.dtype();
    if (!t.is_scalar() || !(t.is_int() || t.is_uint())) return IntSet::Everything();
    if (!UsesDomVar(e, dom_)) return IntSet::SinglePoint(e);
    try {
      return ExprFunctor::VisitExpr(e);
    } catch (const Error&) {
      // An end that cannot be built (a constant overflowing the dtype) degrades to the
      // constant bounds: a set may be loose, never wrong.
      return Fallback(e);
    }
  }

  IntSet VisitExpr_(const VarNode* op) override {
    auto it = dom_.find(op);
    if (it != dom_.end()) return it->second;
    return IntSet::SinglePoint(GetRef<PrimExpr>(op));
  }
  IntSet VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }
  IntSet VisitExpr_(const AddNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(Combine(a.min(), b.min(), [](PrimExpr x, PrimExpr y) { return x + y; }),
                Combine(a.max(), b.max(), [](PrimExpr x, PrimExpr y) { return x + y; }));
  }
  IntSet VisitExpr_(const SubNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(Combine(a.min(), b.max(), [](PrimExpr x, PrimExpr y) { return x - y; }),
                Combine(a.max(), b.min(), [](PrimExpr x, PrimExpr y) { return x - y; }));
  }
  IntSet VisitExpr_(const MulNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsPoint(a) && IsPoint(b)) return IntSet::SinglePoint(a.min() * b.min());
    if (IsPoint(a)) return Scale(b, a.min());
    if (IsPoint(b)) return Scale(a, b.min());
    // Two intervals: exact when both are non-negative.
    if (a.HasLowerBound() && b.HasLowerBound() && Bound(a.min()).min_value >= 0 &&
        Bound(b.min()).min_value >= 0) {
      PrimExpr hi = a.HasUpperBound() && b.HasUpperBound() ? a.max() * b.max() : PrimExpr();
      return Make(a.min() * b.min(), hi);
    }
    return Fallback(GetRef<PrimExpr>(op));
  }
  IntSet VisitExpr_(const FloorDivNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsPoint(b)) {
      PrimExpr d = b.min();
      ConstIntBound db = Bound(d);
      auto div = [&](PrimExpr x) { return x.defined() ? floordiv(x, d) : PrimExpr(); };
      // As TVM, a divisor that may be 0 is taken as non-zero.
      if (db.min_value >= 0 && db.max_value > 0) return Make(div(a.min()), div(a.max()));
      if (db.max_value < 0) return Make(div(a.max()), div(a.min()));
    }
    return Fallback(GetRef<PrimExpr>(op));
  }
  IntSet VisitExpr_(const FloorModNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsPoint(b)) {
      PrimExpr d = b.min();
      if (Bound(d).min_value >= 0 && Bound(d).max_value > 0) {
        if (IsPoint(a)) return IntSet::SinglePoint(floormod(a.min(), d));
        // A non-negative dividend smaller than the divisor is its own remainder.
        ConstIntBound ab = Bound(op->a);
        if (auto c = AsConstInt(d); c && ab.min_value >= 0 && ab.max_value < *c) return a;
        if (a.HasLowerBound() && a.HasUpperBound()) {
          // Within one period the remainder is monotone.
          PrimExpr same = SimplifyExpr(ctx_, floordiv(a.max(), d) - floordiv(a.min(), d));
          if (auto v = AsConstInt(same); v && *v == 0) {
            return Make(floormod(a.min(), d), floormod(a.max(), d));
          }
        }
        return Make(IntImm(d.dtype(), 0), d - 1);
      }
    }
    return Fallback(GetRef<PrimExpr>(op));
  }
  IntSet VisitExpr_(const DivNode* op) override {
    // Truncating division agrees with floordiv on a non-negative dividend.
    if (Bound(op->a).min_value >= 0 && Bound(op->b).min_value > 0) {
      return VisitExpr(floordiv(op->a, op->b));
    }
    return Fallback(GetRef<PrimExpr>(op));
  }
  IntSet VisitExpr_(const ModNode* op) override {
    if (Bound(op->a).min_value >= 0 && Bound(op->b).min_value > 0) {
      return VisitExpr(floormod(op->a, op->b));
    }
    return Fallback(GetRef<PrimExpr>(op));
  }
  IntSet VisitExpr_(const MinNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    // The lower end is unbounded if either is; the upper end is bounded if either is.
    PrimExpr lo = a.HasLowerBound() && b.HasLowerBound() ? min(a.min(), b.min()) : PrimExpr();
    PrimExpr hi = Combine(
        a.max(), b.max(), [](PrimExpr x, PrimExpr y) { return min(x, y); },
        /*either=*/true);
    return Make(lo, hi);
  }
  IntSet VisitExpr_(const MaxNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    PrimExpr lo = Combine(
        a.min(), b.min(), [](PrimExpr x, PrimExpr y) { return max(x, y); },
        /*either=*/true);
    PrimExpr hi = a.HasUpperBound() && b.HasUpperBound() ? max(a.max(), b.max()) : PrimExpr();
    return Make(lo, hi);
  }
  IntSet VisitExpr_(const SelectNode* op) override {
    return Union(VisitExpr(op->true_value), VisitExpr(op->false_value));
  }
  IntSet VisitExpr_(const CallNode* op) override {
    if (op->op == "tir.if_then_else" && op->args.size() == 3) {
      return Union(VisitExpr(op->args[1]), VisitExpr(op->args[2]));
    }
    return Fallback(GetRef<PrimExpr>(op));
  }
  IntSet VisitExpr_(const LetNode* op) override {
    PrimExpr body = Substitute(
        op->body, [&](const Var& v) { return v.same_as(op->var) ? op->value : PrimExpr(); });
    return VisitExpr(body);
  }
  IntSet VisitExpr_(const CastNode* op) override {
    DataType from = op->value.dtype(), to = op->dtype;
    if ((from.is_int() || from.is_uint()) && (to.is_int() || to.is_uint()) &&
        to.bits() >= from.bits() && (to.is_int() || from.is_uint())) {
      // Widening keeps every value: cast the ends.
      IntSet a = VisitExpr(op->value);
      auto c = [&](const PrimExpr& x) { return x.defined() ? cast(to, x) : PrimExpr(); };
      return Make(c(a.min()), c(a.max()));
    }
    return Fallback(GetRef<PrimExpr>(op));
  }
  IntSet VisitExprDefault_(const Object* op) override {
    return Fallback(GetRef<PrimExpr>(static_cast<const PrimExprNode*>(op)));
  }

 private:
  static bool IsPoint(const IntSet& s) {
    return s.HasLowerBound() && s.HasUpperBound() &&
           (s.min().same_as(s.max()) || ExprDeepEqual(s.min(), s.max()));
  }
  static IntSet Make(const PrimExpr& lo, const PrimExpr& hi) { return IntSet::Interval(lo, hi); }

  /*! \brief f(x, y) when both are bounded; with `either`, the bounded one when only one is. */
  template <typename F>
  static PrimExpr Combine(const PrimExpr& x, const PrimExpr& y, F f, bool either = false) {
    if (x.defined() && y.defined()) return f(x, y);
    if (either) return x.defined() ? x : y;
    return PrimExpr();
  }

  IntSet Union(const IntSet& a, const IntSet& b) {
    PrimExpr lo = a.HasLowerBound() && b.HasLowerBound() ? min(a.min(), b.min()) : PrimExpr();
    PrimExpr hi = a.HasUpperBound() && b.HasUpperBound() ? max(a.max(), b.max()) : PrimExpr();
    return Make(lo, hi);
  }

  /*! \brief s * k for a single value k: the ends swap when k is negative. */
  IntSet Scale(const IntSet& s, const PrimExpr& k) {
    ConstIntBound kb = Bound(k);
    auto mul = [&](const PrimExpr& x) { return x.defined() ? x * k : PrimExpr(); };
    if (kb.min_value >= 0) return Make(mul(s.min()), mul(s.max()));
    if (kb.max_value <= 0) return Make(mul(s.max()), mul(s.min()));
    return IntSet::Everything();
  }

  /*! \brief Constant bounds when no interval rule applies (unknown ends stay unbounded). */
  IntSet Fallback(const PrimExpr& e) {
    ConstIntBound b = Bound(e);
    PrimExpr lo, hi;
    if (b.min_value != ConstIntBound::kNegInf) lo = IntImm(e.dtype(), b.min_value);
    if (b.max_value != ConstIntBound::kPosInf) hi = IntImm(e.dtype(), b.max_value);
    ConstIntBound d = DTypeBound(e.dtype());
    // The dtype's own limits say nothing useful: report them as unbounded.
    if (lo.defined() && b.min_value == d.min_value) lo = PrimExpr();
    if (hi.defined() && b.max_value == d.max_value) hi = PrimExpr();
    return Make(lo, hi);
  }

  ConstIntBound Bound(const PrimExpr& e) {
    // Variables of the domain are bounded by their sets where those are constant.
    std::vector<std::pair<const VarNode*, std::optional<ConstIntBound>>> saved;
    for (const auto& kv : dom_) {
      ConstIntBound vb;
      if (kv.second.HasLowerBound()) vb.min_value = BoundOf(ctx_, kv.second.min()).min_value;
      if (kv.second.HasUpperBound()) vb.max_value = BoundOf(ctx_, kv.second.max()).max_value;
      auto it = ctx_->scoped_bounds.find(kv.first);
      saved.emplace_back(kv.first, it == ctx_->scoped_bounds.end()
                                       ? std::nullopt
                                       : std::optional<ConstIntBound>(it->second));
      ctx_->scoped_bounds[kv.first] = vb;
    }
    ConstIntBound result = BoundOf(ctx_, e);
    for (const auto& s : saved) {
      if (s.second) {
        ctx_->scoped_bounds[s.first] = *s.second;
      } else {
        ctx_->scoped_bounds.erase(s.first);
      }
    }
    return result;
  }

  AnalyzerContext* ctx_;
  const DomMap& dom_;
};

}  // namespace

IntSet EvalIntSet(AnalyzerContext* ctx, const PrimExpr& e, const DomMap& dom) {
  IntSet s = IntSetEvaluator(ctx, dom).VisitExpr(e);
  PrimExpr lo = s.HasLowerBound() ? SimplifyExpr(ctx, s.min()) : PrimExpr();
  PrimExpr hi = s.HasUpperBound() ? SimplifyExpr(ctx, s.max()) : PrimExpr();
  if (lo.defined() && hi.defined() && ExprDeepEqual(lo, hi)) return IntSet::SinglePoint(lo);
  return IntSet::Interval(lo, hi);
}

std::unordered_map<const VarNode*, IntSet> BoundRangesAsDom(AnalyzerContext* ctx,
                                                            bool skip_range_vars) {
  // Variables that other ranges are expressed in (the n of i ∈ [0, n)) stay symbolic when
  // asked: replacing both i and n at once would lose that i < n.
  std::unordered_set<const VarNode*> in_ranges;
  if (skip_range_vars) {
    for (const auto& kv : ctx->vars) {
      if (!kv.second.range.defined()) continue;
      for (const PrimExpr& e : {kv.second.range->min, kv.second.range->extent}) {
        PostOrderVisit(e, [&](const ObjectRef& n) {
          if (auto* v = n.as<VarNode>()) in_ranges.insert(v);
        });
      }
    }
  }
  DomMap dom;
  for (const auto& kv : ctx->vars) {
    const VarInfo& info = kv.second;
    if (!info.range.defined() || info.value.defined()) continue;
    if (in_ranges.count(kv.first)) continue;
    try {
      PrimExpr hi = SimplifyExpr(ctx, info.range->min + info.range->extent - 1);
      dom[kv.first] = IntSet::Interval(info.range->min, hi);
    } catch (const Error&) {
      dom[kv.first] = IntSet::Interval(info.range->min, PrimExpr());
    }
  }
  return dom;
}

}  // namespace arith
}  // namespace minitvm
