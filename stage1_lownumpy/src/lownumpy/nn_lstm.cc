/*!
 * \file nn_lstm.cc
 * \brief The LSTM cell of lownumpy (stage 1): two `linear` layers give the four gates, then a
 * plain loop applies the gate formulas element by element.
 */
#include <cmath>

#include "./op_util.h"
#include "minitvm/lownumpy/elementwise.h"
#include "minitvm/lownumpy/linalg.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {
template <typename T>
T Sigmoid(T v) {
  if (v >= 0) return T(1) / (T(1) + std::exp(-v));
  T e = std::exp(v);
  return e / (T(1) + e);
}
}  // namespace

LSTMState lstm_cell(const NDArray& x, const NDArray& h, const NDArray& c, const NDArray& w_ih,
                    const NDArray& w_hh, const NDArray& b_ih, const NDArray& b_hh) {
  const std::string op = "lstm_cell";
  CheckRank(op, x, 2, "x");
  CheckRank(op, h, 2, "h");
  CheckRank(op, c, 2, "c");
  CheckRank(op, w_ih, 2, "w_ih");
  CheckRank(op, w_hh, 2, "w_hh");
  const int64_t N = x.Shape()[0], I = x.Shape()[1], H = h.Shape()[1];
  auto expect = [&](const NDArray& a, const char* name, const Shape& shape) {
    if (a.Shape() != shape) {
      MINITVM_THROW(ValueError) << op << ": " << name << " has shape " << ShapeToString(a.Shape())
                                << " but input size " << I << ", hidden size " << H << " and batch "
                                << N << " need " << ShapeToString(shape);
    }
  };
  expect(h, "h", {N, H});
  expect(c, "c", {N, H});
  expect(w_ih, "w_ih", {4 * H, I});
  expect(w_hh, "w_hh", {4 * H, H});
  if (b_ih.defined()) expect(b_ih, "b_ih", {4 * H});
  if (b_hh.defined()) expect(b_hh, "b_hh", {4 * H});
  CheckSameDType(op, x, h);
  CheckSameDType(op, x, c);
  // All four gates at once: (N, 4H), blocks in the order input, forget, cell, output.
  NDArray gates = add(linear(x, w_ih, b_ih), linear(h, w_hh, b_hh));
  NDArray cc = AsContiguous(c);
  return Dispatch<kFloats>(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    LSTMState next{NDArray::Empty({N, H}, x.dtype()), NDArray::Empty({N, H}, x.dtype())};
    const T* pg = gates.data_as<T>();
    const T* pc = cc.data_as<T>();
    T* ph_next = next.h.data_as<T>();
    T* pc_next = next.c.data_as<T>();
    for (int64_t n = 0; n < N; ++n) {
      const T* row = pg + n * 4 * H;
      for (int64_t j = 0; j < H; ++j) {
        T i_gate = Sigmoid(row[j]);
        T f_gate = Sigmoid(row[H + j]);
        T g_gate = std::tanh(row[2 * H + j]);
        T o_gate = Sigmoid(row[3 * H + j]);
        T c_new = f_gate * pc[n * H + j] + i_gate * g_gate;
        pc_next[n * H + j] = c_new;
        ph_next[n * H + j] = o_gate * std::tanh(c_new);
      }
    }
    return next;
  });
}

MINITVM_REGISTER_GLOBAL("lownumpy.lstm_cell")
    .set_body_typed([](NDArray x, NDArray h, NDArray c, NDArray w_ih, NDArray w_hh, NDArray b_ih,
                       NDArray b_hh) {
      LSTMState s = lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh);
      return runtime::Array<NDArray>({s.h, s.c});
    });

}  // namespace lownumpy
}  // namespace minitvm
