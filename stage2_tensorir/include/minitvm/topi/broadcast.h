/*!
 * \file minitvm/topi/broadcast.h
 * \brief Binary operators with NumPy broadcasting (stage 2): arithmetic, comparisons, logic
 * and `broadcast_to`, built with te.compute. Each takes two tensors, or a tensor and a
 * scalar PrimExpr (either side).
 *
 * Broadcasting aligns shapes on the right; a dimension of extent 1 stretches to the other's
 * extent. Two different constant extents (neither 1) are a ValueError naming the operator and
 * both shapes; symbolic extents that differ are assumed equal (as TVM does).
 */
#ifndef MINITVM_TOPI_BROADCAST_H_
#define MINITVM_TOPI_BROADCAST_H_

#include <string>

#include "minitvm/te/operation.h"
#include "minitvm/topi/tags.h"

namespace minitvm {
namespace topi {

using te::Tensor;

/*! \brief The broadcast shape of two shapes; ValueError naming `op` when incompatible. */
Array<PrimExpr> BroadcastShape(const Array<PrimExpr>& a, const Array<PrimExpr>& b,
                               const std::string& op);

/*! \brief `x` repeated to `shape` by the broadcasting rule. */
Tensor broadcast_to(const Tensor& x, const Array<PrimExpr>& shape,
                    std::string name = "T_broadcast_to", std::string tag = kBroadcast);

#define MINITVM_TOPI_DECLARE_BINARY(Name)                                        \
  Tensor Name(const Tensor& a, const Tensor& b, std::string name = "T_" #Name,   \
              std::string tag = kBroadcast);                                     \
  Tensor Name(const Tensor& a, const PrimExpr& b, std::string name = "T_" #Name, \
              std::string tag = kElementWise);                                   \
  Tensor Name(const PrimExpr& a, const Tensor& b, std::string name = "T_" #Name, \
              std::string tag = kElementWise);

/*! \brief a + b */
MINITVM_TOPI_DECLARE_BINARY(add)
/*! \brief a - b */
MINITVM_TOPI_DECLARE_BINARY(subtract)
/*! \brief a * b */
MINITVM_TOPI_DECLARE_BINARY(multiply)
/*! \brief a / b: true division for floats, truncating for integers (TVM's topi.divide). */
MINITVM_TOPI_DECLARE_BINARY(divide)
/*! \brief floor(a / b) (NumPy's //). */
MINITVM_TOPI_DECLARE_BINARY(floor_divide)
/*! \brief Truncating remainder (C's %), TVM's topi.mod. */
MINITVM_TOPI_DECLARE_BINARY(mod)
/*! \brief Floor remainder, the sign of b (NumPy's %). */
MINITVM_TOPI_DECLARE_BINARY(floor_mod)
/*! \brief a ** b (float). */
MINITVM_TOPI_DECLARE_BINARY(power)
/*! \brief Elementwise max / min. */
MINITVM_TOPI_DECLARE_BINARY(maximum)
MINITVM_TOPI_DECLARE_BINARY(minimum)
/*! \brief Comparisons; the result is bool. */
MINITVM_TOPI_DECLARE_BINARY(equal)
MINITVM_TOPI_DECLARE_BINARY(not_equal)
MINITVM_TOPI_DECLARE_BINARY(less)
MINITVM_TOPI_DECLARE_BINARY(less_equal)
MINITVM_TOPI_DECLARE_BINARY(greater)
MINITVM_TOPI_DECLARE_BINARY(greater_equal)
/*! \brief Logic on bools. */
MINITVM_TOPI_DECLARE_BINARY(logical_and)
MINITVM_TOPI_DECLARE_BINARY(logical_or)
MINITVM_TOPI_DECLARE_BINARY(logical_xor)
#undef MINITVM_TOPI_DECLARE_BINARY

}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_TOPI_BROADCAST_H_
