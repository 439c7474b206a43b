/*!
 * \file topi_nn_test.cc
 * \brief Differential tests of the TOPI nn and linear-algebra operators (stage 2): matmul
 * (2-D, 1-D, batched with broadcasting), dense/linear, conv2d (stride, padding, dilation,
 * groups), conv2d_transpose, pooling, adaptive pooling, batch_norm, layer_norm, softmax and
 * log_softmax — random configurations, against "lownumpy.<op>".
 */
#include <gtest/gtest.h>

#include "minitvm/topi/topi.h"
#include "minitvm_test_util.h"
#include "topi_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using te::Tensor;

const DataType f32 = DataType::Float(32);

Array<Any> Ints(std::initializer_list<int64_t> v) {
  Array<Any> out;
  for (int64_t x : v) out.push_back(x);
  return out;
}
Array<Any> Ints(const std::vector<int64_t>& v) {
  Array<Any> out;
  for (int64_t x : v) out.push_back(x);
  return out;
}

TEST(TopiNN, MatmulShapesAgainstReference) {
  MINITVM_REFERENCE_OR_SKIP(ref, "matmul");
  std::mt19937 rng(21);
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{3, 4}, {4, 5}},      {{4}, {4, 2}},
      {{3, 4}, {4}},         {{5}, {5}},
      {{2, 3, 4}, {4, 5}},   {{2, 1, 3, 4}, {3, 4, 2}},
      {{1, 2, 3}, {4, 3, 2}}};
  for (auto& [sa, sb] : cases) {
    Tensor A = Placeholder(sa, f32, "A"), B = Placeholder(sb, f32, "B");
    Tensor C = topi::matmul(A, B);
    NDArray a = RandomArray(sa, f32, &rng), b = RandomArray(sb, f32, &rng);
    EXPECT_TRUE(AllClose(RunTE({A, B}, {C}, {a, b})[0], ref(a, b).cast<NDArray>(), 1e-5, 1e-5))
        << Str(sa) << " @ " << Str(sb);
  }
  // Transposed operands equal matmul of the transposes.
  Tensor A = Placeholder({4, 3}, f32, "A"), B = Placeholder({5, 4}, f32, "B");
  Tensor C = topi::matmul(A, B, true, true);
  Tensor At = topi::transpose(A), Bt = topi::transpose(B);
  Tensor D = topi::matmul(At, Bt);
  NDArray a = RandomArray({4, 3}, f32, &rng), b = RandomArray({5, 4}, f32, &rng);
  auto outs = RunTE({A, B}, {C, D}, {a, b});
  EXPECT_TRUE(AllClose(outs[0], outs[1], 1e-6, 1e-6));
  Tensor bad = Placeholder({5, 7}, f32, "bad");
  EXPECT_TRUE(ThrowsError([&] { topi::matmul(A, bad); }, "ValueError",
                          "matmul: contracted extents differ"));
}

TEST(TopiNN, DenseIsLinear) {
  MINITVM_REFERENCE_OR_SKIP(ref, "linear");
  std::mt19937 rng(22);
  for (bool with_bias : {false, true}) {
    Tensor X = Placeholder({3, 8}, f32, "X"), W = Placeholder({5, 8}, f32, "W");
    Tensor B = Placeholder({5}, f32, "B");
    Tensor Y = topi::nn::dense(X, W, with_bias ? B : Tensor());
    NDArray x = RandomArray({3, 8}, f32, &rng), w = RandomArray({5, 8}, f32, &rng);
    NDArray b = RandomArray({5}, f32, &rng);
    std::vector<Tensor> ins = {X, W};
    std::vector<NDArray> args = {x, w};
    if (with_bias) {
      ins.push_back(B);
      args.push_back(b);
    }
    NDArray want = ref(x, w, with_bias ? b : NDArray()).cast<NDArray>();
    EXPECT_TRUE(AllClose(RunTE(ins, {Y}, args)[0], want, 1e-5, 1e-5));
  }
}

TEST(TopiNN, Conv2dRandomConfigurations) {
  MINITVM_REFERENCE_OR_SKIP(ref, "conv2d");
  std::mt19937 rng(23);
  struct Conv {
    int64_t n, c, h, w, o, kh, kw, groups;
    std::vector<int64_t> stride, padding, dilation;
  };
  std::vector<Conv> cases = {
      {1, 3, 7, 7, 4, 3, 3, 1, {1}, {0}, {1}},
      {2, 4, 8, 6, 6, 3, 2, 2, {2, 1}, {1, 0}, {1}},
      {1, 2, 9, 9, 3, 3, 3, 1, {2}, {1, 2, 0, 1}, {2}},
      {1, 4, 5, 5, 4, 3, 3, 4, {1}, {1}, {1}},  // depthwise
  };
  for (const Conv& c : cases) {
    Tensor X = Placeholder({c.n, c.c, c.h, c.w}, f32, "X");
    Tensor W = Placeholder({c.o, c.c / c.groups, c.kh, c.kw}, f32, "W");
    Tensor Y = topi::nn::conv2d_nchw(X, W, c.stride, c.padding, c.dilation, c.groups);
    NDArray x = RandomArray(ConstShape(X), f32, &rng), w = RandomArray(ConstShape(W), f32, &rng);
    NDArray want = ref(x, w, NDArray(), Ints(c.stride), Ints(c.padding), Ints(c.dilation), c.groups)
                       .cast<NDArray>();
    EXPECT_TRUE(AllClose(RunTE({X, W}, {Y}, {x, w})[0], want, 1e-5, 1e-5))
        << "conv " << Str({c.n, c.c, c.h, c.w}) << " groups " << c.groups;
  }
}

TEST(TopiNN, Conv2dTransposeRandomConfigurations) {
  MINITVM_REFERENCE_OR_SKIP(ref, "conv2d_transpose");
  std::mt19937 rng(24);
  struct Conv {
    int64_t n, c, h, w, og, kh, kw, groups;
    std::vector<int64_t> stride, padding, output_padding, dilation;
  };
  std::vector<Conv> cases = {
      {1, 2, 4, 4, 3, 3, 3, 1, {1}, {0}, {0}, {1}},
      {1, 2, 3, 5, 2, 3, 2, 1, {2}, {1}, {1, 0}, {1}},
      {2, 4, 3, 3, 1, 2, 2, 2, {2, 3}, {0, 1}, {0}, {1}},
      {1, 1, 4, 4, 1, 3, 3, 1, {1}, {2}, {0}, {2}},
  };
  for (const Conv& c : cases) {
    Tensor X = Placeholder({c.n, c.c, c.h, c.w}, f32, "X");
    Tensor W = Placeholder({c.c, c.og, c.kh, c.kw}, f32, "W");
    Tensor Y = topi::nn::conv2d_transpose_nchw(X, W, c.stride, c.padding, c.output_padding,
                                               c.dilation, c.groups);
    NDArray x = RandomArray(ConstShape(X), f32, &rng), w = RandomArray(ConstShape(W), f32, &rng);
    NDArray want = ref(x, w, NDArray(), Ints(c.stride), Ints(c.padding), Ints(c.output_padding),
                       Ints(c.dilation), c.groups)
                       .cast<NDArray>();
    EXPECT_TRUE(AllClose(RunTE({X, W}, {Y}, {x, w})[0], want, 1e-5, 1e-5))
        << "conv_transpose " << Str({c.n, c.c, c.h, c.w});
  }
}

TEST(TopiNN, PoolingAgainstReference) {
  MINITVM_REFERENCE_OR_SKIP(max_ref, "max_pool2d");
  MINITVM_REFERENCE_OR_SKIP(avg_ref, "avg_pool2d");
  std::mt19937 rng(25);
  struct Pool {
    std::vector<int64_t> shape, kernel, stride, padding, dilation;
    bool ceil_mode, count_include_pad;
  };
  std::vector<Pool> cases = {
      {{1, 2, 6, 6}, {2}, {2}, {0}, {1}, false, true},
      {{2, 1, 7, 5}, {3}, {2}, {1}, {1}, false, true},
      {{1, 2, 7, 7}, {3, 2}, {2, 2}, {1, 0}, {1}, true, false},
      {{1, 1, 8, 8}, {3}, {3}, {1}, {1}, true, true},
      {{1, 1, 9, 9}, {2}, {1}, {1}, {2}, false, true},
  };
  for (const Pool& p : cases) {
    Tensor X = Placeholder(p.shape, f32, "X");
    NDArray x = RandomArray(p.shape, f32, &rng);
    Tensor M = topi::nn::pool2d(X, p.kernel, p.stride, p.dilation, p.padding, "max", p.ceil_mode);
    NDArray want_max =
        max_ref(x, Ints(p.kernel), Ints(p.stride), Ints(p.padding), Ints(p.dilation), p.ceil_mode)
            .cast<NDArray>();
    EXPECT_TRUE(AllClose(RunTE({X}, {M}, {x})[0], want_max)) << "max pool " << Str(p.shape);
    if (p.dilation[0] != 1) continue;
    Tensor A = topi::nn::pool2d(X, p.kernel, p.stride, {1}, p.padding, "avg", p.ceil_mode,
                                p.count_include_pad);
    NDArray want_avg = avg_ref(x, Ints(p.kernel), Ints(p.stride), Ints(p.padding), p.ceil_mode,
                               p.count_include_pad)
                           .cast<NDArray>();
    EXPECT_TRUE(AllClose(RunTE({X}, {A}, {x})[0], want_avg)) << "avg pool " << Str(p.shape);
  }
}

TEST(TopiNN, AdaptiveAvgPool) {
  MINITVM_REFERENCE_OR_SKIP(ref, "adaptive_avg_pool2d");
  std::mt19937 rng(26);
  for (auto [h, w, oh, ow] : std::vector<std::array<int64_t, 4>>{
           {6, 6, 3, 3}, {7, 5, 3, 2}, {5, 5, 1, 1}, {4, 7, 4, 3}}) {
    Tensor X = Placeholder({2, 3, h, w}, f32, "X");
    Tensor Y = topi::nn::adaptive_pool(X, {oh, ow}, "avg");
    NDArray x = RandomArray({2, 3, h, w}, f32, &rng);
    EXPECT_TRUE(AllClose(RunTE({X}, {Y}, {x})[0], ref(x, Ints({oh, ow})).cast<NDArray>()))
        << h << "x" << w << " -> " << oh << "x" << ow;
  }
}

TEST(TopiNN, NormalizationsAndSoftmax) {
  MINITVM_REFERENCE_OR_SKIP(bn_ref, "batch_norm");
  MINITVM_REFERENCE_OR_SKIP(ln_ref, "layer_norm");
  MINITVM_REFERENCE_OR_SKIP(sm_ref, "softmax");
  MINITVM_REFERENCE_OR_SKIP(lsm_ref, "log_softmax");
  std::mt19937 rng(27);
  {
    Tensor X = Placeholder({2, 3, 4, 4}, f32, "X");
    std::vector<Tensor> params;
    for (const char* n : {"gamma", "beta", "mean", "var"})
      params.push_back(Placeholder({3}, f32, n));
    Tensor Y = topi::nn::batch_norm(X, params[0], params[1], params[2], params[3], 1, 1e-5)[0];
    NDArray x = RandomArray({2, 3, 4, 4}, f32, &rng);
    NDArray g = RandomArray({3}, f32, &rng), b = RandomArray({3}, f32, &rng);
    NDArray m = RandomArray({3}, f32, &rng), v = RandomArray({3}, f32, &rng, 0.5, 2);
    EXPECT_TRUE(
        AllClose(RunTE({X, params[0], params[1], params[2], params[3]}, {Y}, {x, g, b, m, v})[0],
                 bn_ref(x, g, b, m, v, 1, 1e-5).cast<NDArray>(), 1e-5, 1e-5));
  }
  for (std::vector<int64_t> axes : {std::vector<int64_t>{-1}, std::vector<int64_t>{1, 2}}) {
    Tensor X = Placeholder({2, 3, 5}, f32, "X");
    std::vector<int64_t> ps =
        axes.size() == 1 ? std::vector<int64_t>{5} : std::vector<int64_t>{3, 5};
    Tensor G = Placeholder(ps, f32, "G"), B = Placeholder(ps, f32, "B");
    Tensor Y = topi::nn::layer_norm(X, G, B, axes, 1e-5);
    NDArray x = RandomArray({2, 3, 5}, f32, &rng);
    NDArray g = RandomArray(ps, f32, &rng), b = RandomArray(ps, f32, &rng);
    EXPECT_TRUE(AllClose(RunTE({X, G, B}, {Y}, {x, g, b})[0],
                         ln_ref(x, g, b, Ints(axes), 1e-5).cast<NDArray>(), 1e-4, 1e-5));
  }
  for (int64_t axis : {-1, 0, 1}) {
    Tensor X = Placeholder({3, 4, 5}, f32, "X");
    NDArray x = RandomArray({3, 4, 5}, f32, &rng, -3, 3);
    Tensor S = topi::nn::softmax(X, axis), L = topi::nn::log_softmax(X, axis);
    auto outs = RunTE({X}, {S, L}, {x});
    EXPECT_TRUE(AllClose(outs[0], sm_ref(x, axis).cast<NDArray>(), 1e-5, 1e-6)) << axis;
    EXPECT_TRUE(AllClose(outs[1], lsm_ref(x, axis).cast<NDArray>(), 1e-5, 1e-5)) << axis;
  }
}

TEST(TopiNN, ConvErrorsNameTheProblem) {
  Tensor X = Placeholder({1, 3, 5, 5}, f32, "X"), W = Placeholder({4, 2, 3, 3}, f32, "W");
  EXPECT_TRUE(ThrowsError([&] { topi::nn::conv2d_nchw(X, W); }, "ValueError",
                          "conv2d_nchw: input has 3 channels but the filter expects 2 x 1 groups"));
  Tensor W2 = Placeholder({4, 3, 7, 7}, f32, "W2");
  EXPECT_TRUE(ThrowsError([&] { topi::nn::conv2d_nchw(X, W2); }, "ValueError",
                          "the output would be empty"));
}

}  // namespace
}  // namespace minitvm
