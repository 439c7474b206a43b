/*!
 * \file minitvm/tir/block_access.h
 * \brief Detecting the buffer regions a block reads and writes (stage 2) — what
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
#ifndef MINITVM_TIR_BLOCK_ACCESS_H_
#define MINITVM_TIR_BLOCK_ACCESS_H_

#include <utility>

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

/*!
 * \brief The hull of index expression `e` when each variable in `relax` ranges over its
 * Range: [min, min + extent). Exposed for the schedule helpers; falls back to `fallback` when
 * the expression is not one the relaxation understands (affine sums, multiplication by a
 * constant, floordiv/floormod by a positive constant, min/max).
 */
Range RelaxIndex(const PrimExpr& e, const std::vector<std::pair<Var, Range>>& relax,
                 const Range& fallback);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_BLOCK_ACCESS_H_
