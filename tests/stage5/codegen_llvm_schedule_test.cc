/*!
 * \file codegen_llvm_schedule_test.cc
 * \brief Stage 5: the output of every schedule primitive, compiled with LLVM and compared with
 * the TIR interpreter running the unscheduled function on the same random inputs.
 */
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "minitvm/codegen/llvm.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/schedule/schedule.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using tir::BlockRV;
using tir::LoopRV;
using tir::Schedule;

/*! \brief The course's mm_relu: Y = A·B, C = max(Y, 0), 64×48×40. */
PrimFunc MmRelu(int64_t m = 64, int64_t n = 48, int64_t k = 40) {
  te::Tensor A = te::placeholder({I32(m), I32(k)}, F32(), "A");
  te::Tensor B = te::placeholder({I32(k), I32(n)}, F32(), "B");
  tir::IterVar r = te::reduce_axis(Range(0, I32(k)), "k");
  te::Tensor Y = te::compute(
      {I32(m), I32(n)}, [&](Var i, Var j) { return te::sum(A(i, r->var) * B(r->var, j), {r}); },
      "Y");
  te::Tensor C = te::compute(
      {I32(m), I32(n)}, [&](Var i, Var j) { return tir::max(Y(i, j), FloatImm(F32(), 0.0)); }, "C");
  return WithAttr(te::CreatePrimFunc({A, B, C}), "global_symbol", String("main"));
}

/*! \brief Schedule mm_relu with `schedule`, then compile and compare with the interpreter. */
void CheckSchedule(const std::string& what, const std::function<void(Schedule)>& schedule,
                   PrimFunc func = MmRelu()) {
  SCOPED_TRACE(what);
  std::vector<NDArray> inputs;
  std::vector<std::vector<int64_t>> shapes;
  for (const Var& p : func->params) {
    Buffer b = func->buffer_map[p];
    std::vector<int64_t> s;
    for (const PrimExpr& d : b->shape) s.push_back(*AsConstInt(d));
    shapes.push_back(s);
  }
  auto run = [&](const std::function<void(runtime::PackedArgs)>& fn) {
    std::vector<NDArray> arrays;
    std::vector<Any> values;
    for (size_t i = 0; i < shapes.size(); ++i) {
      arrays.push_back(i + 1 < shapes.size() ? RandomArray(shapes[i], static_cast<uint32_t>(i + 7))
                                             : Zeros(shapes[i]));
      values.emplace_back(arrays.back());
    }
    fn(runtime::PackedArgs(values.data(), static_cast<int>(values.size())));
    return arrays.back();
  };
  NDArray want = run([&](runtime::PackedArgs a) { tir::Interpreter(func).Run(a); });
  Schedule sch = Schedule::Create(ModuleOf(func));
  schedule(sch);
  runtime::PackedFunc built = codegen::BuildLLVM(sch->mod(), "llvm -mcpu=native")["main"];
  NDArray got = run([&](runtime::PackedArgs a) {
    Any rv;
    built.CallPacked(a, &rv);
  });
  EXPECT_LT(MaxAbsDiff(got, want), 1e-4);
  // The scheduled function interpreted gives the same too (the schedule is correct).
  NDArray interp = run([&](runtime::PackedArgs a) {
    tir::Interpreter(Downcast<PrimFunc>(sch->mod()->Lookup("main"))).Run(a);
  });
  EXPECT_LT(MaxAbsDiff(got, interp), 1e-4);
}

TEST(CodeGenLLVMSchedule, LoopPrimitives) {
  CheckSchedule("split/reorder/parallel/vectorize/unroll", [](Schedule sch) {
    BlockRV y = sch->GetBlock("Y");
    auto l = sch->GetLoops(y);
    auto i = sch->Split(l[0], {std::nullopt, 8});
    auto j = sch->Split(l[1], {std::nullopt, 16});
    sch->Reorder({i[0], j[0], l[2], i[1], j[1]});
    sch->Parallel(i[0]);
    sch->Unroll(i[1]);
    sch->Vectorize(j[1]);
  });
  CheckSchedule("fuse + parallel + vectorize the consumer", [](Schedule sch) {
    auto l = sch->GetLoops(sch->GetBlock("C"));
    LoopRV f = sch->Fuse({l[0], l[1]});
    auto parts = sch->Split(f, {std::nullopt, 8});
    sch->Parallel(parts[0]);
    sch->Vectorize(parts[1]);
  });
  CheckSchedule("non-divisible split leaves a predicate; vectorizing it falls back to a loop",
                [](Schedule sch) {
                  auto l = sch->GetLoops(sch->GetBlock("C"));
                  auto parts = sch->Split(l[1], {std::nullopt, 7});
                  sch->Vectorize(parts[1]);
                  sch->Parallel(l[0]);
                });
  CheckSchedule("unroll annotation", [](Schedule sch) {
    auto l = sch->GetLoops(sch->GetBlock("Y"));
    sch->Annotate(l[0], "pragma_auto_unroll_max_step", Any(int64_t(16)));
    sch->Unroll(l[2]);
  });
}

TEST(CodeGenLLVMSchedule, ComputeLocationAndInline) {
  CheckSchedule("reverse_compute_at", [](Schedule sch) {
    auto l = sch->GetLoops(sch->GetBlock("Y"));
    auto j = sch->Split(l[1], {std::nullopt, 16});
    sch->ReverseComputeAt(sch->GetBlock("C"), j[0]);
    auto c = sch->GetLoops(sch->GetBlock("C"));
    sch->Vectorize(c[c.size() - 1]);
  });
  CheckSchedule("compute_at", [](Schedule sch) {
    auto l = sch->GetLoops(sch->GetBlock("C"));
    sch->ComputeAt(sch->GetBlock("Y"), l[0]);
  });
  // An elementwise chain B = 2A, C = exp(B) + 1 for the inlining primitives.
  auto chain = [] {
    te::Tensor A = te::placeholder({I32(33), I32(20)}, F32(), "A");
    te::Tensor B = te::compute(
        {I32(33), I32(20)}, [&](Var i, Var j) { return A(i, j) * FloatImm(F32(), 2.0); }, "B");
    te::Tensor C = te::compute(
        {I32(33), I32(20)}, [&](Var i, Var j) { return tir::exp(B(i, j)) + FloatImm(F32(), 1.0); },
        "C");
    return WithAttr(te::CreatePrimFunc({A, C}), "global_symbol", String("main"));
  };
  CheckSchedule(
      "compute_inline", [](Schedule sch) { sch->ComputeInline(sch->GetBlock("B")); }, chain());
  CheckSchedule(
      "reverse_compute_inline", [](Schedule sch) { sch->ReverseComputeInline(sch->GetBlock("C")); },
      chain());
}

TEST(CodeGenLLVMSchedule, CachesAndReductions) {
  CheckSchedule("cache_write local + decompose_reduction (the GEMM tile)", [](Schedule sch) {
    BlockRV y = sch->GetBlock("Y");
    auto l = sch->GetLoops(y);
    auto i = sch->Split(l[0], {std::nullopt, 4});
    auto j = sch->Split(l[1], {std::nullopt, 16});
    sch->Reorder({i[0], j[0], l[2], i[1], j[1]});
    BlockRV yl = sch->CacheWrite(y, 0, "local");
    sch->ReverseComputeAt(yl, j[0]);
    sch->Vectorize(j[1]);  // loop kinds before decompose_reduction, as TVM requires
    sch->Parallel(i[0]);
    sch->DecomposeReduction(y, l[2]);
    sch->Unroll(i[1]);
  });
  CheckSchedule("cache_read into a local copy", [](Schedule sch) {
    BlockRV y = sch->GetBlock("Y");
    BlockRV ar = sch->CacheRead(y, 0, "local");
    auto l = sch->GetLoops(y);
    sch->ComputeAt(ar, l[0]);
  });
  CheckSchedule("rfactor", [](Schedule sch) {
    auto l = sch->GetLoops(sch->GetBlock("Y"));
    auto k = sch->Split(l[2], {std::nullopt, 8});
    sch->RFactor(k[1], 0);
  });
  CheckSchedule("set_scope and storage_align", [](Schedule sch) {
    BlockRV y = sch->GetBlock("Y");
    sch->SetScope(y, 0, "local");
    sch->StorageAlign(y, 0, 0, 16, 1);
  });
}

// Random schedules of mm_relu: a random sequence of split / reorder / fuse / parallel /
// vectorize / unroll / compute_at / cache_write / decompose_reduction, illegal steps skipped
// (each primitive either applies or throws a ScheduleError and changes nothing), then
// compiled and compared with the interpreter.
TEST(CodeGenLLVMSchedule, RandomSchedulesCompileCorrectly) {
  for (uint32_t seed = 0; seed < 16; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    CheckSchedule("random schedule seed " + std::to_string(seed), [&](Schedule sch) {
      const char* blocks[] = {"Y", "C"};
      for (int step = 0; step < 6; ++step) {
        try {
          BlockRV b = sch->GetBlock(blocks[pick(2)]);
          Array<LoopRV> loops = sch->GetLoops(b);
          if (loops.empty()) continue;
          LoopRV l = loops[pick(loops.size())];
          switch (pick(8)) {
            case 0:
              sch->Split(l, {std::nullopt, static_cast<int64_t>(2 + pick(7))});
              break;
            case 1:
              if (loops.size() >= 2) sch->Reorder({loops[loops.size() - 1], loops[0]});
              break;
            case 2:
              if (loops.size() >= 2) sch->Fuse({loops[0], loops[1]});
              break;
            case 3:
              sch->Parallel(loops[0]);
              break;
            case 4:
              sch->Vectorize(loops[loops.size() - 1]);
              break;
            case 5: {
              // Unroll only a short innermost loop: unrolling outer loops explodes the code.
              LoopRV inner = loops[loops.size() - 1];
              auto extent = AsConstInt(sch->Get(inner)->extent);
              if (extent && *extent <= 8) sch->Unroll(inner);
              break;
            }
            case 6: {
              Array<LoopRV> cl = sch->GetLoops(sch->GetBlock("C"));
              sch->ReverseComputeAt(sch->GetBlock("C"), sch->GetLoops(sch->GetBlock("Y"))[0]);
              (void)cl;
              break;
            }
            case 7: {
              BlockRV y = sch->GetBlock("Y");
              Array<LoopRV> yl = sch->GetLoops(y);
              sch->DecomposeReduction(y, yl[yl.size() - 1]);
              break;
            }
          }
        } catch (const Error& e) {
          // An illegal step for this program: skipped.
        }
      }
    });
  }
}

}  // namespace
}  // namespace minitvm
