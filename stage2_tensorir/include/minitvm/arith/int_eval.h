/*!
 * \file minitvm/arith/int_eval.h
 * \brief A tiny evaluator of integer (and bool) TensorIR expressions for given variable values
 * (stage 2). The property tests of the simplifier check each rewrite with it: the simplified
 * expression must evaluate to the same value as the original.
 */
#ifndef MINITVM_ARITH_INT_EVAL_H_
#define MINITVM_ARITH_INT_EVAL_H_

#include <cstdint>
#include <unordered_map>

#include "minitvm/tir/expr.h"

namespace minitvm {
namespace arith {

/*! \brief Variable values for EvalIntExpr, keyed by the variable node. */
using IntEnv = std::unordered_map<const tir::VarNode*, int64_t>;

/*!
 * \brief The value of an integer or bool scalar expression, computed in int64 with TIR's
 * semantics (floordiv/floormod round toward -inf, Div/Mod truncate, casts wrap to the width).
 *
 * Handles immediates, variables, Cast, + - *, the four divisions, min/max, comparisons,
 * and/or/not, Select, Let and the if_then_else / likely intrinsics. ValueError for a variable
 * missing from `env`, a division by zero or any other node (loads, floats, vectors).
 */
int64_t EvalIntExpr(const PrimExpr& e, const IntEnv& env);

}  // namespace arith
}  // namespace minitvm

#endif  // MINITVM_ARITH_INT_EVAL_H_
