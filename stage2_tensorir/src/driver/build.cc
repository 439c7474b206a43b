/*!
 * \file build.cc
 * \brief The build driver (stage 2): dispatch to "target.build.<kind>", and the "ref"
 * builder that wraps the TIR interpreter.
 */
#include "minitvm/driver/build.h"

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/interpreter.h"

namespace minitvm {
namespace driver {

using target::Target;

runtime::Module Build(const IRModule& mod, const Target& target) {
  if (!target.defined()) MINITVM_THROW(ValueError) << "build: undefined target";
  std::string kind = target->kind->name.str();
  auto builder = runtime::Registry::Get("target.build." + kind);
  if (!builder) {
    std::string hint = kind == "cuda" || kind == "llvm" || kind == "c"
                           ? "minitvm was built without stage 5"
                           : "no builder is registered for it";
    MINITVM_THROW(ValueError) << "target " << kind << " is not available: " << hint
                              << " (target=\"ref\" runs the TIR interpreter)";
  }
  return (*builder)(mod, target).cast<runtime::Module>();
}

runtime::Module Build(const tir::PrimFunc& func, const Target& target, const std::string& name) {
  std::string fname = func->GetAttr<std::string>("global_symbol").value_or(name);
  IRModule mod = IRModule::FromNamed({{fname, func}});
  return Build(mod, target);
}

MINITVM_REGISTER_GLOBAL("target.build.ref").set_body_typed([](IRModule mod, Target target) {
  tir::InterpreterOptions options;
  options.check_uninitialized = target->GetAttr<bool>("check-uninitialized").value_or(false);
  return tir::InterpreterModuleCreate(mod, options);
});

MINITVM_REGISTER_GLOBAL("driver.build")
    .set_body_typed([](ObjectRef mod_or_func, Any target, std::string name) {
      Target t = target.is_string() ? Target(target.cast<std::string>()) : target.cast<Target>();
      if (auto* f = mod_or_func.as<tir::PrimFuncNode>()) {
        return Build(runtime::GetRef<tir::PrimFunc>(f), t, name);
      }
      if (auto* m = mod_or_func.as<IRModuleNode>()) {
        return Build(runtime::GetRef<IRModule>(m), t);
      }
      MINITVM_THROW(TypeError) << "build: expected an IRModule or a PrimFunc but got "
                               << (mod_or_func.defined() ? mod_or_func->GetTypeKey()
                                                         : std::string("None"));
    });

}  // namespace driver
}  // namespace minitvm
