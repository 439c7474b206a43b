/*!
 * \file compact_buffer_allocation.cc
 * \brief CompactBufferAllocation (stage 5): shrink each buffer a block allocates to the region
 * its accesses actually touch, and shift the accesses so that region starts at 0. After
 * cache_write and PlanAndUpdateBufferAllocationLocation, a 1024×1024 "local" cache accessed as
 * `C_local[ii*8 + i, jo*32 + ji]` inside the `ii` loop becomes an 8×32 tile indexed `[i, ji]`.
 *
 * Regions are computed on affine index forms (arith::ToLinearForm): the loops between the
 * allocation and an access are relaxed over their (constant) ranges (arith::AffineRelaxer); what
 * does not depend on them must be the same at every access and cancels exactly. A buffer with a
 * non-affine index, a symbolic inner loop range or strides keeps its shape.
 */
#include <unordered_map>
#include <unordered_set>

#include "ir_utils.h"
#include "minitvm/arith/linear_form.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

struct DimRegion {
  LinearForm base;  // terms not relaxed, constant 0
  int64_t lo = 0;
  int64_t hi = 0;
  bool init = false;
};

struct BufferInfo {
  size_t alloc_depth = 0;  // loop-stack size where the buffer is allocated
  bool ok = true;
  std::vector<DimRegion> dims;
};

class RegionCollector : public StmtExprVisitor {
 public:
  std::unordered_map<const BufferNode*, BufferInfo> infos;

  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;

  void VisitStmt_(const BlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) {
      BufferInfo info;
      info.alloc_depth = loops_.size();
      info.ok = b->strides.empty() && IsZero(b->elem_offset);
      info.dims.resize(b->shape.size());
      infos[b.get()] = info;
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    loops_.push_back(op);
    VisitStmt(op->body);
    loops_.pop_back();
  }
  void VisitStmt_(const LetStmtNode* op) override {
    let_vars_.insert(op->var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const LetNode* op) override {
    let_vars_.insert(op->var.get());
    ExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Access(op->buffer.get(), op->indices);
    ExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Access(op->buffer.get(), op->indices);
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    // Sub-buffer matches are accesses of unknown extent: keep the source's shape.
    for (const MatchBufferRegion& m : op->block->match_buffers) {
      auto it = infos.find(m->source->buffer.get());
      if (it != infos.end()) it->second.ok = false;
    }
    StmtExprVisitor::VisitStmt_(op);
  }

 private:
  static bool IsZero(const PrimExpr& e) {
    auto v = AsConstInt(e);
    return !e.defined() || (v && *v == 0);
  }
  void Access(const BufferNode* buf, const Array<PrimExpr>& indices) {
    auto it = infos.find(buf);
    if (it == infos.end() || !it->second.ok) return;
    BufferInfo& info = it->second;
    std::unordered_map<const VarNode*, const ForNode*> relaxed;
    for (size_t i = info.alloc_depth; i < loops_.size(); ++i) {
      relaxed[loops_[i]->loop_var.get()] = loops_[i];
    }
    std::unordered_set<const VarNode*> relaxed_set;
    for (const auto& kv : relaxed) relaxed_set.insert(kv.first);
    for (size_t d = 0; d < indices.size(); ++d) {
      auto lf = ToLinearForm(indices[d]);
      if (!lf) {
        info.ok = false;
        return;
      }
      // The relaxed loops (constant ranges) give the constant bounds; the rest is the base.
      arith::AffineRelaxer relaxer;
      LinearForm rel;
      rel.dtype = lf->dtype;
      rel.constant = lf->constant;
      for (const auto& [atom, c] : lf->terms) {
        const VarNode* v = atom.as<VarNode>();
        if (let_vars_.count(v)) {
          info.ok = false;
          return;
        }
        auto r = relaxed.find(v);
        if (r == relaxed.end()) continue;
        auto min = AsConstInt(r->second->min), ext = AsConstInt(r->second->extent);
        if (!min || !ext || *ext <= 0) {
          info.ok = false;
          return;
        }
        DataType t = r->second->loop_var.dtype();
        relaxer.Push(v, arith::IntSet::Interval(IntImm(t, *min), IntImm(t, *min + *ext - 1)));
        rel.AddTerm(atom, c);
      }
      arith::IntSet range = relaxer.RelaxForm(rel);
      int64_t lo = *AsConstInt(range.min()), hi = *AsConstInt(range.max());
      LinearForm base = lf->Without(relaxed_set);
      base.constant = 0;
      DimRegion& dim = info.dims[d];
      if (!dim.init) {
        dim.base = base, dim.lo = lo, dim.hi = hi, dim.init = true;
      } else if (!dim.base.Equals(base)) {
        info.ok = false;
        return;
      } else {
        dim.lo = std::min(dim.lo, lo), dim.hi = std::max(dim.hi, hi);
      }
    }
  }
  std::vector<const ForNode*> loops_;
  std::unordered_set<const VarNode*> let_vars_;
};

class BufferCompactor : public StmtExprMutator {
 public:
  struct Plan {
    Buffer new_buffer;
    std::vector<DimRegion> dims;
  };
  std::unordered_map<const BufferNode*, Plan> plans;

  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    auto it = plans.find(load->buffer.get());
    if (it == plans.end()) return e;
    return BufferLoad(it->second.new_buffer, Shift(it->second, load->indices));
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    auto it = plans.find(store->buffer.get());
    if (it == plans.end()) return s;
    return BufferStore(it->second.new_buffer, store->value, Shift(it->second, store->indices));
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Block block = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    bool changed = false;
    Array<Buffer> allocs;
    for (const Buffer& b : block->alloc_buffers) {
      auto it = plans.find(b.get());
      allocs.push_back(it == plans.end() ? b : it->second.new_buffer);
      changed = changed || it != plans.end();
    }
    auto fix = [&](const Array<BufferRegion>& regions) {
      Array<BufferRegion> out;
      for (const BufferRegion& r : regions) {
        auto it = plans.find(r->buffer.get());
        if (it == plans.end()) {
          out.push_back(r);
          continue;
        }
        changed = true;
        Array<Range> ranges;
        for (size_t d = 0; d < r->region.size(); ++d) {
          auto lf = ToLinearForm(r->region[d]->min);
          const DimRegion& dim = it->second.dims[d];
          if (lf) {
            LinearForm shifted = *lf - dim.base;
            shifted.constant -= dim.lo;
            ranges.push_back(
                Range(shifted.ToExpr(r->region[d]->min.dtype()), r->region[d]->extent));
          } else {
            ranges.push_back(Range(PrimExpr(0), it->second.new_buffer->shape[d]));
          }
        }
        out.push_back(BufferRegion(it->second.new_buffer, ranges));
      }
      return out;
    };
    Array<BufferRegion> reads = fix(block->reads), writes = fix(block->writes);
    if (!changed) return block;
    BlockNode* n = block.CopyOnWrite();
    n->alloc_buffers = allocs;
    n->reads = reads;
    n->writes = writes;
    return block;
  }

 private:
  Array<PrimExpr> Shift(const Plan& plan, const Array<PrimExpr>& indices) {
    Array<PrimExpr> out;
    for (size_t d = 0; d < indices.size(); ++d) {
      const DimRegion& dim = plan.dims[d];
      LinearForm lf = *ToLinearForm(indices[d]) - dim.base;
      lf.constant -= dim.lo;
      out.push_back(lf.ToExpr(indices[d].dtype()));
    }
    return out;
  }
};

}  // namespace

Pass CompactBufferAllocation() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        RegionCollector collector;
        collector.VisitStmt(f->body);
        BufferCompactor compactor;
        for (auto& [node, info] : collector.infos) {
          if (!info.ok || info.dims.empty()) continue;
          Buffer buf = GetRef<Buffer>(node);
          Array<PrimExpr> shape;
          bool shrinks = false, valid = true;
          for (size_t d = 0; d < info.dims.size(); ++d) {
            const DimRegion& dim = info.dims[d];
            if (!dim.init) {  // never accessed: nothing to learn about this buffer
              valid = false;
              break;
            }
            int64_t extent = dim.hi - dim.lo + 1;
            auto old = AsConstInt(node->shape[d]);
            if (old && extent > *old) valid = false;
            if (!old || extent < *old || dim.lo != 0 || !dim.base.terms.empty()) shrinks = true;
            shape.push_back(IntImm(node->shape[d].dtype(), extent));
          }
          // Only shrink: a shifted but equally large region is left alone.
          bool same = true;
          for (size_t d = 0; d < shape.size() && valid; ++d) {
            auto old = AsConstInt(node->shape[d]);
            same = same && old && *old == *AsConstInt(shape[d]) && info.dims[d].lo == 0 &&
                   info.dims[d].base.terms.empty();
          }
          if (!valid || !shrinks || same) continue;
          Buffer nb = buf;
          nb.CopyOnWrite()->shape = shape;
          compactor.plans[node] = BufferCompactor::Plan{nb, info.dims};
        }
        if (compactor.plans.empty()) return f;
        Stmt body = compactor.VisitStmt(f->body);
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.CompactBufferAllocation");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
