/*!
 * \file runtime_data_type_test.cc
 * \brief Tests of DataType and Device names (stage 1): every supported name parses and prints
 * back to itself, sizes are right, and bad names raise ValueError naming the text.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "minitvm/runtime/data_type.h"
#include "minitvm/runtime/device.h"
#include "minitvm_test_util.h"

using minitvm::runtime::DataType;

TEST(DataType, ParsePrintRoundTrip) {
  const std::vector<std::string> names = {
      "int8",    "int16",    "int32",   "int64",         "uint8",    "uint16", "uint32",
      "uint64",  "float16",  "float32", "float64",       "bfloat16", "bool",   "float32x4",
      "int8x16", "uint16x2", "boolx8",  "float64x65535", "handle",   "void"};
  for (const std::string& name : names) {
    DataType t(name);
    EXPECT_EQ(DataTypeToString(t), name);
    EXPECT_EQ(DataType(DataTypeToString(t)), t) << name;
  }
}

TEST(DataType, CodesBitsLanesAndBytes) {
  DataType f32("float32");
  EXPECT_TRUE(f32.is_float());
  EXPECT_EQ(f32.bits(), 32);
  EXPECT_EQ(f32.lanes(), 1);
  EXPECT_EQ(f32.bytes(), 4);
  EXPECT_EQ(f32, DataType::Float(32));

  DataType v("float32x4");
  EXPECT_TRUE(v.is_vector());
  EXPECT_EQ(v.lanes(), 4);
  EXPECT_EQ(v.bytes(), 16);
  EXPECT_EQ(v.element_of(), f32);
  EXPECT_EQ(f32.with_lanes(4), v);

  DataType b("bool");
  EXPECT_TRUE(b.is_bool());
  EXPECT_TRUE(b.is_uint());
  EXPECT_EQ(b.bits(), 1);
  EXPECT_EQ(b.bytes(), 1);  // one byte per bool, as NumPy stores it

  EXPECT_TRUE(DataType("bfloat16").is_bfloat16());
  EXPECT_FALSE(DataType("float16").is_bfloat16());
  EXPECT_TRUE(DataType("void").is_void());
  EXPECT_TRUE(DataType("handle").is_handle());
  EXPECT_EQ(DataType("handle").bits(), 64);

  // DataType has DLDataType's layout and converts both ways.
  DLDataType dl = DataType::Int(64);
  EXPECT_EQ(dl.code, kDLInt);
  EXPECT_EQ(dl.bits, 64);
  EXPECT_EQ(dl.lanes, 1);
  EXPECT_EQ(DataType(dl), DataType("int64"));
  static_assert(sizeof(DataType) == sizeof(DLDataType));
}

TEST(DataType, BadNamesRaiseValueError) {
  const std::vector<std::string> bad = {
      "",        "float",     "float31",   "int7",          "int128",     "uint1", "bfloat32",
      "floatx4", "float32x",  "float32x0", "float32x70000", "float32xx4", "f32",   "Float32",
      "int 32",  "complex64", "string",    "int-8",         "x4",         "bool8"};
  for (const std::string& name : bad) {
    EXPECT_MINITVM_ERROR(DataType{name}, "ValueError", "unknown dtype \"" + name + "\"");
  }
}

TEST(Device, NamesAndEquality) {
  using namespace minitvm::runtime;  // NOLINT
  EXPECT_EQ(DeviceTypeName(kDLCPU), "cpu");
  EXPECT_EQ(DeviceTypeName(kDLCUDA), "cuda");
  EXPECT_EQ(DeviceTypeFromName("cpu"), kDLCPU);
  EXPECT_EQ(DeviceTypeFromName("llvm"), kDLCPU);
  EXPECT_EQ(DeviceTypeFromName("cuda"), kDLCUDA);
  EXPECT_EQ(CPU(0), CPU());
  EXPECT_NE(CUDA(0), CUDA(1));
  EXPECT_NE(CPU(0), CUDA(0));
  std::ostringstream os;
  os << CUDA(1);
  EXPECT_EQ(os.str(), "cuda(1)");
  EXPECT_MINITVM_ERROR(DeviceTypeFromName("tpu"), "ValueError", "unknown device type \"tpu\"");
  // The CPU device API always exists; asking for CUDA in stage 1 fails cleanly.
  EXPECT_TRUE(DeviceAPI::Get(CPU())->Exists(CPU()));
}
