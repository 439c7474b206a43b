/*!
 * \file ir_utils.h
 * \brief Small helpers shared by the stage-5 TIR passes and the code generator: constant
 * tests, no-op detection and the variables a statement uses without defining them (affine
 * forms come from minitvm/arith/linear_form.h).
 */
#ifndef MINITVM_STAGE5_TIR_TRANSFORM_IR_UTILS_H_
#define MINITVM_STAGE5_TIR_TRANSFORM_IR_UTILS_H_

#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/arith/linear_form.h"
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

/*! \brief Affine forms of index expressions: the shared arith API (minitvm/arith/linear_form.h). */
using arith::LinearForm;
using arith::ToLinearForm;

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
