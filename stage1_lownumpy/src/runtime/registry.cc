/*!
 * \file registry.cc
 * \brief The thread-safe global function registry (stage 1).
 */
#include "minitvm/runtime/registry.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace minitvm {
namespace runtime {
namespace {

/*! \brief Name → entry, plus the functions. Entries are never freed (they are referenced). */
struct RegistryManager {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Registry>> entries;
  std::map<std::string, PackedFunc> funcs;
  static RegistryManager& Global() {
    static RegistryManager* manager = new RegistryManager();
    return *manager;
  }
};

}  // namespace

Registry& Registry::Register(const std::string& name, bool can_override) {
  RegistryManager& m = RegistryManager::Global();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.funcs.count(name) && !can_override) {
    MINITVM_THROW(RuntimeError) << "global function \"" << name
                                << "\" is already registered (pass override=True to replace it)";
  }
  auto& entry = m.entries[name];
  if (!entry) entry = std::make_unique<Registry>(name);
  return *entry;
}

Registry& Registry::set_body(PackedFunc f) {
  RegistryManager& m = RegistryManager::Global();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.funcs[name_] = std::move(f);
  return *this;
}

std::optional<PackedFunc> Registry::Get(const std::string& name) {
  RegistryManager& m = RegistryManager::Global();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.funcs.find(name);
  if (it == m.funcs.end()) return std::nullopt;
  return it->second;
}

PackedFunc Registry::GetOrThrow(const std::string& name) {
  auto f = Get(name);
  if (!f) MINITVM_THROW(ValueError) << "no global function named \"" << name << "\"";
  return *f;
}

bool Registry::Remove(const std::string& name) {
  RegistryManager& m = RegistryManager::Global();
  std::lock_guard<std::mutex> lock(m.mutex);
  return m.funcs.erase(name) > 0;
}

std::vector<std::string> Registry::ListNames() {
  RegistryManager& m = RegistryManager::Global();
  std::lock_guard<std::mutex> lock(m.mutex);
  std::vector<std::string> names;
  for (const auto& kv : m.funcs) names.push_back(kv.first);
  return names;
}

}  // namespace runtime
}  // namespace minitvm
