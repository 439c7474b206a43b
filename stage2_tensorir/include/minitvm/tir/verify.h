/*!
 * \file minitvm/tir/verify.h
 * \brief The well-formedness verifier of TensorIR (stage 2): checks the rules every pass and
 * schedule primitive must preserve, with messages that name the variable, buffer or block.
 */
#ifndef MINITVM_TIR_VERIFY_H_
#define MINITVM_TIR_VERIFY_H_

#include "minitvm/tir/function.h"

namespace minitvm {
namespace tir {

/*!
 * \brief Check that `func` is well formed:
 *  - every variable is defined before it is used and only used inside its scope (parameters,
 *    variables of buffer_map shapes, loop variables, let variables, block iterators,
 *    allocations);
 *  - no variable is defined again while it is still in scope;
 *  - every buffer that is loaded, stored or named in a region is declared (buffer_map,
 *    alloc_buffers, match_buffers, DeclBuffer) or its data variable is in scope;
 *  - a BlockRealize gives one value per block iterator;
 *  - loads and stores have one index per buffer dimension, and a store's value has the
 *    buffer's element type;
 *  - inside a block with iterators, no loop variable of an enclosing scope is used: loop
 *    variables reach a block only through its iter_values (TVM's rule; opaque blocks, which
 *    have no iterators, are exempt).
 * \param assert_mode Throw ValueError naming the first problem (true), or return false (false).
 * \return true when well formed.
 */
bool VerifyWellFormed(const PrimFunc& func, bool assert_mode = true);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_VERIFY_H_
