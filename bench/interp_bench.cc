/*!
 * \file interp_bench.cc
 * \brief Speed of the TIR interpreter (stage 2), printed as JSON.
 *
 * Measures, on one core:
 *   - "elementwise": B[i] = A[i] + 1 over 4M float32 elements, built with te.compute and
 *     create_prim_func (one loop, one block per element): scalar loop iterations per second
 *     (the issue asks for at least 20 million);
 *   - "vector_add_1024": the latency of one call of a 1024-element vector add through the
 *     "ref" runtime module, argument checks included;
 *   - "matmul_128": C = A @ B, 128x128x128 with a reduction block (init + update): inner
 *     iterations per second.
 * Each figure is the best of several repetitions, in thread CPU time.
 */
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>

#include "minitvm/driver/build.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/op.h"

using namespace minitvm;       // NOLINT(build/namespaces)
using namespace minitvm::tir;  // NOLINT(build/namespaces)
using runtime::NDArray;

namespace {

/*!
 * \brief The best of `repeat` runs of f, in seconds of this thread's CPU time (the machines
 * this runs on are shared; CPU time is what the interpreter itself costs).
 */
double BestSeconds(int repeat, const std::function<void()>& f) {
  auto now = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
  };
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

NDArray Filled(const std::vector<int64_t>& shape, float value) {
  NDArray a = NDArray::Empty(shape, DataType::Float(32));
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = value + static_cast<float>(i % 7);
  return a;
}

}  // namespace

int main() {
  const DataType f32 = DataType::Float(32);

  // Elementwise.
  const int64_t n = int64_t(1) << 22;
  te::Tensor A = te::placeholder({static_cast<int>(n)}, f32, "A");
  te::Tensor B = te::compute(
      {static_cast<int>(n)}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Interpreter elementwise(te::CreatePrimFunc({A, B}));
  NDArray a = Filled({n}, 0.0f), b = NDArray::Empty({n}, f32);
  double t_elem = BestSeconds(5, [&] { elementwise(a, b); });
  if (b.data_as<float>()[10] != a.data_as<float>()[10] + 1.0f) {
    std::fprintf(stderr, "elementwise result is wrong\n");
    return 1;
  }

  // 1024-element vector add through the runtime module.
  te::Tensor X = te::placeholder({1024}, f32, "X");
  te::Tensor Y = te::placeholder({1024}, f32, "Y");
  te::Tensor Z = te::compute(
      {1024}, [&](Var i) { return X(i) + Y(i); }, "Z");
  runtime::Module mod = driver::Build(te::CreatePrimFunc({X, Y, Z}), target::Target("ref"));
  runtime::PackedFunc add = mod["main"];
  NDArray x = Filled({1024}, 1.0f), y = Filled({1024}, 2.0f), z = NDArray::Empty({1024}, f32);
  const int calls = 2000;
  double t_add = BestSeconds(5,
                             [&] {
                               for (int c = 0; c < calls; ++c) add(x, y, z);
                             }) /
                 calls;

  // Matmul 128^3.
  const int m = 128;
  te::Tensor MA = te::placeholder({m, m}, f32, "A");
  te::Tensor MB = te::placeholder({m, m}, f32, "B");
  IterVar k = te::reduce_axis(Range(0, m), "k");
  te::Tensor MC = te::compute(
      {m, m}, [&](Var i, Var j) { return te::sum(MA(i, k->var) * MB(k->var, j), {k}); }, "C");
  Interpreter matmul(te::CreatePrimFunc({MA, MB, MC}));
  NDArray ma = Filled({m, m}, 0.5f), mb = Filled({m, m}, 0.25f), mc = NDArray::Empty({m, m}, f32);
  double t_mm = BestSeconds(3, [&] { matmul(ma, mb, mc); });

  std::printf("{\n");
  std::printf("  \"benchmark\": \"interp\",\n");
  std::printf("  \"threads\": 1,\n");
  std::printf(
      "  \"elementwise\": {\"elements\": %lld, \"seconds\": %.6f, "
      "\"iterations_per_second\": %.0f},\n",
      static_cast<long long>(n), t_elem, n / t_elem);
  std::printf("  \"vector_add_1024\": {\"microseconds_per_call\": %.3f},\n", t_add * 1e6);
  std::printf("  \"matmul_128\": {\"seconds\": %.6f, \"iterations_per_second\": %.0f}\n", t_mm,
              static_cast<double>(m) * m * m / t_mm);
  std::printf("}\n");
  return 0;
}
