/*!
 * \file linear_form.cc
 * \brief Affine forms of integer expressions and their relaxation over intervals (stage 2);
 * see minitvm/arith/linear_form.h.
 */
#include "minitvm/arith/linear_form.h"

#include "analyzer_impl.h"
#include "minitvm/ir/structural.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace arith {

using namespace tir;  // NOLINT(build/namespaces)

// ---- linear forms --------------------------------------------------------------------------

int64_t LinearForm::Coeff(const PrimExpr& atom) const {
  for (const auto& [a, c] : terms) {
    if (ExprDeepEqual(a, atom)) return c;
  }
  return 0;
}

void LinearForm::AddTerm(const PrimExpr& atom, int64_t coeff) {
  if (coeff == 0) return;
  for (auto it = terms.begin(); it != terms.end(); ++it) {
    if (ExprDeepEqual(it->first, atom)) {
      it->second += coeff;
      if (it->second == 0) terms.erase(it);
      return;
    }
  }
  terms.emplace_back(atom, coeff);
}

void LinearForm::Add(const LinearForm& other, int64_t scale) {
  constant += other.constant * scale;
  for (const auto& [atom, c] : other.terms) AddTerm(atom, c * scale);
}

LinearForm LinearForm::operator-(const LinearForm& other) const {
  LinearForm r = *this;
  r.Add(other, -1);
  return r;
}

LinearForm LinearForm::Without(const std::unordered_set<const VarNode*>& vars) const {
  LinearForm r;
  r.constant = constant;
  r.dtype = dtype;
  for (const auto& [atom, c] : terms) {
    auto* v = atom.as<VarNode>();
    if (!v || !vars.count(v)) r.terms.emplace_back(atom, c);
  }
  return r;
}

bool LinearForm::Equals(const LinearForm& other) const {
  LinearForm d = *this - other;
  return d.constant == 0 && d.terms.empty();
}

PrimExpr LinearForm::ToExpr(DataType t) const {
  PrimExpr e;
  for (const auto& [atom, coeff] : terms) {
    PrimExpr x = atom.dtype() == t ? atom : cast(t, atom);
    if (!e.defined()) {
      e = coeff == 1 ? x : (coeff == -1 ? -x : x * make_const(t, coeff));
    } else if (coeff > 0) {
      e = e + (coeff == 1 ? x : x * make_const(t, coeff));
    } else {
      e = e - (coeff == -1 ? x : x * make_const(t, -coeff));
    }
  }
  if (!e.defined()) return make_const(t, constant);
  if (constant > 0) return e + make_const(t, constant);
  if (constant < 0) return e - make_const(t, -constant);
  return e;
}

namespace {

/*!
 * \brief The form of `e`; with `strict`, only variables may be atoms (integer casts are looked
 * through) and anything else gives nullopt.
 */
std::optional<LinearForm> Build(const PrimExpr& e, bool strict) {
  LinearForm out;
  out.dtype = e.dtype();
  if (auto* imm = e.as<IntImmNode>()) {
    out.constant = imm->value;
    return out;
  }
  auto both = [&](const PrimExpr& a, const PrimExpr& b, int64_t sign) -> std::optional<LinearForm> {
    auto x = Build(a, strict), y = Build(b, strict);
    if (!x || !y) return std::nullopt;
    out.Add(*x);
    out.Add(*y, sign);
    return out;
  };
  if (auto* add = e.as<AddNode>()) return both(add->a, add->b, 1);
  if (auto* sub = e.as<SubNode>()) return both(sub->a, sub->b, -1);
  if (auto* mul = e.as<MulNode>()) {
    auto x = Build(mul->a, strict), y = Build(mul->b, strict);
    if (x && y && (x->IsConst() || y->IsConst())) {
      if (y->IsConst()) {
        out.Add(*x, y->constant);
      } else {
        out.Add(*y, x->constant);
      }
      return out;
    }
    if (strict) return std::nullopt;
  }
  if (strict) {
    if (auto* c = e.as<CastNode>()) {
      DataType from = c->value.dtype();
      if (c->dtype.is_scalar() && (c->dtype.is_int() || c->dtype.is_uint()) &&
          (from.is_int() || from.is_uint())) {
        auto inner = Build(c->value, strict);
        if (inner) inner->dtype = e.dtype();
        return inner;
      }
      return std::nullopt;
    }
    if (!e.as<VarNode>()) return std::nullopt;
  }
  out.AddTerm(e, 1);
  return out;
}

}  // namespace

std::optional<LinearForm> ToLinearForm(const PrimExpr& e) {
  if (!e.defined() || !e.dtype().is_scalar() || !(e.dtype().is_int() || e.dtype().is_uint())) {
    return std::nullopt;
  }
  return Build(e, /*strict=*/true);
}

LinearForm ToAffineForm(const PrimExpr& e) { return *Build(e, /*strict=*/false); }

std::optional<int64_t> ConstDifference(const PrimExpr& a, const PrimExpr& b) {
  LinearForm d = ToAffineForm(a) - ToAffineForm(b);
  if (d.IsConst()) return d.constant;
  return std::nullopt;
}

PrimExpr NormalizeAffine(const PrimExpr& e) { return ToAffineForm(e).ToExpr(); }

PrimExpr AffineMin(const PrimExpr& a, const PrimExpr& b) {
  if (auto d = ConstDifference(a, b)) return *d <= 0 ? a : b;
  return min(a, b);
}

PrimExpr AffineMax(const PrimExpr& a, const PrimExpr& b) {
  if (auto d = ConstDifference(a, b)) return *d >= 0 ? a : b;
  return max(a, b);
}

IntSet AffineUnion(const IntSet& a, const IntSet& b) {
  PrimExpr lo = a.HasLowerBound() && b.HasLowerBound() ? AffineMin(a.min(), b.min()) : PrimExpr();
  PrimExpr hi = a.HasUpperBound() && b.HasUpperBound() ? AffineMax(a.max(), b.max()) : PrimExpr();
  return IntSet::Interval(lo, hi);
}

Range AffineCoverRange(const IntSet& s) {
  LinearForm ext = ToAffineForm(s.max()) - ToAffineForm(s.min());
  ext.dtype = s.max().dtype();
  ext.constant += 1;
  return Range(NormalizeAffine(s.min()), ext.ToExpr());
}

// ---- relaxation ----------------------------------------------------------------------------

namespace {

bool Bounded(const IntSet& s) { return s.HasLowerBound() && s.HasUpperBound(); }

}  // namespace

void AffineRelaxer::PushRange(const VarNode* v, const Range& r) {
  IntSet lo = Relax(r->min);
  IntSet hi = Relax(NormalizeAffine(r->min + r->extent - make_const(r->extent.dtype(), 1)));
  Push(v, IntSet::Interval(lo.min(), hi.max()));
}

const IntSet* AffineRelaxer::Find(const VarNode* v) const {
  for (auto it = relax_.rbegin(); it != relax_.rend(); ++it) {
    if (it->first == v) return &it->second;
  }
  return nullptr;
}

bool AffineRelaxer::Uses(const PrimExpr& e) const {
  if (relax_.empty()) return false;
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (found) return;
    if (auto* v = n.as<VarNode>()) found = Find(v) != nullptr;
  });
  return found;
}

IntSet AffineRelaxer::Relax(const PrimExpr& e) const {
  if (!Uses(e)) return IntSet::SinglePoint(e);
  if (auto* v = e.as<VarNode>()) return *Find(v);
  if (auto* ramp = e.as<RampNode>()) {
    auto stride = AsConstInt(ramp->stride);
    if (!stride) return IntSet::Everything();
    IntSet b = Relax(ramp->base);
    if (!Bounded(b)) return IntSet::Everything();
    int64_t span = *stride * (ramp->lanes - 1);
    PrimExpr s = make_const(ramp->base.dtype(), span);
    return span >= 0 ? IntSet::Interval(b.min(), NormalizeAffine(b.max() + s))
                     : IntSet::Interval(NormalizeAffine(b.min() + s), b.max());
  }
  if (auto* bc = e.as<BroadcastNode>()) return Relax(bc->value);
  return RelaxForm(ToAffineForm(e));
}

IntSet AffineRelaxer::RelaxForm(const LinearForm& form) const {
  LinearForm lo, hi;
  lo.dtype = hi.dtype = form.dtype;
  lo.constant = hi.constant = form.constant;
  for (const auto& [atom, coeff] : form.terms) {
    if (!Uses(atom)) {
      lo.AddTerm(atom, coeff);
      hi.AddTerm(atom, coeff);
      continue;
    }
    IntSet b = atom.as<VarNode>() ? *Find(atom.as<VarNode>()) : RelaxNonLinear(atom);
    if (!Bounded(b)) return IntSet::Everything();
    if (coeff > 0) {
      lo.Add(ToAffineForm(b.min()), coeff);
      hi.Add(ToAffineForm(b.max()), coeff);
    } else {
      lo.Add(ToAffineForm(b.max()), coeff);
      hi.Add(ToAffineForm(b.min()), coeff);
    }
  }
  return IntSet::Interval(lo.ToExpr(), hi.ToExpr());
}

IntSet AffineRelaxer::RelaxNonLinear(const PrimExpr& e) const {
  if (auto* fd = e.as<FloorDivNode>()) {
    auto c = AsConstInt(fd->b);
    if (!c || *c <= 0) return IntSet::Everything();
    IntSet b = Relax(fd->a);
    if (!Bounded(b)) return IntSet::Everything();
    return IntSet::Interval(floordiv(b.min(), fd->b), floordiv(b.max(), fd->b));
  }
  if (auto* fm = e.as<FloorModNode>()) {
    auto c = AsConstInt(fm->b);
    if (!c || *c <= 0) return IntSet::Everything();
    IntSet b = Relax(fm->a);
    if (!Bounded(b)) return IntSet::Everything();
    auto lo = AsConstInt(b.min()), hi = AsConstInt(b.max());
    if (lo && hi && FloorDivInt(*lo, *c) == FloorDivInt(*hi, *c)) {
      return IntSet::Interval(make_const(e.dtype(), FloorModInt(*lo, *c)),
                              make_const(e.dtype(), FloorModInt(*hi, *c)));
    }
    return IntSet::Interval(make_zero(e.dtype()), make_const(e.dtype(), *c - 1));
  }
  if (auto* mn = e.as<MinNode>()) {
    IntSet a = Relax(mn->a), b = Relax(mn->b);
    if (!Bounded(a) || !Bounded(b)) return IntSet::Everything();
    return IntSet::Interval(AffineMin(a.min(), b.min()), AffineMin(a.max(), b.max()));
  }
  if (auto* mx = e.as<MaxNode>()) {
    IntSet a = Relax(mx->a), b = Relax(mx->b);
    if (!Bounded(a) || !Bounded(b)) return IntSet::Everything();
    return IntSet::Interval(AffineMax(a.min(), b.min()), AffineMax(a.max(), b.max()));
  }
  return IntSet::Everything();
}

Range RelaxIndex(const PrimExpr& e, const std::vector<std::pair<Var, Range>>& relax,
                 const Range& fallback) {
  AffineRelaxer r;
  for (const auto& [v, rng] : relax) r.PushRange(v.get(), rng);
  IntSet b = r.Relax(e);
  if (!Bounded(b)) return fallback;
  return AffineCoverRange(b);
}

std::optional<Range> RelaxRange(Analyzer* analyzer, const PrimExpr& min, const PrimExpr& extent,
                                const std::unordered_map<const VarNode*, IntSet>& dom) {
  bool uses = false;
  for (const PrimExpr& e : {min, extent}) {
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (auto* v = n.as<VarNode>()) uses = uses || dom.count(v) > 0;
    });
  }
  if (!uses) return Range(analyzer->Simplify(min), analyzer->Simplify(extent));
  IntSet lo = analyzer->int_set(min, dom);
  IntSet hi = analyzer->int_set(min + extent - 1, dom);
  if (!lo.HasLowerBound() || !hi.HasUpperBound()) return std::nullopt;
  return Range(analyzer->Simplify(lo.min()), analyzer->Simplify(hi.max() - lo.min() + 1));
}

}  // namespace arith
}  // namespace minitvm
