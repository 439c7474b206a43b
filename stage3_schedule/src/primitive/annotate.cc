/*!
 * \file primitive/annotate.cc
 * \brief `annotate` and `unannotate` (stage 3): attach hints to blocks and loops (for lowering
 * and code generation), or remove them.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

Stmt WithAnnotations(const StmtNode* stmt, const std::function<void(Map<String, Any>*)>& edit) {
  if (auto* loop = dynamic_cast<const ForNode*>(stmt)) {
    For f = GetRef<For>(loop);
    edit(&f.CopyOnWrite()->annotations);
    return f;
  }
  Block b = GetRef<Block>(AsBlock(stmt));
  edit(&b.CopyOnWrite()->annotations);
  return b;
}

/*! \brief annotate: set `ann_key` to `ann_val` on a block or loop. */
Array<ObjectRef> Annotate(ScheduleNode* self, const ObjectRef& block_or_loop,
                          const std::string& ann_key, const Any& ann_val) {
  // Step 1: the block or loop.
  auto [func, stmt] = self->Resolve(block_or_loop);
  const FuncIndex& index = self->state().Index(func);
  // Step 2: the same node with the annotation set, installed in its place.
  Stmt now = WithAnnotations(stmt, [&](Map<String, Any>* m) { m->Set(String(ann_key), ann_val); });
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{stmt, now}}));
  return {};
}

/*! \brief unannotate: remove `ann_key` from a block or loop (nothing when it is not set). */
Array<ObjectRef> Unannotate(ScheduleNode* self, const ObjectRef& block_or_loop,
                            const std::string& ann_key) {
  // Step 1: the block or loop.
  auto [func, stmt] = self->Resolve(block_or_loop);
  const FuncIndex& index = self->state().Index(func);
  // Step 2: the same node without the annotation, installed in its place.
  Stmt now = WithAnnotations(stmt, [&](Map<String, Any>* m) { m->erase(String(ann_key)); });
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{stmt, now}}));
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("Annotate", "annotate", {"block_or_loop"},
                                               {"ann_key", "ann_val"}, Annotate));

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("Unannotate", "unannotate", {"block_or_loop"},
                                               {"ann_key"}, Unannotate));

}  // namespace tir
}  // namespace minitvm
