/*!
 * \file perf_schedule_test.cc
 * \brief Stage 5: the target-derived GEMM (minitvm/relax_vm/cpu_gemm.h). The vector unit and
 * caches read from a target (-mcpu tables and explicit attributes), the register tile derived
 * for AVX2 (znver3) and AVX-512 (znver4, skylake-avx512) within the register budget, and the
 * scheduled GEMM — packed, padded edges, dense and matmul — computing what the plain loop nest
 * computes, in the TIR interpreter and compiled, on random shapes including primes and sizes
 * below one tile. Speed is measured in bench/, never here.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "minitvm/codegen/llvm.h"
#include "minitvm/relax_vm/cpu_gemm.h"
#include "minitvm/relax_vm/default_schedule.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/backend_api.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/stmt_functor.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using relax_vm::CpuVectorInfo;
using relax_vm::DeriveGemmPlan;
using relax_vm::GemmPlan;
using relax_vm::GetCpuVectorInfo;

bool HostHasAvx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}
bool HostHasAvx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

TEST(CpuVectorInfo, FromMcpuAndAttributes) {
  CpuVectorInfo z3 = GetCpuVectorInfo(target::Target("llvm -mcpu=znver3"));
  EXPECT_EQ(z3.vector_bits, 256);
  EXPECT_EQ(z3.vector_registers, 16);
  EXPECT_EQ(z3.l1d_bytes, 32 * 1024);
  EXPECT_EQ(z3.l2_bytes, 512 * 1024);
  CpuVectorInfo z4 = GetCpuVectorInfo(target::Target("llvm -mcpu=znver4"));
  EXPECT_EQ(z4.vector_bits, 512);
  EXPECT_EQ(z4.vector_registers, 32);
  EXPECT_EQ(z4.l2_bytes, 1024 * 1024);
  CpuVectorInfo z5 = GetCpuVectorInfo(target::Target("llvm -mcpu=znver5"));
  EXPECT_EQ(z5.vector_registers, 32);
  EXPECT_EQ(z5.l1d_bytes, 48 * 1024);
  CpuVectorInfo sk = GetCpuVectorInfo(target::Target("llvm -mcpu=skylake-avx512"));
  EXPECT_EQ(sk.vector_bits, 512);
  EXPECT_EQ(sk.vector_registers, 32);
  // Explicit attributes win over the tables.
  CpuVectorInfo o = GetCpuVectorInfo(
      target::Target("llvm -mcpu=znver3 -num-vector-registers=32 -l1d-cache-size-bytes=65536 "
                     "-l2-cache-size-bytes=2097152"));
  EXPECT_EQ(o.vector_registers, 32);
  EXPECT_EQ(o.l1d_bytes, 65536);
  EXPECT_EQ(o.l2_bytes, 2097152);
  EXPECT_EQ(GetCpuVectorInfo(target::Target("llvm")).vector_bits, 128);
  // A wrongly typed attribute is a ValueError naming it.
  EXPECT_MINITVM_ERROR(target::Target("llvm -num-vector-registers=many"), "ValueError",
                       "num-vector-registers");
}

TEST(DeriveGemmPlan, Avx2AndAvx512Tiles) {
  // znver3 (AVX2, 16 ymm): 6 rows x 2 vectors of 8 floats = 6 x 16, 12 accumulators + 2 + 1.
  CpuVectorInfo z3 = GetCpuVectorInfo(target::Target("llvm -mcpu=znver3"));
  GemmPlan p3 = DeriveGemmPlan(z3, 32, 1024, 1024, 1024);
  EXPECT_EQ(p3.lanes, 8);
  EXPECT_EQ(p3.mr, 6);
  EXPECT_EQ(p3.nv, 2);
  EXPECT_EQ(p3.nr, 16);
  EXPECT_TRUE(p3.pack_b);
  // znver4 / skylake-avx512 (AVX-512, 32 zmm): 8 rows x 2 vectors of 16 floats = 8 x 32.
  for (const char* cpu : {"llvm -mcpu=znver4", "llvm -mcpu=skylake-avx512", "llvm -mcpu=znver5"}) {
    SCOPED_TRACE(cpu);
    GemmPlan p = DeriveGemmPlan(GetCpuVectorInfo(target::Target(cpu)), 32, 1024, 1024, 1024);
    EXPECT_EQ(p.lanes, 16);
    EXPECT_EQ(p.mr, 8);
    EXPECT_EQ(p.nv, 2);
    EXPECT_EQ(p.nr, 32);
    // k is blocked: the B micro-panel kc x nr fills at most L1 and kc is at most 256, in blocks
    // that divide K = 1024 (znver5's 48 KiB L1 is capped at 256 as well).
    EXPECT_TRUE(p.pack_a);
    EXPECT_EQ(p.kc, 256);
    EXPECT_LE(p.kc * p.nr * 4, GetCpuVectorInfo(target::Target(cpu)).l1d_bytes);
    // The A block (mc x kc) and the C block (mc x nc) each take a quarter of the 1 MiB L2;
    // mc is capped at 32 row tiles.
    EXPECT_EQ(p.mc, 256);
    EXPECT_EQ(p.nc, 256);
    EXPECT_LE(p.mc * p.kc * 4, 256 * 1024);
    EXPECT_LE(p.mc * p.nc * 4, 256 * 1024);
  }
  // znver3: 512 KiB L2, 32 KiB L1, 16-float panels: kc = 32 KiB / 64 B = 512, capped at 256 (4
  // blocks of 1024); mc = (128 KiB / 4 B) / 256 = 128 rounded down to 6-row tiles; nc = 32768 /
  // 126.
  EXPECT_EQ(p3.kc, 256);
  EXPECT_EQ(p3.mc, 126);
  EXPECT_EQ(p3.nc, 256);
  // K = 1000: 4 blocks of 250 (AVX-512); a prime K gets the fewest blocks, the last one padded.
  GemmPlan p1000 =
      DeriveGemmPlan(GetCpuVectorInfo(target::Target("llvm -mcpu=znver4")), 32, 1000, 1000, 1000);
  EXPECT_EQ(p1000.kc, 250);
  GemmPlan prime =
      DeriveGemmPlan(GetCpuVectorInfo(target::Target("llvm -mcpu=znver4")), 32, 509, 509, 1009);
  EXPECT_EQ(prime.kc, 253);  // 4 blocks: 4 * 253 = 1012 >= 1009
  // A is packed when each A block serves 16 panels or more, or when K needs padding.
  EXPECT_FALSE(
      DeriveGemmPlan(GetCpuVectorInfo(target::Target("llvm -mcpu=znver4")), 32, 128, 128, 128)
          .pack_a);
  EXPECT_TRUE(prime.pack_a);
  // K within one block and batch 1: not blocked, A not packed.
  EXPECT_EQ(DeriveGemmPlan(z3, 32, 512, 512, 200).kc, 200);
  GemmPlan b1 = DeriveGemmPlan(z3, 32, 1, 256, 784);
  EXPECT_FALSE(b1.pack_a);
  EXPECT_EQ(b1.kc, 784);
  // float64 halves the lanes, not the tile.
  GemmPlan d =
      DeriveGemmPlan(GetCpuVectorInfo(target::Target("llvm -mcpu=znver4")), 64, 512, 512, 512);
  EXPECT_EQ(d.lanes, 8);
  EXPECT_EQ(d.mr, 8);
}

TEST(DeriveGemmPlan, RegisterBudgetHoldsForEveryShape) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int64_t> dim(1, 300);
  for (const char* cpu : {"llvm -mcpu=znver3", "llvm -mcpu=znver4", "llvm"}) {
    CpuVectorInfo info = GetCpuVectorInfo(target::Target(cpu));
    for (int t = 0; t < 200; ++t) {
      int64_t m = t < 20 ? t + 1 : dim(gen), n = dim(gen), k = dim(gen);
      GemmPlan p = DeriveGemmPlan(info, 32, m, n, k);
      SCOPED_TRACE(std::string(cpu) + " " + p.str());
      EXPECT_LE(p.mr * p.nv + p.nv + 1, info.vector_registers);
      EXPECT_EQ(p.nr, p.nv * p.lanes);
      EXPECT_LE(p.mr, std::max<int64_t>(m, 1));
      EXPECT_GE(p.mc, p.mr);
      EXPECT_EQ(p.mc % p.mr, 0);
      EXPECT_EQ(p.nc % p.nr, 0);
      // k blocks: at most L1 for the B micro-panel and at most 256 (or K itself when not
      // blocked), and the fewest blocks of that size that cover K.
      int64_t kc_l1 = std::clamp<int64_t>(info.l1d_bytes / (p.nr * 4), 16, 256);
      if (p.pack_a) {
        EXPECT_GE(m, 2 * p.mr);
      }
      if (p.kc != k) {
        EXPECT_GE(m, 2 * p.mr);
        EXPECT_LE(p.kc, kc_l1);
        int64_t nk = (k + p.kc - 1) / p.kc;
        EXPECT_LT((nk - 1) * p.kc, k);
      }
      // Batch 1: the whole tile is one row, several vectors wide (as many as the registers
      // allow: 8 vectors with 32 registers, 4 with 16).
      int64_t cap = info.vector_registers >= 32 ? 8 : 4;
      if (m == 1) {
        EXPECT_EQ(p.nv, std::min<int64_t>(cap, (n + p.lanes - 1) / p.lanes));
      }
    }
  }
}

/*! \brief The plain loop nest C = A * B (or A * B^T) as a PrimFunc. */
PrimFunc PlainGemm(int64_t m, int64_t n, int64_t k, bool transpose_b) {
  te::Tensor a = te::placeholder({I32(m), I32(k)}, F32(), "A");
  te::Tensor b = transpose_b ? te::placeholder({I32(n), I32(k)}, F32(), "B")
                             : te::placeholder({I32(k), I32(n)}, F32(), "B");
  tir::IterVar r = te::reduce_axis(Range(0, I32(k)), "k");
  te::Tensor c = te::compute(
      {I32(m), I32(n)},
      [&](tir::Var i, tir::Var j) {
        return te::sum(a(i, r->var) * (transpose_b ? b(j, r->var) : b(r->var, j)), {r});
      },
      "C");
  return WithAttr(te::CreatePrimFunc({a, b, c}), "global_symbol", String("main"));
}

NDArray Run(const std::function<void(runtime::PackedArgs)>& fn, const NDArray& a, const NDArray& b,
            int64_t m, int64_t n) {
  NDArray c = Zeros({m, n});
  std::vector<Any> v{a, b, c};
  fn(runtime::PackedArgs(v.data(), 3));
  return c;
}

/*! \brief The scheduled GEMM for `target` equals the plain loop nest (interpreted and compiled). */
void CheckGemm(const PrimFunc& scheduled, int64_t m, int64_t n, int64_t k, bool transpose_b,
               bool compile) {
  NDArray a = RandomArray({m, k}, 1);
  NDArray b = RandomArray(transpose_b ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, 2);
  tir::Interpreter plain(PlainGemm(m, n, k, transpose_b));
  NDArray want = Run([&](runtime::PackedArgs x) { plain.Run(x); }, a, b, m, n);
  tir::Interpreter interp(scheduled);
  NDArray got = Run([&](runtime::PackedArgs x) { interp.Run(x); }, a, b, m, n);
  EXPECT_LE(MaxAbsDiff(got, want), 1e-4) << "interpreter";
  if (!compile) return;
  runtime::Module built = codegen::BuildLLVM(ModuleOf(scheduled), "llvm -mcpu=native");
  runtime::PackedFunc main = built["main"];
  NDArray compiled = Run(
      [&](runtime::PackedArgs x) {
        Any rv;
        main.CallPacked(x, &rv);
      },
      a, b, m, n);
  EXPECT_LE(MaxAbsDiff(compiled, want), 1e-4) << "compiled";
}

TEST(CpuGemm, RandomShapesPrimesAndBelowOneTile) {
  // (m, n, k): primes, sizes below one tile in each dimension, exact multiples, batch 1.
  std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {7, 13, 11}, {17, 23, 9},  {3, 40, 33}, {31, 37, 5},
      {16, 64, 8}, {1, 256, 19}, {2, 48, 7},  {53, 97, 29}};
  std::mt19937 gen(3);
  std::uniform_int_distribution<int64_t> dim(1, 70);
  for (int i = 0; i < 4; ++i) shapes.emplace_back(dim(gen), dim(gen), dim(gen));
  // The last two have tiny caches: k is blocked (kc = 16, padded when it does not divide K) and
  // the row block is one or two tiles, exercised here on small shapes.
  for (const char* cpu :
       {"llvm -mcpu=znver3", "llvm -mcpu=znver4", "llvm -mcpu=znver3 -l1d-cache-size-bytes=1024",
        "llvm -mcpu=znver4 -l2-cache-size-bytes=8192 -l1d-cache-size-bytes=2048"}) {
    bool runs =
        std::string(cpu).find("znver4") != std::string::npos ? HostHasAvx512() : HostHasAvx2();
    CpuVectorInfo info = GetCpuVectorInfo(target::Target(cpu));
    for (auto [m, n, k] : shapes) {
      for (bool tb : {false, true}) {
        GemmPlan p = DeriveGemmPlan(info, 32, m, n, k, tb);
        SCOPED_TRACE(std::string(cpu) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k) + (tb ? " dense " : " matmul ") + p.str());
        PrimFunc f = relax_vm::CpuGemmPrimFunc(m, n, k, tb, p);
        // Compiled only where this host runs the target's instructions (-mcpu=native is the
        // host; the plan is what differs).
        CheckGemm(f, m, n, k, tb, runs);
      }
    }
  }
}

TEST(CpuGemm, PanelsPackedPerKBlockAndVectorCopyOut) {
  // The packed operands are [k block][panel][kc][nr|mr]; several k blocks (the last one padded
  // for the prime K = 521 with kc <= 64 from a 4 KiB L1), N copied out in 8-float vectors (520),
  // 4-float vectors (60) and scalars (33), checked against the interpreter and compiled.
  // (M > N for the dense cases: M < N may take the small-M plan, which packs no B.)
  target::Target t(HostHasAvx512() ? "llvm -mcpu=znver4" : "llvm -mcpu=znver3");
  CpuVectorInfo info = GetCpuVectorInfo(t);
  CpuVectorInfo tiny =
      GetCpuVectorInfo(target::Target("llvm -mcpu=znver3 -l1d-cache-size-bytes=4096"));
  for (auto [m, n, k, tb, small] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, bool, bool>>{{24, 520, 300, false, false},
                                                                      {100, 60, 600, true, false},
                                                                      {17, 33, 521, false, true},
                                                                      {50, 40, 77, true, true}}) {
    GemmPlan p = DeriveGemmPlan(small ? tiny : info, 32, m, n, k, tb);
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                 p.str());
    ASSERT_LT(p.kc, k);
    PrimFunc f = relax_vm::CpuGemmPrimFunc(m, n, k, tb, p);
    int64_t nk = (k + p.kc - 1) / p.kc, np = (n + p.nr - 1) / p.nr;
    bool seen = false;
    PostOrderVisit(f->body, [&](const ObjectRef& node) {
      const auto* b = node.as<tir::BlockNode>();
      if (!b || b->name_hint != "packedB") return;
      const auto* store = b->body.as<tir::BufferStoreNode>();
      ASSERT_NE(store, nullptr);
      std::vector<int64_t> shape;
      for (const PrimExpr& d : store->buffer->shape) shape.push_back(*AsConstInt(d));
      EXPECT_EQ(shape, (std::vector<int64_t>{nk, np, p.kc, p.nr}));
      seen = true;
    });
    EXPECT_TRUE(seen);
    CheckGemm(f, m, n, k, tb, small ? HostHasAvx2() : true);
  }
}

TEST(CpuGemm, WorkspacesAreReusedAlignedAndIntact) {
  // Freed workspaces are kept per thread for the next call of the same size (no fresh pages
  // per call); each block keeps its alignment and size, and distinct live blocks never alias.
  void* a = MTVMBackendAllocWorkspace(1 << 20, 64);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  std::memset(a, 1, 1 << 20);
  EXPECT_EQ(MTVMBackendFreeWorkspace(a), 0);
  void* b = MTVMBackendAllocWorkspace(1 << 20, 64);
  EXPECT_EQ(b, a);  // reused
  void* c = MTVMBackendAllocWorkspace(1 << 20, 64);
  EXPECT_NE(c, b);
  void* big = MTVMBackendAllocWorkspace(8 << 20, 256);  // not served by a smaller block
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % 256, 0u);
  std::memset(big, 2, 8 << 20);
  void* tiny = MTVMBackendAllocWorkspace(0, 0);
  ASSERT_NE(tiny, nullptr);
  for (void* p : {b, c, big, tiny}) EXPECT_EQ(MTVMBackendFreeWorkspace(p), 0);
  void* small = MTVMBackendAllocWorkspace(100, 64);  // a 1 MiB block is not handed out for it
  EXPECT_NE(small, b);
  EXPECT_NE(small, c);
  EXPECT_EQ(MTVMBackendFreeWorkspace(small), 0);
  EXPECT_EQ(MTVMBackendFreeWorkspace(nullptr), 0);
  // Many sizes: more than the cache keeps; every block writable over its whole size.
  std::vector<void*> live;
  for (int i = 1; i <= 20; ++i) {
    size_t bytes = size_t(i) * 12345;
    void* p = MTVMBackendAllocWorkspace(bytes, 64);
    ASSERT_NE(p, nullptr);
    std::memset(p, i, bytes);
    live.push_back(p);
  }
  for (void* p : live) EXPECT_EQ(MTVMBackendFreeWorkspace(p), 0);
}

int CountBlocks(const PrimFunc& f, const std::string& name) {
  int count = 0;
  PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<tir::BlockNode>(); b && b->name_hint == name) ++count;
  });
  return count;
}

TEST(CpuGemm, DefaultScheduleUsesTheRuleForMatmulAndDense) {
  target::Target t(HostHasAvx512() ? "llvm -mcpu=znver4" : "llvm -mcpu=znver3");
  for (auto [m, n, k, tb] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{{64, 256, 128, false},
                                                                {37, 101, 60, true},
                                                                {1, 256, 200, false},
                                                                {100, 41, 97, false}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    PrimFunc plain = PlainGemm(m, n, k, tb);
    PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(plain, t);
    ASSERT_TRUE(s->attrs.Get(String("tir.is_scheduled")).has_value());
    // Packed whenever several row tiles share a panel (and always for a dense; a dense with
    // fewer rows than columns packs A instead: SmallMDense).
    bool swapped = tb && m < n && m >= 16;
    if ((m > 16 || tb) && !swapped) {
      EXPECT_EQ(CountBlocks(s, "packedB"), 1);
    }
    if (swapped) {
      EXPECT_EQ(CountBlocks(s, "packedB") + CountBlocks(s, "packedA"), 1);
    }
    EXPECT_EQ(s->params.size(), 3u);
    CheckGemm(s, m, n, k, tb, HostHasAvx2());
  }
  // Not a GEMM (a bias add after it): the generic rules, unchanged behaviour.
  PrimFunc mm = MakeMatmul(8, 16, 4);
  PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(mm, t);
  EXPECT_EQ(CountBlocks(s, "packedB"), 0);
}

/*! \brief relu(A * B (or A * B^T) + bias) as one PrimFunc of three blocks (what FuseTIR makes). */
PrimFunc FusedLinear(int64_t m, int64_t n, int64_t k, bool transpose_b) {
  te::Tensor a = te::placeholder({I32(m), I32(k)}, F32(), "A");
  te::Tensor b = transpose_b ? te::placeholder({I32(n), I32(k)}, F32(), "B")
                             : te::placeholder({I32(k), I32(n)}, F32(), "B");
  te::Tensor bias = te::placeholder({I32(n)}, F32(), "bias");
  tir::IterVar r = te::reduce_axis(Range(0, I32(k)), "k");
  te::Tensor c = te::compute(
      {I32(m), I32(n)},
      [&](tir::Var i, tir::Var j) {
        return te::sum(a(i, r->var) * (transpose_b ? b(j, r->var) : b(r->var, j)), {r});
      },
      "matmul");
  te::Tensor d = te::compute(
      {I32(m), I32(n)}, [&](tir::Var i, tir::Var j) { return c(i, j) + bias(j); }, "add");
  te::Tensor e = te::compute(
      {I32(m), I32(n)},
      [&](tir::Var i, tir::Var j) { return tir::max(d(i, j), make_const(F32(), 0)); }, "relu");
  return WithAttr(te::CreatePrimFunc({a, b, bias, e}), "global_symbol", String("main"));
}

/*!
 * \brief The scheduled relu(A * B(^T) + bias) `s` against the plain nest `plain` on random
 * data: interpreted, and compiled where the host runs the code.
 */
void CheckFusedLinear(const PrimFunc& plain, const PrimFunc& s, int64_t m, int64_t n, int64_t k,
                      bool tb) {
  NDArray a = RandomArray({m, k}, 1);
  NDArray b = RandomArray(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, 2);
  NDArray bias = RandomArray({n}, 3);
  auto run = [&](const std::function<void(runtime::PackedArgs)>& fn) {
    NDArray out = Zeros({m, n});
    std::vector<Any> v{a, b, bias, out};
    fn(runtime::PackedArgs(v.data(), 4));
    return out;
  };
  tir::Interpreter ref(plain);
  NDArray want = run([&](runtime::PackedArgs x) { ref.Run(x); });
  tir::Interpreter interp(s);
  EXPECT_LE(MaxAbsDiff(run([&](runtime::PackedArgs x) { interp.Run(x); }), want), 1e-4);
  if (!HostHasAvx2()) return;
  runtime::Module built = codegen::BuildLLVM(ModuleOf(s), "llvm -mcpu=native");
  runtime::PackedFunc main = built["main"];
  NDArray got = run([&](runtime::PackedArgs x) {
    Any rv;
    main.CallPacked(x, &rv);
  });
  EXPECT_LE(MaxAbsDiff(got, want), 1e-4) << "compiled";
}

TEST(CpuGemm, FusedBiasReluEpilogue) {
  target::Target t(HostHasAvx512() ? "llvm -mcpu=znver4" : "llvm -mcpu=znver3");
  for (auto [m, n, k, tb] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{{1, 128, 256, true},
                                                                {1, 96, 400, false},
                                                                {64, 96, 80, true},
                                                                {50, 70, 33, false},
                                                                {32, 64, 64, false},
                                                                {3, 96, 160, true}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                 (tb ? " dense" : " matmul"));
    PrimFunc plain = FusedLinear(m, n, k, tb);
    PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(plain, t);
    // The GEMM rule took it (its blocks are there), not the generic schedule.
    EXPECT_EQ(CountBlocks(s, "matmul"), 0);
    CheckFusedLinear(plain, s, m, n, k, tb);
  }
}

/*! \brief An array of `value` (garbage an output or workspace may hold before a call). */
NDArray Filled(const std::vector<int64_t>& shape, float value) {
  NDArray a = Zeros(shape);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data_as<float>()[i] = value;
  return a;
}

/*!
 * \brief Runs `fn(A, B, [bias,] out)` with `out` full of garbage; before that, one call on other
 * inputs (1e30 everywhere) leaves garbage in the reused workspaces (the padded C).
 */
NDArray RunOnGarbage(const std::function<void(runtime::PackedArgs)>& fn,
                     const std::vector<NDArray>& inputs, int64_t m, int64_t n) {
  std::vector<Any> dirty;
  for (const NDArray& x : inputs) dirty.push_back(Filled(x.Shape(), 1e30f));
  dirty.push_back(Filled({m, n}, 0.0f));
  fn(runtime::PackedArgs(dirty.data(), static_cast<int>(dirty.size())));
  NDArray out = Filled({m, n}, std::nanf(""));
  std::vector<Any> v(inputs.begin(), inputs.end());
  v.push_back(out);
  fn(runtime::PackedArgs(v.data(), static_cast<int>(v.size())));
  return out;
}

bool AllFinite(const NDArray& a) {
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    if (!std::isfinite(a.data_as<float>()[i])) return false;
  }
  return true;
}

TEST(CpuGemm, KBlocksFirstStoreAndFullTilesStoreTheOutput) {
  // Several k blocks (kc = 16 from a 2 KiB / 1 KiB L1): the first k block stores its tiles (no
  // block zeroes C), and at the last one every tile within M and N stores into the output
  // (through the epilogue); only the padded tiles go through the padded C and its copy. The
  // output starts as NaN and the workspaces hold garbage from a call before: the result must
  // not depend on either (interpreted and compiled).
  const bool avx512 = HostHasAvx512();
  target::Target t(avx512 ? "llvm -mcpu=znver4 -l1d-cache-size-bytes=2048"
                          : "llvm -mcpu=znver3 -l1d-cache-size-bytes=1024");
  CpuVectorInfo info = GetCpuVectorInfo(t);
  for (auto [m, n, k, tb] : std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{
           {48, 64, 80, false},   // nothing padded: C is the output, no copy
           {50, 70, 77, false},   // M, N and K padded
           {64, 100, 64, false},  // N padded
           {101, 96, 48, true},   // M padded, dense
           {17, 33, 40, false},   // one full row tile, one full panel
           {23, 200, 37, true}}) {
    GemmPlan p = DeriveGemmPlan(info, 32, m, n, k, tb);
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                 p.str());
    if (p.swap_ab) continue;
    ASSERT_LT(p.kc, k);
    const bool padded = m % p.mr != 0 || n % p.nr != 0;
    for (bool epilogue : {false, true}) {
      if (epilogue && m * n * k < (1 << 15)) continue;  // the rule leaves it to the generic one
      PrimFunc s = epilogue ? relax_vm::DefaultCPUSchedulePrimFunc(FusedLinear(m, n, k, tb), t)
                            : relax_vm::CpuGemmPrimFunc(m, n, k, tb, p);
      EXPECT_EQ(CountBlocks(s, "C_init") + CountBlocks(s, "C_pad_init"), 0);
      EXPECT_EQ(CountBlocks(s, "C_pad_update_out"), padded || epilogue ? 1 : 0);
      NDArray a = RandomArray({m, k}, 1);
      NDArray b = RandomArray(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, 2);
      std::vector<NDArray> inputs{a, b};
      if (epilogue) inputs.push_back(RandomArray({n}, 3));
      PrimFunc plain = epilogue ? FusedLinear(m, n, k, tb) : PlainGemm(m, n, k, tb);
      tir::Interpreter ref(plain);
      NDArray want = RunOnGarbage([&](runtime::PackedArgs x) { ref.Run(x); }, inputs, m, n);
      tir::Interpreter interp(s);
      NDArray got = RunOnGarbage([&](runtime::PackedArgs x) { interp.Run(x); }, inputs, m, n);
      EXPECT_TRUE(AllFinite(got)) << "interpreter, epilogue " << epilogue;
      EXPECT_LE(MaxAbsDiff(got, want), 1e-4) << "interpreter, epilogue " << epilogue;
      if (!(avx512 ? HostHasAvx512() : HostHasAvx2())) continue;
      runtime::Module built = codegen::BuildLLVM(ModuleOf(s), "llvm -mcpu=native");
      runtime::PackedFunc main = built["main"];
      NDArray compiled = RunOnGarbage(
          [&](runtime::PackedArgs x) {
            Any rv;
            main.CallPacked(x, &rv);
          },
          inputs, m, n);
      EXPECT_TRUE(AllFinite(compiled)) << "compiled, epilogue " << epilogue;
      EXPECT_LE(MaxAbsDiff(compiled, want), 1e-4) << "compiled, epilogue " << epilogue;
    }
  }
}

/*! \brief The extent of the parallel loop around the register tiles (0 when serial). */
int64_t TileParallelExtent(const PrimFunc& f) {
  int64_t extent = 0;
  PostOrderVisit(f->body, [&](const ObjectRef& node) {
    const auto* loop = node.as<tir::ForNode>();
    if (!loop || loop->kind != tir::ForKind::kParallel) return;
    bool tiles = false;
    PostOrderVisit(loop->body, [&](const ObjectRef& n) {
      if (const auto* b = n.as<tir::BlockNode>(); b && b->name_hint == "P_update") tiles = true;
    });
    if (tiles) extent = *AsConstInt(loop->extent);
  });
  return extent;
}

TEST(CpuGemm, EvenParallelSharesAndNarrowLastPanel) {
  // The parallel loop over row blocks / column groups has an even count or at least 64 (a
  // thread's contiguous share is then within 1/64 of half): 1000^3 on AVX-512 has 125 row tiles
  // (divisors 1, 5, 25), so 125 row blocks of one tile, not 25 of five (a prime count, e.g. 17
  // column groups for 300x520x600, stays as it is). A last panel that is
  // mostly padding runs a narrow tile (8 columns for N = 1000: 1000 = 31 * 32 + 8 on AVX-512,
  // 62 * 16 + 8 on AVX2); its full tiles store into the output at the last k block.
  for (const char* cpu : {"llvm -mcpu=znver4", "llvm -mcpu=znver3"}) {
    CpuVectorInfo info = GetCpuVectorInfo(target::Target(cpu));
    for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1000, 1000, 1000},
                                                                             {1024, 1024, 1024},
                                                                             {2048, 2048, 2048},
                                                                             {784, 256, 784},
                                                                             {1009, 1009, 1009},
                                                                             {600, 1000, 300},
                                                                             {512, 512, 512}}) {
      GemmPlan p = DeriveGemmPlan(info, 32, m, n, k);
      SCOPED_TRACE(std::string(cpu) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                   std::to_string(k) + " " + p.str());
      PrimFunc f = relax_vm::CpuGemmPrimFunc(m, n, k, false, p);
      int64_t par = TileParallelExtent(f);
      EXPECT_TRUE(par % 2 == 0 || par >= 64) << par;
      if (std::string(cpu) == "llvm -mcpu=znver4" && m == 1000 && n == 1000) {
        EXPECT_EQ(par, 125);
      }
      const int64_t rem = n % p.nr;
      const bool narrow = rem != 0 && rem <= p.nr / 2;
      EXPECT_EQ(CountBlocks(f, "P_update_tail"), narrow ? 1 : 0);
      if (n == 1000) {
        EXPECT_TRUE(narrow);
        int64_t widest = 0;  // the widest vector loop in the narrow tile
        PostOrderVisit(f->body, [&](const ObjectRef& node) {
          const auto* loop = node.as<tir::ForNode>();
          if (!loop || loop->kind != tir::ForKind::kVectorized) return;
          PostOrderVisit(loop->body, [&](const ObjectRef& x) {
            if (const auto* b = x.as<tir::BlockNode>(); b && b->name_hint == "P_update_tail")
              widest = std::max(widest, *AsConstInt(loop->extent));
          });
        });
        EXPECT_EQ(widest, 8);
      }
      EXPECT_EQ(CountBlocks(f, "C_pad_update_out"), n % p.nr != 0 || m % p.mr != 0 ? 1 : 0);
      EXPECT_EQ(CountBlocks(f, "C_init") + CountBlocks(f, "C_pad_init"), 0);
    }
  }
}

TEST(DeriveGemmPlan, SmallMDenseSwapsOperands) {
  // The MLP's first layer at batch 64 (64 x 784 by 256 x 784 transposed): only A is packed.
  CpuVectorInfo z4 = GetCpuVectorInfo(target::Target("llvm -mcpu=znver4"));
  CpuVectorInfo z3 = GetCpuVectorInfo(target::Target("llvm -mcpu=znver3"));
  GemmPlan p4 = DeriveGemmPlan(z4, 32, 64, 256, 784, true);
  EXPECT_TRUE(p4.swap_ab) << p4.str();
  EXPECT_TRUE(p4.pack_a && !p4.pack_b) << p4.str();
  EXPECT_EQ(p4.nr, 32);  // two vectors of 16 rows of A
  EXPECT_EQ(p4.mr, 8);   // 8 rows of B: 16 accumulators + 2 + 1 of 32 zmm
  EXPECT_EQ(p4.kc, 784);
  // AVX2: 2 vectors of 8 rows of A; 6 rows of B would fit (12 + 2 + 1 of 16 ymm), 4 divides 256.
  GemmPlan p3 = DeriveGemmPlan(z3, 32, 64, 256, 784, true);
  EXPECT_TRUE(p3.swap_ab);
  EXPECT_EQ(p3.nr, 16);
  EXPECT_EQ(p3.mr, 4);
  // Fewest padded rows of A, in 1, 2 or 4 vectors (two on a tie): 48 and 16 rows take one
  // vector of 16 (AVX-512), 96 rows two.
  EXPECT_EQ(DeriveGemmPlan(z4, 32, 48, 256, 784, true).nv, 1);
  EXPECT_EQ(DeriveGemmPlan(z4, 32, 16, 256, 784, true).nv, 1);
  EXPECT_EQ(DeriveGemmPlan(z4, 32, 96, 256, 784, true).nv, 2);
  // Not swapped: a matmul, M >= N, fewer rows than a vector (batch 1 takes the dot products),
  // or an A that does not fit half of L2 (64 x 8192 floats = 2 MiB).
  EXPECT_FALSE(DeriveGemmPlan(z4, 32, 64, 256, 784, false).swap_ab);
  EXPECT_FALSE(DeriveGemmPlan(z4, 32, 256, 256, 784, true).swap_ab);
  EXPECT_FALSE(DeriveGemmPlan(z4, 32, 64, 10, 256, true).swap_ab);
  EXPECT_FALSE(DeriveGemmPlan(z4, 32, 8, 256, 784, true).swap_ab);
  EXPECT_FALSE(DeriveGemmPlan(z4, 32, 64, 256, 8192, true).swap_ab);
  // ... or a constant B (the rule passes b_constant = true: its panels are packed at compile
  // time).
  EXPECT_FALSE(DeriveGemmPlan(z4, 32, 64, 256, 784, true, true).swap_ab);
  // The register budget for every swapped shape.
  std::mt19937 gen(11);
  std::uniform_int_distribution<int64_t> dim(1, 400);
  for (const CpuVectorInfo& info : {z3, z4, GetCpuVectorInfo(target::Target("llvm"))}) {
    for (int t = 0; t < 300; ++t) {
      int64_t m = dim(gen), n = dim(gen), k = dim(gen);
      GemmPlan p = DeriveGemmPlan(info, 32, m, n, k, true);
      if (!p.swap_ab) continue;
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                   p.str());
      EXPECT_LE(p.mr * p.nv + p.nv + 1, info.vector_registers);
      EXPECT_EQ(p.nr, p.nv * p.lanes);
      EXPECT_GE(m, p.lanes);
      EXPECT_LT(m, n);
      EXPECT_LE(p.mr, n);
    }
  }
  EXPECT_MINITVM_ERROR(relax_vm::CpuGemmPrimFunc(64, 256, 784, false, p4), "ValueError", "swap_ab");
}

TEST(CpuGemm, SmallMDenseRandomShapesWithEpilogue) {
  // relu(A * B^T + bias) through the default CPU schedule on small-M dense shapes, exact
  // multiples of the tile (the transposed store carries the epilogue) and ragged ones (padded
  // Ct, then a transposing copy through the epilogue), against the interpreted plain nest.
  target::Target t(HostHasAvx512() ? "llvm -mcpu=znver4" : "llvm -mcpu=znver3");
  std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {32, 64, 24}, {16, 40, 7},  {17, 23, 9}, {31, 97, 1}, {48, 50, 33},
      {16, 17, 16}, {20, 50, 32}, {64, 72, 48}};  // the last two: K a multiple of the lanes (vector
                                                  // packing)
  std::mt19937 gen(5);
  std::uniform_int_distribution<int64_t> dim(16, 60);
  for (int i = 0; i < 4; ++i) {
    int64_t m = dim(gen);
    shapes.emplace_back(m, m + dim(gen), dim(gen) / 2);
  }
  for (auto [m, n, k] : shapes) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    PrimFunc plain = FusedLinear(m, n, k, true);
    PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(plain, t);
    if (m * n * k < (1 << 15)) {
      // Below the rule's size the generic schedule runs; the kernel itself is checked directly.
      GemmPlan p = DeriveGemmPlan(GetCpuVectorInfo(t), 32, m, n, k, true);
      ASSERT_TRUE(p.swap_ab) << p.str();
      CheckGemm(relax_vm::CpuGemmPrimFunc(m, n, k, true, p), m, n, k, true, HostHasAvx2());
      continue;
    }
    EXPECT_EQ(CountBlocks(s, "packedA"), 1);
    EXPECT_EQ(CountBlocks(s, "packedB"), 0);
    CheckFusedLinear(plain, s, m, n, k, true);
  }
}

TEST(DeriveGemmPlan, PackedGemvForAConstantDenseWeight) {
  // 2 to mr-1 rows with a constant (layout-free) B [N,K]: B packed at compile time into
  // [N/nr][K][nr] panels, all rows in one tile against nv vectors, within the registers: 2 x 4
  // vectors of 16 floats with 32 zmm (znver4, znver5, skylake-avx512), 2 x 4 of 8 with 16 ymm
  // (znver3). With B passed per call they stay the dot products (no packing per call), and so
  // does batch 1 with K whole vectors (its dot products are as fast and pack nothing); batch 1
  // with a ragged K is packed (1 x 8 vectors, 1 x 4 on AVX2).
  for (const char* cpu : {"llvm -mcpu=znver3", "llvm -mcpu=znver4", "llvm -mcpu=znver5",
                          "llvm -mcpu=skylake-avx512"}) {
    SCOPED_TRACE(cpu);
    CpuVectorInfo info = GetCpuVectorInfo(target::Target(cpu));
    const bool avx512 = info.vector_registers >= 32;
    GemmPlan p = DeriveGemmPlan(info, 32, 2, 256, 784, true, true);
    EXPECT_TRUE(p.pack_b) << p.str();
    EXPECT_FALSE(p.swap_ab || p.pack_a) << p.str();
    EXPECT_EQ(p.mr, 2);
    EXPECT_EQ(p.lanes, avx512 ? 16 : 8);
    EXPECT_EQ(p.nv, 4);
    EXPECT_EQ(p.nr, avx512 ? 64 : 32);  // 4 panels of the MLP's 256 outputs, or 8 on AVX2
    EXPECT_EQ(p.kc, 784);
    EXPECT_LE(p.mr * p.nv + p.nv + 1, info.vector_registers);
    EXPECT_FALSE(DeriveGemmPlan(info, 32, 2, 256, 784, true, false).pack_b);  // dot products
    EXPECT_FALSE(DeriveGemmPlan(info, 32, 1, 256, 784, true, true).pack_b);   // dot products
    GemmPlan ragged = DeriveGemmPlan(info, 32, 1, 256, 787, true, true);
    EXPECT_TRUE(ragged.pack_b && ragged.mr == 1) << ragged.str();
    EXPECT_EQ(ragged.nv, avx512 ? 8 : 4);
    // A narrow N (8 outputs at 2 rows: one vector, 2 accumulators) keeps the dot products.
    EXPECT_FALSE(DeriveGemmPlan(info, 32, 2, 8, 256, true, true).pack_b);
    for (int64_t m = 2; m <= 4; ++m) {
      GemmPlan q = DeriveGemmPlan(info, 32, m, 256, 784, true, true);
      EXPECT_TRUE(q.pack_b && !q.swap_ab) << q.str();
      EXPECT_EQ(q.mr, m);
      EXPECT_GE(q.mr * q.nv, 4);
      EXPECT_LE(q.mr * q.nv + q.nv + 1, info.vector_registers);
    }
  }
  // Every constant-B dense below the tile: packed with 2 rows or more and 4 accumulators, or
  // when K is not whole vectors, else the dot products; within the registers either way.
  std::mt19937 gen(18);
  std::uniform_int_distribution<int64_t> dim(1, 400);
  for (const char* cpu : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
    CpuVectorInfo info = GetCpuVectorInfo(target::Target(cpu));
    for (int t = 0; t < 200; ++t) {
      int64_t m = 1 + t % 4, n = dim(gen), k = dim(gen);
      GemmPlan p = DeriveGemmPlan(info, 32, m, n, k, true, true);
      SCOPED_TRACE(std::string(cpu) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                   std::to_string(k) + " " + p.str());
      EXPECT_FALSE(p.swap_ab);
      EXPECT_EQ(p.pack_b, (m > 1 && p.mr * p.nv >= 4) || k % p.lanes != 0);
      EXPECT_LE(p.mr * p.nv + p.nv + 1, info.vector_registers);
    }
  }
}

/*! \brief `f` with the parameters at `indices` listed in "layout_free_buffers" (constants). */
PrimFunc WithLayoutFree(const PrimFunc& f, const std::vector<int64_t>& indices) {
  Array<Any> a;
  for (int64_t i : indices) a.push_back(Any(i));
  return WithAttr(f, "layout_free_buffers", Any(a));
}

TEST(CpuGemm, PackedGemvRandomShapesWithConstantWeight) {
  // relu(A * B^T + bias) with B layout free and 1 to 4 rows through the default CPU schedule:
  // the packed GEMV where the plan packs (its packedB block marked as compile-time
  // preprocessing; run here with the packing inside, as the interpreter folds it), else the dot
  // products with their tree of lane sums, against the interpreted plain nest, on
  // primes, N not a multiple of the lanes or of the panel, K below one vector; with the AVX2
  // (znver3) and the AVX-512 (znver4) tiles, each compiled for the host.
  std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {2, 128, 64}, {1, 97, 61}, {1, 131, 16}, {2, 37, 29}, {3, 50, 64},
      {4, 23, 7},   {1, 300, 5}, {2, 64, 3},   {1, 10, 48}};  // the last two: dot products
  std::mt19937 gen(19);
  std::uniform_int_distribution<int64_t> dim(1, 150);
  for (int i = 0; i < 4; ++i) shapes.emplace_back(1 + i, dim(gen), dim(gen));
  for (const char* cpu : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
    target::Target t(cpu);
    for (auto [m, n, k] : shapes) {
      GemmPlan p = DeriveGemmPlan(GetCpuVectorInfo(t), 32, m, n, k, true, true);
      SCOPED_TRACE(std::string(cpu) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                   std::to_string(k) + " " + p.str());
      PrimFunc plain = FusedLinear(m, n, k, true);
      PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(WithLayoutFree(plain, {1}), t);
      EXPECT_EQ(CountBlocks(s, "matmul"), 0);  // the GEMM rule took it, at any size
      EXPECT_EQ(CountBlocks(s, "packedB"), p.pack_b ? 1 : 0);
      int marked = 0;
      PostOrderVisit(s->body, [&](const ObjectRef& o) {
        const auto* b = o.as<tir::BlockNode>();
        if (b && b->annotations.count(String("meta_schedule.layout_rewrite_preproc"))) ++marked;
      });
      EXPECT_EQ(marked, p.pack_b ? 1 : 0);
      CheckFusedLinear(plain, s, m, n, k, true);
    }
  }
}

TEST(CpuGemm, DotProductsWithTreeLaneSumsRandomShapes) {
  // The dot-product kernel (a dense passed per call, fewer rows than the tile, K whole vectors):
  // its lanes summed by a tree of vector adds (16 -> 8 -> 4 -> 2 -> 1 on AVX-512, 8 -> ... on
  // AVX2), per tile of 8, 4, 2 or 1 rows of B (N prime: one), with and without the bias + ReLU
  // epilogue, against the interpreted plain nest; compiled for the host.
  std::mt19937 gen(23);
  std::uniform_int_distribution<int64_t> dim(1, 90);
  for (const char* cpu : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
    target::Target t(cpu);
    CpuVectorInfo info = GetCpuVectorInfo(t);
    const int64_t lanes = info.vector_bits / 32;
    std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
        {1, 256, 784}, {1, 10, 256}, {1, 131, lanes}, {3, 12, 5 * lanes}, {2, 6, 3 * lanes}};
    for (int i = 0; i < 4; ++i)
      shapes.emplace_back(1 + i % 4, dim(gen), lanes * (1 + dim(gen) % 9));
    for (auto [m, n, k] : shapes) {
      GemmPlan p = DeriveGemmPlan(info, 32, m, n, k, true);
      SCOPED_TRACE(std::string(cpu) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                   std::to_string(k) + " " + p.str());
      ASSERT_FALSE(p.pack_b || p.swap_ab);
      PrimFunc f = relax_vm::CpuGemmPrimFunc(m, n, k, true, p);
      EXPECT_EQ(CountBlocks(f, "lanes2"), 1);
      if (m * n * k <= 40000) {
        CheckGemm(f, m, n, k, true, HostHasAvx2());
      }
      PrimFunc plain = FusedLinear(m, n, k, true);
      PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(plain, t);
      EXPECT_EQ(CountBlocks(s, "lanes2"), 1);
      if (m * n * k <= 40000) CheckFusedLinear(plain, s, m, n, k, true);
    }
  }
}

TEST(CpuGemm, RegisteredGlobals) {
  auto derive = runtime::Registry::Get("relax.backend.DeriveGemmPlan");
  ASSERT_TRUE(derive.has_value());
  Map<String, Any> plan = (*derive)(target::Target("llvm -mcpu=znver3"), int64_t(32), int64_t(256),
                                    int64_t(256), int64_t(256))
                              .cast<Map<String, Any>>();
  EXPECT_EQ(plan.Get(String("mr"))->cast<int64_t>(), 6);
  EXPECT_EQ(plan.Get(String("nr"))->cast<int64_t>(), 16);
}

}  // namespace
}  // namespace minitvm
