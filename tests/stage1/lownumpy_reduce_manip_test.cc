// Tests of the lownumpy reductions and shape manipulation (stage 1).
#include <gtest/gtest.h>

#include <cmath>

#include "minitvm/lownumpy/lownumpy.h"
#include "minitvm_test_util.h"

namespace lnp = minitvm::lownumpy;
using minitvm::runtime::DataType;
using minitvm::runtime::NDArray;
using minitvm::testing::MakeArray;
using minitvm::testing::ToVector;

namespace {
const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);
const DataType kI64 = DataType::Int(64);
NDArray Iota(const lnp::Shape& shape) {
  return lnp::reshape(lnp::arange(0, static_cast<double>(lnp::ShapeSize(shape))), shape);
}
}  // namespace

TEST(LowNumpyReduce, SumMeanOverAxes) {
  NDArray a = Iota({2, 3});
  EXPECT_EQ(ToVector<float>(lnp::sum(a, lnp::Shape{0})), (std::vector<float>{3, 5, 7}));
  NDArray s = lnp::sum(a, lnp::Shape{-1}, true);
  EXPECT_EQ(s.Shape(), (lnp::Shape{2, 1}));
  EXPECT_EQ(ToVector<float>(s), (std::vector<float>{3, 12}));
  NDArray all = lnp::mean(a);
  EXPECT_EQ(all.ndim(), 0);
  EXPECT_EQ(ToVector<float>(all)[0], 2.5f);
  // Integer sums give int64, integer means float64 (NumPy's rule).
  NDArray ai = lnp::cast(a, kI32);
  EXPECT_EQ(lnp::sum(ai).dtype(), kI64);
  EXPECT_EQ(lnp::mean(ai).dtype(), DataType::Float(64));
  // An empty reduction: sum 0, prod 1, max raises.
  NDArray empty = lnp::zeros({2, 0});
  EXPECT_EQ(ToVector<float>(lnp::sum(empty, lnp::Shape{1})), (std::vector<float>{0, 0}));
  EXPECT_EQ(ToVector<float>(lnp::prod(empty, lnp::Shape{1})), (std::vector<float>{1, 1}));
  EXPECT_MINITVM_ERROR(lnp::max(empty, lnp::Shape{1}), "ValueError",
                       "max: zero-size reduction over shape (2, 0)");
  EXPECT_MINITVM_ERROR(lnp::sum(a, lnp::Shape{2}), "ValueError",
                       "sum: axis 2 is out of range for an array of 2 dimensions");
  EXPECT_MINITVM_ERROR(lnp::sum(a, lnp::Shape{0, -2}), "ValueError", "sum: axis -2 is repeated");
}

TEST(LowNumpyReduce, ArgmaxTakesTheFirstAndNaNWins) {
  NDArray a = MakeArray<float>({2, 3}, kF32, {1, 5, 5, 7, 7, 2});
  EXPECT_EQ(ToVector<int64_t>(lnp::argmax(a, 1)), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ToVector<int64_t>(lnp::argmin(a, 0)), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(ToVector<int64_t>(lnp::argmax(a))[0], 3);
  NDArray n = MakeArray<float>({3}, kF32, {1, NAN, 9});
  EXPECT_EQ(ToVector<int64_t>(lnp::argmax(n))[0], 1);
  EXPECT_TRUE(std::isnan(ToVector<float>(lnp::max(n))[0]));
}

TEST(LowNumpyManip, ReshapePermuteFlatten) {
  NDArray a = Iota({2, 3, 4});
  EXPECT_EQ(lnp::reshape(a, {4, -1}).Shape(), (lnp::Shape{4, 6}));
  EXPECT_MINITVM_ERROR(lnp::reshape(a, {5, -1}), "ValueError",
                       "reshape: cannot reshape an array of shape (2, 3, 4) into (5, -1)");
  // As NumPy, sizes that overflow are refused even when a zero dimension makes them empty.
  NDArray empty = Iota({0});
  EXPECT_EQ(lnp::reshape(empty, {1 << 20, 0}).Shape(), (lnp::Shape{1 << 20, 0}));
  EXPECT_MINITVM_ERROR(lnp::reshape(empty, {int64_t{1} << 62, int64_t{1} << 62, 0}), "ValueError",
                       "the dimensions multiply to more than an int64 can count");
  EXPECT_MINITVM_ERROR(lnp::reshape(empty, {int64_t{1} << 62, 0}), "ValueError",
                       "the shape (4611686018427387904, 0) is too big");
  EXPECT_MINITVM_ERROR(lnp::reshape(empty, {int64_t{1} << 62, int64_t{1} << 62, -1}), "ValueError",
                       "int64");
  NDArray t = lnp::permute_dims(a, lnp::Shape{2, 0, 1});
  EXPECT_EQ(t.Shape(), (lnp::Shape{4, 2, 3}));
  EXPECT_TRUE(t.IsContiguous());
  EXPECT_EQ(ToVector<float>(t)[1], 4.0f);  // t[0, 0, 1] = a[0, 1, 0]
  EXPECT_EQ(lnp::flatten(a, 1).Shape(), (lnp::Shape{2, 12}));
  // Results never alias the input.
  NDArray same = lnp::permute_dims(a, lnp::Shape{0, 1, 2});
  EXPECT_NE(same.data(), a.data());
}

TEST(LowNumpyManip, ConcatenateSplitSqueezeExpand) {
  NDArray a = Iota({2, 2});
  NDArray b = lnp::full({2, 1}, 9);
  NDArray c = lnp::concatenate({a, b}, 1);
  EXPECT_EQ(ToVector<float>(c), (std::vector<float>{0, 1, 9, 2, 3, 9}));
  EXPECT_MINITVM_ERROR(lnp::concatenate({a, b}, 0), "ValueError",
                       "concatenate: array 1 has shape (2, 1) but array 0 has shape (2, 2)");
  auto parts = lnp::split(c, lnp::Shape{1, 2}, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(ToVector<float>(parts[2]), (std::vector<float>{9, 9}));
  EXPECT_MINITVM_ERROR(lnp::split(c, int64_t{2}, 1), "ValueError",
                       "does not split into 2 equal sections");
  NDArray e = lnp::expand_dims(a, {0, -1});
  EXPECT_EQ(e.Shape(), (lnp::Shape{1, 2, 2, 1}));
  EXPECT_EQ(lnp::squeeze(e).Shape(), (lnp::Shape{2, 2}));
  EXPECT_MINITVM_ERROR(lnp::squeeze(e, lnp::Shape{1}), "ValueError",
                       "squeeze: cannot remove axis 1 of size 2");
}

TEST(LowNumpyManip, BroadcastTakePad) {
  NDArray row = Iota({3});
  EXPECT_EQ(ToVector<float>(lnp::broadcast_to(row, {2, 3})),
            (std::vector<float>{0, 1, 2, 0, 1, 2}));
  EXPECT_MINITVM_ERROR(
      lnp::broadcast_to(row, {3, 2}), "ValueError",
      "broadcast_to: an operand of shape (3,) cannot be broadcast to shape (3, 2)");
  NDArray idx = MakeArray<int64_t>({2}, kI64, {2, -3});
  EXPECT_EQ(ToVector<float>(lnp::take(row, idx, 0)), (std::vector<float>{2, 0}));
  NDArray bad = MakeArray<int64_t>({1}, kI64, {3});
  EXPECT_MINITVM_ERROR(lnp::take(row, bad, 0), "ValueError",
                       "take: index 3 is out of bounds for axis 0 of size 3");
  EXPECT_EQ(ToVector<float>(lnp::take(row, bad, 0, "wrap")), (std::vector<float>{0}));
  EXPECT_EQ(ToVector<float>(lnp::pad(row, {1}, {2}, -1)),
            (std::vector<float>{-1, 0, 1, 2, -1, -1}));
  EXPECT_EQ(ToVector<float>(lnp::pad(row, {2}, {1}, 0, "reflect")),
            (std::vector<float>{2, 1, 0, 1, 2, 1}));
  EXPECT_EQ(ToVector<float>(lnp::pad(row, {1}, {1}, 0, "edge")),
            (std::vector<float>{0, 0, 1, 2, 2}));
}

TEST(LowNumpyCreation, FullArangeRandom) {
  EXPECT_EQ(ToVector<int32_t>(lnp::arange(1, 7, 2, kI32)), (std::vector<int32_t>{1, 3, 5}));
  EXPECT_EQ(lnp::arange(0, 1, 0.1).NumElements(), 10);
  EXPECT_EQ(lnp::arange(5, 0).NumElements(), 0);
  EXPECT_MINITVM_ERROR(lnp::arange(0, 1, 0), "ValueError", "arange");
  // A count beyond int64 used to wrap to an empty array.
  EXPECT_MINITVM_ERROR(lnp::arange(0, 1e30), "ValueError", "too many elements");
  NDArray r1 = lnp::random_uniform({100}, -1, 1, 7);
  NDArray r2 = lnp::random_uniform({100}, -1, 1, 7);
  EXPECT_EQ(ToVector<float>(r1), ToVector<float>(r2));
  for (float v : ToVector<float>(r1)) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
}
