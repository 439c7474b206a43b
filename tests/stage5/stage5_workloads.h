/*!
 * \file stage5_workloads.h
 * \brief Workloads the stage-5 tests lower and compile: the course's vector add as TVMScript
 * (and a schedule of it), the tuned GEMM (bench/gemm_schedule.h) and a row sum whose split
 * leaves a predicate.
 */
#ifndef MINITVM_TESTS_STAGE5_STAGE5_WORKLOADS_H_
#define MINITVM_TESTS_STAGE5_STAGE5_WORKLOADS_H_

#include "gemm_schedule.h"
#include "minitvm/tir/schedule/schedule.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace testing {

using bench::GemmTile;
using bench::ScheduledGemm;

/*! \brief The vector add of the course, as TVMScript (64 elements). */
constexpr const char* kVectorAddScript = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = A[vi] + B[vi]
)";

/*! \brief Split the vector add's loop by 16: parallel outside, vectorized inside. */
inline IRModule ScheduleVectorAdd(const IRModule& mod) {
  tir::Schedule sch = tir::Schedule::Create(mod);
  auto loops = sch->GetLoops(sch->GetBlock("C"));
  auto parts = sch->Split(loops[0], {std::nullopt, 16});
  sch->Parallel(parts[0]);
  sch->Vectorize(parts[1]);
  return sch->mod();
}

/*!
 * \brief B[i] = sum_j A[i, j] with the reduction loop split by `factor` (a predicate when it
 * does not divide n) and the outer loop parallel.
 */
inline IRModule ScheduledRowSum(int64_t m, int64_t n, int64_t factor) {
  te::Tensor A = te::placeholder({I32(m), I32(n)}, F32(), "A");
  tir::IterVar r = te::reduce_axis(Range(0, I32(n)), "j");
  te::Tensor B = te::compute(
      {I32(m)}, [&](Var i) { return te::sum(A(i, r->var), {r}); }, "B");
  PrimFunc f = WithAttr(te::CreatePrimFunc({A, B}), "global_symbol", String("main"));
  tir::Schedule sch = tir::Schedule::Create(ModuleOf(f));
  auto loops = sch->GetLoops(sch->GetBlock("B"));
  sch->Split(loops[1], {std::nullopt, factor});
  sch->Parallel(loops[0]);
  return sch->mod();
}

}  // namespace testing
}  // namespace minitvm

#endif  // MINITVM_TESTS_STAGE5_STAGE5_WORKLOADS_H_
