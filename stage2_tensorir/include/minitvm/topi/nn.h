/*!
 * \file minitvm/topi/nn.h
 * \brief Neural-network operators (stage 2), NCHW layout: activations, matmul/dense/
 * batch_matmul, conv2d and conv2d_transpose (stride, padding, dilation, groups), pooling,
 * adaptive pooling, batch_norm (inference), layer_norm, softmax and log_softmax.
 *
 * Window arguments take 1 or 2 values (both spatial axes, or (h, w)); padding takes 1, 2 or
 * 4 values: p, (ph, pw) or (top, left, bottom, right). Output sizes follow the usual rule
 * out = floor((n + lo + hi - d * (k - 1) - 1) / s) + 1 (ceil in pooling's ceil_mode).
 */
#ifndef MINITVM_TOPI_NN_H_
#define MINITVM_TOPI_NN_H_

#include <string>
#include <vector>

#include "minitvm/te/operation.h"
#include "minitvm/topi/tags.h"

namespace minitvm {
namespace topi {
namespace nn {

using te::Tensor;

/*! \brief max(x, 0). */
Tensor relu(const Tensor& x, std::string name = "T_relu");
/*! \brief x if x > 0 else alpha * x. */
Tensor leaky_relu(const Tensor& x, double alpha, std::string name = "T_leaky_relu");
/*! \brief 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation with approximate="tanh". */
Tensor gelu(const Tensor& x, std::string approximate = "none", std::string name = "T_gelu");
/*! \brief exp(x - max) / sum(exp(x - max)) along `axis`. */
Tensor softmax(const Tensor& x, int64_t axis = -1, std::string name = "T_softmax");
/*! \brief x - max - log(sum(exp(x - max))) along `axis`. */
Tensor log_softmax(const Tensor& x, int64_t axis = -1, std::string name = "T_log_softmax");

/*! \brief data (.., K) @ weight (N, K)^T [+ bias (N,)] → (.., N), like torch linear. */
Tensor dense(const Tensor& data, const Tensor& weight, const Tensor& bias = Tensor(),
             DataType out_dtype = DataType::Void(), std::string name = "T_matmul_NT");
/*!
 * \brief batch (B, M, K) @ (B, N, K)^T (transpose_b) or (B, K, N); batch 1 broadcasts.
 */
Tensor batch_matmul(const Tensor& x, const Tensor& y, bool transpose_a = false,
                    bool transpose_b = true, DataType out_dtype = DataType::Void(),
                    std::string name = "T_batch_matmul");

/*!
 * \brief 2-D convolution. input (N, C, H, W), filter (O, C / groups, KH, KW) → (N, O, OH, OW).
 * Padding is applied by a separate compute "pad_temp" (an intermediate of the PrimFunc).
 */
Tensor conv2d_nchw(const Tensor& input, const Tensor& filter, std::vector<int64_t> stride = {1},
                   std::vector<int64_t> padding = {0}, std::vector<int64_t> dilation = {1},
                   int64_t groups = 1, DataType out_dtype = DataType::Void(),
                   std::string name = "conv2d_nchw");
/*!
 * \brief Transposed 2-D convolution. input (N, C, H, W), filter (C, O / groups, KH, KW)
 * (IOHW) → (N, O, OH, OW), OH = (H - 1) s - top - bottom + d (KH - 1) + output_padding + 1.
 * Built as TVM does: dilate the input by the stride, pad it, convolve with the flipped kernel.
 */
Tensor conv2d_transpose_nchw(const Tensor& input, const Tensor& filter,
                             std::vector<int64_t> stride = {1}, std::vector<int64_t> padding = {0},
                             std::vector<int64_t> output_padding = {0},
                             std::vector<int64_t> dilation = {1}, int64_t groups = 1,
                             DataType out_dtype = DataType::Void(),
                             std::string name = "conv2d_transpose_nchw");

/*!
 * \brief Max or average pooling over (H, W) of NCHW data ("max" or "avg"). Padding counts as
 * -inf for max; avg divides by the window clipped to the padded input (count_include_pad) or
 * by the number of input elements it covers.
 */
Tensor pool2d(const Tensor& x, std::vector<int64_t> kernel, std::vector<int64_t> stride,
              std::vector<int64_t> dilation, std::vector<int64_t> padding,
              const std::string& pool_type, bool ceil_mode = false, bool count_include_pad = true,
              std::string name = "");
/*! \brief Adaptive pooling to `output_size` ("avg" or "max"). */
Tensor adaptive_pool(const Tensor& x, std::vector<int64_t> output_size,
                     const std::string& pool_type = "avg", std::string name = "");

/*!
 * \brief Batch normalisation in inference mode along `axis`:
 * (x - mean) / sqrt(var + epsilon) * gamma + beta. Returns [out, moving_mean, moving_var]
 * like TVM (the last two are copies of the inputs in inference).
 */
Array<Tensor> batch_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                         const Tensor& moving_mean, const Tensor& moving_var, int64_t axis = 1,
                         double epsilon = 1e-5, bool center = true, bool scale = true);
/*!
 * \brief Layer normalisation over `axes`; gamma and beta have the shape of those axes (in
 * increasing axis order) and may be undefined.
 */
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                  std::vector<int64_t> axes = {-1}, double epsilon = 1e-5,
                  std::string name = "T_layer_norm");
/*! \brief (N, ...) → (N, prod(...)), TVM's nn.batch_flatten. */
Tensor batch_flatten(const Tensor& x, std::string name = "tensor");

}  // namespace nn
}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_TOPI_NN_H_
