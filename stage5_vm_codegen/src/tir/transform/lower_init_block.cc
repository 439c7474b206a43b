/*!
 * \file lower_init_block.cc
 * \brief LowerInitBlock (stage 5): a reduction block's `init` statement runs only on the first
 * iteration of its reduction iterators, so it becomes
 * `if (k == k_min and ...) { init }` placed before the body.
 */
#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {
class InitBlockLowerer : public StmtMutator {
 public:
  Stmt VisitStmt_(const BlockNode* op) override {
    Block block = Downcast<Block>(StmtMutator::VisitStmt_(op));
    if (!block->init.defined()) return block;
    PrimExpr cond;
    for (const IterVar& iv : block->iter_vars) {
      if (iv->iter_type != kCommReduce) continue;
      PrimExpr first = iv->var == iv->dom->min;
      cond = cond.defined() ? (cond && first) : first;
    }
    Stmt init = cond.defined() ? IfThenElse(cond, block->init) : block->init;
    BlockNode* n = block.CopyOnWrite();
    n->body = SeqStmt::Flatten({init, n->body});
    n->init = Stmt();
    return block;
  }
};
}  // namespace

Pass LowerInitBlock() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        Stmt body = InitBlockLowerer().VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.LowerInitBlock");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
