/*!
 * \file runtime_any_test.cc
 * \brief Tests of Any (stage 1): what each kind of value converts to, the TypeError raised
 * for a wrong conversion (naming expected and actual type), equality, and reference counts
 * of the objects an Any holds.
 */
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "minitvm/runtime/any.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/packed_func.h"
#include "minitvm_test_util.h"

using namespace minitvm::runtime;  // NOLINT

TEST(Any, ScalarsConvert) {
  EXPECT_TRUE(Any().is_null());
  EXPECT_TRUE(Any(nullptr).is_null());
  EXPECT_EQ(Any(42).cast<int>(), 42);
  EXPECT_EQ(Any(int64_t{1} << 40).cast<int64_t>(), int64_t{1} << 40);
  EXPECT_EQ(Any(2.5).cast<double>(), 2.5);
  EXPECT_EQ(Any(2.5f).cast<float>(), 2.5f);
  EXPECT_TRUE(Any(true).cast<bool>());
  EXPECT_TRUE(Any(true).is_bool());
  // Widening conversions that Python code relies on: int → float, bool → int, int → bool.
  EXPECT_EQ(Any(3).cast<double>(), 3.0);
  EXPECT_EQ(Any(true).cast<int>(), 1);
  EXPECT_FALSE(Any(0).cast<bool>());
  EXPECT_EQ(Any("abc").cast<std::string>(), "abc");
  EXPECT_EQ(Any(std::string("abc")).cast<String>(), "abc");
  EXPECT_EQ(Any(DataType::Float(16)).cast<DataType>(), DataType("float16"));
  EXPECT_EQ(Any("int8").cast<DataType>(), DataType::Int(8));  // strings name dtypes
  EXPECT_EQ(Any(CUDA(1)).cast<Device>(), CUDA(1));
}

TEST(Any, TypeNames) {
  EXPECT_EQ(Any().type_name(), "None");
  EXPECT_EQ(Any(1).type_name(), "int");
  EXPECT_EQ(Any(1.0).type_name(), "float");
  EXPECT_EQ(Any(false).type_name(), "bool");
  EXPECT_EQ(Any("s").type_name(), "str");
  EXPECT_EQ(Any(DataType::Int(32)).type_name(), "DataType");
  EXPECT_EQ(Any(CPU()).type_name(), "Device");
  EXPECT_EQ(Any(NDArray::Empty({1}, DataType::Float(32))).type_name(), "runtime.NDArray");
}

TEST(Any, WrongConversionsRaiseTypeError) {
  EXPECT_MINITVM_ERROR(Any("x").cast<int>(), "TypeError", "expected int but got str");
  EXPECT_MINITVM_ERROR(Any(1.5).cast<int>(), "TypeError", "expected int but got float");
  EXPECT_MINITVM_ERROR(Any().cast<int64_t>(), "TypeError", "expected int but got None");
  EXPECT_MINITVM_ERROR(Any("x").cast<double>(), "TypeError", "expected float but got str");
  EXPECT_MINITVM_ERROR(Any(1.0).cast<bool>(), "TypeError", "expected bool but got float");
  EXPECT_MINITVM_ERROR(Any(1).cast<std::string>(), "TypeError", "expected str but got int");
  EXPECT_MINITVM_ERROR(Any(1).cast<Device>(), "TypeError", "expected Device but got int");
  EXPECT_MINITVM_ERROR(Any(1).cast<DataType>(), "TypeError", "expected DataType but got int");
  EXPECT_MINITVM_ERROR(Any("float31").cast<DataType>(), "ValueError", "unknown dtype");
  NDArray a = NDArray::Empty({2}, DataType::Int(32));
  EXPECT_MINITVM_ERROR(Any(a).cast<String>(), "TypeError",
                       "expected runtime.String but got runtime.NDArray");
  EXPECT_MINITVM_ERROR(Any("s").cast<NDArray>(), "TypeError",
                       "expected runtime.NDArray but got str");
  // String is never null; NDArray handles are nullable.
  EXPECT_MINITVM_ERROR(Any().cast<String>(), "TypeError", "expected runtime.String but got None");
  EXPECT_FALSE(Any().cast<NDArray>().defined());
}

TEST(Any, TryCastAndOptional) {
  EXPECT_EQ(Any(5).try_cast<int>(), std::optional<int>(5));
  EXPECT_FALSE(Any("5").try_cast<int>().has_value());
  EXPECT_FALSE(Any().cast<std::optional<int>>().has_value());
  EXPECT_EQ(Any(7).cast<std::optional<int>>(), std::optional<int>(7));
  EXPECT_TRUE(Any(std::optional<int>()).is_null());
  EXPECT_EQ(Any(std::optional<int>(3)).cast<int>(), 3);
}

TEST(Any, EqualityAndToString) {
  EXPECT_EQ(Any(1), Any(1));
  EXPECT_NE(Any(1), Any(2));
  EXPECT_NE(Any(1), Any(1.0));            // different kinds are different values
  EXPECT_EQ(Any("a"), Any(String("a")));  // strings compare by value
  EXPECT_EQ(Any(), Any(nullptr));
  NDArray a = NDArray::Empty({1}, DataType::Float(32));
  NDArray b = NDArray::Empty({1}, DataType::Float(32));
  EXPECT_EQ(Any(a), Any(a));
  EXPECT_NE(Any(a), Any(b));  // other objects by identity
  EXPECT_EQ(Any().ToString(), "None");
  EXPECT_EQ(Any(true).ToString(), "True");
  EXPECT_EQ(Any(12).ToString(), "12");
  EXPECT_EQ(Any("s").ToString(), "\"s\"");
  EXPECT_EQ(Any(DataType::Float(32, 4)).ToString(), "float32x4");
  EXPECT_EQ(Any(a).ToString(), "<runtime.NDArray>");
}

TEST(Any, HoldsAReferenceToItsObject) {
  NDArray a = NDArray::Empty({4}, DataType::Float(32));
  EXPECT_EQ(a.use_count(), 1);
  {
    Any x(a);
    EXPECT_EQ(a.use_count(), 2);
    Any y = x;  // copy: one more reference
    EXPECT_EQ(a.use_count(), 3);
    Any z = std::move(y);  // move: no new reference
    EXPECT_EQ(a.use_count(), 3);
    EXPECT_TRUE(y.is_null());  // NOLINT(bugprone-use-after-move): a moved-from Any is null
    z = Any(1);                // overwriting releases the object
    EXPECT_EQ(a.use_count(), 2);
    NDArray back = x.cast<NDArray>();
    EXPECT_TRUE(back.same_as(a));
    EXPECT_EQ(a.use_count(), 3);
  }
  EXPECT_EQ(a.use_count(), 1);
}
