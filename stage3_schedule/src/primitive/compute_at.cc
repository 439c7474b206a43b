/*!
 * \file primitive/compute_at.cc
 * \brief `compute_at` and `reverse_compute_at` (stage 3): move a block under a loop.
 *
 * compute_at moves a producer under a loop of its consumers and shrinks its iteration space
 * to the region those consumers read in one iteration of the loop; reverse_compute_at moves a
 * consumer under a loop of its producers and shrinks it to what they write in one iteration.
 * The region is found by relaxing the consumers' (producers') access regions over the loops
 * inside the target loop with `arith::Analyzer::int_set`. The moved block gets fresh loops
 * `ax0, ax1, ...` (unit loops only with preserve_unit_loops) and a `T.where` when the region
 * may leave its iteration domain.
 */
#include <algorithm>

#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief Per buffer, per dimension: the region the related blocks need / produce. */
using RegionMap = std::vector<std::pair<const BufferNode*, std::vector<Range>>>;

void UnionInto(arith::Analyzer* analyzer, RegionMap* map, const BufferNode* buf,
               const std::vector<Range>& ranges) {
  for (auto& [b, rs] : *map) {
    if (b != buf) continue;
    for (size_t i = 0; i < rs.size(); ++i) rs[i] = UnionRange(analyzer, rs[i], ranges[i]);
    return;
  }
  map->emplace_back(buf, ranges);
}

/*! \brief The regions of `buffers` that `related` blocks touch in one iteration of `loop`. */
RegionMap RelatedRegions(arith::Analyzer* analyzer, const FuncIndex& index, const ForNode* loop,
                         const std::vector<const BlockNode*>& related,
                         const std::unordered_set<const BufferNode*>& buffers, bool use_writes) {
  RegionMap out;
  for (const BlockNode* r : related) {
    const StmtSRef& s = index.Get(r);
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < r->iter_vars.size(); ++i) {
      vmap[r->iter_vars[i]->var.get()] = s.realize->iter_values[i];
    }
    std::unordered_map<const VarNode*, arith::IntSet> dom;
    bool inside = false;
    for (const ForNode* l : index.LoopsAbove(r)) {
      if (inside) dom[l->loop_var.get()] = arith::IntSet::FromRange(Range(l->min, l->extent));
      if (l == loop) inside = true;
    }
    const Array<BufferRegion>& regions = use_writes ? r->writes : r->reads;
    for (const BufferRegion& br : regions) {
      if (!buffers.count(br->buffer.get())) continue;
      std::vector<Range> ranges;
      for (const Range& rg : br->region) {
        ranges.push_back(RelaxRange(analyzer, SubstituteVars(rg->min, vmap),
                                    SubstituteVars(rg->extent, vmap), dom));
      }
      UnionInto(analyzer, &out, br->buffer.get(), ranges);
    }
  }
  return out;
}

bool ContainsAny(const Stmt& s, const std::vector<const BlockNode*>& blocks) {
  bool found = false;
  PostOrderVisit(s, [&](const ObjectRef& n) {
    if (auto* b = n.as<BlockNode>()) {
      if (std::find(blocks.begin(), blocks.end(), b) != blocks.end()) found = true;
    }
  });
  return found;
}

/*!
 * \brief compute_at (`kReverse` false) or reverse_compute_at (true): move `block_rv` under
 * `loop_rv` at `position` (-1 the last valid place, -2 the first).
 */
template <bool kReverse>
Array<ObjectRef> ComputeAt(ScheduleNode* self, const BlockRV& block_rv, const LoopRV& loop_rv,
                           bool preserve_unit_loops, int64_t position) {
  const bool reverse = kReverse;
  const std::string primitive = reverse ? "reverse_compute_at" : "compute_at";
  // Step 1: the block and the loop (of one function) and the preconditions.
  auto [func, bstmt] = self->Resolve(block_rv);
  auto [lfunc, lstmt] = self->Resolve(loop_rv);
  if (func != lfunc) MINITVM_THROW(ValueError) << primitive << ": block and loop in two functions";
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(bstmt);
  const ForNode* loop = AsLoop(lstmt);
  if (block == index.root() || index.Get(block).realize == nullptr) {
    MINITVM_THROW(ValueError) << primitive << ": the root block cannot be moved";
  }
  const BlockNode* scope = index.ScopeBlock(block);

  // The loop must be in the block's scope and not inside the block.
  bool loop_in_block = index.IsAncestor(block, loop);
  bool same_scope = !loop_in_block && index.ScopeBlock(loop) == scope;
  if (!same_scope) {
    ScheduleError err("LoopPositionError",
                      "loop " + LoopName(loop) + " is " +
                          (loop_in_block ? "inside block " + BlockName(block)
                                         : "in another block scope than " + BlockName(block)));
    err.Subject("block " + BlockName(block))
        .Subject("loop " + LoopName(loop))
        .Check("the loop is not inside the block", !loop_in_block)
        .Check("the loop and the block are in the same block scope", same_scope)
        .At(GetRef<ObjectRef>(loop), "target loop")
        .At(GetRef<ObjectRef>(block), "block to move");
    throw err;
  }

  // The block: complete (or, for compute_at, a reduction), and the only writer of its outputs.
  std::string why;
  bool complete = IsCompleteBlock(index, block, scope, &why);
  bool single_writer = true;
  for (const BufferRegion& w : block->writes) {
    for (const BlockNode* other : BlocksInScope(index, scope)) {
      if (other != block && RegionsHave(other->writes, w->buffer.get())) single_writer = false;
    }
  }
  if (!single_writer) {
    ScheduleError err("NotStagePipelineError",
                      BlockName(block) +
                          " is not a complete block: another block of the scope "
                          "also writes what it writes");
    err.Subject("block " + BlockName(block))
        .Check("each buffer of the scope is written by one block", false)
        .At(GetRef<ObjectRef>(block), "not the only writer of its output");
    throw err;
  }
  bool reduction = IsReductionBlock(block);
  if (!complete && !(reduction && !reverse)) {
    ScheduleError err(reverse ? "NotCompleteBlockError" : "NotCompleteOrReductionBlockError",
                      primitive + " needs a " +
                          (reverse ? std::string("complete") : "complete or reduction") +
                          " block, but in block " + BlockName(block) + " " + why);
    err.Subject("block " + BlockName(block))
        .Check(reverse ? "the block is complete" : "the block is complete or a reduction", false)
        .At(GetRef<ObjectRef>(block), why);
    throw err;
  }
  CheckAffineUnder(index, loop, primitive);
  {
    const StmtSRef& s = index.Get(block);
    if (!IsAffineBinding(s.realize, index.LoopsAbove(block), &why)) {
      ScheduleError err("NotAffineBindingError",
                        primitive + " needs block " + BlockName(block) + " to be affinely bound");
      err.Check("the block bindings are affine", false)
          .Detail(why)
          .At(GetRef<ObjectRef>(block), why);
      throw err;
    }
  }
  // TVM's compute_at has no compact-dataflow check on the target loop's other blocks (only
  // parallel/vectorize/bind have one, see for_kind.cc).

  // The loop must not enclose the block already, and compute_at does not move an output block
  // (its writes are the function's result), as in TVM.
  if (index.IsAncestor(loop, block)) {
    ScheduleError err("LoopPositionError", primitive + ": loop " + LoopName(loop) +
                                               " is an ancestor of block " + BlockName(block) +
                                               " already");
    err.Subject("loop " + LoopName(loop))
        .Subject("block " + BlockName(block))
        .Check("the loop is not an ancestor of the block", false)
        .At(GetRef<ObjectRef>(loop), "encloses the block");
    throw err;
  }
  if (!reverse) {
    for (const BufferRegion& w : block->writes) {
      for (const auto& [param, buf] : index.func()->buffer_map.items()) {
        if (buf.get() != w->buffer.get()) continue;
        ScheduleError err("OutputBlockError",
                          primitive + " cannot move " + BlockName(block) +
                              ": it is an output block (it writes the function's buffer " +
                              buf->name.str() + ")");
        err.Subject("block " + BlockName(block))
            .Check("the block is not an output block", false)
            .At(GetRef<ObjectRef>(block), "writes " + buf->name.str());
        throw err;
      }
    }
  }

  // The related blocks (consumers for compute_at, producers for reverse) must all be under the
  // loop: they are the ones that decide the region.
  std::vector<const BlockNode*> all_related =
      reverse ? Producers(index, block) : Consumers(index, block);
  std::vector<const BlockNode*> related, outside;
  for (const BlockNode* r : all_related) {
    (index.IsAncestor(loop, r) ? related : outside).push_back(r);
  }
  if (related.empty() || !outside.empty()) {
    std::string role = reverse ? "producer" : "consumer";
    ScheduleError err(
        reverse ? "NotAllProducersUnderLoopError" : "NotAllConsumersUnderLoopError",
        related.empty()
            ? "no " + role + " of block " + BlockName(block) + " is under loop " + LoopName(loop)
            : primitive + " requires all the " + role + "s of block " + BlockName(block) +
                  " to be under the target loop, but the " + role + " " + BlockName(outside[0]) +
                  " is not under loop " + LoopName(loop));
    err.Subject("block " + BlockName(block))
        .Subject("loop " + LoopName(loop))
        .Check("at least one " + role + " is under the loop", !related.empty())
        .Check("every " + role + " is under the loop", outside.empty())
        .At(GetRef<ObjectRef>(loop), "target loop");
    for (const BlockNode* o : outside) err.At(GetRef<ObjectRef>(o), role + " outside the loop");
    throw err;
  }

  // The region, and the new iteration range of each block iterator.
  arith::Analyzer analyzer;
  std::vector<const ForNode*> outer = index.LoopsAbove(loop);
  outer.push_back(loop);
  BindLoops(&analyzer, outer);
  std::unordered_set<const BufferNode*> buffers;
  if (reverse) {
    for (const BufferRegion& r : block->reads) {
      for (const BlockNode* p : related) {
        if (RegionsHave(p->writes, r->buffer.get())) buffers.insert(r->buffer.get());
      }
    }
  } else {
    for (const BufferRegion& w : block->writes) buffers.insert(w->buffer.get());
  }
  RegionMap needed = RelatedRegions(&analyzer, index, loop, related, buffers, reverse);

  size_t n_iters = block->iter_vars.size();
  std::vector<std::optional<Range>> iter_range(n_iters);
  // The largest index the buffer dimension allows, per block iterator (TVM's "bound").
  std::vector<std::optional<PrimExpr>> shape_max(n_iters);
  const Array<BufferRegion>& own = reverse ? block->reads : block->writes;
  for (const BufferRegion& br : own) {
    const std::vector<Range>* need = nullptr;
    for (const auto& [b, rs] : needed) {
      if (b == br->buffer.get()) need = &rs;
    }
    if (need == nullptr) continue;
    for (size_t d = 0; d < br->region.size(); ++d) {
      if (ConstValue(br->region[d]->extent) != 1) continue;
      const PrimExpr& index_expr = br->region[d]->min;
      auto* v = index_expr.as<VarNode>();
      Range range = (*need)[d];
      PrimExpr last = br->buffer->shape[d] - IntImm(br->buffer->shape[d].dtype(), 1);
      // As TVM: `v // c` (c >= 1) needs v in [lo * c, hi * c + c - 1]; `v % c` constrains
      // nothing (the iterator keeps its domain unless another access bounds it).
      if (auto* fd = index_expr.as<FloorDivNode>()) {
        std::optional<int64_t> c = ConstValue(fd->b);
        if (fd->a.as<VarNode>() != nullptr && c && *c >= 1) {
          v = fd->a.as<VarNode>();
          PrimExpr f = IntImm(fd->b.dtype(), *c);
          range = Range(range->min * f, range->extent * f);
          last = last * f + f - 1;
        }
      }
      if (v == nullptr) continue;
      for (size_t k = 0; k < n_iters; ++k) {
        if (block->iter_vars[k]->var.get() != v) continue;
        iter_range[k] = iter_range[k] ? UnionRange(&analyzer, *iter_range[k], range) : range;
        shape_max[k] = shape_max[k] ? tir::max(*shape_max[k], last) : last;
      }
    }
  }

  std::vector<Var> loop_vars;
  std::vector<PrimExpr> loop_extents;
  Array<PrimExpr> bindings;
  PrimExpr predicate;
  int ax = 0;
  for (size_t k = 0; k < n_iters; ++k) {
    const IterVar& iv = block->iter_vars[k];
    // As TVM: `dom` is the needed range, `bound` the iterator's domain intersected with the
    // buffer's shape. When dom fits in bound, bound is dropped; when bound fits in dom (or the
    // intersection is constant), the intersection becomes the loop range; otherwise the loop
    // covers dom and a predicate keeps the iterator inside bound.
    PrimExpr bmin = analyzer.Simplify(iv->dom->min);
    PrimExpr bmax = analyzer.Simplify(iv->dom->min + iv->dom->extent - 1);
    if (shape_max[k]) {
      bmin = analyzer.Simplify(tir::max(bmin, IntImm(bmin.dtype(), 0)));
      bmax = analyzer.Simplify(tir::min(bmax, *shape_max[k]));
    }
    PrimExpr lo = bmin, hi = bmax;
    bool keep_bound = false;
    if (iter_range[k]) {
      lo = analyzer.Simplify((*iter_range[k])->min);
      hi = analyzer.Simplify((*iter_range[k])->min + (*iter_range[k])->extent - 1);
      PrimExpr ilo = analyzer.Simplify(tir::max(lo, bmin));
      PrimExpr ihi = analyzer.Simplify(tir::min(hi, bmax));
      if (analyzer.CanProveEqual(lo, ilo) && analyzer.CanProveEqual(hi, ihi)) {
      } else if ((analyzer.CanProveEqual(bmin, ilo) && analyzer.CanProveEqual(bmax, ihi)) ||
                 (ConstValue(ilo) && ConstValue(ihi))) {
        lo = ilo;
        hi = ihi;
      } else {
        keep_bound = true;
      }
    }
    PrimExpr min = lo;
    PrimExpr extent = analyzer.Simplify(hi + 1 - lo);
    PrimExpr value = min;
    if (preserve_unit_loops || ConstValue(extent) != 1) {
      Var v("ax" + std::to_string(ax++), iv->var.dtype());
      loop_vars.push_back(v);
      loop_extents.push_back(extent);
      analyzer.Bind(v, Range(IntImm(v.dtype(), 0), extent), true);
      value = min + v;  // as TVM: `min + ax` is kept unsimplified (only 0 + ax folds)
    }
    bindings.push_back(value);
    auto add = [&](PrimExpr c) { predicate = predicate.defined() ? (predicate && c) : c; };
    if (keep_bound) {
      PrimExpr lower = value >= bmin, upper = value < bmax + 1;
      if (!analyzer.CanProve(lower)) add(lower);
      if (!analyzer.CanProve(upper)) add(upper);
    }
  }
  if (!predicate.defined()) predicate = IntImm(DataType::Bool(), 1);
  Stmt nest =
      MakeLoopNest(loop_vars, loop_extents,
                   BlockRealize(bindings, analyzer.Simplify(predicate), GetRef<Block>(block)));

  // Remove the block from where it is, then insert it into the loop's body.
  Stmt body = ReplaceStmts(index.func()->body, {{index.Get(block).realize, Stmt()}});
  PrimFunc removed = WithBody(index.func(), body);
  FuncIndex mid(removed);
  const ForNode* target = mid.LoopOfVar(loop->loop_var.get());
  MINITVM_ICHECK(target != nullptr) << "the target loop vanished when the block was removed";
  std::vector<Stmt> seq = AsSeq(target->body);
  int64_t n = static_cast<int64_t>(seq.size());
  std::vector<const BlockNode*> block_producers = Producers(index, block);
  std::vector<const BlockNode*> block_consumers = Consumers(index, block);
  int64_t first_consumer = n, last_producer = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (ContainsAny(seq[i], block_consumers) && first_consumer == n) first_consumer = i;
    if (ContainsAny(seq[i], block_producers)) last_producer = i;
  }
  // As in TVM: -1 is the last valid position (right before the first consumer), -2 the first
  // (right after the last producer); any other index must be one of the valid positions.
  int64_t first_valid = last_producer + 1, last_valid = first_consumer;
  int64_t pos = position == -1 ? last_valid : position == -2 ? first_valid : position;
  if (pos < first_valid || pos > last_valid) {
    std::string valid = first_valid > last_valid
                            ? std::string("there is none: a consumer of ") + BlockName(block) +
                                  " runs before one of its producers"
                            : "-1 (the last valid position), -2 (the first) or an index in [" +
                                  std::to_string(first_valid) + ", " + std::to_string(last_valid) +
                                  "]";
    ScheduleError err("InsertionPositionError",
                      "index " + std::to_string(position) + " is not a valid position in loop " +
                          LoopName(loop) + " for " + BlockName(block) + ": " + valid);
    err.Check("the block runs after its producers and before its consumers", false)
        .Detail("the valid positions are after all producers and before all consumers of " +
                BlockName(block) + " in the body of loop " + LoopName(loop))
        .At(GetRef<ObjectRef>(loop), "insertion at " + std::to_string(position));
    throw err;
  }
  seq.insert(seq.begin() + pos, nest);
  For new_loop = GetRef<For>(target);
  new_loop.CopyOnWrite()->body = SeqStmt::Flatten(Array<Stmt>(seq));
  PrimFunc result = ReplaceInFunc(removed, {{target, new_loop}});
  self->mutable_state()->Replace(func, result);
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("ComputeAt", "compute_at", {"block", "loop"},
                               {"preserve_unit_loops", "index"}, ComputeAt<false>);
  k.defaults = {{"preserve_unit_loops", Any(false)}, {"index", Any(-1)}};
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("ReverseComputeAt", "reverse_compute_at", {"block", "loop"},
                               {"preserve_unit_loops", "index"}, ComputeAt<true>);
  k.defaults = {{"preserve_unit_loops", Any(false)}, {"index", Any(-1)}};
  return k;
}());

}  // namespace tir
}  // namespace minitvm
