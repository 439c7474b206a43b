/*!
 * \file models.cc
 * \brief The reference models of lownumpy (stage 1): MLP, ResNet-18, MobileNet-v1 and a
 * multi-layer LSTM, written as short compositions of the lownumpy operators, with seeded
 * parameter initialisation and batch-norm folding.
 */
#include "minitvm/lownumpy/models.h"

#include <cmath>
#include <cstring>

#include "./op_util.h"
#include "minitvm/lownumpy/creation.h"
#include "minitvm/lownumpy/elementwise.h"
#include "minitvm/lownumpy/linalg.h"
#include "minitvm/lownumpy/manip.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/runtime/npy.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

NDArray GetParam(const std::string& model, const Params& params, const std::string& name) {
  std::optional<NDArray> p = params.Get(String(name));
  if (!p || !p->defined()) {
    MINITVM_THROW(ValueError) << model << ": missing parameter \"" << name << "\"";
  }
  return *p;
}

Params LoadParams(const std::string& path) {
  Params params;
  for (const auto& [name, array] : runtime::LoadNpz(path)) params.Set(String(name), array);
  return params;
}

namespace {

/*! \brief Draws parameter arrays in a fixed order from one seed. */
class ParamMaker {
 public:
  ParamMaker(uint64_t seed, DataType dtype) : rng_(seed), dtype_(dtype) {
    if (dtype != DataType::Float(32) && dtype != DataType::Float(64)) {
      MINITVM_THROW(ValueError) << "model parameters must be float32 or float64, not " << dtype;
    }
  }
  /*! \brief Add `name` uniform in [low, high). */
  void Uniform(const std::string& name, const Shape& shape, double low, double high) {
    params.Set(String(name), random_uniform(shape, low, high, rng_.Next(), dtype_));
  }
  /*! \brief A weight uniform in ±bound with bound = gain / sqrt(fan_in). */
  void Weight(const std::string& name, const Shape& shape, double gain) {
    int64_t fan_in = ShapeSize(shape) / shape[0];
    double bound = gain / std::sqrt(static_cast<double>(fan_in));
    Uniform(name, shape, -bound, bound);
  }
  /*! \brief A batch norm over `channels` with statistics near the identity. */
  void BatchNorm(const std::string& prefix, int64_t channels) {
    Uniform(prefix + ".weight", {channels}, 0.5, 1.5);
    Uniform(prefix + ".bias", {channels}, -0.2, 0.2);
    Uniform(prefix + ".running_mean", {channels}, -0.2, 0.2);
    Uniform(prefix + ".running_var", {channels}, 0.5, 1.5);
  }
  Params params;

 private:
  SplitMix64 rng_;
  DataType dtype_;
};

/*! \brief He initialisation's gain for ReLU networks: bound = sqrt(6 / fan_in). */
const double kHeGain = std::sqrt(6.0);

/*!
 * \brief conv (no bias) followed by batch norm — or, when the parameters hold no batch norm
 * for it, a folded conv with bias.
 */
NDArray ConvBN(const std::string& model, const NDArray& x, const Params& p, const std::string& conv,
               const std::string& bn, int64_t stride, int64_t pad, int64_t groups = 1) {
  NDArray w = GetParam(model, p, conv + ".weight");
  if (p.count(String(bn + ".weight"))) {
    NDArray y = conv2d(x, w, NDArray(), {stride}, {pad}, {1}, groups);
    return batch_norm(y, GetParam(model, p, bn + ".weight"), GetParam(model, p, bn + ".bias"),
                      GetParam(model, p, bn + ".running_mean"),
                      GetParam(model, p, bn + ".running_var"), 1, 1e-5);
  }
  return conv2d(x, w, GetParam(model, p, conv + ".bias"), {stride}, {pad}, {1}, groups);
}

/*! \brief Check an NCHW model input. */
void CheckImage(const std::string& model, const NDArray& x) {
  CheckRank(model, x, 4, "input");
  if (x.Shape()[1] != 3) {
    MINITVM_THROW(ValueError) << model << ": input " << ShapeToString(x.Shape())
                              << " must have 3 channels (N, 3, H, W)";
  }
}

}  // namespace

// ---- MLP -------------------------------------------------------------------------------------

Params MLPInitParams(int64_t in_features, int64_t hidden, int64_t out_features, uint64_t seed,
                     DataType dtype) {
  if (in_features < 1 || hidden < 1 || out_features < 1) {
    MINITVM_THROW(ValueError) << "mlp: sizes must be positive, got " << in_features << ", "
                              << hidden << ", " << out_features;
  }
  ParamMaker m(seed, dtype);
  const double b0 = 1.0 / std::sqrt(static_cast<double>(in_features));
  const double b1 = 1.0 / std::sqrt(static_cast<double>(hidden));
  m.Uniform("w0", {hidden, in_features}, -b0, b0);
  m.Uniform("b0", {hidden}, -b0, b0);
  m.Uniform("w1", {out_features, hidden}, -b1, b1);
  m.Uniform("b1", {out_features}, -b1, b1);
  return m.params;
}

NDArray MLP(const NDArray& x, const Params& params) {
  const std::string model = "mlp";
  NDArray lv0 = linear(x, GetParam(model, params, "w0"), GetParam(model, params, "b0"));
  NDArray lv1 = relu(lv0);
  return linear(lv1, GetParam(model, params, "w1"), GetParam(model, params, "b1"));
}

// ---- ResNet-18 -------------------------------------------------------------------------------

namespace {
/*! \brief The four stages of ResNet-18: output channels and the stride of the first block. */
constexpr std::array<std::pair<int64_t, int64_t>, 4> kResNetStages{
    {{64, 1}, {128, 2}, {256, 2}, {512, 2}}};
}  // namespace

Params ResNet18InitParams(int64_t num_classes, uint64_t seed, DataType dtype) {
  if (num_classes < 1) MINITVM_THROW(ValueError) << "resnet18: num_classes must be positive";
  ParamMaker m(seed, dtype);
  m.Weight("conv1.weight", {64, 3, 7, 7}, kHeGain);
  m.BatchNorm("bn1", 64);
  int64_t in = 64;
  for (int s = 0; s < 4; ++s) {
    const auto [out, stride] = kResNetStages[s];
    for (int b = 0; b < 2; ++b) {
      const std::string p = "layer" + std::to_string(s + 1) + "." + std::to_string(b) + ".";
      m.Weight(p + "conv1.weight", {out, b == 0 ? in : out, 3, 3}, kHeGain);
      m.BatchNorm(p + "bn1", out);
      m.Weight(p + "conv2.weight", {out, out, 3, 3}, kHeGain);
      m.BatchNorm(p + "bn2", out);
      if (b == 0 && (stride != 1 || in != out)) {
        m.Weight(p + "downsample.0.weight", {out, in, 1, 1}, kHeGain);
        m.BatchNorm(p + "downsample.1", out);
      }
    }
    in = out;
  }
  m.Weight("fc.weight", {num_classes, 512}, 1.0);
  m.Uniform("fc.bias", {num_classes}, -1.0 / std::sqrt(512.0), 1.0 / std::sqrt(512.0));
  return m.params;
}

std::vector<std::pair<std::string, std::string>> ResNet18ConvBNPairs() {
  std::vector<std::pair<std::string, std::string>> pairs{{"conv1", "bn1"}};
  for (int s = 0; s < 4; ++s) {
    for (int b = 0; b < 2; ++b) {
      const std::string p = "layer" + std::to_string(s + 1) + "." + std::to_string(b) + ".";
      pairs.emplace_back(p + "conv1", p + "bn1");
      pairs.emplace_back(p + "conv2", p + "bn2");
      if (b == 0 && s > 0) pairs.emplace_back(p + "downsample.0", p + "downsample.1");
    }
  }
  return pairs;
}

NDArray ResNet18(const NDArray& x, const Params& params) {
  const std::string model = "resnet18";
  CheckImage(model, x);
  // Stem: 7x7/2 conv, batch norm, ReLU, 3x3/2 max pooling.
  NDArray h = relu(ConvBN(model, x, params, "conv1", "bn1", 2, 3));
  h = max_pool2d(h, {3}, {2}, {1});
  for (int s = 0; s < 4; ++s) {
    const int64_t stride = kResNetStages[s].second;
    for (int b = 0; b < 2; ++b) {
      // A basic block: two 3x3 convs and a shortcut, which is a 1x1 conv when the shape
      // changes.
      const std::string p = "layer" + std::to_string(s + 1) + "." + std::to_string(b) + ".";
      const int64_t st = b == 0 ? stride : 1;
      NDArray y = relu(ConvBN(model, h, params, p + "conv1", p + "bn1", st, 1));
      y = ConvBN(model, y, params, p + "conv2", p + "bn2", 1, 1);
      NDArray shortcut = h;
      if (params.count(String(p + "downsample.0.weight"))) {
        shortcut = ConvBN(model, h, params, p + "downsample.0", p + "downsample.1", st, 0);
      }
      h = relu(add(y, shortcut));
    }
  }
  // Head: global average pooling, flatten, fully connected.
  h = flatten(adaptive_avg_pool2d(h, {1, 1}), 1);
  return linear(h, GetParam(model, params, "fc.weight"), GetParam(model, params, "fc.bias"));
}

// ---- MobileNet-v1 ----------------------------------------------------------------------------

namespace {
/*! \brief The 13 depthwise-separable blocks: output channels (at width 1) and stride. */
constexpr std::array<std::pair<int64_t, int64_t>, 13> kMobileNetBlocks{{{64, 1},
                                                                        {128, 2},
                                                                        {128, 1},
                                                                        {256, 2},
                                                                        {256, 1},
                                                                        {512, 2},
                                                                        {512, 1},
                                                                        {512, 1},
                                                                        {512, 1},
                                                                        {512, 1},
                                                                        {512, 1},
                                                                        {1024, 2},
                                                                        {1024, 1}}};
}  // namespace

Params MobileNetV1InitParams(int64_t num_classes, double width, uint64_t seed, DataType dtype) {
  if (num_classes < 1 || !(width > 0)) {
    MINITVM_THROW(ValueError) << "mobilenet_v1: num_classes (" << num_classes << ") and width ("
                              << width << ") must be positive";
  }
  auto scaled = [width](int64_t c) {
    return std::max<int64_t>(1, static_cast<int64_t>(std::llround(c * width)));
  };
  ParamMaker m(seed, dtype);
  int64_t in = scaled(32);
  m.Weight("conv0.weight", {in, 3, 3, 3}, kHeGain);
  m.BatchNorm("bn0", in);
  for (size_t i = 0; i < kMobileNetBlocks.size(); ++i) {
    const int64_t out = scaled(kMobileNetBlocks[i].first);
    const std::string p = "blocks." + std::to_string(i) + ".";
    m.Weight(p + "dw.weight", {in, 1, 3, 3}, kHeGain);
    m.BatchNorm(p + "dw_bn", in);
    m.Weight(p + "pw.weight", {out, in, 1, 1}, kHeGain);
    m.BatchNorm(p + "pw_bn", out);
    in = out;
  }
  m.Weight("fc.weight", {num_classes, in}, 1.0);
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  m.Uniform("fc.bias", {num_classes}, -bound, bound);
  return m.params;
}

std::vector<std::pair<std::string, std::string>> MobileNetV1ConvBNPairs() {
  std::vector<std::pair<std::string, std::string>> pairs{{"conv0", "bn0"}};
  for (size_t i = 0; i < kMobileNetBlocks.size(); ++i) {
    const std::string p = "blocks." + std::to_string(i) + ".";
    pairs.emplace_back(p + "dw", p + "dw_bn");
    pairs.emplace_back(p + "pw", p + "pw_bn");
  }
  return pairs;
}

NDArray MobileNetV1(const NDArray& x, const Params& params) {
  const std::string model = "mobilenet_v1";
  CheckImage(model, x);
  NDArray h = relu(ConvBN(model, x, params, "conv0", "bn0", 2, 1));
  for (size_t i = 0; i < kMobileNetBlocks.size(); ++i) {
    const std::string p = "blocks." + std::to_string(i) + ".";
    // Depthwise 3x3 (one filter per channel: groups = channels), then pointwise 1x1.
    const int64_t channels = h.Shape()[1];
    h = relu(
        ConvBN(model, h, params, p + "dw", p + "dw_bn", kMobileNetBlocks[i].second, 1, channels));
    h = relu(ConvBN(model, h, params, p + "pw", p + "pw_bn", 1, 0));
  }
  h = flatten(adaptive_avg_pool2d(h, {1, 1}), 1);
  return linear(h, GetParam(model, params, "fc.weight"), GetParam(model, params, "fc.bias"));
}

// ---- batch-norm folding ----------------------------------------------------------------------

Params FoldBatchNorm(const Params& params,
                     const std::vector<std::pair<std::string, std::string>>& conv_bn_pairs,
                     double epsilon) {
  const std::string op = "fold_batch_norm";
  Params out = params;
  for (const auto& [conv, bn] : conv_bn_pairs) {
    if (!params.count(String(bn + ".weight"))) continue;  // already folded
    NDArray w = AsContiguous(GetParam(op, params, conv + ".weight"));
    NDArray gamma = GetParam(op, params, bn + ".weight");
    NDArray beta = GetParam(op, params, bn + ".bias");
    NDArray mean = GetParam(op, params, bn + ".running_mean");
    NDArray var = GetParam(op, params, bn + ".running_var");
    const int64_t channels = w.Shape()[0];
    const int64_t per_channel = channels ? w.NumElements() / channels : 0;
    std::optional<NDArray> old_bias = params.Get(String(conv + ".bias"));
    Dispatch<kFloats>(op, w.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto value = [&](const NDArray& a, int64_t i) {
        return static_cast<double>(AsContiguous(a).data_as<T>()[i]);
      };
      NDArray new_w = NDArray::Empty(w.Shape(), w.dtype());
      NDArray new_b = NDArray::Empty({channels}, w.dtype());
      for (int64_t o = 0; o < channels; ++o) {
        const double s = value(gamma, o) / std::sqrt(value(var, o) + epsilon);
        for (int64_t i = 0; i < per_channel; ++i) {
          new_w.data_as<T>()[o * per_channel + i] =
              static_cast<T>(w.data_as<T>()[o * per_channel + i] * s);
        }
        const double b = old_bias ? value(*old_bias, o) : 0.0;
        new_b.data_as<T>()[o] = static_cast<T>((b - value(mean, o)) * s + value(beta, o));
      }
      out.Set(String(conv + ".weight"), new_w);
      out.Set(String(conv + ".bias"), new_b);
    });
    for (const char* field :
         {".weight", ".bias", ".running_mean", ".running_var", ".num_batches_tracked"}) {
      out.erase(String(bn + field));
    }
  }
  return out;
}

// ---- LSTM ------------------------------------------------------------------------------------

Params LSTMInitParams(int64_t input_size, int64_t hidden_size, int64_t num_layers, uint64_t seed,
                      DataType dtype) {
  if (input_size < 1 || hidden_size < 1 || num_layers < 1) {
    MINITVM_THROW(ValueError) << "lstm: input_size (" << input_size << "), hidden_size ("
                              << hidden_size << ") and num_layers (" << num_layers
                              << ") must be positive";
  }
  ParamMaker m(seed, dtype);
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (int64_t l = 0; l < num_layers; ++l) {
    const std::string k = std::to_string(l);
    m.Uniform("weight_ih_l" + k, {4 * hidden_size, l == 0 ? input_size : hidden_size}, -bound,
              bound);
    m.Uniform("weight_hh_l" + k, {4 * hidden_size, hidden_size}, -bound, bound);
    m.Uniform("bias_ih_l" + k, {4 * hidden_size}, -bound, bound);
    m.Uniform("bias_hh_l" + k, {4 * hidden_size}, -bound, bound);
  }
  return m.params;
}

LSTMOutput LSTM(const NDArray& x, const Params& params) {
  const std::string model = "lstm";
  CheckRank(model, x, 3, "input (T, N, I)");
  int64_t layers = 0;
  while (params.count(String("weight_ih_l" + std::to_string(layers)))) ++layers;
  if (layers == 0) MINITVM_THROW(ValueError) << model << ": missing parameter \"weight_ih_l0\"";
  const int64_t T = x.Shape()[0], N = x.Shape()[1];
  const int64_t H = GetParam(model, params, "weight_hh_l0").Shape()[1];
  const size_t state_bytes = static_cast<size_t>(N * H) * x.dtype().bytes();
  LSTMOutput result{NDArray(), NDArray::Empty({layers, N, H}, x.dtype()),
                    NDArray::Empty({layers, N, H}, x.dtype())};
  NDArray seq = AsContiguous(x);  // (T, N, features) input of the current layer
  for (int64_t l = 0; l < layers; ++l) {
    const std::string k = std::to_string(l);
    NDArray w_ih = GetParam(model, params, "weight_ih_l" + k);
    NDArray w_hh = GetParam(model, params, "weight_hh_l" + k);
    NDArray b_ih = GetParam(model, params, "bias_ih_l" + k);
    NDArray b_hh = GetParam(model, params, "bias_hh_l" + k);
    LSTMState state{zeros({N, H}, x.dtype()), zeros({N, H}, x.dtype())};
    NDArray outputs = NDArray::Empty({T, N, H}, x.dtype());
    const int64_t features = seq.Shape()[2];
    for (int64_t t = 0; t < T; ++t) {
      NDArray x_t = seq.CreateView({N, features}, seq.dtype(), t * N * features);
      state = lstm_cell(x_t, state.h, state.c, w_ih, w_hh, b_ih, b_hh);
      std::memcpy(static_cast<char*>(outputs.data()) + t * state_bytes, state.h.data(),
                  state_bytes);
    }
    std::memcpy(static_cast<char*>(result.h_n.data()) + l * state_bytes, state.h.data(),
                state_bytes);
    std::memcpy(static_cast<char*>(result.c_n.data()) + l * state_bytes, state.c.data(),
                state_bytes);
    seq = outputs;
  }
  result.output = seq;
  return result;
}

// ---- registration ----------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("lownumpy.models.load_params").set_body_typed([](std::string path) {
  return LoadParams(path);
});
MINITVM_REGISTER_GLOBAL("lownumpy.models.mlp_init")
    .set_body_typed([](int64_t in, int64_t hidden, int64_t out, int64_t seed, DataType dtype) {
      return MLPInitParams(in, hidden, out, static_cast<uint64_t>(seed), dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.models.mlp").set_body_typed([](NDArray x, Params params) {
  return MLP(x, params);
});
MINITVM_REGISTER_GLOBAL("lownumpy.models.resnet18_init")
    .set_body_typed([](int64_t num_classes, int64_t seed, DataType dtype) {
      return ResNet18InitParams(num_classes, static_cast<uint64_t>(seed), dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.models.resnet18").set_body_typed([](NDArray x, Params params) {
  return ResNet18(x, params);
});
MINITVM_REGISTER_GLOBAL("lownumpy.models.resnet18_fold_bn").set_body_typed([](Params params) {
  return FoldBatchNorm(params, ResNet18ConvBNPairs());
});
MINITVM_REGISTER_GLOBAL("lownumpy.models.mobilenet_v1_init")
    .set_body_typed([](int64_t num_classes, double width, int64_t seed, DataType dtype) {
      return MobileNetV1InitParams(num_classes, width, static_cast<uint64_t>(seed), dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.models.mobilenet_v1")
    .set_body_typed([](NDArray x, Params params) { return MobileNetV1(x, params); });
MINITVM_REGISTER_GLOBAL("lownumpy.models.mobilenet_v1_fold_bn").set_body_typed([](Params params) {
  return FoldBatchNorm(params, MobileNetV1ConvBNPairs());
});
MINITVM_REGISTER_GLOBAL("lownumpy.models.lstm_init")
    .set_body_typed([](int64_t input_size, int64_t hidden_size, int64_t num_layers, int64_t seed,
                       DataType dtype) {
      return LSTMInitParams(input_size, hidden_size, num_layers, static_cast<uint64_t>(seed),
                            dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.models.lstm").set_body_typed([](NDArray x, Params params) {
  LSTMOutput out = LSTM(x, params);
  return runtime::Array<NDArray>({out.output, out.h_n, out.c_n});
});

}  // namespace lownumpy
}  // namespace minitvm
