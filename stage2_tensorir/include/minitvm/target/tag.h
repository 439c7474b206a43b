/*!
 * \file tag.h
 * \brief Target tags: names such as "nvidia/tesla-p100" or "apple/m2-gpu" that stand for a
 * whole target configuration, as TVM's `TargetTag` registry (stage 2).
 *
 * `Target("nvidia/tesla-p100")` is the target of the tag's map, with any `-attr=value` after
 * the name applied on top; its `tag` attribute keeps the name. The built-in tags are TVM
 * v0.20's CUDA device table (architecture, shared memory and registers per block from NVIDIA's
 * compute-capability tables) and the Apple GPU tags; `AddTag` registers more.
 */
#ifndef MINITVM_TARGET_TAG_H_
#define MINITVM_TARGET_TAG_H_

#include <optional>
#include <string>

#include "minitvm/runtime/container.h"
#include "minitvm/target/target.h"

namespace minitvm {
namespace target {

/*! \brief The registry of target tags (thread-safe). */
class TargetTag {
 public:
  /*! \brief The configuration map of a tag, or nullopt when no tag has that name. */
  static std::optional<Map<String, Any>> Get(const std::string& name);
  /*! \brief Every tag with its target. */
  static Map<String, Target> ListTags();
  /*! \brief Register `name` for `config`; ValueError when it exists and `override` is false. */
  static Target AddTag(const std::string& name, const Map<String, Any>& config, bool override);
};

}  // namespace target
}  // namespace minitvm

#endif  // MINITVM_TARGET_TAG_H_
