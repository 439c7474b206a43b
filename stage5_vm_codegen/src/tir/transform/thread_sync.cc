/*!
 * \file thread_sync.cc
 * \brief ThreadSync (stage 5): inserts `T.tvm_storage_sync("shared")` — `__syncthreads()` in
 * CUDA — where the threads of a block hand shared memory to each other.
 *
 * Statements of a kernel above its thread-bound loops run in every thread of the block, one
 * after another, so they are where barriers go. Within such a sequence the pass remembers the
 * shared buffers written and read since the last barrier; a statement that reads a buffer
 * written since then, or writes one written or read since then, gets a barrier before it
 * (another thread may be the one that wrote or read it). A loop whose body ends with accesses
 * that conflict with those at the start of the next iteration gets a barrier at the end of its
 * body (the tile loop of a shared-memory matmul: load tiles, sync, compute, sync).
 * The rule is conservative: it may place a barrier that is not needed, never miss one that is.
 */
#include <set>

#include "ir_utils.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/transform/gpu.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

using VarSet = std::set<const VarNode*>;

bool Intersects(const VarSet& a, const VarSet& b) {
  for (const VarNode* v : a) {
    if (b.count(v)) return true;
  }
  return false;
}

/*! \brief The shared buffers (their data vars) a statement reads and writes. */
struct Access {
  VarSet reads, writes;
};

class SyncInserter : public StmtMutator {
 public:
  explicit SyncInserter(std::string scope) : scope_(std::move(scope)) {}

  Stmt VisitStmt_(const AllocateNode* op) override {
    if (op->scope == scope_) scoped_.insert(op->buffer_var.get());
    return StmtMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    if (op->kind == ForKind::kThreadBinding) {
      std::string tag = op->thread_binding->thread_tag.str();
      bool is_thread = tag.rfind("threadIdx", 0) == 0;
      // Inside a threadIdx loop each thread runs its own code: no barriers there.
      if (is_thread) return GetRef<Stmt>(op);
      return StmtMutator::VisitStmt_(op);
    }
    For loop = Downcast<For>(StmtMutator::VisitStmt_(op));
    // Loop-carried hand-over: accesses at the end of the body against those at its start.
    // The body's statement list, under the allocations and declarations that wrap it.
    std::vector<Stmt> wrappers;
    Stmt inner = loop->body;
    while (true) {
      if (auto* a = inner.as<AllocateNode>()) {
        wrappers.push_back(inner);
        inner = a->body;
      } else if (auto* d = inner.as<DeclBufferNode>()) {
        wrappers.push_back(inner);
        inner = d->body;
      } else {
        break;
      }
    }
    Array<Stmt> body = Flatten(inner);
    Access head, tail;
    bool seen_sync = false;
    for (const Stmt& s : body) {
      if (IsSync(s)) {
        seen_sync = true;
        tail = Access();
        continue;
      }
      Access a = Collect(s);
      if (!seen_sync) Merge(&head, a);
      Merge(&tail, a);
    }
    if (!seen_sync) return loop;  // no barrier inside: the sequence rule found no hand-over
    bool conflict = Intersects(tail.writes, head.reads) || Intersects(tail.writes, head.writes) ||
                    Intersects(tail.reads, head.writes);
    if (!conflict) return loop;
    body.push_back(MakeSync());
    Stmt rebuilt = SeqStmt::Flatten(body);
    for (auto it = wrappers.rbegin(); it != wrappers.rend(); ++it) {
      if (auto* a = it->as<AllocateNode>()) {
        rebuilt = Allocate(a->buffer_var, a->dtype, a->extents, a->condition, rebuilt, a->scope,
                           a->annotations);
      } else if (auto* d = it->as<DeclBufferNode>()) {
        rebuilt = DeclBuffer(d->buffer, rebuilt);
      }
    }
    loop.CopyOnWrite()->body = rebuilt;
    return loop;
  }
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    Array<Stmt> out;
    Access pending;
    for (const Stmt& child : op->seq) {
      Stmt s = VisitStmt(child);
      if (IsSync(s)) {
        pending = Access();
        out.push_back(s);
        continue;
      }
      Access a = Collect(s);
      bool conflict = Intersects(a.reads, pending.writes) || Intersects(a.writes, pending.writes) ||
                      Intersects(a.writes, pending.reads);
      if (conflict) {
        out.push_back(MakeSync());
        pending = Access();
      }
      Merge(&pending, a);
      out.push_back(s);
    }
    return SeqStmt::Flatten(out);
  }

 private:
  static Array<Stmt> Flatten(const Stmt& s) {
    if (auto* seq = s.as<SeqStmtNode>()) return seq->seq;
    return {s};
  }
  static void Merge(Access* into, const Access& a) {
    into->reads.insert(a.reads.begin(), a.reads.end());
    into->writes.insert(a.writes.begin(), a.writes.end());
  }
  static bool IsSync(const Stmt& s) {
    auto* ev = s.as<EvaluateNode>();
    auto* call = ev ? ev->value.as<CallNode>() : nullptr;
    return call && call->op == kStorageSyncOp;
  }
  Stmt MakeSync() const {
    return Evaluate(Call(DataType::Int(32), kStorageSyncOp, {StringImm(scope_)}));
  }
  Access Collect(const Stmt& s) const {
    Access a;
    PostOrderVisit(s, [&](const ObjectRef& n) {
      if (auto* st = n.as<BufferStoreNode>()) {
        if (scoped_.count(st->buffer->data.get())) a.writes.insert(st->buffer->data.get());
      } else if (auto* ld = n.as<BufferLoadNode>()) {
        if (scoped_.count(ld->buffer->data.get())) a.reads.insert(ld->buffer->data.get());
      }
    });
    return a;
  }

  std::string scope_;
  VarSet scoped_;
};

}  // namespace

Pass ThreadSync(std::string scope) {
  return CreatePrimFuncPass(
      [scope](PrimFunc f, IRModule, PassContext) {
        Stmt body = SyncInserter(scope).VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.ThreadSync");
}

}  // namespace transform

MINITVM_REGISTER_GLOBAL("tir.transform.ThreadSync").set_body_typed([](std::string scope) {
  return transform::ThreadSync(scope);
});

}  // namespace tir
}  // namespace minitvm
