// Tests of the lownumpy matrix and neural-network operators (stage 1): small hand-computed
// values, the shape rules, and the errors for inconsistent shapes and attributes.
#include <gtest/gtest.h>

#include <cmath>

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
NDArray Iota(const lnp::Shape& shape) {
  return lnp::reshape(lnp::arange(0, static_cast<double>(lnp::ShapeSize(shape))), shape);
}
}  // namespace

TEST(LowNumpyLinalg, MatmulShapes) {
  NDArray a = Iota({2, 3});
  NDArray b = Iota({3, 2});
  EXPECT_EQ(ToVector<float>(lnp::matmul(a, b)), (std::vector<float>{10, 13, 28, 40}));
  EXPECT_EQ(lnp::matmul(Iota({5, 1, 2, 3}), Iota({4, 3, 2})).Shape(), (lnp::Shape{5, 4, 2, 2}));
  EXPECT_EQ(lnp::matmul(Iota({3}), b).Shape(), (lnp::Shape{2}));
  EXPECT_EQ(lnp::matmul(a, Iota({3})).Shape(), (lnp::Shape{2}));
  EXPECT_MINITVM_ERROR(lnp::matmul(a, a), "ValueError",
                       "matmul: contracted dimensions differ: lhs (2, 3) has 3 columns, rhs "
                       "(2, 3) has 2 rows");
  EXPECT_MINITVM_ERROR(lnp::matmul(Iota({2, 2, 3}), Iota({3, 3, 2})), "ValueError",
                       "matmul: batch dimensions of (2, 2, 3) and (3, 3, 2) do not broadcast");
}

TEST(LowNumpyLinalg, Linear) {
  NDArray x = Iota({2, 3});
  NDArray w = MakeArray<float>({2, 3}, kF32, {1, 0, 0, 0, 1, 1});
  NDArray b = MakeArray<float>({2}, kF32, {10, 20});
  EXPECT_EQ(ToVector<float>(lnp::linear(x, w, b)), (std::vector<float>{10, 23, 13, 29}));
  EXPECT_MINITVM_ERROR(lnp::linear(x, lnp::zeros({2, 4})), "ValueError",
                       "linear: x (2, 3) has 3 features but weight (2, 4) expects 4");
}

TEST(LowNumpyConv, Conv2dByHand) {
  // A 3x3 image convolved with a 2x2 kernel of ones: sums of 2x2 windows.
  NDArray x = Iota({1, 1, 3, 3});
  NDArray w = lnp::ones({1, 1, 2, 2});
  EXPECT_EQ(ToVector<float>(lnp::conv2d(x, w)), (std::vector<float>{8, 12, 20, 24}));
  // Padding 1, stride 2: windows at (-1,-1), (-1,1), (1,-1), (1,1).
  NDArray y = lnp::conv2d(x, w, lnp::full({1}, 100), {2}, {1});
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{100, 103, 109, 124}));
  // Dilation 2 with a 2x2 kernel touches the four corners.
  EXPECT_EQ(ToVector<float>(lnp::conv2d(x, w, NDArray(), {1}, {0}, {2})), (std::vector<float>{16}));
  EXPECT_MINITVM_ERROR(lnp::conv2d(x, lnp::ones({1, 2, 2, 2})), "ValueError",
                       "conv2d: input (1, 1, 3, 3) and weight (1, 2, 2, 2) do not match groups=1");
  EXPECT_MINITVM_ERROR(lnp::conv2d(x, lnp::ones({1, 1, 4, 4})), "ValueError",
                       "does not fit the padded input");
  EXPECT_MINITVM_ERROR(lnp::conv2d(x, w, NDArray(), {0}), "ValueError",
                       "conv2d: strides (0,) must be at least 1");
  EXPECT_MINITVM_ERROR(lnp::conv2d(x, w, NDArray(), {1}, {1, 2, 3}), "ValueError",
                       "conv2d: padding takes 1, 2 or 4 values");
}

TEST(LowNumpyConv, GroupedAndTransposed) {
  // Depthwise: each channel with its own kernel.
  NDArray x = lnp::ones({1, 2, 2, 2});
  NDArray w = MakeArray<float>({2, 1, 1, 1}, kF32, {2, 3});
  EXPECT_EQ(ToVector<float>(lnp::conv2d(x, w, NDArray(), {1}, {0}, {1}, 2)),
            (std::vector<float>{2, 2, 2, 2, 3, 3, 3, 3}));
  // Transposed conv of a single pixel with stride 2 places the kernel.
  NDArray one = lnp::ones({1, 1, 1, 1});
  NDArray k = Iota({1, 1, 2, 2});
  NDArray t = lnp::conv2d_transpose(one, k, NDArray(), {2});
  EXPECT_EQ(t.Shape(), (lnp::Shape{1, 1, 2, 2}));
  EXPECT_EQ(ToVector<float>(t), (std::vector<float>{0, 1, 2, 3}));
  NDArray t2 = lnp::conv2d_transpose(lnp::ones({1, 1, 2, 2}), k, NDArray(), {2}, {0}, {1});
  EXPECT_EQ(t2.Shape(), (lnp::Shape{1, 1, 5, 5}));
  EXPECT_MINITVM_ERROR(lnp::conv2d_transpose(one, k, NDArray(), {1}, {0}, {1}), "ValueError",
                       "output_padding (1,) must be smaller than the stride or the dilation");
}

TEST(LowNumpyPool, MaxAvgAdaptive) {
  NDArray x = Iota({1, 1, 4, 4});
  EXPECT_EQ(ToVector<float>(lnp::max_pool2d(x, {2})), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(ToVector<float>(lnp::avg_pool2d(x, {2})), (std::vector<float>{2.5, 4.5, 10.5, 12.5}));
  // 3x3 windows, stride 2, padding 1: the corner window holds 4 of 9 elements.
  NDArray inc = lnp::avg_pool2d(x, {3}, {2}, {1}, false, true);
  NDArray exc = lnp::avg_pool2d(x, {3}, {2}, {1}, false, false);
  EXPECT_FLOAT_EQ(ToVector<float>(inc)[0], (0 + 1 + 4 + 5) / 9.0f);
  EXPECT_FLOAT_EQ(ToVector<float>(exc)[0], (0 + 1 + 4 + 5) / 4.0f);
  // ceil_mode adds the partial window on the right.
  EXPECT_EQ(lnp::max_pool2d(Iota({1, 1, 5, 5}), {2}, {2}, {0}, {1}, true).Shape(),
            (lnp::Shape{1, 1, 3, 3}));
  EXPECT_EQ(ToVector<float>(lnp::adaptive_avg_pool2d(x, {1})), (std::vector<float>{7.5}));
  EXPECT_EQ(lnp::adaptive_avg_pool2d(x, {3, 2}).Shape(), (lnp::Shape{1, 1, 3, 2}));
  EXPECT_MINITVM_ERROR(lnp::max_pool2d(x, {2}, {2}, {2}), "ValueError",
                       "max_pool2d: padding (2,) must be at most half of the window (2,)");
  EXPECT_MINITVM_ERROR(lnp::max_pool2d(Iota({4, 4}), {2}), "ValueError",
                       "max_pool2d: input must have 4 dimensions but has shape (4, 4)");
}

TEST(LowNumpyNorm, BatchNormLayerNormSoftmax) {
  NDArray x = Iota({1, 2, 1, 2});  // channel 0: 0, 1; channel 1: 2, 3
  NDArray gamma = MakeArray<float>({2}, kF32, {1, 2});
  NDArray beta = MakeArray<float>({2}, kF32, {0, 1});
  NDArray mean = MakeArray<float>({2}, kF32, {0, 2});
  NDArray var = MakeArray<float>({2}, kF32, {1, 4});
  auto y = ToVector<float>(lnp::batch_norm(x, gamma, beta, mean, var, 1, 0.0));
  EXPECT_EQ(y, (std::vector<float>{0, 1, 1, 2}));
  EXPECT_MINITVM_ERROR(lnp::batch_norm(x, lnp::ones({3}), beta, mean, var), "ValueError",
                       "batch_norm: gamma has shape (3,) but must have shape (2,)");
  NDArray ln = lnp::layer_norm(Iota({2, 4}), NDArray(), NDArray(), {-1}, 0.0);
  auto lv = ToVector<float>(ln);
  EXPECT_NEAR(lv[0], -1.3416408f, 1e-6);
  EXPECT_NEAR(lv[4], -1.3416408f, 1e-6);
  NDArray sm = lnp::softmax(Iota({2, 3}), 0);
  auto sv = ToVector<float>(sm);
  EXPECT_NEAR(sv[0] + sv[3], 1.0f, 1e-6);
  auto lsm = ToVector<float>(lnp::log_softmax(MakeArray<float>({2}, kF32, {1000, 1000})));
  EXPECT_NEAR(lsm[0], -std::log(2.0f), 1e-6);
}

TEST(LowNumpyLSTM, CellShapesAndValues) {
  const int64_t N = 2, I = 3, H = 4;
  NDArray x = lnp::random_uniform({N, I}, -1, 1, 1);
  NDArray h = lnp::zeros({N, H}), c = lnp::zeros({N, H});
  NDArray w_ih = lnp::zeros({4 * H, I}), w_hh = lnp::zeros({4 * H, H});
  // With zero weights all gates are sigmoid(0) = 0.5 and g = tanh(0) = 0: c' = 0, h' = 0.
  lnp::LSTMState s = lnp::lstm_cell(x, h, c, w_ih, w_hh);
  for (float v : ToVector<float>(s.h)) EXPECT_EQ(v, 0.0f);
  // A bias of 1 on g gives c' = 0.5 * tanh(1), h' = 0.5 * tanh(c').
  NDArray bias = lnp::concatenate({lnp::zeros({2 * H}), lnp::ones({H}), lnp::zeros({H})}, 0);
  s = lnp::lstm_cell(x, h, c, w_ih, w_hh, bias);
  EXPECT_NEAR(ToVector<float>(s.c)[0], 0.5f * std::tanh(1.0f), 1e-6);
  EXPECT_NEAR(ToVector<float>(s.h)[0], 0.5f * std::tanh(0.5f * std::tanh(1.0f)), 1e-6);
  EXPECT_MINITVM_ERROR(lnp::lstm_cell(x, h, c, lnp::zeros({4 * H, I + 1}), w_hh), "ValueError",
                       "lstm_cell: w_ih has shape (16, 4) but input size 3");
}

TEST(LowNumpyConv, CalledByNameWithArrayAttributes) {
  using minitvm::runtime::Array;
  using minitvm::runtime::PackedFunc;
  using minitvm::runtime::Registry;
  PackedFunc conv = Registry::GetOrThrow("lownumpy.conv2d");
  NDArray x = Iota({1, 1, 3, 3});
  NDArray y = conv(x, lnp::ones({1, 1, 2, 2}), NDArray(), Array<int64_t>{2}, Array<int64_t>{1},
                   Array<int64_t>{1}, 1)
                  .cast<NDArray>();
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{0, 3, 9, 24}));
}
