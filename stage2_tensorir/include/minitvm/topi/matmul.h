/*!
 * \file minitvm/topi/matmul.h
 * \brief Matrix multiplication with NumPy semantics (stage 2): `matmul(a, b)` for 1-D and
 * 2-D operands and N-D operands whose batch dimensions broadcast, with optional transposes of
 * the last two axes — what Relax's `R.matmul` legalizes to.
 */
#ifndef MINITVM_TOPI_MATMUL_H_
#define MINITVM_TOPI_MATMUL_H_

#include <string>

#include "minitvm/te/operation.h"
#include "minitvm/topi/tags.h"

namespace minitvm {
namespace topi {

using te::Tensor;

/*!
 * \brief a @ b. A 1-D a is a row (its axis dropped from the result), a 1-D b a column; batch
 * dimensions broadcast. ValueError when the contracted extents differ.
 */
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false,
              DataType out_dtype = DataType::Void(), std::string name = "T_matmul");

}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_TOPI_MATMUL_H_
