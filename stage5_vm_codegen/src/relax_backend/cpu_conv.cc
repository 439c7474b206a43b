/*!
 * \file cpu_conv.cc
 * \brief Stage 5: the CPU conv2d rule — conv2d NCHW (batch 1) as a register-tiled GEMM over an
 * implicit im2col, its tile derived from the target, and depthwise conv2d as vector FMAs along
 * the output rows (see minitvm/relax_vm/cpu_conv.h).
 */
#include "minitvm/relax_vm/cpu_conv.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <sstream>
#include <vector>

#include "elementwise_epilogue.h"
#include "layout_rewrite.h"
#include "minitvm/arith/analyzer.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/thread_pool.h"
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

int64_t CeilDivI(int64_t a, int64_t b) { return (a + b - 1) / b; }

/*! \brief Apply `f`, keeping `sch` unchanged when a primitive refuses (returns success). */
bool TryApply(Schedule* sch, const std::function<void(Schedule)>& f) {
  Schedule copy = (*sch)->Copy();
  try {
    f(copy);
  } catch (const std::exception&) {
    return false;
  }
  *sch = copy;
  return true;
}

/*!
 * \brief The kernel's parameters in the order of the fused function it replaces: `arg_roles`
 * names each one (-1 data, -2 weight, -3 output, e >= 0 the e-th extra tensor); without it,
 * data, weight, the extras, then the output.
 */
Array<te::Tensor> KernelArgs(const std::vector<int>* arg_roles, const te::Tensor& data,
                             const te::Tensor& weight, const std::vector<te::Tensor>& extra,
                             const te::Tensor& out) {
  Array<te::Tensor> args;
  if (!arg_roles) {
    args = {data, weight};
    for (const te::Tensor& t : extra) args.push_back(t);
    args.push_back(out);
    return args;
  }
  for (int r : *arg_roles) {
    if (r == -1) {
      args.push_back(data);
    } else if (r == -2) {
      args.push_back(weight);
    } else if (r == -3) {
      args.push_back(out);
    } else {
      args.push_back(extra.at(static_cast<size_t>(r)));
    }
  }
  return args;
}

/*! \brief An epilogue at an output element: (value, extra tensors, o, y, x) -> value. */
using ConvEpilogue = std::function<PrimExpr(const PrimExpr&, const std::vector<te::Tensor>&,
                                            const PrimExpr&, const PrimExpr&, const PrimExpr&)>;

/*!
 * \brief The NCHW output stage "out" [1, O, OH, OW] of every conv kernel: `value(n, o, y, x)`
 * with the epilogue (if any) applied.
 */
te::Tensor OutputStage(const Conv2dShape& s,
                       const std::function<PrimExpr(tir::Var, tir::Var, tir::Var, tir::Var)>& value,
                       const ConvEpilogue* epilogue, const std::vector<te::Tensor>& extra) {
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };
  return te::compute(
      {idx(1), idx(s.o), idx(s.oh), idx(s.ow)},
      [&](tir::Var n, tir::Var o, tir::Var y, tir::Var x) {
        PrimExpr v = value(n, o, y, x);
        return epilogue ? (*epilogue)(v, extra, o, y, x) : v;
      },
      "out");
}

/*! \brief The schedule of a conv kernel's PrimFunc ("main", parameters as KernelArgs orders). */
Schedule KernelSchedule(const std::vector<int>* arg_roles, const te::Tensor& data,
                        const te::Tensor& weight, const std::vector<te::Tensor>& extra,
                        const te::Tensor& out) {
  PrimFunc f = WithAttr(te::CreatePrimFunc(KernelArgs(arg_roles, data, weight, extra, out)),
                        "global_symbol", String("main"));
  return Schedule::Create(IRModule::FromNamed({{"main", f}}));
}

}  // namespace

std::string Conv2dShape::str() const {
  std::ostringstream os;
  os << "Conv2dShape(c=" << c << ", h=" << h << ", w=" << w << ", o=" << o << ", k=" << kh << "x"
     << kw << ", stride=" << sh << "x" << sw << ", dilation=" << dh << "x" << dw << ", pad=" << pt
     << "," << pl << ", out=" << oh << "x" << ow << ")";
  return os.str();
}

std::string Conv2dPlan::str() const {
  std::ostringstream os;
  os << "Conv2dPlan(lanes=" << lanes << ", nr=" << nr << ", mr=" << mr << ", xp=" << xp << ")";
  return os.str();
}

Conv2dPlan DeriveConv2dPlan(const CpuVectorInfo& info, int64_t elem_bits, const Conv2dShape& s) {
  Conv2dPlan p;
  p.lanes = std::max<int64_t>(1, info.vector_bits / std::max<int64_t>(8, elem_bits));
  int64_t regs = std::max<int64_t>(info.vector_registers, 4);
  // Columns: output channels, two vectors as in the GEMM tile (cpu_gemm.cc), fewer when O is
  // narrow. The weight panel is packed so that each k step loads them contiguously.
  int64_t nv = std::clamp<int64_t>(CeilDivI(s.o, p.lanes), 1, 2);
  p.nr = nv * p.lanes;
  // Rows: output pixels of one output row, each a broadcast scalar of the (padded) input, with
  // mr*nv accumulators + nv weight vectors + 1 broadcast <= registers, at most 8 (as the GEMM:
  // 8 on AVX-512, 6 on AVX2). A divisor of OW avoids padding x (and lets the epilogue run in the
  // write-back of the tile); it is taken when it keeps at least half of those rows. ResNet's
  // widths are 112, 56, 28, 14, 7: 8 or 7 rows on AVX-512.
  int64_t max_rows = std::clamp<int64_t>((regs - 1 - nv) / nv, 1, 8);
  int64_t best = 1;
  for (int64_t d = std::min(max_rows, s.ow); d >= 1; --d) {
    if (s.ow % d == 0) {
      best = d;
      break;
    }
  }
  p.mr = (best * 2 >= max_rows || best == s.ow) ? best : std::min(max_rows, s.ow);
  p.xp = CeilDivI(s.ow, p.mr) * p.mr;
  // Weight packing chunk: input channels whose [chunk][KH][KW][nr] block fills half of L1.
  int64_t elem_bytes = std::max<int64_t>(1, elem_bits / 8);
  p.pack_chunk = std::max<int64_t>(1, info.l1d_bytes / 2 / (s.kh * s.kw * p.nr * elem_bytes));
  return p;
}

PrimFunc CpuConv2dPrimFunc(
    const Conv2dShape& s, const Conv2dPlan& plan, DataType dtype,
    const std::vector<std::vector<int64_t>>* extra_shapes,
    const std::function<PrimExpr(const PrimExpr&, const std::vector<te::Tensor>&, const PrimExpr&,
                                 const PrimExpr&, const PrimExpr&)>* epilogue,
    const std::vector<int>* arg_roles) {
  using tir::Var;
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };  // Relax shapes are int64
  const int64_t nr = plan.nr, mr = plan.mr, xp = plan.xp;
  if (nr <= 0 || mr <= 0 || xp % mr != 0 || xp < s.ow) {
    MINITVM_THROW(ValueError) << "CpuConv2dPrimFunc: bad plan " << plan.str() << " for " << s.str();
  }
  const int64_t op = CeilDivI(s.o, nr) * nr;
  const bool padded = op != s.o || xp != s.ow;
  te::Tensor data = te::placeholder({idx(1), idx(s.c), idx(s.h), idx(s.w)}, dtype, "data");
  te::Tensor weight = te::placeholder({idx(s.o), idx(s.c), idx(s.kh), idx(s.kw)}, dtype, "weight");
  std::vector<te::Tensor> extra = ExtraPlaceholders(extra_shapes, dtype);
  // The padded input: exactly the rows and columns the kernel reads (x beyond OW is clamped).
  const int64_t hp = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1;
  const int64_t wp = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  const bool need_pad = s.pt > 0 || s.pl > 0 || hp > s.h || wp > s.w;
  te::Tensor pad;
  if (need_pad) {
    pad = te::compute(
        {idx(s.c), idx(hp), idx(wp)},
        [&](Var c, Var hh, Var ww) -> PrimExpr {
          PrimExpr h = hh - idx(s.pt), w = ww - idx(s.pl);
          PrimExpr inside = h >= idx(0) && h < idx(s.h) && w >= idx(0) && w < idx(s.w);
          return tir::if_then_else(inside, data(idx(0), c, h, w), tir::make_const(dtype, 0));
        },
        "pad");
  }
  auto src = [&](PrimExpr c, PrimExpr h, PrimExpr w) {
    return need_pad ? pad(c, h, w) : data(idx(0), c, h, w);
  };
  // The weights as column panels: packedW[O/nr][C][KH][KW][nr], zero beyond O. Packed per
  // task (plan.row_groups > 0): packedW[C][KH][KW][OP], of which each task computes its panel's
  // nr columns; the conv's index into it, o, stays affine, so CompactBufferAllocation shrinks
  // the task's buffer to the panel (a floordiv(o, nr) index would keep it whole).
  const bool per_task = plan.row_groups > 0;
  te::Tensor packed;
  if (per_task) {
    packed = te::compute(
        {idx(s.c), idx(s.kh), idx(s.kw), idx(op)},
        [&](Var c, Var ry, Var rx, Var o) -> PrimExpr {
          if (op == s.o) return weight(o, c, ry, rx);
          return tir::Select(o < idx(s.o), weight(tir::min(o, idx(s.o - 1)), c, ry, rx),
                             tir::make_const(dtype, 0));
        },
        "packedW");
  } else {
    packed =
        te::compute({idx(op / nr), idx(s.c), idx(s.kh), idx(s.kw), idx(nr)},
                    te::FCompute([&](const Array<Var>& iv) -> PrimExpr {
                      Var oo = iv[0], c = iv[1], ry = iv[2], rx = iv[3], oi = iv[4];
                      PrimExpr o = oo * idx(nr) + oi;
                      if (op == s.o) return weight(o, c, ry, rx);
                      return tir::Select(o < idx(s.o), weight(tir::min(o, idx(s.o - 1)), c, ry, rx),
                                         tir::make_const(dtype, 0));
                    }),
                    "packedW");
  }
  tir::IterVar rc = te::reduce_axis(Range(0, idx(s.c)), "rc");
  tir::IterVar ry = te::reduce_axis(Range(0, idx(s.kh)), "ry");
  tir::IterVar rx = te::reduce_axis(Range(0, idx(s.kw)), "rx");
  // conv[n, y, x, o]: channels last, so that the register tile (and its local buffer) is
  // contiguous along the vectorized channels.
  te::Tensor conv = te::compute(
      {idx(1), idx(s.oh), idx(xp), idx(op)},
      [&](Var n, Var y, Var x, Var o) {
        PrimExpr xx = xp == s.ow ? PrimExpr(x) : tir::min(x, idx(s.ow - 1));
        PrimExpr a =
            src(rc->var, y * idx(s.sh) + ry->var * idx(s.dh), xx * idx(s.sw) + rx->var * idx(s.dw));
        PrimExpr b = per_task ? packed(rc->var, ry->var, rx->var, o)
                              : packed(tir::floordiv(o, idx(nr)), rc->var, ry->var, rx->var,
                                       tir::floormod(o, idx(nr)));
        return te::sum(a * b, {rc, ry, rx});
      },
      "conv");
  te::Tensor out = OutputStage(
      s, [&](Var n, Var o, Var y, Var x) { return conv(n, y, x, o); }, epilogue, extra);
  Schedule sch = KernelSchedule(arg_roles, data, weight, extra, out);
  BlockRV cb = sch->GetBlock("conv");
  Array<LoopRV> loops = sch->GetLoops(cb);  // n, y, x, o, rc, ry, rx
  Array<LoopRV> xs = sch->Split(loops[2], {xp / mr, mr});
  Array<LoopRV> os = sch->Split(loops[3], {op / nr, nr});
  // Packed per task (plan.row_groups > 0): the output rows of a panel in row_groups tasks.
  const int64_t groups = plan.row_groups;
  if (groups > 0 && s.oh % groups != 0) {
    MINITVM_THROW(ValueError) << "CpuConv2dPrimFunc: row_groups " << groups
                              << " does not divide OH " << s.oh;
  }
  LoopRV task = loops[0];
  if (groups > 0) {
    // The weight panel (K x nr) is reused by every row tile of every output row of the task.
    Array<LoopRV> ys = sch->Split(loops[1], {groups, s.oh / groups});
    sch->Reorder(
        {loops[0], os[0], ys[0], ys[1], xs[0], loops[4], loops[5], loops[6], xs[1], os[1]});
    task = sch->Fuse({loops[0], os[0], ys[0]});
    // The panel is packed by the task that uses it, into a K x nr buffer of its own (the
    // runtime's per-thread workspace) that stays in L2 while the task's rows read it: the
    // packed copy never goes to memory and back, which a separate packing pass costs (the
    // weight read, the packed copy written and read again: 3x the weight's bytes per call).
    sch->ComputeAt(sch->GetBlock("packedW"), task, /*preserve_unit_loops=*/true);
  } else {
    // The weight panel (K x nr) is reused by every row tile of every output row of the task.
    sch->Reorder({loops[0], os[0], loops[1], xs[0], loops[4], loops[5], loops[6], xs[1], os[1]});
  }
  BlockRV local = sch->CacheWrite(cb, 0, "local");
  sch->ReverseComputeAt(local, xs[0]);
  // The NCHW output (and the epilogue) in the write-back of the tile when nothing is padded.
  bool fused = false;
  if (!padded) {
    fused = TryApply(&sch, [&](Schedule t) { t->ReverseComputeInline(t->GetBlock("out")); });
  }
  const int64_t work = s.o * s.oh * s.ow * s.c * s.kh * s.kw;
  const bool parallel = work >= (1 << 18);
  // Loop kinds are set while the conv block still has its init: parallel and vectorize want
  // every block below them to be complete or a reduction with its init (TVM's compact-dataflow
  // check), which the update block left by decompose_reduction is not.
  if (groups > 0) {
    if (parallel && (op / nr) * groups >= 2) sch->Parallel(task);
  } else if (parallel && (op / nr) * s.oh >= 2) {
    sch->Parallel(sch->Fuse({loops[0], os[0], loops[1]}));
  }
  if (mr > 1) sch->Unroll(xs[1]);
  sch->Vectorize(os[1]);
  {
    Array<LoopRV> pl = sch->GetLoops(local);
    if (mr > 1) sch->Unroll(pl[pl.size() - 2]);
    sch->Vectorize(pl[pl.size() - 1]);
  }
  BlockRV init = sch->DecomposeReduction(cb, loops[4]);
  TryApply(&sch, [&](Schedule t) {
    Array<LoopRV> pl = t->GetLoops(init);
    if (mr > 1) t->Unroll(pl[pl.size() - 2]);
    t->Vectorize(pl[pl.size() - 1]);
  });
  if (groups > 0) {
    // In the task, per input channel: the KH*KW contiguous weights of each of the nr rows in
    // turn (c, oi, ry, rx). The nr rows are K*4 bytes apart (18 KiB for 512 channels, 3x3), so
    // the fewer bytes read from each before the next, the fewer lines in flight: this order beat
    // the L1-sized channel chunks of the separate pass by 10% on layer4's 3x3 conv (Zen 4,
    // 3.0 against 3.4 ms) and c, ry, rx, oi (gathers, 4.0 ms). Its 1 store per element is
    // the limit left: 0.8 ms of the 3.0 (2.2 ms with the weight bound).
    Array<LoopRV> pl = sch->GetLoops(sch->GetBlock("packedW"));  // task, c, ry, rx, oi
    const size_t d = pl.size();
    sch->Reorder({pl[d - 4], pl[d - 1], pl[d - 3], pl[d - 2]});
  } else {
    Array<LoopRV> pl = sch->GetLoops(sch->GetBlock("packedW"));  // oo, c, ry, rx, oi
    // A blocked transpose: for a chunk of input channels, read the nr weight rows contiguously
    // (c, ry, rx innermost) and write a [chunk][KH][KW][nr] block that stays in half of L1
    // (plan.pack_chunk), instead of striding by nr through the whole K x nr panel.
    int64_t chunk = std::clamp<int64_t>(plan.pack_chunk, 1, s.c);
    while (s.c % chunk != 0) --chunk;
    Array<LoopRV> cs = sch->Split(pl[1], {s.c / chunk, chunk});
    sch->Reorder({pl[0], cs[0], pl[4], cs[1], pl[2], pl[3]});
    // Parallel over (panel, channel chunk): a few panels alone (2 for 64 channels) would give
    // no more tasks than threads, and the runtime balances by handing out tasks.
    if (parallel && (op / nr) * (s.c / chunk) > 1) sch->Parallel(sch->Fuse({pl[0], cs[0]}));
  }
  if (need_pad && parallel) {
    // Parallel over (channel, row): conv1's 3 channels alone would leave one thread of two
    // with twice the work of the other.
    Array<LoopRV> pl = sch->GetLoops(sch->GetBlock("pad"));
    sch->Parallel(sch->Fuse({pl[0], pl[1]}));
  }
  if (!fused) {
    Array<LoopRV> ol = sch->GetLoops(sch->GetBlock("out"));  // n, o, y, x
    if (parallel && s.o > 1) sch->Parallel(ol[1]);
  }
  const auto* scheduled = sch->mod()->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  return WithAttr(GetRef<PrimFunc>(scheduled), "tir.is_scheduled", Any(true));
}

namespace {

/*!
 * \brief The tasks per weight panel of a conv that packs its weight per call (plan.row_groups):
 * each task packs its panel again, so the fewest that give every one of `cores` threads a task
 * (the runtime hands each thread an even share of the tasks): the smallest divisor of OH with
 * panels * groups >= cores. On Zen 4 at 2 threads, 2 or 4 tasks per thread lost 1-2% over
 * ResNet-18's convs (layer2's 3x3: 4-5%) and 8 per thread 2x on layer4 (its P = 49 pixels pay
 * for each repacking of its 590 KB panels).
 */
int64_t Conv2dRowGroups(const Conv2dShape& s, const Conv2dPlan& plan, int64_t cores) {
  const int64_t panels = CeilDivI(s.o, plan.nr);
  for (int64_t g = 1; g <= s.oh; ++g) {
    if (s.oh % g == 0 && panels * g >= cores) return g;
  }
  return s.oh;
}

/*!
 * \brief The row count of the pixel-vector 1x1 tile: a divisor of O that keeps mr*pv
 * accumulators + pv input vectors + 1 broadcast in the registers (at most 8), 0 if none.
 */
int64_t Conv1x1Rows(const CpuVectorInfo& info, int64_t o, int64_t pv) {
  int64_t regs = std::max<int64_t>(info.vector_registers, 4);
  int64_t max_rows = std::clamp<int64_t>((regs - 1 - pv) / pv, 1, 8);
  for (int64_t d = max_rows; d >= 1; --d) {
    if (o % d == 0) return d * 2 >= max_rows ? d : 0;
  }
  return 0;
}

/*!
 * \brief A 1x1, stride-1, unpadded conv2d as the GEMM out[O][P] = W[O][C] x in[C][P] on the NCHW
 * tensors as they are: columns (vectorized) are `vl` pixels of one output row (contiguous in
 * the input and in the output), rows (unrolled) are `mr` output channels whose weights are
 * broadcast scalars. Nothing is packed and the stores are contiguous, which is what the
 * channel-vector tile lacks when C is small (MobileNet's expansions: 16 or 24 channels make a
 * k loop too short to pay for the transposed write-back).
 */
PrimFunc CpuConv1x1PixelPrimFunc(
    const Conv2dShape& s, int64_t mr, int64_t vl, int64_t cores, DataType dtype,
    const std::vector<std::vector<int64_t>>* extra_shapes,
    const std::function<PrimExpr(const PrimExpr&, const std::vector<te::Tensor>&, const PrimExpr&,
                                 const PrimExpr&, const PrimExpr&)>* epilogue,
    const std::vector<int>* arg_roles) {
  using tir::Var;
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };
  te::Tensor data = te::placeholder({idx(1), idx(s.c), idx(s.h), idx(s.w)}, dtype, "data");
  te::Tensor weight = te::placeholder({idx(s.o), idx(s.c), idx(1), idx(1)}, dtype, "weight");
  std::vector<te::Tensor> extra = ExtraPlaceholders(extra_shapes, dtype);
  tir::IterVar rc = te::reduce_axis(Range(0, idx(s.c)), "rc");
  te::Tensor conv = te::compute(
      {idx(1), idx(s.o), idx(s.oh), idx(s.ow)},
      [&](Var n, Var o, Var y, Var x) {
        return te::sum(data(idx(0), rc->var, y, x) * weight(o, rc->var, idx(0), idx(0)), {rc});
      },
      "conv");
  te::Tensor out = OutputStage(
      s, [&](Var n, Var o, Var y, Var x) { return conv(n, o, y, x); }, epilogue, extra);
  Schedule sch = KernelSchedule(arg_roles, data, weight, extra, out);
  BlockRV cb = sch->GetBlock("conv");
  Array<LoopRV> loops = sch->GetLoops(cb);  // n, o, y, x, rc
  Array<LoopRV> os = sch->Split(loops[1], {s.o / mr, mr});
  Array<LoopRV> xs = sch->Split(loops[3], {s.ow / vl, vl});
  // The parallel loop: the channel blocks when there are enough for every core's tasks (the
  // runtime makes 4 per thread: runtime_cpu/thread_pool.h), else the output rows with the
  // blocks inside (MobileNet's 96->24 has 3 blocks: 2 : 1 on two cores, but 56 rows).
  const int64_t blocks = s.o / mr;
  const bool rows_parallel = blocks < 4 * cores && s.oh > blocks;
  // The mr weight rows (mr x C) stay in L1 while the tile walks along the rows of the image
  // (with rows outside, all O x C weights are read per row: L1 or L2 for these short convs).
  if (rows_parallel) {
    sch->Reorder({loops[0], loops[2], os[0], xs[0], loops[4], os[1], xs[1]});
  } else {
    sch->Reorder({loops[0], os[0], loops[2], xs[0], loops[4], os[1], xs[1]});
  }
  BlockRV local = sch->CacheWrite(cb, 0, "local");
  sch->ReverseComputeAt(local, xs[0]);
  TryApply(&sch, [&](Schedule t) { t->ReverseComputeInline(t->GetBlock("out")); });
  const bool parallel = s.o * s.oh * s.ow * s.c >= (1 << 18);
  // Loop kinds before decompose_reduction (the compact-dataflow rule; see CpuConv2dPrimFunc).
  // Parallel over the channel blocks only: fusing the rows in as well would index the local
  // tile with a div/mod of the fused loop, which buffer compaction cannot bound (the tile would
  // stay the size of the whole output instead of mr x vl registers).
  if (parallel && rows_parallel) {
    sch->Parallel(sch->Fuse({loops[0], loops[2]}));
  } else if (parallel && blocks > 1) {
    sch->Parallel(sch->Fuse({loops[0], os[0]}));
  }
  if (mr > 1) sch->Unroll(os[1]);
  sch->Vectorize(xs[1]);
  {
    Array<LoopRV> pl = sch->GetLoops(local);
    if (mr > 1) sch->Unroll(pl[pl.size() - 2]);
    sch->Vectorize(pl[pl.size() - 1]);
  }
  BlockRV init = sch->DecomposeReduction(cb, loops[4]);
  TryApply(&sch, [&](Schedule t) {
    Array<LoopRV> pl = t->GetLoops(init);
    if (mr > 1) t->Unroll(pl[pl.size() - 2]);
    t->Vectorize(pl[pl.size() - 1]);
  });
  const auto* scheduled = sch->mod()->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  return WithAttr(GetRef<PrimFunc>(scheduled), "tir.is_scheduled", Any(true));
}

}  // namespace

std::string DepthwisePlan::str() const {
  std::ostringstream os;
  os << "DepthwisePlan(lanes=" << lanes << ", vl=" << vl << ")";
  return os.str();
}

DepthwisePlan DeriveDepthwisePlan(const CpuVectorInfo& info, int64_t elem_bits,
                                  const Conv2dShape& s) {
  DepthwisePlan p;
  p.lanes = std::max<int64_t>(1, info.vector_bits / std::max<int64_t>(8, elem_bits));
  // A depthwise conv does KH*KW multiply-adds per output and reads each input about
  // KH*KW/(sh*sw) times from L1: it is bound by loads, not FMAs, so the tile only has to keep
  // the vector units busy along x. NCHW makes x the contiguous dimension of both the output
  // and (after the stride-phase padding) every tap's input, so x is the vector dimension.
  // vl divides OW, so there is no tail and no masked store; up to two machine vectors (LLVM
  // splits a wider-than-native vector into native ones), so that 56 = 3.5 AVX-512 vectors
  // becomes 2 x 28 instead of a 16-wide loop with an 8-wide tail. Widths 14 and 7 (MobileNet's
  // last stages) are one vector per output row.
  int64_t cap = 2 * p.lanes;
  p.vl = 1;
  for (int64_t d = std::min(cap, s.ow); d >= 1; --d) {
    if (s.ow % d == 0) {
      p.vl = d;
      break;
    }
  }
  return p;
}

PrimFunc CpuDepthwiseConv2dPrimFunc(
    const Conv2dShape& s, const DepthwisePlan& plan, DataType dtype,
    const std::vector<std::vector<int64_t>>* extra_shapes,
    const std::function<PrimExpr(const PrimExpr&, const std::vector<te::Tensor>&, const PrimExpr&,
                                 const PrimExpr&, const PrimExpr&)>* epilogue,
    const std::vector<int>* arg_roles) {
  using tir::Var;
  auto idx = [](int64_t v) { return IntImm(DataType::Int(64), v); };
  const int64_t vl = plan.vl;
  if (vl <= 0 || s.ow % vl != 0 || s.o != s.c) {
    MINITVM_THROW(ValueError) << "CpuDepthwiseConv2dPrimFunc: bad plan " << plan.str() << " for "
                              << s.str() << " (vl must divide OW, C must equal O)";
  }
  te::Tensor data = te::placeholder({idx(1), idx(s.c), idx(s.h), idx(s.w)}, dtype, "data");
  te::Tensor weight = te::placeholder({idx(s.c), idx(1), idx(s.kh), idx(s.kw)}, dtype, "weight");
  std::vector<te::Tensor> extra = ExtraPlaceholders(extra_shapes, dtype);
  // Rows and columns of the (virtually) padded input that the kernel reads.
  const int64_t hp = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1;
  const int64_t wp = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  const bool need_pad = s.pt > 0 || s.pl > 0 || hp > s.h || wp > s.w || s.sw > 1;
  // pad[c][hh][ph][j] = padded input at column j*sw + ph: the tap rx reads phase
  // (rx*dw) % sw at j = x + (rx*dw) / sw, contiguous in x for every stride.
  const int64_t wq = s.ow + ((s.kw - 1) * s.dw) / s.sw;
  te::Tensor pad;
  if (need_pad) {
    pad = te::compute(
        {idx(s.c), idx(hp), idx(s.sw), idx(wq)},
        te::FCompute([&](const Array<Var>& iv) -> PrimExpr {
          PrimExpr h = iv[1] - idx(s.pt);
          PrimExpr w = iv[3] * idx(s.sw) + iv[2] - idx(s.pl);
          PrimExpr inside = h >= idx(0) && h < idx(s.h) && w >= idx(0) && w < idx(s.w);
          return tir::if_then_else(inside, data(idx(0), iv[0], h, w), tir::make_const(dtype, 0));
        }),
        "pad");
  }
  // One spatial block: the KH*KW taps are written out (they are few), so there is no
  // reduction, no init and no accumulator buffer; each tap is a vector FMA along x.
  te::Tensor out = OutputStage(
      s,
      [&](Var n, Var o, Var y, Var x) {
        PrimExpr acc;
        for (int64_t ry = 0; ry < s.kh; ++ry) {
          for (int64_t rx = 0; rx < s.kw; ++rx) {
            PrimExpr h = y * idx(s.sh) + idx(ry * s.dh);
            PrimExpr a = need_pad ? pad(o, h, idx((rx * s.dw) % s.sw), x + idx((rx * s.dw) / s.sw))
                                  : data(idx(0), o, h, x + idx(rx * s.dw));
            PrimExpr t = a * weight(o, idx(0), idx(ry), idx(rx));
            acc = acc.defined() ? acc + t : t;
          }
        }
        return acc;
      },
      epilogue, extra);
  Schedule sch = KernelSchedule(arg_roles, data, weight, extra, out);
  const int64_t work = s.o * s.oh * s.ow * s.kh * s.kw;
  const bool parallel = work >= (1 << 16);
  {
    BlockRV ob = sch->GetBlock("out");
    Array<LoopRV> loops = sch->GetLoops(ob);  // n, o, y, x
    Array<LoopRV> xs = sch->Split(loops[3], {s.ow / vl, vl});
    LoopRV co = sch->Fuse({loops[0], loops[1]});
    // The padded plane of one channel is made right before the channel's rows read it, so
    // it is written and read in L2 (one channel of a 112x112 input: 51 KiB) instead of
    // round-tripping the whole padded tensor through memory.
    if (need_pad) sch->ComputeAt(sch->GetBlock("pad"), co);
    if (parallel && s.o > 1) sch->Parallel(co);
    if (vl > 1) sch->Vectorize(xs[1]);
  }
  const auto* scheduled = sch->mod()->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  return WithAttr(GetRef<PrimFunc>(scheduled), "tir.is_scheduled", Any(true));
}

namespace {

bool IsZeroValue(const PrimExpr& e) {
  if (const auto* f = e.as<FloatImmNode>()) return f->value == 0.0;
  if (const auto* i = e.as<IntImmNode>()) return i->value == 0;
  return false;
}

/*! \brief `e - v` as a constant (nullopt when it is not one). */
std::optional<int64_t> OffsetFrom(arith::Analyzer* ana, const PrimExpr& e, const tir::VarNode* v) {
  PrimExpr var = GetRef<tir::Var>(v);
  return AsConstInt(ana->Simplify(e - var));
}

/*!
 * \brief For `e` = a*s + b*d (a, b variables), the constants (s, d); nullopt otherwise.
 */
std::optional<std::pair<int64_t, int64_t>> AffinePair(arith::Analyzer* ana, const PrimExpr& e,
                                                      const tir::VarNode* a,
                                                      const tir::VarNode* b) {
  tir::Var va = GetRef<tir::Var>(a), vb = GetRef<tir::Var>(b);
  auto at = [&](int64_t x, int64_t y) {
    Map<tir::Var, PrimExpr> m;
    m.Set(va, IntImm(va.dtype(), x));
    m.Set(vb, IntImm(vb.dtype(), y));
    return AsConstInt(ana->Simplify(tir::Substitute(e, m)));
  };
  auto z = at(0, 0), sa = at(1, 0), sb = at(0, 1);
  if (!z || !sa || !sb || *z != 0) return std::nullopt;
  int64_t s = *sa, d = *sb;
  if (s <= 0 || d < 0) return std::nullopt;
  PrimExpr rest = ana->Simplify(
      e - (PrimExpr(va) * IntImm(va.dtype(), s) + PrimExpr(vb) * IntImm(vb.dtype(), d)));
  auto r = AsConstInt(rest);
  if (!r || *r != 0) return std::nullopt;
  return std::make_pair(s, d);
}

}  // namespace

std::optional<PrimFunc> ScheduleConv2dRule(const PrimFunc& func, const target::Target& target) {
  const auto* root = func->body.as<tir::BlockRealizeNode>();
  if (!root || func->params.size() < 3) return std::nullopt;
  std::vector<const tir::BlockRealizeNode*> realizes;
  tir::PostOrderVisit(root->block->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<tir::BlockRealizeNode>()) realizes.push_back(b);
  });
  size_t ci = 0;
  while (ci < realizes.size() && !realizes[ci]->block->init.defined()) ++ci;
  if (ci >= realizes.size() || ci > 1) return std::nullopt;
  std::vector<tir::Buffer> params;
  for (const tir::Var& v : func->params) {
    auto b = func->buffer_map.Get(v);
    if (!b) return std::nullopt;
    params.push_back(*b);
  }
  auto is_param = [&](const tir::Buffer& b) {
    return std::any_of(params.begin(), params.end(),
                       [&](const tir::Buffer& p) { return p.same_as(b); });
  };
  // The conv block: out[v0,v1,v2,v3] += src[v0, r0, v2*sh + r1*dh, v3*sw + r2*dw] * W[v1,r0,r1,r2].
  const tir::BlockNode* block = realizes[ci]->block.get();
  if (block->iter_vars.size() != 7) return std::nullopt;
  std::vector<const tir::VarNode*> v;
  for (size_t i = 0; i < 7; ++i) {
    if (block->iter_vars[i]->iter_type != (i < 4 ? tir::kDataPar : tir::kCommReduce)) {
      return std::nullopt;
    }
    v.push_back(block->iter_vars[i]->var.get());
  }
  const auto* store = block->body.as<tir::BufferStoreNode>();
  if (!store) return std::nullopt;
  tir::Buffer cbuf = store->buffer;
  std::vector<const tir::VarNode*> sp(v.begin(), v.begin() + 4);
  if (store->indices.size() != 4) return std::nullopt;
  for (size_t i = 0; i < 4; ++i) {
    if (store->indices[i].get() != sp[i]) return std::nullopt;
  }
  const auto* add = store->value.as<tir::AddNode>();
  if (!add || !IsLoadAt(add->a.as<tir::BufferLoadNode>(), cbuf, sp)) return std::nullopt;
  const auto* mul = add->b.as<tir::MulNode>();
  if (!mul) return std::nullopt;
  const auto* init = block->init.as<tir::BufferStoreNode>();
  if (!init || !init->buffer.same_as(cbuf) || !IsZeroValue(init->value)) return std::nullopt;
  const auto* la = mul->a.as<tir::BufferLoadNode>();
  const auto* lb = mul->b.as<tir::BufferLoadNode>();
  if (!la || !lb) return std::nullopt;
  std::vector<const tir::VarNode*> wvars{v[1], v[4], v[5], v[6]};
  const tir::BufferLoadNode* wload = nullptr;
  const tir::BufferLoadNode* sload = nullptr;
  if (IsLoadAt(lb, lb->buffer, wvars) && is_param(lb->buffer)) {
    wload = lb;
    sload = la;
  } else if (IsLoadAt(la, la->buffer, wvars) && is_param(la->buffer)) {
    wload = la;
    sload = lb;
  } else {
    return std::nullopt;
  }
  if (sload->indices.size() != 4 || sload->indices[0].get() != v[0]) return std::nullopt;
  arith::Analyzer ana;
  // The input channel: rc (a dense conv) or o + rc with rc of extent 1 (depthwise, what
  // LegalizeOps makes of groups = channels).
  bool depthwise = false;
  if (sload->indices[1].get() != v[4]) {
    PrimExpr rest =
        ana.Simplify(sload->indices[1] - GetRef<tir::Var>(v[1]) - GetRef<tir::Var>(v[4]));
    auto r = AsConstInt(rest);
    auto ext = AsConstInt(block->iter_vars[4]->dom->extent);
    if (!r || *r != 0 || !ext || *ext != 1) return std::nullopt;
    depthwise = true;
  }
  auto hpair = AffinePair(&ana, sload->indices[2], v[2], v[5]);
  auto wpair = AffinePair(&ana, sload->indices[3], v[3], v[6]);
  if (!hpair || !wpair) return std::nullopt;
  tir::Buffer wbuf = wload->buffer;
  tir::Buffer dbuf = sload->buffer;
  Conv2dShape s;
  s.sh = hpair->first;
  s.dh = hpair->second;
  s.sw = wpair->first;
  s.dw = wpair->second;
  if (ci == 1) {
    // The pad block: src[u0,u1,u2,u3] = if_then_else(cond, data[u0, u1, u2 - pt, u3 - pl], 0).
    const tir::BlockNode* pb = realizes[0]->block.get();
    const auto* pst = pb->body.as<tir::BufferStoreNode>();
    if (!pst || !pst->buffer.same_as(dbuf) || pb->iter_vars.size() != 4) return std::nullopt;
    std::vector<const tir::VarNode*> u;
    for (const tir::IterVar& iv : pb->iter_vars) {
      if (iv->iter_type != tir::kDataPar) return std::nullopt;
      u.push_back(iv->var.get());
    }
    for (size_t i = 0; i < 4; ++i) {
      if (pst->indices[i].get() != u[i]) return std::nullopt;
    }
    const auto* call = pst->value.as<tir::CallNode>();
    if (!call || call->op != "tir.if_then_else" || call->args.size() != 3 ||
        !IsZeroValue(call->args[2])) {
      return std::nullopt;
    }
    const auto* dl = call->args[1].as<tir::BufferLoadNode>();
    if (!dl || !is_param(dl->buffer) || dl->indices.size() != 4) return std::nullopt;
    auto o0 = OffsetFrom(&ana, dl->indices[0], u[0]), o1 = OffsetFrom(&ana, dl->indices[1], u[1]);
    auto o2 = OffsetFrom(&ana, dl->indices[2], u[2]), o3 = OffsetFrom(&ana, dl->indices[3], u[3]);
    if (!o0 || !o1 || !o2 || !o3 || *o0 != 0 || *o1 != 0 || *o2 > 0 || *o3 > 0) {
      return std::nullopt;
    }
    s.pt = -*o2;
    s.pl = -*o3;
    dbuf = dl->buffer;
  } else if (!is_param(dbuf)) {
    return std::nullopt;
  }
  if (dbuf.same_as(wbuf)) return std::nullopt;
  DataType dtype = cbuf->dtype;
  if (!dtype.is_float() || dtype.lanes() != 1 || dbuf->dtype != dtype || wbuf->dtype != dtype) {
    return std::nullopt;
  }
  auto dims = [](const tir::Buffer& b) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> out;
    for (const PrimExpr& d : b->shape) {
      auto c = AsConstInt(d);
      if (!c) return std::nullopt;
      out.push_back(*c);
    }
    return out;
  };
  auto dshape = dims(dbuf), wshape = dims(wbuf);
  if (!dshape || !wshape || dshape->size() != 4 || wshape->size() != 4) return std::nullopt;
  std::vector<int64_t> oshape;
  for (size_t i = 0; i < 4; ++i) {
    auto e = AsConstInt(block->iter_vars[i]->dom->extent);
    auto m = AsConstInt(block->iter_vars[i]->dom->min);
    if (!e || !m || *m != 0) return std::nullopt;
    oshape.push_back(*e);
  }
  for (size_t i = 4; i < 7; ++i) {
    auto e = AsConstInt(block->iter_vars[i]->dom->extent);
    auto m = AsConstInt(block->iter_vars[i]->dom->min);
    if (!e || !m || *m != 0 || *e != (*wshape)[i - 3]) return std::nullopt;
  }
  if ((*dshape)[0] != 1 || oshape[0] != 1 || oshape[1] != (*wshape)[0]) return std::nullopt;
  if (depthwise ? ((*wshape)[1] != 1 || (*dshape)[1] != oshape[1]) : (*dshape)[1] != (*wshape)[1]) {
    return std::nullopt;
  }
  s.c = (*dshape)[1];
  s.h = (*dshape)[2];
  s.w = (*dshape)[3];
  s.o = (*wshape)[0];
  s.kh = (*wshape)[2];
  s.kw = (*wshape)[3];
  s.oh = oshape[2];
  s.ow = oshape[3];
  // A kernel extent of 1 may leave its (zero) reduction variable out of the index.
  if (s.dh == 0 && s.kh == 1) s.dh = 1;
  if (s.dw == 0 && s.kw == 1) s.dw = 1;
  if (s.dh <= 0 || s.dw <= 0) return std::nullopt;
  // The epilogue blocks over [1, O, OH, OW].
  const tir::Buffer& out_buf = params.back();
  std::vector<tir::Buffer> extra_bufs;
  std::vector<int> roles;
  for (const tir::Buffer& p : params) {
    if (p.same_as(dbuf)) {
      roles.push_back(-1);
    } else if (p.same_as(wbuf)) {
      roles.push_back(-2);
    } else if (p.same_as(out_buf)) {
      roles.push_back(-3);
    } else {
      roles.push_back(static_cast<int>(extra_bufs.size()));
      extra_bufs.push_back(p);
    }
  }
  if (std::count(roles.begin(), roles.end(), -1) != 1 ||
      std::count(roles.begin(), roles.end(), -2) != 1 ||
      std::count(roles.begin(), roles.end(), -3) != 1) {
    return std::nullopt;
  }
  std::optional<ElementwiseEpilogue> steps =
      ElementwiseEpilogue::Collect(realizes, ci + 1, oshape, cbuf, extra_bufs);
  if (!steps) return std::nullopt;
  if (steps->empty()) {
    if (!cbuf.same_as(out_buf) || !extra_bufs.empty()) return std::nullopt;
  } else if (!steps->result().same_as(out_buf) || cbuf.same_as(out_buf)) {
    return std::nullopt;
  }
  for (const tir::Buffer& e : extra_bufs) {
    if (e->dtype != dtype || !dims(e)) return std::nullopt;
  }
  CpuVectorInfo info = GetCpuVectorInfo(target);
  // What every kernel below takes: the extra tensors' shapes and the epilogue at an output
  // index (n = 0, o, y, x).
  std::vector<std::vector<int64_t>> extra_shapes;
  for (const tir::Buffer& e : extra_bufs) extra_shapes.push_back(*dims(e));
  std::function<PrimExpr(const PrimExpr&, const std::vector<te::Tensor>&, const PrimExpr&,
                         const PrimExpr&, const PrimExpr&)>
      epi = [steps = *steps](const PrimExpr& prod, const std::vector<te::Tensor>& extra,
                             const PrimExpr& o, const PrimExpr& y, const PrimExpr& x) {
        return steps.Apply(prod, extra, {IntImm(o.dtype(), 0), o, y, x});
      };
  const auto* epilogue = steps->empty() ? nullptr : &epi;
  auto scheduled = [&](PrimFunc out) {
    out.CopyOnWrite()->attrs = func->attrs;
    return WithAttr(out, "tir.is_scheduled", Any(true));
  };
  if (depthwise) {
    // Taps written out in one expression: keep it to the usual kernel sizes.
    if (s.kh * s.kw > 49 || s.o * s.oh * s.ow * s.kh * s.kw < (1 << 12)) return std::nullopt;
    DepthwisePlan plan = DeriveDepthwisePlan(info, dtype.bits(), s);
    if (plan.lanes < 4) return std::nullopt;
    return scheduled(CpuDepthwiseConv2dPrimFunc(s, plan, dtype, &extra_shapes, epilogue, &roles));
  }
  if (s.o * s.oh * s.ow * s.c * s.kh * s.kw < (1 << 15)) return std::nullopt;
  // 1x1, stride 1, no padding, rows at least a vector wide: the pixel-vector GEMM.
  if (s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 && s.pl == 0 && s.oh == s.h &&
      s.ow == s.w) {
    int64_t lanes = std::max<int64_t>(1, info.vector_bits / std::max<int64_t>(8, dtype.bits()));
    int64_t vl = s.ow % lanes == 0 ? lanes : (s.ow % (lanes / 2) == 0 ? lanes / 2 : 0);
    int64_t mr = vl > 0 ? Conv1x1Rows(info, s.o, 1) : 0;
    if (lanes >= 8 && vl >= 4 && mr > 0) {
      // The cores the kernel will run on: the target's num-cores, else the runtime's threads.
      int64_t cores = target->GetAttr<int64_t>("num-cores")
                          .value_or(runtime_cpu::ThreadPool::DefaultNumThreads());
      return scheduled(
          CpuConv1x1PixelPrimFunc(s, mr, vl, cores, dtype, &extra_shapes, epilogue, &roles));
    }
  }
  Conv2dPlan plan = DeriveConv2dPlan(info, dtype.bits(), s);
  if (plan.lanes < 4) return std::nullopt;
  if (!IsLayoutFreeBuffer(func, wbuf)) {
    int64_t cores = target->GetAttr<int64_t>("num-cores")
                        .value_or(runtime_cpu::ThreadPool::DefaultNumThreads());
    plan.row_groups = Conv2dRowGroups(s, plan, cores);
  }
  PrimFunc conv = scheduled(CpuConv2dPrimFunc(s, plan, dtype, &extra_shapes, epilogue, &roles));
  // A constant weight (listed in "layout_free_buffers"): the panel packing is marked as
  // layout-rewrite preprocessing, which SplitLayoutRewritePreproc moves out of the kernel and
  // FoldConstant runs once at compile time (layout_rewrite.h).
  if (IsLayoutFreeBuffer(func, wbuf)) conv = MarkLayoutRewritePreproc(conv, "packedW");
  return conv;
}

MINITVM_REGISTER_GLOBAL("relax.backend.DeriveConv2dPlan")
    .set_body_typed([](target::Target t, Array<PrimExpr> shape) {
      // shape: c, h, w, o, kh, kw, sh, sw, pt, pl, oh, ow
      if (shape.size() != 12) {
        MINITVM_THROW(ValueError) << "DeriveConv2dPlan: expects 12 sizes (c, h, w, o, kh, kw, "
                                     "sh, sw, pt, pl, oh, ow), got "
                                  << shape.size();
      }
      Conv2dShape s;
      int64_t* f[] = {&s.c,  &s.h,  &s.w,  &s.o,  &s.kh, &s.kw,
                      &s.sh, &s.sw, &s.pt, &s.pl, &s.oh, &s.ow};
      for (size_t i = 0; i < 12; ++i) {
        auto v = AsConstInt(shape[i]);
        if (!v || *v < 0 || (*v == 0 && i != 8 && i != 9)) {
          MINITVM_THROW(ValueError) << "DeriveConv2dPlan: size " << i << " must be a positive "
                                    << "integer";
        }
        *f[i] = *v;
      }
      Conv2dPlan p = DeriveConv2dPlan(GetCpuVectorInfo(t), 32, s);
      Map<String, Any> out;
      out.Set(String("lanes"), Any(p.lanes));
      out.Set(String("nr"), Any(p.nr));
      out.Set(String("mr"), Any(p.mr));
      out.Set(String("xp"), Any(p.xp));
      return out;
    });
MINITVM_REGISTER_GLOBAL("relax.backend.DeriveDepthwisePlan")
    .set_body_typed([](target::Target t, int64_t ow) {
      if (ow <= 0) {
        MINITVM_THROW(ValueError) << "DeriveDepthwisePlan: the output width must be positive, got "
                                  << ow;
      }
      Conv2dShape s;
      s.ow = ow;
      DepthwisePlan p = DeriveDepthwisePlan(GetCpuVectorInfo(t), 32, s);
      Map<String, Any> out;
      out.Set(String("lanes"), Any(p.lanes));
      out.Set(String("vl"), Any(p.vl));
      return out;
    });
MINITVM_REGISTER_GLOBAL("relax.backend.ScheduleConv2dRule")
    .set_body_typed([](PrimFunc f, target::Target t) -> Any {
      auto r = ScheduleConv2dRule(f, t);
      if (!r) return Any();
      return Any(*r);
    });

}  // namespace relax_vm
}  // namespace minitvm
