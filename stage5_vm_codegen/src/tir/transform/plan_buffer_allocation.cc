/*!
 * \file plan_buffer_allocation.cc
 * \brief PlanAndUpdateBufferAllocationLocation (stage 5): each buffer a block allocates is
 * moved down to the lowest loop or block that contains every access to it (their lowest
 * common ancestor). A cache_write "local" tile allocated at the root ends up inside the loop
 * that uses it, which is what lets it become a small stack array — and then registers.
 */
#include <unordered_map>
#include <unordered_set>

#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

/*! \brief Finds, for each buffer, the lowest For/Block enclosing all its accesses. */
class BufferAccessLCA : public StmtExprVisitor {
 public:
  struct Scope {
    const Object* parent;
    int depth;
  };
  std::unordered_map<const Object*, Scope> scopes;
  std::unordered_map<const BufferNode*, const Object*> lca;
  std::unordered_set<const BufferNode*> accessed;

  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;

  void VisitStmt_(const ForNode* op) override {
    Enter(op);
    StmtExprVisitor::VisitStmt_(op);
    stack_.pop_back();
  }
  void VisitStmt_(const BlockNode* op) override {
    Enter(op);
    StmtExprVisitor::VisitStmt_(op);
    stack_.pop_back();
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Access(op->buffer.get());
    ExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Access(op->buffer.get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitBufferRegion(const BufferRegion& region) override {
    // Regions of blocks are declarations, not accesses; match_buffer sources are accesses.
    StmtVisitor::VisitBufferRegion(region);
  }

 private:
  void Enter(const Object* node) {
    const Object* parent = stack_.empty() ? nullptr : stack_.back();
    scopes[node] = Scope{parent, static_cast<int>(stack_.size())};
    stack_.push_back(node);
  }
  const Object* LCA(const Object* a, const Object* b) {
    if (!a || !b) return nullptr;
    while (a != b) {
      int da = scopes.at(a).depth, db = scopes.at(b).depth;
      if (da >= db) a = scopes.at(a).parent;
      if (db >= da) b = scopes.at(b).parent;
      if (!a || !b) return nullptr;
    }
    return a;
  }
  void Access(const BufferNode* buf) {
    const Object* here = stack_.empty() ? nullptr : stack_.back();
    if (!accessed.count(buf)) {
      accessed.insert(buf);
      lca[buf] = here;
    } else {
      lca[buf] = LCA(lca[buf], here);
    }
  }
  std::vector<const Object*> stack_;
};

/*! \brief Removes allocations from their blocks and re-inserts them at their new scope. */
class AllocationMover : public StmtMutator {
 public:
  // Per new scope (a For or Block), the buffers allocated there, in declaration order.
  std::unordered_map<const Object*, std::vector<Buffer>> alloc_at;
  std::unordered_set<const BufferNode*> moved;

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    auto it = alloc_at.find(op);
    if (it == alloc_at.end()) return s;
    For loop = Downcast<For>(s);
    Block block({}, {}, {}, "", loop->body, Stmt(), Array<Buffer>(it->second));
    loop.CopyOnWrite()->body = BlockRealize({}, const_true(), block);
    return loop;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Block block = Downcast<Block>(StmtMutator::VisitStmt_(op));
    Array<Buffer> allocs;
    bool changed = false;
    for (const Buffer& b : block->alloc_buffers) {
      if (moved.count(b.get())) {
        changed = true;
      } else {
        allocs.push_back(b);
      }
    }
    auto it = alloc_at.find(op);
    if (it != alloc_at.end()) {
      for (const Buffer& b : it->second) allocs.push_back(b);
      changed = true;
    }
    if (changed) block.CopyOnWrite()->alloc_buffers = allocs;
    return block;
  }
};

class AllocationCollector : public StmtVisitor {
 public:
  std::vector<std::pair<Buffer, const BlockNode*>> allocs;
  void VisitStmt_(const BlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) allocs.emplace_back(b, op);
    StmtVisitor::VisitStmt_(op);
  }
};

}  // namespace

Pass PlanAndUpdateBufferAllocationLocation() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        AllocationCollector collector;
        collector.VisitStmt(f->body);
        if (collector.allocs.empty()) return f;
        BufferAccessLCA lca;
        lca.VisitStmt(f->body);
        AllocationMover mover;
        for (const auto& [buf, block] : collector.allocs) {
          auto it = lca.lca.find(buf.get());
          // Never accessed, or accessed at the function level: keep it where it is.
          if (it == lca.lca.end() || it->second == nullptr || it->second == block) continue;
          mover.moved.insert(buf.get());
          mover.alloc_at[it->second].push_back(buf);
        }
        if (mover.moved.empty()) return f;
        Stmt body = mover.VisitStmt(f->body);
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.PlanAndUpdateBufferAllocationLocation");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
