/*!
 * \file minitvm/driver/build.h
 * \brief The build driver (stage 2): `Build(module, target)` turns an IRModule of PrimFuncs
 * into a runnable runtime Module by dispatching to the global function
 * "target.build.<kind>". Stage 2 registers "target.build.ref" (the TIR interpreter); stage 5
 * registers "target.build.llvm" and "target.build.cuda".
 */
#ifndef MINITVM_DRIVER_BUILD_H_
#define MINITVM_DRIVER_BUILD_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/module.h"
#include "minitvm/target/target.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace driver {

/*!
 * \brief Build `mod` for `target`. ValueError when no builder is registered for the target's
 * kind ("target llvm is not available: minitvm was built without stage 5").
 */
runtime::Module Build(const IRModule& mod, const target::Target& target);
/*!
 * \brief Build one PrimFunc; it is named by its "global_symbol" attribute, else by `name`.
 */
runtime::Module Build(const tir::PrimFunc& func, const target::Target& target,
                      const std::string& name = "main");

}  // namespace driver
}  // namespace minitvm

#endif  // MINITVM_DRIVER_BUILD_H_
