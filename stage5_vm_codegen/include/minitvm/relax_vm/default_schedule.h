/*!
 * \file minitvm/relax_vm/default_schedule.h
 * \brief The CPU default schedule (stage 5): what the "default" Relax pipeline applies, for llvm
 * targets, to the PrimFuncs LegalizeOps produced, so that compiled models are not plain scalar
 * loops. Spatial blocks get their outer loops fused and parallel and their innermost loop split by
 * the target's vector lanes and vectorized; reduction blocks (matmul, dense, conv2d, pooling) get
 * a register tile: the reduction moved outside a vectorized spatial inner loop, an accumulator
 * tile (`cache_write(..., "local")` + `decompose_reduction`) and parallel outer loops. Built only
 * with `tir::Schedule` primitives; whatever a primitive refuses is left as it was.
 */
#ifndef MINITVM_RELAX_VM_DEFAULT_SCHEDULE_H_
#define MINITVM_RELAX_VM_DEFAULT_SCHEDULE_H_

#include "minitvm/ir/module.h"
#include "minitvm/ir/transform.h"
#include "minitvm/target/target.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

/*!
 * \brief Schedule one PrimFunc for a CPU target (see the file comment). A function with attribute
 * "tir.is_scheduled", or with a loop that is not serial, is returned unchanged; the result has
 * "tir.is_scheduled" set when a primitive was applied. Never throws for a function the schedule
 * cannot handle: that part is left as it is.
 */
tir::PrimFunc DefaultCPUSchedulePrimFunc(const tir::PrimFunc& func, const target::Target& target);

/*!
 * \brief The pass "relax.transform.DefaultCPUSchedule"(target): DefaultCPUSchedulePrimFunc on
 * every PrimFunc of the module (Relax functions are left alone).
 */
transform::Pass DefaultCPUSchedule(const target::Target& target);

/*!
 * \brief The GPU default schedule (default_gpu_schedule.cc): each block's leading spatial loops
 * fused, split by the block size and bound to blockIdx.x / threadIdx.x; functions that already
 * bind a loop are kept.
 */
tir::PrimFunc DefaultGPUSchedulePrimFunc(const tir::PrimFunc& func, const target::Target& target);
/*! \brief DefaultGPUSchedulePrimFunc on every PrimFunc of a module. */
transform::Pass DefaultGPUSchedule(const target::Target& target);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_DEFAULT_SCHEDULE_H_
