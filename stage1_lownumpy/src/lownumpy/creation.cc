/*!
 * \file creation.cc
 * \brief Array creation of lownumpy (stage 1): full, zeros, ones, arange, random_uniform.
 */
#include "minitvm/lownumpy/creation.h"

#include <cmath>

#include "./op_util.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {
void CheckShape(const std::string& op, const Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0)
      MINITVM_THROW(ValueError) << op << ": negative dimension in " << ShapeToString(shape);
  }
}
}  // namespace

NDArray full(const Shape& shape, double value, DataType dtype) {
  CheckShape("full", shape);
  return Dispatch<kAllTypes>("full", dtype, [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty(shape, dtype);
    const T v = SaturateCast<T>(value);
    T* po = out.data_as<T>();
    for (int64_t i = 0; i < out.NumElements(); ++i) po[i] = v;
    return out;
  });
}

NDArray zeros(const Shape& shape, DataType dtype) { return full(shape, 0.0, dtype); }
NDArray ones(const Shape& shape, DataType dtype) { return full(shape, 1.0, dtype); }

NDArray arange(double start, double stop, double step, DataType dtype) {
  if (step == 0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop)) {
    MINITVM_THROW(ValueError) << "arange: start " << start << ", stop " << stop << " and step "
                              << step << " must be finite and the step nonzero";
  }
  // Converting a count beyond int64 to int64 is undefined (it gave an empty array).
  const double count = std::ceil((stop - start) / step);
  if (!(count < 9.0e18)) {
    MINITVM_THROW(ValueError) << "arange: start " << start << ", stop " << stop << " and step "
                              << step << " give too many elements (" << count << ")";
  }
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  return Dispatch<kNumeric>("arange", dtype, [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty({n}, dtype);
    T* po = out.data_as<T>();
    for (int64_t i = 0; i < n; ++i) po[i] = static_cast<T>(start + static_cast<double>(i) * step);
    return out;
  });
}

NDArray random_uniform(const Shape& shape, double low, double high, uint64_t seed, DataType dtype) {
  CheckShape("random_uniform", shape);
  SplitMix64 rng(seed);
  return Dispatch<kFloats>("random_uniform", dtype, [&](auto tag) {
    using T = decltype(tag);
    NDArray out = NDArray::Empty(shape, dtype);
    T* po = out.data_as<T>();
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      po[i] = static_cast<T>(low + (high - low) * rng.NextDouble());
    }
    return out;
  });
}

MINITVM_REGISTER_GLOBAL("lownumpy.full")
    .set_body_typed([](runtime::Array<int64_t> shape, double value, DataType dtype) {
      return full(ToShape(shape), value, dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.zeros")
    .set_body_typed([](runtime::Array<int64_t> shape, DataType dtype) {
      return zeros(ToShape(shape), dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.ones")
    .set_body_typed([](runtime::Array<int64_t> shape, DataType dtype) {
      return ones(ToShape(shape), dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.arange")
    .set_body_typed([](double start, double stop, double step, DataType dtype) {
      return arange(start, stop, step, dtype);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.random_uniform")
    .set_body_typed([](runtime::Array<int64_t> shape, double low, double high, int64_t seed,
                       DataType dtype) {
      return random_uniform(ToShape(shape), low, high, static_cast<uint64_t>(seed), dtype);
    });

}  // namespace lownumpy
}  // namespace minitvm
