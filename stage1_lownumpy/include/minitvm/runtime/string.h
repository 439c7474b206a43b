/*!
 * \file minitvm/runtime/string.h
 * \brief `String` (stage 1): an immutable string object, so strings can live in `Array`,
 * `Map` and `Any` next to other objects.
 */
#ifndef MINITVM_RUNTIME_STRING_H_
#define MINITVM_RUNTIME_STRING_H_

#include <string>
#include <string_view>

#include "minitvm/runtime/object.h"

namespace minitvm {
namespace runtime {

/*! \brief The node of a String. */
class StringObj : public Object {
 public:
  explicit StringObj(std::string value) : data(std::move(value)) {}
  std::string data;
  MINITVM_DECLARE_OBJECT_INFO(StringObj, Object, "runtime.String");
};

/*! \brief An immutable, never-null string handle that converts to and from std::string. */
class String : public ObjectRef {
 public:
  String() : String(std::string()) {}
  String(std::string value)  // NOLINT(*)
      : ObjectRef(make_object<StringObj>(std::move(value))) {}
  String(const char* value) : String(std::string(value)) {}  // NOLINT(*)
  const std::string& str() const { return get()->data; }
  operator const std::string&() const { return str(); }  // NOLINT(*)
  const char* c_str() const { return str().c_str(); }
  size_t size() const { return str().size(); }
  bool empty() const { return str().empty(); }
  bool operator==(const String& o) const { return str() == o.str(); }
  bool operator!=(const String& o) const { return str() != o.str(); }
  bool operator==(const std::string& o) const { return str() == o; }
  bool operator==(const char* o) const { return str() == o; }
  bool operator<(const String& o) const { return str() < o.str(); }
  MINITVM_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(String, ObjectRef, StringObj);
};

inline std::ostream& operator<<(std::ostream& os, const String& s) { return os << s.str(); }

}  // namespace runtime
}  // namespace minitvm

namespace std {
template <>
struct hash<::minitvm::runtime::String> {
  size_t operator()(const ::minitvm::runtime::String& s) const {
    return std::hash<std::string>()(s.str());
  }
};
}  // namespace std

#endif  // MINITVM_RUNTIME_STRING_H_
