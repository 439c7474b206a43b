/*!
 * \file analyzer.cc
 * \brief The Analyzer (stage 2): variable bindings and the questions built on the bound
 * analysis and the simplifier (CanProve, int_set), plus the global functions Python uses
 * ("arith.Simplify", "arith.CreateAnalyzer", ...).
 */
#include "minitvm/arith/analyzer.h"

#include <sstream>

#include "analyzer_impl.h"
#include "minitvm/ir/structural.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace arith {

using tir::VarNode;

struct Analyzer::Impl : public AnalyzerContext {};

Analyzer::Analyzer() : impl_(std::make_unique<Impl>()) {}
Analyzer::~Analyzer() = default;

namespace {

std::string ShowBound(const ConstIntBound& b) {
  std::ostringstream os;
  os << "[";
  if (b.min_value == ConstIntBound::kNegInf)
    os << "-inf";
  else
    os << b.min_value;
  os << ", ";
  if (b.max_value == ConstIntBound::kPosInf)
    os << "+inf";
  else
    os << b.max_value;
  os << "]";
  return os.str();
}

/*! \brief Intersection of two bounds (both hold). */
ConstIntBound Intersect(const ConstIntBound& a, const ConstIntBound& b) {
  ConstIntBound r;
  r.min_value = std::max(a.min_value, b.min_value);
  r.max_value = std::min(a.max_value, b.max_value);
  if (r.min_value > r.max_value) return a;
  return r;
}

void CheckIntVar(const Var& v, const char* what) {
  if (!v.defined()) MINITVM_THROW(ValueError) << "Analyzer." << what << ": undefined variable";
}

}  // namespace

void Analyzer::Bind(const Var& v, const Range& r, bool allow_override) {
  CheckIntVar(v, "Bind");
  if (!r.defined())
    MINITVM_THROW(ValueError) << "Analyzer.Bind: undefined range for " << v->name_hint;
  // A loop of one iteration pins its variable: bind the value instead.
  if (auto e = AsConstInt(Simplify(r->extent)); e && *e == 1) {
    Bind(v, r->min, allow_override);
    return;
  }
  PrimExpr min = Simplify(r->min), extent = Simplify(r->extent);
  ConstIntBound bound;
  bound.min_value = BoundOf(impl_.get(), min).min_value;
  bound.max_value = BoundOf(impl_.get(), Simplify(min + extent - 1)).max_value;
  if (v.as<tir::SizeVarNode>()) bound.min_value = std::max<int64_t>(bound.min_value, 0);
  bound = Intersect(bound, DTypeBound(v.dtype()));
  auto it = impl_->vars.find(v.get());
  if (it != impl_->vars.end() && !allow_override) {
    const VarInfo& old = it->second;
    bool same = old.range.defined() && ExprDeepEqual(old.range->min, min) &&
                ExprDeepEqual(old.range->extent, extent);
    if (same) return;
    MINITVM_THROW(ValueError) << "Analyzer.Bind: variable " << v->name_hint
                              << " is already bound (bounds " << ShowBound(old.bound)
                              << "); rebinding it to bounds " << ShowBound(bound)
                              << " needs allow_override=true";
  }
  VarInfo info;
  info.var = v;
  info.range = Range(min, extent);
  info.bound = bound;
  impl_->vars[v.get()] = info;
}

void Analyzer::Bind(const Var& v, const PrimExpr& e, bool allow_override) {
  CheckIntVar(v, "Bind");
  if (!e.defined())
    MINITVM_THROW(ValueError) << "Analyzer.Bind: undefined value for " << v->name_hint;
  PrimExpr value = Simplify(e);
  auto it = impl_->vars.find(v.get());
  if (it != impl_->vars.end() && !allow_override) {
    const VarInfo& old = it->second;
    if (old.value.defined() && ExprDeepEqual(old.value, value)) return;
    MINITVM_THROW(ValueError) << "Analyzer.Bind: variable " << v->name_hint
                              << " is already bound; rebinding it needs allow_override=true";
  }
  VarInfo info;
  info.var = v;
  info.value = value;
  info.bound = Intersect(BoundOf(impl_.get(), value), DTypeBound(v.dtype()));
  impl_->vars[v.get()] = info;
}

PrimExpr Analyzer::Simplify(const PrimExpr& e) {
  if (!e.defined()) MINITVM_THROW(ValueError) << "Analyzer.Simplify: undefined expression";
  PrimExpr once = SimplifyExpr(impl_.get(), e);
  // A second pass settles the few rewrites whose result enables another (rare).
  PrimExpr twice = SimplifyExpr(impl_.get(), once);
  return twice;
}

ConstIntBound Analyzer::const_int_bound(const PrimExpr& e) {
  if (!e.defined()) MINITVM_THROW(ValueError) << "Analyzer.const_int_bound: undefined expression";
  return Intersect(BoundOf(impl_.get(), e), BoundOf(impl_.get(), Simplify(e)));
}

bool Analyzer::CanProve(const PrimExpr& cond) {
  if (!cond.defined()) return false;
  PrimExpr s = Simplify(cond);
  if (auto v = AsConstInt(s)) return *v != 0;
  if (auto* a = s.as<tir::AndNode>()) return CanProve(a->a) && CanProve(a->b);
  if (auto* o = s.as<tir::OrNode>()) return CanProve(o->a) || CanProve(o->b);
  return false;
}

bool Analyzer::CanProveEqual(const PrimExpr& a, const PrimExpr& b) {
  if (!a.defined() || !b.defined()) return false;
  if (a.dtype().is_int() && b.dtype().is_int()) {
    auto v = AsConstInt(Simplify(a - b));
    return v && *v == 0;
  }
  return ExprDeepEqual(Simplify(a), Simplify(b));
}

bool Analyzer::CanProveGreaterEqual(const PrimExpr& e, int64_t value) {
  if (const_int_bound(e).min_value >= value) return true;
  return CanProve(e >= IntImm(e.dtype(), value));
}

bool Analyzer::CanProveLess(const PrimExpr& e, int64_t value) {
  if (const_int_bound(e).max_value < value) return true;
  return CanProve(e < IntImm(e.dtype(), value));
}

IntSet Analyzer::int_set(const PrimExpr& e,
                         const std::unordered_map<const VarNode*, IntSet>& dom_map) {
  if (!e.defined()) MINITVM_THROW(ValueError) << "Analyzer.int_set: undefined expression";
  return EvalIntSet(impl_.get(), Simplify(e), dom_map);
}

IntSet Analyzer::int_set(const PrimExpr& e) { return int_set(e, BoundRangesAsDom(impl_.get())); }

// ---- Python-facing objects and globals -------------------------------------------------

/*! \brief An Analyzer held by an object, so Python can keep one and call it repeatedly. */
class AnalyzerObj : public Object {
 public:
  Analyzer analyzer;
  MINITVM_DECLARE_OBJECT_INFO(AnalyzerObj, Object, "arith.Analyzer");
};

/*! \brief ConstIntBound as an object: fields min_value and max_value (±2^63 mean infinite). */
class ConstIntBoundNode : public Object {
 public:
  int64_t min_value = ConstIntBound::kNegInf;
  int64_t max_value = ConstIntBound::kPosInf;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("min_value", &min_value);
    v->Visit("max_value", &max_value);
  }
  MINITVM_DECLARE_OBJECT_INFO(ConstIntBoundNode, Object, "arith.ConstIntBound");
};

/*! \brief IntSet as an object: min_value / max_value are None when unbounded. */
class IntervalSetNode : public Object {
 public:
  PrimExpr min_value;
  PrimExpr max_value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("min_value", &min_value);
    v->Visit("max_value", &max_value);
  }
  MINITVM_DECLARE_OBJECT_INFO(IntervalSetNode, Object, "arith.IntervalSet");
};

namespace {

ObjectRef MakeBoundObject(const ConstIntBound& b) {
  auto n = make_object<ConstIntBoundNode>();
  n->min_value = b.min_value;
  n->max_value = b.max_value;
  return ObjectRef(std::move(n));
}

ObjectRef MakeSetObject(const IntSet& s) {
  auto n = make_object<IntervalSetNode>();
  n->min_value = s.min();
  n->max_value = s.max();
  return ObjectRef(std::move(n));
}

Analyzer& Get(const ObjectRef& obj) {
  auto* n = obj.as<AnalyzerObj>();
  if (!n) MINITVM_THROW(TypeError) << "expected an arith.Analyzer";
  return const_cast<AnalyzerObj*>(n)->analyzer;
}

/*! \brief A dom map from Python: Var → Range or IntervalSet. */
std::unordered_map<const VarNode*, IntSet> ToDomMap(const Map<Var, Any>& dom) {
  std::unordered_map<const VarNode*, IntSet> out;
  for (const auto& kv : dom.items()) {
    if (auto* r = kv.second.as<RangeNode>()) {
      out[kv.first.get()] = IntSet::FromRange(GetRef<Range>(r));
    } else if (auto* s = kv.second.as<IntervalSetNode>()) {
      out[kv.first.get()] = IntSet::Interval(s->min_value, s->max_value);
    } else {
      MINITVM_THROW(TypeError) << "int_set: the domain of " << kv.first->name_hint
                               << " must be a Range or an IntervalSet, got "
                               << kv.second.type_name();
    }
  }
  return out;
}

void BindAny(Analyzer& a, const Var& v, const Any& value, bool allow_override) {
  if (auto* r = value.as<RangeNode>()) {
    a.Bind(v, GetRef<Range>(r), allow_override);
  } else {
    a.Bind(v, value.cast<PrimExpr>(), allow_override);
  }
}

}  // namespace

MINITVM_REGISTER_GLOBAL("arith.CreateAnalyzer").set_body_typed([]() {
  return ObjectRef(make_object<AnalyzerObj>());
});
MINITVM_REGISTER_GLOBAL("arith.AnalyzerBind")
    .set_body_typed([](ObjectRef a, Var v, Any value, bool allow_override) {
      BindAny(Get(a), v, value, allow_override);
    });
MINITVM_REGISTER_GLOBAL("arith.AnalyzerSimplify").set_body_typed([](ObjectRef a, PrimExpr e) {
  return Get(a).Simplify(e);
});
MINITVM_REGISTER_GLOBAL("arith.AnalyzerConstIntBound").set_body_typed([](ObjectRef a, PrimExpr e) {
  return MakeBoundObject(Get(a).const_int_bound(e));
});
MINITVM_REGISTER_GLOBAL("arith.AnalyzerCanProve").set_body_typed([](ObjectRef a, PrimExpr e) {
  return Get(a).CanProve(e);
});
MINITVM_REGISTER_GLOBAL("arith.AnalyzerCanProveEqual")
    .set_body_typed([](ObjectRef a, PrimExpr x, PrimExpr y) { return Get(a).CanProveEqual(x, y); });
MINITVM_REGISTER_GLOBAL("arith.AnalyzerIntSet")
    .set_body_typed([](ObjectRef a, PrimExpr e, Map<Var, Any> dom) {
      Analyzer& analyzer = Get(a);
      return MakeSetObject(dom.empty() ? analyzer.int_set(e) : analyzer.int_set(e, ToDomMap(dom)));
    });

// One-shot versions with a fresh analyzer.
MINITVM_REGISTER_GLOBAL("arith.Simplify").set_body_typed([](PrimExpr e) {
  Analyzer a;
  return a.Simplify(e);
});
MINITVM_REGISTER_GLOBAL("arith.ConstIntBound").set_body_typed([](PrimExpr e) {
  Analyzer a;
  return MakeBoundObject(a.const_int_bound(e));
});
MINITVM_REGISTER_GLOBAL("arith.CanProve").set_body_typed([](PrimExpr e) {
  Analyzer a;
  return a.CanProve(e);
});
MINITVM_REGISTER_GLOBAL("arith.IntSet").set_body_typed([](PrimExpr e, Map<Var, Any> dom) {
  Analyzer a;
  return MakeSetObject(a.int_set(e, ToDomMap(dom)));
});

}  // namespace arith
}  // namespace minitvm
