/*!
 * \file minitvm/runtime/reflection.h
 * \brief Reflection (stage 1): the visitor a node's `VisitAttrs` lists its fields to, and the
 * generic services built on that single field list — field lookup by name, the field names,
 * and a generic `repr`.
 */
#ifndef MINITVM_RUNTIME_REFLECTION_H_
#define MINITVM_RUNTIME_REFLECTION_H_

#include <string>
#include <type_traits>
#include <vector>

#include "minitvm/runtime/any.h"

namespace minitvm {
namespace runtime {

/*!
 * \brief Receives the fields of a node, one call per field, in declaration order.
 *
 * Enum fields are visited as int64 through the template. Fields that bind variables are
 * visited with `VisitBinding`, which by default is the same as `Visit`.
 */
class AttrVisitor {
 public:
  virtual ~AttrVisitor() = default;
  virtual void Visit(const char* key, int64_t* value) = 0;
  virtual void Visit(const char* key, double* value) = 0;
  virtual void Visit(const char* key, bool* value) = 0;
  virtual void Visit(const char* key, std::string* value) = 0;
  virtual void Visit(const char* key, DataType* value) = 0;
  virtual void Visit(const char* key, Device* value) { (void)key, (void)value; }
  virtual void Visit(const char* key, ObjectRef* value) = 0;
  virtual void Visit(const char* key, Any* value) = 0;
  /*! \brief A field that defines (binds) the variable(s) it holds. */
  virtual void VisitBinding(const char* key, ObjectRef* value) { Visit(key, value); }

  void Visit(const char* key, int* value) {
    int64_t v = *value;
    Visit(key, &v);
    *value = static_cast<int>(v);
  }
  template <typename E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void Visit(const char* key, E* value) {
    int64_t v = static_cast<int64_t>(*value);
    Visit(key, &v);
    *value = static_cast<E>(v);
  }
  template <
      typename R,
      std::enable_if_t<std::is_base_of_v<ObjectRef, R> && !std::is_same_v<ObjectRef, R>, int> = 0>
  void Visit(const char* key, R* value) {
    Visit(key, static_cast<ObjectRef*>(value));
  }
  template <
      typename R,
      std::enable_if_t<std::is_base_of_v<ObjectRef, R> && !std::is_same_v<ObjectRef, R>, int> = 0>
  void VisitBinding(const char* key, R* value) {
    VisitBinding(key, static_cast<ObjectRef*>(value));
  }
};

/*! \brief The names of a node's fields, in order. */
std::vector<std::string> ListFieldNames(const Object* node);
/*! \brief One field of a node as an Any; AttributeError naming the type when it has none. */
Any GetField(const Object* node, const std::string& name);
/*!
 * \brief A readable representation: `type_key(field=value, ...)`, or what a type-specific
 * printer registered under "node.Repr.<type_key>" returns (stage 2 registers TVMScript).
 */
std::string Repr(const ObjectRef& node);

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_REFLECTION_H_
