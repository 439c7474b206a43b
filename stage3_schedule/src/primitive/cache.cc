/*!
 * \file primitive/cache.cc
 * \brief `cache_read` and `cache_write` (stage 3): stage a buffer through a copy in another
 * storage scope ("shared", "local", "global").
 *
 * cache_read(block, i, "shared") adds a block `A_shared[v] = A[v]` before the first reader of
 * `A` and makes the readers load `A_shared` instead. cache_write(block, i, "local") makes the
 * block write `C_local` and adds a block `C[v] = C_local[v]` after it. The copy blocks cover the
 * whole buffer; move them with compute_at / reverse_compute_at to copy tiles.
 */
#include <cstring>

#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {

namespace sched {

/*!
 * \brief A storage scope as TVM reads one: a rank ("global", "shared", "warp", "local"),
 * optionally tagged ("shared.dyn", "global.tmp"), or a special memory ("wmma.matrix_a",
 * "metal.simdgroup", "texture"); anything else is an InvalidStorageScopeError.
 */
void CheckStorageScope(const std::string& scope) {
  for (const char* rank : {"global", "shared", "warp", "local"}) {
    size_t n = std::strlen(rank);
    if (scope.compare(0, n, rank) == 0 && (scope.size() == n || scope[n] == '.')) return;
  }
  for (const char* special :
       {"wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator", "metal.simdgroup", "texture"}) {
    if (scope.rfind(special, 0) == 0) return;
  }
  throw ScheduleError("InvalidStorageScopeError",
                      "unknown storage scope \"" + scope +
                          "\": a scope is \"global\", \"shared\", \"warp\" or \"local\", "
                          "optionally with a tag (\"shared.dyn\", \"global.tmp\")");
}

/*! \brief A buffer like `buf` in another scope, with a fresh data variable. */
Buffer CacheBuffer(const Buffer& buf, const std::string& scope, const std::string& name) {
  return Buffer(Var(name, buf->data.dtype()), buf->dtype, buf->shape, {},
                IntImm(DataType::Int(32), 0), name, scope, buf->data_alignment, buf->offset_factor);
}

/*!
 * \brief Loops and a block `dst[v...] = src[v...]` covering `region` of the buffers (each
 * iterator v_k spans the buffer's dimension and is bound to `region[k].min + ax_k`).
 */
Stmt CopyBlockNest(const Buffer& src, const Buffer& dst, const std::string& name,
                   const std::vector<Range>& region, arith::Analyzer* analyzer) {
  std::vector<Var> loops;
  std::vector<PrimExpr> extents;
  Array<IterVar> iters;
  Array<PrimExpr> indices, bindings;
  std::vector<PrimExpr> conds;
  for (size_t k = 0; k < dst->shape.size(); ++k) {
    DataType t = dst->shape[k].dtype();
    Var ax("ax" + std::to_string(k), t);
    Var v("v" + std::to_string(k), t);
    loops.push_back(ax);
    extents.push_back(region[k]->extent);
    iters.push_back(IterVar(Range(IntImm(t, 0), dst->shape[k]), v, kDataPar));
    indices.push_back(v);
    PrimExpr value = analyzer->Simplify(region[k]->min + ax);
    bindings.push_back(value);
    // A region taken under a predicate (a split with a remainder) may run past the buffer.
    analyzer->Bind(ax, Range(IntImm(t, 0), region[k]->extent), true);
    if (!analyzer->CanProve(region[k]->min + region[k]->extent <= dst->shape[k])) {
      conds.push_back(value < dst->shape[k]);
    }
    if (!analyzer->CanProve(region[k]->min >= 0)) conds.push_back(value >= 0);
  }
  Stmt store = BufferStore(dst, BufferLoad(src, indices), indices);
  Block block = RecomputeAccess(Block(iters, {}, {}, name, store));
  return MakeLoopNest(loops, extents, BlockRealize(bindings, JoinConjuncts(conds), block));
}

Stmt CopyBlockNest(const Buffer& src, const Buffer& dst, const std::string& name,
                   const std::vector<Range>& region) {
  arith::Analyzer analyzer;
  return CopyBlockNest(src, dst, name, region, &analyzer);
}

/*! \brief Bind every loop and block iterator of the function to its range. */
void BindEverything(arith::Analyzer* analyzer, const FuncIndex& index) {
  for (const BlockNode* blk : index.blocks()) {
    for (const IterVar& iv : blk->iter_vars) analyzer->Bind(iv->var, iv->dom, true);
    for (const ForNode* l : index.LoopsAbove(blk)) {
      analyzer->Bind(l->loop_var, Range(l->min, l->extent), true);
    }
  }
}

Stmt CopyBlockNest(const Buffer& src, const Buffer& dst, const std::string& name) {
  std::vector<Range> full;
  for (const PrimExpr& s : dst->shape) full.push_back(Range(IntImm(s.dtype(), 0), s));
  return CopyBlockNest(src, dst, name, full);
}

/*!
 * \brief The region of `buffer` that `blocks` access (reads or writes) in one iteration of
 * `anchor` (a loop, or the scope block): their regions relaxed over the loops under it, clipped
 * to the buffer (a read region that cannot be bounded falls back to the whole dimension).
 */
std::vector<Range> ScopeRegion(const FuncIndex& index, const std::vector<const BlockNode*>& blocks,
                               const Buffer& buffer, bool writes, const StmtNode* anchor) {
  arith::Analyzer analyzer;
  // Everything the region may mention (outer loops, iterators of enclosing blocks) has a range.
  BindEverything(&analyzer, index);
  std::vector<Range> out;
  for (const BlockNode* b : blocks) {
    const StmtSRef& s = index.Get(b);
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      vmap[b->iter_vars[i]->var.get()] = s.realize->iter_values[i];
    }
    std::unordered_map<const VarNode*, arith::IntSet> dom;
    for (const ForNode* l : index.LoopsAbove(b)) {
      if (l == anchor || !index.IsAncestor(anchor, l)) continue;  // loops outside stay symbolic
      dom[l->loop_var.get()] = arith::IntSet::FromRange(Range(l->min, l->extent));
    }
    for (const BufferRegion& r : writes ? b->writes : b->reads) {
      if (!r->buffer.same_as(buffer)) continue;
      for (size_t k = 0; k < r->region.size(); ++k) {
        Range rg = RelaxRange(&analyzer, SubstituteVars(r->region[k]->min, vmap),
                              SubstituteVars(r->region[k]->extent, vmap), dom);
        if (k < out.size()) {
          out[k] = UnionRange(&analyzer, out[k], rg);
        } else {
          out.push_back(rg);
        }
      }
    }
  }
  // Accesses guarded by conditions (padding) may be relaxed beyond the buffer: clip to it.
  for (size_t k = 0; k < buffer->shape.size(); ++k) {
    Range full(IntImm(buffer->shape[k].dtype(), 0), buffer->shape[k]);
    if (k >= out.size()) {
      out.push_back(full);
      continue;
    }
    PrimExpr lo = out[k]->min, hi = out[k]->min + out[k]->extent;
    bool in_bounds = analyzer.CanProve(lo >= 0) && analyzer.CanProve(hi <= buffer->shape[k]);
    auto clo = ConstValue(analyzer.Simplify(lo)), chi = ConstValue(analyzer.Simplify(hi));
    auto cshape = ConstValue(buffer->shape[k]);
    if (in_bounds) continue;
    if (clo && chi && cshape) {
      int64_t a = std::max<int64_t>(*clo, 0), b = std::min<int64_t>(*chi, *cshape);
      out[k] = Range(IntImm(lo.dtype(), a), IntImm(lo.dtype(), std::max<int64_t>(b - a, 0)));
    } else if (!writes) {
      out[k] = full;  // copying more than is read is harmless; more than is written is not
    }
  }
  return out;
}

/*! \brief Replace loads (and read regions) of one buffer, leaving stores alone. */
class ReadRedirector : public StmtExprMutator {
 public:
  ReadRedirector(const BufferNode* from, Buffer to) : from_(from), to_(std::move(to)) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load && load->buffer.get() == from_) return BufferLoad(to_, load->indices);
    return e;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Block b = Downcast<Block>(StmtMutator::VisitStmt_(op));
    if (!RegionsHave(b->reads, from_)) return b;
    Array<BufferRegion> reads;
    for (const BufferRegion& r : b->reads) {
      reads.push_back(r->buffer.get() == from_ ? BufferRegion(to_, r->region) : r);
    }
    b.CopyOnWrite()->reads = reads;
    return b;
  }

 private:
  const BufferNode* from_;
  Buffer to_;
};

/*!
 * \brief The statement under the Allocate / DeclBuffer statements that make up the whole of
 * `body` (a copy goes inside them, where the buffers they define are visible).
 */
Stmt Unwrapped(const Stmt& body) {
  Stmt s = body;
  while (true) {
    if (auto* a = s.as<AllocateNode>()) {
      s = a->body;
    } else if (auto* d = s.as<DeclBufferNode>()) {
      s = d->body;
    } else {
      return s;
    }
  }
}

/*! \brief `body` with the statement under its wrappers (see Unwrapped) replaced by `inner`. */
Stmt Rewrapped(const Stmt& body, const Stmt& inner) {
  if (auto* a = body.as<AllocateNode>()) {
    return Allocate(a->buffer_var, a->dtype, a->extents, a->condition, Rewrapped(a->body, inner),
                    a->scope, a->annotations);
  }
  if (auto* d = body.as<DeclBufferNode>()) return DeclBuffer(d->buffer, Rewrapped(d->body, inner));
  return inner;
}

std::vector<Stmt> BodyOf(const StmtNode* parent) {
  if (auto* loop = dynamic_cast<const ForNode*>(parent)) return AsSeq(Unwrapped(loop->body));
  return AsSeq(Unwrapped(static_cast<const BlockNode*>(parent)->body));
}

bool HoldsAny(const Stmt& s, const std::vector<const BlockNode*>& blocks) {
  bool found = false;
  PostOrderVisit(s, [&](const ObjectRef& n) {
    for (const BlockNode* b : blocks) found |= n.get() == b;
  });
  return found;
}

/*!
 * \brief The highest place for a copy that must run after every block of `before` and before
 * every block of `after` (all in `scope`): at the scope's body when they are in different
 * statements, else inside the loop holding both, recursively. `anchor_after` says whether the
 * copy goes right before the first `after` statement (cache_read) or right after the last
 * `before` statement (cache_write). nullopt when no such place exists.
 */
std::optional<InsertPoint> FindInsertPoint(const BlockNode* scope,
                                           const std::vector<const BlockNode*>& before,
                                           const std::vector<const BlockNode*>& after,
                                           bool anchor_after) {
  const StmtNode* parent = scope;
  while (true) {
    std::vector<Stmt> seq = BodyOf(parent);
    int64_t n = static_cast<int64_t>(seq.size());
    int64_t first_after = n, last_before = -1;
    for (int64_t i = 0; i < n; ++i) {
      if (HoldsAny(seq[i], after) && first_after == n) first_after = i;
      if (HoldsAny(seq[i], before)) last_before = i;
    }
    if (last_before < first_after) {
      return InsertPoint{parent, anchor_after ? first_after : last_before + 1};
    }
    // Both sides share one statement: go into it when it is a loop holding them.
    if (last_before != first_after) return std::nullopt;
    const Stmt& shared = seq[first_after];
    auto* loop = shared.as<ForNode>();
    if (loop == nullptr) return std::nullopt;
    parent = loop;
  }
}

/*!
 * \brief Put `copy` at `at`, redirect the blocks in `repl`, and allocate `alloc` in `scope`.
 */
void InstallCopy(ScheduleNode* self, const std::string& func, const FuncIndex& index,
                 const BlockNode* scope, const InsertPoint& at, const Stmt& copy,
                 const std::unordered_map<const Object*, Stmt>& repl, const Buffer& alloc) {
  Stmt parent = ReplaceStmts(GetRef<Stmt>(at.parent), repl);
  Stmt old_body = parent.as<ForNode>() ? parent.as<ForNode>()->body : Downcast<Block>(parent)->body;
  std::vector<Stmt> seq = AsSeq(Unwrapped(old_body));
  seq.insert(seq.begin() + at.pos, copy);
  Stmt body = Rewrapped(old_body, SeqStmt::Flatten(Array<Stmt>(seq)));
  if (auto* loop = parent.as<ForNode>()) {
    For f = GetRef<For>(loop);
    f.CopyOnWrite()->body = body;
    parent = f;
  } else {
    Block b = Downcast<Block>(parent);
    b.CopyOnWrite()->body = body;
    parent = b;
  }
  std::unordered_map<const Object*, Stmt> all = repl;
  all[at.parent] = parent;
  PrimFunc f1 = ReplaceInFunc(index.func(), all);
  // Allocate the cache in the scope block (found again by name in the new function).
  FuncIndex mid(f1);
  const BlockNode* new_scope = scope == index.root() ? mid.root() : nullptr;
  if (new_scope == nullptr) new_scope = mid.BlocksNamed(scope->name_hint.str()).at(0);
  Block sb = GetRef<Block>(new_scope);
  sb.CopyOnWrite()->alloc_buffers.push_back(alloc);
  self->mutable_state()->Replace(func, ReplaceInFunc(f1, {{new_scope, sb}}));
}

[[noreturn]] void NoPosition(const std::string& primitive, const BlockNode* block,
                             const Buffer& buf) {
  ScheduleError err("CachePositionError",
                    primitive + ": there is no place for the copy of " + buf->name.str() +
                        " that runs after every write and before every read of it it serves");
  err.Subject("block " + BlockName(block))
      .Check("the copy can run between the writers and the readers of " + buf->name.str(), false)
      .At(GetRef<ObjectRef>(block), "caching " + buf->name.str());
  throw err;
}

}  // namespace sched

namespace {

using namespace sched;

const BlockNode* ScopeOf(const FuncIndex& index, const BlockNode* block, const char* primitive) {
  const BlockNode* scope = index.ScopeBlock(block);
  if (scope == nullptr || index.Get(block).realize == nullptr) {
    MINITVM_THROW(ValueError) << primitive << ": the root block has no buffers to cache";
  }
  return scope;
}

/*!
 * \brief cache_read: the `i`-th buffer `block_rv` reads is read through a copy in `storage`
 * (by `given` consumers, or by every reader); returns the copy block.
 */
Array<ObjectRef> CacheRead(ScheduleNode* self, const BlockRV& block_rv,
                           const Array<ObjectRef>& given, int64_t i, const std::string& storage) {
  // Step 1: the block, the scope and the buffer.
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  CheckStorageScope(storage);
  const BlockNode* scope = ScopeOf(index, block, "cache_read");
  Buffer buf = BlockBuffer(block, i, /*write=*/false, "cache_read");

  // Step 2: the readers to redirect.
  std::vector<const BlockNode*> consumers;
  if (given.empty()) {
    for (const BlockNode* b : BlocksInScope(index, scope)) {
      if (RegionsHave(b->reads, buf.get())) consumers.push_back(b);
    }
  } else {
    consumers.push_back(block);
    for (const ObjectRef& rv : given) {
      auto [f, s] = self->Resolve(rv);
      const BlockNode* c = AsBlock(s);
      if (c != block) consumers.push_back(c);
    }
  }
  std::string name = buf->name.str() + "_" + storage;
  Buffer cache = CacheBuffer(buf, storage, name);
  std::string block_name = UniqueBlockName(index, name);

  std::vector<const BlockNode*> writers;
  for (const BlockNode* b : BlocksInScope(index, scope)) {
    if (RegionsHave(b->writes, buf.get())) writers.push_back(b);
  }
  // A buffer nothing in the scope writes (an input) is copied first thing in the scope, as TVM.
  auto at = writers.empty() ? std::optional<InsertPoint>(InsertPoint{scope, 0})
                            : FindInsertPoint(scope, writers, consumers, /*anchor_after=*/true);
  if (!at) NoPosition("cache_read", block, buf);
  std::unordered_map<const Object*, Stmt> repl;
  for (const BlockNode* c : consumers) {
    repl[c] = ReadRedirector(buf.get(), cache).VisitStmt(GetRef<Stmt>(c));
  }
  std::vector<Range> region = ScopeRegion(index, consumers, buf, /*writes=*/false, at->parent);
  arith::Analyzer analyzer;
  BindEverything(&analyzer, index);
  InstallCopy(self, func, index, scope, *at,
              CopyBlockNest(buf, cache, block_name, region, &analyzer), repl, cache);
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(block_name).at(0))};
}

/*!
 * \brief cache_write: `block_rv` writes its `i`-th written buffer through a copy in `storage`,
 * copied back after it (read from the copy by `given` consumers); returns the copy block.
 */
Array<ObjectRef> CacheWrite(ScheduleNode* self, const BlockRV& block_rv,
                            const Array<ObjectRef>& given, int64_t i, const std::string& storage) {
  // Step 1: the block (the only writer of the buffer, computing what it writes).
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  CheckStorageScope(storage);
  const BlockNode* scope = ScopeOf(index, block, "cache_write");
  Buffer buf = BlockBuffer(block, i, /*write=*/true, "cache_write");
  for (const BlockNode* other : BlocksInScope(index, scope)) {
    if (other != block && RegionsHave(other->writes, buf.get())) {
      ScheduleError err("NotSingleWriteBlock", "cache_write needs block " + BlockName(block) +
                                                   " to be the only writer of " + buf->name.str() +
                                                   ", but block " + BlockName(other) +
                                                   " also writes it");
      err.Subject("block " + BlockName(block))
          .Check("the block is the only writer of the buffer in its scope", false)
          .At(GetRef<ObjectRef>(other), "also writes " + buf->name.str());
      throw err;
    }
  }
  // The cache starts empty: the block must produce every element it writes (no update of
  // values computed elsewhere).
  if (RegionsHave(block->reads, buf.get()) && !block->init.defined()) {
    ScheduleError err("NotCompleteOrReductionBlockError",
                      "cache_write needs block " + BlockName(block) +
                          " to compute what it writes, but it updates " + buf->name.str() +
                          " in place (it reads it and has no init)");
    err.Subject("block " + BlockName(block))
        .Check("the block is complete, or a reduction with its init", false)
        .At(GetRef<ObjectRef>(block), "reads " + buf->name.str() + " without an init");
    throw err;
  }
  std::string name = buf->name.str() + "_" + storage;
  Buffer cache = CacheBuffer(buf, storage, name);
  std::string block_name = UniqueBlockName(index, name);

  std::unordered_map<const Object*, Stmt> repl;
  repl[block] = ReplaceBuffers(GetRef<Stmt>(block), {{buf.get(), cache}});
  std::vector<const BlockNode*> readers;
  for (const BlockNode* b : BlocksInScope(index, scope)) {
    if (b != block && RegionsHave(b->reads, buf.get())) readers.push_back(b);
  }
  for (const ObjectRef& rv : given) {
    auto [f, s] = self->Resolve(rv);
    const BlockNode* c = AsBlock(s);
    if (c != block) {
      repl[c] = ReadRedirector(buf.get(), cache).VisitStmt(GetRef<Stmt>(c));
      readers.erase(std::remove(readers.begin(), readers.end(), c), readers.end());
    }
  }
  auto at = FindInsertPoint(scope, {block}, readers, /*anchor_after=*/false);
  if (!at) NoPosition("cache_write", block, buf);
  std::vector<Range> region = ScopeRegion(index, {block}, buf, /*writes=*/true, at->parent);
  arith::Analyzer analyzer;
  BindEverything(&analyzer, index);
  InstallCopy(self, func, index, scope, *at,
              CopyBlockNest(cache, buf, block_name, region, &analyzer), repl, cache);
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(block_name).at(0))};
}

/*! \brief The instruction kind of cache_read or cache_write (they differ in names only). */
InstructionKindInfo CacheInstKind(const std::string& name, const std::string& method,
                                  const std::string& index_attr,
                                  Array<ObjectRef> (*fn)(ScheduleNode*, const BlockRV&,
                                                         const Array<ObjectRef>&, int64_t,
                                                         const std::string&)) {
  auto k = MakeInstructionKind(name, method, {"block", "consumer_blocks"},
                               {index_attr, "storage_scope"}, fn);
  k.defaults = {{"consumer_blocks", Any(Array<Any>())}};
  k.python_params = {"block", index_attr, "storage_scope", "consumer_blocks"};
  k.print_args = [index_attr](const std::vector<std::string>& in, const Array<Any>& attrs) {
    std::string s = "block=" + in[0] + ", " + index_attr + "=" + PythonLiteral(attrs[0]) +
                    ", storage_scope=" + PythonLiteral(attrs[1]);
    if (in.size() > 1 && in[1] != "[]") s += ", consumer_blocks=" + in[1];
    return s;
  };
  return k;
}

}  // namespace

MINITVM_REGISTER_INST_KIND(CacheInstKind("CacheRead", "cache_read", "read_buffer_index",
                                         CacheRead));
MINITVM_REGISTER_INST_KIND(CacheInstKind("CacheWrite", "cache_write", "write_buffer_index",
                                         CacheWrite));

}  // namespace tir
}  // namespace minitvm
