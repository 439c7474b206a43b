/*!
 * \file minitvm/relax/transform.h
 * \brief The Relax passes (stage 4), TVM's `relax.transform.*`: each function returns a
 * `transform::Pass` (ir/transform.h) over the whole module, reachable from Python as the global
 * "relax.transform.<Name>".
 */
#ifndef MINITVM_RELAX_TRANSFORM_H_
#define MINITVM_RELAX_TRANSFORM_H_

#include <string>

#include "minitvm/ir/transform.h"
#include "minitvm/relax/expr.h"

namespace minitvm {
namespace relax {
namespace transform {

using minitvm::transform::Pass;
using minitvm::transform::PassContext;

/*!
 * \brief Bind parameters of function `func_name` to constant arrays (the weights): each bound
 * parameter is replaced by a `Constant` and removed from the signature. Keys are parameter
 * names (String) or the parameter `Var`s themselves. Symbolic shape variables of the function
 * take the arrays' dimensions everywhere (struct info, shapes). ValueError when a name is not
 * a parameter (listing the parameters), when an array's shape or dtype contradicts the
 * parameter's annotation (naming the parameter and both), or when the module has no function
 * `func_name`.
 */
Pass BindParams(String func_name, Map<Any, NDArray> params);

/*! \brief BindParams on one function (what the pass applies); `func_name` is for messages. */
Function BindParamsToFunction(const Function& func, const std::string& func_name,
                              const Map<Any, NDArray>& params);

}  // namespace transform
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_TRANSFORM_H_
