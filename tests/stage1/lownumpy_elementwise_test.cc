// Tests of the lownumpy iteration helpers and elementwise operators (stage 1): broadcasting,
// strided inputs, NumPy's integer semantics, NaN handling and the errors for bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "minitvm/lownumpy/lownumpy.h"
#include "minitvm/runtime/registry.h"
#include "minitvm_test_util.h"

namespace lnp = minitvm::lownumpy;
using minitvm::runtime::DataType;
using minitvm::runtime::NDArray;
using minitvm::testing::MakeArray;
using minitvm::testing::ToVector;

namespace {
const DataType kF32 = DataType::Float(32);
const DataType kF64 = DataType::Float(64);
const DataType kI32 = DataType::Int(32);
}  // namespace

TEST(LowNumpyIteration, BroadcastShapes) {
  EXPECT_EQ(lnp::BroadcastShapes("t", {2, 1, 3}, {4, 1}), (lnp::Shape{2, 4, 3}));
  EXPECT_EQ(lnp::BroadcastShapes("t", {}, {5}), (lnp::Shape{5}));
  EXPECT_EQ(lnp::BroadcastShapes("t", {0, 1}, {1, 3}), (lnp::Shape{0, 3}));
  EXPECT_MINITVM_ERROR(lnp::BroadcastShapes("add", {2, 3}, {4}), "ValueError",
                       "add: shapes (2, 3) and (4,) do not broadcast");
}

TEST(LowNumpyIteration, ForEachOffsetMergesContiguousDims) {
  // A compact (2, 3, 4) walk visits offsets 0..23 in order.
  std::vector<int64_t> seen;
  lnp::ForEachOffset<1>({2, 3, 4}, {lnp::Shape{12, 4, 1}},
                        [&](const std::array<int64_t, 1>& o) { seen.push_back(o[0]); });
  ASSERT_EQ(seen.size(), 24u);
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(seen[i], i);
  // A transposed walk of a (3, 2) compact array: offsets 0, 2, 4, 1, 3, 5.
  seen.clear();
  lnp::ForEachOffset<1>({2, 3}, {lnp::Shape{1, 2}},
                        [&](const std::array<int64_t, 1>& o) { seen.push_back(o[0]); });
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
  // Zero-size shapes visit nothing; scalars once.
  int count = 0;
  lnp::ForEachOffset<1>({3, 0}, {lnp::Shape{0, 1}}, [&](auto) { ++count; });
  EXPECT_EQ(count, 0);
  lnp::ForEachOffset<1>({}, {lnp::Shape{}}, [&](auto) { ++count; });
  EXPECT_EQ(count, 1);
}

TEST(LowNumpyElementwise, AddBroadcastsAndReadsStridedInputs) {
  NDArray a = MakeArray<float>({2, 3}, kF32, {0, 1, 2, 3, 4, 5});
  NDArray b = MakeArray<float>({3}, kF32, {10, 20, 30});
  EXPECT_EQ(ToVector<float>(lnp::add(a, b)), (std::vector<float>{10, 21, 32, 13, 24, 35}));
  // The transpose of a, as a strided view: (3, 2) with strides (1, 3).
  NDArray at = a.CreateStridedView({3, 2}, {1, 3}, 0);
  NDArray col = MakeArray<float>({3, 1}, kF32, {100, 200, 300});
  EXPECT_EQ(ToVector<float>(lnp::add(at, col)), (std::vector<float>{100, 103, 201, 204, 302, 305}));
}

TEST(LowNumpyElementwise, ErrorsNameTheOperator) {
  NDArray a = MakeArray<float>({2, 3}, kF32, {0, 1, 2, 3, 4, 5});
  NDArray b = MakeArray<float>({2}, kF32, {1, 2});
  EXPECT_MINITVM_ERROR(lnp::multiply(a, b), "ValueError",
                       "multiply: shapes (2, 3) and (2,) do not broadcast");
  NDArray d = MakeArray<double>({3}, kF64, {1, 2, 3});
  EXPECT_MINITVM_ERROR(lnp::add(a, d), "ValueError",
                       "add: operands have different dtypes float32 and float64");
  NDArray i = MakeArray<int32_t>({2}, kI32, {1, 2});
  EXPECT_MINITVM_ERROR(lnp::exp(i), "ValueError", "exp: unsupported dtype int32");
  EXPECT_MINITVM_ERROR(lnp::gelu(a, "fast"), "ValueError", "gelu: approximate must be");
}

TEST(LowNumpyElementwise, IntegerSemanticsFollowNumpy) {
  NDArray a = MakeArray<int32_t>({4}, kI32, {7, -7, 7, -7});
  NDArray b = MakeArray<int32_t>({4}, kI32, {2, 2, -2, -2});
  EXPECT_EQ(ToVector<int32_t>(lnp::floor_divide(a, b)), (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(ToVector<int32_t>(lnp::mod(a, b)), (std::vector<int32_t>{1, 1, -1, -1}));
  NDArray zero = MakeArray<int32_t>({1}, kI32, {0});
  EXPECT_EQ(ToVector<int32_t>(lnp::floor_divide(a, zero)), (std::vector<int32_t>{0, 0, 0, 0}));
  // Overflow wraps around.
  NDArray big = MakeArray<int32_t>({1}, kI32, {std::numeric_limits<int32_t>::max()});
  NDArray one = MakeArray<int32_t>({1}, kI32, {1});
  EXPECT_EQ(ToVector<int32_t>(lnp::add(big, one))[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ToVector<int32_t>(lnp::power(MakeArray<int32_t>({1}, kI32, {3}),
                                         MakeArray<int32_t>({1}, kI32, {4})))[0],
            81);
  EXPECT_MINITVM_ERROR(lnp::power(a, MakeArray<int32_t>({1}, kI32, {-1})), "ValueError",
                       "negative integer powers");
  // True division of integers gives float64.
  NDArray q = lnp::divide(a, b);
  EXPECT_EQ(q.dtype(), kF64);
  EXPECT_EQ(ToVector<double>(q), (std::vector<double>{3.5, -3.5, -3.5, 3.5}));
}

TEST(LowNumpyElementwise, FloatModAndNaN) {
  NDArray a = MakeArray<double>({3}, kF64, {5.5, -5.5, NAN});
  NDArray b = MakeArray<double>({3}, kF64, {-2, 2, 1});
  std::vector<double> m = ToVector<double>(lnp::mod(a, b));
  EXPECT_DOUBLE_EQ(m[0], -0.5);
  EXPECT_DOUBLE_EQ(m[1], 0.5);
  EXPECT_TRUE(std::isnan(m[2]));
  std::vector<double> mx = ToVector<double>(lnp::maximum(a, b));
  EXPECT_EQ(mx[0], 5.5);
  EXPECT_TRUE(std::isnan(mx[2]));
  std::vector<double> r = ToVector<double>(lnp::relu(a));
  EXPECT_EQ(r[1], 0.0);
  EXPECT_TRUE(std::isnan(r[2]));
}

TEST(LowNumpyElementwise, ComparisonsLogicWhereClipCast) {
  NDArray a = MakeArray<float>({4}, kF32, {-2, -0.5f, 0.5f, 2});
  NDArray zero = MakeArray<float>({}, kF32, {0});
  NDArray pos = lnp::greater(a, zero);
  EXPECT_TRUE(pos.dtype().is_bool());
  EXPECT_EQ(ToVector<uint8_t>(pos), (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(ToVector<uint8_t>(lnp::logical_not(pos)), (std::vector<uint8_t>{1, 1, 0, 0}));
  // Logical operators take any dtype: nonzero is true.
  EXPECT_EQ(ToVector<uint8_t>(lnp::logical_and(a, pos)), (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(ToVector<float>(lnp::where(pos, a, zero)), (std::vector<float>{0, 0, 0.5f, 2}));
  EXPECT_EQ(ToVector<float>(lnp::clip(a, -1, 1)), (std::vector<float>{-1, -0.5f, 0.5f, 1}));
  EXPECT_EQ(ToVector<int32_t>(lnp::cast(a, kI32)), (std::vector<int32_t>{-2, 0, 0, 2}));
  NDArray u8 = lnp::cast(MakeArray<int32_t>({2}, kI32, {257, -1}), DataType::UInt(8));
  EXPECT_EQ(ToVector<uint8_t>(u8), (std::vector<uint8_t>{1, 255}));
  EXPECT_MINITVM_ERROR(lnp::cast(a, DataType::Float(16)), "ValueError",
                       "cast: unsupported dtype float16");
}

TEST(LowNumpyElementwise, MathFunctions) {
  NDArray a = MakeArray<double>({3}, kF64, {-1, 0, 2});
  auto s = ToVector<double>(lnp::sigmoid(a));
  EXPECT_NEAR(s[0], 1 / (1 + std::exp(1.0)), 1e-15);
  EXPECT_EQ(s[1], 0.5);
  auto g = ToVector<double>(lnp::gelu(a));
  EXPECT_NEAR(g[2], 2 * 0.5 * (1 + std::erf(2 / std::sqrt(2.0))), 1e-15);
  auto r = ToVector<double>(lnp::rsqrt(MakeArray<double>({1}, kF64, {4})));
  EXPECT_EQ(r[0], 0.5);
  // Large negative inputs do not overflow in sigmoid.
  auto big = ToVector<float>(lnp::sigmoid(MakeArray<float>({1}, kF32, {-1000.f})));
  EXPECT_EQ(big[0], 0.0f);
}

TEST(LowNumpyElementwise, RegisteredUnderLownumpyNames) {
  using minitvm::runtime::Registry;
  for (const char* name :
       {"add",     "subtract",      "multiply",    "divide",     "floor_divide", "mod",
        "power",   "maximum",       "minimum",     "negative",   "abs",          "exp",
        "log",     "sqrt",          "rsqrt",       "tanh",       "sigmoid",      "erf",
        "relu",    "gelu",          "equal",       "not_equal",  "less",         "less_equal",
        "greater", "greater_equal", "logical_and", "logical_or", "logical_not",  "where",
        "clip",    "cast"}) {
    EXPECT_TRUE(Registry::Get(std::string("lownumpy.") + name).has_value()) << name;
  }
  NDArray a = MakeArray<float>({2}, kF32, {1, 2});
  NDArray out = Registry::GetOrThrow("lownumpy.add")(a, a).cast<NDArray>();
  EXPECT_EQ(ToVector<float>(out), (std::vector<float>{2, 4}));
}
