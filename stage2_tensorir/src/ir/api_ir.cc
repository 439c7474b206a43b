/*!
 * \file api_ir.cc
 * \brief The shared-IR constructors and IRModule accessors Python reaches by name (stage 2):
 * "ir.IntImm", "ir.FloatImm", "ir.Range", "ir.GlobalVar", "ir.IRModule", ...
 */
#include "minitvm/ir/module.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"

namespace minitvm {

MINITVM_REGISTER_GLOBAL("ir.IntImm").set_body_typed([](DataType t, int64_t v) {
  return IntImm(t, v);
});
MINITVM_REGISTER_GLOBAL("ir.FloatImm").set_body_typed([](DataType t, double v) {
  return FloatImm(t, v);
});
MINITVM_REGISTER_GLOBAL("ir.Range").set_body_typed([](PrimExpr begin, Any end) {
  // Range(end) is [0, end); Range(begin, end) is [begin, end), as TVM's Python Range.
  if (end.is_null()) return Range(IntImm(begin.dtype(), 0), begin);
  PrimExpr e = end.cast<PrimExpr>();
  return Range(begin, e - begin);
});
MINITVM_REGISTER_GLOBAL("ir.RangeFromMinExtent").set_body_typed([](PrimExpr min, PrimExpr extent) {
  return Range(min, extent);
});
MINITVM_REGISTER_GLOBAL("ir.GlobalVar").set_body_typed([](std::string name) {
  return GlobalVar(name);
});

MINITVM_REGISTER_GLOBAL("ir.IRModule").set_body_typed([](Map<Any, Any> functions, Any attrs) {
  IRModule mod;
  for (const auto& [key, value] : functions.items()) {
    GlobalVar gv = key.is_string() ? GlobalVar(key.cast<std::string>()) : key.cast<GlobalVar>();
    mod.Add(gv, value.cast<BaseFunc>(), false);
  }
  if (!attrs.is_null()) mod.CopyOnWrite()->attrs = attrs.cast<Map<String, Any>>();
  return mod;
});
MINITVM_REGISTER_GLOBAL("ir.IRModuleLookup").set_body_typed([](IRModule mod, Any key) {
  if (key.is_string()) return mod->Lookup(key.cast<std::string>());
  return mod->Lookup(key.cast<GlobalVar>());
});
MINITVM_REGISTER_GLOBAL("ir.IRModuleContains").set_body_typed([](IRModule mod, Any key) {
  std::string name =
      key.is_string() ? key.cast<std::string>() : key.cast<GlobalVar>()->name_hint.str();
  return mod->ContainGlobalVar(name);
});
MINITVM_REGISTER_GLOBAL("ir.IRModuleGetGlobalVar")
    .set_body_typed([](IRModule mod, std::string name) {
      auto gv = mod->GetGlobalVar(name);
      if (!gv) {
        MINITVM_THROW(ValueError) << "the module has no function named \"" << name << "\"";
      }
      return *gv;
    });
MINITVM_REGISTER_GLOBAL("ir.IRModuleGetGlobalVars").set_body_typed([](IRModule mod) {
  Array<GlobalVar> out;
  for (const GlobalVar& gv : mod->GetGlobalVars()) out.push_back(gv);
  return out;
});
/*!
 * Python's `mod[name] = func` and `mod.update_func` change the module in place, as in TVM.
 * The node is shared with whoever holds it, which is the point: IRModule is the one mutable
 * container of the IR.
 */
MINITVM_REGISTER_GLOBAL("ir.IRModuleAddInPlace")
    .set_body_typed([](IRModule mod, Any key, BaseFunc func, bool allow_replace) {
      GlobalVar gv = key.is_string() ? GlobalVar(key.cast<std::string>()) : key.cast<GlobalVar>();
      auto* node = const_cast<IRModuleNode*>(mod.get());
      auto existing = node->GetGlobalVar(gv->name_hint);
      if (existing && !allow_replace) {
        MINITVM_THROW(ValueError) << "the module already has a function named \"" << gv->name_hint
                                  << "\"";
      }
      node->functions.Set(existing ? *existing : gv, func);
    });
MINITVM_REGISTER_GLOBAL("ir.IRModuleRemoveInPlace").set_body_typed([](IRModule mod, Any key) {
  std::string name =
      key.is_string() ? key.cast<std::string>() : key.cast<GlobalVar>()->name_hint.str();
  auto* node = const_cast<IRModuleNode*>(mod.get());
  if (auto gv = node->GetGlobalVar(name)) node->functions.erase(*gv);
});
MINITVM_REGISTER_GLOBAL("ir.IRModuleWithAttr")
    .set_body_typed([](IRModule mod, std::string key, Any value) {
      mod.CopyOnWrite()->attrs.Set(String(key), value);
      return mod;
    });
MINITVM_REGISTER_GLOBAL("ir.IRModuleCopy").set_body_typed([](IRModule mod) {
  return IRModule(mod->functions, mod->attrs);
});
MINITVM_REGISTER_GLOBAL("ir.BaseFuncWithAttr")
    .set_body_typed([](BaseFunc f, std::string key, Any value) {
      // Each function kind copies its own node: "<type key>.WithAttr" (tir.PrimFunc here,
      // Relax functions in stage 4).
      auto attr_fn = runtime::Registry::Get(f->GetTypeKey() + ".WithAttr");
      if (attr_fn) return (*attr_fn)(f, key, value).cast<BaseFunc>();
      MINITVM_THROW(TypeError) << "with_attr: no WithAttr for " << f->GetTypeKey();
    });

}  // namespace minitvm
