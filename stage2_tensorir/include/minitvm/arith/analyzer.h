/*!
 * \file minitvm/arith/analyzer.h
 * \brief Integer arithmetic analysis (stage 2): constant bounds, interval sets, the
 * canonical simplifier for index expressions and proofs of simple facts. Stage 3's split,
 * fuse and compute_at region inference are built on it.
 */
#ifndef MINITVM_ARITH_ANALYZER_H_
#define MINITVM_ARITH_ANALYZER_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>

#include "minitvm/tir/expr.h"

namespace minitvm {
namespace arith {

using tir::Var;

/*! \brief Constant lower and upper bounds of an integer expression (inclusive). */
struct ConstIntBound {
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  int64_t min_value = kNegInf;
  int64_t max_value = kPosInf;
};

/*!
 * \brief A symbolic integer interval [min, max] (inclusive); either end may be unbounded
 * (an undefined PrimExpr means -inf / +inf).
 */
class IntSet {
 public:
  IntSet() = default;
  static IntSet Interval(PrimExpr min, PrimExpr max) {
    return IntSet(std::move(min), std::move(max));
  }
  static IntSet SinglePoint(PrimExpr v) { return IntSet(v, v); }
  /*! \brief [r.min, r.min + r.extent - 1]. */
  static IntSet FromRange(const Range& r);
  static IntSet Everything() { return IntSet(); }
  const PrimExpr& min() const { return min_; }
  const PrimExpr& max() const { return max_; }
  bool HasLowerBound() const { return min_.defined(); }
  bool HasUpperBound() const { return max_.defined(); }
  bool IsSinglePoint() const { return min_.defined() && min_.same_as(max_); }
  /*! \brief The smallest Range covering this set (needs both bounds; else `fallback`). */
  Range CoverRange(const Range& fallback) const;

 private:
  IntSet(PrimExpr min, PrimExpr max) : min_(std::move(min)), max_(std::move(max)) {}
  PrimExpr min_;
  PrimExpr max_;
};

/*!
 * \brief The analyzer: remembers variable ranges and answers questions about expressions.
 *
 * Bind ranges of loop variables first, then Simplify / prove. The simplifier is canonical
 * for affine sums and knows the floordiv/floormod patterns that split and fuse create, e.g.
 * `(i * 4 + j) // 4 → i` and `(i * 4 + j) % 4 → j` when `0 <= j < 4`.
 */
class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  /*! \brief v ∈ [r.min, r.min + r.extent). Rebinding a bound var is an error unless allowed. */
  void Bind(const Var& v, const Range& r, bool allow_override = false);
  /*! \brief v == e (substituted during simplification). */
  void Bind(const Var& v, const PrimExpr& e, bool allow_override = false);
  /*! \brief Simplify (constant folding, canonical affine form, div/mod rules). */
  PrimExpr Simplify(const PrimExpr& e);
  /*! \brief Constant bounds of an integer expression under the bound ranges. */
  ConstIntBound const_int_bound(const PrimExpr& e);
  /*! \brief True when `cond` is provably true (false means "not proven"). */
  bool CanProve(const PrimExpr& cond);
  bool CanProveEqual(const PrimExpr& a, const PrimExpr& b);
  bool CanProveGreaterEqual(const PrimExpr& e, int64_t value);
  bool CanProveLess(const PrimExpr& e, int64_t value);
  /*! \brief The set of values `e` takes when each var in `dom_map` ranges over its set. */
  IntSet int_set(const PrimExpr& e, const std::unordered_map<const tir::VarNode*, IntSet>& dom_map);
  IntSet int_set(const PrimExpr& e);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace arith
}  // namespace minitvm

#endif  // MINITVM_ARITH_ANALYZER_H_
