/*!
 * \file const_int_bound.cc
 * \brief Constant integer bounds by recursive interval propagation (stage 2): each node's
 * [min, max] follows from its operands' bounds; variables take the bounds of the range they
 * were bound to, or of their dtype.
 */
#include <algorithm>
#include <initializer_list>
#include <optional>

#include "analyzer_impl.h"
#include "minitvm/tir/expr_functor.h"

namespace minitvm {
namespace arith {

using tir::ExprFunctor;

namespace {
constexpr int64_t kPosInf = ConstIntBound::kPosInf;
constexpr int64_t kNegInf = ConstIntBound::kNegInf;
bool IsInf(int64_t v) { return v == kPosInf || v == kNegInf; }
}  // namespace

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

int64_t BoundAdd(int64_t a, int64_t b) {
  if (IsInf(a)) return a;
  if (IsInf(b)) return b;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kPosInf : kNegInf;
  // A finite sum that lands on a sentinel is infinite in effect.
  return r;
}

int64_t BoundMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool negative = (a < 0) != (b < 0);
  if (IsInf(a) || IsInf(b)) return negative ? kNegInf : kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return negative ? kNegInf : kPosInf;
  return r;
}

ConstIntBound DTypeBound(DataType t) {
  ConstIntBound b;
  if (t.is_bool()) {
    b.min_value = 0;
    b.max_value = 1;
  } else if (t.is_int() && t.bits() < 64) {
    b.min_value = -(int64_t(1) << (t.bits() - 1));
    b.max_value = (int64_t(1) << (t.bits() - 1)) - 1;
  } else if (t.is_uint()) {
    b.min_value = 0;
    b.max_value = t.bits() < 63 ? (int64_t(1) << t.bits()) - 1 : kPosInf;
  }
  return b;
}

namespace {

/*! \brief Division of a bound by a positive or negative constant, keeping infinities. */
int64_t BoundFloorDiv(int64_t a, int64_t c) {
  if (IsInf(a)) return (a > 0) == (c > 0) ? kPosInf : kNegInf;
  return FloorDivInt(a, c);
}
int64_t BoundTruncDiv(int64_t a, int64_t c) {
  if (IsInf(a)) return (a > 0) == (c > 0) ? kPosInf : kNegInf;
  return a / c;
}

ConstIntBound Make(int64_t lo, int64_t hi) {
  ConstIntBound b;
  b.min_value = lo;
  b.max_value = hi;
  return b;
}

ConstIntBound Everything() { return ConstIntBound(); }

ConstIntBound Union(const ConstIntBound& a, const ConstIntBound& b) {
  return Make(std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value));
}

/*! \brief The smallest interval containing f(x, y) for the corner values x, y. */
template <typename F>
ConstIntBound Corners(const ConstIntBound& a, const ConstIntBound& b, F f) {
  int64_t lo = kPosInf, hi = kNegInf;
  for (int64_t x : {a.min_value, a.max_value}) {
    for (int64_t y : {b.min_value, b.max_value}) {
      int64_t v = f(x, y);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  return Make(lo, hi);
}

class BoundAnalyzer : public ExprFunctor<ConstIntBound(const PrimExpr&)> {
 public:
  explicit BoundAnalyzer(AnalyzerContext* ctx) : ctx_(ctx) {}

  ConstIntBound VisitExpr(const PrimExpr& e) override {
    DataType t = e.dtype();
    if (!t.is_scalar() || !(t.is_int() || t.is_uint())) return Everything();
    ConstIntBound b = ExprFunctor::VisitExpr(e);
    // Never claim more than the dtype allows.
    ConstIntBound d = DTypeBound(t);
    b.min_value = std::max(b.min_value, d.min_value);
    b.max_value = std::min(b.max_value, d.max_value);
    if (b.min_value > b.max_value) return d;
    return b;
  }

  ConstIntBound VisitExpr_(const IntImmNode* op) override { return Make(op->value, op->value); }
  ConstIntBound VisitExpr_(const tir::VarNode* op) override {
    auto s = ctx_->scoped_bounds.find(op);
    if (s != ctx_->scoped_bounds.end()) return s->second;
    auto it = ctx_->vars.find(op);
    if (it != ctx_->vars.end()) return it->second.bound;
    return DTypeBound(op->dtype);
  }
  ConstIntBound VisitExpr_(const tir::SizeVarNode* op) override {
    ConstIntBound b = VisitExpr_(static_cast<const tir::VarNode*>(op));
    b.min_value = std::max<int64_t>(b.min_value, 0);
    return b;
  }
  ConstIntBound VisitExpr_(const tir::CastNode* op) override {
    DataType from = op->value.dtype();
    if (from.is_int() || from.is_uint()) {
      ConstIntBound v = VisitExpr(op->value);
      ConstIntBound d = DTypeBound(op->dtype);
      if (v.min_value >= d.min_value && v.max_value <= d.max_value) return v;
    }
    return DTypeBound(op->dtype);
  }
  ConstIntBound VisitExpr_(const tir::AddNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(BoundAdd(a.min_value, b.min_value), BoundAdd(a.max_value, b.max_value));
  }
  ConstIntBound VisitExpr_(const tir::SubNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(BoundAdd(a.min_value, Negate(b.max_value)),
                BoundAdd(a.max_value, Negate(b.min_value)));
  }
  ConstIntBound VisitExpr_(const tir::MulNode* op) override {
    return Corners(VisitExpr(op->a), VisitExpr(op->b), BoundMul);
  }
  ConstIntBound VisitExpr_(const tir::FloorDivNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = NonZero(VisitExpr(op->b));
    if (b.min_value > 0 || b.max_value < 0) {
      return Corners(a, b, [](int64_t x, int64_t y) -> int64_t {
        if (IsInf(y)) {
          // x / ±inf tends to 0 from one side: floor gives 0 or -1.
          if (x == 0) return 0;
          if (IsInf(x)) return (x > 0) == (y > 0) ? kPosInf : kNegInf;
          return (x > 0) == (y > 0) ? 0 : -1;
        }
        return BoundFloorDiv(x, y);
      });
    }
    return DTypeBound(op->dtype);
  }
  ConstIntBound VisitExpr_(const tir::FloorModNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = NonZero(VisitExpr(op->b));
    if (b.min_value > 0) {
      if (a.min_value >= 0 && a.max_value < b.min_value) return a;
      if (b.min_value == b.max_value && !IsInf(a.min_value) && !IsInf(a.max_value)) {
        int64_t c = b.min_value;
        if (FloorDivInt(a.min_value, c) == FloorDivInt(a.max_value, c)) {
          return Make(FloorModInt(a.min_value, c), FloorModInt(a.max_value, c));
        }
      }
      int64_t hi = BoundAdd(b.max_value, -1);
      if (a.min_value >= 0) hi = std::min(hi, a.max_value);
      return Make(0, hi);
    }
    if (b.max_value < 0) return Make(BoundAdd(b.min_value, 1), 0);
    return DTypeBound(op->dtype);
  }
  ConstIntBound VisitExpr_(const tir::DivNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    if ((b.min_value > 0 || b.max_value < 0) && !IsInf(b.min_value) && !IsInf(b.max_value)) {
      return Corners(a, b, BoundTruncDiv);
    }
    return DTypeBound(op->dtype);
  }
  ConstIntBound VisitExpr_(const tir::ModNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (b.min_value > 0 || b.max_value < 0) {
      // |a % b| < |b| and the result takes the sign of a.
      int64_t abs_hi = b.min_value > 0 ? b.max_value : Negate(b.min_value);
      int64_t abs_lo = b.min_value > 0 ? b.min_value : Negate(b.max_value);
      if (a.min_value >= 0 && a.max_value < abs_lo) return a;
      int64_t m = BoundAdd(abs_hi, -1);
      int64_t lo = a.min_value >= 0 ? 0 : std::max(Negate(m), a.min_value);
      int64_t hi = a.max_value <= 0 ? 0 : std::min(m, a.max_value);
      return Make(lo, hi);
    }
    return DTypeBound(op->dtype);
  }
  /*!
   * \brief A divisor's bound without 0, as TVM assumes (dividing by zero is undefined):
   * [0, hi] becomes [1, hi] and [lo, 0] becomes [lo, -1].
   */
  static ConstIntBound NonZero(ConstIntBound b) {
    if (b.min_value == 0 && b.max_value > 0) b.min_value = 1;
    if (b.max_value == 0 && b.min_value < 0) b.max_value = -1;
    return b;
  }
  ConstIntBound VisitExpr_(const tir::MinNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value));
  }
  ConstIntBound VisitExpr_(const tir::MaxNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value));
  }
  ConstIntBound VisitExpr_(const tir::SelectNode* op) override {
    return Union(VisitExpr(op->true_value), VisitExpr(op->false_value));
  }
  ConstIntBound VisitExpr_(const tir::LetNode* op) override {
    ConstIntBound v = VisitExpr(op->value);
    auto& scoped = ctx_->scoped_bounds;
    auto old = scoped.find(op->var.get());
    std::optional<ConstIntBound> saved;
    if (old != scoped.end()) saved = old->second;
    scoped[op->var.get()] = v;
    ConstIntBound result = VisitExpr(op->body);
    if (saved) {
      scoped[op->var.get()] = *saved;
    } else {
      scoped.erase(op->var.get());
    }
    return result;
  }
  ConstIntBound VisitExpr_(const tir::CallNode* op) override {
    if (op->op == "tir.if_then_else" && op->args.size() == 3) {
      return Union(VisitExpr(op->args[1]), VisitExpr(op->args[2]));
    }
    if (op->op == "tir.likely" && op->args.size() == 1) return VisitExpr(op->args[0]);
    return DTypeBound(op->dtype);
  }
  ConstIntBound VisitExprDefault_(const Object* op) override {
    // Comparisons and logic are bool (their dtype bound is [0, 1]); loads are anything.
    return Everything();
  }

 private:
  static int64_t Negate(int64_t v) {
    if (v == kPosInf) return kNegInf;
    if (v == kNegInf) return kPosInf;
    return -v;
  }
  AnalyzerContext* ctx_;
};

}  // namespace

ConstIntBound BoundOf(AnalyzerContext* ctx, const PrimExpr& e) {
  return BoundAnalyzer(ctx).VisitExpr(e);
}

}  // namespace arith
}  // namespace minitvm
