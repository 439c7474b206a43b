/*!
 * \file minitvm/tir/analysis/block_access.h
 * \brief Detecting the buffer regions a block reads and writes (stage 2, the `tir/analysis/`
 * layer above `arith/`: built on arith::AffineRelaxer and IntSet) — what
 * `T.reads(...)` / `T.writes(...)` hold. Used by `create_prim_func`, by the TVMScript parser
 * for blocks written without them, and by schedule primitives that rebuild blocks.
 *
 * Each load and store inside the block body (and init) contributes the range of its indices;
 * variables of loops *inside* the block are relaxed over their whole range, block iterators
 * and outer variables stay symbolic. Accesses of one buffer are merged into their hull.
 * Nested blocks contribute their declared regions (with their iterators replaced by their
 * bindings). Buffers the block (or a nested block) allocates are local and not listed; a
 * `match_buffer` access is reported on its source. As in TVM, a block with an `init` does not
 * list the buffers it writes among its reads (the reduction's own update read).
 */
#ifndef MINITVM_TIR_ANALYSIS_BLOCK_ACCESS_H_
#define MINITVM_TIR_ANALYSIS_BLOCK_ACCESS_H_

#include <utility>
#include <vector>

#include "minitvm/arith/linear_form.h"
#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace tir {

/*! \brief The regions a block reads and writes, in order of first access. */
struct BlockAccessRegion {
  Array<BufferRegion> reads;
  Array<BufferRegion> writes;
};

/*! \brief Detect the read and write regions of `block` (its declared ones are ignored). */
BlockAccessRegion GetBlockAccessRegion(const Block& block);

/*! \brief The hull of an index over relaxed variables (now arith::RelaxIndex). */
using arith::RelaxIndex;

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_ANALYSIS_BLOCK_ACCESS_H_
