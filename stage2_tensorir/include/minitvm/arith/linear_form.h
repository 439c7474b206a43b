/*!
 * \file minitvm/arith/linear_form.h
 * \brief Affine (linear) forms of integer expressions and their relaxation over intervals
 * (stage 2) — the one place the stages learn affine reasoning.
 *
 * A linear form is `constant + Σ coeff·atom`. `ToLinearForm` accepts only variables as atoms
 * (what a pass needs to reason about loop variables: `i*8 + j - 3` is {i: 8, j: 1} - 3);
 * `ToAffineForm` accepts every expression and keeps a non-affine sub-expression (a floordiv,
 * a load, a cast) as an atom of its own, compared with ExprDeepEqual.
 *
 * `AffineRelaxer` relaxes an index expression over the intervals (IntSet) of some variables
 * without calling the simplifier: a variable contributes its lower or upper end depending on
 * the sign of its coefficient; floordiv/floormod by a positive constant, min and max are
 * relaxed through their operands. What it cannot relax gets an unbounded end, so a caller can
 * fall back to a correct (if loose) answer. The region analysis of `tir/analysis/` and the
 * stage-5 buffer compaction are built on it; `RelaxRange` is the simplifying counterpart on
 * `Analyzer::int_set` that the schedule primitives use.
 */
#ifndef MINITVM_ARITH_LINEAR_FORM_H_
#define MINITVM_ARITH_LINEAR_FORM_H_

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "minitvm/arith/analyzer.h"
#include "minitvm/tir/var.h"

namespace minitvm {
namespace arith {

/*! \brief `constant + Σ coeff·atom` over integers. */
struct LinearForm {
  /*! \brief (atom, coefficient) pairs in first-seen order; no coefficient is zero. */
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  /*! \brief The constant term. */
  int64_t constant = 0;
  /*! \brief The dtype of the expression the form was built from (what ToExpr() rebuilds). */
  DataType dtype = DataType::Int(32);

  /*! \brief Coefficient of `atom` (0 when absent). */
  int64_t Coeff(const PrimExpr& atom) const;
  /*! \brief Add `coeff·atom`, merging it with an equal atom (a zero coefficient drops it). */
  void AddTerm(const PrimExpr& atom, int64_t coeff);
  /*! \brief Add `scale·other`. */
  void Add(const LinearForm& other, int64_t scale = 1);
  /*! \brief this - other. */
  LinearForm operator-(const LinearForm& other) const;
  /*! \brief The form without the terms whose atom is one of `vars`. */
  LinearForm Without(const std::unordered_set<const tir::VarNode*>& vars) const;
  /*! \brief True when there is no term. */
  bool IsConst() const { return terms.empty(); }
  /*! \brief True when both have the same terms and constant. */
  bool Equals(const LinearForm& other) const;
  /*! \brief Rebuild an expression: terms in order (negative ones subtracted), then the constant. */
  PrimExpr ToExpr() const { return ToExpr(dtype); }
  /*! \brief The same in `dtype` (atoms of another dtype are cast). */
  PrimExpr ToExpr(DataType dtype) const;
};

/*!
 * \brief The linear form of an integer expression over variables: +, -, * by a constant,
 * integer-to-integer casts. nullopt for anything else (or a non-integer expression).
 */
std::optional<LinearForm> ToLinearForm(const PrimExpr& e);

/*!
 * \brief The affine form of any expression: +, - and * by a constant are expanded, every
 * other sub-expression (variables, casts, floordiv, loads...) is an atom.
 */
LinearForm ToAffineForm(const PrimExpr& e);

/*! \brief `a - b` when it is a constant (their affine forms differ only by the constant). */
std::optional<int64_t> ConstDifference(const PrimExpr& a, const PrimExpr& b);

/*! \brief `e` rebuilt from its affine form (like terms merged, constants folded). */
PrimExpr NormalizeAffine(const PrimExpr& e);

/*! \brief min(a, b), decided without a min node when the two differ by a constant. */
PrimExpr AffineMin(const PrimExpr& a, const PrimExpr& b);
/*! \brief max(a, b), decided without a max node when the two differ by a constant. */
PrimExpr AffineMax(const PrimExpr& a, const PrimExpr& b);

/*! \brief The union hull of two intervals (an unbounded end stays unbounded). */
IntSet AffineUnion(const IntSet& a, const IntSet& b);

/*! \brief [lo, hi] as the Range [lo, hi - lo + 1), its ends normalised as affine forms. */
Range AffineCoverRange(const IntSet& s);

/*!
 * \brief Relaxation of index expressions over the intervals of a stack of variables (the
 * innermost binding of a variable wins), without the simplifier.
 */
class AffineRelaxer {
 public:
  /*! \brief Relax `v` over `s` until the matching Pop. */
  void Push(const tir::VarNode* v, IntSet s) { relax_.emplace_back(v, std::move(s)); }
  /*! \brief Relax `v` over [r.min, r.min + r.extent - 1], the ends relaxed themselves first. */
  void PushRange(const tir::VarNode* v, const Range& r);
  /*! \brief Undo the last Push. */
  void Pop() { relax_.pop_back(); }
  /*! \brief True when `e` mentions a relaxed variable. */
  bool Uses(const PrimExpr& e) const;
  /*! \brief The interval `e` takes; an end is undefined when it cannot be bounded. */
  IntSet Relax(const PrimExpr& e) const;
  /*! \brief The interval a linear form takes (its atoms relaxed one by one). */
  IntSet RelaxForm(const LinearForm& form) const;

 private:
  const IntSet* Find(const tir::VarNode* v) const;
  IntSet RelaxNonLinear(const PrimExpr& e) const;

  std::vector<std::pair<const tir::VarNode*, IntSet>> relax_;
};

/*!
 * \brief The hull of index `e` when each variable of `relax` ranges over its Range, or
 * `fallback` when an end cannot be bounded (see AffineRelaxer).
 */
Range RelaxIndex(const PrimExpr& e, const std::vector<std::pair<tir::Var, Range>>& relax,
                 const Range& fallback);

/*!
 * \brief The region `[min, min + extent)` covers when the variables of `dom` range over their
 * sets, simplified by `analyzer` (IntSet evaluation); nullopt when an end is unbounded.
 */
std::optional<Range> RelaxRange(Analyzer* analyzer, const PrimExpr& min, const PrimExpr& extent,
                                const std::unordered_map<const tir::VarNode*, IntSet>& dom);

}  // namespace arith
}  // namespace minitvm

#endif  // MINITVM_ARITH_LINEAR_FORM_H_
