/*!
 * \file canonical_simplify.cc
 * \brief The canonical simplifier of index expressions (stage 2).
 *
 * Signed integer scalars are brought to an affine *sum*: `c_1 * t_1 + ... + c_n * t_n + k`,
 * where each term `t_i` is an atom (a variable, a floordiv/floormod, a product of non-constant
 * factors, a load, a min/max, ...) and every `c_i` is a non-zero constant. Adding, subtracting
 * and multiplying by constants work on sums, so `x - x`, `i * 1` and `(i * 2 + j) * 2`
 * normalise on their own. Division and modulo by a positive constant split a sum into the terms
 * the divisor divides exactly and a remainder; the remainder's constant bounds then often
 * settle the result — the patterns that split and fuse create:
 *
 *   (i * 4 + j) // 4 → i        (i * 4 + j) % 4 → j          when 0 <= j < 4
 *   (i * 8 + j * 2 + k) // 2 → i * 4 + j                    when 0 <= k < 2
 *   x // 4 // 2 → x // 8        (x % 8) // 4 → x // 4 % 2    x % 8 % 4 → x % 4
 *   (x // 4) * 4 + x % 4 → x
 *
 * Printing order (stable and natural): terms appear in the order in which they first appear in
 * the input, terms with positive coefficients first, then those with negative ones (as
 * subtractions), the constant last: `i_0 * 4 + i_1 * 2 + i_2`, `n - i - 1`.
 *
 * Floats and unsigned integers only get constant folding: the simplifier never rewrites a
 * float expression into a different computation.
 */
#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "analyzer_impl.h"
#include "minitvm/ir/structural.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace arith {

using namespace tir;  // NOLINT(build/namespaces)

namespace {

/*! \brief Thrown when a coefficient or constant would overflow: the node is kept as written. */
struct GiveUp {};

int64_t CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw GiveUp();
  return r;
}
int64_t CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw GiveUp();
  return r;
}

/*! \brief True for the types the canonical form applies to: signed integer scalars. */
bool IsIndexType(DataType t) { return t.is_int() && t.is_scalar(); }

/*! \brief An IntImm of dtype t, or GiveUp when v does not fit. */
PrimExpr MakeInt(DataType t, int64_t v) {
  ConstIntBound d = DTypeBound(t);
  if (v < d.min_value || v > d.max_value) throw GiveUp();
  return IntImm(t, v);
}

/*! \brief An affine sum: sum(coeff_i * term_i) + base. Terms keep first-appearance order. */
struct Sum {
  DataType dtype;
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t base = 0;

  explicit Sum(DataType t) : dtype(t) {}
  bool IsConst() const { return terms.empty(); }
  void AddTerm(const PrimExpr& atom, int64_t coeff) {
    if (coeff == 0) return;
    for (auto it = terms.begin(); it != terms.end(); ++it) {
      if (ExprDeepEqual(it->first, atom)) {
        it->second = CheckedAdd(it->second, coeff);
        if (it->second == 0) terms.erase(it);
        return;
      }
    }
    terms.emplace_back(atom, coeff);
  }
  /*! \brief this += scale * other. */
  void AddSum(const Sum& other, int64_t scale) {
    for (const auto& t : other.terms) AddTerm(t.first, CheckedMul(t.second, scale));
    base = CheckedAdd(base, CheckedMul(other.base, scale));
  }
  void Scale(int64_t c) {
    if (c == 0) {
      terms.clear();
      base = 0;
      return;
    }
    for (auto& t : terms) t.second = CheckedMul(t.second, c);
    base = CheckedMul(base, c);
  }
};

/*! \brief Read a (simplified) index expression as a sum. */
Sum ToSum(const PrimExpr& e) {
  Sum s(e.dtype());
  if (auto* imm = e.as<IntImmNode>()) {
    s.base = imm->value;
  } else if (auto* add = e.as<AddNode>()) {
    s = ToSum(add->a);
    s.AddSum(ToSum(add->b), 1);
  } else if (auto* sub = e.as<SubNode>()) {
    s = ToSum(sub->a);
    s.AddSum(ToSum(sub->b), -1);
  } else if (auto* mul = e.as<MulNode>()) {
    if (auto c = AsConstInt(mul->b)) {
      s = ToSum(mul->a);
      s.Scale(*c);
    } else if (auto c = AsConstInt(mul->a)) {
      s = ToSum(mul->b);
      s.Scale(*c);
    } else {
      s.AddTerm(e, 1);
    }
  } else {
    s.AddTerm(e, 1);
  }
  return s;
}

bool IsFloorDivBy(const PrimExpr& e, PrimExpr* x, int64_t* c) {
  if (auto* d = e.as<FloorDivNode>()) {
    if (auto v = AsConstInt(d->b); v && *v > 0) {
      *x = d->a;
      *c = *v;
      return true;
    }
  }
  return false;
}
bool IsFloorModBy(const PrimExpr& e, PrimExpr* x, int64_t* c) {
  if (auto* d = e.as<FloorModNode>()) {
    if (auto v = AsConstInt(d->b); v && *v > 0) {
      *x = d->a;
      *c = *v;
      return true;
    }
  }
  return false;
}

/*!
 * \brief Fold `(x // c) * (c * k) + (x % c) * k` back into `x * k` (a fused index taken apart
 * and put together again). Repeats until no pair is left.
 */
void MergeDivMod(Sum* s) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < s->terms.size() && !changed; ++i) {
      PrimExpr x;
      int64_t c;
      if (!IsFloorDivBy(s->terms[i].first, &x, &c)) continue;
      for (size_t j = 0; j < s->terms.size(); ++j) {
        PrimExpr y;
        int64_t d;
        if (!IsFloorModBy(s->terms[j].first, &y, &d) || d != c || !ExprDeepEqual(x, y)) continue;
        int64_t k = s->terms[j].second;
        if (s->terms[i].second != CheckedMul(k, c)) continue;
        // Rebuild in order: x's terms take the place of the first of the pair.
        size_t first = std::min(i, j), second = std::max(i, j);
        Sum out(s->dtype);
        out.base = s->base;
        for (size_t t = 0; t < s->terms.size(); ++t) {
          if (t == first) {
            Sum xs = ToSum(x);
            out.AddSum(xs, k);
          } else if (t != second) {
            out.AddTerm(s->terms[t].first, s->terms[t].second);
          }
        }
        *s = std::move(out);
        changed = true;
        break;
      }
    }
  }
}

/*! \brief `atom * |coeff|` (or the atom alone when |coeff| is 1). */
PrimExpr ScaledTerm(const PrimExpr& atom, int64_t coeff, DataType t) {
  if (coeff == 1) return atom;
  return Mul(atom, MakeInt(t, coeff));
}

/*! \brief Build the expression of a sum in the documented printing order. */
PrimExpr FromSum(Sum s) {
  MergeDivMod(&s);
  DataType t = s.dtype;
  PrimExpr out;
  for (const auto& term : s.terms) {
    if (term.second <= 0) continue;
    PrimExpr e = ScaledTerm(term.first, term.second, t);
    out = out.defined() ? PrimExpr(Add(out, e)) : e;
  }
  int64_t base = s.base;
  for (const auto& term : s.terms) {
    if (term.second >= 0) continue;
    if (!out.defined()) {
      if (base > 0) {
        out = MakeInt(t, base);
        base = 0;
      } else {
        out = Mul(term.first, MakeInt(t, term.second));
        continue;
      }
    }
    out = Sub(out, ScaledTerm(term.first, CheckedMul(term.second, -1), t));
  }
  if (!out.defined()) return MakeInt(t, base);
  if (base > 0) out = Add(out, MakeInt(t, base));
  if (base < 0) out = Sub(out, MakeInt(t, CheckedMul(base, -1)));
  return out;
}

/*! \brief The single atom of a sum `1 * atom + 0`, or undefined. */
PrimExpr SingleAtom(const Sum& s) {
  if (s.base == 0 && s.terms.size() == 1 && s.terms[0].second == 1) return s.terms[0].first;
  return PrimExpr();
}

bool IsFinite(const ConstIntBound& b) {
  return b.min_value != ConstIntBound::kNegInf && b.max_value != ConstIntBound::kPosInf;
}

class Simplifier : public ExprFunctor<PrimExpr(const PrimExpr&)> {
 public:
  explicit Simplifier(AnalyzerContext* ctx) : ctx_(ctx) {}

  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (!e.defined()) return e;
    return ExprFunctor::VisitExpr(e);
  }

  // ---- leaves ----------------------------------------------------------------------------
  PrimExpr VisitExpr_(const IntImmNode* op) override { return GetRef<PrimExpr>(op); }
  PrimExpr VisitExpr_(const FloatImmNode* op) override { return GetRef<PrimExpr>(op); }
  PrimExpr VisitExpr_(const StringImmNode* op) override { return GetRef<PrimExpr>(op); }
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (ctx_->scoped_bounds.count(op)) return GetRef<PrimExpr>(op);
    auto it = ctx_->vars.find(op);
    if (it != ctx_->vars.end() && it->second.value.defined()) return it->second.value;
    return GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }

  // ---- affine arithmetic -----------------------------------------------------------------
  PrimExpr VisitExpr_(const AddNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      return Canonical(
          [&] {
            Sum s = ToSum(a);
            s.AddSum(ToSum(b), 1);
            return s;
          },
          op, a, b);
    }
    return FoldFloat(op, a, b, [](double x, double y) { return x + y; });
  }
  PrimExpr VisitExpr_(const SubNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      return Canonical(
          [&] {
            Sum s = ToSum(a);
            s.AddSum(ToSum(b), -1);
            return s;
          },
          op, a, b);
    }
    return FoldFloat(op, a, b, [](double x, double y) { return x - y; });
  }
  PrimExpr VisitExpr_(const MulNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      return Canonical(
          [&] {
            Sum sa = ToSum(a), sb = ToSum(b);
            if (sa.IsConst()) {
              sb.Scale(sa.base);
              return sb;
            }
            if (sb.IsConst()) {
              sa.Scale(sb.base);
              return sa;
            }
            // A product of two non-constant factors is one atom; pull out constant coefficients
            // of single-term factors: (x * 2) * y → (x * y) * 2.
            int64_t coeff = 1;
            PrimExpr fa = a, fb = b;
            if (sa.base == 0 && sa.terms.size() == 1) {
              coeff = sa.terms[0].second;
              fa = sa.terms[0].first;
            }
            if (sb.base == 0 && sb.terms.size() == 1) {
              coeff = CheckedMul(coeff, sb.terms[0].second);
              fb = sb.terms[0].first;
            }
            Sum s(op->dtype);
            s.AddTerm(Mul(fa, fb), coeff);
            return s;
          },
          op, a, b);
    }
    return FoldFloat(op, a, b, [](double x, double y) { return x * y; });
  }

  // ---- division --------------------------------------------------------------------------
  PrimExpr VisitExpr_(const FloorDivNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      auto c = AsConstInt(b);
      if (c && *c > 0) return Canonical([&] { return DivByConst(ToSum(a), *c); }, op, a, b);
      if (auto x = AsConstInt(a); x && c && *c != 0)
        return MakeIntOr(op, FloorDivInt(*x, *c), a, b);
      if (!c && IsZero(a)) return a;
      if (!c) {
        if (auto r = DivBySymbol(a, b, /*want_mod=*/false)) return *r;
      }
    }
    return Rebuild(op, a, b);
  }
  PrimExpr VisitExpr_(const FloorModNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      auto c = AsConstInt(b);
      if (c && *c > 0) return Canonical([&] { return ModByConst(ToSum(a), *c); }, op, a, b);
      if (auto x = AsConstInt(a); x && c && *c != 0)
        return MakeIntOr(op, FloorModInt(*x, *c), a, b);
      if (!c && IsZero(a)) return a;
      if (!c) {
        if (auto r = DivBySymbol(a, b, /*want_mod=*/true)) return *r;
      }
    }
    return Rebuild(op, a, b);
  }
  PrimExpr VisitExpr_(const DivNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      auto c = AsConstInt(b);
      // On non-negative operands truncation and floor agree.
      if (c && *c > 0 && BoundOf(ctx_, a).min_value >= 0) {
        return Canonical([&] { return DivByConst(ToSum(a), *c); }, op, a, b);
      }
      if (auto x = AsConstInt(a); x && c && *c != 0) return MakeIntOr(op, *x / *c, a, b);
      if (c && *c == 1) return a;
    }
    return FoldFloat(
        op, a, b, [](double x, double y) { return x / y; }, /*nonzero_b=*/true);
  }
  PrimExpr VisitExpr_(const ModNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      auto c = AsConstInt(b);
      if (c && *c > 0 && BoundOf(ctx_, a).min_value >= 0) {
        return Canonical([&] { return ModByConst(ToSum(a), *c); }, op, a, b);
      }
      if (auto x = AsConstInt(a); x && c && *c != 0) return MakeIntOr(op, *x % *c, a, b);
      if (c && *c == 1) return MakeZero(op->dtype);
    }
    return Rebuild(op, a, b);
  }

  // ---- min / max -------------------------------------------------------------------------
  PrimExpr VisitExpr_(const MinNode* op) override { return MinMax(op, a_(op), b_(op), true); }
  PrimExpr VisitExpr_(const MaxNode* op) override { return MinMax(op, a_(op), b_(op), false); }

  // ---- comparisons and logic -------------------------------------------------------------
  PrimExpr VisitExpr_(const EQNode* op) override { return Compare(op, CmpKind::kEQ); }
  PrimExpr VisitExpr_(const NENode* op) override { return Compare(op, CmpKind::kNE); }
  PrimExpr VisitExpr_(const LTNode* op) override { return Compare(op, CmpKind::kLT); }
  PrimExpr VisitExpr_(const LENode* op) override { return Compare(op, CmpKind::kLE); }
  PrimExpr VisitExpr_(const GTNode* op) override { return Compare(op, CmpKind::kGT); }
  PrimExpr VisitExpr_(const GENode* op) override { return Compare(op, CmpKind::kGE); }
  PrimExpr VisitExpr_(const AndNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!op->dtype.is_scalar()) return Rebuild(op, a, b);
    if (auto x = AsConstInt(a)) return *x ? b : a;
    if (auto y = AsConstInt(b)) return *y ? a : b;
    if (ExprDeepEqual(a, b)) return a;
    return Rebuild(op, a, b);
  }
  PrimExpr VisitExpr_(const OrNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!op->dtype.is_scalar()) return Rebuild(op, a, b);
    if (auto x = AsConstInt(a)) return *x ? a : b;
    if (auto y = AsConstInt(b)) return *y ? b : a;
    if (ExprDeepEqual(a, b)) return a;
    return Rebuild(op, a, b);
  }
  PrimExpr VisitExpr_(const NotNode* op) override {
    PrimExpr a = VisitExpr(op->a);
    if (auto x = AsConstInt(a)) return IntImm(op->dtype, !*x);
    if (auto* n = a.as<NotNode>()) return n->a;
    // As TVM: not(x < y) → y <= x, not(x <= y) → y < x, not(x == y) → x != y, ...
    if (auto* c = a.as<LTNode>()) return VisitExpr(LE(c->b, c->a));
    if (auto* c = a.as<LENode>()) return VisitExpr(LT(c->b, c->a));
    if (auto* c = a.as<GTNode>()) return VisitExpr(LE(c->a, c->b));
    if (auto* c = a.as<GENode>()) return VisitExpr(LT(c->a, c->b));
    if (auto* c = a.as<EQNode>()) return NE(c->a, c->b);
    if (auto* c = a.as<NENode>()) return EQ(c->a, c->b);
    if (a.same_as(op->a)) return GetRef<PrimExpr>(op);
    return Not(a);
  }
  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition);
    PrimExpr t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (auto x = AsConstInt(c); x && c.dtype().is_scalar()) return *x ? t : f;
    if (ExprDeepEqual(t, f)) return t;
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
      return GetRef<PrimExpr>(op);
    }
    return Select(c, t, f);
  }

  // ---- the rest: simplify the operands ---------------------------------------------------
  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    DataType t = op->dtype;
    if (t.is_scalar()) {
      // Fold int→int (when the value fits), int→float and float→float; float→int is left
      // to the target's rounding.
      if (auto i = AsConstInt(v)) {
        ConstIntBound d = DTypeBound(t);
        if ((t.is_int() || t.is_uint()) && *i >= d.min_value && *i <= d.max_value) {
          return IntImm(t, *i);
        }
        if (t.is_float()) return FloatImm(t, static_cast<double>(*i));
      }
      if (auto* f = v.as<FloatImmNode>(); f && t.is_float()) return FloatImm(t, f->value);
    }
    if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
    return Cast(op->dtype, v);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    Array<PrimExpr> indices = VisitArray(op->indices);
    if (indices.same_as(op->indices)) return GetRef<PrimExpr>(op);
    return BufferLoad(op->buffer, indices);
  }
  PrimExpr VisitExpr_(const RampNode* op) override {
    PrimExpr base = VisitExpr(op->base), stride = VisitExpr(op->stride);
    if (base.same_as(op->base) && stride.same_as(op->stride)) return GetRef<PrimExpr>(op);
    return Ramp(base, stride, op->lanes);
  }
  PrimExpr VisitExpr_(const BroadcastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
    return Broadcast(v, op->lanes);
  }
  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    // A constant or a variable is cheaper substituted than bound.
    if (value.as<IntImmNode>() || value.as<FloatImmNode>() || value.as<VarNode>()) {
      return VisitExpr(Substitute(
          op->body, [&](const Var& v) { return v.same_as(op->var) ? value : PrimExpr(); }));
    }
    auto& scoped = ctx_->scoped_bounds;
    bool had = scoped.count(op->var.get()) > 0;
    ConstIntBound saved = had ? scoped[op->var.get()] : ConstIntBound();
    scoped[op->var.get()] = BoundOf(ctx_, value);
    PrimExpr body;
    try {
      body = VisitExpr(op->body);
    } catch (...) {
      Restore(op->var.get(), had, saved);
      throw;
    }
    Restore(op->var.get(), had, saved);
    if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<PrimExpr>(op);
    return Let(op->var, value, body);
  }
  PrimExpr VisitExpr_(const CallNode* op) override {
    Array<PrimExpr> args = VisitArray(op->args);
    if (op->op == "tir.if_then_else" && args.size() == 3) {
      if (auto c = AsConstInt(args[0])) return *c ? args[1] : args[2];
    }
    if (args.same_as(op->args)) return GetRef<PrimExpr>(op);
    return Call(op->dtype, op->op, args);
  }

 private:
  enum class CmpKind { kEQ, kNE, kLT, kLE, kGT, kGE };

  static PrimExpr a_(const BinaryOpNode* op) { return op->a; }
  static PrimExpr b_(const BinaryOpNode* op) { return op->b; }
  static bool IsZero(const PrimExpr& e) {
    auto v = AsConstInt(e);
    return v && *v == 0;
  }
  static PrimExpr MakeZero(DataType t) { return IntImm(t, 0); }

  void Restore(const VarNode* v, bool had, const ConstIntBound& saved) {
    if (had) {
      ctx_->scoped_bounds[v] = saved;
    } else {
      ctx_->scoped_bounds.erase(v);
    }
  }

  Array<PrimExpr> VisitArray(const Array<PrimExpr>& arr) {
    Array<PrimExpr> out = arr;
    for (size_t i = 0; i < arr.size(); ++i) {
      PrimExpr old = arr[i];
      PrimExpr now = VisitExpr(old);
      if (!now.same_as(old)) out.Set(i, now);
    }
    return out;
  }

  /*! \brief The node with new operands (the same node when they did not change). */
  template <typename TNode>
  PrimExpr Rebuild(const TNode* op, const PrimExpr& a, const PrimExpr& b) {
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);
    auto n = make_object<TNode>(*op);
    n->a = a;
    n->b = b;
    return PrimExpr(ObjectPtr<Object>(std::move(n)));
  }

  static PrimExpr Finish(Sum s) { return FromSum(std::move(s)); }
  static PrimExpr Finish(PrimExpr e) { return e; }

  /*! \brief Run a sum computation and build its expression; keep the node on overflow. */
  template <typename F, typename TNode>
  PrimExpr Canonical(F make_sum, const TNode* op, const PrimExpr& a, const PrimExpr& b) {
    try {
      return Finish(make_sum());
    } catch (const GiveUp&) {
      return Rebuild(op, a, b);
    }
  }

  template <typename TNode>
  PrimExpr MakeIntOr(const TNode* op, int64_t v, const PrimExpr& a, const PrimExpr& b) {
    try {
      return MakeInt(op->dtype, v);
    } catch (const GiveUp&) {
      return Rebuild(op, a, b);
    }
  }

  /*! \brief Fold two float constants; anything else keeps its shape (no float algebra). */
  template <typename TNode, typename F>
  PrimExpr FoldFloat(const TNode* op, const PrimExpr& a, const PrimExpr& b, F f,
                     bool nonzero_b = false) {
    auto* x = a.as<FloatImmNode>();
    auto* y = b.as<FloatImmNode>();
    if (x && y && op->dtype.is_scalar() && (!nonzero_b || y->value != 0)) {
      return FloatImm(op->dtype, f(x->value, y->value));
    }
    auto i = AsConstInt(a), j = AsConstInt(b);
    if (i && j && op->dtype.is_scalar() && !op->dtype.is_float()) {
      // Unsigned or bool integers: fold only when the result is representable.
      int64_t r;
      bool ok = true;
      if (std::is_same_v<TNode, AddNode>) {
        ok = !__builtin_add_overflow(*i, *j, &r);
      } else if (std::is_same_v<TNode, SubNode>) {
        ok = !__builtin_sub_overflow(*i, *j, &r);
      } else if (std::is_same_v<TNode, MulNode>) {
        ok = !__builtin_mul_overflow(*i, *j, &r);
      } else {
        ok = false;
      }
      ConstIntBound d = DTypeBound(op->dtype);
      if (ok && r >= d.min_value && r <= d.max_value) return IntImm(op->dtype, r);
    }
    return Rebuild(op, a, b);
  }

  /*! \brief floordiv(s, c) for c > 0 (see the file comment). */
  PrimExpr DivByConst(const Sum& s, int64_t c) {
    DataType t = s.dtype;
    if (c == 1) return FromSum(s);
    Sum q(t), r(t);
    for (const auto& term : s.terms) {
      if (term.second % c == 0) {
        q.AddTerm(term.first, term.second / c);
      } else {
        r.AddTerm(term.first, term.second);
      }
    }
    if (s.base % c == 0) {
      q.base = s.base / c;
    } else {
      r.base = s.base;
    }
    if (r.IsConst()) {
      q.base = CheckedAdd(q.base, FloorDivInt(r.base, c));
      return FromSum(q);
    }
    PrimExpr rexpr = FromSum(r);
    ConstIntBound rb = BoundOf(ctx_, rexpr);
    if (IsFinite(rb) && FloorDivInt(rb.min_value, c) == FloorDivInt(rb.max_value, c)) {
      q.base = CheckedAdd(q.base, FloorDivInt(rb.min_value, c));
      return FromSum(q);
    }
    // As TVM: the coefficients' remainders modulo c may settle the quotient on their own,
    // (x * 360 + 359) // 16 → x * 22 + 22 when x is in [0, 2).
    {
      Sum whole(t), residue(t);
      for (const auto& term : r.terms) {
        whole.AddTerm(term.first, FloorDivInt(term.second, c));
        residue.AddTerm(term.first, FloorModInt(term.second, c));
      }
      whole.base = FloorDivInt(r.base, c);
      residue.base = FloorModInt(r.base, c);
      ConstIntBound b = BoundOf(ctx_, FromSum(residue));
      if (!whole.IsConst() && IsFinite(b) &&
          FloorDivInt(b.min_value, c) == FloorDivInt(b.max_value, c)) {
        q.AddSum(whole, 1);
        q.base = CheckedAdd(q.base, FloorDivInt(b.min_value, c));
        return FromSum(q);
      }
    }
    // As TVM: (x * k + y) // c → x // (c / k) + q when k divides c and y lies in
    // [q * c, q * c + k) — e.g. (i * 8 + 7) // 16 → i // 2.
    for (const auto& term : r.terms) {
      int64_t k = term.second;
      if (k <= 1 || c % k != 0) continue;
      Sum rest = r;
      rest.AddTerm(term.first, -k);
      ConstIntBound yb = BoundOf(ctx_, FromSum(rest));
      if (!IsFinite(yb)) continue;
      int64_t qy = FloorDivInt(yb.min_value, c);
      if (FloorDivInt(yb.max_value, c) != qy || yb.max_value - qy * c >= k) continue;
      q.base = CheckedAdd(q.base, qy);
      q.AddSum(ToSum(DivByConst(ToSum(term.first), c / k)), 1);
      return FromSum(q);
    }
    PrimExpr quotient;
    PrimExpr x;
    int64_t c1;
    PrimExpr atom = SingleAtom(r);
    if (atom.defined() && IsFloorDivBy(atom, &x, &c1)) {
      // x // c1 // c → x // (c1 * c)
      quotient = DivByConst(ToSum(x), CheckedMul(c1, c));
    } else if (atom.defined() && IsFloorModBy(atom, &x, &c1) && c1 % c == 0) {
      // (x % c1) // c → x // c % (c1 / c)
      quotient = ModByConst(ToSum(DivByConst(ToSum(x), c)), c1 / c);
    } else {
      quotient = FloorDiv(rexpr, MakeInt(t, c));
    }
    q.AddSum(ToSum(quotient), 1);
    return FromSum(q);
  }

  /*! \brief floormod(s, c) for c > 0 (see the file comment). */
  PrimExpr ModByConst(const Sum& s, int64_t c) {
    DataType t = s.dtype;
    if (c == 1) return MakeInt(t, 0);
    Sum r(t);
    for (const auto& term : s.terms) {
      if (term.second % c != 0) r.AddTerm(term.first, term.second);
    }
    r.base = FloorModInt(s.base, c);
    if (r.IsConst()) return MakeInt(t, r.base);
    PrimExpr rexpr = FromSum(r);
    ConstIntBound rb = BoundOf(ctx_, rexpr);
    if (rb.min_value >= 0 && rb.max_value < c) return rexpr;
    if (IsFinite(rb) && FloorDivInt(rb.min_value, c) == FloorDivInt(rb.max_value, c)) {
      r.base = CheckedAdd(r.base, -CheckedMul(c, FloorDivInt(rb.min_value, c)));
      return FromSum(r);
    }
    // As TVM: (x * k + y) % c → x % (c / k) * k + y when k divides c and 0 <= y < k (the
    // partner of the same rule for //).
    for (const auto& term : r.terms) {
      int64_t k = term.second;
      if (k <= 1 || c % k != 0) continue;
      Sum rest = r;
      rest.AddTerm(term.first, -k);
      ConstIntBound yb = BoundOf(ctx_, FromSum(rest));
      if (yb.min_value < 0 || yb.max_value >= k) continue;
      Sum out = ToSum(ModByConst(ToSum(term.first), c / k));
      out.Scale(k);
      out.AddSum(rest, 1);
      return FromSum(out);
    }
    PrimExpr x;
    int64_t c1;
    PrimExpr atom = SingleAtom(r);
    if (atom.defined() && IsFloorModBy(atom, &x, &c1) && c1 % c == 0) {
      // x % c1 % c → x % c
      return ModByConst(ToSum(x), c);
    }
    return FloorMod(rexpr, MakeInt(t, c));
  }

  /*!
   * \brief floordiv / floormod by a non-constant divisor d: the terms that are multiples of d
   * (`x * d`) form the quotient; when the rest r is provably in [0, d) — e.g. the fused index
   * `i * n + j` with j in [0, n) — the result is the quotient (div) or r (mod).
   */
  std::optional<PrimExpr> DivBySymbol(const PrimExpr& a, const PrimExpr& d, bool want_mod) {
    try {
      Sum sa = ToSum(a);
      Sum q(a.dtype()), r(a.dtype());
      r.base = sa.base;
      for (const auto& term : sa.terms) {
        const PrimExpr& t = term.first;
        if (ExprDeepEqual(t, d)) {
          q.base = CheckedAdd(q.base, term.second);
        } else if (auto* m = t.as<MulNode>(); m && ExprDeepEqual(m->b, d)) {
          q.AddTerm(m->a, term.second);
        } else if (m && ExprDeepEqual(m->a, d)) {
          q.AddTerm(m->b, term.second);
        } else {
          r.AddTerm(t, term.second);
        }
      }
      if (q.IsConst() && q.base == 0) return std::nullopt;
      PrimExpr rexpr = FromSum(r);
      if (BoundOf(ctx_, rexpr).min_value < 0) {
        // As TVM's floordiv(x * d + y, d) → x + floordiv(y, d): a constant remainder in
        // [-d, 0) (d >= 1) takes one off the quotient, (n * 32 - 1) // n → 31.
        auto c = AsConstInt(rexpr);
        ConstIntBound db = BoundOf(ctx_, d);  // d may be 0 only where dividing is undefined
        if (!c || *c >= 0 || db.min_value < 0 || -*c > std::max<int64_t>(db.min_value, 1)) {
          return std::nullopt;
        }
        q.base = CheckedAdd(q.base, -1);
        return want_mod ? FromSum([&] {
          Sum m = ToSum(d);
          m.base = CheckedAdd(m.base, *c);
          return m;
        }())
                        : FromSum(q);
      }
      if (DifferenceBound(rexpr, d).max_value >= 0) return std::nullopt;
      return want_mod ? rexpr : FromSum(q);
    } catch (const GiveUp&) {
      return std::nullopt;
    }
  }

  template <typename TNode>
  PrimExpr MinMax(const TNode* op, const PrimExpr& a0, const PrimExpr& b0, bool is_min) {
    PrimExpr a = VisitExpr(a0), b = VisitExpr(b0);
    if (IsIndexType(op->dtype) || (op->dtype.is_scalar() && op->dtype.is_uint())) {
      auto x = AsConstInt(a), y = AsConstInt(b);
      if (x && y) return IntImm(op->dtype, is_min ? std::min(*x, *y) : std::max(*x, *y));
      if (IsIndexType(op->dtype)) {
        // Decide a <= b or a >= b from the bounds of a - b.
        int sign = SignOfDifference(a, b);
        if (sign <= 0) return is_min ? a : b;
        if (sign == 1) return is_min ? b : a;
        // Absorption, as TVM: min(max(x, y), x) → x, max(min(x, y), x) → x (either order).
        auto absorbs = [&](const PrimExpr& outer, const PrimExpr& x) {
          const BinaryOpNode* n = is_min ? static_cast<const BinaryOpNode*>(outer.as<MaxNode>())
                                         : static_cast<const BinaryOpNode*>(outer.as<MinNode>());
          return n != nullptr && (ExprDeepEqual(n->a, x) || ExprDeepEqual(n->b, x));
        };
        if (absorbs(a, b)) return b;
        if (absorbs(b, a)) return a;
      } else if (ExprDeepEqual(a, b)) {
        return a;
      }
      return Rebuild(op, a, b);
    }
    auto* fx = a.as<FloatImmNode>();
    auto* fy = b.as<FloatImmNode>();
    if (fx && fy && op->dtype.is_scalar()) {
      return FloatImm(op->dtype,
                      is_min ? std::min(fx->value, fy->value) : std::max(fx->value, fy->value));
    }
    return Rebuild(op, a, b);
  }

  static constexpr int kUnknownSign = 2;
  /*! \brief 0 when a == b is proven, -1 for a <= b, 1 for a >= b, else kUnknownSign. */
  int SignOfDifference(const PrimExpr& a, const PrimExpr& b) {
    ConstIntBound d = DifferenceBound(a, b);
    if (d.min_value == 0 && d.max_value == 0) return 0;
    if (d.max_value <= 0) return -1;
    if (d.min_value >= 0) return 1;
    return kUnknownSign;
  }

  /*!
   * \brief Constant bounds of a - b: first from the canonical difference, then — when that
   * is not conclusive — from symbolic bounds (a variable ranging over [0, n) gives `i - n`
   * the maximum -1).
   */
  ConstIntBound DifferenceBound(const PrimExpr& a, const PrimExpr& b) {
    ConstIntBound none;
    PrimExpr diff;
    try {
      Sum s = ToSum(a);
      s.AddSum(ToSum(b), -1);
      diff = FromSum(s);
    } catch (const GiveUp&) {
      return none;
    }
    if (auto v = AsConstInt(diff)) {
      ConstIntBound r;
      r.min_value = r.max_value = *v;
      return r;
    }
    ConstIntBound bound = BoundOf(ctx_, diff);
    if (bound.max_value < 0 || bound.min_value > 0 || ctx_->symbolic_depth > 0) return bound;
    // Symbolic bounds: replace each bound variable by its range and simplify the ends.
    ++ctx_->symbolic_depth;
    try {
      IntSet set = EvalIntSet(ctx_, diff, BoundRangesAsDom(ctx_, /*skip_range_vars=*/true));
      if (set.HasLowerBound()) {
        ConstIntBound lo = BoundOf(ctx_, SimplifyExpr(ctx_, set.min()));
        bound.min_value = std::max(bound.min_value, lo.min_value);
      }
      if (set.HasUpperBound()) {
        ConstIntBound hi = BoundOf(ctx_, SimplifyExpr(ctx_, set.max()));
        bound.max_value = std::min(bound.max_value, hi.max_value);
      }
    } catch (...) {
      --ctx_->symbolic_depth;
      throw;
    }
    --ctx_->symbolic_depth;
    return bound;
  }

  template <typename TNode>
  PrimExpr Compare(const TNode* op, CmpKind kind) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    DataType t = a.dtype();
    if (!t.is_scalar()) return Rebuild(op, a, b);
    std::optional<bool> result;
    if (IsIndexType(t)) {
      ConstIntBound d = DifferenceBound(a, b);
      result = Decide(kind, d.min_value, d.max_value);
    } else if (auto x = AsConstInt(a), y = AsConstInt(b); x && y) {
      result = Decide(kind, *x - *y, *x - *y);
    } else if (auto* fx = a.as<FloatImmNode>()) {
      if (auto* fy = b.as<FloatImmNode>()) result = DecideFloat(kind, fx->value, fy->value);
    }
    if (result) return IntImm(op->dtype, *result);
    if (IsIndexType(t)) {
      try {
        if (std::optional<PrimExpr> r = NormalizeCompare(kind, a, b)) return *r;
      } catch (const GiveUp&) {
      }
    }
    return Rebuild(op, a, b);
  }

  /*!
   * \brief TVM's normal form of an undecided integer comparison: `a >= b` and `a > b` become
   * `b <= a` and `b < a`; constants move to the side where they stay positive-free
   * (`i - 16 >= 0` → `16 <= i`, `x + 8 < 10` → `x < 2`, `x < y + 1` → `x <= y`), and a factor
   * common to both sides is divided out (`i * 4 < 8` → `i < 2`). EQ/NE are left alone.
   */
  std::optional<PrimExpr> NormalizeCompare(CmpKind kind, const PrimExpr& a, const PrimExpr& b) {
    switch (kind) {
      case CmpKind::kLT:
        return NormalizeLT(a, b, 0);
      case CmpKind::kGT:
        return NormalizeLT(b, a, 0);
      case CmpKind::kLE:
        return NegateLT(NormalizeLT(b, a, 0));
      case CmpKind::kGE:
        return NegateLT(NormalizeLT(a, b, 0));
      default:
        return std::nullopt;
    }
  }

  /*! \brief not(x < y) is y <= x, not(x <= y) is y < x. */
  static PrimExpr NegateLT(const PrimExpr& e) {
    if (auto* lt = e.as<LTNode>()) return LE(lt->b, lt->a);
    if (auto* le = e.as<LENode>()) return LT(le->b, le->a);
    if (auto v = AsConstInt(e)) return IntImm(e.dtype(), !*v);
    return Not(e);
  }

  /*! \brief TVM's rewrite rules for `a < b` on canonical integer operands. */
  PrimExpr NormalizeLT(const PrimExpr& a, const PrimExpr& b, int depth) {
    DataType t = a.dtype();
    if (depth > 8) return LT(a, b);
    Sum sa = ToSum(a), sb = ToSum(b);
    auto again = [&](const PrimExpr& x, const PrimExpr& y) {
      ConstIntBound d = DifferenceBound(x, y);
      if (auto r = Decide(CmpKind::kLT, d.min_value, d.max_value)) {
        return PrimExpr(IntImm(DataType::Bool(), *r));
      }
      return NormalizeLT(x, y, depth + 1);
    };
    auto without_base = [](Sum s) {
      s.base = 0;
      return s;
    };
    auto negated = [](Sum s) {
      s.Scale(-1);
      return s;
    };
    auto positive_free = [](const Sum& s) {  // printed as `c - x ...`
      if (s.terms.empty() || s.base <= 0) return false;
      for (const auto& term : s.terms) {
        if (term.second > 0) return false;
      }
      return true;
    };
    auto single = [](const Sum& s, int64_t* coeff) {
      if (s.terms.size() != 1 || s.base != 0) return PrimExpr();
      *coeff = s.terms[0].second;
      return s.terms[0].first;
    };
    int64_t c2 = 0;
    // x * c2 < c1 and c1 < x * c2 (truncating division, as TVM).
    if (sb.IsConst()) {
      PrimExpr x = single(sa, &c2);
      int64_t c1 = sb.base;
      if (x.defined() && c2 > 1) {
        return again(x, MakeInt(t, c1 > 0 ? (c1 - 1) / c2 + 1 : c1 / c2));
      }
      PrimExpr y;
      int64_t f = 0;
      if (x.defined() && c2 == 1 && IsFloorDivBy(x, &y, &f)) {
        return again(y, MakeInt(t, CheckedMul(c1, f)));  // x // f < c → x < c * f
      }
    }
    if (sa.IsConst()) {
      PrimExpr x = single(sb, &c2);
      int64_t c1 = sa.base;
      if (x.defined() && c2 > 1) {
        return again(MakeInt(t, c1 < 0 ? (c1 + 1) / c2 - 1 : c1 / c2), x);
      }
      PrimExpr y;
      int64_t f = 0;
      if (x.defined() && c2 == 1 && IsFloorDivBy(x, &y, &f)) {
        // c < x // f → (c + 1) * f - 1 < x
        return again(MakeInt(t, CheckedAdd(CheckedMul(CheckedAdd(c1, 1), f), -1)), y);
      }
    }
    // Constants to one side.
    if (sb.IsConst() && !sa.IsConst() && sa.base != 0) {
      if (positive_free(sa)) {  // c1 - x < c2 → c1 - c2 < x
        return again(MakeInt(t, CheckedAdd(sa.base, -sb.base)), FromSum(negated(without_base(sa))));
      }
      return again(FromSum(without_base(sa)), MakeInt(t, CheckedAdd(sb.base, -sa.base)));
    }
    if (sa.IsConst() && !sb.IsConst() && sb.base != 0) {
      if (positive_free(sb)) {  // c1 < c2 - x → x < c2 - c1
        return again(FromSum(negated(without_base(sb))), MakeInt(t, CheckedAdd(sb.base, -sa.base)));
      }
      return again(MakeInt(t, CheckedAdd(sa.base, -sb.base)), FromSum(without_base(sb)));
    }
    if (!sa.IsConst() && !sb.IsConst()) {
      if (positive_free(sb)) {  // x < c1 - y → x + y < c1
        Sum lhs = sa;
        lhs.AddSum(negated(without_base(sb)), 1);
        return again(FromSum(lhs), MakeInt(t, sb.base));
      }
      if (positive_free(sa)) {  // c1 - y < x → c1 < x + y
        Sum rhs = sb;
        rhs.AddSum(negated(without_base(sa)), 1);
        return again(MakeInt(t, sa.base), FromSum(rhs));
      }
      // Merge the constant offsets of x + a < y + b.
      int64_t oa = sa.base, ob = sb.base;
      if (oa != 0 || ob != 0) {
        PrimExpr x = FromSum(without_base(sa)), y = FromSum(without_base(sb));
        int64_t diff = CheckedAdd(ob, -oa);
        if (diff == 0) return again(x, y);
        if (diff == 1) return NegateLT(again(y, x));  // x < y + 1 → x <= y
        if (diff < 0 && ob != 0) return again(Add(x, MakeInt(t, -diff)), y);
        if (diff > 0 && oa != 0) return again(x, Add(y, MakeInt(t, diff)));
      }
    }
    // A factor common to both sides.
    int64_t g = 0;
    for (const Sum* s : {&sa, &sb}) {
      g = std::gcd(g, s->base);
      for (const auto& term : s->terms) g = std::gcd(g, term.second);
    }
    if (g > 1) {
      Sum qa = sa, qb = sb;
      for (Sum* s : {&qa, &qb}) {
        for (auto& term : s->terms) term.second /= g;
        s->base /= g;
      }
      return again(FromSum(qa), FromSum(qb));
    }
    return LT(a, b);
  }

  /*! \brief The comparison of a and b from bounds [lo, hi] of a - b, when they decide it. */
  static std::optional<bool> Decide(CmpKind kind, int64_t lo, int64_t hi) {
    switch (kind) {
      case CmpKind::kEQ:
        if (lo == 0 && hi == 0) return true;
        if (lo > 0 || hi < 0) return false;
        break;
      case CmpKind::kNE:
        if (lo == 0 && hi == 0) return false;
        if (lo > 0 || hi < 0) return true;
        break;
      case CmpKind::kLT:
        if (hi < 0) return true;
        if (lo >= 0) return false;
        break;
      case CmpKind::kLE:
        if (hi <= 0) return true;
        if (lo > 0) return false;
        break;
      case CmpKind::kGT:
        if (lo > 0) return true;
        if (hi <= 0) return false;
        break;
      case CmpKind::kGE:
        if (lo >= 0) return true;
        if (hi < 0) return false;
        break;
    }
    return std::nullopt;
  }
  static std::optional<bool> DecideFloat(CmpKind kind, double x, double y) {
    switch (kind) {
      case CmpKind::kEQ:
        return x == y;
      case CmpKind::kNE:
        return x != y;
      case CmpKind::kLT:
        return x < y;
      case CmpKind::kLE:
        return x <= y;
      case CmpKind::kGT:
        return x > y;
      case CmpKind::kGE:
        return x >= y;
    }
    return std::nullopt;
  }

  AnalyzerContext* ctx_;
};

}  // namespace

PrimExpr SimplifyExpr(AnalyzerContext* ctx, const PrimExpr& e) { return Simplifier(ctx)(e); }

}  // namespace arith
}  // namespace minitvm
