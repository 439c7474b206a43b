/*!
 * \file lower_opaque_block.cc
 * \brief LowerOpaqueBlock (stage 5): an opaque block becomes its body wrapped in one
 * `Allocate` + `DeclBuffer` per buffer it allocates; a non-trivial BlockRealize predicate
 * becomes an `if`. Sub-buffers matched with `T.match_buffer` are replaced by their source
 * region. After this pass there are no blocks left.
 */
#include <unordered_map>

#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {
class OpaqueBlockLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    const Block& block = op->block;
    if (!block->iter_vars.empty()) {
      // Reachable by running the pass out of order: a user error, not a minitvm bug.
      MINITVM_THROW(ValueError) << "LowerOpaqueBlock runs on opaque blocks, but block \""
                                << block->name_hint
                                << "\" still has iterators: run ConvertBlocksToOpaque first";
    }
    for (const MatchBufferRegion& m : block->match_buffers) AddMatch(m);
    Stmt body = VisitStmt(block->body);
    if (block->init.defined()) {
      MINITVM_THROW(ValueError) << "LowerOpaqueBlock runs on blocks without T.init(), but block \""
                                << block->name_hint << "\" has one: run LowerInitBlock first";
    }
    for (size_t i = block->alloc_buffers.size(); i-- > 0;) {
      Buffer buf = block->alloc_buffers[i];
      body = Allocate(buf->data, buf->dtype, buf->shape, const_true(), DeclBuffer(buf, body),
                      buf->scope);
    }
    PrimExpr pred = VisitExpr(op->predicate);
    if (!IsConstTrue(pred)) body = IfThenElse(pred, body);
    return body;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    MINITVM_THROW(ValueError) << "LowerOpaqueBlock: block \"" << op->name_hint
                              << "\" is not inside a BlockRealize (T.block in TVMScript makes "
                                 "both)";
  }

  // Accesses to a matched buffer become accesses to its source, offset by the region start.
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    auto it = matches_.find(op->buffer.get());
    if (it == matches_.end()) return StmtExprMutator::VisitExpr_(op);
    Array<PrimExpr> indices;
    for (const PrimExpr& i : op->indices) indices.push_back(VisitExpr(i));
    return BufferLoad(it->second->buffer, Rebase(it->second, indices));
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    auto it = matches_.find(op->buffer.get());
    if (it == matches_.end()) return StmtExprMutator::VisitStmt_(op);
    Array<PrimExpr> indices;
    for (const PrimExpr& i : op->indices) indices.push_back(VisitExpr(i));
    return BufferStore(it->second->buffer, VisitExpr(op->value), Rebase(it->second, indices));
  }

 private:
  void AddMatch(const MatchBufferRegion& m) {
    BufferRegion src = m->source;
    // A matched buffer of lower rank maps onto the trailing dimensions of the source region.
    if (m->buffer->shape.size() > src->region.size()) {
      MINITVM_THROW(ValueError) << "match_buffer " << m->buffer->name << " has rank "
                                << m->buffer->shape.size() << " but its source region of "
                                << src->buffer->name << " has rank " << src->region.size();
    }
    auto it = matches_.find(src->buffer.get());
    if (it != matches_.end()) {
      // A match of a match: compose the regions.
      Array<PrimExpr> mins;
      for (const Range& r : src->region) mins.push_back(r->min);
      Array<PrimExpr> base = Rebase(it->second, mins);
      Array<Range> region;
      for (size_t d = 0; d < base.size(); ++d) {
        PrimExpr extent = d + src->region.size() >= base.size()
                              ? src->region[d + src->region.size() - base.size()]->extent
                              : PrimExpr(1);
        region.push_back(Range(base[d], extent));
      }
      src = BufferRegion(it->second->buffer, region);
    }
    matches_[m->buffer.get()] = src;
  }
  Array<PrimExpr> Rebase(const BufferRegion& src, const Array<PrimExpr>& indices) {
    Array<PrimExpr> out;
    size_t lead = src->region.size() - indices.size();
    for (size_t d = 0; d < src->region.size(); ++d) {
      PrimExpr min = src->region[d]->min;
      out.push_back(d < lead ? min : min + indices[d - lead]);
    }
    return out;
  }
  std::unordered_map<const BufferNode*, BufferRegion> matches_;
};
}  // namespace

Pass LowerOpaqueBlock() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        Stmt body = OpaqueBlockLowerer().VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.LowerOpaqueBlock");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
