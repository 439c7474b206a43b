// Tests of the lownumpy reference models (stage 1): the MLP against its formula, batch-norm
// folding leaving ResNet-18 and MobileNet-v1 unchanged, the LSTM against step-by-step cells,
// and parameters through a .npz file.
#include <gtest/gtest.h>

#include <cmath>

#include "minitvm/lownumpy/lownumpy.h"
#include "minitvm/runtime/npy.h"
#include "minitvm_test_util.h"

namespace lnp = minitvm::lownumpy;
using minitvm::runtime::NDArray;
using minitvm::runtime::String;
using minitvm::testing::ToVector;

namespace {
/*! \brief Max |a - b| / (1 + |b|). */
double MaxRelDiff(const NDArray& a, const NDArray& b) {
  auto va = ToVector<float>(a), vb = ToVector<float>(b);
  EXPECT_EQ(va.size(), vb.size());
  double m = 0;
  for (size_t i = 0; i < va.size(); ++i)
    m = std::max<double>(m, std::abs(va[i] - vb[i]) / (1 + std::abs(vb[i])));
  return m;
}
}  // namespace

TEST(LowNumpyModels, MLPIsLinearReluLinear) {
  lnp::Params p = lnp::MLPInitParams(784, 128, 10, 3);
  EXPECT_EQ(p.at("w0").Shape(), (lnp::Shape{128, 784}));
  EXPECT_EQ(p.at("b1").Shape(), (lnp::Shape{10}));
  NDArray x = lnp::random_uniform({2, 784}, 0, 1, 5);
  NDArray y = lnp::MLP(x, p);
  EXPECT_EQ(y.Shape(), (lnp::Shape{2, 10}));
  NDArray ref = lnp::add(
      lnp::matmul(lnp::maximum(lnp::add(lnp::matmul(x, lnp::permute_dims(p.at("w0"))), p.at("b0")),
                               lnp::zeros({})),
                  lnp::permute_dims(p.at("w1"))),
      p.at("b1"));
  EXPECT_LT(MaxRelDiff(y, ref), 1e-5);
  lnp::Params missing = p;
  missing.erase(String("b1"));
  EXPECT_MINITVM_ERROR(lnp::MLP(x, missing), "ValueError", "mlp: missing parameter \"b1\"");
}

TEST(LowNumpyModels, ResNet18FoldedMatchesUnfolded) {
  lnp::Params p = lnp::ResNet18InitParams(10, 1);
  EXPECT_EQ(p.at("layer2.0.downsample.0.weight").Shape(), (lnp::Shape{128, 64, 1, 1}));
  EXPECT_EQ(p.at("fc.weight").Shape(), (lnp::Shape{10, 512}));
  NDArray x = lnp::random_uniform({1, 3, 32, 32}, -1, 1, 2);
  NDArray y = lnp::ResNet18(x, p);
  EXPECT_EQ(y.Shape(), (lnp::Shape{1, 10}));
  for (float v : ToVector<float>(y)) EXPECT_TRUE(std::isfinite(v));
  lnp::Params folded = lnp::FoldBatchNorm(p, lnp::ResNet18ConvBNPairs());
  EXPECT_EQ(folded.count(String("bn1.weight")), 0u);
  EXPECT_EQ(folded.count(String("conv1.bias")), 1u);
  EXPECT_LT(MaxRelDiff(lnp::ResNet18(x, folded), y), 1e-4);
  EXPECT_MINITVM_ERROR(lnp::ResNet18(lnp::zeros({1, 1, 32, 32}), p), "ValueError",
                       "resnet18: input (1, 1, 32, 32) must have 3 channels");
}

TEST(LowNumpyModels, MobileNetV1FoldedMatchesUnfolded) {
  lnp::Params p = lnp::MobileNetV1InitParams(10, 0.25, 4);
  EXPECT_EQ(p.at("blocks.12.pw.weight").Shape(), (lnp::Shape{256, 256, 1, 1}));
  NDArray x = lnp::random_uniform({1, 3, 32, 32}, -1, 1, 2);
  NDArray y = lnp::MobileNetV1(x, p);
  EXPECT_EQ(y.Shape(), (lnp::Shape{1, 10}));
  lnp::Params folded = lnp::FoldBatchNorm(p, lnp::MobileNetV1ConvBNPairs());
  EXPECT_LT(MaxRelDiff(lnp::MobileNetV1(x, folded), y), 1e-4);
}

TEST(LowNumpyModels, LSTMMatchesStepByStepCells) {
  lnp::Params p = lnp::LSTMInitParams(3, 5, 2, 9);
  NDArray x = lnp::random_uniform({4, 2, 3}, -1, 1, 3);
  lnp::LSTMOutput out = lnp::LSTM(x, p);
  EXPECT_EQ(out.output.Shape(), (lnp::Shape{4, 2, 5}));
  EXPECT_EQ(out.h_n.Shape(), (lnp::Shape{2, 2, 5}));
  // Layer 0 by hand for the first step.
  NDArray x0 = lnp::take(x, lnp::arange(0, 1, 1, minitvm::runtime::DataType::Int(64)), 0);
  lnp::LSTMState s = lnp::lstm_cell(lnp::reshape(x0, {2, 3}), lnp::zeros({2, 5}),
                                    lnp::zeros({2, 5}), p.at("weight_ih_l0"), p.at("weight_hh_l0"),
                                    p.at("bias_ih_l0"), p.at("bias_hh_l0"));
  s = lnp::lstm_cell(s.h, lnp::zeros({2, 5}), lnp::zeros({2, 5}), p.at("weight_ih_l1"),
                     p.at("weight_hh_l1"), p.at("bias_ih_l1"), p.at("bias_hh_l1"));
  NDArray first = lnp::reshape(
      lnp::take(out.output, lnp::arange(0, 1, 1, minitvm::runtime::DataType::Int(64)), 0), {2, 5});
  EXPECT_LT(MaxRelDiff(first, s.h), 1e-6);
}

TEST(LowNumpyModels, ParamsFromNpz) {
  minitvm::testing::TempDir dir;
  lnp::Params p = lnp::MLPInitParams(4, 3, 2, 0);
  std::map<std::string, NDArray> arrays;
  for (const auto& [k, v] : p.items()) arrays[k] = v;
  minitvm::runtime::SaveNpz(dir.File("mlp.npz"), arrays);
  lnp::Params loaded = lnp::LoadParams(dir.File("mlp.npz"));
  NDArray x = lnp::random_uniform({1, 4}, 0, 1, 1);
  EXPECT_EQ(ToVector<float>(lnp::MLP(x, loaded)), ToVector<float>(lnp::MLP(x, p)));
}
