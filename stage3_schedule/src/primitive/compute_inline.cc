/*!
 * \file primitive/compute_inline.cc
 * \brief `compute_inline` and `reverse_compute_inline` (stage 3).
 *
 * compute_inline removes a block `B[v...] = f(v...)` and replaces every read `B[idx...]` in
 * its consumers by `f(idx...)`, so the intermediate buffer disappears. reverse_compute_inline
 * goes the other way: a consumer `D[v...] = g(B[v...])` is folded into the single producer of
 * B, which then writes `D` directly.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief The single store of a block body, or throw BodyAnalysisError. */
const BufferStoreNode* SingleStore(const BlockNode* block, const std::string& primitive) {
  auto* store = block->body.as<BufferStoreNode>();
  if (store == nullptr) {
    ScheduleError err("BodyAnalysisError", primitive + " needs block " + BlockName(block) +
                                               " to be a single store `B[v...] = expr`");
    err.Subject("block " + BlockName(block))
        .Check("the block body is one BufferStore", false)
        .At(GetRef<ObjectRef>(block), "its body is a " + block->body->GetTypeKey());
    throw err;
  }
  return store;
}

/*! \brief The iterator index of each store index, or throw when they are not distinct iters. */
std::vector<int> IndicesAsIters(const BlockNode* block, const Array<PrimExpr>& indices,
                                const std::string& primitive, const std::string& what) {
  std::vector<int> out;
  std::unordered_set<int> seen;
  for (const PrimExpr& idx : indices) {
    int found = -1;
    if (auto* v = idx.as<VarNode>()) {
      for (size_t k = 0; k < block->iter_vars.size(); ++k) {
        if (block->iter_vars[k]->var.get() == v) found = static_cast<int>(k);
      }
    }
    if (found < 0 || !seen.insert(found).second) {
      ScheduleError err("BodyAnalysisError",
                        primitive + " needs the " + what + " of block " + BlockName(block) +
                            " to be distinct block iterators, but one is " + ExprStr(idx));
      err.Subject("block " + BlockName(block))
          .Check("each index of the " + what + " is a distinct block iterator", false)
          .At(GetRef<ObjectRef>(block), "index " + ExprStr(idx));
      throw err;
    }
    out.push_back(found);
  }
  return out;
}

/*! \brief The buffer must be allocated inside the function, not a parameter. */
void CheckNotOutput(const FuncIndex& index, const BlockNode* block, const Buffer& buffer,
                    const std::string& primitive) {
  if (AllocatingBlock(index, buffer.get()) != nullptr) return;
  ScheduleError err("OutputBlockError", primitive + " cannot remove block " + BlockName(block) +
                                            ": it writes " + buffer->name.str() +
                                            ", a parameter of the function");
  err.Subject("block " + BlockName(block))
      .Check("the buffer written is allocated inside the function (not an output)", false)
      .At(GetRef<ObjectRef>(block), "writes the function parameter " + buffer->name.str());
  throw err;
}

/*! \brief Rewrites loads of one buffer with an expression; recomputes regions of changed blocks. */
class LoadInliner : public StmtExprMutator {
 public:
  LoadInliner(const BufferNode* buffer, std::vector<Var> params, PrimExpr value)
      : buffer_(buffer), params_(std::move(params)), value_(std::move(value)) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || load->buffer.get() != buffer_) return e;
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < params_.size(); ++i) vmap[params_[i].get()] = load->indices[i];
    return SubstituteVars(value_, vmap);
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    if (s.same_as(GetRef<Stmt>(op)) || op->name_hint.str() == "root") return s;
    return RecomputeAccess(Downcast<Block>(s));
  }

 private:
  const BufferNode* buffer_;
  std::vector<Var> params_;
  PrimExpr value_;
};

/*! \brief Drop a buffer from the alloc_buffers of the block that allocates it. */
Stmt RemoveAlloc(const Stmt& body, const BufferNode* buffer) {
  class Remover : public StmtMutator {
   public:
    explicit Remover(const BufferNode* b) : b_(b) {}
    Stmt VisitStmt_(const BlockNode* op) override {
      Stmt s = StmtMutator::VisitStmt_(op);
      bool has = false;
      for (const Buffer& x : op->alloc_buffers) has |= x.get() == b_;
      if (!has) return s;
      Block b = Downcast<Block>(s);
      Array<Buffer> kept;
      for (const Buffer& x : b->alloc_buffers) {
        if (x.get() != b_) kept.push_back(x);
      }
      b.CopyOnWrite()->alloc_buffers = kept;
      return b;
    }

   private:
    const BufferNode* b_;
  };
  return Remover(buffer).VisitStmt(body);
}

bool StillUsed(const Stmt& body, const BufferNode* buffer) {
  bool used = false;
  PostOrderVisit(body, [&](const ObjectRef& n) {
    if (auto* l = n.as<BufferLoadNode>(); l && l->buffer.get() == buffer) used = true;
    if (auto* s = n.as<BufferStoreNode>(); s && s->buffer.get() == buffer) used = true;
  });
  return used;
}

void CheckNotRoot(const FuncIndex& index, const BlockNode* block, const std::string& primitive) {
  if (block != index.root() && index.Get(block).realize != nullptr) return;
  MINITVM_THROW(ValueError) << primitive << ": the root block cannot be inlined";
}

/*! \brief compute_inline: the block's expression replaces its reads in its consumers. */
Array<ObjectRef> ComputeInline(ScheduleNode* self, const BlockRV& block_rv) {
  // Step 1: the block and its preconditions.
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  CheckNotRoot(index, block, "compute_inline");
  const BlockNode* scope = index.ScopeBlock(block);
  const BufferStoreNode* store = SingleStore(block, "compute_inline");
  std::string why;
  bool complete = IsCompleteBlock(index, block, scope, &why);
  if (!complete) {
    bool single_writer = true;
    for (const BlockNode* other : BlocksInScope(index, scope)) {
      if (other != block && RegionsHave(other->writes, store->buffer.get())) single_writer = false;
    }
    ScheduleError err(
        single_writer ? "NotCompleteBlockError" : "NotSingleWriteBlock",
        "compute_inline needs a complete block, but in block " + BlockName(block) + " " + why);
    err.Subject("block " + BlockName(block))
        .Check("all block iterators are data-parallel and there is no init",
               !IsReductionBlock(block))
        .Check("the block is the only writer of " + store->buffer->name.str(), single_writer)
        .Check("the block does not read what it writes",
               !RegionsHave(block->reads, store->buffer.get()))
        .At(GetRef<ObjectRef>(block), why);
    throw err;
  }
  CheckNotOutput(index, block, store->buffer, "compute_inline");
  std::vector<int> iters = IndicesAsIters(block, store->indices, "compute_inline", "store indices");
  std::vector<Var> params;
  for (int k : iters) params.push_back(block->iter_vars[k]->var);

  // Remove the block (and loops left empty), then inline into every reader.
  Stmt body = ReplaceStmts(index.func()->body, {{index.Get(block).realize, Stmt()}});
  body = LoadInliner(store->buffer.get(), params, store->value).VisitStmt(body);
  if (!StillUsed(body, store->buffer.get())) body = RemoveAlloc(body, store->buffer.get());
  self->mutable_state()->Replace(func, WithBody(index.func(), body));
  return {};
}

/*! \brief Folds the consumer's store into the producer. */
Array<ObjectRef> ReverseComputeInline(ScheduleNode* self, const BlockRV& block_rv) {
  // Step 1: the consumer block and its preconditions.
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* consumer = AsBlock(stmt);
  CheckNotRoot(index, consumer, "reverse_compute_inline");
  const BlockNode* scope = index.ScopeBlock(consumer);
  const BufferStoreNode* cstore = SingleStore(consumer, "reverse_compute_inline");
  std::string why;
  if (!IsCompleteBlock(index, consumer, scope, &why)) {
    ScheduleError err("NotCompleteBlockError",
                      "reverse_compute_inline needs a complete block, "
                      "but in block " +
                          BlockName(consumer) + " " + why);
    err.Subject("block " + BlockName(consumer))
        .Check("the consumer is a complete block", false)
        .At(GetRef<ObjectRef>(consumer), why);
    throw err;
  }
  // The buffer to fold back: the one read by the consumer that a producer writes.
  auto producers = Producers(index, consumer);
  if (producers.size() != 1) {
    ScheduleError err("ProducerConsumerError",
                      "reverse_compute_inline needs exactly one producer of block " +
                          BlockName(consumer) + ", but it has " + std::to_string(producers.size()));
    err.Subject("block " + BlockName(consumer))
        .Check("the block has exactly one producer", false)
        .At(GetRef<ObjectRef>(consumer), std::to_string(producers.size()) + " producers");
    for (const BlockNode* p : producers) err.At(GetRef<ObjectRef>(p), "a producer");
    throw err;
  }
  const BlockNode* producer = producers[0];
  const BufferStoreNode* pstore = SingleStore(producer, "reverse_compute_inline");
  if (!IsCompleteBlock(index, producer, scope, &why)) {
    ScheduleError err("NotCompleteBlockError",
                      "reverse_compute_inline needs a complete producer, but in block " +
                          BlockName(producer) + " " + why);
    err.Subject("block " + BlockName(producer))
        .Check("the consumer is a complete block", true)
        .Check("the producer is a complete block", false)
        .At(GetRef<ObjectRef>(producer), why);
    throw err;
  }
  const Buffer& mid = pstore->buffer;
  CheckNotOutput(index, producer, mid, "reverse_compute_inline");
  // Every load of `mid` in the consumer must use the same indices: distinct iterators covering
  // all of the consumer's iterators, over the whole buffer.
  std::vector<const BufferLoadNode*> loads;
  PostOrderVisit(cstore->value, [&](const ObjectRef& n) {
    if (auto* l = n.as<BufferLoadNode>(); l && l->buffer.same_as(mid)) loads.push_back(l);
  });
  auto fail = [&](const std::string& what) {
    ScheduleError err("NotInjectiveConsumerError",
                      "reverse_compute_inline: block " + BlockName(consumer) + " " + what);
    err.Subject("block " + BlockName(consumer))
        .Subject("block " + BlockName(producer))
        .Check("the consumer reads " + mid->name.str() +
                   " at one index tuple of distinct iterators covering all its iterators",
               false)
        .At(GetRef<ObjectRef>(consumer), what);
    throw err;
  };
  if (loads.empty()) fail("does not read " + mid->name.str() + " in its store");
  std::vector<int> iters =
      IndicesAsIters(consumer, loads[0]->indices, "reverse_compute_inline", "load indices");
  for (const BufferLoadNode* l : loads) {
    for (size_t i = 0; i < l->indices.size(); ++i) {
      if (!l->indices[i].same_as(loads[0]->indices[i])) {
        fail("reads " + mid->name.str() + " at two different index tuples");
      }
    }
  }
  if (iters.size() != consumer->iter_vars.size()) {
    fail("has iterators that do not index " + mid->name.str());
  }
  arith::Analyzer analyzer;
  for (size_t i = 0; i < iters.size(); ++i) {
    const Range& dom = consumer->iter_vars[iters[i]]->dom;
    if (!analyzer.CanProveEqual(dom->min, 0) ||
        !analyzer.CanProveEqual(dom->extent, mid->shape[i])) {
      fail("covers only part of " + mid->name.str() + " along dimension " + std::to_string(i));
    }
  }
  // Consumer iterator k := the producer's store index at the position where k indexes `mid`.
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (size_t i = 0; i < iters.size(); ++i) {
    vmap[consumer->iter_vars[iters[i]]->var.get()] = pstore->indices[i];
  }
  class LoadReplacer : public ExprMutator {
   public:
    LoadReplacer(const BufferNode* b, PrimExpr v) : b_(b), v_(std::move(v)) {}
    PrimExpr VisitExpr_(const BufferLoadNode* op) override {
      if (op->buffer.get() == b_) return v_;
      return ExprMutator::VisitExpr_(op);
    }

   private:
    const BufferNode* b_;
    PrimExpr v_;
  };
  PrimExpr value = LoadReplacer(mid.get(), pstore->value).VisitExpr(cstore->value);
  value = SubstituteVars(value, vmap);
  Array<PrimExpr> indices;
  for (const PrimExpr& e : cstore->indices) indices.push_back(SubstituteVars(e, vmap));
  Block new_producer = GetRef<Block>(producer);
  new_producer.CopyOnWrite()->body = BufferStore(cstore->buffer, value, indices);
  new_producer = RecomputeAccess(new_producer);

  Stmt body = ReplaceStmts(index.func()->body,
                           {{index.Get(consumer).realize, Stmt()}, {producer, new_producer}});
  if (!StillUsed(body, mid.get())) body = RemoveAlloc(body, mid.get());
  self->mutable_state()->Replace(func, WithBody(index.func(), body));
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("ComputeInline", "compute_inline", {"block"}, {},
                                               ComputeInline));

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("ReverseComputeInline", "reverse_compute_inline",
                                               {"block"}, {}, ReverseComputeInline));

}  // namespace tir
}  // namespace minitvm
