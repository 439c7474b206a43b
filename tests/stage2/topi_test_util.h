/*!
 * \file topi_test_util.h
 * \brief Helpers of the TOPI differential tests (stage 2): random arrays, running tensor
 * expressions through create_prim_func and the interpreter, calling the stage 1 reference
 * ("lownumpy.<op>") through the registry, and comparing arrays with a tolerance.
 */
#ifndef MINITVM_TESTS_STAGE2_TOPI_TEST_UTIL_H_
#define MINITVM_TESTS_STAGE2_TOPI_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/tir/interpreter.h"

namespace minitvm {
namespace testing {

using runtime::NDArray;

/*! \brief Element i of an array (row-major, any strides) as a double. */
inline double ElementAsDouble(const NDArray& a, int64_t i) {
  const char* p = static_cast<const char*>(a.data()) + a.ElementOffset(i) * a.dtype().bytes();
  runtime::DataType t = a.dtype();
  if (t.is_float() && t.bits() == 32) return *reinterpret_cast<const float*>(p);
  if (t.is_float() && t.bits() == 64) return *reinterpret_cast<const double*>(p);
  if (t.is_bool()) return *reinterpret_cast<const uint8_t*>(p) != 0;
  if (t.is_int() && t.bits() == 32) return *reinterpret_cast<const int32_t*>(p);
  if (t.is_int() && t.bits() == 64)
    return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
  if (t.is_int() && t.bits() == 8) return *reinterpret_cast<const int8_t*>(p);
  if (t.is_uint() && t.bits() == 8) return *reinterpret_cast<const uint8_t*>(p);
  ADD_FAILURE() << "ElementAsDouble: unsupported dtype " << t;
  return 0;
}

/*! \brief A random compact array: floats uniform in [lo, hi), ints in [lo, hi], bools 0/1. */
inline NDArray RandomArray(const std::vector<int64_t>& shape, runtime::DataType t,
                           std::mt19937* rng, double lo = -1.0, double hi = 1.0) {
  NDArray a = NDArray::Empty(shape, t);
  int64_t n = a.NumElements();
  char* p = static_cast<char*>(a.data());
  std::uniform_real_distribution<double> real(lo, hi);
  for (int64_t i = 0; i < n; ++i) {
    if (t.is_float() && t.bits() == 32) {
      reinterpret_cast<float*>(p)[i] = static_cast<float>(real(*rng));
    } else if (t.is_float() && t.bits() == 64) {
      reinterpret_cast<double*>(p)[i] = real(*rng);
    } else if (t.is_bool()) {
      reinterpret_cast<uint8_t*>(p)[i] = (*rng)() & 1;
    } else if (t.is_int() && t.bits() == 32) {
      std::uniform_int_distribution<int32_t> d(static_cast<int32_t>(lo), static_cast<int32_t>(hi));
      reinterpret_cast<int32_t*>(p)[i] = d(*rng);
    } else if (t.is_int() && t.bits() == 64) {
      std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
      reinterpret_cast<int64_t*>(p)[i] = d(*rng);
    } else {
      ADD_FAILURE() << "RandomArray: unsupported dtype " << t;
    }
  }
  return a;
}

/*! \brief The constant shape of a tensor. */
inline std::vector<int64_t> ConstShape(const te::Tensor& t) {
  std::vector<int64_t> s;
  for (const PrimExpr& d : t->shape) {
    auto c = AsConstInt(d);
    EXPECT_TRUE(c.has_value()) << "tensor " << t.name() << " has a symbolic shape";
    s.push_back(c.value_or(0));
  }
  return s;
}

/*!
 * \brief Build a PrimFunc of (inputs..., outputs...) with create_prim_func, run it with the
 * interpreter on `args` and return the outputs.
 */
inline std::vector<NDArray> RunTE(const std::vector<te::Tensor>& inputs,
                                  const std::vector<te::Tensor>& outputs,
                                  const std::vector<NDArray>& args) {
  Array<te::Tensor> all;
  for (const auto& t : inputs) all.push_back(t);
  for (const auto& t : outputs) all.push_back(t);
  tir::Interpreter interp(te::CreatePrimFunc(all));
  std::vector<Any> values;
  for (const NDArray& a : args) values.emplace_back(a);
  std::vector<NDArray> outs;
  for (const auto& t : outputs) {
    outs.push_back(NDArray::Empty(ConstShape(t), t->dtype));
    values.emplace_back(outs.back());
  }
  interp.Run(runtime::PackedArgs(values.data(), static_cast<int>(values.size())));
  return outs;
}

/*! \brief The stage 1 reference op "lownumpy.<name>", or nullopt (the test then skips). */
inline std::optional<runtime::PackedFunc> Reference(const std::string& name) {
  return runtime::Registry::Get("lownumpy." + name);
}

/*! \brief got ≈ want elementwise: |got - want| <= atol + rtol |want|; shapes and dtypes equal. */
inline ::testing::AssertionResult AllClose(const NDArray& got, const NDArray& want,
                                           double rtol = 1e-5, double atol = 1e-6) {
  if (got.Shape() != want.Shape()) {
    return ::testing::AssertionFailure()
           << "shape " << runtime::ShapeToString(got.Shape()) << " vs reference "
           << runtime::ShapeToString(want.Shape());
  }
  if (got.dtype() != want.dtype()) {
    return ::testing::AssertionFailure()
           << "dtype " << got.dtype() << " vs reference " << want.dtype();
  }
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    double g = ElementAsDouble(got, i), w = ElementAsDouble(want, i);
    bool ok = (std::isnan(g) && std::isnan(w)) || std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok) {
      if (first < 0) first = i;
      worst = std::max(worst, std::fabs(g - w));
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.NumElements() << " elements differ (first at flat index " << first
         << ": " << ElementAsDouble(got, first) << " vs reference " << ElementAsDouble(want, first)
         << "; worst difference " << worst << ")";
}

/*! \brief A random shape of rank in [min_rank, max_rank] with extents in [1, max_extent]. */
inline std::vector<int64_t> RandomShape(std::mt19937* rng, int min_rank, int max_rank,
                                        int max_extent) {
  std::uniform_int_distribution<int> rank(min_rank, max_rank), ext(1, max_extent);
  std::vector<int64_t> s(rank(*rng));
  for (auto& d : s) d = ext(*rng);
  return s;
}

/*! \brief A placeholder of a constant shape. */
inline te::Tensor Placeholder(const std::vector<int64_t>& shape, runtime::DataType t,
                              const std::string& name) {
  Array<PrimExpr> s;
  for (int64_t d : shape) s.push_back(PrimExpr(d));
  return te::placeholder(s, t, name);
}

/*! \brief "(2, 3)" for messages. */
inline std::string Str(const std::vector<int64_t>& s) { return runtime::ShapeToString(s); }

}  // namespace testing
}  // namespace minitvm

#define MINITVM_REFERENCE_OR_SKIP(var, name)                                     \
  auto var##_opt = ::minitvm::testing::Reference(name);                          \
  if (!var##_opt) GTEST_SKIP() << "lownumpy." << (name) << " is not registered"; \
  ::minitvm::runtime::PackedFunc var = *var##_opt

#endif  // MINITVM_TESTS_STAGE2_TOPI_TEST_UTIL_H_
