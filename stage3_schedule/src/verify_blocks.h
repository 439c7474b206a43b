/*!
 * \file verify_blocks.h
 * \brief Checks a Schedule makes when it is created (stage 3): every block's declared
 * `T.reads`/`T.writes` cover what its body accesses, and its iterator kinds agree with the
 * body. Schedule primitives (compute_at, reverse_compute_at, cache_read, rfactor, parallel, ...)
 * trust both, so a block that breaks them would be scheduled into wrong results.
 */
#ifndef MINITVM_STAGE3_SRC_VERIFY_BLOCKS_H_
#define MINITVM_STAGE3_SRC_VERIFY_BLOCKS_H_

#include "minitvm/ir/module.h"

namespace minitvm {
namespace tir {

/*!
 * \brief Throw a ScheduleError naming the rule when a block of a PrimFunc of `mod` breaks one:
 *  - RegionNotCoveredError: the body provably accesses a buffer element outside the declared
 *    `T.reads`/`T.writes` (or a buffer they do not list);
 *  - ReductionIterInWriteIndexError: a reduction iterator indexes a buffer the block writes;
 *  - SpatialIterNotInWriteIndexError: a spatial iterator (extent > 1) indexes no buffer the
 *    block writes (every instance would write the same elements).
 * Only what can be proven is refused: a region the arithmetic cannot bound is accepted.
 */
void VerifyBlocksForSchedule(const IRModule& mod);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_STAGE3_SRC_VERIFY_BLOCKS_H_
