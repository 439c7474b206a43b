/*!
 * \file minitvm/runtime/any.h
 * \brief `Any` (stage 1): the value that crosses every PackedFunc call — null, int, float,
 * bool, DataType, Device or any object (String, NDArray, PackedFunc, Module, IR nodes).
 *
 * Conversions out of an Any are checked and raise TypeError naming the expected and the
 * actual type. `AnyConverter<T>` is the customisation point later stages specialise (stage 2
 * lets an int or float convert to a PrimExpr).
 */
#ifndef MINITVM_RUNTIME_ANY_H_
#define MINITVM_RUNTIME_ANY_H_

#include <optional>
#include <string>
#include <type_traits>

#include "minitvm/runtime/data_type.h"
#include "minitvm/runtime/device.h"
#include "minitvm/runtime/object.h"
#include "minitvm/runtime/string.h"

namespace minitvm {
namespace runtime {

class Any;
template <typename T>
class Array;
/*! \brief True for Array<T> (whose conversion is special: see container.h). */
template <typename T>
struct IsArray : std::false_type {};
template <typename T>
struct IsArray<Array<T>> : std::true_type {};
/*! \brief Converts an Any to a T; specialise it to teach Any a new type. */
template <typename T, typename = void>
struct AnyConverter;

/*! \brief A dynamically typed value. */
class Any {
 public:
  /*! \brief What an Any holds. */
  enum Tag : int32_t { kNull = 0, kInt, kFloat, kBool, kDataType, kDevice, kObject };

  Any() = default;
  Any(std::nullptr_t) {}                         // NOLINT(*)
  Any(bool v) : tag_(kBool) { v_.i = v; }        // NOLINT(*)
  Any(double v) : tag_(kFloat) { v_.f = v; }     // NOLINT(*)
  Any(float v) : Any(static_cast<double>(v)) {}  // NOLINT(*)
  template <typename T,
            typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  Any(T v) : tag_(kInt) {  // NOLINT(*)
    v_.i = static_cast<int64_t>(v);
  }
  Any(DataType v) : tag_(kDataType) { v_.dtype = v; }                   // NOLINT(*)
  Any(Device v) : tag_(kDevice) { v_.device = v; }                      // NOLINT(*)
  Any(const char* v) : Any(String(v)) {}                                // NOLINT(*)
  Any(const std::string& v) : Any(String(v)) {}                         // NOLINT(*)
  Any(const ObjectRef& v) { SetObject(const_cast<Object*>(v.get())); }  // NOLINT(*)
  template <typename T>
  Any(const std::optional<T>& v) {  // NOLINT(*)
    if (v) *this = Any(*v);
  }
  Any(const Any& other) : tag_(other.tag_), v_(other.v_) {
    if (tag_ == kObject) v_.obj->IncRef();
  }
  Any(Any&& other) noexcept : tag_(other.tag_), v_(other.v_) { other.tag_ = kNull; }
  Any& operator=(Any other) {
    std::swap(tag_, other.tag_);
    std::swap(v_, other.v_);
    return *this;
  }
  ~Any() {
    if (tag_ == kObject) v_.obj->DecRef();
  }

  Tag tag() const { return tag_; }
  bool is_null() const { return tag_ == kNull; }
  bool is_int() const { return tag_ == kInt; }
  bool is_float() const { return tag_ == kFloat; }
  bool is_bool() const { return tag_ == kBool; }
  bool is_object() const { return tag_ == kObject; }
  bool is_string() const { return tag_ == kObject && v_.obj->IsInstance<StringObj>(); }
  /*! \brief The held object, or nullptr when the Any holds no object. */
  const Object* as_object() const { return tag_ == kObject ? v_.obj : nullptr; }
  /*! \brief The held object as T's node, or nullptr. */
  template <typename TNode>
  const TNode* as() const {
    return tag_ == kObject ? dynamic_cast<const TNode*>(v_.obj) : nullptr;
  }
  /*! \brief Raw access for the C ABI; check `tag()` first. */
  int64_t raw_int() const { return v_.i; }
  double raw_float() const { return v_.f; }
  DataType raw_dtype() const { return v_.dtype; }
  Device raw_device() const { return v_.device; }

  /*! \brief "None", "int", "float", "bool", "DataType", "Device", "str" or the type key. */
  std::string type_name() const;
  /*! \brief Convert to T or throw TypeError ("expected int but got str"). */
  template <typename T>
  T cast() const {
    return AnyConverter<T>::Convert(*this);
  }
  /*! \brief Convert to T, or nullopt when the value is not a T. */
  template <typename T>
  std::optional<T> try_cast() const {
    if (!AnyConverter<T>::Check(*this)) return std::nullopt;
    return AnyConverter<T>::Convert(*this);
  }
  /*! \brief Equality of values: ints, floats, bools and strings by value, objects by identity. */
  bool operator==(const Any& other) const;
  bool operator!=(const Any& other) const { return !(*this == other); }
  /*! \brief A short human-readable form, used in error messages and repr. */
  std::string ToString() const;

  /*! \brief Throws TypeError: expected `expected` but got this value's type. */
  [[noreturn]] void ThrowTypeMismatch(const std::string& expected) const;

 private:
  void SetObject(Object* obj) {
    if (obj == nullptr) return;
    tag_ = kObject;
    v_.obj = obj;
    obj->IncRef();
  }
  Tag tag_ = kNull;
  union Value {
    int64_t i;
    double f;
    DataType dtype;
    Device device;
    Object* obj;
    Value() : i(0) {}
  } v_;
};

// ---- conversions ------------------------------------------------------------------------

template <>
struct AnyConverter<Any> {
  static bool Check(const Any&) { return true; }
  static Any Convert(const Any& a) { return a; }
};

template <typename T>
struct AnyConverter<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static bool Check(const Any& a) { return a.is_int() || a.is_bool(); }
  static T Convert(const Any& a) {
    if (!Check(a)) a.ThrowTypeMismatch("int");
    return static_cast<T>(a.raw_int());
  }
};

template <>
struct AnyConverter<bool> {
  static bool Check(const Any& a) { return a.is_bool() || a.is_int(); }
  static bool Convert(const Any& a) {
    if (!Check(a)) a.ThrowTypeMismatch("bool");
    return a.raw_int() != 0;
  }
};

template <typename T>
struct AnyConverter<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static bool Check(const Any& a) { return a.is_float() || a.is_int() || a.is_bool(); }
  static T Convert(const Any& a) {
    if (a.is_float()) return static_cast<T>(a.raw_float());
    if (!Check(a)) a.ThrowTypeMismatch("float");
    return static_cast<T>(a.raw_int());
  }
};

template <>
struct AnyConverter<std::string> {
  static bool Check(const Any& a) { return a.is_string(); }
  static std::string Convert(const Any& a) {
    if (!Check(a)) a.ThrowTypeMismatch("str");
    return a.as<StringObj>()->data;
  }
};

template <>
struct AnyConverter<DataType> {
  static bool Check(const Any& a) { return a.tag() == Any::kDataType || a.is_string(); }
  static DataType Convert(const Any& a) {
    if (a.tag() == Any::kDataType) return a.raw_dtype();
    if (a.is_string()) return DataType(a.as<StringObj>()->data);
    a.ThrowTypeMismatch("DataType");
  }
};

template <>
struct AnyConverter<Device> {
  static bool Check(const Any& a) { return a.tag() == Any::kDevice; }
  static Device Convert(const Any& a) {
    if (!Check(a)) a.ThrowTypeMismatch("Device");
    return a.raw_device();
  }
};

template <typename T>
struct AnyConverter<std::optional<T>> {
  static bool Check(const Any& a) { return a.is_null() || AnyConverter<T>::Check(a); }
  static std::optional<T> Convert(const Any& a) {
    if (a.is_null()) return std::nullopt;
    return AnyConverter<T>::Convert(a);
  }
};

/*! \brief Object handles: checked by node type; null allowed when the handle is nullable. */
template <typename T>
struct AnyConverter<T, std::enable_if_t<std::is_base_of_v<ObjectRef, T> && !IsArray<T>::value>> {
  static bool Check(const Any& a) {
    if (a.is_null()) return T::_type_is_nullable;
    return a.as<typename T::ContainerType>() != nullptr;
  }
  static T Convert(const Any& a) {
    if (!Check(a)) a.ThrowTypeMismatch(T::ContainerType::_type_key);
    if (a.is_null()) return T(ObjectPtr<Object>(nullptr));
    return T(ObjectPtr<Object>(const_cast<Object*>(a.as_object())));
  }
};

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_ANY_H_
