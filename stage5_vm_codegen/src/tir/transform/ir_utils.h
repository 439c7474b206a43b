/*!
 * \file ir_utils.h
 * \brief Small helpers shared by the stage-5 TIR passes and the code generator: constant
 * tests, no-op detection, affine (linear) forms of index expressions, and the variables a
 * statement uses without defining them.
 */
#ifndef MINITVM_STAGE5_TIR_TRANSFORM_IR_UTILS_H_
#define MINITVM_STAGE5_TIR_TRANSFORM_IR_UTILS_H_

#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {

/*! \brief True for an integer/bool immediate that is non-zero. */
inline bool IsConstTrue(const PrimExpr& e) {
  auto v = AsConstInt(e);
  return v && *v != 0;
}
/*! \brief True for an integer/bool immediate that is zero. */
inline bool IsConstFalse(const PrimExpr& e) {
  auto v = AsConstInt(e);
  return v && *v == 0;
}
/*! \brief True for a statement that does nothing (Evaluate of a constant, empty sequence). */
bool IsNoOp(const Stmt& s);
/*! \brief The canonical no-op statement: Evaluate(0). */
inline Stmt MakeNoOp() { return Evaluate(PrimExpr(0)); }

/*!
 * \brief An affine form `Σ coeff·var + constant` of an integer expression, with the variables
 * in first-seen order. Built from +, -, * by a constant, casts between int types; anything
 * else makes the form invalid.
 */
struct LinearForm {
  std::vector<std::pair<Var, int64_t>> terms;
  int64_t constant = 0;
  /*! \brief Coefficient of `v` (0 when absent). */
  int64_t Coeff(const Var& v) const;
  void Add(const Var& v, int64_t c);
  LinearForm operator-(const LinearForm& other) const;
  /*! \brief The form without the terms of `vars`. */
  LinearForm Without(const std::unordered_set<const VarNode*>& vars) const;
  /*! \brief True when both have the same terms and constant. */
  bool Equals(const LinearForm& other) const;
  /*! \brief Rebuild an expression of `dtype` (terms in order, then the constant). */
  PrimExpr ToExpr(DataType dtype) const;
};
/*! \brief The linear form of `e`, or nullopt when it is not affine. */
std::optional<LinearForm> ToLinearForm(const PrimExpr& e);

/*! \brief Variables used by `stmt` and not defined inside it, in first-use order. */
std::vector<Var> UndefinedVars(const Stmt& stmt, const std::vector<Var>& defined = {});

/*! \brief True when `e` uses `v`. */
bool UsesVar(const PrimExpr& e, const VarNode* v);
bool UsesVar(const Stmt& s, const VarNode* v);

/*! \brief The product of a buffer's shape. */
PrimExpr ShapeProduct(const Array<PrimExpr>& shape);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_STAGE5_TIR_TRANSFORM_IR_UTILS_H_
