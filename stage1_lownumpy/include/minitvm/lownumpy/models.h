/*!
 * \file minitvm/lownumpy/models.h
 * \brief Reference models written with the lownumpy operators (stage 1): the course MLP,
 * ResNet-18, MobileNet-v1 and a multi-layer LSTM. Later stages build the same models in their
 * own IR and compare their outputs with these.
 *
 * A model is a pure function of an input and a `Map<String, NDArray>` of parameters. The
 * parameter names follow PyTorch's `state_dict` names for the same architecture (for ResNet-18
 * torchvision's: "conv1.weight", "layer1.0.bn1.running_var", "fc.bias", ...), so weights move
 * to and from PyTorch unchanged. Parameters come from a seed (`*InitParams`, deterministic on
 * every platform) or from a `.npz` file written by `numpy.savez` (`LoadParams`).
 */
#ifndef MINITVM_LOWNUMPY_MODELS_H_
#define MINITVM_LOWNUMPY_MODELS_H_

#include <string>
#include <utility>
#include <vector>

#include "minitvm/lownumpy/iteration.h"
#include "minitvm/runtime/container.h"

namespace minitvm {
namespace lownumpy {

using runtime::Map;
using runtime::String;

/*! \brief Model parameters by name. */
using Params = Map<String, NDArray>;

/*! \brief The parameter `name`; ValueError naming `model` and the parameter when missing. */
NDArray GetParam(const std::string& model, const Params& params, const std::string& name);
/*! \brief Read the arrays of a `.npz` file as parameters (names without ".npy"). */
Params LoadParams(const std::string& path);

// ---- the course MLP ------------------------------------------------------------------------
/*!
 * \brief Parameters of the MLP linear0 → relu0 → linear1: "w0" (hidden, in), "b0" (hidden,),
 * "w1" (out, hidden), "b1" (out,), uniform in ±1/sqrt(fan_in) like PyTorch's Linear.
 */
Params MLPInitParams(int64_t in_features = 784, int64_t hidden = 128, int64_t out_features = 10,
                     uint64_t seed = 0, DataType dtype = DataType::Float(32));
/*! \brief relu(x @ w0.T + b0) @ w1.T + b1 for x (batch, in) → (batch, out). */
NDArray MLP(const NDArray& x, const Params& params);

// ---- ResNet-18 -----------------------------------------------------------------------------
/*!
 * \brief ResNet-18 parameters with torchvision's names and shapes, for `num_classes` outputs.
 * Conv and fc weights are uniform in ±sqrt(6 / fan_in) (He), batch-norm statistics and affine
 * parameters are drawn near (but not at) their identity values so that the check is not
 * trivial.
 */
Params ResNet18InitParams(int64_t num_classes = 1000, uint64_t seed = 0,
                          DataType dtype = DataType::Float(32));
/*!
 * \brief ResNet-18 inference: x (N, 3, H, W) → logits (N, num_classes). Works for any H, W
 * of at least 32 (adaptive average pooling at the end). When the parameters hold no
 * "<bn>.weight" for a conv, the conv is taken as folded and must carry "<conv>.bias".
 */
NDArray ResNet18(const NDArray& x, const Params& params);
/*! \brief The (conv, batch norm) name prefixes of ResNet-18, in forward order. */
std::vector<std::pair<std::string, std::string>> ResNet18ConvBNPairs();

// ---- MobileNet-v1 --------------------------------------------------------------------------
/*!
 * \brief MobileNet-v1 parameters: a 3x3 stride-2 conv ("conv0", "bn0"), 13 depthwise-separable
 * blocks ("blocks.<i>.dw", "blocks.<i>.dw_bn", "blocks.<i>.pw", "blocks.<i>.pw_bn") and "fc".
 * `width` multiplies every channel count (0.25, 0.5, 1.0, ...).
 */
Params MobileNetV1InitParams(int64_t num_classes = 1000, double width = 1.0, uint64_t seed = 0,
                             DataType dtype = DataType::Float(32));
/*! \brief MobileNet-v1 inference (ReLU after every batch norm): (N, 3, H, W) → (N, classes). */
NDArray MobileNetV1(const NDArray& x, const Params& params);
/*! \brief The (conv, batch norm) name prefixes of MobileNet-v1 with `num_blocks` (13) blocks. */
std::vector<std::pair<std::string, std::string>> MobileNetV1ConvBNPairs();

/*!
 * \brief Fold each batch norm into the conv before it: w' = w * s, b' = (b - mean) * s + beta
 * with s = gamma / sqrt(var + epsilon) per output channel. Returns new parameters without the
 * batch-norm entries and with "<conv>.bias" set; the model's output is unchanged (up to
 * rounding).
 */
Params FoldBatchNorm(const Params& params,
                     const std::vector<std::pair<std::string, std::string>>& conv_bn_pairs,
                     double epsilon = 1e-5);

// ---- LSTM ----------------------------------------------------------------------------------
/*!
 * \brief Parameters of a `num_layers`-deep LSTM with torch.nn.LSTM's names: "weight_ih_l<k>"
 * (4H, I or H), "weight_hh_l<k>" (4H, H), "bias_ih_l<k>", "bias_hh_l<k>" (4H,), uniform in
 * ±1/sqrt(H).
 */
Params LSTMInitParams(int64_t input_size, int64_t hidden_size, int64_t num_layers = 2,
                      uint64_t seed = 0, DataType dtype = DataType::Float(32));
/*! \brief The output sequence and the final states of every layer. */
struct LSTMOutput {
  NDArray output;  ///< (T, N, H): the last layer's h at every step
  NDArray h_n;     ///< (layers, N, H)
  NDArray c_n;     ///< (layers, N, H)
};
/*!
 * \brief Run a multi-layer LSTM over x (T, N, I) from zero states, as torch.nn.LSTM with
 * batch_first=False; the number of layers is read from the parameters.
 */
LSTMOutput LSTM(const NDArray& x, const Params& params);

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_MODELS_H_
