/*!
 * \file lesson.cpp
 * \brief Lesson 2 (C++): the lownumpy reference library from C++ — the course MLP as
 * hand-written loops, through the registered operators and through the reference model, then
 * strided inputs, errors and ResNet-18 (stage 1).
 */
// Lesson 2 (C++): the reference operators from C++
// =================================================
//
// lesson.py wrote the MLP three ways in Python. Here is the C++ side of the same story:
//
//   1. the MLP (linear0 -> relu0 -> linear1) as low-level loops over NDArray memory,
//      destination-passing style: each function writes into an output its caller allocated;
//   2. the same layers through the registered global functions "lownumpy.linear" and
//      "lownumpy.relu", called by name as Python (and later stages) call them;
//   3. the C++ API: minitvm::lownumpy::MLP;
//   4. what the library does for you: broadcasting, strided inputs, errors that name the
//      operator and the shapes;
//   5. a real network: ResNet-18, with batch norm kept or folded into the convolutions.
//
// Build and run it with `ctest -L tutorial` (or run build/bin/tutorial_02_lownumpy).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "minitvm/lownumpy/lownumpy.h"
#include "minitvm/runtime/registry.h"

using minitvm::Error;
using minitvm::runtime::NDArray;
using minitvm::runtime::PackedFunc;
using minitvm::runtime::Registry;
namespace lnp = minitvm::lownumpy;

// -----------------------------------------------------------------------------------------
// 1. Low-level loops
// -----------------------------------------------------------------------------------------
// Z = X @ W.T + B for X (n, k), W (m, k), B (m,), Z (n, m), all compact float32. The loop
// nest is the one lesson.py wrote in NumPy: a reduction over k, then the bias.
void lnumpy_linear(const NDArray& X, const NDArray& W, const NDArray& B, const NDArray& Z) {
  const int64_t n = X.Shape()[0], k = X.Shape()[1], m = W.Shape()[0];
  const float* x = X.data_as<float>();
  const float* w = W.data_as<float>();
  const float* b = B.data_as<float>();
  float* z = Z.data_as<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      float acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) acc += x[i * k + kk] * w[j * k + kk];
      z[i * m + j] = acc + b[j];
    }
  }
}

// Y = max(X, 0), elementwise.
void lnumpy_relu(const NDArray& X, const NDArray& Y) {
  const float* x = X.data_as<float>();
  float* y = Y.data_as<float>();
  for (int64_t i = 0; i < X.NumElements(); ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}

// The model: allocate every intermediate, then call the three layer functions.
NDArray lnumpy_mlp(const NDArray& data, const lnp::Params& p) {
  auto dtype = minitvm::runtime::DataType::Float(32);
  NDArray lv0 = NDArray::Empty({1, 128}, dtype);
  lnumpy_linear(data, p.at("w0"), p.at("b0"), lv0);
  NDArray lv1 = NDArray::Empty({1, 128}, dtype);
  lnumpy_relu(lv0, lv1);
  NDArray out = NDArray::Empty({1, 10}, dtype);
  lnumpy_linear(lv1, p.at("w1"), p.at("b1"), out);
  return out;
}

/*! \brief max |a - b| over two float32 arrays of the same shape (any strides). */
double MaxAbsDiff(const NDArray& a, const NDArray& b) {
  double m = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    double d = a.data_as<float>()[a.ElementOffset(i)] - b.data_as<float>()[b.ElementOffset(i)];
    m = std::max(m, std::abs(d));
  }
  return m;
}

/*! \brief Print a float32 array's values, rounded to 3 decimals. */
void Print(const std::string& label, const NDArray& a) {
  std::cout << label << " [";
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3f", a.data_as<float>()[a.ElementOffset(i)]);
    std::cout << (i ? " " : "") << buf;
  }
  std::cout << "]\n";
}

int main() {
  bool ok = true;
  auto check = [&](bool cond, const char* what) {
    std::cout << what << ": " << (cond ? "yes" : "NO") << "\n";
    ok = ok && cond;
  };

  // The same seeded weights and input as lesson.py (the generator is SplitMix64, so the
  // numbers are the same on every platform and from both languages).
  lnp::Params params = lnp::MLPInitParams(784, 128, 10, /*seed=*/0);
  NDArray data = lnp::random_uniform({1, 784}, 0.0, 1.0, /*seed=*/1);

  NDArray res_loops = lnumpy_mlp(data, params);
  Print("low-level loops:", res_loops);

  // -----------------------------------------------------------------------------------------
  // 2. The registered operators, called by name
  // -----------------------------------------------------------------------------------------
  // A PackedFunc takes any arguments that convert to Any and returns an Any; `cast` checks
  // the type of the result.
  PackedFunc linear = Registry::GetOrThrow("lownumpy.linear");
  PackedFunc relu = Registry::GetOrThrow("lownumpy.relu");
  NDArray lv0 = linear(data, params.at("w0"), params.at("b0")).cast<NDArray>();
  NDArray lv1 = relu(lv0).cast<NDArray>();
  NDArray res_registered = linear(lv1, params.at("w1"), params.at("b1")).cast<NDArray>();
  Print("lownumpy.linear/relu:", res_registered);

  // -----------------------------------------------------------------------------------------
  // 3. The C++ API and the reference model
  // -----------------------------------------------------------------------------------------
  NDArray res_model = lnp::MLP(data, params);
  check(MaxAbsDiff(res_loops, res_registered) < 1e-6, "loops == registered operators");
  check(MaxAbsDiff(res_loops, res_model) < 1e-6, "loops == lownumpy::MLP");
  NDArray cls = lnp::argmax(res_model);
  std::cout << "predicted class: " << cls.data_as<int64_t>()[0] << "\n";

  // -----------------------------------------------------------------------------------------
  // 4. Broadcasting, strides and errors
  // -----------------------------------------------------------------------------------------
  // A (2, 3) array and its transpose as a *view* (shape (3, 2), strides (1, 3)): no copy.
  // Operators read views through their strides; `add` broadcasts a (3, 1) column.
  NDArray m = lnp::reshape(lnp::arange(0, 6), {2, 3});
  NDArray mt = m.CreateStridedView({3, 2}, {1, 3}, 0);
  NDArray col = lnp::reshape(lnp::arange(0, 300, 100), {3, 1});
  NDArray sum = lnp::add(mt, col);
  Print("m.T + [[0], [100], [200]] =", sum);
  check(sum.data_as<float>()[1] == 3.0f && sum.data_as<float>()[5] == 205.0f,
        "strided view read correctly");

  // Bad input raises minitvm::Error with kind ValueError and a message naming the operator,
  // the shapes and the attribute at fault.
  try {
    lnp::conv2d(lnp::zeros({1, 3, 8, 8}), lnp::zeros({4, 2, 3, 3}));
  } catch (const Error& e) {
    std::cout << e.kind() << ": " << e.what() << "\n";
  }
  try {
    lnp::max_pool2d(lnp::zeros({1, 1, 4, 4}), {2}, {2}, {2});
  } catch (const Error& e) {
    std::cout << e.kind() << ": " << e.what() << "\n";
  }

  // -----------------------------------------------------------------------------------------
  // 5. ResNet-18
  // -----------------------------------------------------------------------------------------
  // Parameters carry torchvision's names, so they load into PyTorch unchanged (the Python
  // tests compare against torch). Folding each batch norm into the conv before it removes
  // the batch norms and leaves the function unchanged.
  lnp::Params resnet = lnp::ResNet18InitParams(/*num_classes=*/10, /*seed=*/0);
  std::cout << "ResNet-18: " << resnet.size() << " parameter arrays, conv1.weight "
            << minitvm::runtime::ShapeToString(resnet.at("conv1.weight").Shape()) << "\n";
  NDArray image = lnp::random_uniform({1, 3, 32, 32}, -1.0, 1.0, /*seed=*/2);
  NDArray logits = lnp::ResNet18(image, resnet);
  lnp::Params folded = lnp::FoldBatchNorm(resnet, lnp::ResNet18ConvBNPairs());
  std::cout << "folded: " << folded.size() << " parameter arrays, logits shape "
            << minitvm::runtime::ShapeToString(logits.Shape()) << "\n";
  NDArray logits_folded = lnp::ResNet18(image, folded);
  double scale = 0;
  for (int64_t i = 0; i < logits.NumElements(); ++i) {
    scale = std::max(scale, static_cast<double>(std::abs(logits.data_as<float>()[i])));
  }
  check(MaxAbsDiff(logits, logits_folded) < 1e-4 * scale, "folded ResNet-18 == unfolded");

  if (!ok) return 1;
  std::cout << "OK: the MLP as C++ loops, registered operators and lownumpy::MLP agree; "
               "strided views, errors, ResNet-18 with batch norm folded\n";
  return 0;
}
