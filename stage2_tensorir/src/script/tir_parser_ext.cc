/*!
 * \file tir_parser_ext.cc
 * \brief The registries behind `minitvm/script/parser_ext.h` (stage 2): function parsers for
 * decorators of later stages (`@R.function`) and the script namespaces they import.
 */
#include <mutex>
#include <vector>

#include "minitvm/runtime/registry.h"
#include "minitvm/script/parser_ext.h"

namespace minitvm {
namespace script {

namespace {
struct ExtRegistry {
  std::mutex mu;
  std::map<std::string, FunctionParserHooks> parsers;
  std::map<std::string, std::string> namespaces;
};
ExtRegistry& Registry() {
  static ExtRegistry* r = new ExtRegistry();
  return *r;
}
}  // namespace

void RegisterFunctionParser(const std::string& decorator, FunctionParserHooks hooks) {
  ExtRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.parsers[decorator] = std::move(hooks);
}

const FunctionParserHooks* FindFunctionParser(const std::string& decorator) {
  ExtRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.parsers.find(decorator);
  // Entries are never removed, so the pointer stays valid after the lock is released.
  return it == r.parsers.end() ? nullptr : &it->second;
}

void RegisterScriptNamespace(const std::string& module, const std::string& canonical) {
  ExtRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.namespaces[module] = canonical;
}

std::string FindScriptNamespace(const std::string& module) {
  ExtRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.namespaces.find(module);
  return it == r.namespaces.end() ? std::string() : it->second;
}

std::vector<std::string> ListScriptNamespaces() {
  ExtRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [module, canonical] : r.namespaces) out.push_back(canonical);
  return out;
}

}  // namespace script
}  // namespace minitvm
