/*!
 * \file layout_rewrite.cc
 * \brief Stage 5: the schedule rules' side of weight packing at compile time — reading
 * "layout_free_buffers" and marking a packing block as layout-rewrite preprocessing (see
 * layout_rewrite.h).
 */
#include "layout_rewrite.h"

#include <exception>
#include <vector>

#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax_vm {

bool IsLayoutFreeBuffer(const tir::PrimFunc& func, const tir::Buffer& buf) {
  auto attr = func->attrs.Get(String("layout_free_buffers"));
  if (!attr || attr->is_null()) return false;
  std::optional<int64_t> index;
  for (size_t i = 0; i < func->params.size(); ++i) {
    auto b = func->buffer_map.Get(func->params[i]);
    if (b && b->same_as(buf)) index = static_cast<int64_t>(i);
  }
  if (!index) return false;
  try {
    for (const Any& v : attr->cast<Array<Any>>()) {
      int64_t i = v.as<IntImmNode>() ? v.as<IntImmNode>()->value : v.cast<int64_t>();
      if (i == *index) return true;
    }
  } catch (const std::exception&) {
    return false;  // not an array of integers: nothing is layout free
  }
  return false;
}

tir::PrimFunc MarkLayoutRewritePreproc(const tir::PrimFunc& func, const std::string& block_name) {
  const auto* root = func->body.as<tir::BlockRealizeNode>();
  if (!root) return func;
  std::vector<tir::Stmt> stmts;
  if (const auto* seq = root->block->body.as<tir::SeqStmtNode>()) {
    for (const tir::Stmt& s : seq->seq) stmts.push_back(s);
  } else {
    stmts.push_back(root->block->body);
  }
  // The top-level statement holding the block, which must hold nothing else.
  std::optional<size_t> at;
  for (size_t i = 0; i < stmts.size(); ++i) {
    std::vector<const tir::BlockNode*> blocks;
    tir::PostOrderVisit(stmts[i], [&](const ObjectRef& n) {
      if (const auto* b = n.as<tir::BlockNode>()) blocks.push_back(b);
    });
    bool has = false;
    for (const tir::BlockNode* b : blocks) has |= std::string(b->name_hint) == block_name;
    if (!has) continue;
    if (blocks.size() != 1 || stmts.size() < 2) return func;
    const tir::BlockNode* b = blocks[0];
    if (b->reads.size() != 1 || b->writes.size() != 1 || !b->alloc_buffers.empty()) return func;
    bool read_param = false, write_alloc = false;
    for (const tir::Var& p : func->params) {
      auto pb = func->buffer_map.Get(p);
      read_param |= pb && pb->same_as(b->reads[0]->buffer);
    }
    for (const tir::Buffer& a : root->block->alloc_buffers) {
      write_alloc |= a.same_as(b->writes[0]->buffer);
    }
    if (!read_param || !write_alloc) return func;
    at = i;
  }
  if (!at) return func;
  struct Annotate : tir::StmtMutator {
    tir::Stmt VisitStmt_(const tir::BlockNode* op) override {
      auto block = Downcast<tir::Block>(tir::StmtMutator::VisitStmt_(op));
      Map<String, Any> anns = block->annotations;
      anns.Set(String(kLayoutRewritePreproc), Any(IntImm(DataType::Bool(), 1)));
      block.CopyOnWrite()->annotations = anns;
      return block;
    }
  };
  stmts[*at] = Annotate()(stmts[*at]);
  tir::Block new_root = root->block;
  new_root.CopyOnWrite()->body = tir::SeqStmt(Array<tir::Stmt>(stmts.begin(), stmts.end()));
  tir::BlockRealize realize = GetRef<tir::BlockRealize>(root);
  realize.CopyOnWrite()->block = new_root;
  tir::PrimFunc out = func;
  out.CopyOnWrite()->body = realize;
  return out;
}

}  // namespace relax_vm
}  // namespace minitvm
