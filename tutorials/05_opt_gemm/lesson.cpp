/*!
 * \file lesson.cpp
 * \brief Lesson 5 (C++): optimising a float32 GEMM on the CPU one schedule step at a time —
 * blocking, vectorization, loop permutation, array packing, write cache, parallel, register
 * tile — each compiled by LLVM, checked against OpenBLAS and timed (stage 5).
 */
// Lesson 5 (C++): the GEMM schedule, step by step
// ================================================
//
// lesson.py walks the same path from Python. Here every step is a function that takes a
// tir::Schedule and returns the scheduled module; `Evaluate` compiles it with
// codegen::BuildLLVM ("llvm -mcpu=native": LLVM tunes for this CPU), runs it, compares the
// result with OpenBLAS's cblas_sgemm and prints the speed.
//
// MINITVM_TUTORIAL_FAST=1 (the test) uses 256×256 matrices and sends the speeds to stderr,
// so that the expected output holds only results.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "minitvm/codegen/llvm.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/schedule.h"

#ifdef MINITVM_LESSON_HAVE_OPENBLAS
extern "C" void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);
extern "C" char* openblas_get_corename(void);
#endif

using namespace minitvm;       // NOLINT(build/namespaces): a lesson reads better unqualified
using namespace minitvm::tir;  // NOLINT(build/namespaces)
using runtime::NDArray;

namespace {

const bool kFast = std::getenv("MINITVM_TUTORIAL_FAST") != nullptr &&
                   std::string(std::getenv("MINITVM_TUTORIAL_FAST")) == "1";
const int64_t kSize = kFast ? 256 : 1024;
// Timings go to stdout when you run the lesson, to stderr under the test.
std::ostream& Timing() { return kFast ? std::cerr : std::cout; }

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

double Seconds(const std::function<void()>& f, int repeat) {
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

NDArray Random(int64_t rows, int64_t cols, uint32_t seed) {
  NDArray a = NDArray::Empty({rows, cols}, DataType::Float(32));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < rows * cols; ++i) a.data_as<float>()[i] = dist(gen);
  return a;
}

/*! \brief The reference C = A·B: OpenBLAS when linked, else plain loops (slow but exact). */
NDArray Reference(const NDArray& a, const NDArray& b, double* seconds) {
  int n = static_cast<int>(kSize);
  NDArray c = NDArray::Empty({kSize, kSize}, DataType::Float(32));
#ifdef MINITVM_LESSON_HAVE_OPENBLAS
  auto run = [&] {
    cblas_sgemm(101, 111, 111, n, n, n, 1.0f, a.data_as<float>(), n, b.data_as<float>(), n, 0.0f,
                c.data_as<float>(), n);
  };
  run();
  *seconds = Seconds(run, 5);
#else
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k)
        s += double(a.data_as<float>()[i * n + k]) * b.data_as<float>()[k * n + j];
      c.data_as<float>()[i * n + j] = static_cast<float>(s);
    }
  }
  *seconds = 0;
#endif
  return c;
}

struct Problem {
  NDArray a, b, c_ref;
  double ref_gflops = 0;
};

/*! \brief Compile, check, time; prints one result line (and a timing line). */
runtime::Module Step(const std::string& step, const IRModule& mod, const Problem& p) {
  auto t0 = std::chrono::steady_clock::now();
  runtime::Module rt = codegen::BuildLLVM(mod, "llvm -mcpu=native");
  double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  runtime::PackedFunc f = rt["main"];
  NDArray c = NDArray::Empty({kSize, kSize}, DataType::Float(32));
  f(p.a, p.b, c);
  // Float sums in another order differ a little: |got - want| <= 1e-3 + 1e-4 |want|.
  bool ok = true;
  for (int64_t i = 0; i < kSize * kSize; ++i) {
    double want = p.c_ref.data_as<float>()[i];
    ok = ok && std::fabs(c.data_as<float>()[i] - want) <= 1e-3 + 1e-4 * std::fabs(want);
  }
  std::cout << step << std::string(step.size() < 22 ? 22 - step.size() : 1, ' ')
            << " matches the reference: " << (ok ? "True" : "False") << std::endl;
  if (!ok) std::exit(1);
  double s = Seconds([&] { f(p.a, p.b, c); }, step.rfind("0.", 0) == 0 ? 1 : 3);
  double gflops = 2.0 * kSize * kSize * kSize / s / 1e9;
  Timing() << "  " << step << ": " << gflops << " GFLOP/s";
  if (p.ref_gflops > 0) Timing() << " (" << 100 * gflops / p.ref_gflops << "% of OpenBLAS)";
  Timing() << ", build " << build << " s" << std::endl;
  return rt;
}

IRModule AsModule(const te::Tensor& A, const te::Tensor& B, const te::Tensor& C) {
  PrimFunc f = WithAttr(te::CreatePrimFunc({A, B, C}), "global_symbol", String("main"));
  return IRModule::FromNamed({{"main", f}});
}

}  // namespace

int main() {
  const int64_t n = kSize;
  Problem p;
  p.a = Random(n, n, 1);
  p.b = Random(n, n, 2);
  double ref_seconds = 0;
  p.c_ref = Reference(p.a, p.b, &ref_seconds);
  std::cout << "GEMM " << n << "x" << n << "x" << n << " float32, host CPU resolved by LLVM"
            << std::endl;
#ifdef MINITVM_LESSON_HAVE_OPENBLAS
  p.ref_gflops = 2.0 * n * n * n / ref_seconds / 1e9;
  Timing() << "  OpenBLAS (" << openblas_get_corename() << "): " << p.ref_gflops << " GFLOP/s"
           << std::endl;
#endif

  // ---------------------------------------------------------------------------------------
  // 0. Baseline: C[i, j] = sum_k A[i, k] * B[k, j] as create_prim_func writes it.
  // ---------------------------------------------------------------------------------------
  te::Tensor A = te::placeholder({I32(n), I32(n)}, DataType::Float(32), "A");
  te::Tensor B = te::placeholder({I32(n), I32(n)}, DataType::Float(32), "B");
  IterVar k = te::reduce_axis(Range(0, I32(n)), "k");
  te::Tensor C = te::compute(
      {I32(n), I32(n)}, [&](Var i, Var j) { return te::sum(A(i, k->var) * B(k->var, j), {k}); },
      "C");
  IRModule base = AsModule(A, B, C);
  Step("0. baseline", base, p);

  // ---------------------------------------------------------------------------------------
  // 1.-3. Blocking, vectorization, loop permutation (32×32 tiles, k split by 4).
  // ---------------------------------------------------------------------------------------
  const int64_t bn = 32, kf = 4;
  auto blocked = [&](Schedule sch, bool permuted, bool vectorized) {
    BlockRV block = sch->GetBlock("C");
    Array<LoopRV> l = sch->GetLoops(block);
    Array<LoopRV> is = sch->Split(l[0], {std::nullopt, bn});
    Array<LoopRV> js = sch->Split(l[1], {std::nullopt, bn});
    Array<LoopRV> ks = sch->Split(l[2], {std::nullopt, kf});
    if (permuted) {
      sch->Reorder({is[0], js[0], ks[0], is[1], ks[1], js[1]});  // ii outside ki
    } else {
      sch->Reorder({is[0], js[0], ks[0], ks[1], is[1], js[1]});
    }
    if (vectorized) sch->Vectorize(js[1]);
    return std::make_pair(block, Array<LoopRV>{is[0], js[0], ks[0], is[1], ks[1], js[1]});
  };
  {
    Schedule sch = Schedule::Create(base);
    blocked(sch, false, false);
    Step("1. blocking", sch->mod(), p);
  }
  {
    Schedule sch = Schedule::Create(base);
    blocked(sch, false, true);
    Step("2. vectorization", sch->mod(), p);
  }
  {
    Schedule sch = Schedule::Create(base);
    blocked(sch, true, true);
    Step("3. loop permutation", sch->mod(), p);
  }

  // ---------------------------------------------------------------------------------------
  // 4.-6. Array packing (packedB[N/32][K][32]), write cache, parallel.
  // ---------------------------------------------------------------------------------------
  auto packed_module = [&](int64_t tj) {
    te::Tensor packed = te::compute(
        {I32(n / tj), I32(n), I32(tj)}, [&](Var x, Var y, Var z) { return B(y, x * I32(tj) + z); },
        "packedB");
    te::Tensor C2 = te::compute(
        {I32(n), I32(n)},
        [&](Var i, Var j) {
          return te::sum(A(i, k->var) * packed(floordiv(j, I32(tj)), k->var, floormod(j, I32(tj))),
                         {k});
        },
        "C");
    return AsModule(A, B, C2);
  };
  auto pack_schedule = [&](Schedule sch) {
    Array<LoopRV> pl = sch->GetLoops(sch->GetBlock("packedB"));
    sch->Parallel(pl[0]);
    sch->Vectorize(pl[2]);
  };
  IRModule packed = packed_module(bn);
  {
    Schedule sch = Schedule::Create(packed);
    blocked(sch, true, true);
    pack_schedule(sch);
    Step("4. array packing", sch->mod(), p);
  }
  {
    Schedule sch = Schedule::Create(packed);
    auto [block, loops] = blocked(sch, true, true);
    pack_schedule(sch);
    BlockRV local = sch->CacheWrite(block, 0, "local");
    sch->ReverseComputeAt(local, loops[1]);
    sch->DecomposeReduction(block, loops[2]);
    Step("5. write cache", sch->mod(), p);
  }
  {
    // As in TVM, parallel/vectorize need every block under the loop to be complete or a
    // reduction with its init, which the update block of decompose_reduction is not: the loop
    // kinds come first, decompose_reduction last (the init's loops copy the kinds).
    Schedule sch = Schedule::Create(packed);
    auto [block, loops] = blocked(sch, true, true);
    pack_schedule(sch);
    BlockRV local = sch->CacheWrite(block, 0, "local");
    sch->ReverseComputeAt(local, loops[1]);
    sch->Parallel(loops[0]);
    sch->DecomposeReduction(block, loops[2]);
    Step("6. parallel", sch->mod(), p);
  }

  // ---------------------------------------------------------------------------------------
  // 7. Register tile: ti × tj accumulators in vector registers for the whole k loop (see
  //    lesson.py for the reasoning; this is bench/gemm_schedule.h, written out here).
  // ---------------------------------------------------------------------------------------
  bool avx512 = codegen::LLVMHostCPUFeatures().find("+avx512f") != std::string::npos;
  int64_t ti = avx512 ? 8 : 4, tj = avx512 ? 32 : 16,
          ii = std::min<int64_t>(avx512 ? 16 : 32, n / ti);
  Timing() << "register tile: " << ti << "x" << tj << " for " << (avx512 ? 512 : 256)
           << "-bit vectors" << std::endl;
  {
    Schedule sch = Schedule::Create(packed_module(tj));
    BlockRV block = sch->GetBlock("C");
    Array<LoopRV> l = sch->GetLoops(block);
    Array<LoopRV> is = sch->Split(l[0], {std::nullopt, ii, ti});
    Array<LoopRV> js = sch->Split(l[1], {std::nullopt, tj});
    sch->Reorder({is[0], js[0], is[1], l[2], is[2], js[1]});
    BlockRV local = sch->CacheWrite(block, 0, "local");
    sch->ReverseComputeAt(local, is[1]);
    sch->Unroll(is[2]);
    sch->Vectorize(js[1]);
    sch->Parallel(is[0]);
    BlockRV init = sch->DecomposeReduction(block, l[2]);  // last: see step 6
    for (const BlockRV& b : {init, local}) {
      Array<LoopRV> bl = sch->GetLoops(b);
      sch->Unroll(bl[bl.size() - 2]);
      sch->Vectorize(bl[bl.size() - 1]);
    }
    pack_schedule(sch);
    runtime::Module rt = Step("7. register tile", sch->mod(), p);
    std::string assembly = rt.mutable_node()->GetSource("asm");
    std::cout << "fused multiply-adds in the kernel: "
              << (assembly.find("vfmadd") != std::string::npos ? "True" : "False") << std::endl;
  }
  std::cout << "OK: every schedule step computes A @ B like the reference" << std::endl;
  return 0;
}
