/*!
 * \file stage5_test_util.h
 * \brief Helpers for the stage-5 tests: small PrimFuncs built with the C++ IR API (the
 * course's vector add, matmul with an init block) and running a built module on arrays.
 */
#ifndef MINITVM_TESTS_STAGE5_STAGE5_TEST_UTIL_H_
#define MINITVM_TESTS_STAGE5_STAGE5_TEST_UTIL_H_

#include <random>
#include <string>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace testing {

using runtime::NDArray;
using namespace tir;  // NOLINT(build/namespaces)

inline DataType F32() { return DataType::Float(32); }
inline PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

/*! \brief A PrimFunc over `buffers` with a root block, as TVMScript writes it. */
inline PrimFunc MakeFunc(const std::vector<Buffer>& buffers, Stmt body,
                         Array<Buffer> root_allocs = {}) {
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  for (const Buffer& b : buffers) {
    Var p(b->name.str() + "_handle", DataType::Handle());
    params.push_back(p);
    buffer_map.Set(p, b);
  }
  Block root({}, {}, {}, "root", body, Stmt(), root_allocs);
  Map<String, Any> attrs;
  attrs.Set(String("global_symbol"), Any(String("main")));
  attrs.Set(String("tir.noalias"), Any(true));
  return PrimFunc(params, BlockRealize({}, const_true(), root), buffer_map, attrs);
}

inline IRModule ModuleOf(const PrimFunc& f) { return IRModule::FromNamed({{"main", f}}); }

/*! \brief C[i] = A[i] + B[i] for i < n, with a spatial block (optionally a loop kind). */
inline PrimFunc MakeVectorAdd(int64_t n, ForKind kind = ForKind::kSerial) {
  Buffer A = decl_buffer({I32(n)}, F32(), "A");
  Buffer B = decl_buffer({I32(n)}, F32(), "B");
  Buffer C = decl_buffer({I32(n)}, F32(), "C");
  Var i("i"), vi("vi");
  Block block({IterVar(Range(0, I32(n)), vi, kDataPar)},
              {BufferRegion(A, {Range(vi, 1)}), BufferRegion(B, {Range(vi, 1)})},
              {BufferRegion(C, {Range(vi, 1)})}, "C",
              BufferStore(C, BufferLoad(A, {vi}) + BufferLoad(B, {vi}), {vi}));
  Stmt loop = For(i, 0, I32(n), kind, BlockRealize({i}, const_true(), block));
  return MakeFunc({A, B, C}, loop);
}

/*! \brief C[i, j] = sum_k A[i, k] * B[k, j] with an init block (the unscheduled matmul). */
inline PrimFunc MakeMatmul(int64_t m, int64_t n, int64_t k) {
  Buffer A = decl_buffer({I32(m), I32(k)}, F32(), "A");
  Buffer B = decl_buffer({I32(k), I32(n)}, F32(), "B");
  Buffer C = decl_buffer({I32(m), I32(n)}, F32(), "C");
  Var i("i"), j("j"), r("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt init = BufferStore(C, FloatImm(F32(), 0.0), {vi, vj});
  Stmt update = BufferStore(
      C, BufferLoad(C, {vi, vj}) + BufferLoad(A, {vi, vk}) * BufferLoad(B, {vk, vj}), {vi, vj});
  Block block({IterVar(Range(0, I32(m)), vi, kDataPar), IterVar(Range(0, I32(n)), vj, kDataPar),
               IterVar(Range(0, I32(k)), vk, kCommReduce)},
              {BufferRegion(A, {Range(vi, 1), Range(vk, 1)}),
               BufferRegion(B, {Range(vk, 1), Range(vj, 1)})},
              {BufferRegion(C, {Range(vi, 1), Range(vj, 1)})}, "C", update, init);
  Stmt body = BlockRealize({i, j, r}, const_true(), block);
  body = For(r, 0, I32(k), ForKind::kSerial, body);
  body = For(j, 0, I32(n), ForKind::kSerial, body);
  body = For(i, 0, I32(m), ForKind::kSerial, body);
  return MakeFunc({A, B, C}, body);
}

/*! \brief A float32 array with values from a fixed-seed uniform distribution. */
inline NDArray RandomArray(const std::vector<int64_t>& shape, uint32_t seed) {
  NDArray a = NDArray::Empty(shape, DataType::Float(32));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = dist(gen);
  return a;
}

inline NDArray Zeros(const std::vector<int64_t>& shape, DataType dtype = DataType::Float(32)) {
  NDArray a = NDArray::Empty(shape, dtype);
  std::memset(a.data(), 0, a.NBytes());
  return a;
}

/*! \brief Max |a - b| over two float32 arrays of the same size. */
inline double MaxAbsDiff(const NDArray& a, const NDArray& b) {
  double m = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    m = std::max(m, std::abs(double(a.data_as<float>()[i]) - double(b.data_as<float>()[i])));
  }
  return m;
}

/*! \brief Reference matmul in double precision. */
inline NDArray RefMatmul(const NDArray& A, const NDArray& B) {
  int64_t m = A.Shape()[0], k = A.Shape()[1], n = B.Shape()[1];
  NDArray C = Zeros({m, n});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t r = 0; r < k; ++r)
        s += double(A.data_as<float>()[i * k + r]) * B.data_as<float>()[r * n + j];
      C.data_as<float>()[i * n + j] = static_cast<float>(s);
    }
  }
  return C;
}

}  // namespace testing
}  // namespace minitvm

#endif  // MINITVM_TESTS_STAGE5_STAGE5_TEST_UTIL_H_
