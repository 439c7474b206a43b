/*!
 * \file primitive/reindex_cache.cc
 * \brief `reindex_cache_read` and `reindex_cache_write` (stage 3): a cache whose layout is an
 * index map of the block's iterators.
 *
 * cache_read/cache_write copy a buffer into a cache of the same shape. The reindex variants
 * copy only the one element the block touches per iteration, into a cache indexed by
 * `index_map(block iterators)`: with `lambda i, j: (j, i)` the block reads `B_shared[vj, vi]`
 * and the copy block `B_shared[vj, vi] = B[vi, vj]` runs over the block's own iteration space
 * (its loops and bindings, copied). The block must access the buffer at a single point, and
 * the map must be injective over the iterators that point uses.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {

namespace {

using namespace sched;

[[noreturn]] void ReindexError(const std::string& kind, const std::string& primitive,
                               const BlockNode* block, const std::string& message,
                               const std::string& check) {
  ScheduleError err(kind, primitive + ": " + message);
  err.Subject("block " + BlockName(block))
      .Check(check, false)
      .At(GetRef<ObjectRef>(block), message);
  throw err;
}

/*! \brief The single point (one index per dimension) at which `block` accesses `buf`. */
Array<PrimExpr> SinglePoint(const BlockNode* block, const Buffer& buf, bool write,
                            const std::string& primitive) {
  std::optional<Array<PrimExpr>> point;
  arith::Analyzer analyzer;
  for (const BufferRegion& r : write ? block->writes : block->reads) {
    if (!r->buffer.same_as(buf)) continue;
    Array<PrimExpr> p;
    for (const Range& rg : r->region) {
      if (!analyzer.CanProveEqual(rg->extent, 1)) {
        ReindexError("NotSinglePointAccess", primitive, block,
                     "block " + BlockName(block) + " accesses the region " + Repr(r) + " of " +
                         buf->name.str() + ", not a single point",
                     "the block accesses the buffer at a single point");
      }
      p.push_back(rg->min);
    }
    if (point && !StructuralEqual(*point, p)) {
      ReindexError(
          "NotSinglePointAccess", primitive, block,
          "block " + BlockName(block) + " accesses " + buf->name.str() + " at more than one point",
          "the block accesses the buffer at a single point");
    }
    point = p;
  }
  return point.value_or(Array<PrimExpr>());
}

/*!
 * \brief The cache of `buf` for `block` through `map` (one index per block iterator): its
 * shape, checked injective over the iterators `point` uses (a necessary condition: the cache
 * has at least as many elements as those iterators have combinations, and no new index uses
 * another iterator).
 */
Buffer ReindexBuffer(const BlockNode* block, const Buffer& buf, const IndexMap& map,
                     const Array<PrimExpr>& point, const std::string& storage,
                     const std::string& name, const std::string& primitive) {
  if (map->initial_indices.size() != block->iter_vars.size()) {
    ReindexError("IndexMapArityError", primitive, block,
                 "the index map takes " + std::to_string(map->initial_indices.size()) +
                     " indices but block " + BlockName(block) + " has " +
                     std::to_string(block->iter_vars.size()) + " iterators",
                 "the index map takes one index per block iterator");
  }
  std::unordered_set<const VarNode*> used;
  for (const PrimExpr& e : point) {
    for (const VarNode* v : UsedVars(e)) used.insert(v);
  }
  arith::Analyzer analyzer;
  Array<PrimExpr> extents;
  PrimExpr points = IntImm(DataType::Int(64), 1);
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    extents.push_back(iv->dom->extent);
    if (used.count(iv->var.get())) points = points * cast(DataType::Int(64), iv->dom->extent);
    if (!used.count(iv->var.get())) {
      for (const PrimExpr& e : map->final_indices) {
        if (UsesVar(e, map->initial_indices[k].get())) {
          ReindexError("NotInjectiveIndexMapError", primitive, block,
                       "the index map uses iterator " + iv->var->name_hint.str() +
                           ", which the access to " + buf->name.str() + " does not",
                       "the index map uses only the iterators of the access");
        }
      }
    }
  }
  Array<PrimExpr> shape = map.MapShape(extents, &analyzer);
  PrimExpr size = IntImm(DataType::Int(64), 1);
  for (const PrimExpr& s : shape) size = size * cast(DataType::Int(64), s);
  if (!analyzer.CanProve(size >= points)) {
    ReindexError("NotInjectiveIndexMapError", primitive, block,
                 "the index map sends the " + ExprStr(analyzer.Simplify(points)) + " points of " +
                     buf->name.str() + " the block accesses into a cache of " +
                     ExprStr(analyzer.Simplify(size)) + " elements",
                 "the index map is injective over the accessed points");
  }
  return Buffer(Var(name, buf->data.dtype()), buf->dtype, shape, {}, IntImm(DataType::Int(32), 0),
                name, storage, buf->data_alignment, buf->offset_factor);
}

/*! \brief Every access of `from` in a block becomes an access of `to` at `index`. */
class PointRedirector : public StmtExprMutator {
 public:
  PointRedirector(const BufferNode* from, Buffer to, Array<PrimExpr> index)
      : from_(from), to_(std::move(to)), index_(std::move(index)) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load && load->buffer.get() == from_) return BufferLoad(to_, index_);
    return e;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    if (store && store->buffer.get() == from_) return BufferStore(to_, store->value, index_);
    return s;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Block b = Downcast<Block>(StmtMutator::VisitStmt_(op));
    auto redirect = [&](const Array<BufferRegion>& regions) {
      Array<BufferRegion> out;
      for (const BufferRegion& r : regions) {
        if (r->buffer.get() != from_) {
          out.push_back(r);
          continue;
        }
        Array<Range> point;
        for (const PrimExpr& i : index_)
          point.push_back(Range::FromMinExtent(i, make_const(i.dtype(), 1)));
        out.push_back(BufferRegion(to_, point));
      }
      return out;
    };
    BlockNode* n = b.CopyOnWrite();
    n->reads = redirect(n->reads);
    n->writes = redirect(n->writes);
    return b;
  }

 private:
  const BufferNode* from_;
  Buffer to_;
  Array<PrimExpr> index_;
};

/*!
 * \brief The copy block `dst[dst_index] = src[src_index]` over the iterators of `block` that
 * `point` uses (all spatial, same domains and bindings), under copies of the loops between
 * `at` and the block that those bindings use.
 */
Stmt ReindexCopyNest(const FuncIndex& index, const BlockNode* block, const InsertPoint& at,
                     const Array<PrimExpr>& point, const Buffer& src,
                     const Array<PrimExpr>& src_index, const Buffer& dst,
                     const Array<PrimExpr>& dst_index, const std::string& name) {
  const StmtSRef& sref = index.Get(block);
  std::unordered_set<const VarNode*> used;
  for (const PrimExpr& e : point) {
    for (const VarNode* v : UsedVars(e)) used.insert(v);
  }
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  Array<IterVar> iters;
  std::vector<PrimExpr> bindings;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    if (!used.count(iv->var.get())) continue;
    Var v(iv->var->name_hint.str(), iv->var.dtype());
    vmap[iv->var.get()] = v;
    iters.push_back(IterVar(iv->dom, v, kDataPar));
    bindings.push_back(sref.realize->iter_values[k]);
  }
  // The loops under the insertion point that the kept bindings use, copied with fresh vars.
  std::unordered_set<const VarNode*> loop_used;
  for (const PrimExpr& b : bindings) {
    for (const VarNode* v : UsedVars(b)) loop_used.insert(v);
  }
  std::vector<const ForNode*> loops;
  for (const ForNode* l : index.LoopsAbove(block)) {
    if (l == at.parent || !index.IsAncestor(at.parent, l)) continue;
    if (loop_used.count(l->loop_var.get())) loops.push_back(l);
  }
  std::unordered_map<const VarNode*, PrimExpr> lmap;
  std::vector<Var> loop_vars;
  for (const ForNode* l : loops) {
    Var v(l->loop_var->name_hint.str(), l->loop_var.dtype());
    lmap[l->loop_var.get()] = v;
    loop_vars.push_back(v);
  }
  Array<PrimExpr> new_bindings;
  for (const PrimExpr& b : bindings) new_bindings.push_back(SubstituteVars(b, lmap));
  Array<PrimExpr> si, di;
  for (const PrimExpr& e : src_index) si.push_back(SubstituteVars(e, vmap));
  for (const PrimExpr& e : dst_index) di.push_back(SubstituteVars(e, vmap));
  Stmt store = BufferStore(dst, BufferLoad(src, si), di);
  Block copy = RecomputeAccess(Block(iters, {}, {}, name, store));
  Stmt body = BlockRealize(new_bindings, const_true(), copy);
  for (size_t k = loops.size(); k-- > 0;) {
    const ForNode* l = loops[k];
    body = For(loop_vars[k], SubstituteVars(l->min, lmap), SubstituteVars(l->extent, lmap), l->kind,
               body, l->thread_binding, l->annotations);
  }
  return body;
}

/*! \brief The cache's indices in the block: the map applied to the block's iterators. */
Array<PrimExpr> CacheIndex(const BlockNode* block, const IndexMap& map) {
  Array<PrimExpr> vars;
  for (const IterVar& iv : block->iter_vars) vars.push_back(iv->var);
  arith::Analyzer analyzer;
  return SimplifyAll(&analyzer, map.MapIndices(vars));
}

Array<ObjectRef> ReindexCacheRead(ScheduleNode* self, const BlockRV& block_rv, int64_t i,
                                  const std::string& storage, const IndexMap& map) {
  const char* primitive = "reindex_cache_read";
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  CheckStorageScope(storage);
  const BlockNode* scope = index.ScopeBlock(block);
  if (scope == nullptr || index.Get(block).realize == nullptr) {
    MINITVM_THROW(ValueError) << primitive << ": the root block has no buffers to cache";
  }
  Buffer buf = BlockBuffer(block, i, /*write=*/false, primitive);
  Array<PrimExpr> point = SinglePoint(block, buf, /*write=*/false, primitive);
  std::string name = buf->name.str() + "_" + storage;
  Buffer cache = ReindexBuffer(block, buf, map, point, storage, name, primitive);
  std::string block_name = UniqueBlockName(index, name);
  std::vector<const BlockNode*> writers;
  for (const BlockNode* b : BlocksInScope(index, scope)) {
    if (RegionsHave(b->writes, buf.get())) writers.push_back(b);
  }
  auto at = FindInsertPoint(scope, writers, {block}, /*anchor_after=*/true);
  if (!at) NoPosition(primitive, block, buf);
  Array<PrimExpr> cache_index = CacheIndex(block, map);
  Stmt copy = ReindexCopyNest(index, block, *at, point, buf, point, cache, cache_index, block_name);
  std::unordered_map<const Object*, Stmt> repl;
  repl[block] = PointRedirector(buf.get(), cache, cache_index).VisitStmt(GetRef<Stmt>(block));
  InstallCopy(self, func, index, scope, *at, copy, repl, cache);
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(block_name).at(0))};
}

Array<ObjectRef> ReindexCacheWrite(ScheduleNode* self, const BlockRV& block_rv, int64_t i,
                                   const std::string& storage, const IndexMap& map) {
  const char* primitive = "reindex_cache_write";
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  CheckStorageScope(storage);
  const BlockNode* scope = index.ScopeBlock(block);
  if (scope == nullptr || index.Get(block).realize == nullptr) {
    MINITVM_THROW(ValueError) << primitive << ": the root block has no buffers to cache";
  }
  Buffer buf = BlockBuffer(block, i, /*write=*/true, primitive);
  Array<PrimExpr> point = SinglePoint(block, buf, /*write=*/true, primitive);
  for (const BlockNode* other : BlocksInScope(index, scope)) {
    if (other != block && RegionsHave(other->writes, buf.get())) {
      ReindexError("NotSingleWriteBlock", primitive, block,
                   "block " + BlockName(other) + " also writes " + buf->name.str(),
                   "the block is the only writer of the buffer in its scope");
    }
  }
  std::string name = buf->name.str() + "_" + storage;
  Buffer cache = ReindexBuffer(block, buf, map, point, storage, name, primitive);
  std::string block_name = UniqueBlockName(index, name);
  std::vector<const BlockNode*> readers;
  for (const BlockNode* b : BlocksInScope(index, scope)) {
    if (b != block && RegionsHave(b->reads, buf.get())) readers.push_back(b);
  }
  auto at = FindInsertPoint(scope, {block}, readers, /*anchor_after=*/false);
  if (!at) NoPosition(primitive, block, buf);
  Array<PrimExpr> cache_index = CacheIndex(block, map);
  Stmt copy = ReindexCopyNest(index, block, *at, point, cache, cache_index, buf, point, block_name);
  std::unordered_map<const Object*, Stmt> repl;
  repl[block] = PointRedirector(buf.get(), cache, cache_index).VisitStmt(GetRef<Stmt>(block));
  InstallCopy(self, func, index, scope, *at, copy, repl, cache);
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(block_name).at(0))};
}

InstructionKindInfo ReindexInstKind(const std::string& name, const std::string& method,
                                    const std::string& index_attr,
                                    Array<ObjectRef> (*fn)(ScheduleNode*, const BlockRV&, int64_t,
                                                           const std::string&, const IndexMap&)) {
  auto k =
      MakeInstructionKind(name, method, {"block"}, {index_attr, "storage_scope", "index_map"}, fn);
  k.print_args = [index_attr](const std::vector<std::string>& in, const Array<Any>& attrs) {
    return "block=" + in[0] + ", " + index_attr + "=" + PythonLiteral(attrs[0]) +
           ", storage_scope=" + PythonLiteral(attrs[1]) + ", index_map=" + PythonLiteral(attrs[2]);
  };
  return k;
}

}  // namespace

MINITVM_REGISTER_INST_KIND(ReindexInstKind("ReindexCacheRead", "reindex_cache_read",
                                           "read_buffer_index", ReindexCacheRead));
MINITVM_REGISTER_INST_KIND(ReindexInstKind("ReindexCacheWrite", "reindex_cache_write",
                                           "write_buffer_index", ReindexCacheWrite));

}  // namespace tir
}  // namespace minitvm
