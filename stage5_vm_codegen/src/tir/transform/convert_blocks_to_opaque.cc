/*!
 * \file convert_blocks_to_opaque.cc
 * \brief ConvertBlocksToOpaque (stage 5): every block iterator is replaced by the value its
 * BlockRealize binds it to, and blocks lose their iterators ("opaque" blocks). What remains is
 * loops over buffers, which later passes lower to plain code.
 */
#include <unordered_map>

#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {
class OpaqueBlockConverter : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = bindings_.find(op);
    return it != bindings_.end() ? it->second : GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override {
    auto it = bindings_.find(op);
    return it != bindings_.end() ? it->second : GetRef<PrimExpr>(op);
  }

  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    const Block& block = op->block;
    std::vector<const VarNode*> bound;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const VarNode* v = block->iter_vars[i]->var.get();
      bindings_[v] = VisitExpr(op->iter_values[i]);
      bound.push_back(v);
    }
    PrimExpr predicate = VisitExpr(op->predicate);
    Block new_block = Downcast<Block>(VisitStmt(block));
    for (const VarNode* v : bound) bindings_.erase(v);
    if (!new_block->iter_vars.empty()) new_block.CopyOnWrite()->iter_vars = {};
    return BlockRealize({}, predicate, new_block);
  }

 private:
  std::unordered_map<const VarNode*, PrimExpr> bindings_;
};
}  // namespace

Pass ConvertBlocksToOpaque() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext) {
        Stmt body = OpaqueBlockConverter().VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.ConvertBlocksToOpaque");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
