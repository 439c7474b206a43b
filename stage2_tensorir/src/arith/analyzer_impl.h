/*!
 * \file analyzer_impl.h
 * \brief The state shared by the parts of the analyzer (stage 2, private to src/arith): the
 * bound variables and the entry points of the bound analysis, the simplifier and the
 * interval-set evaluator, each implemented in its own file.
 */
#ifndef MINITVM_SRC_ARITH_ANALYZER_IMPL_H_
#define MINITVM_SRC_ARITH_ANALYZER_IMPL_H_

#include <unordered_map>
#include <vector>

#include "minitvm/arith/analyzer.h"

namespace minitvm {
namespace arith {

/*! \brief What the analyzer knows about one variable. */
struct VarInfo {
  Var var;              ///< keeps the key alive
  Range range;          ///< defined when bound to a range
  PrimExpr value;       ///< defined when bound to an expression (substituted)
  ConstIntBound bound;  ///< constant bounds implied by range or value
};

/*!
 * \brief The analyzer's memory and the recursion guards of its parts. `scoped_bounds` holds
 * bounds of variables that are only known inside a sub-expression (a Let's variable).
 */
struct AnalyzerContext {
  std::unordered_map<const tir::VarNode*, VarInfo> vars;
  std::unordered_map<const tir::VarNode*, ConstIntBound> scoped_bounds;
  /*! \brief > 0 while proving with symbolic bounds (which itself simplifies: no recursion). */
  int symbolic_depth = 0;
};

/*! \brief Constant bounds of e (const_int_bound.cc). */
ConstIntBound BoundOf(AnalyzerContext* ctx, const PrimExpr& e);
/*! \brief The canonical simplifier (canonical_simplify.cc). */
PrimExpr SimplifyExpr(AnalyzerContext* ctx, const PrimExpr& e);
/*! \brief Interval set of e over dom (int_set.cc); variables not in dom are single points. */
IntSet EvalIntSet(AnalyzerContext* ctx, const PrimExpr& e,
                  const std::unordered_map<const tir::VarNode*, IntSet>& dom);
/*!
 * \brief The analyzer's bound ranges as a dom map for EvalIntSet. With `skip_range_vars`,
 * variables that appear in other variables' ranges are left out (they stay symbolic).
 */
std::unordered_map<const tir::VarNode*, IntSet> BoundRangesAsDom(AnalyzerContext* ctx,
                                                                 bool skip_range_vars = false);

/*! \brief Saturating interval arithmetic on int64 with the kNegInf / kPosInf sentinels. */
int64_t BoundAdd(int64_t a, int64_t b);
int64_t BoundMul(int64_t a, int64_t b);
/*! \brief The range of values of an integer dtype. */
ConstIntBound DTypeBound(DataType t);
/*! \brief Floor division and modulo on int64 (b != 0). */
int64_t FloorDivInt(int64_t a, int64_t b);
int64_t FloorModInt(int64_t a, int64_t b);

}  // namespace arith
}  // namespace minitvm

#endif  // MINITVM_SRC_ARITH_ANALYZER_IMPL_H_
