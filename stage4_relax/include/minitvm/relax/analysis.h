/*!
 * \file minitvm/relax/analysis.h
 * \brief Analyses of Relax programs (stage 4): the variables an expression uses and defines,
 * and the well-formedness check every pass result should pass (`relax.analysis.well_formed`).
 *
 * Well-formedness rules (each violation message names the function, the variable and the
 * rule):
 *   - DataflowVars are bound only inside dataflow blocks and used only inside the block that
 *     binds them;
 *   - no impure call (an op whose `FPurity` is false, or a call of an impure function) inside a
 *     dataflow block;
 *   - every variable is defined once (parameter or binding), and before it is used;
 *   - every variable and every bound value carries struct info, and a binding's variable
 *     info is a base of (`IsBaseOf`) its value's info (`check_struct_info`);
 *   - `R.call_tir(f, args, out_sinfo)`: `f` is a PrimFunc of the module whose last buffers match
 *     the outputs in number, shape and dtype;
 *   - every GlobalVar refers to a function of the module; a function's body is a SeqExpr.
 */
#ifndef MINITVM_RELAX_ANALYSIS_H_
#define MINITVM_RELAX_ANALYSIS_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/relax/expr.h"

namespace minitvm {
namespace relax {

/*! \brief The variables `expr` uses but does not define, in order of first use. */
Array<Var> FreeVars(const Expr& expr);
/*! \brief The variables `expr` defines (parameters, binding targets), in order. */
Array<Var> BoundVars(const Expr& expr);
/*! \brief Every variable `expr` defines or uses, in order of first appearance. */
Array<Var> AllVars(const Expr& expr);

/*! \brief Every well-formedness violation of `mod` (empty when well formed), one line each. */
Array<String> WellFormedViolations(const IRModule& mod, bool check_struct_info = true);
/*! \brief The violations of one function (GlobalVars are then not checked against a module). */
Array<String> WellFormedViolations(const Function& func, bool check_struct_info = true);
/*! \brief Whether `mod` is well formed (see the file comment for the rules). */
bool WellFormed(const IRModule& mod, bool check_struct_info = true);
/*! \brief Whether one function is well formed. */
bool WellFormed(const Function& func, bool check_struct_info = true);

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_ANALYSIS_H_
