/*!
 * \file conv_schedule_test.cc
 * \brief Stage 5: the conv2d rule of the default CPU schedule (minitvm/relax_vm/cpu_conv.h).
 * The tile derived for AVX2 (znver3) and AVX-512 (znver4) within the register budget, and the
 * scheduled conv2d NCHW (batch 1) — plain, with a fused bias + ReLU epilogue, strides 1 and 2,
 * padding, dilation, 1x1 / 3x3 / 5x5, odd sizes that the tile does not divide — computing what
 * the plain TOPI loop nest computes, in the TIR interpreter and compiled. Speed is measured in
 * bench/conv2d_bench.py, never here.
 */
#include <gtest/gtest.h>

#include <random>

#include "minitvm/codegen/llvm.h"
#include "minitvm/relax_vm/cpu_conv.h"
#include "minitvm/relax_vm/default_schedule.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm/topi/nn.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)

bool HostHasAvx512Conv() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

bool HostHasAvx2Conv() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

PrimExpr I64(int64_t v) { return IntImm(DataType::Int(64), v); }

struct Case {
  int64_t c, h, w, o, k, stride, pad, dil;
  bool epilogue;
};

/*! \brief TOPI's conv2d_nchw (as LegalizeOps emits it), optionally + bias and ReLU. */
PrimFunc PlainConv(const Case& t) {
  te::Tensor x = te::placeholder({I64(1), I64(t.c), I64(t.h), I64(t.w)}, F32(), "x");
  te::Tensor w = te::placeholder({I64(t.o), I64(t.c), I64(t.k), I64(t.k)}, F32(), "w");
  te::Tensor y = topi::nn::conv2d_nchw(x, w, {t.stride, t.stride}, {t.pad, t.pad}, {t.dil, t.dil});
  if (!t.epilogue) return WithAttr(te::CreatePrimFunc({x, w, y}), "global_symbol", String("main"));
  te::Tensor b = te::placeholder({I64(1), I64(t.o), I64(1), I64(1)}, F32(), "b");
  te::Tensor add = te::compute(y->shape, te::FCompute([&](const Array<tir::Var>& i) {
                                 return y(i[0], i[1], i[2], i[3]) + b(I64(0), i[1], I64(0), I64(0));
                               }),
                               "T_add");
  te::Tensor relu =
      te::compute(y->shape, te::FCompute([&](const Array<tir::Var>& i) {
                    return tir::max(add(i[0], i[1], i[2], i[3]), tir::make_const(F32(), 0));
                  }),
                  "T_relu");
  return WithAttr(te::CreatePrimFunc({x, w, b, relu}), "global_symbol", String("main"));
}

int CountBlocks(const PrimFunc& f, const std::string& name) {
  int count = 0;
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<tir::BlockNode>(); b && b->name_hint == name) ++count;
  });
  return count;
}

TEST(DeriveConv2dPlan, Avx2AndAvx512Tiles) {
  for (const char* cpu : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
    relax_vm::CpuVectorInfo info = relax_vm::GetCpuVectorInfo(target::Target(cpu));
    for (int64_t ow : {1, 5, 7, 13, 14, 28, 56, 112}) {
      for (int64_t o : {3, 16, 64, 512}) {
        relax_vm::Conv2dShape s;
        s.o = o;
        s.oh = s.ow = ow;
        relax_vm::Conv2dPlan p = relax_vm::DeriveConv2dPlan(info, 32, s);
        SCOPED_TRACE(std::string(cpu) + " " + p.str());
        int64_t nv = p.nr / p.lanes;
        EXPECT_EQ(p.lanes, info.vector_bits / 32);
        EXPECT_LE(p.mr * nv + nv + 1, info.vector_registers);
        EXPECT_EQ(p.xp % p.mr, 0);
        EXPECT_GE(p.xp, ow);
        EXPECT_LE(nv, 2);
      }
    }
  }
  relax_vm::Conv2dShape r;
  r.o = 64;
  r.oh = r.ow = 7;
  EXPECT_EQ(relax_vm::DeriveConv2dPlan(
                relax_vm::GetCpuVectorInfo(target::Target("llvm -mcpu=znver4")), 32, r)
                .mr,
            7);
}

TEST(CpuConv2d, DefaultScheduleMatchesPlainLoops) {
  std::vector<Case> cases = {
      {5, 11, 11, 20, 3, 1, 1, 1, false}, {3, 17, 13, 24, 3, 2, 1, 1, true},
      {16, 15, 15, 33, 1, 2, 0, 1, true}, {4, 12, 12, 16, 3, 1, 2, 2, false},
      {3, 15, 15, 10, 5, 2, 2, 1, true},  {16, 7, 7, 40, 3, 1, 1, 1, true},
  };
  target::Target t(HostHasAvx512Conv() ? "llvm -mcpu=znver4" : "llvm -mcpu=znver3");
  for (const Case& c : cases) {
    SCOPED_TRACE("c=" + std::to_string(c.c) + " hw=" + std::to_string(c.h) + "x" +
                 std::to_string(c.w) + " o=" + std::to_string(c.o) + " k=" + std::to_string(c.k) +
                 " s=" + std::to_string(c.stride) + " p=" + std::to_string(c.pad) +
                 " d=" + std::to_string(c.dil) + (c.epilogue ? " +bias+relu" : ""));
    PrimFunc plain = PlainConv(c);
    PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(plain, t);
    EXPECT_EQ(CountBlocks(s, "packedW"), 1) << "the conv rule did not take it";
    int64_t oh = (c.h + 2 * c.pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
    int64_t ow = (c.w + 2 * c.pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
    NDArray x = RandomArray({1, c.c, c.h, c.w}, 1);
    NDArray w = RandomArray({c.o, c.c, c.k, c.k}, 2);
    NDArray b = RandomArray({1, c.o, 1, 1}, 3);
    auto run = [&](const std::function<void(runtime::PackedArgs)>& fn) {
      NDArray out = Zeros({1, c.o, oh, ow});
      std::vector<Any> v{x, w};
      if (c.epilogue) v.push_back(b);
      v.push_back(out);
      fn(runtime::PackedArgs(v.data(), static_cast<int>(v.size())));
      return out;
    };
    tir::Interpreter ref(plain);
    NDArray want = run([&](runtime::PackedArgs a) { ref.Run(a); });
    tir::Interpreter interp(s);
    EXPECT_LE(MaxAbsDiff(run([&](runtime::PackedArgs a) { interp.Run(a); }), want), 1e-4);
    if (!HostHasAvx2Conv()) continue;
    runtime::Module built = codegen::BuildLLVM(ModuleOf(s), "llvm -mcpu=native");
    runtime::PackedFunc main = built["main"];
    NDArray got = run([&](runtime::PackedArgs a) {
      Any rv;
      main.CallPacked(a, &rv);
    });
    EXPECT_LE(MaxAbsDiff(got, want), 1e-4) << "compiled";
  }
}

TEST(CpuConv2d, PerTaskPackingRowGroups) {
  // A weight passed per call: each task of (panel, group of output rows) packs its panel
  // (plan.row_groups > 0). Every divisor of OH gives the plain loops' result; others are refused.
  Case c{6, 9, 9, 40, 3, 1, 1, 1, false};
  relax_vm::Conv2dShape s;
  s.c = c.c, s.h = c.h, s.w = c.w, s.o = c.o, s.kh = s.kw = c.k, s.pt = s.pl = c.pad;
  s.oh = s.ow = 9;
  relax_vm::Conv2dPlan plan = relax_vm::DeriveConv2dPlan(
      relax_vm::GetCpuVectorInfo(target::Target("llvm -mcpu=znver4")), 32, s);
  NDArray x = RandomArray({1, c.c, c.h, c.w}, 4);
  NDArray w = RandomArray({c.o, c.c, c.k, c.k}, 5);
  auto run = [&](const PrimFunc& f) {
    NDArray out = Zeros({1, c.o, s.oh, s.ow});
    std::vector<Any> v{x, w, out};
    tir::Interpreter(f).Run(runtime::PackedArgs(v.data(), static_cast<int>(v.size())));
    return out;
  };
  NDArray want = run(PlainConv(c));
  for (int64_t groups : {1, 3, 9}) {
    plan.row_groups = groups;
    SCOPED_TRACE(plan.str() + " row_groups=" + std::to_string(groups));
    PrimFunc f = relax_vm::CpuConv2dPrimFunc(s, plan);
    EXPECT_EQ(CountBlocks(f, "packedW"), 1);
    EXPECT_LE(MaxAbsDiff(run(f), want), 1e-4);
  }
  plan.row_groups = 2;
  try {
    relax_vm::CpuConv2dPrimFunc(s, plan);
    ADD_FAILURE() << "row_groups 2 for OH 9 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError") << e.what();
    EXPECT_NE(std::string(e.what()).find("row_groups 2 does not divide OH 9"), std::string::npos)
        << e.what();
  }
}

TEST(CpuConv2d, OtherFormsAreLeftToTheGenericRules) {
  target::Target t("llvm -mcpu=znver4");
  // Batch 2.
  te::Tensor x = te::placeholder({I64(2), I64(8), I64(10), I64(10)}, F32(), "x");
  te::Tensor w = te::placeholder({I64(16), I64(8), I64(3), I64(3)}, F32(), "w");
  te::Tensor y = topi::nn::conv2d_nchw(x, w, {1, 1}, {1, 1}, {1, 1});
  PrimFunc f = WithAttr(te::CreatePrimFunc({x, w, y}), "global_symbol", String("main"));
  EXPECT_FALSE(relax_vm::ScheduleConv2dRule(f, t).has_value());
  // Grouped.
  te::Tensor wg = te::placeholder({I64(16), I64(4), I64(3), I64(3)}, F32(), "w");
  te::Tensor x1 = te::placeholder({I64(1), I64(8), I64(10), I64(10)}, F32(), "x");
  te::Tensor yg = topi::nn::conv2d_nchw(x1, wg, {1, 1}, {1, 1}, {1, 1}, 2);
  PrimFunc g = WithAttr(te::CreatePrimFunc({x1, wg, yg}), "global_symbol", String("main"));
  EXPECT_FALSE(relax_vm::ScheduleConv2dRule(g, t).has_value());
}

}  // namespace
}  // namespace minitvm
