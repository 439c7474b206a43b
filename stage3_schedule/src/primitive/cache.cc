/*!
 * \file primitive/cache.cc
 * \brief `cache_read`, `cache_write` and `cache_inplace` (stage 3): stage a buffer through a
 * copy in another storage scope ("shared", "local", "global").
 *
 * cache_read(block, i, "shared") adds a block `A_shared[v] = A[v]` and makes the readers load
 * `A_shared` instead. cache_write(block, i, "local") makes the block write `C_local` and adds a
 * block `C[v] = C_local[v]` copying it back. The copies go where TVM puts them: after the
 * buffer's only writer, before its first reader, in the innermost loop holding both (or at the
 * scope's top level), holding the region the writer produces there. Move them with compute_at /
 * reverse_compute_at to copy tiles. The placement helpers at the top are shared with
 * reindex_cache.cc.
 */
#include <cstring>

#include "../instruction.h"
#include "../utils.h"
#include "minitvm/arith/linear_form.h"

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

/*! \brief The region of `buffer` in a region list (the first one naming it), if any. */
std::optional<BufferRegion> RegionOf(const Array<BufferRegion>& regions, const Buffer& buffer) {
  for (const BufferRegion& r : regions) {
    if (r->buffer.same_as(buffer)) return r;
  }
  return std::nullopt;
}

/*! \brief Every index of `buffer`: the region [0, shape). */
std::vector<Range> FullRegion(const Buffer& buffer) {
  std::vector<Range> out;
  for (const PrimExpr& s : buffer->shape) out.push_back(Range(IntImm(s.dtype(), 0), s));
  return out;
}

/*!
 * \brief The single block of `scope` writing `buffer` (nullptr when none does); a
 * NotSingleWriteBlock error when several do.
 */
const BlockNode* OnlyWriter(const FuncIndex& index, const BlockNode* scope, const Buffer& buffer,
                            const std::string& primitive, const BlockNode* subject) {
  std::vector<const BlockNode*> writers;
  for (const BlockNode* b : BlocksInScope(index, scope)) {
    if (RegionsHave(b->writes, buffer.get())) writers.push_back(b);
  }
  if (writers.size() <= 1) return writers.empty() ? nullptr : writers[0];
  ScheduleError err("NotSingleWriteBlock",
                    primitive + " needs " + buffer->name.str() +
                        " to be written by a single block of its scope, but " +
                        std::to_string(writers.size()) + " blocks write it (" +
                        BlockName(writers[0]) + " and " + BlockName(writers[1]) + ")");
  err.Subject("block " + BlockName(subject))
      .Check("the buffer is written by at most one block in the scope", false);
  for (const BlockNode* w : writers) err.At(GetRef<ObjectRef>(w), "writes " + buffer->name.str());
  throw err;
}

/*!
 * \brief The blocks of the scope that read what `writer` writes after it runs (its
 * read-after-write dependents, in execution order), leaving out `skip`.
 */
std::vector<const BlockNode*> RawDependents(const FuncIndex& index, const BlockNode* scope,
                                            const BlockNode* writer,
                                            const std::unordered_set<const BlockNode*>& skip) {
  std::vector<const BlockNode*> out;
  bool after = false;
  for (const BlockNode* b : BlocksInScope(index, scope)) {
    if (b == writer) {
      after = true;
      continue;
    }
    if (!after || skip.count(b)) continue;
    for (const BufferRegion& w : writer->writes) {
      if (RegionsHave(b->reads, w->buffer.get())) {
        out.push_back(b);
        break;
      }
    }
  }
  return out;
}

/*! \brief The given consumer blocks and the blocks directly under them. */
std::unordered_set<const BlockNode*> ConsumerSet(ScheduleNode* self, const FuncIndex& index,
                                                 const Array<ObjectRef>& given) {
  std::unordered_set<const BlockNode*> out;
  for (const ObjectRef& rv : given) {
    const BlockNode* c = AsBlock(self->Resolve(rv).second);
    out.insert(c);
    for (const BlockNode* child : index.ChildBlocks(c)) out.insert(child);
  }
  return out;
}

/*! \brief Where the copy goes: into the body of `loc` (a loop or the scope block) at `pos`. */
struct CopyPlace {
  const StmtNode* loc = nullptr;
  int64_t pos = -1;
};

/*!
 * \brief The place of a cache copy, found as TVM does: walking the scope in execution order,
 * the copy goes right before the first statement holding a `related` block (a reader for
 * cache_read, a reader left on the original buffer for cache_write) in the innermost
 * statement list that also holds `writer` before it; the list is the body of the innermost
 * loop holding both, or of the scope block.
 */
class CopyPlaceFinder : public StmtVisitor {
 public:
  CopyPlaceFinder(const BlockNode* scope, const BlockNode* writer,
                  std::unordered_set<const BlockNode*> related)
      : scope_(scope), writer_(writer), related_(std::move(related)) {}

  CopyPlace place;

  void VisitStmt_(const SeqStmtNode* op) override {
    bool writer_before = seen_writer_;
    seen_writer_ = false;
    for (size_t i = 0; i < op->seq.size() && place.pos == -1; ++i) {
      VisitStmt(op->seq[i]);
      if (seen_writer_ && seen_related_ && place.pos == -1) {
        place.pos = static_cast<int64_t>(i);
        break;
      }
      if (seen_related_) break;
    }
    seen_writer_ = seen_writer_ || writer_before;
  }
  void VisitStmt_(const BlockNode* op) override {
    if (op == scope_) {
      StmtVisitor::VisitStmt_(op);
      if (seen_related_ && place.loc == nullptr) {
        place.loc = op;
        if (!seen_writer_ && place.pos == -1) place.pos = 0;  // reading a buffer before its writer
      }
    } else if (op == writer_) {
      seen_writer_ = true;
    } else if (related_.count(op)) {
      seen_related_ = true;
    }
  }
  void VisitStmt_(const ForNode* op) override {
    StmtVisitor::VisitStmt_(op);
    if (seen_writer_ && seen_related_ && place.loc == nullptr && place.pos != -1) place.loc = op;
  }

 private:
  const BlockNode* scope_;
  const BlockNode* writer_;
  std::unordered_set<const BlockNode*> related_;
  bool seen_writer_ = false;
  bool seen_related_ = false;
};

/*! \brief The number of statements of a body (under its Allocate / DeclBuffer wrappers). */
int64_t BodyLength(const Stmt& body) {
  Stmt s = Unwrapped(body);
  auto* seq = s.as<SeqStmtNode>();
  return seq == nullptr ? 1 : static_cast<int64_t>(seq->seq.size());
}

/*!
 * \brief The place of the copy of a buffer `writer` writes (nullptr: an input of the scope)
 * that `related` blocks must see: before the first of them after the writer, or at the end of
 * the scope when there are none.
 */
CopyPlace FindCopyPlace(const BlockNode* scope, const BlockNode* writer,
                        const std::vector<const BlockNode*>& related) {
  if (related.empty()) return {scope, BodyLength(scope->body)};
  CopyPlaceFinder finder(scope, writer, {related.begin(), related.end()});
  finder(GetRef<Stmt>(scope));
  return finder.place;
}

/*!
 * \brief The place of cache_inplace's copies: the innermost statement list holding `block`,
 * at the block's position (the copy in goes before it; the copy out goes one further).
 */
class InplacePlaceFinder : public StmtVisitor {
 public:
  InplacePlaceFinder(const BlockNode* scope, const BlockNode* block)
      : scope_(scope), block_(block) {}

  CopyPlace place;

  void VisitStmt_(const SeqStmtNode* op) override {
    for (size_t i = 0; i < op->seq.size() && place.pos == -1; ++i) {
      VisitStmt(op->seq[i]);
      if (seen_ && place.pos == -1) {
        place.pos = static_cast<int64_t>(i);
        return;
      }
    }
  }
  void VisitStmt_(const BlockNode* op) override {
    if (op == scope_) {
      StmtVisitor::VisitStmt_(op);
      Claim(op);
    } else if (op == block_) {
      seen_ = true;
    }
  }
  void VisitStmt_(const ForNode* op) override {
    StmtVisitor::VisitStmt_(op);
    Claim(op);
  }

 private:
  void Claim(const StmtNode* node) {
    if (!seen_ || place.loc != nullptr) return;
    place.loc = node;
    if (place.pos == -1) place.pos = 0;
  }
  const BlockNode* scope_;
  const BlockNode* block_;
  bool seen_ = false;
};

/*! \brief A storage scope's rank: global 0, shared 1, warp 2, local (and others) 3. */
int StorageRank(const std::string& scope) {
  auto is = [&](const char* rank) {
    size_t n = std::strlen(rank);
    return scope.compare(0, n, rank) == 0 && (scope.size() == n || scope[n] == '.');
  };
  if (scope.empty() || is("global")) return 0;
  if (is("shared")) return 1;
  if (is("warp")) return 2;
  return 3;
}

/*!
 * \brief Whether a buffer of `scope` is shared by the threads of a loop bound to `tag` (so the
 * region one thread touches is relaxed over the loop): global memory across blocks and
 * threads, shared memory across the threads of a block, warp memory across threadIdx.x.
 */
bool SharedAcrossThread(const std::string& scope, const std::string& tag) {
  int rank = StorageRank(scope);
  int thread_rank = tag.rfind("blockIdx", 0) == 0 ? 0 : tag.rfind("threadIdx", 0) == 0 ? 1 : -1;
  if (thread_rank < 0) return false;
  if (rank == 2) return tag == "threadIdx.x";
  return rank <= thread_rank;
}

/*!
 * \brief The region `region` (accessed by `block`) covers in one run of the body of `loc`:
 * relaxed over the loops between the block and `loc` (and over the thread-bound loops that
 * share the buffer), bounded to the buffer where the access runs under a predicate.
 */
std::vector<Range> RelaxedRegion(const FuncIndex& index, const BlockNode* block,
                                 const BufferRegion& region, const StmtNode* loc) {
  // As TVM: only the relaxed loops have ranges (iterators of enclosing blocks stay symbolic).
  arith::Analyzer analyzer;
  const StmtSRef& sref = index.Get(block);
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    vmap[block->iter_vars[i]->var.get()] = sref.realize->iter_values[i];
  }
  std::string scope = region->buffer->scope.str();
  std::unordered_map<const VarNode*, arith::IntSet> dom;
  for (const ForNode* l : index.LoopsAbove(block)) {
    bool inside = l != loc && index.IsAncestor(loc, l);
    bool shared = l->kind == ForKind::kThreadBinding && l->thread_binding.defined() &&
                  SharedAcrossThread(scope, l->thread_binding->thread_tag.str());
    if (inside || shared)
      dom[l->loop_var.get()] = arith::IntSet::FromRange(Range(l->min, l->extent));
  }
  const Buffer& buffer = region->buffer;
  std::vector<Range> out;
  for (size_t k = 0; k < region->region.size(); ++k) {
    Range full(IntImm(buffer->shape[k].dtype(), 0), buffer->shape[k]);
    std::optional<Range> r =
        arith::RelaxRange(&analyzer, SubstituteVars(region->region[k]->min, vmap),
                          SubstituteVars(region->region[k]->extent, vmap), dom);
    if (!r) {
      out.push_back(full);  // unbounded: the whole dimension
      continue;
    }
    // An access under a predicate (a split with a remainder) may be relaxed past the buffer.
    auto lo = ConstValue(analyzer.Simplify(r.value()->min));
    auto hi = ConstValue(analyzer.Simplify(r.value()->min + r.value()->extent));
    auto shape = ConstValue(buffer->shape[k]);
    if (lo && hi && shape && (*lo < 0 || *hi > *shape)) {
      int64_t a = std::max<int64_t>(*lo, 0), b = std::min<int64_t>(*hi, *shape);
      DataType t = r.value()->min.dtype();
      r = Range(IntImm(t, a), IntImm(t, std::max<int64_t>(b - a, 0)));
    }
    out.push_back(*r);
  }
  return out;
}

/*!
 * \brief The first leaf block under `writer` (itself when it is one) that reads `buffer` before
 * any leaf block has written it, in execution order, leaving out blocks with an init (they
 * write first); nullptr when there is none. cache_write's cache starts empty, so such a block
 * would read garbage: an in-place update (`B[i] = B[i] * 2`) cannot be cached.
 */
class ReadBeforeWriteFinder : public StmtVisitor {
 public:
  explicit ReadBeforeWriteFinder(const BufferNode* buffer) : buffer_(buffer) {}
  const BlockNode* found = nullptr;
  void VisitStmt_(const BlockNode* op) override {
    bool leaf = true;
    PostOrderVisit(op->body, [&](const ObjectRef& n) { leaf = leaf && !n.as<BlockNode>(); });
    if (!leaf) {
      StmtVisitor::VisitStmt_(op);
      return;
    }
    if (!written_ && found == nullptr && !op->init.defined() && RegionsHave(op->reads, buffer_)) {
      found = op;
    }
    written_ = written_ || RegionsHave(op->writes, buffer_);
  }

 private:
  const BufferNode* buffer_;
  bool written_ = false;
};

/*! \brief What a cache primitive builds: the copy, where it goes, and how readers change. */
struct CacheStage {
  /*! \brief The buffer being cached and its cache. */
  Buffer buffer, cache;
  /*! \brief The region of `buffer` the cache holds. */
  std::vector<Range> region;
  /*!
   * \brief The cache has the whole shape of the buffer (the copy sits in a loop) rather than
   * only the region (the copy sits at the scope's top level, indices shifted by the region).
   */
  bool full = true;
  /*! \brief Allocated in the scope (cache_inplace's copy out reuses its copy in's cache). */
  bool allocate = true;
  CopyPlace place;
  Stmt copy;
  /*! \brief The blocks that use the cache (empty for cache_read: every reader). */
  std::unordered_set<const BlockNode*> consumers;

  /*! \brief An index of `buffer` as an index of the cache. */
  Array<PrimExpr> CacheIndices(const Array<PrimExpr>& indices, arith::Analyzer* analyzer) const {
    if (full) return indices;
    Array<PrimExpr> out;
    for (size_t k = 0; k < indices.size(); ++k) {
      out.push_back(IsZero(region[k]->min) ? indices[k]
                                           : analyzer->Simplify(indices[k] - region[k]->min));
    }
    return out;
  }
  /*! \brief A region of `buffer` as a region of the cache. */
  BufferRegion CacheRegion(const BufferRegion& r, arith::Analyzer* analyzer) const {
    if (full) return BufferRegion(cache, r->region);
    Array<Range> out;
    for (size_t k = 0; k < r->region.size(); ++k) {
      PrimExpr min = IsZero(region[k]->min)
                         ? r->region[k]->min
                         : analyzer->Simplify(r->region[k]->min - region[k]->min);
      out.push_back(Range(min, r->region[k]->extent));
    }
    return BufferRegion(cache, out);
  }
  static bool IsZero(const PrimExpr& e) {
    auto c = ConstValue(e);
    return c && *c == 0;
  }
};

/*!
 * \brief The cache buffer: `buffer` in `scope` named `<buffer>_<scope>`, with the whole shape
 * or the region's extents.
 */
Buffer MakeCache(const Buffer& buffer, const std::string& scope, const CacheStage& st) {
  std::string name = buffer->name.str() + "_" + scope;
  Buffer cache = CacheBuffer(buffer, scope, name);
  if (!st.full) {
    Array<PrimExpr> shape;
    for (const Range& r : st.region) shape.push_back(r->extent);
    cache.CopyOnWrite()->shape = shape;
  }
  return cache;
}

/*!
 * \brief The copy loops and block `name`: `dst[...] = src[...]` over the cached region, where
 * one of src/dst is `st.buffer` and the other `st.cache`. A whole-shape cache is copied with
 * iterators spanning the buffer bound to `region.min + ax`; a region-shaped one with iterators
 * spanning the region, the buffer side indexed `region.min + v`.
 */
Stmt MakeCopy(const CacheStage& st, bool into_cache, const std::string& name) {
  std::vector<Var> loops;
  std::vector<PrimExpr> extents;
  Array<IterVar> iters;
  Array<PrimExpr> bindings, buffer_index, cache_index;
  for (size_t k = 0; k < st.region.size(); ++k) {
    const Range& r = st.region[k];
    DataType t = r->extent.dtype();
    Var ax("ax" + std::to_string(k), t);
    Var v("v" + std::to_string(k), t);
    loops.push_back(ax);
    extents.push_back(r->extent);
    if (st.full) {
      const PrimExpr& dim = st.buffer->shape[k];
      iters.push_back(IterVar(Range(IntImm(dim.dtype(), 0), dim), v, kDataPar));
      bindings.push_back(r->min + ax);
      buffer_index.push_back(v);
    } else {
      iters.push_back(IterVar(Range(IntImm(t, 0), r->extent), v, kDataPar));
      bindings.push_back(ax);
      buffer_index.push_back(r->min + v);
    }
    cache_index.push_back(v);
  }
  const Buffer& src = into_cache ? st.buffer : st.cache;
  const Buffer& dst = into_cache ? st.cache : st.buffer;
  const Array<PrimExpr>& src_index = into_cache ? buffer_index : cache_index;
  const Array<PrimExpr>& dst_index = into_cache ? cache_index : buffer_index;
  auto point = [](const Buffer& b, const Array<PrimExpr>& idx) {
    Array<Range> region;
    for (const PrimExpr& e : idx) region.push_back(Range(e, IntImm(e.dtype(), 1)));
    return BufferRegion(b, region);
  };
  Block block(iters, {point(src, src_index)}, {point(dst, dst_index)}, name,
              BufferStore(dst, BufferLoad(src, src_index), dst_index));
  return MakeLoopNest(loops, extents, BlockRealize(bindings, const_true(), block));
}

/*! \brief `body` with `stage` inserted at `pos` of its statement list (under its wrappers). */
Stmt InsertStage(const Stmt& body, int64_t pos, const Stmt& stage) {
  if (auto* a = body.as<AllocateNode>()) {
    return Allocate(a->buffer_var, a->dtype, a->extents, a->condition,
                    InsertStage(a->body, pos, stage), a->scope, a->annotations);
  }
  if (auto* d = body.as<DeclBufferNode>())
    return DeclBuffer(d->buffer, InsertStage(d->body, pos, stage));
  std::vector<Stmt> seq = AsSeq(body);
  MINITVM_ICHECK(pos >= 0 && pos <= static_cast<int64_t>(seq.size()))
      << "cannot insert a cache copy at position " << pos << " of " << seq.size() << " statements";
  seq.insert(seq.begin() + pos, stage);
  return SeqStmt(Array<Stmt>(seq));
}

/*! \brief Shared by both rewriters: put the copy at its place, allocate the cache. */
class CacheRewriterBase : public StmtExprMutator {
 public:
  explicit CacheRewriterBase(const BlockNode* scope, const CacheStage& st)
      : scope_(scope), st_(st) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (op != st_.place.loc) return s;
    For f = Downcast<For>(s);
    f.CopyOnWrite()->body = InsertStage(f->body, st_.place.pos, st_.copy);
    return f;
  }

 protected:
  /*! \brief The scope block after its body was rewritten: copy placed, cache allocated. */
  Block FinishScope(Block b) const {
    BlockNode* n = b.CopyOnWrite();
    if (scope_ == st_.place.loc) n->body = InsertStage(n->body, st_.place.pos, st_.copy);
    if (st_.allocate) n->alloc_buffers.push_back(st_.cache);
    return b;
  }
  Array<BufferRegion> Redirect(const Array<BufferRegion>& regions) {
    Array<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      out.push_back(r->buffer.same_as(st_.buffer) ? st_.CacheRegion(r, &analyzer_) : r);
    }
    return out;
  }
  Array<MatchBufferRegion> Redirect(const Array<MatchBufferRegion>& matches) {
    Array<MatchBufferRegion> out;
    for (const MatchBufferRegion& m : matches) {
      out.push_back(m->source->buffer.same_as(st_.buffer)
                        ? MatchBufferRegion(m->buffer, st_.CacheRegion(m->source, &analyzer_))
                        : m);
    }
    return out;
  }
  /*! \brief The block with its declared reads, writes and match_buffers on the cache. */
  Block RedirectAccesses(Block b) {
    BlockNode* n = b.CopyOnWrite();
    n->reads = Redirect(b->reads);
    n->writes = Redirect(b->writes);
    n->match_buffers = Redirect(b->match_buffers);
    return b;
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    // Opaque accesses (T.tvm_access_ptr(..., A.data, ...)) follow the buffer to its cache.
    if (op == st_.buffer->data.get()) return st_.cache->data;
    return GetRef<PrimExpr>(op);
  }

  const BlockNode* scope_;
  const CacheStage& st_;
  arith::Analyzer analyzer_;
};

/*!
 * \brief cache_read's rewrite of the scope: the consumers (every block but the writer when none
 * are given) read the cache, the copy is placed and the cache allocated.
 */
class CacheReadRewriter : public CacheRewriterBase {
 public:
  using CacheRewriterBase::CacheRewriterBase;
  using CacheRewriterBase::VisitExpr_;
  using CacheRewriterBase::VisitStmt_;

  Stmt VisitStmt_(const BlockNode* op) override {
    // The writer of the buffer is left alone.
    if (op != scope_ && RegionsHave(op->writes, st_.buffer.get())) return GetRef<Stmt>(op);
    bool is_consumer = st_.consumers.empty() || st_.consumers.count(op) > 0;
    bool saved = consuming_;
    consuming_ = is_consumer;
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    consuming_ = saved;
    if (op == scope_) return FinishScope(b);
    if (is_consumer) {
      BlockNode* n = b.CopyOnWrite();
      n->reads = Redirect(b->reads);
      n->match_buffers = Redirect(b->match_buffers);
    }
    return b;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || !consuming_ || !load->buffer.same_as(st_.buffer)) return e;
    return BufferLoad(st_.cache, st_.CacheIndices(load->indices, &analyzer_));
  }

 private:
  bool consuming_ = false;
};

/*!
 * \brief cache_write's rewrite of the scope: the writer (and everything under it) writes the
 * cache, the given consumers read it, the copy back is placed and the cache allocated.
 */
class CacheWriteRewriter : public CacheRewriterBase {
 public:
  CacheWriteRewriter(const BlockNode* scope, const BlockNode* writer, const CacheStage& st)
      : CacheRewriterBase(scope, st), writer_(writer) {}
  using CacheRewriterBase::VisitExpr_;
  using CacheRewriterBase::VisitStmt_;

  Stmt VisitStmt_(const BlockNode* op) override {
    if (st_.consumers.count(op)) {
      return RedirectAccesses(Downcast<Block>(StmtExprMutator::VisitStmt_(op)));
    }
    if (op != writer_ && op != scope_ && !under_writer_) return GetRef<Stmt>(op);
    bool saved = under_writer_;
    under_writer_ = under_writer_ || op == writer_;
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    under_writer_ = saved;
    if (op == scope_) return FinishScope(b);
    return RedirectAccesses(b);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    if (store == nullptr || !store->buffer.same_as(st_.buffer)) return s;
    return BufferStore(st_.cache, store->value, st_.CacheIndices(store->indices, &analyzer_));
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || !load->buffer.same_as(st_.buffer)) return e;
    return BufferLoad(st_.cache, st_.CacheIndices(load->indices, &analyzer_));
  }

 private:
  const BlockNode* writer_;
  bool under_writer_ = false;
};

/*! \brief Install the rewritten scope in the function. */
void ReplaceScope(ScheduleNode* self, const std::string& func, const FuncIndex& index,
                  const BlockNode* scope, const Stmt& new_scope) {
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{scope, new_scope}}));
}

/*! \brief The handle of the block named `name` in the function now. */
ObjectRef BlockHandle(ScheduleNode* self, const std::string& func, const std::string& name) {
  return self->NewRV(func, self->state().Index(func).BlocksNamed(name).at(0));
}

/*!
 * \brief cache_read: the `i`-th buffer `block_rv` reads is read through a copy in `storage`
 * by `given` consumers (every reader when none are given); returns the copy block. The copy
 * goes after the buffer's writer, before the first consumer, in the innermost loop holding
 * both (the scope's top level for an input); it holds the region the writer produces there.
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

  // Step 2: the consumers, the writer, the place of the copy and the region it holds.
  CacheStage st;
  st.buffer = buf;
  st.consumers = ConsumerSet(self, index, given);
  if (const BlockNode* writer = OnlyWriter(index, scope, buf, "cache_read", block)) {
    std::vector<const BlockNode*> related =
        st.consumers.empty()
            ? RawDependents(index, scope, writer, {})
            : std::vector<const BlockNode*>(st.consumers.begin(), st.consumers.end());
    st.place = FindCopyPlace(scope, writer, related);
    if (st.place.loc == nullptr || st.place.pos < 0) NoPosition("cache_read", block, buf);
    st.region = RelaxedRegion(index, writer, *RegionOf(writer->writes, buf), st.place.loc);
  } else {
    // An input of the scope: copied first thing, the region the scope reads.
    st.place = {scope, 0};
    auto r = RegionOf(scope->reads, buf);
    st.region = r ? r.value()->region.to_vector() : FullRegion(buf);
  }
  st.full = st.place.loc != scope;

  // Step 3: the cache, the copy, the rewrite.
  st.cache = MakeCache(buf, storage, st);
  std::string block_name = UniqueBlockName(index, st.cache->name.str());
  st.copy = MakeCopy(st, /*into_cache=*/true, block_name);
  CacheReadRewriter rewriter(scope, st);
  ReplaceScope(self, func, index, scope, rewriter.VisitStmt(GetRef<Stmt>(scope)));
  return {BlockHandle(self, func, block_name)};
}

/*!
 * \brief cache_write: `block_rv` writes its `i`-th written buffer into a cache in `storage`,
 * copied back before the first reader left on the buffer (the end of the scope when `given`
 * consumers read the cache instead); returns the copy block.
 */
Array<ObjectRef> CacheWrite(ScheduleNode* self, const BlockRV& block_rv,
                            const Array<ObjectRef>& given, int64_t i, const std::string& storage) {
  // Step 1: the block (the only writer of the buffer in its scope).
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  CheckStorageScope(storage);
  const BlockNode* scope = ScopeOf(index, block, "cache_write");
  Buffer buf = BlockBuffer(block, i, /*write=*/true, "cache_write");
  OnlyWriter(index, scope, buf, "cache_write", block);
  ReadBeforeWriteFinder in_place(buf.get());
  in_place(GetRef<Stmt>(block));
  if (in_place.found != nullptr) {
    ScheduleError err("NotCompleteOrReductionBlockError",
                      "cache_write needs block " + BlockName(block) + " to compute what it " +
                          "writes, but block " + BlockName(in_place.found) + " updates " +
                          buf->name.str() + " in place (it reads it, has no init, and nothing " +
                          "wrote it before): the cache would start empty");
    err.Subject("block " + BlockName(block))
        .Check("the values of the buffer the block reads are ones it wrote", false)
        .At(GetRef<ObjectRef>(in_place.found), "reads " + buf->name.str() + " without an init");
    throw err;
  }

  // Step 2: the consumers, the place of the copy back and the region it holds.
  CacheStage st;
  st.buffer = buf;
  st.consumers = ConsumerSet(self, index, given);
  st.consumers.erase(block);
  st.place = FindCopyPlace(scope, block, RawDependents(index, scope, block, st.consumers));
  if (st.place.loc == nullptr || st.place.pos < 0) NoPosition("cache_write", block, buf);
  st.region = RelaxedRegion(index, block, *RegionOf(block->writes, buf), st.place.loc);
  st.full = st.place.loc != scope;

  // Step 3: the cache, the copy back, the rewrite.
  st.cache = MakeCache(buf, storage, st);
  std::string block_name = UniqueBlockName(index, st.cache->name.str());
  st.copy = MakeCopy(st, /*into_cache=*/false, block_name);
  CacheWriteRewriter rewriter(scope, block, st);
  ReplaceScope(self, func, index, scope, rewriter.VisitStmt(GetRef<Stmt>(scope)));
  return {BlockHandle(self, func, block_name)};
}

/*!
 * \brief cache_inplace: a block that reads and writes its `i`-th read buffer works on a copy
 * in `storage` instead, copied in right before it and back right after it, in the innermost
 * loop holding it; returns [copy in, copy out].
 */
Array<ObjectRef> CacheInplace(ScheduleNode* self, const BlockRV& block_rv, int64_t i,
                              const std::string& storage) {
  auto [func, stmt] = self->Resolve(block_rv);
  const BlockNode* block = AsBlock(stmt);
  CheckStorageScope(storage);
  Buffer buf = BlockBuffer(block, i, /*write=*/false, "cache_inplace");
  auto rd = RegionOf(block->reads, buf), wr = RegionOf(block->writes, buf);
  if (!rd || !wr) {
    ScheduleError err("NotReadWriteError", "cache_inplace needs block " + BlockName(block) +
                                               " to both read and write " + buf->name.str() +
                                               ", but it only reads it");
    err.Subject("block " + BlockName(block))
        .Check("the block reads and writes the buffer", false)
        .At(GetRef<ObjectRef>(block), "reads " + buf->name.str());
    throw err;
  }
  std::string name = block->name_hint.str();
  Array<ObjectRef> out;
  // Step 1: the copy in, right before the block, which then reads the cache.
  CacheStage in;
  {
    const FuncIndex& index = self->state().Index(func);
    const BlockNode* scope = ScopeOf(index, block, "cache_inplace");
    InplacePlaceFinder finder(scope, block);
    finder(GetRef<Stmt>(scope));
    in.place = finder.place;
    if (in.place.loc == nullptr) NoPosition("cache_inplace", block, buf);
    in.buffer = buf;
    in.consumers = {block};
    in.region = rd.value()->region.to_vector();
    in.cache = MakeCache(buf, storage, in);
    std::string copy_name = UniqueBlockName(index, in.cache->name.str());
    in.copy = MakeCopy(in, /*into_cache=*/true, copy_name);
    ReplaceScope(self, func, index, scope,
                 CacheReadRewriter(scope, in).VisitStmt(GetRef<Stmt>(scope)));
    out.push_back(BlockHandle(self, func, copy_name));
  }
  // Step 2: the copy out, right after the block, which then writes the cache (allocated by
  // step 1).
  {
    const FuncIndex& index = self->state().Index(func);
    const BlockNode* b = index.BlocksNamed(name).at(0);
    const BlockNode* scope = ScopeOf(index, b, "cache_inplace");
    InplacePlaceFinder finder(scope, b);
    finder(GetRef<Stmt>(scope));
    CacheStage back;
    back.place = finder.place;
    back.place.pos += 1;
    back.buffer = buf;
    back.cache = in.cache;
    back.allocate = false;
    back.region = wr.value()->region.to_vector();
    std::string copy_name = UniqueBlockName(index, in.cache->name.str());
    back.copy = MakeCopy(back, /*into_cache=*/false, copy_name);
    ReplaceScope(self, func, index, scope,
                 CacheWriteRewriter(scope, b, back).VisitStmt(GetRef<Stmt>(scope)));
    out.push_back(BlockHandle(self, func, copy_name));
  }
  return out;
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

InstructionKindInfo CacheInplaceKind() {
  auto k = MakeInstructionKind("CacheInplace", "cache_inplace", {"block"},
                               {"read_buffer_index", "storage_scope"}, CacheInplace);
  k.returns_list = true;
  return k;
}

}  // namespace

MINITVM_REGISTER_INST_KIND(CacheInstKind("CacheRead", "cache_read", "read_buffer_index",
                                         CacheRead));
MINITVM_REGISTER_INST_KIND(CacheInstKind("CacheWrite", "cache_write", "write_buffer_index",
                                         CacheWrite));
MINITVM_REGISTER_INST_KIND(CacheInplaceKind());

}  // namespace tir
}  // namespace minitvm
