/*!
 * \file minitvm/relax_vm/cpu_gemm.h
 * \brief Stage 5: the CPU GEMM rule — what a target says about its vector unit and caches
 * (CpuVectorInfo), the tile a float GEMM derives from it (GemmPlan, DeriveGemmPlan), and the
 * scheduled GEMM PrimFunc built from a plan (CpuGemmPrimFunc). The default CPU schedule uses it
 * for matmul / dense kernels; bench/gemm_bench.cc measures it against OpenBLAS.
 *
 * The loop nest with at least two row tiles (mr rows × nr = nv vectors of columns in registers;
 * K cut into nk blocks of kc, B micro-panels kc × nr, row blocks mc, column groups nc):
 *
 *   packedB[nk][Np/nr][kc][nr] = B[k][j] (or B[j][k] for dense), 0 beyond N, K  (parallel)
 *   packedA[nk][Mp/mr][kc][mr] = A[i][k], 0 beyond M, K  (parallel; when pack_a, else A is read)
 *     (k block first: the micro-panels one k block reads are one contiguous range)
 *   for rb in parallel(row blocks) or cg in parallel(column groups): for the other one:
 *     for ko in range(nk):                            the A block (mc × kc) stays in L2
 *       for jo in column group:                       the B micro-panel (kc × nr) stays in L1
 *         for ii in row block:
 *           P[mr][nr] = 0                             (local tile → registers; only w < nr
 *                                                      columns in a mostly padded last panel)
 *           for ki in range(kc):
 *             for i in unroll(mr): for ji in vector(nr):
 *               P[i][ji] += packedA[ko][tile][ki][i] * packedB[ko][jo][ki][ji]
 *                           (or A[row][ko*kc+ki], rows beyond M clamped to M-1)
 *           C[rows][cols] = P if ko == 0 else C[rows][cols] + P
 *                           (at the last ko, a tile within M and N: out = epilogue(C + P))
 *     out[block] = epilogue(C[block])                 (the rest: padded tiles / epilogue,
 *                                                      else inlined)
 * In TE terms, the k blocks are a reduction of their own: P[ko][i][j] sums one block and C sums
 * P over ko. With fewer than two row tiles (batch 1, GEMV) there is no A packing and no k
 * blocking: the register tile accumulates the whole K. A dense (B is [N,K], K whole vectors)
 * runs as dot products instead, their lanes summed by a tree of vector adds, when B is passed
 * per call or M is 1. A constant dense B (layout free) with 2 to mr-1 rows is packed at compile
 * time and runs as the packed GEMV, the panels the parallel loop:
 *
 *   packedB[N/nr][K][nr] = B[j][k]                   (folded into a constant at compile time)
 *   for jo in parallel(N/nr): P[mr][nr] = 0          (registers)
 *     for k: for i in unroll(mr): for ji in vector(nr): P[i][ji] += A[i][k] * packedB[jo][k][ji]
 *     C[i][jo*nr+ji] = epilogue(P[i][ji])
 * Sizes the tiles do not divide are padded: the packed operands with zeros, and C through a
 * padded buffer copied out.
 *
 * A dense with few rows (plan.swap_ab: B is [N,K], lanes <= M < N, A fits half of L2, e.g. an
 * MLP layer at batch 64) computes Cᵀ = B·Aᵀ instead, so that only A is packed per call (M×K
 * instead of N×K floats): mr rows of B are broadcast (read in place, K-contiguous) against nr =
 * nv vectors of a packed Aᵀ, and the tile is stored transposed with the epilogue applied:
 *
 *   packedA[Mp/nr][K][nr] = A[i][k], 0 beyond M               (parallel over panels)
 *   for jo in parallel(Np/mr): for io in range(Mp/nr):
 *     P[mr][nr] = 0                                           (registers)
 *     for k in range(K): for j in unroll(mr): for i in vector(nr):
 *       P[j][i] += B[jo*mr+j][k] * packedA[io][k][i]
 *     C[io*nr+i][jo*mr+j] = epilogue(P[j][i])                 (lane by lane)
 * When M or N is not a multiple of the tile, the tiles go to a padded Cᵀ and a second loop nest
 * writes C = epilogue(Cᵀ) transposed.
 */
#ifndef MINITVM_RELAX_VM_CPU_GEMM_H_
#define MINITVM_RELAX_VM_CPU_GEMM_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/target/target.h"
#include "minitvm/te/tensor.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

/*! \brief What a CPU target says about its vector unit and data caches. */
struct CpuVectorInfo {
  /*! \brief SIMD register width in bits (TargetNode::VectorWidthBits). */
  int64_t vector_bits = 128;
  /*! \brief Architectural vector registers: 32 with AVX-512 or on AArch64, else 16. */
  int64_t vector_registers = 16;
  /*! \brief L1 data cache per core in bytes. */
  int64_t l1d_bytes = 32 * 1024;
  /*! \brief L2 cache per core in bytes. */
  int64_t l2_bytes = 256 * 1024;
};

/*!
 * \brief The vector unit and caches of a CPU target: from `-vector-width`,
 * `-num-vector-registers`, `-l1d-cache-size-bytes`, `-l2-cache-size-bytes` when given, else
 * from `-mcpu` (a table of known CPUs) and `-mattr`.
 */
CpuVectorInfo GetCpuVectorInfo(const target::Target& target);

/*! \brief A GEMM tile plan: register tile, row block, packing (see DeriveGemmPlan). */
struct GemmPlan {
  int64_t lanes = 4;   //!< elements per vector register
  int64_t mr = 4;      //!< rows of the register tile (unrolled)
  int64_t nv = 2;      //!< vectors per row of the register tile
  int64_t nr = 8;      //!< columns of the register tile = nv * lanes (vectorized)
  int64_t mc = 64;     //!< rows per parallel task (a multiple of mr): the A block kept in L2
  int64_t nc = 256;    //!< columns per parallel task (a multiple of nr): the C block kept in L2
  int64_t kc = 256;    //!< k block: B micro-panel (kc × nr) within L1, kc <= 256; K if unblocked
  bool pack_a = true;  //!< pack A into [M/mr][K][mr] micro-panels (many panels, or K padded)
  bool pack_b = true;  //!< pack B into [N/nr][K][nr] panels (pays when several row tiles reuse it)
  /*!
   * \brief Small-M dense: compute Cᵀ = B·Aᵀ (see the file comment). mr then counts rows of B
   * (over N), nr = nv*lanes columns over M, and only A is packed (pack_a), with K unblocked.
   */
  bool swap_ab = false;
  std::string str() const;
};

/*!
 * \brief Derive the GEMM plan for element type `elem_bits` and shape M×N×K (B is [N,K] when
 * `transpose_b`) from the target (see the comments in the implementation for the reasoning).
 * `b_constant` (B is layout free: a constant weight, its panels packed once at compile time)
 * keeps a dense on the B-packing kernels: no small-M swap, and 2 to mr-1 rows become the packed
 * GEMV (a row tile against nv vectors of packed B, no lane sums) instead of the dot products.
 */
GemmPlan DeriveGemmPlan(const CpuVectorInfo& info, int64_t elem_bits, int64_t m, int64_t n,
                        int64_t k, bool transpose_b = false, bool b_constant = false);

/*!
 * \brief An elementwise epilogue fused into the GEMM (bias add, ReLU, ...): `fn(c, extra, i, j)`
 * is the output element from the product `c` = (A·B)[i, j] and the extra inputs (placeholders
 * made from `extra_shapes`, passed after A and B).
 */
struct GemmEpilogue {
  std::vector<std::vector<int64_t>> extra_shapes;
  std::function<PrimExpr(const PrimExpr& c, const std::vector<te::Tensor>& extra, const tir::Var& i,
                         const tir::Var& j)>
      fn;
};

/*!
 * \brief The scheduled GEMM C[M,N] = A[M,K] · B (B is [K,N], or [N,K] when `transpose_b`) as a
 * PrimFunc "main"(A, B, [extra...,] C) with attribute "tir.is_scheduled"; with an epilogue, C is
 * its result, computed in the kernel's write-back. A dense with fewer rows than the register tile
 * (batch 1) runs as dot products over contiguous rows of A and B (no packing).
 */
tir::PrimFunc CpuGemmPrimFunc(int64_t m, int64_t n, int64_t k, bool transpose_b,
                              const GemmPlan& plan, DataType dtype = DataType::Float(32),
                              const GemmEpilogue* epilogue = nullptr);

/*!
 * \brief The GEMM rule of the default CPU schedule: when `func` is a matmul / dense (a reduction
 * block C[i,j] += A[i,k]*B[k,j] or A[i,k]*B[j,k], float, static shapes, big enough) followed by
 * nothing or by elementwise blocks over [M,N] (what FuseTIR makes of bias add / ReLU), the
 * scheduled GEMM with the same parameters and the epilogue fused; else nullopt.
 */
std::optional<tir::PrimFunc> ScheduleGemmRule(const tir::PrimFunc& func,
                                              const target::Target& target);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_CPU_GEMM_H_
