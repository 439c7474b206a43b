/*!
 * \file minitvm/tir/schedule/state.h
 * \brief The state a schedule transforms (stage 3): the IRModule, and for each of its PrimFuncs
 * an index of where every block and loop sits (its parent, its BlockRealize, its position).
 *
 * IR nodes are immutable, so a primitive never edits the tree in place: it builds a new
 * PrimFunc and hands it to `ScheduleState::Replace`. The index of a function is rebuilt
 * lazily after each replacement; it is a plain walk of the function, cheap at the sizes a
 * schedule deals with. Handles that must survive transformations (BlockRV, LoopRV) do not
 * store positions: the Schedule re-finds them in the new function — a loop by its loop
 * variable (which every primitive keeps for the loops it does not replace), a block by node
 * identity and then by its unique name. See `docs/stage3_schedule.md`.
 */
#ifndef MINITVM_TIR_SCHEDULE_STATE_H_
#define MINITVM_TIR_SCHEDULE_STATE_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace tir {

/*! \brief Where one block or loop sits in its function. */
struct StmtSRef {
  /*! \brief The BlockNode or ForNode itself. */
  const StmtNode* stmt = nullptr;
  /*! \brief The nearest enclosing Block or For (nullptr for the root block). */
  const StmtNode* parent = nullptr;
  /*! \brief For a block: the BlockRealize that runs it (nullptr for a root without one). */
  const BlockRealizeNode* realize = nullptr;
  /*! \brief Depth in the block/loop tree (the root block is 0). */
  int depth = 0;
};

/*!
 * \brief The block/loop index of one PrimFunc: parent links, blocks in execution order and
 * loops by their loop variable. Immutable once built.
 */
class FuncIndex {
 public:
  explicit FuncIndex(PrimFunc func);

  /*! \brief The function indexed. */
  const PrimFunc& func() const { return func_; }
  /*! \brief The root block (the function body's block), or nullptr when there is none. */
  const BlockNode* root() const { return root_; }
  /*! \brief Every block in pre-order (the order they first run), the root first. */
  const std::vector<const BlockNode*>& blocks() const { return blocks_; }
  /*! \brief The sref of a block or loop node of this function; nullptr when not in it. */
  const StmtSRef* Find(const StmtNode* stmt) const;
  /*! \brief The sref of a node that must be in the function (InternalError otherwise). */
  const StmtSRef& Get(const StmtNode* stmt) const;
  /*! \brief The loop whose loop variable is `var`, or nullptr. */
  const ForNode* LoopOfVar(const VarNode* var) const;
  /*! \brief Blocks named `name` (normally zero or one). */
  std::vector<const BlockNode*> BlocksNamed(const std::string& name) const;
  /*! \brief The loops between a block and its scope block, outermost first. */
  std::vector<const ForNode*> LoopsAbove(const StmtNode* stmt) const;
  /*! \brief The nearest block strictly enclosing `stmt` (nullptr for the root). */
  const BlockNode* ScopeBlock(const StmtNode* stmt) const;
  /*! \brief The blocks directly under `parent` (no block in between); parent may be a loop. */
  std::vector<const BlockNode*> ChildBlocks(const StmtNode* parent) const;
  /*! \brief True when `ancestor` is `stmt` or encloses it. */
  bool IsAncestor(const StmtNode* ancestor, const StmtNode* stmt) const;

 private:
  PrimFunc func_;
  const BlockNode* root_ = nullptr;
  std::vector<const BlockNode*> blocks_;
  std::unordered_map<const StmtNode*, StmtSRef> srefs_;
  std::unordered_map<const VarNode*, const ForNode*> loop_of_var_;
};

/*!
 * \brief The IRModule under scheduling with a lazily rebuilt index per PrimFunc. Copying a
 * state is cheap (the module is shared copy-on-write, indices are immutable and shared).
 */
class ScheduleState {
 public:
  ScheduleState() = default;
  /*!
   * \brief Take a module. A PrimFunc whose body holds blocks but is not itself a block gets
   * the implicit root block TVMScript prints as `# with T.block("root"):`.
   */
  explicit ScheduleState(IRModule mod);

  /*! \brief The current module. */
  const IRModule& mod() const { return mod_; }
  /*! \brief The PrimFunc named `func_name` (ValueError listing the names when absent). */
  PrimFunc Func(const std::string& func_name) const;
  /*! \brief The index of a function, built on first use after each change. */
  const FuncIndex& Index(const std::string& func_name) const;
  /*! \brief Install a new version of a function. */
  void Replace(const std::string& func_name, PrimFunc func);
  /*! \brief Names of the PrimFuncs in the module, in module order. */
  std::vector<std::string> FuncNames() const;

 private:
  IRModule mod_;
  mutable std::map<std::string, std::shared_ptr<const FuncIndex>> index_;
};

/*! \brief Wrap a function body in a root block when it holds blocks but is not one. */
PrimFunc AddRootBlockIfMissing(PrimFunc func);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_SCHEDULE_STATE_H_
