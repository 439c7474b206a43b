/*!
 * \file default_schedule.cc
 * \brief The CPU default schedule of stage 5 ("relax.transform.DefaultCPUSchedule"): see
 * minitvm/relax_vm/default_schedule.h. Per PrimFunc:
 *  1. inline the spatial blocks that write an intermediate buffer into their spatial consumers
 *     (the elementwise chains FuseTIR leaves: add → relu);
 *  2. per remaining block, on a copy of the schedule (kept only when every step succeeds):
 *     - spatial block: split the innermost loop by the vector width and vectorize the inner
 *       part; when an access is strided along it (a transpose), tile the last two loops 16x16
 *       instead; the outer loops run in parallel;
 *     - reduction block (matmul, conv2d, pooling, softmax's sums): split a spatial loop into a
 *       vectorized column tile and another into an unrolled row tile, move both inside the
 *       reduction loops, accumulate in a local tile (cache_write + decompose_reduction: the
 *       accumulators live in registers), the outer spatial loops parallel; when that fails, the
 *       same without the local tile, then parallel only.
 * A plain matmul or dense (one reduction block, float, static shapes) is replaced first by the
 * GEMM of cpu_gemm.h: B packed into panels, a register tile derived from the target's vector
 * width and register count, row blocks sized for L2, ragged edges padded.
 * A conv2d NCHW with batch 1 (with FuseTIR's bias / ReLU / residual blocks) goes next to the
 * conv rule of cpu_conv.h: the same register tile over an implicit im2col (weights packed into
 * channel panels, input pixels broadcast).
 * Otherwise tile sizes follow the target's vector width (TargetNode::VectorWidthBits): 8 rows x 2
 * vectors for AVX-512 (16 zmm accumulators), 4 x 2 for AVX2 and SSE. A loop is vectorized only
 * when every access is contiguous or invariant along it; a reduction may also load with a small
 * constant stride (stride-2 convolutions: gathered lane by lane) when the row tile reuses each
 * gathered vector. The row loop is chosen so that it does not move the vector loads (the
 * output channel of a convolution, the row of a matmul). Small kernels stay serial (a thread
 * launch costs more than it saves); only the shortest prefix of outer loops that gives enough
 * parallel iterations is fused.
 */
#include "minitvm/relax_vm/default_schedule.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "minitvm/arith/analyzer.h"
#include "minitvm/ir/function.h"
#include "minitvm/relax_vm/cpu_conv.h"
#include "minitvm/relax_vm/cpu_gemm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/schedule.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax_vm {

using tir::Block;
using tir::BlockRealizeNode;
using tir::BlockRV;
using tir::LoopRV;
using tir::PrimFunc;
using tir::Schedule;

namespace {

/*! \brief Work (iterations times reduction length) below which a kernel stays serial. */
constexpr int64_t kMinParallelWork = 1 << 15;
/*! \brief Iterations of the parallel loop to aim for (a few tasks per thread). */
constexpr int64_t kMinParallelTasks = 16;
/*! \brief Elements below which a strided copy is not tiled. */
constexpr int64_t kMinTileWork = 1 << 12;

bool UsesVar(const PrimExpr& e, const tir::VarNode* v) {
  bool found = false;
  tir::PostOrderVisit(e, [&](const ObjectRef& n) {
    if (n.get() == v) found = true;
  });
  return found;
}

std::optional<int64_t> ConstExtent(const tir::For& loop) {
  if (const auto* imm = loop->extent.as<IntImmNode>()) {
    if (const auto* mn = loop->min.as<IntImmNode>(); mn && mn->value == 0) return imm->value;
  }
  return std::nullopt;
}

/*! \brief The BlockRealize of block `name` in the function "main" of `mod`. */
const BlockRealizeNode* FindRealize(const IRModule& mod, const std::string& name) {
  const auto* f = mod->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  const BlockRealizeNode* out = nullptr;
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* r = n.as<BlockRealizeNode>(); r && r->block->name_hint == name) out = r;
  });
  return out;
}

/*! \brief Names of the blocks of "main" (not the root block), in program order. */
std::vector<std::string> BlockNames(const IRModule& mod) {
  const auto* f = mod->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  std::vector<std::string> names;
  const tir::BlockNode* root = nullptr;
  if (const auto* r = f->body.as<BlockRealizeNode>()) root = r->block.get();
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<tir::BlockNode>(); b && b != root) names.push_back(b->name_hint);
  });
  return names;
}

bool IsSpatialBlock(const Block& b) {
  for (const tir::IterVar& iv : b->iter_vars) {
    if (iv->iter_type != tir::kDataPar) return false;
  }
  return true;
}

/*!
 * \brief Whether every buffer access of `block` is contiguous (last index = v + invariant, other
 * indices invariant) or invariant along block iterator `v`. With `strided_loads`, loads may also
 * step by a small constant (a stride-2 convolution's input: gathered lane by lane, worth it only
 * when a register tile reuses each gathered vector).
 */
bool ContiguousAlong(const Block& block, const tir::VarNode* v, bool strided_loads = false) {
  arith::Analyzer ana;
  bool ok = true;
  PrimExpr var = GetRef<tir::Var>(v);
  auto check = [&](const Array<PrimExpr>& indices, bool is_load) {
    for (size_t i = 0; i < indices.size(); ++i) {
      if (!UsesVar(indices[i], v)) continue;
      if (i + 1 != indices.size()) {
        ok = false;
        return;
      }
      bool found = false;
      for (int64_t c = 1; c <= (strided_loads && is_load ? 4 : 1) && !found; ++c) {
        PrimExpr rest = ana.Simplify(indices[i] - var * IntImm(var.dtype(), c));
        found = !UsesVar(rest, v);
      }
      if (!found) ok = false;
    }
  };
  auto visit = [&](const ObjectRef& n) {
    if (const auto* load = n.as<tir::BufferLoadNode>()) check(load->indices, true);
    if (const auto* store = n.as<tir::BufferStoreNode>()) check(store->indices, false);
    // Conditions on v inside the body (padding) vectorize as selects. Nested blocks are not
    // expected here.
    if (n.as<tir::BlockNode>()) ok = false;
  };
  tir::PostOrderVisit(block->body, visit);
  if (block->init.defined()) tir::PostOrderVisit(block->init, visit);
  return ok;
}

/*! \brief What the loops above a block are: for each loop, its block iterator (or null). */
struct LoopInfo {
  std::vector<LoopRV> loops;
  std::vector<int64_t> extents;
  std::vector<bool> reduce;
  std::vector<const tir::VarNode*> iter;  // the block iterator bound to exactly this loop
};

/*! \brief Describe the loops of block `b` (nullopt: a binding the schedule does not handle). */
std::optional<LoopInfo> DescribeLoops(Schedule sch, const BlockRV& b, const std::string& name) {
  const BlockRealizeNode* realize = FindRealize(sch->mod(), name);
  if (!realize) return std::nullopt;
  const Block& block = realize->block;
  LoopInfo info;
  Array<LoopRV> loops = sch->GetLoops(b);
  for (const LoopRV& rv : loops) {
    tir::For loop = sch->Get(rv);
    if (loop->kind != tir::ForKind::kSerial) return std::nullopt;
    auto ext = ConstExtent(loop);
    if (!ext) return std::nullopt;
    bool reduce = false;
    const tir::VarNode* iter = nullptr;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const PrimExpr& value = realize->iter_values[i];
      if (!UsesVar(value, loop->loop_var.get())) continue;
      tir::IterVarType t = block->iter_vars[i]->iter_type;
      if (t != tir::kDataPar && t != tir::kCommReduce) return std::nullopt;
      if (t == tir::kCommReduce) reduce = true;
      if (value.get() == loop->loop_var.get()) iter = block->iter_vars[i]->var.get();
    }
    info.loops.push_back(rv);
    info.extents.push_back(*ext);
    info.reduce.push_back(reduce);
    info.iter.push_back(iter);
  }
  return info;
}

/*! \brief The register tile for a vector width: rows (unrolled) × columns (vectorized). */
struct Tile {
  int64_t rows;
  int64_t cols;
};

Tile TileFor(int64_t lanes) {
  // Two vectors per row; 8 rows with 32 registers (AVX-512), 4 with 16 (AVX2 and below).
  return lanes >= 16 ? Tile{8, 2 * lanes} : Tile{4, 2 * lanes};
}

/*!
 * \brief The vector factor for an extent: `preferred`, else `lanes`, else a divisor filling more
 * than half a register, else a power of two >= 4 that divides it, else the whole extent when it
 * is short (a vector of 7 or 10 elements, which LLVM widens to the register size), else 0.
 */
int64_t VectorFactor(int64_t extent, int64_t preferred, int64_t lanes) {
  if (preferred > 0 && extent % preferred == 0) return preferred;
  int64_t best = 0;
  for (int64_t f = lanes; f >= 4; f /= 2) {
    if (extent % f == 0) {
      best = f;
      break;
    }
  }
  if (best == lanes || lanes < 4) return best;
  // A divisor that fills most of one register (14 of 16 lanes for 28 or 56) beats a short
  // power of two; a short loop may be one vector as a whole.
  for (int64_t f = lanes - 1; f > lanes / 2 && f > best; --f) {
    if (extent % f == 0) return f;
  }
  int64_t limit = std::max(preferred, lanes);
  if (best == 0 && extent >= 4 && extent <= limit) return extent;
  return best;
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

/*!
 * \brief Make the outer loops `outer` (a chain, outermost first) parallel when the kernel is big
 * enough: the shortest prefix with at least kMinParallelTasks iterations is fused (fusing more
 * only adds index arithmetic) and made parallel.
 */
void ParallelOuter(Schedule sch, const std::vector<LoopRV>& outer,
                   const std::vector<int64_t>& extents, int64_t work) {
  if (outer.empty() || work < kMinParallelWork) return;
  std::vector<LoopRV> prefix;
  int64_t iters = 1;
  for (size_t i = 0; i < outer.size() && iters < kMinParallelTasks; ++i) {
    prefix.push_back(outer[i]);
    iters *= extents[i];
  }
  if (iters < 2) return;
  LoopRV fused = prefix.size() == 1 ? prefix[0] : sch->Fuse(Array<LoopRV>(prefix));
  sch->Parallel(fused);
}

/*!
 * \brief Spatial block: vectorized innermost loop (or, when an access is strided along it, a
 * 2-D cache tile of the last two loops: transposes), outer loops parallel.
 */
void ScheduleSpatial(Schedule sch, const BlockRV& b, const Block& block, const LoopInfo& info,
                     int64_t lanes) {
  size_t n = info.loops.size();
  if (n == 0) return;
  int64_t work = Product(info.extents);
  std::vector<LoopRV> outer(info.loops.begin(), info.loops.end() - 1);
  std::vector<int64_t> extents(info.extents.begin(), info.extents.end() - 1);
  int64_t last = info.extents[n - 1];
  bool contiguous = info.iter[n - 1] && ContiguousAlong(block, info.iter[n - 1]);
  int64_t v = contiguous ? VectorFactor(last, 4 * lanes, lanes) : 0;
  if (v > 0) {
    Array<LoopRV> parts = sch->Split(info.loops[n - 1], {std::nullopt, v});
    sch->Vectorize(parts[1]);
    outer.push_back(parts[0]);
    extents.push_back(last / v);
  } else if (!contiguous && n >= 2 && last % 8 == 0 && info.extents[n - 2] % 8 == 0 &&
             work >= kMinTileWork) {
    int64_t ta = info.extents[n - 2] % 16 == 0 ? 16 : 8;
    int64_t tb = last % 16 == 0 ? 16 : 8;
    Array<LoopRV> a = sch->Split(info.loops[n - 2], {std::nullopt, ta});
    Array<LoopRV> c = sch->Split(info.loops[n - 1], {std::nullopt, tb});
    sch->Reorder({a[0], c[0], a[1], c[1]});
    outer.pop_back();
    extents.pop_back();
    outer.push_back(a[0]);
    extents.push_back(info.extents[n - 2] / ta);
    outer.push_back(c[0]);
    extents.push_back(last / tb);
  } else {
    outer.push_back(info.loops[n - 1]);
    extents.push_back(last);
  }
  ParallelOuter(sch, outer, extents, work);
}

/*! \brief Reduction block: a register tile (see the file comment). `cache` false: no local. */
void ScheduleReduction(Schedule sch, const BlockRV& b, const Block& block, const LoopInfo& info,
                       int64_t lanes, bool cache) {
  size_t n = info.loops.size();
  int64_t work = Product(info.extents);
  // The column loop: the last spatial loop along which every access is contiguous/invariant.
  int col = -1;
  bool strided = false;
  for (bool allow : {false, true}) {
    for (int i = static_cast<int>(n) - 1; i >= 0 && col < 0; --i) {
      if (!info.reduce[i] && info.iter[i] && ContiguousAlong(block, info.iter[i], allow)) col = i;
    }
    if (col >= 0) {
      strided = allow;
      break;
    }
  }
  Tile tile = TileFor(lanes);
  int64_t v = col >= 0 ? VectorFactor(info.extents[col], tile.cols, lanes) : 0;
  if (v == 0) {
    // No vector loop: parallel over the spatial loops above the first reduction loop.
    std::vector<LoopRV> outer;
    std::vector<int64_t> extents;
    for (size_t i = 0; i < n && !info.reduce[i]; ++i) {
      outer.push_back(info.loops[i]);
      extents.push_back(info.extents[i]);
    }
    ParallelOuter(sch, outer, extents, work);
    return;
  }
  // The row loop: another spatial loop, divisible by a row count, read by the fewest buffers.
  int row = -1;
  int64_t rows = 0;
  int best_reads = 1 << 30;
  for (size_t i = 0; i < n; ++i) {
    if (info.reduce[i] || static_cast<int>(i) == col || !info.iter[i]) continue;
    int64_t r = 0;
    // One register per row (a short column tile): twice the rows, same accumulator count.
    int64_t max_rows = v <= lanes ? 2 * tile.rows : tile.rows;
    for (int64_t f = max_rows; f >= 2; f /= 2) {
      if (info.extents[i] % f == 0) {
        r = f;
        break;
      }
    }
    if (r == 0) continue;
    // Reads of the vector loads that also move with this loop count most (the gathered or
    // loaded vector is then not reused across the rows), other reads count once.
    int reads = 0;
    auto uses = [](const tir::BufferRegion& region, const tir::VarNode* var) {
      for (const Range& rg : region->region) {
        if (UsesVar(rg->min, var)) return true;
      }
      return false;
    };
    for (const tir::BufferRegion& region : block->reads) {
      if (uses(region, info.iter[i])) reads += uses(region, info.iter[col]) ? 16 : 1;
    }
    if (reads < best_reads || (reads == best_reads && r >= rows)) {
      best_reads = reads;
      row = static_cast<int>(i);
      rows = r;
    }
  }
  if (strided && row < 0) {
    // Gathered vectors without a row tile to reuse them: not worth it; parallel only.
    ScheduleReduction(sch, b, block, info, 0, false);
    return;
  }
  // New loop order: outer spatial loops (row and column split in place), reductions, tile.
  std::vector<LoopRV> outer, reduce;
  std::vector<int64_t> extents;
  LoopRV row_inner, col_inner;
  for (size_t i = 0; i < n; ++i) {
    if (info.reduce[i]) {
      reduce.push_back(info.loops[i]);
    } else if (static_cast<int>(i) == col) {
      Array<LoopRV> parts = sch->Split(info.loops[i], {std::nullopt, v});
      outer.push_back(parts[0]);
      extents.push_back(info.extents[i] / v);
      col_inner = parts[1];
    } else if (static_cast<int>(i) == row) {
      Array<LoopRV> parts = sch->Split(info.loops[i], {std::nullopt, rows});
      outer.push_back(parts[0]);
      extents.push_back(info.extents[i] / rows);
      row_inner = parts[1];
    } else {
      outer.push_back(info.loops[i]);
      extents.push_back(info.extents[i]);
    }
  }
  std::vector<LoopRV> order = outer;
  order.insert(order.end(), reduce.begin(), reduce.end());
  if (row_inner.defined()) order.push_back(row_inner);
  order.push_back(col_inner);
  sch->Reorder(Array<LoopRV>(order));
  const bool cached = cache && !outer.empty() && !reduce.empty() && block->writes.size() == 1;
  BlockRV local;
  if (cached) {
    local = sch->CacheWrite(b, 0, "local");
    sch->ReverseComputeAt(local, outer.back());
  }
  // Loop kinds before decompose_reduction: TVM refuses parallel/vectorize over the update
  // block it leaves (no init), and the init's loops copy the kinds.
  sch->Vectorize(col_inner);
  size_t depth = sch->GetLoops(b).size();
  ParallelOuter(sch, outer, extents, work);
  const size_t n_outer = outer.size() - (depth - sch->GetLoops(b).size());  // after the fuse
  if (cached) {
    BlockRV init = sch->DecomposeReduction(b, reduce.front());
    for (const BlockRV& part : {init, local}) {
      Array<LoopRV> loops = sch->GetLoops(part);
      size_t m = loops.size();
      if (m >= n_outer + 1) sch->Vectorize(loops[m - 1]);
      if (row_inner.defined() && m >= n_outer + 2) sch->Unroll(loops[m - 2]);
    }
  }
  if (row_inner.defined()) sch->Unroll(row_inner);
}

/*! \brief Schedule one block; a failing plan leaves `sch` as it was and tries a simpler one. */
void ScheduleBlock(Schedule* sch, const std::string& name, int64_t bits) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    Schedule copy = (*sch)->Copy();
    try {
      BlockRV b = copy->GetBlock(name);
      auto info = DescribeLoops(copy, b, name);
      if (!info) return;
      Block block = copy->Get(b);
      if (block->writes.empty()) return;
      int64_t elem_bits = block->writes[0]->buffer->dtype.bits();
      int64_t lanes = std::max<int64_t>(1, bits / std::max<int64_t>(8, elem_bits));
      bool has_reduce =
          std::any_of(info->reduce.begin(), info->reduce.end(), [](bool r) { return r; });
      if (!has_reduce) {
        if (attempt > 0) return;
        ScheduleSpatial(copy, b, block, *info, lanes);
      } else if (attempt < 2) {
        ScheduleReduction(copy, b, block, *info, lanes, /*cache=*/attempt == 0);
      } else {
        // Parallel only.
        ScheduleReduction(copy, b, block, *info, /*lanes=*/0, false);
      }
      *sch = copy;
      return;
    } catch (const std::exception&) {
      // ScheduleError (or anything else): try the next, simpler plan on a fresh copy.
    }
  }
}

bool HasNonSerialLoop(const PrimFunc& f) {
  bool found = false;
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* loop = n.as<tir::ForNode>(); loop && loop->kind != tir::ForKind::kSerial) {
      found = true;
    }
  });
  return found;
}

}  // namespace

PrimFunc DefaultCPUSchedulePrimFunc(const PrimFunc& func, const target::Target& target) {
  if (auto s = func->attrs.Get(String("tir.is_scheduled")); s && !s->is_null()) {
    bool scheduled = true;
    try {
      scheduled = s->cast<bool>();
    } catch (const std::exception&) {
    }
    if (scheduled) return func;
  }
  if (HasNonSerialLoop(func)) return func;
  // A plain matmul / dense: the packed, register-tiled GEMM with the tile derived from the
  // target (cpu_gemm.h).
  try {
    if (auto gemm = ScheduleGemmRule(func, target)) return *gemm;
  } catch (const std::exception&) {
    // Fall through to the generic rules.
  }
  // A conv2d NCHW (batch 1, with its fused epilogue): a GEMM over an implicit im2col
  // (cpu_conv.h).
  try {
    if (auto conv = ScheduleConv2dRule(func, target)) return *conv;
  } catch (const std::exception&) {
    // Fall through to the generic rules.
  }
  int64_t bits = 128;
  try {
    bits = target->VectorWidthBits();
  } catch (const std::exception&) {
  }
  Schedule sch;
  try {
    sch = Schedule::Create(func);
  } catch (const std::exception&) {
    return func;
  }
  // 1. Inline spatial producers of intermediates into spatial consumers.
  {
    std::unordered_set<const Object*> intermediates;
    if (const auto* root = func->body.as<BlockRealizeNode>()) {
      for (const tir::Buffer& buf : root->block->alloc_buffers) intermediates.insert(buf.get());
    }
    for (const std::string& name : BlockNames(sch->mod())) {
      Schedule copy = sch->Copy();
      try {
        BlockRV b = copy->GetBlock(name);
        Block block = copy->Get(b);
        if (!IsSpatialBlock(block) || block->writes.size() != 1 ||
            !intermediates.count(block->writes[0]->buffer.get())) {
          continue;
        }
        Array<BlockRV> consumers = copy->GetConsumers(b);
        bool all_spatial = consumers.size() > 0;
        for (const BlockRV& c : consumers)
          all_spatial = all_spatial && IsSpatialBlock(copy->Get(c));
        if (!all_spatial) continue;
        copy->ComputeInline(b);
        sch = copy;
      } catch (const std::exception&) {
      }
    }
  }
  // 2. Each remaining block.
  for (const std::string& name : BlockNames(sch->mod())) ScheduleBlock(&sch, name, bits);
  const auto* out = sch->mod()->Lookup(std::string("main")).as<tir::PrimFuncNode>();
  if (!out) return func;
  // The scheduled function under the original attributes (Schedule::Create named it "main").
  PrimFunc result = GetRef<PrimFunc>(out);
  result.CopyOnWrite()->attrs = func->attrs;
  return WithAttr(result, "tir.is_scheduled", Any(true));
}

transform::Pass DefaultCPUSchedule(const target::Target& target) {
  return transform::CreateModulePass(
      [target](IRModule mod, transform::PassContext) {
        IRModule out = mod;
        bool changed = false;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          const auto* f = mod->Lookup(gv).as<tir::PrimFuncNode>();
          if (!f) continue;
          PrimFunc before = GetRef<PrimFunc>(f);
          PrimFunc after = DefaultCPUSchedulePrimFunc(before, target);
          if (after.same_as(before)) continue;
          if (!changed) out = IRModule(mod->functions, mod->attrs);
          changed = true;
          out.Add(gv, after);
        }
        return changed ? out : mod;
      },
      0, "DefaultCPUSchedule");
}

MINITVM_REGISTER_GLOBAL("relax.transform.DefaultCPUSchedule")
    .set_body_typed([](target::Target target) { return DefaultCPUSchedule(target); });
MINITVM_REGISTER_GLOBAL("relax.DefaultCPUSchedulePrimFunc")
    .set_body_typed([](PrimFunc func, target::Target target) {
      return DefaultCPUSchedulePrimFunc(func, target);
    });

}  // namespace relax_vm
}  // namespace minitvm
