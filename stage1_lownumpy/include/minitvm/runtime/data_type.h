/*!
 * \file minitvm/runtime/data_type.h
 * \brief `DataType` (stage 1): scalar and vector element types, parsed from and printed to
 * strings such as "float32" or "float32x4". Layout-compatible with DLPack's DLDataType.
 */
#ifndef MINITVM_RUNTIME_DATA_TYPE_H_
#define MINITVM_RUNTIME_DATA_TYPE_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <ostream>
#include <string>

namespace minitvm {
namespace runtime {

/*!
 * \brief An element type: a code (int, uint, float, bfloat, handle), a bit width and lanes.
 *
 * bool is uint1. bfloat16 is storage only: it can be held, copied and cast, not computed.
 */
class DataType {
 public:
  /*! \brief Type codes; the first values equal DLPack's. */
  enum TypeCode : uint8_t {
    kInt = kDLInt,
    kUInt = kDLUInt,
    kFloat = kDLFloat,
    kHandle = kDLOpaqueHandle,
    kBFloat = kDLBfloat,
  };
  DataType() : DataType(kHandle, 0, 0) {}
  DataType(int code, int bits, int lanes = 1) {
    data_.code = static_cast<uint8_t>(code);
    data_.bits = static_cast<uint8_t>(bits);
    data_.lanes = static_cast<uint16_t>(lanes);
  }
  explicit DataType(DLDataType dtype) : data_(dtype) {}
  /*! \brief Parse "float32", "int8", "bool", "float32x4", "handle", "void"; ValueError if bad. */
  explicit DataType(const std::string& text);

  int code() const { return data_.code; }
  int bits() const { return data_.bits; }
  int lanes() const { return data_.lanes; }
  /*! \brief Bytes of one element (all lanes), rounded up. */
  int bytes() const { return (bits() * lanes() + 7) / 8; }
  bool is_int() const { return code() == kInt; }
  bool is_uint() const { return code() == kUInt; }
  bool is_float() const { return code() == kFloat; }
  bool is_bfloat16() const { return code() == kBFloat && bits() == 16; }
  bool is_bool() const { return code() == kUInt && bits() == 1; }
  bool is_handle() const { return code() == kHandle && bits() != 0; }
  bool is_void() const { return code() == kHandle && bits() == 0 && lanes() == 0; }
  bool is_scalar() const { return lanes() == 1; }
  bool is_vector() const { return lanes() > 1; }
  /*! \brief The same type with another lane count. */
  DataType with_lanes(int lanes) const { return DataType(code(), bits(), lanes); }
  /*! \brief The scalar element type of a vector type. */
  DataType element_of() const { return with_lanes(1); }
  operator DLDataType() const { return data_; }  // NOLINT(*)
  bool operator==(const DataType& o) const {
    return data_.code == o.data_.code && data_.bits == o.data_.bits && data_.lanes == o.data_.lanes;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }

  static DataType Int(int bits, int lanes = 1) { return DataType(kInt, bits, lanes); }
  static DataType UInt(int bits, int lanes = 1) { return DataType(kUInt, bits, lanes); }
  static DataType Float(int bits, int lanes = 1) { return DataType(kFloat, bits, lanes); }
  static DataType BFloat(int bits, int lanes = 1) { return DataType(kBFloat, bits, lanes); }
  static DataType Bool(int lanes = 1) { return DataType(kUInt, 1, lanes); }
  static DataType Handle() { return DataType(kHandle, 64, 1); }
  static DataType Void() { return DataType(kHandle, 0, 0); }

 private:
  DLDataType data_;
};

/*! \brief "float32", "int64x4", "bool", "handle", "void". */
std::string DataTypeToString(DataType dtype);
inline std::ostream& operator<<(std::ostream& os, DataType dtype) {
  return os << DataTypeToString(dtype);
}

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_DATA_TYPE_H_
