/*!
 * \file lownumpy_resnet18.cc
 * \brief Benchmark (stage 1): ResNet-18 inference through the lownumpy reference operators.
 *
 * Usage: lownumpy_resnet18 [--batch N] [--size S] [--repeat R] [--folded]
 * Prints one JSON object with the best and mean wall time per forward pass, in seconds. The
 * issue's budget is under 10 s for batch 1 at 224x224 in a Release build.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "minitvm/lownumpy/lownumpy.h"

namespace lnp = minitvm::lownumpy;

int main(int argc, char** argv) {
  int64_t batch = 1, size = 224;
  int repeat = 3;
  bool folded = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--batch" && i + 1 < argc) {
      batch = std::atoll(argv[++i]);
    } else if (arg == "--size" && i + 1 < argc) {
      size = std::atoll(argv[++i]);
    } else if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--folded") {
      folded = true;
    } else {
      std::fprintf(stderr, "usage: %s [--batch N] [--size S] [--repeat R] [--folded]\n", argv[0]);
      return 2;
    }
  }
  lnp::Params params = lnp::ResNet18InitParams(1000, /*seed=*/0);
  if (folded) params = lnp::FoldBatchNorm(params, lnp::ResNet18ConvBNPairs());
  minitvm::runtime::NDArray x = lnp::random_uniform({batch, 3, size, size}, -1.0, 1.0, 42);

  std::vector<double> times;
  double checksum = 0;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    minitvm::runtime::NDArray y = lnp::ResNet18(x, params);
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(t1 - t0).count());
    checksum = 0;
    for (int64_t i = 0; i < y.NumElements(); ++i) checksum += y.data_as<float>()[i];
  }
  double best = *std::min_element(times.begin(), times.end());
  double mean = 0;
  for (double t : times) mean += t;
  mean /= static_cast<double>(times.size());
  std::printf(
      "{\"benchmark\": \"lownumpy_resnet18\", \"batch\": %lld, \"image_size\": %lld, "
      "\"batch_norm_folded\": %s, \"repeat\": %d, \"best_s\": %.4f, \"mean_s\": %.4f, "
      "\"output_checksum\": %.6g}\n",
      static_cast<long long>(batch), static_cast<long long>(size), folded ? "true" : "false",
      repeat, best, mean, checksum);
  return 0;
}
