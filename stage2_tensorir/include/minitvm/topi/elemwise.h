/*!
 * \file minitvm/topi/elemwise.h
 * \brief Elementwise (unary) operators and tensor creation (stage 2): math functions, casts,
 * clip, and full/zeros/ones/arange. Each is one te.compute named `T_<op>`.
 */
#ifndef MINITVM_TOPI_ELEMWISE_H_
#define MINITVM_TOPI_ELEMWISE_H_

#include <string>

#include "minitvm/te/operation.h"
#include "minitvm/topi/tags.h"

namespace minitvm {
namespace topi {

using te::Tensor;

#define MINITVM_TOPI_DECLARE_UNARY(Name) \
  Tensor Name(const Tensor& x, std::string name = "T_" #Name, std::string tag = kElementWise);

/*! \brief -x */
MINITVM_TOPI_DECLARE_UNARY(negative)
/*! \brief |x| (ints and floats). */
MINITVM_TOPI_DECLARE_UNARY(abs)
/*! \brief Float math functions. */
MINITVM_TOPI_DECLARE_UNARY(exp)
MINITVM_TOPI_DECLARE_UNARY(log)
MINITVM_TOPI_DECLARE_UNARY(sqrt)
MINITVM_TOPI_DECLARE_UNARY(rsqrt)
MINITVM_TOPI_DECLARE_UNARY(tanh)
MINITVM_TOPI_DECLARE_UNARY(sigmoid)
MINITVM_TOPI_DECLARE_UNARY(erf)
MINITVM_TOPI_DECLARE_UNARY(floor)
MINITVM_TOPI_DECLARE_UNARY(ceil)
MINITVM_TOPI_DECLARE_UNARY(round)
/*! \brief sign(x): -1, 0 or 1 in x's dtype. */
MINITVM_TOPI_DECLARE_UNARY(sign)
/*! \brief not x, for bools. */
MINITVM_TOPI_DECLARE_UNARY(logical_not)
/*! \brief A copy. */
MINITVM_TOPI_DECLARE_UNARY(identity)
#undef MINITVM_TOPI_DECLARE_UNARY

/*! \brief x converted to `dtype` (C semantics: float → int truncates). */
Tensor cast(const Tensor& x, DataType dtype, std::string name = "T_cast",
            std::string tag = kElementWise);
/*! \brief min(max(x, a_min), a_max). */
Tensor clip(const Tensor& x, PrimExpr a_min, PrimExpr a_max, std::string name = "T_clip",
            std::string tag = kElementWise);

/*! \brief A tensor of `shape` filled with `value`. */
Tensor full(const Array<PrimExpr>& shape, DataType dtype, PrimExpr value,
            std::string name = "T_full", std::string tag = kElementWise);
/*! \brief A tensor shaped like x filled with `value`. */
Tensor full_like(const Tensor& x, PrimExpr value, std::string name = "T_full_like",
                 std::string tag = kElementWise);
Tensor zeros(const Array<PrimExpr>& shape, DataType dtype = DataType::Float(32),
             std::string name = "T_zeros");
Tensor ones(const Array<PrimExpr>& shape, DataType dtype = DataType::Float(32),
            std::string name = "T_ones");
/*!
 * \brief start, start + step, ... below stop (above for a negative step), like numpy.arange;
 * the length is ceil((stop - start) / step) and must be a constant.
 */
Tensor arange(double start, double stop, double step = 1.0, DataType dtype = DataType::Float(32),
              std::string name = "T_arange");

}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_TOPI_ELEMWISE_H_
