// clang-format off
/*!
 * \file minitvm/tir/transform/transform.h
 * \brief The TIR lowering passes (stage 5): each turns scheduled TensorIR (blocks, N-d
 * buffers, loop kinds) one step closer to what a code generator consumes (plain loops,
 * allocations, 1-d buffers, vector expressions, the packed calling convention).
 *
 * Every pass is registered as the global "tir.transform.<Name>" (a function returning the
 * Pass), so Python calls `minitvm.tir.transform.FlattenBuffer()` like TVM. The build driver
 * (`driver::Build`, `minitvm.build(mod, target, pipeline="default")`) runs the default
 * pipeline before it hands the module to "target.build.llvm". The default pipeline, in order:
 *
 * | pass                                  | what it does                                            |
 * |---------------------------------------|---------------------------------------------------------|
 * | LowerInitBlock                        | a block's `init` becomes `if (first reduction iteration) init` |
 * | PlanAndUpdateBufferAllocationLocation | move each allocation to the lowest loop/block covering its uses |
 * | ConvertBlocksToOpaque                 | substitute block iterators by their bindings            |
 * | CompactBufferAllocation               | shrink allocations to the region actually used          |
 * | LowerOpaqueBlock                      | blocks become allocations + their body; predicates become `if` |
 * | FlattenBuffer                         | multi-dimensional indices become one flat index         |
 * | Simplify                              | arithmetic simplification of every expression           |
 * | VectorizeLoop                         | vectorized loops become Ramp/Broadcast vector IR (or serial loops) |
 * | UnrollLoop                            | unrolled loops (constant extent) are copied out         |
 * | Simplify                              | (again, on the unrolled and vectorized code)            |
 * | RemoveNoOp                            | drops empty statements and loops                        |
 * | LowerIntrin                           | composite intrinsics (sigmoid, rsqrt, ...) become primitive ones |
 * | MakePackedAPI                         | the packed calling convention with named argument checks |
 */
// clang-format on
#ifndef MINITVM_TIR_TRANSFORM_TRANSFORM_H_
#define MINITVM_TIR_TRANSFORM_TRANSFORM_H_

#include <functional>
#include <string>

#include "minitvm/ir/transform.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace tir {
namespace transform {

using minitvm::transform::Pass;
using minitvm::transform::PassContext;

/*! \brief A pass applied to each PrimFunc of a module (other functions are kept). */
Pass CreatePrimFuncPass(std::function<PrimFunc(PrimFunc, IRModule, PassContext)> func,
                        int64_t opt_level, String name, Array<String> required = {});

/*!
 * \brief With "tir.instrument_bound_checkers" set: assert every buffer index is inside the
 * buffer's shape and every integer divisor is non-zero (and no INT_MIN / -1), naming the buffer.
 */
Pass InstrumentBoundCheckers();
/*! \brief A block's `init` becomes `if (first iteration of every reduction iterator) init`. */
Pass LowerInitBlock();
/*! \brief Move each allocation to the lowest loop or block that covers all of its uses. */
Pass PlanAndUpdateBufferAllocationLocation();
/*! \brief Substitute block iterators by their bindings: blocks keep no iterators of their own. */
Pass ConvertBlocksToOpaque();
/*! \brief Shrink each allocated buffer to the region its accesses touch, shifted to start at 0. */
Pass CompactBufferAllocation();
/*! \brief Blocks become their allocations and body; block predicates become `if`. */
Pass LowerOpaqueBlock();
/*! \brief Multi-dimensional buffer indices become one flat (row-major) index. */
Pass FlattenBuffer();
/*! \brief Simplify every expression with the arithmetic analyzer (loop ranges known). */
Pass Simplify();
/*! \brief Vectorized loops become Ramp/Broadcast vector expressions (or serial loops). */
Pass VectorizeLoop();
/*! \brief Unrolled loops with a constant extent are copied out, one body per iteration. */
Pass UnrollLoop();
/*! \brief Drop statements that do nothing: empty sequences, loops with no-op bodies. */
Pass RemoveNoOp();
/*! \brief Composite intrinsics (sigmoid, rsqrt, ...) become primitive ones. */
Pass LowerIntrin();
/*! \brief The packed calling convention: unpack and check named arguments, then compute. */
Pass MakePackedAPI();

/*! \brief The passes `build` runs before code generation, in order. */
Array<Pass> GetDefaultTIRPipelinePasses();
/*! \brief The default pipeline as one Sequential named "tir.default_pipeline". */
Pass GetDefaultTIRPipeline();

/*! \brief Attribute set by MakePackedAPI: the function uses the packed calling convention. */
constexpr const char* kPackedAPIAttr = "tir.packed_api";
/*! \brief Attribute: the function has been through the lowering pipeline. */
constexpr const char* kIsLoweredAttr = "tir.is_lowered";

}  // namespace transform

/*!
 * \brief Field codes of the intrinsic "tir.tvm_struct_get"(handle, index, field) that
 * MakePackedAPI uses to read a DLTensor or a packed argument (values as TVM numbers them).
 */
enum StructFieldKind : int {
  kArrAddr = 0,
  kArrData = 1,
  kArrShape = 2,
  kArrStrides = 3,
  kArrNDim = 4,
  kArrTypeCode = 5,
  kArrTypeBits = 6,
  kArrTypeLanes = 7,
  kArrByteOffset = 8,
  kArrDeviceId = 9,
  kArrDeviceType = 10,
  /*! \brief The payload of packed argument `index` (an int64, double or pointer). */
  kPackedArgValue = 12,
  /*! \brief The type code of packed argument `index` (int32). */
  kPackedArgTypeCode = 13,
};

/*!
 * \brief Name of the intrinsic an assert message uses to format run-time values:
 * `Call("tir.minitvm.format_error", [StringImm(fmt), v0, v1, ...])`, where the format text
 * holds `{}` for an integer value, `{type}` for a packed type code's name, `{dtype}` for a
 * dtype from three values (code, bits, lanes) and `{was}` for "was" or "were", agreeing with
 * the last `{}` value.
 */
constexpr const char* kFormatErrorOp = "tir.minitvm.format_error";

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_TRANSFORM_TRANSFORM_H_
