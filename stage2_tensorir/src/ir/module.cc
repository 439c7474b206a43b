/*!
 * \file module.cc
 * \brief GlobalVar and IRModule (stage 2).
 */
#include "minitvm/ir/module.h"

#include <sstream>

namespace minitvm {

GlobalVar::GlobalVar(String name_hint) {
  auto n = make_object<GlobalVarNode>();
  n->name_hint = std::move(name_hint);
  data_ = std::move(n);
}

IRModule::IRModule(Map<GlobalVar, BaseFunc> functions, Map<String, Any> attrs) {
  auto n = make_object<IRModuleNode>();
  n->functions = std::move(functions);
  n->attrs = std::move(attrs);
  data_ = std::move(n);
}

IRModule IRModule::FromNamed(const std::vector<std::pair<std::string, BaseFunc>>& funcs) {
  IRModule mod;
  for (const auto& [name, f] : funcs) mod.Add(GlobalVar(name), f, false);
  return mod;
}

std::optional<GlobalVar> IRModuleNode::GetGlobalVar(const std::string& name) const {
  for (const auto& [gv, f] : functions.items()) {
    if (gv->name_hint == name) return gv;
  }
  return std::nullopt;
}

std::vector<GlobalVar> IRModuleNode::GetGlobalVars() const {
  std::vector<GlobalVar> out;
  for (const auto& [gv, f] : functions.items()) out.push_back(gv);
  return out;
}

BaseFunc IRModuleNode::Lookup(const std::string& name) const {
  auto gv = GetGlobalVar(name);
  if (!gv) {
    std::ostringstream os;
    for (const auto& g : GetGlobalVars()) os << (os.tellp() ? ", " : "") << g->name_hint;
    MINITVM_THROW(ValueError) << "the module has no function named \"" << name
                              << "\" (it has: " << os.str() << ")";
  }
  return functions.at(*gv);
}

BaseFunc IRModuleNode::Lookup(const GlobalVar& gv) const {
  if (!functions.count(gv)) return Lookup(gv->name_hint);
  return functions.at(gv);
}

void IRModule::Add(const GlobalVar& gv, const BaseFunc& func, bool allow_replace) {
  auto existing = get()->GetGlobalVar(gv->name_hint);
  IRModuleNode* n = CopyOnWrite();
  if (existing) {
    if (!allow_replace) {
      MINITVM_THROW(ValueError) << "the module already has a function named \"" << gv->name_hint
                                << "\"";
    }
    n->functions.Set(*existing, func);
  } else {
    n->functions.Set(gv, func);
  }
}

void IRModule::Remove(const GlobalVar& gv) {
  auto existing = get()->GetGlobalVar(gv->name_hint);
  if (existing) CopyOnWrite()->functions.erase(*existing);
}

}  // namespace minitvm
