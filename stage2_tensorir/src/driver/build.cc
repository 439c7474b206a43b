/*!
 * \file build.cc
 * \brief The build driver (stage 2): run the TIR pipeline, then dispatch the lowered module to
 * "target.build.<kind>"; and the "ref" builder that wraps the TIR interpreter.
 */
#include "minitvm/driver/build.h"

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace driver {

using target::Target;

transform::Pass GetTIRPipeline(const runtime::Any& pipeline, const Target& target) {
  if (pipeline.is_null()) return transform::Pass();
  if (pipeline.is_string()) {
    std::string name = pipeline.cast<std::string>();
    if (name != "default") {
      MINITVM_THROW(ValueError) << "build: unknown TIR pipeline \"" << name
                                << "\" (known: \"default\"; or pass a Pass, or None to skip "
                                   "lowering)";
    }
    auto get = runtime::Registry::Get("target.tir_pipeline." + target->kind->name.str());
    return get ? (*get)().cast<transform::Pass>() : transform::Pass();
  }
  if (auto* p = pipeline.as<transform::PassNode>()) return runtime::GetRef<transform::Pass>(p);
  MINITVM_THROW(TypeError) << "build: pipeline must be a Pass, a pipeline name or None, not "
                           << pipeline.type_name();
}

runtime::Module Build(const IRModule& mod, const Target& target, const runtime::Any& pipeline) {
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
  // T.realize (TVM's BufferRealize, kept as AttrStmt "realize_scope") is a pre-schedule form
  // that no minitvm pass lowers (TVM's StorageFlatten did): refuse it by name.
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    auto* pf = f.as<tir::PrimFuncNode>();
    if (!pf) continue;
    bool realize = false;
    tir::PostOrderVisit(pf->body, [&](const ObjectRef& n) {
      if (auto* a = n.as<tir::AttrStmtNode>()) realize = realize || a->attr_key == "realize_scope";
    });
    if (realize) {
      MINITVM_THROW(ValueError) << "build: function " << gv->name_hint
                                << " holds T.realize (a BufferRealize, TVM's pre-schedule form), "
                                   "which minitvm does not lower; declare the buffer with "
                                   "T.alloc_buffer or T.decl_buffer instead";
    }
  }
  // Step 1: lower with the TIR pipeline; step 2: generate code for the lowered module.
  transform::Pass lower = GetTIRPipeline(pipeline, target);
  IRModule lowered = lower.defined() ? lower(mod) : mod;
  return (*builder)(lowered, target).cast<runtime::Module>();
}

runtime::Module Build(const tir::PrimFunc& func, const Target& target, const std::string& name,
                      const runtime::Any& pipeline) {
  std::string fname = func->GetAttr<std::string>("global_symbol").value_or(name);
  IRModule mod = IRModule::FromNamed({{fname, func}});
  return Build(mod, target, pipeline);
}

MINITVM_REGISTER_GLOBAL("target.build.ref").set_body_typed([](IRModule mod, Target target) {
  tir::InterpreterOptions options;
  options.check_uninitialized = target->GetAttr<bool>("check-uninitialized").value_or(false);
  return tir::InterpreterModuleCreate(mod, options);
});

// driver.build(mod_or_func, target, name[, pipeline]): pipeline defaults to "default".
MINITVM_REGISTER_GLOBAL("driver.build").set_body([](runtime::PackedArgs args, runtime::Any* rv) {
  if (args.size() < 3 || args.size() > 4) {
    MINITVM_THROW(TypeError) << "driver.build expects (mod, target, name[, pipeline]) but got "
                             << args.size() << " arguments";
  }
  ObjectRef mod_or_func = args[0].cast<ObjectRef>();
  Any target = args[1];
  std::string name = args[2].cast<std::string>();
  Any pipeline = args.size() > 3 ? Any(args[3]) : Any(String("default"));
  Target t = target.is_string() ? Target(target.cast<std::string>()) : target.cast<Target>();
  if (auto* f = mod_or_func.as<tir::PrimFuncNode>()) {
    *rv = Build(runtime::GetRef<tir::PrimFunc>(f), t, name, pipeline);
    return;
  }
  if (auto* m = mod_or_func.as<IRModuleNode>()) {
    *rv = Build(runtime::GetRef<IRModule>(m), t, pipeline);
    return;
  }
  MINITVM_THROW(TypeError) << "build: expected an IRModule or a PrimFunc but got "
                           << (mod_or_func.defined() ? mod_or_func->GetTypeKey()
                                                     : std::string("None"));
});
MINITVM_REGISTER_GLOBAL("driver.GetTIRPipeline").set_body_typed([](Any pipeline, Any target) {
  Target t = target.is_string() ? Target(target.cast<std::string>()) : target.cast<Target>();
  return GetTIRPipeline(pipeline, t);
});

}  // namespace driver
}  // namespace minitvm
