/*!
 * \file block_access.cc
 * \brief Detection of the regions a block reads and writes (stage 2, tir/analysis): each
 * access is relaxed over the loops inside the block with arith::AffineRelaxer; anything it
 * cannot bound falls back to the whole extent of the buffer dimension, which is always a
 * correct (if loose) answer.
 */
#include "minitvm/tir/analysis/block_access.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {
namespace {

using arith::AffineCoverRange;
using arith::AffineMax;
using arith::AffineMin;
using arith::AffineRelaxer;
using arith::IntSet;
using arith::NormalizeAffine;

/*! \brief Inclusive bounds [lo, hi] of an access; an end is undefined when unknown. */
using Bound = IntSet;

bool Bounded(const Bound& b) { return b.HasLowerBound() && b.HasUpperBound(); }

// ---- the detector --------------------------------------------------------------------------

/*! \brief The hull of the accesses of one buffer. */
struct Access {
  Buffer buffer;
  std::vector<Bound> dims;
};

class AccessDetector : public StmtExprVisitor {
 public:
  std::vector<Access> reads, writes;

  void Run(const Block& block) {
    for (const Buffer& b : block->alloc_buffers) local_.insert(b.get());
    for (const MatchBufferRegion& m : block->match_buffers) matched_[m->buffer.get()] = m->source;
    if (block->init.defined()) VisitStmt(block->init);
    VisitStmt(block->body);
  }

  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    relaxer_.PushRange(op->loop_var.get(), Range(op->min, op->extent));
    VisitStmt(op->body);
    relaxer_.Pop();
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    relaxer_.Push(op->var.get(), relaxer_.Relax(op->value));
    VisitStmt(op->body);
    relaxer_.Pop();
  }
  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    relaxer_.Push(op->var.get(), relaxer_.Relax(op->value));
    VisitExpr(op->body);
    relaxer_.Pop();
  }
  void VisitStmt_(const AllocateNode* op) override {
    local_vars_.insert(op->buffer_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    local_.insert(op->buffer.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Record(&reads, op->buffer, op->indices);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    VisitExpr(op->value);
    for (const PrimExpr& i : op->indices) VisitExpr(i);
    Record(&writes, op->buffer, op->indices);
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    for (const PrimExpr& v : op->iter_values) VisitExpr(v);
    VisitExpr(op->predicate);
    const Block& inner = op->block;
    for (const Buffer& b : inner->alloc_buffers) local_.insert(b.get());
    Map<Var, PrimExpr> bind;
    for (size_t i = 0; i < inner->iter_vars.size(); ++i) {
      bind.Set(inner->iter_vars[i]->var, op->iter_values[i]);
    }
    auto add = [&](std::vector<Access>* out, const BufferRegion& region) {
      // A nested block's access of a buffer allocated here (or by the nested block) is local.
      if (local_.count(region->buffer.get()) || local_vars_.count(region->buffer->data.get())) {
        return;
      }
      std::vector<Bound> dims;
      for (const Range& r : region->region) {
        PrimExpr lo = Substitute(r->min, bind);
        PrimExpr hi = Substitute(
            NormalizeAffine(r->min + r->extent - make_const(r->extent.dtype(), 1)), bind);
        dims.push_back(Bound::Interval(relaxer_.Relax(lo).min(), relaxer_.Relax(hi).max()));
      }
      auto m = matched_.find(region->buffer.get());
      if (m != matched_.end() && dims.size() <= m->second->region.size()) {
        // A region of a buffer this block matches is a region of its source (as TVM's
        // ConvertRegion): leading source dimensions the match drops stay at their point, the
        // others shift by the source region's start.
        const BufferRegion& src = m->second;
        size_t offset = src->region.size() - dims.size();
        std::vector<Bound> mapped;
        for (size_t i = 0; i < offset; ++i) {
          mapped.push_back(Bound::Interval(src->region[i]->min, src->region[i]->min));
        }
        for (size_t i = 0; i < dims.size(); ++i) {
          const PrimExpr& base = src->region[i + offset]->min;
          if (!Bounded(dims[i])) {
            // Unknown: the whole matched extent.
            mapped.push_back(
                Bound::Interval(base, NormalizeAffine(base + src->region[i + offset]->extent -
                                                      make_const(base.dtype(), 1))));
            continue;
          }
          mapped.push_back(Bound::Interval(NormalizeAffine(base + dims[i].min()),
                                           NormalizeAffine(base + dims[i].max())));
        }
        Merge(out, src->buffer, mapped);
        return;
      }
      Merge(out, region->buffer, dims);
    };
    for (const BufferRegion& r : inner->reads) add(&reads, r);
    for (const BufferRegion& r : inner->writes) add(&writes, r);
  }

 private:
  void Record(std::vector<Access>* out, const Buffer& buffer, const Array<PrimExpr>& indices) {
    if (local_.count(buffer.get()) || local_vars_.count(buffer->data.get())) return;
    auto it = matched_.find(buffer.get());
    if (it != matched_.end()) {
      std::vector<Bound> dims;
      for (const Range& r : it->second->region) {
        dims.push_back(Bound::Interval(
            r->min, NormalizeAffine(r->min + r->extent - make_const(r->extent.dtype(), 1))));
      }
      Merge(out, it->second->buffer, dims);
      return;
    }
    std::vector<Bound> dims;
    for (const PrimExpr& i : indices) dims.push_back(relaxer_.Relax(i));
    Merge(out, buffer, dims);
  }

  static void Merge(std::vector<Access>* out, const Buffer& buffer, std::vector<Bound> dims) {
    // An unknown bound in a dimension widens it to the whole dimension.
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!Bounded(dims[d])) {
        PrimExpr ext = buffer->shape[d];
        dims[d] = Bound::Interval(make_zero(ext.dtype()),
                                  NormalizeAffine(ext - make_const(ext.dtype(), 1)));
      }
    }
    for (Access& a : *out) {
      if (!a.buffer.same_as(buffer)) continue;
      for (size_t d = 0; d < dims.size(); ++d) {
        a.dims[d] = Bound::Interval(AffineMin(a.dims[d].min(), dims[d].min()),
                                    AffineMax(a.dims[d].max(), dims[d].max()));
      }
      return;
    }
    out->push_back({buffer, std::move(dims)});
  }

  AffineRelaxer relaxer_;
  std::unordered_set<const Object*> local_;
  std::unordered_set<const Object*> local_vars_;
  std::unordered_map<const Object*, BufferRegion> matched_;
};

Array<BufferRegion> ToRegions(const std::vector<Access>& accesses,
                              const std::unordered_set<const Object*>& exclude) {
  Array<BufferRegion> out;
  for (const Access& a : accesses) {
    if (exclude.count(a.buffer.get())) continue;
    Array<Range> region;
    for (const Bound& b : a.dims) region.push_back(AffineCoverRange(b));
    out.push_back(BufferRegion(a.buffer, region));
  }
  return out;
}

}  // namespace

BlockAccessRegion GetBlockAccessRegion(const Block& block) {
  AccessDetector detector;
  detector.Run(block);
  std::unordered_set<const Object*> exclude;
  if (block->init.defined()) {
    for (const Access& w : detector.writes) exclude.insert(w.buffer.get());
  }
  BlockAccessRegion out;
  out.reads = ToRegions(detector.reads, exclude);
  out.writes = ToRegions(detector.writes, {});
  return out;
}

MINITVM_REGISTER_GLOBAL("tir.analysis.GetBlockAccessRegion").set_body_typed([](Block block) {
  BlockAccessRegion r = GetBlockAccessRegion(block);
  return Array<Any>{r.reads, r.writes};
});

}  // namespace tir
}  // namespace minitvm
