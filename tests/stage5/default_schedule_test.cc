/*!
 * \file default_schedule_test.cc
 * \brief Stage 5: the CPU default schedule (DefaultCPUSchedulePrimFunc /
 * "relax.transform.DefaultCPUSchedule"). Every TOPI kernel the Relax legalizer uses, scheduled
 * for AVX-512, AVX2 and generic targets, computes what the unscheduled kernel computes: both run
 * in the TIR interpreter and compiled with LLVM, on random inputs. Also: which loops become
 * parallel / vectorized, the vector width from the target, idempotence, and the pass on a module.
 */
#include "minitvm/relax_vm/default_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "minitvm/codegen/llvm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/stmt_functor.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using runtime::Registry;

const char* kTargets[] = {"llvm -mcpu=skylake-avx512", "llvm -mcpu=haswell", "llvm"};

bool HostRuns(const std::string& target) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (target.find("avx512") != std::string::npos) return __builtin_cpu_supports("avx512f");
  if (target.find("haswell") != std::string::npos) return __builtin_cpu_supports("avx2");
  return true;
#else
  return target == "llvm";
#endif
}

std::vector<int64_t> ShapeOf(const te::Tensor& t) {
  std::vector<int64_t> s;
  for (const PrimExpr& d : t->shape) s.push_back(*AsConstInt(d));
  return s;
}

te::Tensor Ph(std::vector<int64_t> shape, const std::string& name) {
  Array<PrimExpr> s;
  for (int64_t d : shape) s.push_back(I32(d));
  return te::placeholder(s, F32(), name);
}

/*! \brief The PrimFunc inputs → "topi.<op>"(args). */
PrimFunc TopiFunc(const std::string& op, const std::vector<te::Tensor>& inputs,
                  std::vector<Any> args) {
  auto f = Registry::Get("topi." + op);
  EXPECT_TRUE(f.has_value()) << "topi." << op;
  Any result;
  f->CallPacked(runtime::PackedArgs(args.data(), static_cast<int>(args.size())), &result);
  Array<te::Tensor> all;
  for (const te::Tensor& t : inputs) all.push_back(t);
  all.push_back(result.cast<te::Tensor>());
  return WithAttr(te::CreatePrimFunc(all), "global_symbol", String("main"));
}

/*! \brief Run `fn` on fresh copies of `inputs` plus a zeroed output of `out_shape`. */
NDArray RunWith(const std::function<void(runtime::PackedArgs)>& fn,
                const std::vector<NDArray>& inputs, const std::vector<int64_t>& out_shape) {
  std::vector<Any> values;
  for (const NDArray& a : inputs) values.emplace_back(a);
  NDArray out = Zeros(out_shape);
  values.emplace_back(out);
  fn(runtime::PackedArgs(values.data(), static_cast<int>(values.size())));
  return out;
}

int CountLoops(const PrimFunc& f, ForKind kind) {
  int n = 0;
  PostOrderVisit(f->body, [&](const ObjectRef& node) {
    if (const auto* loop = node.as<ForNode>(); loop && loop->kind == kind) ++n;
  });
  return n;
}

/*! \brief Scheduled == unscheduled for every target, interpreted and compiled. */
void CheckSchedule(const std::string& name, const PrimFunc& func, const std::vector<te::Tensor>& in,
                   std::vector<int64_t> out_shape, double tol = 1e-4) {
  SCOPED_TRACE(name);
  std::vector<NDArray> inputs;
  uint32_t seed = 1;
  for (const te::Tensor& t : in) inputs.push_back(RandomArray(ShapeOf(t), seed++));
  tir::Interpreter plain(func);
  NDArray want = RunWith([&](runtime::PackedArgs a) { plain.Run(a); }, inputs, out_shape);
  for (const char* target : kTargets) {
    SCOPED_TRACE(target);
    PrimFunc sched = relax_vm::DefaultCPUSchedulePrimFunc(func, target::Target(target));
    ASSERT_TRUE(sched->attrs.Get(String("tir.is_scheduled")).has_value());
    tir::Interpreter interp(sched);
    NDArray got = RunWith([&](runtime::PackedArgs a) { interp.Run(a); }, inputs, out_shape);
    EXPECT_LE(MaxAbsDiff(got, want), tol) << "interpreter";
    if (!HostRuns(target)) continue;
    runtime::Module built = codegen::BuildLLVM(ModuleOf(sched), target);
    runtime::PackedFunc main = built["main"];
    NDArray compiled = RunWith(
        [&](runtime::PackedArgs a) {
          Any rv;
          main.CallPacked(a, &rv);
        },
        inputs, out_shape);
    EXPECT_LE(MaxAbsDiff(compiled, want), tol) << "compiled";
  }
}

TEST(DefaultCPUSchedule, MatmulDense) {
  for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {1, 256, 784}, {64, 256, 128}, {17, 23, 9}, {8, 40, 33}}) {
    te::Tensor a = Ph({m, k}, "a"), b = Ph({k, n}, "b");
    PrimFunc f = TopiFunc("matmul", {a, b}, {a, b, false, false, Any()});
    CheckSchedule("matmul " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
                  f, {a, b}, {m, n});
  }
  te::Tensor a = Ph({16, 64}, "a"), w = Ph({48, 64}, "w"), bias = Ph({48}, "bias");
  CheckSchedule("dense", TopiFunc("nn.dense", {a, w, bias}, {a, w, bias, Any()}), {a, w, bias},
                {16, 48});
}

TEST(DefaultCPUSchedule, Conv2dPool) {
  te::Tensor x = Ph({1, 8, 16, 16}, "x"), w = Ph({16, 8, 3, 3}, "w");
  CheckSchedule("conv2d 3x3",
                TopiFunc("nn.conv2d_nchw", {x, w},
                         {x, w, Array<Any>{1, 1}, Array<Any>{1, 1}, Array<Any>{1, 1}, 1, Any()}),
                {x, w}, {1, 16, 16, 16});
  te::Tensor x2 = Ph({1, 3, 20, 20}, "x2"), w2 = Ph({8, 3, 7, 7}, "w2");
  CheckSchedule("conv2d 7x7 stride 2",
                TopiFunc("nn.conv2d_nchw", {x2, w2},
                         {x2, w2, Array<Any>{2, 2}, Array<Any>{3, 3}, Array<Any>{1, 1}, 1, Any()}),
                {x2, w2}, {1, 8, 10, 10});
  te::Tensor p = Ph({1, 8, 16, 16}, "p");
  CheckSchedule("max_pool2d",
                TopiFunc("nn.pool2d", {p},
                         {p, Array<Any>{3, 3}, Array<Any>{2, 2}, Array<Any>{1, 1},
                          Array<Any>{1, 1, 1, 1}, "max", false, true}),
                {p}, {1, 8, 8, 8});
}

TEST(DefaultCPUSchedule, ReductionsSoftmaxNorm) {
  te::Tensor x = Ph({32, 100}, "x");
  CheckSchedule("softmax", TopiFunc("nn.softmax", {x}, {x, -1}), {x}, {32, 100}, 1e-5);
  te::Tensor y = Ph({8, 64}, "y"), g = Ph({64}, "g"), b = Ph({64}, "b");
  CheckSchedule("layer_norm", TopiFunc("nn.layer_norm", {y, g, b}, {y, g, b, Array<Any>{-1}, 1e-5}),
                {y, g, b}, {8, 64});
  te::Tensor s = Ph({64, 300, 8}, "s");
  CheckSchedule("sum", TopiFunc("sum", {s}, {s, Array<Any>{1}, false}), {s}, {64, 8}, 1e-3);
}

TEST(DefaultCPUSchedule, ElementwiseTranspose) {
  te::Tensor a = Ph({512, 256}, "a"), b = Ph({256}, "b");
  PrimFunc add = TopiFunc("add", {a, b}, {a, b});
  CheckSchedule("add", add, {a, b}, {512, 256}, 0);
  PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(add, target::Target("llvm -mcpu=haswell"));
  EXPECT_EQ(CountLoops(s, ForKind::kParallel), 1);
  EXPECT_EQ(CountLoops(s, ForKind::kVectorized), 1);
  te::Tensor t = Ph({784, 256}, "t");
  PrimFunc tr = TopiFunc("transpose", {t}, {t, Any()});
  CheckSchedule("transpose", tr, {t}, {256, 784}, 0);
  // strided reads: tiled, never vectorized into gathers
  PrimFunc trs = relax_vm::DefaultCPUSchedulePrimFunc(tr, target::Target("llvm -mcpu=haswell"));
  EXPECT_EQ(CountLoops(trs, ForKind::kVectorized), 0);
  te::Tensor small = Ph({3, 5}, "small");
  PrimFunc ex = TopiFunc("exp", {small}, {small});
  PrimFunc exs = relax_vm::DefaultCPUSchedulePrimFunc(ex, target::Target("llvm"));
  EXPECT_EQ(CountLoops(exs, ForKind::kParallel), 0);  // too small to be worth threads
  CheckSchedule("exp small", ex, {small}, {3, 5}, 1e-6);
}

TEST(DefaultCPUSchedule, MatmulTileFollowsTheTarget) {
  auto vector_extents = [](const PrimFunc& f) {
    std::vector<int64_t> out;
    PostOrderVisit(f->body, [&](const ObjectRef& node) {
      if (const auto* loop = node.as<ForNode>(); loop && loop->kind == ForKind::kVectorized) {
        out.push_back(*AsConstInt(loop->extent));
      }
    });
    return out;
  };
  PrimFunc mm = MakeMatmul(64, 256, 128);
  PrimFunc avx512 = relax_vm::DefaultCPUSchedulePrimFunc(mm, target::Target("llvm -mcpu=znver4"));
  PrimFunc avx2 = relax_vm::DefaultCPUSchedulePrimFunc(mm, target::Target("llvm -mcpu=haswell"));
  for (int64_t e : vector_extents(avx512)) EXPECT_EQ(e, 32);
  // AVX2: 6 x 16 tiles; 64 rows are padded to 66, and the copy-out is vectorized by 8 lanes.
  for (int64_t e : vector_extents(avx2)) EXPECT_TRUE(e == 16 || e == 8) << e;
  // init, update, write-back (and B's packing: the GEMM rule of cpu_gemm.h)
  EXPECT_GE(vector_extents(avx512).size(), 3u);
  EXPECT_GE(CountLoops(avx512, ForKind::kParallel), 1);
  EXPECT_GE(CountLoops(avx512, ForKind::kUnrolled), 1);
  // scheduled functions are left alone
  PrimFunc again = relax_vm::DefaultCPUSchedulePrimFunc(avx512, target::Target("llvm"));
  EXPECT_TRUE(again.same_as(avx512));
}

TEST(DefaultCPUSchedule, PassOnAModule) {
  auto make = Registry::Get("relax.transform.DefaultCPUSchedule");
  ASSERT_TRUE(make.has_value());
  transform::Pass pass = (*make)(target::Target("llvm -mcpu=haswell")).cast<transform::Pass>();
  IRModule mod = IRModule::FromNamed({{"mm", MakeMatmul(32, 64, 16)}, {"add", MakeVectorAdd(7)}});
  IRModule out = pass(mod);
  for (const char* name : {"mm", "add"}) {
    auto f = out->Lookup(std::string(name)).as<tir::PrimFuncNode>();
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->attrs.Get(String("tir.is_scheduled")).has_value()) << name;
    // the function keeps its own attributes (global_symbol of the input)
    EXPECT_EQ(f->attrs.Get(String("global_symbol"))->cast<std::string>(), "main");
  }
  EXPECT_GE(CountLoops(GetRef<PrimFunc>(out->Lookup(std::string("mm")).as<tir::PrimFuncNode>()),
                       ForKind::kVectorized),
            1);
}

}  // namespace
}  // namespace minitvm
