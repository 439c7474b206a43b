/*!
 * \file cpu_gemm.cc
 * \brief Stage 5: the CPU GEMM rule — the target's vector unit and caches, the tile derived from
 * them, and the scheduled GEMM (see minitvm/relax_vm/cpu_gemm.h).
 */
#include "minitvm/relax_vm/cpu_gemm.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

#include "elementwise_epilogue.h"
#include "layout_rewrite.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/schedule.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax_vm {

using tir::BlockRV;
using tir::LoopRV;
using tir::PrimFunc;
using tir::Schedule;

namespace {

/*! \brief Known data caches per core (L1D, L2) by LLVM CPU name. */
struct CacheEntry {
  const char* cpu;
  int64_t l1d_kib, l2_kib;
};
constexpr CacheEntry kCaches[] = {
    {"znver1", 32, 512},         {"znver2", 32, 512},         {"znver3", 32, 512},
    {"znver4", 32, 1024},        {"znver5", 48, 1024},        {"haswell", 32, 256},
    {"broadwell", 32, 256},      {"skylake", 32, 256},        {"skylake-avx512", 32, 1024},
    {"cascadelake", 32, 1024},   {"cooperlake", 32, 1024},    {"icelake-server", 48, 1280},
    {"icelake-client", 48, 512}, {"tigerlake", 48, 1280},     {"rocketlake", 48, 512},
    {"alderlake", 48, 1280},     {"raptorlake", 48, 2048},    {"sapphirerapids", 48, 2048},
    {"emeraldrapids", 48, 2048}, {"graniterapids", 48, 2048}, {"apple-m1", 128, 4096},
    {"neoverse-v1", 64, 1024},   {"neoverse-n1", 64, 1024},   {"x86-64-v3", 32, 256},
    {"x86-64-v4", 32, 1024},
};

int64_t LargestPow2AtMost(int64_t x) {
  int64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/*! \brief The largest divisor of `x` that is at most `limit` (at least 1). */
int64_t LargestDivisorAtMost(int64_t x, int64_t limit) {
  for (int64_t d = std::min(x, std::max<int64_t>(limit, 1)); d > 1; --d) {
    if (x % d == 0) return d;
  }
  return 1;
}

}  // namespace

CpuVectorInfo GetCpuVectorInfo(const target::Target& target) {
  CpuVectorInfo info;
  info.vector_bits = target->VectorWidthBits();
  std::string cpu = target->GetAttr<std::string>("mcpu").value_or("");
  std::string triple = target->GetAttr<std::string>("mtriple").value_or("");
  bool aarch64 = triple.rfind("aarch64", 0) == 0 || triple.rfind("arm64", 0) == 0 ||
                 cpu.rfind("apple", 0) == 0 || cpu.rfind("neoverse", 0) == 0 ||
                 cpu.rfind("cortex-a", 0) == 0;
  // x86-64 has 16 vector registers (xmm/ymm 0-15); AVX-512 adds 16 more (zmm 16-31); AArch64
  // has 32 (v0-v31).
  info.vector_registers = (info.vector_bits >= 512 || aarch64) ? 32 : 16;
  for (const CacheEntry& e : kCaches) {
    if (cpu == e.cpu) {
      info.l1d_bytes = e.l1d_kib * 1024;
      info.l2_bytes = e.l2_kib * 1024;
    }
  }
  if (auto r = target->GetAttr<int64_t>("num-vector-registers")) info.vector_registers = *r;
  if (auto c = target->GetAttr<int64_t>("l1d-cache-size-bytes")) info.l1d_bytes = *c;
  if (auto c = target->GetAttr<int64_t>("l2-cache-size-bytes")) info.l2_bytes = *c;
  return info;
}

std::string GemmPlan::str() const {
  std::ostringstream os;
  os << "GemmPlan(lanes=" << lanes << ", mr=" << mr << ", nv=" << nv << ", nr=" << nr
     << ", mc=" << mc << ", nc=" << nc << ", kc=" << kc
     << ", pack_a=" << (pack_a ? "true" : "false") << ", pack_b=" << (pack_b ? "true" : "false");
  if (swap_ab) os << ", swap_ab=true";
  os << ")";
  return os.str();
}

namespace {

/*!
 * \brief The small-M dense plan (swap_ab: Cᵀ = B·Aᵀ, see cpu_gemm.h), or nullopt where the
 * B-packing kernels are the better choice.
 *
 * A dense C = A·Bᵀ with B [N,K] gives the register tile's vectors along N only after B is
 * packed (transposed into panels), N×K floats per call. With M < N the transposed product packs
 * A instead, M×K floats (4× less for the MLP's 64×784 by 256×784), and B's rows are read in
 * place: each k step broadcasts one scalar from each of mr rows of B (K-contiguous streams) and
 * FMAs it into nv vectors of the packed Aᵀ. Conditions: at least one full vector of rows
 * (M >= lanes), M < N, and the packed A in half of L2 (every row tile of B streams all of it,
 * K unblocked, so the tile is stored once, transposed, with the epilogue applied).
 */
std::optional<GemmPlan> SmallMDensePlan(const CpuVectorInfo& info, int64_t lanes, int64_t m,
                                        int64_t n, int64_t k, int64_t elem_bytes) {
  if (m < lanes || m >= n || m * k * elem_bytes > info.l2_bytes / 2) return std::nullopt;
  const int64_t regs = std::max<int64_t>(info.vector_registers, 4);
  GemmPlan p;
  p.swap_ab = true;
  p.lanes = lanes;
  // Vectors per tile row (over M): the fewest padded rows of A; on a tie two vectors (as the
  // blocked kernel: 16 accumulators with 8 rows), else four (fewer broadcasts per FMA), one
  // last. Not three: LLVM spills a 48-lane tile row (measured 11x slower at 48x300x1000).
  p.nv = 0;
  int64_t best = 0;
  for (int64_t nv : {2, 4, 1}) {
    if (nv * 2 + nv + 1 > regs) continue;  // at least two rows of B per tile
    int64_t padded = CeilDiv(m, nv * lanes) * nv * lanes;
    if (p.nv == 0 || padded < best) p.nv = nv, best = padded;
  }
  if (p.nv == 0) return std::nullopt;
  p.nr = p.nv * lanes;
  // Rows of B per tile: mr*nv accumulators + nv vectors of Aᵀ + 1 broadcast <= registers, up to
  // 8 (16 accumulators cover FMA latency x pipes twice). A divisor of N down to half of that
  // is preferred: then the tile's transposed store carries the epilogue with no padded Cᵀ.
  const int64_t mr_max = std::clamp<int64_t>((regs - 1 - p.nv) / p.nv, 1, 8);
  p.mr = std::min(mr_max, n);
  for (int64_t r = p.mr; r >= std::max<int64_t>(1, (mr_max + 1) / 2); --r) {
    if (n % r == 0) {
      p.mr = r;
      break;
    }
  }
  p.kc = k;
  p.pack_a = true;
  p.pack_b = false;
  p.mc = p.mr;
  p.nc = p.nr;
  return p;
}

}  // namespace

GemmPlan DeriveGemmPlan(const CpuVectorInfo& info, int64_t elem_bits, int64_t m, int64_t n,
                        int64_t k, bool transpose_b, bool b_constant) {
  GemmPlan p;
  int64_t elem_bytes = std::max<int64_t>(1, elem_bits / 8);
  p.lanes = std::max<int64_t>(1, info.vector_bits / std::max<int64_t>(8, elem_bits));
  int64_t regs = std::max<int64_t>(info.vector_registers, 4);
  // Register tile. Each k step of an mr x nv tile loads nv vectors of B, broadcasts mr scalars
  // of A (one register, reused) and issues mr*nv FMAs into mr*nv accumulators, so it needs
  //   mr*nv (accumulators) + nv (B) + 1 (A broadcast) <= registers
  // or the accumulators spill. Two vectors per row (nv = 2) keep a B panel row at 2 cache lines
  // for AVX-512 and make nr a power of two. The rows then fill the registers, up to 8: 16
  // independent accumulators already cover FMA latency (4) x FMA pipes (2) twice, and taller
  // tiles only add A streams and waste work on ragged M. AVX-512 (32 regs): 8 x 2 vectors
  // (8 x 32 floats, 19 registers); AVX2/SSE (16 regs): 6 x 2 vectors (6 x 16 floats for AVX2,
  // 15 registers) — the tile that fills the 16 ymm registers.
  p.nv = 2;
  p.mr = std::clamp<int64_t>((regs - 1 - p.nv) / p.nv, 1, 8);
  if (m < p.mr) {
    // Fewer rows than the tile (GEMV, small batches): all rows in one tile and wider rows, so
    // that mr*nv still gives about 8 independent accumulators; still within the registers.
    p.mr = std::max<int64_t>(m, 1);
    int64_t nv = LargestPow2AtMost(std::max<int64_t>(1, (regs - 1) / (p.mr + 1)));
    p.nv = std::clamp<int64_t>(nv, 1, std::max<int64_t>(2, LargestPow2AtMost(8 / p.mr)));
  }
  // Narrow N: no wider than N rounded up to whole vectors.
  p.nv = std::max<int64_t>(1, std::min(p.nv, CeilDiv(n, p.lanes)));
  p.nr = p.nv * p.lanes;
  // Packing B into panels pays when at least two row tiles read each panel; a dense (B is [N,K])
  // is always read through panels so that its loads are contiguous.
  p.pack_b = m >= 2 * p.mr;
  // Without packing, a [K,N] B is read in whole vectors of N (N % nr == 0) and a dense [N,K] B
  // as dot products over whole vectors of K (K % lanes == 0); otherwise pack (and pad).
  if (!p.pack_b && !transpose_b && n % p.nr != 0) p.pack_b = true;
  if (!p.pack_b && transpose_b && k % p.lanes != 0) p.pack_b = true;
  // A constant dense B (b_constant: layout free, packed once at compile time) with 2 to mr-1
  // rows is packed: the packed GEMV, B as [N/nr][K][nr] panels, each k step broadcasting one A
  // scalar per row against nv contiguous vectors of the panel into the register tile, so that
  // every accumulator lane is an output (bias and ReLU on the registers, vector stores). It
  // reads B once; the dot products read it once per row of A (on Zen 4, 2 / 4 rows by 256 x
  // 784: 8.2 / 14.0 us packed against 12.1 / 21.1 us). At batch 1 the dot products, whose lane
  // sums are a tree of vector adds on the registers, read B once too and were 2-6% faster than
  // the packed GEMV (7.5 against 7.7-7.9 us for the MLP's 784 KiB, both at the L2 floor), and
  // need no packing: batch 1 packs only when K is not whole vectors (above). The panels are
  // the parallel loop. The GEMV needs at least 4 accumulators (mr*nv): L2 delivers about one
  // vector per cycle and each FMA chain takes one per FMA latency (4 cycles on current x86 and
  // AArch64 cores); a narrow N keeps the dot products, whose chains are K/lanes long.
  if (!p.pack_b && transpose_b && b_constant && m > 1 && p.mr * p.nv >= 4) p.pack_b = true;
  // k block (the blocked kernel, used with at least two row tiles): the B micro-panel kc x nr
  // that every row tile of a row block streams is sized to L1 (the whole of it): the row tiles
  // re-read it from L1 or, where the A sliver and C tile push lines out, from L2, which feeds
  // the 10 bytes per cycle a k step needs many times over. What a longer block saves is the C
  // tile's round trip (mr*nv loads and stores per kc steps, from L2). At most 256 steps: the
  // round trip is then 2 memory operations per 256 FMAs of each accumulator (< 1%), and a
  // longer block only shrinks the row block (mc*kc <= L2/4 below). Measured on Zen 4 with the
  // micro-panels packed contiguously per k block: half of L1 (kc = 128) 0.95-1.00x OpenBLAS
  // at 1000-2048, the whole L1 (256) 0.97-1.05x, twice L1 (512) no better than 256; the AVX2
  // tile (znver3 plan run on Zen 4) lost 7% at 2048 with kc = 512 (mc = 60) against 256.
  // K is cut into the fewest blocks of at most that size; a block count that divides K is
  // preferred (up to twice as many blocks), else the last block is padded with zeros in both
  // packed operands. A K that fits is not blocked.
  const bool blocked = m >= 2 * p.mr;
  int64_t kc_l1 = std::clamp<int64_t>(info.l1d_bytes / (p.nr * elem_bytes), 16, 256);
  p.kc = k;
  if (blocked && k > kc_l1) {
    int64_t nk = CeilDiv(k, kc_l1);
    p.kc = CeilDiv(k, nk);
    for (int64_t b = nk; b < 2 * nk; ++b) {
      if (k % b == 0) {
        p.kc = k / b;
        break;
      }
    }
  }
  // Packing A into [M/mr][K][mr] micro-panels: each k step of a tile then reads mr contiguous
  // scalars instead of one from each of mr rows K apart (rows a power of two apart land in the
  // same cache sets), and padded k steps read zeros. It costs a pass over A, which pays when
  // each A block serves many panels (16 or more; below that, e.g. 128 x 128 x 128, the copy
  // costs more than it saves) and is needed when the last k block is padded.
  p.pack_a = blocked && (k % p.kc != 0 || CeilDiv(n, p.nr) >= 16);
  // Row block mc (A block mc x kc) and column group nc (nc / nr panels) of one parallel task:
  // for each k block the task streams its B micro-panels through L1 while the A block and the C
  // block (mc x nc, read and written once per k block) stay in L2, each in a quarter of it:
  //   mc*kc <= L2/4 and mc*nc <= L2/4 (elements).
  // mc is a multiple of mr, at most 32 tiles; nc a multiple of nr.
  int64_t quarter = info.l2_bytes / 4 / elem_bytes;
  p.mc = std::clamp<int64_t>(quarter / std::max<int64_t>(1, p.kc) / p.mr * p.mr, p.mr, 32 * p.mr);
  p.nc = std::max<int64_t>(p.nr, quarter / p.mc / p.nr * p.nr);
  // A small-M dense (not the batch-1 dot products): pack A instead of B (SmallMDensePlan).
  const bool dot_products = transpose_b && !p.pack_b && k % p.lanes == 0;
  if (transpose_b && !b_constant && !dot_products) {
    if (auto s = SmallMDensePlan(info, p.lanes, m, n, k, elem_bytes)) return *s;
  }
  return p;
}

namespace {

/*!
 * \brief The kernel main(A, B, extras..., out): `out` is the product C itself, or, with
 * `copy_out`, an [M,N] block reading C (padded, or before the epilogue) through the epilogue.
 */
PrimFunc GemmKernel(const te::Tensor& A, const te::Tensor& B, const std::vector<te::Tensor>& extra,
                    const te::Tensor& C, int64_t m, int64_t n, bool copy_out,
                    const GemmEpilogue* epilogue) {
  using tir::Var;
  te::Tensor out = C;
  if (copy_out) {
    out = te::compute(
        {IntImm(DataType::Int(64), m), IntImm(DataType::Int(64), n)},
        [&](Var i, Var j) { return epilogue ? epilogue->fn(C(i, j), extra, i, j) : C(i, j); }, "C");
  }
  Array<te::Tensor> args{A, B};
  for (const te::Tensor& t : extra) args.push_back(t);
  args.push_back(out);
  return WithAttr(te::CreatePrimFunc(args), "global_symbol", String("main"));
}

/*! \brief Whether `plan` makes a dense (B is [N,K]) the dot-product kernel (DotProductGemm). */
bool IsDotProductPlan(const GemmPlan& plan, bool transpose_b, int64_t k) {
  return transpose_b && !plan.pack_b && !plan.swap_ab && k % plan.lanes == 0;
}

/*! \brief Apply `f`, keeping `sch` unchanged when a primitive refuses (returns success). */
bool Try(Schedule* sch, const std::function<void(Schedule)>& f) {
  Schedule copy = (*sch)->Copy();
  try {
    f(copy);
  } catch (const std::exception&) {
    return false;
  }
  *sch = copy;
  return true;
}

PrimFunc Finish(const Schedule& sch) {
  const auto* scheduled = sch->mod()->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  return WithAttr(GetRef<PrimFunc>(scheduled), "tir.is_scheduled", Any(true));
}

/*!
 * \brief Batch-1 dense (B is [N,K], M < mr, B not constant): dot products. Each output is a sum
 * over K of two contiguous rows, so the k loop is split into vectors (lanes):
 * partial[i][j][kl] = sum_ko A[i][ko*L+kl] * B[j][ko*L+kl]. A tile of `rows` outputs of one row
 * of A (one vector accumulator each) is in registers across the k loop. Its lanes are then summed
 * by a tree of vector adds on the registers (lanesH[l] = partial[l] + partial[l+H] for H = L/2,
 * L/4, ... down to two lanes, then C = the last two), and the epilogue follows, all per tile.
 */
PrimFunc DotProductGemm(int64_t m, int64_t n, int64_t k, const GemmPlan& plan, DataType dtype,
                        const GemmEpilogue* epilogue) {
  using tir::Var;
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };  // Relax shapes are int64
  const int64_t lanes = plan.lanes;
  te::Tensor A = te::placeholder({idx(m), idx(k)}, dtype, "A");
  te::Tensor B = te::placeholder({idx(n), idx(k)}, dtype, "B");
  std::vector<te::Tensor> extra =
      ExtraPlaceholders(epilogue ? &epilogue->extra_shapes : nullptr, dtype);
  tir::IterVar ko = te::reduce_axis(Range(0, idx(k / lanes)), "ko");
  te::Tensor partial = te::compute(
      {idx(m), idx(n), idx(lanes)},
      [&](Var i, Var j, Var kl) {
        PrimExpr kk = ko->var * idx(lanes) + kl;
        return te::sum(A(i, kk) * B(j, kk), {ko});
      },
      "partial");
  // The lane sums as a tree of vector adds of halves. Summing each output's lanes one by one
  // (a reduction over kl) made LLVM store the tile to a stack buffer and run a serial chain of
  // scalar adds per output: the MLP's 784 x 256 layer took 9.0 us on Zen 4, where its L2 floor
  // (reading the 784 KiB once) is 7.6 us. With the tree on the register tile it takes 7.6 us.
  std::vector<std::string> tree;  // producer first
  te::Tensor sums = partial;
  int64_t width = lanes;
  while (width > 2 && width % 2 == 0) {
    const int64_t half = width / 2;
    const te::Tensor in = sums;
    tree.push_back("lanes" + std::to_string(half));
    sums = te::compute(
        {idx(m), idx(n), idx(half)},
        [&](Var i, Var j, Var l) { return in(i, j, l) + in(i, j, l + idx(half)); }, tree.back());
    width = half;
  }
  bool has_epi = epilogue != nullptr;
  te::Tensor C = te::compute(
      {idx(m), idx(n)},
      [&](Var i, Var j) {
        PrimExpr total = sums(i, j, idx(0));
        for (int64_t l = 1; l < width; ++l) total = total + sums(i, j, idx(l));
        return total;
      },
      has_epi ? "C_dot" : "C");
  PrimFunc f = GemmKernel(A, B, extra, C, m, n, has_epi, epilogue);
  Schedule sch = Schedule::Create(IRModule::FromNamed({{"main", f}}));
  // Rows per tile: independent accumulators (FMA latency x pipes = 8), each k step loads one
  // vector of A and `rows` of B: rows + 2 registers.
  int64_t rows = 1;
  for (int64_t r : {8, 4, 2}) {
    if (n % r == 0) {
      rows = r;
      break;
    }
  }
  Array<LoopRV> cl = sch->GetLoops(sch->GetBlock("C"));  // i, j
  Array<LoopRV> js = sch->Split(cl[1], {n / rows, rows});
  // Row groups of B outermost (the parallel loop), then the few rows of A: one tile per row.
  sch->Reorder({js[0], cl[0], js[1]});
  bool dot_inlined =
      has_epi && Try(&sch, [&](Schedule s) { s->ComputeInline(s->GetBlock("C_dot")); });
  // Every producer becomes a local tile at the row loop (consumers first). Unit loops are kept
  // (one row per tile for a prime N, one vector of K), so that each block's loops are the same
  // whatever the shape.
  std::vector<std::string> producers;
  if (has_epi && !dot_inlined) producers.push_back("C_dot");
  producers.insert(producers.end(), tree.rbegin(), tree.rend());
  producers.push_back("partial");
  for (const std::string& name : producers) {
    BlockRV b = sch->GetBlock(name);
    sch->SetScope(b, 0, "local");
    sch->ComputeAt(b, cl[0], /*preserve_unit_loops=*/true);
  }
  BlockRV p = sch->GetBlock("partial");
  Array<LoopRV> pl = sch->GetLoops(p);  // ..., j, kl, ko (unit loops kept)
  const size_t d = pl.size();
  sch->Reorder({pl[d - 1], pl[d - 3], pl[d - 2]});
  // Parallel before decompose_reduction (TVM refuses it after). From 2^17 multiply-adds: the
  // MLP's 784 x 256 layer (784 KiB of weights) is bound by one core's L2 bandwidth, and on two
  // cores each streams half of the weights through its own L2 (7.4 us instead of 10.7 us per
  // call on Zen 4); below that a thread launch costs more than it saves.
  if (m * n * k >= (1 << 17) && n / rows >= 2) {
    Try(&sch, [&](Schedule s) { s->Parallel(js[0]); });
  }
  sch->Vectorize(pl[d - 2]);  // also before decompose_reduction; the init's copy is vectorized
  BlockRV init = sch->DecomposeReduction(p, pl[d - 1]);
  if (rows > 1) sch->Unroll(pl[d - 3]);
  Array<LoopRV> il = sch->GetLoops(init);
  if (rows > 1) sch->Unroll(il[il.size() - 2]);
  sch->Vectorize(il[il.size() - 1]);
  for (const std::string& name : tree) {
    Array<LoopRV> tl = sch->GetLoops(sch->GetBlock(name));  // ..., j, l
    if (rows > 1) sch->Unroll(tl[tl.size() - 2]);
    sch->Vectorize(tl[tl.size() - 1]);
  }
  if (has_epi && !dot_inlined && rows > 1) {
    Array<LoopRV> dl = sch->GetLoops(sch->GetBlock("C_dot"));
    sch->Unroll(dl[dl.size() - 1]);
  }
  if (rows > 1) sch->Unroll(js[1]);
  return Finish(sch);
}

/*!
 * \brief The first k block stores its tiles into C instead of adding them to a zeroed C: the
 * update block `C[i,j] = C[i,j] + P[ko,i,j]` of the scheduled blocked GEMM becomes
 * `if ko == 0: C[i,j] = P[ko,i,j] else: C[i,j] = C[i,j] + P[ko,i,j]`, and the loop nest of its
 * init block (`C[i,j] = 0`, from decompose_reduction at the ko loop) is dropped. Within one
 * task every element of the C block is updated at every ko, the first time at ko == 0, so the
 * result is the same; the zeroing pass over the C block (mc x nc floats per task, about 1% of a
 * 1024^3 GEMM) and the loads of the zeros are gone. The condition is the same for all lanes
 * and all rows of a tile (the vectorizer keeps it scalar). Returns `func` unchanged when the
 * blocks are not the expected ones.
 */
PrimFunc FirstKBlockStores(const PrimFunc& func, const std::string& c_name) {
  using namespace tir;  // NOLINT(build/namespaces)
  class Rewriter : public StmtMutator {
   public:
    explicit Rewriter(std::string name) : name_(std::move(name)) {}
    bool stored = false, dropped = false;
    bool drop_init = false;  // second pass: remove the init nest

    Stmt VisitStmt_(const ForNode* op) override {
      if (drop_init && InitNest(op)) {
        dropped = true;
        return Evaluate(IntImm(DataType::Int(32), 0));
      }
      return StmtMutator::VisitStmt_(op);
    }
    Stmt VisitStmt_(const BlockNode* op) override {
      if (drop_init || op->name_hint != name_ + "_update" || op->init.defined())
        return StmtMutator::VisitStmt_(op);
      const auto* store = op->body.as<BufferStoreNode>();
      const auto* add = store ? store->value.as<AddNode>() : nullptr;
      const auto* old = add ? add->a.as<BufferLoadNode>() : nullptr;
      if (!old || !old->buffer.same_as(store->buffer) ||
          old->indices.size() != store->indices.size())
        return GetRef<Stmt>(op);
      for (size_t d = 0; d < old->indices.size(); ++d) {
        if (!old->indices[d].same_as(store->indices[d])) return GetRef<Stmt>(op);
      }
      const IterVarNode* ko = nullptr;
      for (const IterVar& iv : op->iter_vars) {
        if (iv->iter_type == kCommReduce) {
          if (ko) return GetRef<Stmt>(op);  // one reduction iterator (the k block)
          ko = iv.get();
        }
      }
      if (!ko) return GetRef<Stmt>(op);
      Stmt first = BufferStore(store->buffer, add->b, store->indices);
      Block b = GetRef<Block>(op);
      b.CopyOnWrite()->body =
          IfThenElse(EQ(ko->var, make_const(ko->var.dtype(), 0)), first, op->body);
      stored = true;
      return b;
    }

   private:
    /*! \brief A nest of loops around only the init block. */
    bool InitNest(const ForNode* op) const {
      Stmt s = op->body;
      while (const auto* f = s.as<ForNode>()) s = f->body;
      const auto* realize = s.as<BlockRealizeNode>();
      return realize && realize->block->name_hint == name_ + "_init";
    }
    std::string name_;
  };
  Rewriter r(c_name);
  Stmt body = r(func->body);
  if (!r.stored) return func;
  r.drop_init = true;
  body = r(body);
  if (!r.dropped) return func;
  PrimFunc out = func;
  out.CopyOnWrite()->body = body;
  return out;
}

/*!
 * \brief The last k block of a full tile stores into the output: with a separate output (N or
 * M padded, or an epilogue after several k blocks), every tile was added into the padded C and
 * a second pass per task copied C out (through the epilogue). After FirstKBlockStores, the
 * write-back of each register tile (the mr x nr loop pair around the `<c_name>_update` block)
 * becomes
 *   if ko == nk-1 and the tile lies within M and N: out[i,j] = epilogue(C[i,j] + P[ko,i,j])
 *   else: (as before)
 * and the copy-out block "C" skips those elements (a condition per vector of its loop). For
 * 1000^3 on AVX-512 (N padded to 1024) that removes the copy of 31 of 32 panels; for an
 * unpadded GEMM with an epilogue and several k blocks, the whole copy-out pass. The tile
 * conditions are scalar (the tile's first row and column), so the vector loops stay vector
 * loops. Only the last panel / row tile (the padded ones) still goes through C and the copy.
 */
PrimFunc LastKBlockStoresOut(const PrimFunc& func, const std::string& c_name, int64_t m, int64_t n,
                             int64_t mr, int64_t nr, int64_t nk) {
  using namespace tir;  // NOLINT(build/namespaces)
  const int64_t m_full = m / mr * mr, n_full = n / nr * nr;
  if (m_full == 0 || n_full == 0 || nk < 2) return func;
  // The copy-out block: out[v0, v1] = value(C[v0, v1], extra inputs).
  const BlockNode* copy = nullptr;
  int copies = 0;
  PostOrderVisit(func->body, [&](const ObjectRef& o) {
    if (const auto* b = o.as<BlockNode>(); b && b->name_hint == "C") copy = b, ++copies;
  });
  if (copies != 1) return func;
  const auto* cstore = copy->body.as<BufferStoreNode>();
  if (!cstore || copy->iter_vars.size() != 2 || cstore->indices.size() != 2 ||
      !cstore->indices[0].same_as(copy->iter_vars[0]->var) ||
      !cstore->indices[1].same_as(copy->iter_vars[1]->var))
    return func;

  class Rewriter : public StmtMutator {
   public:
    Rewriter(const BlockNode* copy, const BufferStoreNode* cstore, std::string update, int64_t m,
             int64_t n, int64_t m_full, int64_t n_full, int64_t mr, int64_t nr, int64_t nk)
        : copy_(copy),
          cstore_(cstore),
          update_(std::move(update)),
          m_(m),
          n_(n),
          m_full_(m_full),
          n_full_(n_full),
          mr_(mr),
          nr_(nr),
          nk_(nk) {}
    bool direct = false, copy_pass = false;

    Stmt VisitStmt_(const ForNode* op) override {
      const auto* inner = op->body.as<ForNode>();
      const auto* realize = inner ? inner->body.as<BlockRealizeNode>() : nullptr;
      if (!copy_pass && realize && realize->block->name_hint == update_) {
        if (auto s = Direct(op, inner, realize)) {
          direct = true;
          return *s;
        }
      }
      const auto* copy_realize = op->body.as<BlockRealizeNode>();
      if (copy_pass && copy_realize && copy_realize->block.get() == copy_) {
        const PrimExpr& e0 = copy_realize->iter_values[0];
        const PrimExpr& e1 = copy_realize->iter_values[1];
        auto covered = [&](const PrimExpr& col) {
          return And(LT(e0, make_const(e0.dtype(), m_full_)),
                     LT(col, make_const(col.dtype(), n_full_)));
        };
        if (op->kind == ForKind::kVectorized) {
          // A vector of the copy lies within one panel (its width divides nr): test its first.
          PrimExpr first = Substitute(e1, Map<Var, PrimExpr>{{op->loop_var, op->min}});
          return IfThenElse(Not(covered(first)), GetRef<Stmt>(op));
        }
        For loop = GetRef<For>(op);
        loop.CopyOnWrite()->body = IfThenElse(Not(covered(e1)), op->body);
        return loop;
      }
      return StmtMutator::VisitStmt_(op);
    }

   private:
    /*! \brief The write-back loop pair with the direct store for a full tile at the last ko. */
    std::optional<Stmt> Direct(const ForNode* rows, const ForNode* cols,
                               const BlockRealizeNode* realize) {
      const BlockNode* u = realize->block.get();
      const auto* branch = u->body.as<IfThenElseNode>();  // from FirstKBlockStores
      const auto* acc = branch ? branch->else_case.as<BufferStoreNode>() : nullptr;
      if (!acc || acc->indices.size() != 2) return std::nullopt;
      const Buffer c_pad = acc->buffer;
      std::optional<PrimExpr> ko;
      for (size_t x = 0; x < u->iter_vars.size(); ++x) {
        if (u->iter_vars[x]->iter_type == kCommReduce) ko = realize->iter_values[x];
      }
      if (!ko) return std::nullopt;
      // out[i, j] = value(C[i, j] + P) with the copy's iterators replaced by the tile's.
      Map<Var, PrimExpr> to_tile{{copy_->iter_vars[0]->var, acc->indices[0]},
                                 {copy_->iter_vars[1]->var, acc->indices[1]}};
      PrimExpr value = Substitute(cstore_->value, to_tile);
      bool used = false;
      const PrimExpr sum = acc->value;
      value = ReplaceLoad(value, c_pad, acc->indices, sum, &used);
      if (!used) return std::nullopt;
      Block b = GetRef<Block>(u);
      BlockNode* bn = b.CopyOnWrite();
      bn->name_hint = update_ + "_out";
      bn->body = BufferStore(cstore_->buffer, value, acc->indices);
      bn->writes = {BufferRegion(cstore_->buffer, {Range::FromMinExtent(acc->indices[0], 1),
                                                   Range::FromMinExtent(acc->indices[1], 1)})};
      Array<BufferRegion> reads = u->reads;
      for (const BufferRegion& r : copy_->reads) {
        if (r->buffer.same_as(c_pad)) continue;
        Array<Range> region;
        for (const Range& rg : r->region) {
          region.push_back(Range::FromMinExtent(Substitute(rg->min, to_tile), rg->extent));
        }
        reads.push_back(BufferRegion(r->buffer, region));
      }
      bn->reads = reads;
      // The tile's first row and column (the loop pair at its minimum).
      Map<Var, PrimExpr> first{{rows->loop_var, rows->min}, {cols->loop_var, cols->min}};
      PrimExpr i0, j0;
      for (size_t x = 0; x < u->iter_vars.size(); ++x) {
        const Var& v = u->iter_vars[x]->var;
        if (v.same_as(acc->indices[0])) i0 = Substitute(realize->iter_values[x], first);
        if (v.same_as(acc->indices[1])) j0 = Substitute(realize->iter_values[x], first);
      }
      if (!i0.defined() || !j0.defined()) return std::nullopt;
      PrimExpr cond = And(EQ(*ko, make_const(ko->dtype(), nk_ - 1)),
                          And(LE(i0 + make_const(i0.dtype(), mr_), make_const(i0.dtype(), m_)),
                              LE(j0 + make_const(j0.dtype(), nr_), make_const(j0.dtype(), n_))));
      BlockRealize r2 = GetRef<BlockRealize>(realize);
      r2.CopyOnWrite()->block = b;
      For inner2 = GetRef<For>(cols);
      inner2.CopyOnWrite()->body = r2;
      For outer2 = GetRef<For>(rows);
      outer2.CopyOnWrite()->body = inner2;
      return IfThenElse(cond, outer2, GetRef<Stmt>(rows));
    }
    /*! \brief `e` with the loads of buf[idx] replaced by `with`. */
    static PrimExpr ReplaceLoad(const PrimExpr& e, const Buffer& buf, const Array<PrimExpr>& idx,
                                const PrimExpr& with, bool* used) {
      class Replacer : public ExprMutator {
       public:
        Replacer(const Buffer& b, const Array<PrimExpr>& i, const PrimExpr& w, bool* u)
            : buf_(b), idx_(i), with_(w), used_(u) {}
        PrimExpr VisitExpr_(const BufferLoadNode* op) override {
          if (!op->buffer.same_as(buf_) || op->indices.size() != idx_.size())
            return ExprMutator::VisitExpr_(op);
          for (size_t d = 0; d < idx_.size(); ++d) {
            if (!op->indices[d].same_as(idx_[d])) return ExprMutator::VisitExpr_(op);
          }
          *used_ = true;
          return with_;
        }

       private:
        const Buffer& buf_;
        const Array<PrimExpr>& idx_;
        const PrimExpr& with_;
        bool* used_;
      };
      return Replacer(buf, idx, with, used)(e);
    }
    const BlockNode* copy_;
    const BufferStoreNode* cstore_;
    std::string update_;
    int64_t m_, n_, m_full_, n_full_, mr_, nr_, nk_;
  };
  Rewriter r(copy, cstore, c_name + "_update", m, n, m_full, n_full, mr, nr, nk);
  Stmt body = r(func->body);
  if (!r.direct) return func;
  r.copy_pass = true;
  body = r(body);
  PrimFunc out = func;
  out.CopyOnWrite()->body = body;
  return out;
}

/*!
 * \brief The last panel runs a narrower tile where N leaves it mostly padding: with N = 1000 and
 * nr = 32, the 32nd panel holds 8 columns and 24 zeros, and the full tile computed 2.4% more
 * FMAs than the product needs. Its columns beyond N are never copied out, so for that panel the
 * tile (zeroing, k loop, write-back) runs only `w` columns: the smallest power of two (at least
 * 4) covering the panel's valid columns (8 for 1000), in its own local tile `<P>_tail` (a
 * separate buffer, so that the full tile keeps one vector type and stays in registers). The
 * packed B panel keeps its layout (the narrow tile reads the first w lanes of each row). The
 * tile loop's body becomes `if the panel ends beyond N: <narrow copy> else: <body>`; a
 * condition per tile on loop variables, so the vector loops stay vector loops.
 */
PrimFunc NarrowLastPanel(const PrimFunc& func, int64_t n, int64_t nr) {
  using namespace tir;  // NOLINT(build/namespaces)
  const int64_t rem = n % nr;
  if (rem == 0) return func;
  int64_t w = 4;
  while (w < rem) w *= 2;
  if (w >= nr) return func;
  // The root block allocates the local tile P.
  const auto* root_realize = func->body.as<BlockRealizeNode>();
  if (!root_realize) return func;
  std::optional<Buffer> p_buf;
  for (const Buffer& b : root_realize->block->alloc_buffers) {
    if (b->name == "P" && b->scope == "local") p_buf = b;
  }
  if (!p_buf) return func;
  Buffer p_tail = decl_buffer((*p_buf)->shape, (*p_buf)->dtype, "P_tail", "local");

  /*! \brief The tail copy of a tile body: vector loops of nr lanes narrowed, P -> P_tail. */
  class Narrow : public StmtExprMutator {
   public:
    Narrow(Buffer from, Buffer to, int64_t nr, int64_t w)
        : from_(std::move(from)), to_(std::move(to)), nr_(nr), w_(w) {}
    Stmt VisitStmt_(const ForNode* op) override {
      For loop = Downcast<For>(StmtExprMutator::VisitStmt_(op));
      const auto* ext = op->extent.as<IntImmNode>();
      if (op->kind == ForKind::kVectorized && ext && ext->value == nr_) {
        loop.CopyOnWrite()->extent = make_const(op->extent.dtype(), w_);
      }
      return loop;
    }
    PrimExpr VisitExpr_(const BufferLoadNode* op) override {
      BufferLoad l = Downcast<BufferLoad>(StmtExprMutator::VisitExpr_(op));
      if (l->buffer.same_as(from_)) l.CopyOnWrite()->buffer = to_;
      return l;
    }
    Stmt VisitStmt_(const BufferStoreNode* op) override {
      BufferStore st = Downcast<BufferStore>(StmtExprMutator::VisitStmt_(op));
      if (st->buffer.same_as(from_)) st.CopyOnWrite()->buffer = to_;
      return st;
    }
    Stmt VisitStmt_(const BlockNode* op) override {
      Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
      BlockNode* bn = b.CopyOnWrite();
      bn->name_hint = std::string(op->name_hint) + "_tail";
      auto remap = [&](const Array<BufferRegion>& regions) {
        Array<BufferRegion> out;
        for (const BufferRegion& r : regions) {
          out.push_back(r->buffer.same_as(from_) ? BufferRegion(to_, r->region) : r);
        }
        return out;
      };
      bn->reads = remap(op->reads);
      bn->writes = remap(op->writes);
      return b;
    }

   private:
    Buffer from_, to_;
    int64_t nr_, w_;
  };

  class Rewriter : public StmtMutator {
   public:
    Rewriter(Buffer p, Buffer tail, int64_t n, int64_t nr, int64_t w)
        : p_(std::move(p)), tail_(std::move(tail)), n_(n), nr_(nr), w_(w) {}
    bool done = false;
    Stmt VisitStmt_(const ForNode* op) override {
      const auto* seq = op->body.as<SeqStmtNode>();
      if (!seq || seq->size() < 3) return StmtMutator::VisitStmt_(op);
      // The tile loop: its body starts with the zeroing of P (an unrolled row loop around a
      // vector loop around the P_init block).
      const auto* rows = seq->seq[0].as<ForNode>();
      const auto* cols = rows ? rows->body.as<ForNode>() : nullptr;
      const auto* init = cols ? cols->body.as<BlockRealizeNode>() : nullptr;
      if (!init || init->block->name_hint != "P_init" || init->iter_values.size() != 3)
        return StmtMutator::VisitStmt_(op);
      // The tile's first column: the P_init column binding at the loops' minimum.
      PrimExpr j0 =
          Substitute(init->iter_values[2],
                     Map<Var, PrimExpr>{{rows->loop_var, rows->min}, {cols->loop_var, cols->min}});
      Narrow narrow(p_, tail_, nr_, w_);
      Stmt tail = narrow.VisitStmt(op->body);
      For loop = GetRef<For>(op);
      loop.CopyOnWrite()->body = IfThenElse(
          GT(j0 + make_const(j0.dtype(), nr_), make_const(j0.dtype(), n_)), tail, op->body);
      done = true;
      return loop;
    }

   private:
    Buffer p_, tail_;
    int64_t n_, nr_, w_;
  };
  Rewriter r(*p_buf, p_tail, n, nr, w);
  Stmt body = r(func->body);
  if (!r.done) return func;
  // Allocate the narrow tile beside P in the root block.
  auto* realize = body.as<BlockRealizeNode>();
  if (!realize) return func;
  Block root = realize->block;
  root.CopyOnWrite()->alloc_buffers.push_back(p_tail);
  BlockRealize new_realize = GetRef<BlockRealize>(realize);
  new_realize.CopyOnWrite()->block = root;
  PrimFunc out = func;
  out.CopyOnWrite()->body = new_realize;
  return out;
}

/*!
 * \brief The blocked GEMM (B packed, A packed when the plan says so, k blocked by kc): see the
 * loop nest in cpu_gemm.h.
 * The k blocks are a reduction of their own: P[ko][i][j] (a local register tile) sums one block,
 * and C[i][j] sums P over ko, so each register tile is zeroed, accumulates kc steps and is added
 * into C, which stays in L2 across the k blocks of one task.
 */
PrimFunc BlockedGemm(int64_t m, int64_t n, int64_t k, bool transpose_b, const GemmPlan& plan,
                     DataType dtype, const GemmEpilogue* epilogue) {
  using tir::Var;
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };  // Relax shapes are int64
  const int64_t mr = plan.mr, nr = plan.nr, kc = std::min(plan.kc, k);
  const int64_t nk = CeilDiv(k, kc), kp = nk * kc;
  const int64_t mp = CeilDiv(m, mr) * mr, np = CeilDiv(n, nr) * nr;
  const bool padded = mp != m || np != n;
  te::Tensor A = te::placeholder({idx(m), idx(k)}, dtype, "A");
  te::Tensor B = transpose_b ? te::placeholder({idx(n), idx(k)}, dtype, "B")
                             : te::placeholder({idx(k), idx(n)}, dtype, "B");
  std::vector<te::Tensor> extra =
      ExtraPlaceholders(epilogue ? &epilogue->extra_shapes : nullptr, dtype);
  auto zero = tir::make_const(dtype, 0);
  // Zeros beyond N / M and beyond K (the last k block); the clamped indices keep the unused
  // loads in bounds. Both operands are packed k block first ([ko][panel][kc][nr], as GotoBLAS
  // packs one block at a time), so that the micro-panels one k block reads are one contiguous
  // range: with [panel][K][nr] they lay K*nr floats apart, which for K a power of two (1024:
  // 128 KiB) puts the micro-panels of a column group (and A's slivers of a row block, 32 KiB
  // apart) in the same L2 sets, where they evicted each other (1024^3 ran at 0.92x OpenBLAS,
  // 1000^3 at 0.95x).
  te::Tensor packed_b = te::compute(
      {idx(nk), idx(np / nr), idx(kc), idx(nr)},
      [&](Var kb, Var jo, Var kin, Var ji) -> PrimExpr {
        PrimExpr kk = kb * idx(kc) + kin;
        PrimExpr j = jo * idx(nr) + ji;
        PrimExpr jj = np == n ? j : tir::min(j, idx(n - 1));
        PrimExpr kq = kp == k ? PrimExpr(kk) : tir::min(kk, idx(k - 1));
        PrimExpr v = transpose_b ? B(jj, kq) : B(kq, jj);
        if (np == n && kp == k) return v;
        PrimExpr in = np == n ? kk < idx(k) : (kp == k ? j < idx(n) : (j < idx(n) && kk < idx(k)));
        return tir::Select(in, v, zero);
      },
      "packedB");
  const bool pack_a = plan.pack_a || kp != k;
  te::Tensor packed_a;
  if (pack_a)
    packed_a = te::compute(
        {idx(nk), idx(mp / mr), idx(kc), idx(mr)},
        [&](Var kb, Var io, Var kin, Var ir) -> PrimExpr {
          PrimExpr kk = kb * idx(kc) + kin;
          PrimExpr i = io * idx(mr) + ir;
          PrimExpr ii = mp == m ? i : tir::min(i, idx(m - 1));
          PrimExpr kq = kp == k ? PrimExpr(kk) : tir::min(kk, idx(k - 1));
          if (mp == m && kp == k) return A(ii, kq);
          PrimExpr in =
              mp == m ? kk < idx(k) : (kp == k ? i < idx(m) : (i < idx(m) && kk < idx(k)));
          return tir::Select(in, A(ii, kq), zero);
        },
        "packedA");
  tir::IterVar ki = te::reduce_axis(Range(0, idx(kc)), "ki");
  te::Tensor part = te::compute(
      {idx(nk), idx(mp), idx(np)},
      [&](Var ko, Var i, Var j) {
        PrimExpr kk = ko * idx(kc) + ki->var;
        // Without packing, rows beyond M read row M-1 (clamped; never copied out).
        PrimExpr a =
            pack_a ? packed_a(ko, tir::floordiv(i, idx(mr)), ki->var, tir::floormod(i, idx(mr)))
                   : A(mp == m ? PrimExpr(i) : tir::min(i, idx(m - 1)), kk);
        return te::sum(
            a * packed_b(ko, tir::floordiv(j, idx(nr)), ki->var, tir::floormod(j, idx(nr))), {ki});
      },
      "P");
  bool separate_out = padded || epilogue != nullptr;
  std::string c_name = separate_out ? "C_pad" : "C";
  te::Tensor C;
  if (nk > 1) {
    tir::IterVar ko = te::reduce_axis(Range(0, idx(nk)), "ko");
    C = te::compute(
        {idx(mp), idx(np)}, [&](Var i, Var j) { return te::sum(part(ko->var, i, j), {ko}); },
        c_name);
  } else {
    C = te::compute(
        {idx(mp), idx(np)}, [&](Var i, Var j) { return part(idx(0), i, j); }, c_name);
  }
  PrimFunc f = GemmKernel(A, B, extra, C, m, n, separate_out, epilogue);

  Schedule sch = Schedule::Create(IRModule::FromNamed({{"main", f}}));
  BlockRV c = sch->GetBlock(c_name);
  BlockRV p = sch->GetBlock("P");
  Array<LoopRV> loops = sch->GetLoops(c);  // i, j[, ko]
  // Tasks: (row block of ii tiles) x (column group of jg panels), divisors of the tile counts.
  const int64_t tiles = mp / mr, panels = np / nr;
  int64_t ii = LargestDivisorAtMost(tiles, plan.mc / mr);
  int64_t jg = LargestDivisorAtMost(panels, std::max<int64_t>(1, plan.nc / nr));
  // At least 8 tasks along the parallel loop where the shape allows, so that 2 to 4 threads are
  // kept busy (the parallel loop is cut into equal contiguous chunks, one per thread: 5 tasks on
  // 2 threads would leave one idle a fifth of the time). The larger of the row block (ii tiles)
  // and the column group (jg panels) shrinks first. The parallel loop is the row blocks or the
  // column groups, whichever has more (not their fusion: a fused index enters the tile's
  // indices as floordiv/floormod, which CompactBufferAllocation does not shrink, and the
  // register tile would stay full size).
  while (std::max(tiles / ii, panels / jg) < 8 && (ii > 1 || jg > 1)) {
    if (ii >= jg) {
      ii = LargestDivisorAtMost(tiles, ii - 1);
    } else {
      jg = LargestDivisorAtMost(panels, jg - 1);
    }
  }
  // Even shares on two threads: each thread runs a contiguous share of the parallel loop (tasks
  // of even shares, see "Two threads" in docs/performance.md), so an odd count of n blocks
  // leaves one thread (n+1)/2 of them: 13 of 25 row blocks for 1000^3 on AVX-512 (125 row
  // tiles in blocks of 5), the other thread idle 4% of the time. The parallel block shrinks to
  // the largest divisor that gives an even count or at least 64 blocks (at most 1/64 idle);
  // 1000^3 gets 125 row blocks of one tile. Measured on Zen 4: 2 threads 0.99-1.03x ->
  // 1.05-1.06x OpenBLAS, 1 thread unchanged (a B micro-panel then serves fewer row tiles per
  // trip through L1; the columns-parallel alternative, 8 column groups, lost 6% at 1 thread).
  const bool rows_par = tiles / ii >= panels / jg;
  auto even = [](int64_t count) { return count % 2 == 0 || count >= 64; };
  int64_t& par = rows_par ? ii : jg;
  const int64_t par_total = rows_par ? tiles : panels;
  if (!even(par_total / par)) {
    for (int64_t d = par - 1; d >= 1; --d) {
      if (par_total % d == 0 && even(par_total / d)) {
        par = d;
        break;
      }
    }
  }
  const bool rows_outer = tiles / ii >= panels / jg;
  Array<LoopRV> is = sch->Split(loops[0], {tiles / ii, ii, mr});
  Array<LoopRV> js = sch->Split(loops[1], {panels / jg, jg, nr});
  LoopRV outer = rows_outer ? is[0] : js[0], inner = rows_outer ? js[0] : is[0];
  // Per task: for each k block, every B micro-panel (kc x nr, L1) serves the ii row tiles of
  // the A block (ii*mr x kc, L2).
  if (nk > 1) {
    sch->Reorder({outer, inner, loops[2], js[1], is[1], is[2], js[2]});
  } else {
    sch->Reorder({outer, inner, js[1], is[1], is[2], js[2]});
  }
  sch->SetScope(p, 0, "local");
  sch->ComputeAt(p, is[1]);
  Array<LoopRV> pl = sch->GetLoops(p);  // ..., i, j, ki
  const size_t d = pl.size();
  sch->Reorder({pl[d - 1], pl[d - 3], pl[d - 2]});
  // Parallel and vector loops first, then decompose_reduction (TVM refuses a parallel loop
  // over a block whose init was split off).
  const int64_t work = mp * np * kp;
  if (work >= (1 << 18) && std::max(tiles / ii, panels / jg) > 1) sch->Parallel(outer);
  if (mr > 1) sch->Unroll(pl[d - 3]);
  sch->Vectorize(pl[d - 2]);
  if (mr > 1) sch->Unroll(is[2]);
  sch->Vectorize(js[2]);
  // The k loop of the tile unrolled by 2 where kc is even: two k steps (32 FMAs on AVX-512) per
  // loop branch. Measured on Zen 4, 1 thread: +0-3% (1000 0.99 -> 1.00, 1024 1.03 -> 1.06, 2048
  // 1.04-1.08 -> 1.07-1.09 of OpenBLAS); by 4 was no better than by 2.
  LoopRV k_steps = pl[d - 1];
  if (kc % 2 == 0 && kc >= 4) {
    Array<LoopRV> ks = sch->Split(pl[d - 1], {kc / 2, 2});
    sch->Unroll(ks[1]);
    k_steps = ks[0];
  }
  BlockRV p_init = sch->DecomposeReduction(p, k_steps);
  std::vector<BlockRV> inits{p_init};
  if (nk > 1) inits.push_back(sch->DecomposeReduction(c, loops[2]));
  for (const BlockRV& init : inits) {
    Array<LoopRV> il = sch->GetLoops(init);
    if (mr > 1) sch->Unroll(il[il.size() - 2]);
    sch->Vectorize(il[il.size() - 1]);
  }
  // Output: the epilogue inlined into the write-back when nothing is padded and k is one block;
  // else per task, after its k blocks (while the C block is in L2).
  bool fused = false;
  if (separate_out && !padded && nk == 1) {
    fused = Try(&sch, [&](Schedule s) { s->ReverseComputeInline(s->GetBlock("C")); });
  }
  if (separate_out && !fused) {
    BlockRV o = sch->GetBlock("C");
    Try(&sch, [&](Schedule s) { s->ReverseComputeAt(o, inner); });
    Array<LoopRV> ol = sch->GetLoops(o);
    // In vectors of the largest power of two up to the lanes that divides N (N = 1000 on
    // AVX-512: 8 floats), so that a padded N is not copied out one scalar at a time.
    int64_t vw = plan.lanes;
    while (vw > 1 && n % vw != 0) vw /= 2;
    if (vw >= 4) {
      Try(&sch, [&](Schedule s) {
        Array<LoopRV> parts = s->Split(ol[ol.size() - 1], {std::nullopt, vw});
        s->Vectorize(parts[1]);
      });
    }
    if (ol.size() == 2 && m * n >= (1 << 15) && m > 1)
      Try(&sch, [&](Schedule s) { s->Parallel(ol[0]); });
  }
  // Packing: parallel over panels. B's rows are read contiguously (k innermost for a dense).
  // A's micro-panels are written contiguously: k outer, the mr rows unrolled inside, so LLVM's
  // loop vectorizer sees an interleaved group of mr stores and transposes mr row vectors in
  // registers (vpermt2ps on AVX-512) instead of storing each scalar apart (k innermost: 16
  // single-lane stores per vector). Pack A was 3.3% of a 1024^3 GEMM's time, now 2.1% (perf).
  // The loops are (k block, panel, k, lane): the panel goes outermost (the parallel loop).
  for (const char* name : {"packedB", "packedA"}) {
    if (!pack_a && std::string(name) == "packedA") continue;
    Array<LoopRV> ql = sch->GetLoops(sch->GetBlock(name));
    if (std::string(name) == "packedA") {
      sch->Reorder({ql[1], ql[0], ql[2], ql[3]});
      if (mr > 1) sch->Unroll(ql[3]);
    } else if (transpose_b) {
      sch->Reorder({ql[1], ql[3], ql[0], ql[2]});
    } else {
      sch->Reorder({ql[1], ql[0], ql[2], ql[3]});
      sch->Vectorize(ql[3]);
    }
    if (work >= (1 << 18) && (std::string(name) == "packedA" ? tiles : panels) > 1)
      sch->Parallel(ql[1]);
  }
  // After the schedule: the k blocks' first store and last store (into the output), and the
  // narrow tile of a mostly padded last panel (each in its function's comment).
  PrimFunc out = Finish(sch);
  if (nk > 1) {
    out = FirstKBlockStores(out, c_name);
    if (separate_out && !fused) out = LastKBlockStoresOut(out, c_name, m, n, mr, nr, nk);
  }
  out = NarrowLastPanel(out, n, nr);
  return out;
}

}  // namespace

namespace {

/*!
 * \brief The small-M dense (plan.swap_ab, B is [N,K]): Cᵀ = B·Aᵀ with only A packed, the tile
 * stored transposed through the epilogue (see cpu_gemm.h and SmallMDensePlan).
 */
PrimFunc SmallMDenseGemm(int64_t m, int64_t n, int64_t k, const GemmPlan& plan, DataType dtype,
                         const GemmEpilogue* epilogue) {
  using tir::Var;
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };  // Relax shapes are int64
  const int64_t mr = plan.mr, nr = plan.nr;
  const int64_t mp = CeilDiv(m, nr) * nr, np = CeilDiv(n, mr) * mr;
  const int64_t panels = mp / nr, tiles = np / mr;
  const bool exact = mp == m && np == n;
  te::Tensor A = te::placeholder({idx(m), idx(k)}, dtype, "A");
  te::Tensor B = te::placeholder({idx(n), idx(k)}, dtype, "B");
  std::vector<te::Tensor> extra =
      ExtraPlaceholders(epilogue ? &epilogue->extra_shapes : nullptr, dtype);
  // Aᵀ in panels of nr rows of A, zeros beyond M (the clamped index keeps the load in bounds).
  te::Tensor packed_a = te::compute(
      {idx(panels), idx(k), idx(nr)},
      [&](Var io, Var kk, Var ii) -> PrimExpr {
        PrimExpr i = io * idx(nr) + ii;
        if (mp == m) return A(i, kk);
        return tir::Select(i < idx(m), A(tir::min(i, idx(m - 1)), kk), tir::make_const(dtype, 0));
      },
      "packedA");
  tir::IterVar r = te::reduce_axis(Range(0, idx(k)), "k");
  // Rows of B beyond N read row N-1 (clamped): they fill the padded Cᵀ, never C.
  te::Tensor ct = te::compute(
      {idx(np), idx(mp)},
      [&](Var j, Var i) {
        PrimExpr row = np == n ? PrimExpr(j) : tir::min(j, idx(n - 1));
        return te::sum(
            B(row, r->var) * packed_a(tir::floordiv(i, idx(nr)), r->var, tir::floormod(i, idx(nr))),
            {r});
      },
      "CT");
  te::Tensor out = te::compute(
      {idx(m), idx(n)},
      [&](Var i, Var j) { return epilogue ? epilogue->fn(ct(j, i), extra, i, j) : ct(j, i); }, "C");
  Array<te::Tensor> args{A, B};
  for (const te::Tensor& t : extra) args.push_back(t);
  args.push_back(out);
  PrimFunc f = WithAttr(te::CreatePrimFunc(args), "global_symbol", String("main"));
  Schedule sch = Schedule::Create(IRModule::FromNamed({{"main", f}}));
  const int64_t work = mp * np * k;
  const bool parallel = work >= (1 << 18) && tiles > 1;
  // The tile loops: row tiles of B outermost (the parallel loop; each row of B is read once),
  // then the panels of Aᵀ, then mr x nr. A loop of extent 1 is not made: the tile's indices
  // would then differ between the tile's producer and consumer, and CompactBufferAllocation
  // would leave the register tile full size.
  auto tile_loops = [&](const LoopRV& j, const LoopRV& i, std::optional<LoopRV> k_loop) {
    Array<LoopRV> js = sch->Split(j, {tiles, mr});
    LoopRV anchor = js[0], vec = i;
    std::vector<LoopRV> order{js[0]};
    if (panels > 1) {
      Array<LoopRV> is = sch->Split(i, {panels, nr});
      order.push_back(is[0]);
      anchor = is[0];
      vec = is[1];
    }
    if (k_loop) order.push_back(*k_loop);
    order.push_back(js[1]);
    order.push_back(vec);
    sch->Reorder(Array<LoopRV>(order.begin(), order.end()));
    return std::make_tuple(js[0], js[1], anchor, vec);
  };
  BlockRV p = sch->GetBlock("CT");
  if (exact) {
    // The output block is the tile's consumer: Cᵀ stays a local tile (registers), computed at
    // each (row tile, panel) and stored transposed through the epilogue.
    BlockRV c = sch->GetBlock("C");
    Array<LoopRV> cl = sch->GetLoops(c);  // i, j
    auto [jo, ji, anchor, vec] = tile_loops(cl[1], cl[0], std::nullopt);
    sch->SetScope(p, 0, "local");
    sch->ComputeAt(p, anchor);
    Array<LoopRV> pl = sch->GetLoops(p);  // ..., j, i, k
    const size_t d = pl.size();
    sch->Reorder({pl[d - 1], pl[d - 3], pl[d - 2]});
    if (parallel) sch->Parallel(jo);  // before decompose_reduction (TVM refuses it after)
    if (mr > 1) sch->Unroll(pl[d - 3]);
    sch->Vectorize(pl[d - 2]);
    BlockRV init = sch->DecomposeReduction(p, pl[d - 1]);
    Array<LoopRV> il = sch->GetLoops(init);
    if (mr > 1) sch->Unroll(il[il.size() - 2]);
    sch->Vectorize(il[il.size() - 1]);
    // The store: a vector of nr rows of C per row of B (lane by lane, N apart), epilogue applied.
    if (mr > 1) sch->Unroll(ji);
    sch->Vectorize(vec);
  } else {
    // Padded: the tiles write a padded Cᵀ through a local tile; then C = epilogue(Cᵀ).
    Array<LoopRV> pl = sch->GetLoops(p);  // j, i, k
    auto [jo, ji, anchor, vec] = tile_loops(pl[0], pl[1], pl[2]);
    BlockRV local = sch->CacheWrite(p, 0, "local");
    sch->ReverseComputeAt(local, anchor);
    if (parallel) sch->Parallel(jo);
    sch->Vectorize(vec);
    BlockRV init = sch->DecomposeReduction(p, pl[2]);
    if (mr > 1) sch->Unroll(ji);
    for (const BlockRV& part : {init, local}) {
      Array<LoopRV> ql = sch->GetLoops(part);
      if (mr > 1) sch->Unroll(ql[ql.size() - 2]);
      sch->Vectorize(ql[ql.size() - 1]);
    }
    Array<LoopRV> ol = sch->GetLoops(sch->GetBlock("C"));
    if (m * n >= (1 << 15) && m > 1) sch->Parallel(ol[0]);
  }
  // The packing, a transpose of lanes x lanes blocks: one vector load of lanes k steps from
  // each of lanes rows of A (unrolled), stored lanes apart, which LLVM turns into in-register
  // shuffles and vector stores (7 us for the MLP's 64 x 784 on Zen 4, against 15 us for scalar
  // copies, whose stores are the limit at one per cycle). A K that is not a multiple of the
  // lanes takes the scalar copy: one element of nr rows per k step, the writes contiguous.
  Array<LoopRV> ql = sch->GetLoops(sch->GetBlock("packedA"));  // io, k, ii
  if (k % plan.lanes == 0) {
    Array<LoopRV> ks = sch->Split(ql[1], {k / plan.lanes, plan.lanes});
    Array<LoopRV> is = sch->Split(ql[2], {nr / plan.lanes, plan.lanes});
    sch->Reorder({ql[0], ks[0], is[0], is[1], ks[1]});
    sch->Unroll(is[1]);
    sch->Vectorize(ks[1]);
  } else {
    sch->Unroll(ql[2]);
  }
  if (work >= (1 << 18) && panels > 1) sch->Parallel(ql[0]);
  return Finish(sch);
}

}  // namespace

PrimFunc CpuGemmPrimFunc(int64_t m, int64_t n, int64_t k, bool transpose_b, const GemmPlan& plan,
                         DataType dtype, const GemmEpilogue* epilogue) {
  using tir::Var;
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };  // Relax shapes are int64
  const int64_t mr = plan.mr, nr = plan.nr;
  if (IsDotProductPlan(plan, transpose_b, k)) return DotProductGemm(m, n, k, plan, dtype, epilogue);
  if (plan.swap_ab) {
    if (!transpose_b) {
      MINITVM_THROW(ValueError) << "CpuGemmPrimFunc: a swap_ab plan (" << plan.str()
                                << ") needs a dense (B is [N,K]), got transpose_b = false";
    }
    return SmallMDenseGemm(m, n, k, plan, dtype, epilogue);
  }
  if (m >= 2 * mr) return BlockedGemm(m, n, k, transpose_b, plan, dtype, epilogue);
  const bool pack = plan.pack_b || transpose_b;
  // Padded extents: whole register tiles.
  const int64_t mp = CeilDiv(m, mr) * mr, np = CeilDiv(n, nr) * nr;
  const bool padded = mp != m || np != n;
  if (!pack && np != n) {
    MINITVM_THROW(ValueError) << "CpuGemmPrimFunc: without packing N (" << n
                              << ") must be a multiple of nr (" << nr << ")";
  }
  te::Tensor A = te::placeholder({idx(m), idx(k)}, dtype, "A");
  te::Tensor B = transpose_b ? te::placeholder({idx(n), idx(k)}, dtype, "B")
                             : te::placeholder({idx(k), idx(n)}, dtype, "B");
  std::vector<te::Tensor> extra =
      ExtraPlaceholders(epilogue ? &epilogue->extra_shapes : nullptr, dtype);
  auto b_at = [&](PrimExpr kk, PrimExpr j) { return transpose_b ? B(j, kk) : B(kk, j); };
  te::Tensor packed;
  if (pack) {
    packed = te::compute(
        {idx(np / nr), idx(k), idx(nr)},
        [&](Var jo, Var kk, Var ji) -> PrimExpr {
          PrimExpr j = jo * idx(nr) + ji;
          if (np == n) return b_at(kk, j);
          // Zero columns beyond N; the clamped index keeps the (unused) load in bounds.
          return tir::Select(j < idx(n), b_at(kk, tir::min(j, idx(n - 1))),
                             tir::make_const(dtype, 0));
        },
        "packedB");
  }
  tir::IterVar r = te::reduce_axis(Range(0, idx(k)), "k");
  bool separate_out = padded || epilogue != nullptr;
  te::Tensor C = te::compute(
      {idx(mp), idx(np)},
      [&](Var i, Var j) {
        // Rows beyond M read row M-1 (clamped): they compute values that are never copied out.
        PrimExpr row = mp == m ? PrimExpr(i) : tir::min(i, idx(m - 1));
        PrimExpr bv = pack ? packed(tir::floordiv(j, idx(nr)), r->var, tir::floormod(j, idx(nr)))
                           : B(r->var, j);
        return te::sum(A(row, r->var) * bv, {r});
      },
      separate_out ? "C_pad" : "C");
  PrimFunc f = GemmKernel(A, B, extra, C, m, n, separate_out, epilogue);

  Schedule sch = Schedule::Create(IRModule::FromNamed({{"main", f}}));
  BlockRV c = sch->GetBlock(separate_out ? "C_pad" : "C");
  Array<LoopRV> loops = sch->GetLoops(c);
  const int64_t tiles = mp / mr;
  const int64_t ii = LargestDivisorAtMost(tiles, plan.mc / mr);
  const int64_t io = tiles / ii, jo = np / nr;
  Array<LoopRV> is = sch->Split(loops[0], {io, ii, mr});
  Array<LoopRV> js = sch->Split(loops[1], {jo, nr});
  // (Reached with fewer than two row tiles: larger M takes BlockedGemm.)
  sch->Reorder({is[0], js[0], is[1], loops[2], is[2], js[1]});
  BlockRV c_local = sch->CacheWrite(c, 0, "local");
  sch->ReverseComputeAt(c_local, is[1]);
  // Parallel tasks (before decompose_reduction, which TVM requires): the column panels, else the
  // row blocks. Not their fusion, whose floordiv/floormod indices would keep the local tile from
  // being compacted. Tiny products stay serial (a thread launch costs more than it saves). One
  // row tile (the GEMV) reads each element of B once and is bound by the bandwidth B streams in
  // with, like the dot products: from 2^17 multiply-adds each core streams its own panels
  // through its own L2 (the MLP's 784 x 256 layer).
  const int64_t work = mp * np * k;
  if (work >= (io == 1 && ii == 1 ? (1 << 17) : (1 << 18))) {
    if (jo > 1) {
      sch->Parallel(js[0]);
    } else if (io > 1) {
      sch->Parallel(is[0]);
    }
  }
  sch->Vectorize(js[1]);  // also before decompose_reduction; the init's copy is vectorized
  BlockRV init = sch->DecomposeReduction(c, loops[2]);
  if (mr > 1) sch->Unroll(is[2]);
  for (const BlockRV& part : {init, c_local}) {
    Array<LoopRV> pl = sch->GetLoops(part);
    if (mr > 1) sch->Unroll(pl[pl.size() - 2]);
    sch->Vectorize(pl[pl.size() - 1]);
  }
  // The epilogue in the write-back: with no padding the output block is inlined into the copy out
  // of the register tile (bias add and ReLU on the accumulators, one store per element).
  bool fused = false;
  if (separate_out && !padded) {
    fused = Try(&sch, [&](Schedule s) { s->ReverseComputeInline(s->GetBlock("C")); });
  }
  if (pack) {
    Array<LoopRV> pl = sch->GetLoops(sch->GetBlock("packedB"));
    if (transpose_b) {
      // Read B's rows contiguously (k innermost); the writes stride by nr.
      sch->Reorder({pl[0], pl[2], pl[1]});
    } else if (np == n) {
      sch->Vectorize(pl[2]);
    }
    if (work >= (1 << 18) && jo > 1) sch->Parallel(pl[0]);
  }
  if (separate_out && !fused) {
    Array<LoopRV> ol = sch->GetLoops(sch->GetBlock("C"));
    if (n % plan.lanes == 0) {
      Array<LoopRV> parts = sch->Split(ol[1], {std::nullopt, plan.lanes});
      sch->Vectorize(parts[1]);
    }
    if (m * n >= (1 << 15) && m > 1) sch->Parallel(ol[0]);
  }
  return Finish(sch);
}

namespace {

/*! \brief `e` as a load of `buf` with exactly the block iterators `vars` as indices. */
bool IsLoadOf(const PrimExpr& e, const tir::Buffer& buf,
              const std::vector<const tir::VarNode*>& vars) {
  return IsLoadAt(e.as<tir::BufferLoadNode>(), buf, vars);
}

bool IsZeroConst(const PrimExpr& e) {
  if (const auto* f = e.as<FloatImmNode>()) return f->value == 0.0;
  if (const auto* i = e.as<IntImmNode>()) return i->value == 0;
  return false;
}

}  // namespace

std::optional<PrimFunc> ScheduleGemmRule(const PrimFunc& func, const target::Target& target) {
  // The first block: C[i, j] = C[i, j] + A[i, k] * B[k, j] (or B[j, k]), init 0; then
  // elementwise blocks over [i, j] (the epilogue FuseTIR leaves: bias add, ReLU).
  const auto* root = func->body.as<tir::BlockRealizeNode>();
  if (!root || func->params.size() < 3) return std::nullopt;
  std::vector<const tir::BlockRealizeNode*> realizes;
  tir::PostOrderVisit(root->block->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<tir::BlockRealizeNode>()) realizes.push_back(b);
  });
  if (realizes.empty()) return std::nullopt;
  const tir::BlockNode* block = realizes[0]->block.get();
  if (block->iter_vars.size() != 3 || !block->init.defined()) return std::nullopt;
  if (block->iter_vars[0]->iter_type != tir::kDataPar ||
      block->iter_vars[1]->iter_type != tir::kDataPar ||
      block->iter_vars[2]->iter_type != tir::kCommReduce) {
    return std::nullopt;
  }
  const tir::VarNode* vi = block->iter_vars[0]->var.get();
  const tir::VarNode* vj = block->iter_vars[1]->var.get();
  const tir::VarNode* vk = block->iter_vars[2]->var.get();
  const auto* store = block->body.as<tir::BufferStoreNode>();
  if (!store) return std::nullopt;
  tir::Buffer c = store->buffer;
  if (store->indices.size() != 2 || store->indices[0].get() != vi ||
      store->indices[1].get() != vj) {
    return std::nullopt;
  }
  const auto* add = store->value.as<tir::AddNode>();
  if (!add || !IsLoadOf(add->a, c, {vi, vj})) return std::nullopt;
  const auto* mul = add->b.as<tir::MulNode>();
  if (!mul) return std::nullopt;
  const auto* init = block->init.as<tir::BufferStoreNode>();
  if (!init || !init->buffer.same_as(c) || !IsZeroConst(init->value)) return std::nullopt;
  std::vector<tir::Buffer> params;
  for (const tir::Var& v : func->params) {
    auto b = func->buffer_map.Get(v);
    if (!b) return std::nullopt;
    params.push_back(*b);
  }
  const tir::Buffer &a = params[0], &b = params[1];
  bool transpose_b;
  if (IsLoadOf(mul->a, a, {vi, vk}) && IsLoadOf(mul->b, b, {vk, vj})) {
    transpose_b = false;
  } else if (IsLoadOf(mul->a, a, {vi, vk}) && IsLoadOf(mul->b, b, {vj, vk})) {
    transpose_b = true;
  } else {
    return std::nullopt;
  }
  DataType dtype = c->dtype;
  if (!dtype.is_float() || dtype.lanes() != 1 || a->dtype != dtype || b->dtype != dtype) {
    return std::nullopt;
  }
  if (a->shape.size() != 2 || c->shape.size() != 2) return std::nullopt;
  auto dim = [](const tir::Buffer& buf, int i) { return AsConstInt(buf->shape[i]); };
  auto m = dim(a, 0), k = dim(a, 1), n = dim(c, 1);
  if (!m || !k || !n) return std::nullopt;
  const tir::Buffer& out_buf = params.back();
  // The epilogue: each later block writes one [M,N] buffer at [v0, v1] from loads of the product,
  // of earlier epilogue results at [v0, v1], and of the other parameters (bias: any indices of
  // v0, v1); its value is rebuilt as an expression of (i, j) over TE placeholders.
  std::vector<tir::Buffer> extra_bufs(params.begin() + 2, params.end() - 1);
  std::optional<GemmEpilogue> epilogue;
  if (realizes.size() > 1 || !c.same_as(out_buf)) {
    if (c.same_as(out_buf)) return std::nullopt;
    std::optional<ElementwiseEpilogue> steps =
        ElementwiseEpilogue::Collect(realizes, 1, {*m, *n}, c, extra_bufs);
    if (!steps || steps->empty() || !steps->result().same_as(out_buf)) return std::nullopt;
    for (const tir::Buffer& e : extra_bufs) {
      if (e->dtype != dtype) return std::nullopt;
      for (const PrimExpr& d : e->shape) {
        if (!AsConstInt(d)) return std::nullopt;
      }
    }
    GemmEpilogue epi;
    for (const tir::Buffer& e : extra_bufs) {
      std::vector<int64_t> shape;
      for (const PrimExpr& d : e->shape) shape.push_back(*AsConstInt(d));
      epi.extra_shapes.push_back(shape);
    }
    epi.fn = [steps = *steps](const PrimExpr& prod, const std::vector<te::Tensor>& extra,
                              const tir::Var& i, const tir::Var& j) -> PrimExpr {
      return steps.Apply(prod, extra, {i, j});
    };
    epilogue = epi;
  } else if (params.size() != 3) {
    return std::nullopt;
  }
  CpuVectorInfo info = GetCpuVectorInfo(target);
  // A layout-free B (a constant weight) has its panels packed once, at compile time, which beats
  // the small-M dense kernel (that packs A on every call): it is not swapped then; with 2 to
  // mr-1 rows it takes the packed GEMV instead of the dot products (DeriveGemmPlan).
  const bool b_constant = IsLayoutFreeBuffer(func, b);
  GemmPlan plan = DeriveGemmPlan(info, dtype.bits(), *m, *n, *k, transpose_b, b_constant);
  if (plan.lanes < 4) return std::nullopt;
  // Small products: the generic schedule does as well without a packing pass. Not so for the
  // dot products of a small dense (no packing pass there): the generic schedule would run one
  // serial chain of K scalar FMAs per output (e.g. the 10 x 256 last layer of an MLP at batch
  // 1: 3 us instead of 0.2), nor for the few-rows kernel with a constant B, whose packing is
  // done at compile time.
  const bool no_packing_per_call =
      IsDotProductPlan(plan, transpose_b, *k) || (b_constant && *m < 2 * plan.mr && !plan.swap_ab);
  if (*m * *n * *k < (1 << 15) && !no_packing_per_call) return std::nullopt;
  PrimFunc out =
      CpuGemmPrimFunc(*m, *n, *k, transpose_b, plan, dtype, epilogue ? &*epilogue : nullptr);
  auto* node = out.CopyOnWrite();
  node->attrs = func->attrs;
  // A constant B (listed in "layout_free_buffers"): its panel packing becomes compile-time
  // preprocessing (layout_rewrite.h).
  if (b_constant) out = MarkLayoutRewritePreproc(out, "packedB");
  return WithAttr(out, "tir.is_scheduled", Any(true));
}

MINITVM_REGISTER_GLOBAL("relax.backend.CpuVectorInfo").set_body_typed([](target::Target t) {
  CpuVectorInfo info = GetCpuVectorInfo(t);
  Map<String, Any> out;
  out.Set(String("vector_bits"), Any(info.vector_bits));
  out.Set(String("vector_registers"), Any(info.vector_registers));
  out.Set(String("l1d_bytes"), Any(info.l1d_bytes));
  out.Set(String("l2_bytes"), Any(info.l2_bytes));
  return out;
});
// DeriveGemmPlan(target, elem_bits, m, n, k[, transpose_b[, b_constant]]).
MINITVM_REGISTER_GLOBAL("relax.backend.DeriveGemmPlan")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      if (args.size() < 5 || args.size() > 7) {
        MINITVM_THROW(TypeError) << "relax.backend.DeriveGemmPlan expects (target, elem_bits, m, "
                                    "n, k[, transpose_b[, b_constant]]), got "
                                 << args.size() << " arguments";
      }
      GemmPlan p = DeriveGemmPlan(
          GetCpuVectorInfo(args[0].cast<target::Target>()), args[1].cast<int64_t>(),
          args[2].cast<int64_t>(), args[3].cast<int64_t>(), args[4].cast<int64_t>(),
          args.size() > 5 && args[5].cast<bool>(), args.size() > 6 && args[6].cast<bool>());
      Map<String, Any> out;
      out.Set(String("lanes"), Any(p.lanes));
      out.Set(String("mr"), Any(p.mr));
      out.Set(String("nv"), Any(p.nv));
      out.Set(String("nr"), Any(p.nr));
      out.Set(String("mc"), Any(p.mc));
      out.Set(String("kc"), Any(p.kc));
      out.Set(String("nc"), Any(p.nc));
      out.Set(String("pack_a"), Any(p.pack_a));
      out.Set(String("pack_b"), Any(p.pack_b));
      out.Set(String("swap_ab"), Any(p.swap_ab));
      *rv = out;
    });
MINITVM_REGISTER_GLOBAL("relax.backend.CpuGemmPrimFunc")
    .set_body_typed([](target::Target t, int64_t m, int64_t n, int64_t k, bool transpose_b) {
      GemmPlan p = DeriveGemmPlan(GetCpuVectorInfo(t), 32, m, n, k, transpose_b);
      return CpuGemmPrimFunc(m, n, k, transpose_b, p);
    });

}  // namespace relax_vm
}  // namespace minitvm
