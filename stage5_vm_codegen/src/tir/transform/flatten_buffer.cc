/*!
 * \file flatten_buffer.cc
 * \brief FlattenBuffer (stage 5): every multi-dimensional buffer access becomes a 1-d access
 * at the row-major (or strided) element offset, `A[i, j]` → `A_flat[i * 1024 + j]`, and
 * allocations get one extent. The function's buffer_map keeps the N-d buffers: MakePackedAPI
 * checks the caller's shapes against them; both share the same data pointer.
 */
#include <unordered_map>

#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

class BufferFlattener : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (IsFlat(load->buffer)) return e;
    return BufferLoad(Flattened(load->buffer), {FlatIndex(load->buffer, load->indices)});
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    if (IsFlat(store->buffer)) return s;
    return BufferStore(Flattened(store->buffer), store->value,
                       {FlatIndex(store->buffer, store->indices)});
  }
  Stmt VisitStmt_(const AllocateNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* alloc = s.as<AllocateNode>();
    if (alloc->extents.size() == 1) return s;
    return Allocate(alloc->buffer_var, alloc->dtype, {ShapeProduct(alloc->extents)},
                    alloc->condition, alloc->body, alloc->scope, alloc->annotations);
  }
  Stmt VisitStmt_(const DeclBufferNode* op) override {
    Stmt body = VisitStmt(op->body);
    Buffer buf = IsFlat(op->buffer) ? op->buffer : Flattened(op->buffer);
    if (body.same_as(op->body) && buf.same_as(op->buffer)) return GetRef<Stmt>(op);
    return DeclBuffer(buf, body);
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    // Reachable by running the pass out of order: a user error, not a minitvm bug.
    MINITVM_THROW(ValueError) << "FlattenBuffer runs on functions without blocks, but block \""
                              << op->name_hint
                              << "\" remains: run LowerOpaqueBlock (after LowerInitBlock and "
                                 "ConvertBlocksToOpaque) first";
  }

 private:
  static bool IsFlat(const Buffer& b) {
    auto off = AsConstInt(b->elem_offset);
    return b->shape.size() == 1 && b->strides.empty() &&
           (!b->elem_offset.defined() || (off && *off == 0));
  }
  Buffer Flattened(const Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    PrimExpr size = b->strides.empty() ? ShapeProduct(b->shape) : FlatExtentStrided(b);
    Buffer flat(b->data, b->dtype, {size}, {}, PrimExpr(0), b->name, b->scope, b->data_alignment,
                b->offset_factor);
    flat_.emplace(b.get(), flat);
    return flat;
  }
  static PrimExpr FlatExtentStrided(const Buffer& b) {
    // The last element's offset + 1; strides are positive in practice.
    PrimExpr extent = PrimExpr(1);
    for (size_t d = 0; d < b->shape.size(); ++d)
      extent = extent + (b->shape[d] - 1) * b->strides[d];
    return extent;
  }
  static PrimExpr FlatIndex(const Buffer& b, const Array<PrimExpr>& indices) {
    PrimExpr index;
    if (b->strides.empty()) {
      // Horner form: ((i0 * s1 + i1) * s2 + i2) ...
      for (size_t d = 0; d < indices.size(); ++d) {
        index = d == 0 ? indices[d] : index * CastTo(indices[d].dtype(), b->shape[d]) + indices[d];
      }
    } else {
      for (size_t d = 0; d < indices.size(); ++d) {
        PrimExpr t = indices[d] * CastTo(indices[d].dtype(), b->strides[d]);
        index = index.defined() ? index + t : t;
      }
    }
    if (!index.defined()) index = PrimExpr(0);  // a 0-d buffer
    auto off = AsConstInt(b->elem_offset);
    if (b->elem_offset.defined() && !(off && *off == 0)) {
      index = index + CastTo(index.dtype(), b->elem_offset);
    }
    return index;
  }
  /*! \brief A cast that keeps immediates immediates (so `i * 1024` prints as such). */
  static PrimExpr CastTo(DataType t, const PrimExpr& e) { return e.dtype() == t ? e : cast(t, e); }

  std::unordered_map<const BufferNode*, Buffer> flat_;
};

}  // namespace

Pass FlattenBuffer() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        Stmt body = BufferFlattener().VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.FlattenBuffer");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
