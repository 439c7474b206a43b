/*!
 * \file primitive/reindex.cc
 * \brief `reindex` (stage 3): give a block's access to a buffer its own buffer, indexed by the
 * block's iterators, with a copy stage between the two.
 *
 * A block that reads `A[vj, vi]` reads `A_reindex[vi, vj]` afterwards, and a new block before
 * it (or after it, for a written buffer) copies `A_reindex[v0, v1] = A[v1, v0]` over the
 * iterators the access uses. The new buffer has one dimension per such iterator, in the
 * block's iterator order: the access becomes the identity of the iteration space, which is
 * what tensor-core rules want before `transform_layout` and `tensorize`. As in TVM, the
 * block must be a leaf whose accesses to the buffer all use the same indices, under a chain
 * of loops in its scope; the copy is placed beside the outermost of those loops.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {

namespace sched {
Stmt Unwrapped(const Stmt& body);  // cache.cc: a body under its Allocate / DeclBuffer wrappers
}  // namespace sched

namespace {

using namespace sched;

[[noreturn]] void ReIndexError(const std::string& kind, const BlockNode* block,
                               const std::string& message, const std::string& check) {
  ScheduleError err(kind, "reindex: " + message);
  err.Subject("block " + BlockName(block))
      .Check(check, false)
      .At(GetRef<ObjectRef>(block), message);
  throw err;
}

/*! \brief Indices as Python: `[vi, vj]`. */
std::string IndexStr(const Array<PrimExpr>& indices) {
  std::string out = "[";
  for (size_t i = 0; i < indices.size(); ++i) out += (i ? ", " : "") + ExprStr(indices[i]);
  return out + "]";
}

/*!
 * \brief The one index list every load and store of `buf` in the block uses (TVM's
 * ReIndexCollector): a nested block, an opaque use of the data pointer, no access or two
 * different index lists are errors.
 */
class ReIndexCollector : public StmtExprVisitor {
 public:
  ReIndexCollector(const BlockNode* block, const Buffer& buf) : block_(block), buf_(buf) {}

  Array<PrimExpr> Collect() {
    VisitStmt(block_->body);
    if (!indices_) {
      ReIndexError("InvalidBufferAccessError", block_,
                   "block " + BlockName(block_) + " has no load or store of " + buf_->name.str(),
                   "the block accesses the buffer through BufferLoad or BufferStore");
    }
    return *indices_;
  }

  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;
  void VisitExpr_(const BufferLoadNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    if (op->buffer.same_as(buf_)) Update(op->indices);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    StmtExprVisitor::VisitStmt_(op);
    if (op->buffer.same_as(buf_)) Update(op->indices);
  }
  void VisitStmt_(const BlockNode* op) override {
    ReIndexError(
        "NotLeafBlockError", block_,
        "block " + BlockName(block_) + " is not a leaf block: it holds block " + BlockName(op),
        "the block has no blocks inside it");
  }
  void VisitExpr_(const VarNode* op) override {
    if (op == buf_->data.get()) {
      ReIndexError("InvalidBufferAccessError", block_,
                   "block " + BlockName(block_) + " uses the data pointer of " + buf_->name.str() +
                       " opaquely",
                   "the block accesses the buffer through BufferLoad or BufferStore");
    }
  }

 private:
  void Update(const Array<PrimExpr>& indices) {
    if (!indices_) {
      indices_ = indices;
      return;
    }
    bool same = indices_->size() == indices.size();
    for (size_t i = 0; same && i < indices.size(); ++i) {
      same = ExprDeepEqual((*indices_)[i], indices[i]);
    }
    if (!same) {
      ReIndexError("InvalidBufferAccessError", block_,
                   "block " + BlockName(block_) + " accesses " + buf_->name.str() +
                       " with different indices " + IndexStr(*indices_) + " and " +
                       IndexStr(indices),
                   "every access to the buffer in the block uses the same indices");
    }
  }

  const BlockNode* block_;
  Buffer buf_;
  std::optional<Array<PrimExpr>> indices_;
};

/*! \brief Loads and stores of `from` use `to` at `index`; regions of `from` become `point`. */
class ReIndexRewriter : public StmtExprMutator {
 public:
  ReIndexRewriter(const BufferNode* from, Buffer to, Array<PrimExpr> index)
      : from_(from), to_(std::move(to)), index_(std::move(index)) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  Block Rewrite(const BlockNode* block) {
    Block b = GetRef<Block>(block);
    BlockNode* n = b.CopyOnWrite();
    n->body = VisitStmt(block->body);
    if (block->init.defined()) n->init = VisitStmt(block->init);
    Array<Range> point;
    for (const PrimExpr& i : index_)
      point.push_back(Range::FromMinExtent(i, make_const(i.dtype(), 1)));
    auto redirect = [&](const Array<BufferRegion>& regions) {
      Array<BufferRegion> out;
      for (const BufferRegion& r : regions) {
        out.push_back(r->buffer.get() == from_ ? BufferRegion(to_, point) : r);
      }
      return out;
    };
    n->reads = redirect(block->reads);
    n->writes = redirect(block->writes);
    Array<MatchBufferRegion> matches;
    for (const MatchBufferRegion& m : block->match_buffers) {
      matches.push_back(m->source->buffer.get() == from_
                            ? MatchBufferRegion(m->buffer, BufferRegion(to_, point))
                            : m);
    }
    n->match_buffers = matches;
    return b;
  }

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

 private:
  const BufferNode* from_;
  Buffer to_;
  Array<PrimExpr> index_;
};

/*!
 * \brief TVM's SimplifyNonTrivialExpr: the simplified index, unless it folds to a constant (a
 * unit iterator keeps its dimension).
 */
PrimExpr SimplifyNonTrivial(arith::Analyzer* analyzer, const PrimExpr& e) {
  PrimExpr s = analyzer->Simplify(e);
  if (s.as<IntImmNode>() || s.as<FloatImmNode>()) return e;
  return s;
}

Array<ObjectRef> ReIndex(ScheduleNode* self, const BlockRV& block_rv, int64_t buffer_index,
                         int64_t buffer_index_type) {
  // Step 1: the block (not the root), the buffer, and the one index list of its accesses.
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  if (buffer_index_type != 0 && buffer_index_type != 1) {
    MINITVM_THROW(ValueError) << "reindex: buffer_index_type must be 0 (read) or 1 (write), not "
                              << buffer_index_type;
  }
  const bool write = buffer_index_type == static_cast<int64_t>(BufferIndexType::kWrite);
  const BlockNode* scope = index.ScopeBlock(block);
  if (scope == nullptr || index.Get(block).realize == nullptr) {
    MINITVM_THROW(ValueError) << "reindex: the root block has no buffer accesses to reindex";
  }
  Buffer buf = BlockBuffer(block, buffer_index, write, "reindex");
  Array<PrimExpr> original = ReIndexCollector(block, buf).Collect();
  arith::Analyzer analyzer;
  for (const IterVar& iv : block->iter_vars) analyzer.Bind(iv->var, iv->dom);
  Array<PrimExpr> indices;
  for (const PrimExpr& e : original) indices.push_back(SimplifyNonTrivial(&analyzer, e));
  std::unordered_set<const VarNode*> covered;
  for (const PrimExpr& e : indices) {
    for (const VarNode* v : UsedVars(e)) covered.insert(v);
  }

  // Step 2: the new buffer, one dimension per covered iterator (in iterator order), and the
  // copy stage over those iterators.
  Array<PrimExpr> shape;
  Array<PrimExpr> block_index;  // the block's new indices: its covered iterators
  Array<IterVar> copy_iters;
  Array<PrimExpr> copy_index;
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  std::vector<Var> loop_vars;
  for (const IterVar& iv : block->iter_vars) {
    if (!covered.count(iv->var.get())) continue;
    shape.push_back(analyzer.Simplify(iv->dom->min + iv->dom->extent));
    block_index.push_back(iv->var);
    Var v("v" + std::to_string(copy_iters.size()), iv->var.dtype());
    vmap[iv->var.get()] = v;
    copy_iters.push_back(IterVar(iv->dom, v, kDataPar));
    copy_index.push_back(v);
    loop_vars.push_back(Var("ax" + std::to_string(loop_vars.size()), iv->var.dtype()));
  }
  std::string name = buf->name.str() + "_reindex";
  Buffer reindexed = CacheBuffer(buf, buf->scope.str(), name);
  reindexed.CopyOnWrite()->shape = shape;
  Array<PrimExpr> target_index;
  for (const PrimExpr& e : indices) target_index.push_back(SubstituteVars(e, vmap));
  const Buffer& src = write ? reindexed : buf;
  const Buffer& dst = write ? buf : reindexed;
  const Array<PrimExpr>& src_index = write ? copy_index : target_index;
  const Array<PrimExpr>& dst_index = write ? target_index : copy_index;
  auto point = [](const Buffer& b, const Array<PrimExpr>& at) {
    Array<Range> region;
    for (const PrimExpr& i : at)
      region.push_back(Range::FromMinExtent(i, make_const(i.dtype(), 1)));
    return BufferRegion(b, region);
  };
  std::string block_name = UniqueBlockName(index, dst->name.str() + "_reindex");
  Block copy(copy_iters, {point(src, src_index)}, {point(dst, dst_index)}, block_name,
             BufferStore(dst, BufferLoad(src, src_index), dst_index));
  Array<PrimExpr> bindings(loop_vars.begin(), loop_vars.end());
  Stmt stage = BlockRealize(bindings, const_true(), copy);
  for (size_t k = copy_iters.size(); k-- > 0;) {
    stage = For(loop_vars[k], copy_iters[k]->dom->min, copy_iters[k]->dom->extent, ForKind::kSerial,
                stage);
  }

  // Step 3: where the stage goes: beside the statement of the scope that holds the block,
  // which must reach it through a chain of loops.
  std::vector<const ForNode*> loops = index.LoopsAbove(block);
  for (size_t k = 0; k + 1 < loops.size(); ++k) {
    if (loops[k]->body.get() != loops[k + 1]) {
      ScheduleError err("LoopsNotAChainError", "reindex: the loops above block " +
                                                   BlockName(block) + " are not a chain: loop " +
                                                   LoopName(loops[k]) + " runs more than loop " +
                                                   LoopName(loops[k + 1]));
      err.Subject("block " + BlockName(block))
          .Check("each loop above the block is the only statement of the one above it", false)
          .At(GetRef<ObjectRef>(loops[k]), "holds more than the next loop");
      throw err;
    }
  }
  const Object* top =
      loops.empty() ? static_cast<const Object*>(index.Get(block).realize) : loops.front();
  std::vector<Stmt> seq = AsSeq(Unwrapped(scope->body));
  int64_t pos = -1;
  for (size_t k = 0; k < seq.size(); ++k) {
    if (seq[k].get() == top) pos = static_cast<int64_t>(k);
  }
  if (pos < 0) {
    ScheduleError err("LoopsNotAChainError", "reindex: block " + BlockName(block) +
                                                 " is not reached from its scope through a chain "
                                                 "of loops");
    err.Subject("block " + BlockName(block))
        .Check("the block sits under a chain of loops directly in its scope", false)
        .At(GetRef<ObjectRef>(block), "reindexing " + buf->name.str());
    throw err;
  }
  if (write) ++pos;

  // Step 4: rewrite the block, insert the stage, allocate the buffer.
  std::unordered_map<const Object*, Stmt> repl;
  repl[block] = ReIndexRewriter(buf.get(), reindexed, block_index).Rewrite(block);
  InstallCopy(self, func, index, scope, InsertPoint{scope, pos}, stage, repl, reindexed);
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(block_name).at(0))};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("ReIndex", "reindex", {"block"},
                               {"buffer_index", "buffer_index_type"}, ReIndex);
  k.print_args = [](const std::vector<std::string>& in, const Array<Any>& attrs) {
    std::string kind = attrs[1].cast<int64_t>() == 1 ? "\"write\"" : "\"read\"";
    return "block=" + in[0] + ", buffer=(" + kind + ", " + PythonLiteral(attrs[0]) + ")";
  };
  return k;
}());

}  // namespace tir
}  // namespace minitvm
