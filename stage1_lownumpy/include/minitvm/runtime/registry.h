/*!
 * \file minitvm/runtime/registry.h
 * \brief The global function registry (stage 1): every C++ API that Python or another stage
 * reaches by name is registered here under a dotted name ("tir.schedule.Split").
 *
 * The registry is thread-safe. Registration happens at load time through
 * `MINITVM_REGISTER_GLOBAL`; Python registers its own callables through the C ABI.
 */
#ifndef MINITVM_RUNTIME_REGISTRY_H_
#define MINITVM_RUNTIME_REGISTRY_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/runtime/packed_func.h"

namespace minitvm {
namespace runtime {

/*! \brief One entry of the registry, returned by `Register` to set its body. */
class Registry {
 public:
  /*!
   * \brief Create the entry `name`. RuntimeError when it exists and `can_override` is false.
   */
  static Registry& Register(const std::string& name, bool can_override = false);
  /*! \brief The function registered as `name`, or nullopt. */
  static std::optional<PackedFunc> Get(const std::string& name);
  /*! \brief The function registered as `name`; ValueError naming it when missing. */
  static PackedFunc GetOrThrow(const std::string& name);
  /*! \brief Remove an entry; false when there was none. */
  static bool Remove(const std::string& name);
  /*! \brief All registered names, sorted. */
  static std::vector<std::string> ListNames();

  Registry& set_body(PackedFunc f);
  Registry& set_body(FPacked f) { return set_body(PackedFunc(std::move(f), name_)); }
  /*! \brief Register a typed callable; arguments are checked when called. */
  template <typename F>
  Registry& set_body_typed(F f) {
    return set_body(PackedFunc::FromTyped(std::move(f), name_));
  }

  explicit Registry(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

}  // namespace runtime
}  // namespace minitvm

#define MINITVM_STR_CONCAT_(a, b) a##b
#define MINITVM_STR_CONCAT(a, b) MINITVM_STR_CONCAT_(a, b)
/*! \brief Register a global function at load time:
 * `MINITVM_REGISTER_GLOBAL("x").set_body_typed(f);` */
#define MINITVM_REGISTER_GLOBAL(name)                                       \
  [[maybe_unused]] static ::minitvm::runtime::Registry& MINITVM_STR_CONCAT( \
      _minitvm_reg_, __COUNTER__) = ::minitvm::runtime::Registry::Register(name)

#endif  // MINITVM_RUNTIME_REGISTRY_H_
