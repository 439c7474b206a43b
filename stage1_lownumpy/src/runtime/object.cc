/*!
 * \file object.cc
 * \brief The type registry behind Object's type keys and indices (stage 1).
 */
#include "minitvm/runtime/object.h"

#include <mutex>
#include <unordered_map>
#include <vector>

namespace minitvm {
namespace runtime {
namespace {

struct TypeTable {
  std::mutex mutex;
  std::vector<std::string> keys{"runtime.Object"};
  std::vector<uint32_t> parents{0};
  std::unordered_map<std::string, uint32_t> index_of{{"runtime.Object", 0}};
};

TypeTable& Table() {
  static TypeTable* table = new TypeTable();  // never destroyed: used by static destructors
  return *table;
}

}  // namespace

uint32_t TypeRegistry::Register(const char* key, uint32_t parent_index) {
  TypeTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.index_of.find(key);
  if (it != t.index_of.end()) return it->second;
  uint32_t index = static_cast<uint32_t>(t.keys.size());
  t.keys.emplace_back(key);
  t.parents.push_back(parent_index);
  t.index_of.emplace(key, index);
  return index;
}

std::string TypeRegistry::TypeIndex2Key(uint32_t index) {
  TypeTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (index >= t.keys.size()) MINITVM_THROW(IndexError) << "unknown type index " << index;
  return t.keys[index];
}

uint32_t TypeRegistry::TypeKey2Index(const std::string& key) {
  TypeTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.index_of.find(key);
  if (it == t.index_of.end()) MINITVM_THROW(ValueError) << "unknown type key " << key;
  return it->second;
}

bool TypeRegistry::IsDerivedFrom(uint32_t child, uint32_t parent) {
  TypeTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  while (true) {
    if (child == parent) return true;
    if (child == 0 || child >= t.parents.size()) return false;
    child = t.parents[child];
  }
}

}  // namespace runtime
}  // namespace minitvm
