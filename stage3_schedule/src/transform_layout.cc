/*!
 * \file transform_layout.cc
 * \brief `transform_layout` (stage 3): change how a buffer's elements are laid out.
 *
 * An index map `lambda i, j: (j // 32, i, j % 32)` turns `B` of shape (M, N) into a buffer of
 * shape (N / 32, M, 32) — the packed layout of PERF_NOTES.md — and every access `B[i, j]`
 * into `B[j // 32, i, j % 32]`, simplified under the iterator ranges of the block it is in.
 * When the buffer is a parameter the function's signature changes with it (as in TVM).
 */
#include "instruction.h"
#include "utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief Rewrites every access of one buffer through the index map. */
class LayoutRewriter : public StmtExprMutator {
 public:
  LayoutRewriter(const BufferNode* from, Buffer to, IndexMap map)
      : from_(from), to_(std::move(to)), map_(std::move(map)) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || load->buffer.get() != from_) return e;
    return BufferLoad(to_, Map(load->indices));
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    if (store == nullptr || store->buffer.get() != from_) return s;
    return BufferStore(to_, store->value, Map(store->indices));
  }
  Stmt VisitStmt_(const ForNode* op) override {
    analyzer_.Bind(op->loop_var, Range(op->min, op->extent), true);
    return StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) analyzer_.Bind(iv->var, iv->dom, true);
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    bool allocs = false;
    for (const Buffer& x : b->alloc_buffers) allocs |= x.get() == from_;
    bool mentions = RegionsHave(b->reads, from_) || RegionsHave(b->writes, from_);
    if (!allocs && !mentions) return b;
    if (allocs) {
      Array<Buffer> a;
      for (const Buffer& x : b->alloc_buffers) a.push_back(x.get() == from_ ? to_ : x);
      b.CopyOnWrite()->alloc_buffers = a;
    }
    if (mentions && op->name_hint.str() != "root") b = RecomputeAccess(b);
    return b;
  }

 private:
  Array<PrimExpr> Map(const Array<PrimExpr>& indices) {
    return SimplifyAll(&analyzer_, map_.MapIndices(indices));
  }
  const BufferNode* from_;
  Buffer to_;
  IndexMap map_;
  arith::Analyzer analyzer_;
};

Array<ObjectRef> ApplyTransformLayout(ScheduleNode* self, const Array<Any>& inputs,
                                      const Array<Any>& attrs) {
  auto [func, stmt] = self->Resolve(inputs[0].cast<ObjectRef>());
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  bool write = attrs[0].cast<int64_t>() == static_cast<int64_t>(BufferIndexType::kWrite);
  int64_t i = attrs[1].cast<int64_t>();
  IndexMap map = attrs[2].cast<IndexMap>();
  const Array<BufferRegion>& regions = write ? block->writes : block->reads;
  if (i < 0 || i >= static_cast<int64_t>(regions.size())) {
    ScheduleError err("IndexOutOfRangeError",
                      "transform_layout: block " + BlockName(block) + " " +
                          (write ? "writes " : "reads ") + std::to_string(regions.size()) +
                          " buffer(s); index " + std::to_string(i) + " is out of range");
    err.Check("the buffer index is within the block's buffers", false);
    throw err;
  }
  Buffer buf = regions[i]->buffer;
  if (map->initial_indices.size() != buf->shape.size()) {
    ScheduleError err("IndexMapArityError", "the index map takes " +
                                                std::to_string(map->initial_indices.size()) +
                                                " indices but " + buf->name.str() + " has " +
                                                std::to_string(buf->shape.size()) + " dimensions");
    err.Check("the index map takes one index per buffer dimension", false)
        .At(GetRef<ObjectRef>(block), "accesses " + buf->name.str());
    throw err;
  }
  arith::Analyzer analyzer;
  Array<PrimExpr> new_shape = map.MapShape(buf->shape, &analyzer);
  // Without a pad value the map must be a bijection: same number of elements.
  PrimExpr old_size = IntImm(DataType::Int(64), 1), new_size = IntImm(DataType::Int(64), 1);
  for (const PrimExpr& s : buf->shape) old_size = old_size * cast(DataType::Int(64), s);
  for (const PrimExpr& s : new_shape) new_size = new_size * cast(DataType::Int(64), s);
  bool pad = !attrs[3].is_null();
  if (!pad && !analyzer.CanProveEqual(old_size, new_size)) {
    ScheduleError err("TransformationPaddingError",
                      "the index map sends the " + ExprStr(analyzer.Simplify(old_size)) +
                          " elements of " + buf->name.str() + " into a buffer of " +
                          ExprStr(analyzer.Simplify(new_size)) +
                          " elements; give pad_value to allow padding");
    err.Check("the new layout has as many elements as the old one, or pad_value is given", false)
        .At(GetRef<ObjectRef>(block), "transforms " + buf->name.str());
    throw err;
  }
  Buffer now = buf;
  {
    BufferNode* n = now.CopyOnWrite();
    n->shape = new_shape;
    n->strides = {};
  }
  Stmt body = LayoutRewriter(buf.get(), now, map).VisitStmt(index.func()->body);
  PrimFunc f = WithBody(index.func(), body);
  for (const auto& [var, b] : f->buffer_map.items()) {
    if (b.same_as(buf)) f.CopyOnWrite()->buffer_map.Set(var, now);
  }
  self->mutable_state()->Replace(func, f);
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  InstructionKindInfo k;
  k.name = "TransformLayout";
  k.defaults = {{"pad_value", Any()}};
  k.method = "transform_layout";
  k.input_names = {"block"};
  k.attr_names = {"buffer_index_type", "buffer_index", "index_map", "pad_value"};
  k.apply = ApplyTransformLayout;
  k.print_args = [](const std::vector<std::string>& in, const Array<Any>& attrs) {
    std::string kind = attrs[0].cast<int64_t>() == 1 ? "\"write\"" : "\"read\"";
    return "block=" + in[0] + ", buffer=(" + kind + ", " + PythonLiteral(attrs[1]) +
           "), index_map=" + PythonLiteral(attrs[2]) + ", pad_value=" + PythonLiteral(attrs[3]);
  };
  return k;
}());

}  // namespace tir
}  // namespace minitvm
