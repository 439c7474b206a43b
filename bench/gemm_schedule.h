/*!
 * \file gemm_schedule.h
 * \brief The tuned float32 GEMM of stage 5, as a TE definition plus a tir.Schedule — the
 * schedule that bench/gemm_bench.cc measures against OpenBLAS and that the stage-5 tests
 * compile. The loop structure (see shared PERF_NOTES and docs/stage5_codegen.md):
 *
 *   packedB[N/tj][K][tj] = B[k][jo*tj + ji]            (its own stage, parallel over panels)
 *   for io in parallel(M / (ii*ti)):
 *     for jo in range(N / tj):
 *       for ii in range(ii):
 *         C_local[ti][tj] = 0                            (decompose_reduction)
 *         for k in range(K):
 *           for i in unroll(ti):
 *             for ji in vectorized(tj):
 *               C_local[i][ji] += A[row][k] * packedB[jo][k][ji]
 *         C[rows][cols] = C_local                        (cache_write "local")
 *
 * With ti × tj/lanes accumulator vectors in registers: 8×32 for AVX-512 (16 zmm), 4×16 for
 * AVX2 (8 ymm).
 */
#ifndef MINITVM_BENCH_GEMM_SCHEDULE_H_
#define MINITVM_BENCH_GEMM_SCHEDULE_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/schedule.h"

namespace minitvm {
namespace bench {

/*! \brief The register tile: ti rows (unrolled) × tj columns (vectorized); ii tiles per task row.
 */
struct GemmTile {
  int64_t ti = 8;
  int64_t tj = 32;
  int64_t ii = 16;
};

/*! \brief The tile for a SIMD width in bits (512: 8×32, else 4×16). */
inline GemmTile GemmTileForVectorBits(int64_t bits) {
  if (bits >= 512) return GemmTile{8, 32, 16};
  return GemmTile{4, 16, 32};
}

/*! \brief The unscheduled GEMM C = A·B with B packed into [N/tj][K][tj] panels. */
inline tir::PrimFunc GemmPackedB(int64_t m, int64_t n, int64_t k, int64_t tj) {
  using tir::Var;
  auto i32 = [](int64_t v) { return IntImm(DataType::Int(32), v); };
  DataType f32 = DataType::Float(32);
  te::Tensor A = te::placeholder({i32(m), i32(k)}, f32, "A");
  te::Tensor B = te::placeholder({i32(k), i32(n)}, f32, "B");
  te::Tensor packed = te::compute(
      {i32(n / tj), i32(k), i32(tj)}, [&](Var x, Var y, Var z) { return B(y, x * i32(tj) + z); },
      "packedB");
  tir::IterVar r = te::reduce_axis(Range(0, i32(k)), "k");
  te::Tensor C = te::compute(
      {i32(m), i32(n)},
      [&](Var i, Var j) {
        return te::sum(
            A(i, r->var) * packed(tir::floordiv(j, i32(tj)), r->var, tir::floormod(j, i32(tj))),
            {r});
      },
      "C");
  tir::PrimFunc f = te::CreatePrimFunc({A, B, C});
  return WithAttr(f, "global_symbol", String("main"));
}

/*! \brief The scheduled GEMM as an IRModule with one function "main"(A, B, C). */
inline IRModule ScheduledGemm(int64_t m, int64_t n, int64_t k, GemmTile t) {
  using tir::LoopRV;
  tir::Schedule sch =
      tir::Schedule::Create(IRModule::FromNamed({{"main", GemmPackedB(m, n, k, t.tj)}}));
  tir::BlockRV c = sch->GetBlock("C");
  Array<LoopRV> loops = sch->GetLoops(c);
  Array<LoopRV> is = sch->Split(loops[0], {m / (t.ii * t.ti), t.ii, t.ti});
  Array<LoopRV> js = sch->Split(loops[1], {n / t.tj, t.tj});
  sch->Reorder({is[0], js[0], is[1], loops[2], is[2], js[1]});
  // The accumulator tile: a local copy of C written back after the k loop.
  tir::BlockRV c_local = sch->CacheWrite(c, 0, "local");
  sch->ReverseComputeAt(c_local, is[1]);
  // Loop kinds before decompose_reduction (TVM refuses parallel/vectorize over the update block
  // it leaves); the init's loops copy them, so its columns are vectorized too.
  sch->Vectorize(js[1]);
  sch->Parallel(is[0]);
  tir::BlockRV init = sch->DecomposeReduction(c, loops[2]);
  sch->Unroll(is[2]);
  Array<LoopRV> init_loops = sch->GetLoops(init);
  sch->Unroll(init_loops[init_loops.size() - 2]);
  sch->Vectorize(init_loops[init_loops.size() - 1]);
  Array<LoopRV> wb = sch->GetLoops(c_local);
  sch->Unroll(wb[wb.size() - 2]);
  sch->Vectorize(wb[wb.size() - 1]);
  // Packing B: parallel over panels, one vector per row of a panel.
  Array<LoopRV> pl = sch->GetLoops(sch->GetBlock("packedB"));
  sch->Parallel(pl[0]);
  sch->Vectorize(pl[2]);
  return sch->mod();
}

}  // namespace bench
}  // namespace minitvm

#endif  // MINITVM_BENCH_GEMM_SCHEDULE_H_
