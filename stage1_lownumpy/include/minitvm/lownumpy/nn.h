/*!
 * \file minitvm/lownumpy/nn.h
 * \brief Neural-network operators of the lownumpy reference library (stage 1): conv2d and
 * conv2d_transpose, max/avg/adaptive-avg pooling, batch_norm (inference), layer_norm,
 * softmax, log_softmax and the LSTM cell. float32 and float64.
 *
 * Layouts are PyTorch's: activations NCHW, conv2d weights OIHW (out, in / groups, kh, kw),
 * conv2d_transpose weights IOHW (in, out / groups, kh, kw).
 *
 * Window attributes take 1 or 2 values (one for both spatial axes, or (h, w)); `padding` takes
 * 1, 2 or 4 values: p, (ph, pw) or (top, left, bottom, right). With a window of size k,
 * stride s, dilation d and padding (lo, hi) over an input of size n, the output size is
 *     out = floor((n + lo + hi - d * (k - 1) - 1) / s) + 1
 * (ceil instead of floor in pooling's ceil_mode, where a last window that would start in the
 * right padding is dropped, as PyTorch does). ValueError, naming the operator, the shapes and
 * the attribute, for any inconsistent input or an output size below 1.
 */
#ifndef MINITVM_LOWNUMPY_NN_H_
#define MINITVM_LOWNUMPY_NN_H_

#include <string>
#include <utility>

#include "minitvm/lownumpy/iteration.h"

namespace minitvm {
namespace lownumpy {

/*!
 * \brief 2-D convolution (cross-correlation, like every framework).
 *
 * x (N, C, H, W), w (O, C / groups, KH, KW), b (O,) or undefined → (N, O, OH, OW).
 * C and O must be divisible by `groups`; output channel o reads input channels
 * [g * C/groups, (g+1) * C/groups) with g = o / (O / groups).
 */
NDArray conv2d(const NDArray& x, const NDArray& w, const NDArray& b = NDArray(),
               const Shape& strides = {1, 1}, const Shape& padding = {0, 0},
               const Shape& dilation = {1, 1}, int64_t groups = 1);

/*!
 * \brief Transposed 2-D convolution (the gradient of conv2d with respect to its input).
 *
 * x (N, C, H, W), w (C, O / groups, KH, KW), b (O,) or undefined → (N, O, OH, OW) with
 * OH = (H - 1) * sh - top - bottom + dh * (KH - 1) + output_padding_h + 1 (same for W).
 * output_padding must be smaller than the stride or the dilation.
 */
NDArray conv2d_transpose(const NDArray& x, const NDArray& w, const NDArray& b = NDArray(),
                         const Shape& strides = {1, 1}, const Shape& padding = {0, 0},
                         const Shape& output_padding = {0, 0}, const Shape& dilation = {1, 1},
                         int64_t groups = 1);

/*!
 * \brief Max pooling over (H, W) of an NCHW array. Padding counts as -infinity; padding must
 * be at most half the (dilated) window so every window sees an input element.
 */
NDArray max_pool2d(const NDArray& x, const Shape& pool_size, const Shape& strides = {},
                   const Shape& padding = {0, 0}, const Shape& dilation = {1, 1},
                   bool ceil_mode = false);

/*!
 * \brief Average pooling over (H, W) of an NCHW array. With `count_include_pad` the divisor is
 * the size of the window clipped to the padded input; without, the number of input elements
 * it covers (PyTorch's two modes). Padding must be at most half the window.
 */
NDArray avg_pool2d(const NDArray& x, const Shape& pool_size, const Shape& strides = {},
                   const Shape& padding = {0, 0}, bool ceil_mode = false,
                   bool count_include_pad = true);

/*!
 * \brief Adaptive average pooling to `output_size` (1 or 2 values) over (H, W) of an NCHW
 * array: output row i averages input rows [floor(i * H / OH), ceil((i + 1) * H / OH)).
 */
NDArray adaptive_avg_pool2d(const NDArray& x, const Shape& output_size);

/*!
 * \brief Batch normalisation in inference mode along `axis`:
 * (x - mean) / sqrt(var + epsilon) * gamma + beta, where gamma, beta, mean and var are 1-D of
 * size x.shape[axis].
 */
NDArray batch_norm(const NDArray& x, const NDArray& gamma, const NDArray& beta,
                   const NDArray& moving_mean, const NDArray& moving_var, int64_t axis = 1,
                   double epsilon = 1e-5);

/*!
 * \brief Layer normalisation over `axes` (distinct, any order): each slice spanned by the axes
 * is normalised with its own mean and (biased) variance, then scaled by gamma and shifted by
 * beta, whose shape is the sizes of those axes in increasing axis order. gamma and beta may
 * be undefined (1 and 0).
 */
NDArray layer_norm(const NDArray& x, const NDArray& gamma, const NDArray& beta,
                   const Shape& axes = {-1}, double epsilon = 1e-5);

/*! \brief exp(x - max) / sum(exp(x - max)) along `axis`. */
NDArray softmax(const NDArray& x, int64_t axis = -1);
/*! \brief x - max - log(sum(exp(x - max))) along `axis`. */
NDArray log_softmax(const NDArray& x, int64_t axis = -1);

/*! \brief The hidden and cell state an LSTM cell returns. */
struct LSTMState {
  NDArray h;  ///< (N, H)
  NDArray c;  ///< (N, H)
};

/*!
 * \brief One step of an LSTM cell (PyTorch's gate order i, f, g, o):
 *     gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, split into four (N, H) blocks
 *     c' = sigmoid(f) * c + sigmoid(i) * tanh(g);   h' = sigmoid(o) * tanh(c')
 * x (N, I), h and c (N, H), w_ih (4H, I), w_hh (4H, H), b_ih and b_hh (4H,) or undefined.
 */
LSTMState lstm_cell(const NDArray& x, const NDArray& h, const NDArray& c, const NDArray& w_ih,
                    const NDArray& w_hh, const NDArray& b_ih = NDArray(),
                    const NDArray& b_hh = NDArray());

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_NN_H_
