/*!
 * \file minitvm/target/target.h
 * \brief Compilation targets (stage 2): `Target("llvm -mcpu=native -num-cores=4")`,
 * `Target("cuda")`, `Target("ref")` — a kind, its keys and an attribute map that schedules
 * and code generators read (vector width, number of cores, threads per block).
 *
 * The string form is `<kind> [-<attr>=<value> ...]`; list attributes take comma-separated
 * values (`-mattr=+avx2,-fma`), flags without a value are true. Each kind declares its
 * attributes and their types; an unknown kind or attribute is a ValueError naming it.
 * `-mcpu=native` is resolved through the global function "target.llvm.ResolveHostCPU" when
 * one is registered (stage 5 registers it with LLVM's host detection).
 */
#ifndef MINITVM_TARGET_TARGET_H_
#define MINITVM_TARGET_TARGET_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/reflection.h"

namespace minitvm {
namespace target {

using runtime::Any;
using runtime::Array;
using runtime::Map;
using runtime::Object;
using runtime::ObjectRef;
using runtime::String;

/*! \brief A kind of target: its name, device type and default keys. */
class TargetKindNode : public Object {
 public:
  String name;
  int64_t device_type = 1;
  Array<String> default_keys;
  void VisitAttrs(runtime::AttrVisitor* v) override {
    v->Visit("name", &name);
    v->Visit("device_type", &device_type);
    v->Visit("default_keys", &default_keys);
  }
  MINITVM_DECLARE_OBJECT_INFO(TargetKindNode, Object, "target.TargetKind");
};

/*! \brief Handle to a target kind. */
class TargetKind : public ObjectRef {
 public:
  /*! \brief The registered kind `name` ("llvm", "c", "cuda", "ref"); ValueError if unknown. */
  static TargetKind Get(const std::string& name);
  /*! \brief The names of all kinds. */
  static std::vector<std::string> ListNames();
  MINITVM_DEFINE_OBJECT_REF_METHODS(TargetKind, ObjectRef, TargetKindNode);
};

/*! \brief The node of a Target. */
class TargetNode : public Object {
 public:
  TargetKind kind;
  Array<String> keys;
  /*! \brief Attribute name (as written after "-", e.g. "mcpu") → value. */
  Map<String, Any> attrs;
  /*! \brief The host target of a device target (e.g. llvm for cuda); may be undefined. */
  ObjectRef host;
  void VisitAttrs(runtime::AttrVisitor* v) override {
    v->Visit("kind", &kind);
    v->Visit("keys", &keys);
    v->Visit("attrs", &attrs);
    v->Visit("host", &host);
  }
  /*! \brief An attribute converted to T, or nullopt. */
  template <typename T>
  std::optional<T> GetAttr(const std::string& key) const {
    if (auto v = attrs.Get(String(key))) return v->cast<T>();
    return std::nullopt;
  }
  /*! \brief The canonical string, e.g. "llvm -keys=cpu -mcpu=znver5". */
  std::string str() const;
  /*!
   * \brief The SIMD width in bits for CPU kinds: `-vector-width` when given, else from -mcpu
   * and -mattr (512 for AVX-512 CPUs, 256 for AVX2, 128 otherwise).
   */
  int64_t VectorWidthBits() const;
  MINITVM_DECLARE_OBJECT_INFO(TargetNode, Object, "target.Target");
};

/*! \brief Handle to a target. */
class Target : public ObjectRef {
 public:
  /*! \brief Parse "llvm -mcpu=native"; ValueError for an unknown kind or attribute. */
  explicit Target(const std::string& spec);
  /*! \brief A device target with a host target. */
  Target(const Target& target, const Target& host);
  /*! \brief A target from a map: {"kind": "cuda", "arch": "sm_90", ...}. */
  static Target FromMap(const Map<String, Any>& config);
  std::string str() const { return get()->str(); }
  MINITVM_DEFINE_OBJECT_REF_METHODS(Target, ObjectRef, TargetNode);
};

}  // namespace target
}  // namespace minitvm

#endif  // MINITVM_TARGET_TARGET_H_
