/*!
 * \file minitvm/driver/build.h
 * \brief The build driver (stage 2): `Build(module, target, pipeline)` turns an IRModule of
 * PrimFuncs into a runnable runtime Module in two visible steps, as TVM's `tvm.build` does:
 *
 *   1. lower: run the TIR pipeline (`pipeline`: a Pass, a pipeline name, or none);
 *   2. generate: hand the lowered module to the global function "target.build.<kind>".
 *
 * The pipeline named "default" is the target kind's own: the Pass that the global function
 * "target.tir_pipeline.<kind>" returns (stage 5 registers the default TIR pipeline for "llvm"),
 * or no pass at all for a kind without one ("ref": the interpreter runs TensorIR as it is).
 * Stage 2 registers "target.build.ref" (the TIR interpreter); stage 5 registers
 * "target.build.llvm", which expects a lowered module.
 */
#ifndef MINITVM_DRIVER_BUILD_H_
#define MINITVM_DRIVER_BUILD_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/ir/transform.h"
#include "minitvm/runtime/module.h"
#include "minitvm/target/target.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace driver {

/*!
 * \brief The TIR pipeline `pipeline` names for `target`: a Pass is itself, the string
 * "default" the target kind's default pipeline, null (None) no pipeline. An undefined result
 * means "run nothing". ValueError for another name, TypeError for another kind of value.
 */
transform::Pass GetTIRPipeline(const runtime::Any& pipeline, const target::Target& target);

/*!
 * \brief Lower `mod` with `pipeline` (see GetTIRPipeline) and build it for `target`.
 * ValueError when no builder is registered for the target's kind ("target llvm is not
 * available: minitvm was built without stage 5").
 */
runtime::Module Build(const IRModule& mod, const target::Target& target,
                      const runtime::Any& pipeline = runtime::Any(String("default")));
/*!
 * \brief Build one PrimFunc; it is named by its "global_symbol" attribute, else by `name`.
 */
runtime::Module Build(const tir::PrimFunc& func, const target::Target& target,
                      const std::string& name = "main",
                      const runtime::Any& pipeline = runtime::Any(String("default")));

}  // namespace driver
}  // namespace minitvm

#endif  // MINITVM_DRIVER_BUILD_H_
