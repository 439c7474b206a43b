/*!
 * \file any.cc
 * \brief Any's type names, equality and string form (stage 1).
 */
#include "minitvm/runtime/any.h"

#include <sstream>

namespace minitvm {
namespace runtime {

std::string Any::type_name() const {
  switch (tag_) {
    case kNull:
      return "None";
    case kInt:
      return "int";
    case kFloat:
      return "float";
    case kBool:
      return "bool";
    case kDataType:
      return "DataType";
    case kDevice:
      return "Device";
    case kObject:
      return is_string() ? "str" : v_.obj->GetTypeKey();
  }
  return "unknown";
}

void Any::ThrowTypeMismatch(const std::string& expected) const {
  MINITVM_THROW(TypeError) << "expected " << expected << " but got " << type_name();
}

bool Any::operator==(const Any& other) const {
  if (is_string() && other.is_string()) return as<StringObj>()->data == other.as<StringObj>()->data;
  if (tag_ != other.tag_) return false;
  switch (tag_) {
    case kNull:
      return true;
    case kInt:
    case kBool:
      return v_.i == other.v_.i;
    case kFloat:
      return v_.f == other.v_.f;
    case kDataType:
      return v_.dtype == other.v_.dtype;
    case kDevice:
      return v_.device == other.v_.device;
    case kObject:
      return v_.obj == other.v_.obj;
  }
  return false;
}

std::string Any::ToString() const {
  std::ostringstream os;
  switch (tag_) {
    case kNull:
      return "None";
    case kInt:
      return std::to_string(v_.i);
    case kFloat:
      os << v_.f;
      return os.str();
    case kBool:
      return v_.i ? "True" : "False";
    case kDataType:
      return DataTypeToString(v_.dtype);
    case kDevice:
      os << v_.device;
      return os.str();
    case kObject:
      if (is_string()) return "\"" + as<StringObj>()->data + "\"";
      return "<" + v_.obj->GetTypeKey() + ">";
  }
  return "?";
}

}  // namespace runtime
}  // namespace minitvm
