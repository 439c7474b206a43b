/*!
 * \file utils.h
 * \brief Helpers shared by the schedule primitives (stage 3, internal): editing the IR by node
 * identity, replacing buffers, computing block access regions, affine-binding analysis,
 * producer/consumer relations and the common precondition checks.
 *
 * Every primitive follows the same shape: resolve handles, check preconditions (throwing a
 * ScheduleError), build replacement statements, then `ReplaceStmts` on the function body and
 * `ScheduleState::Replace`. The functions here are the vocabulary for that.
 */
#ifndef MINITVM_STAGE3_SRC_UTILS_H_
#define MINITVM_STAGE3_SRC_UTILS_H_

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "minitvm/arith/analyzer.h"
#include "minitvm/ir/structural.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/error.h"
#include "minitvm/tir/schedule/index_map.h"
#include "minitvm/tir/schedule/state.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {
class ScheduleNode;
namespace sched {

using runtime::Repr;

/*! \brief An expression as Python-like text for messages (`i_0 * 4 + i_1`). */
inline std::string ExprStr(const PrimExpr& e) { return PrintPythonExpr(e); }

// ---- editing the IR -----------------------------------------------------------------------

/*!
 * \brief Rebuild `root` with nodes replaced by identity. A replacement that is an undefined
 * Stmt removes the node: it is dropped from its SeqStmt, and a For left with nothing to run is
 * dropped as well.
 */
Stmt ReplaceStmts(const Stmt& root, const std::unordered_map<const Object*, Stmt>& repl);
/*! \brief ReplaceStmts on a function's body. */
PrimFunc ReplaceInFunc(const PrimFunc& func, const std::unordered_map<const Object*, Stmt>& repl);
/*! \brief A copy of `func` with another body. */
PrimFunc WithBody(const PrimFunc& func, Stmt body);

/*!
 * \brief Replace buffers everywhere in `stmt` (loads, stores, read/write regions, alloc_buffers,
 * match_buffers sources).
 */
Stmt ReplaceBuffers(const Stmt& stmt, const std::unordered_map<const BufferNode*, Buffer>& bmap);

/*! \brief Substitute variables by identity (a thin wrapper over tir::Substitute). */
Stmt SubstituteVars(const Stmt& stmt, const std::unordered_map<const VarNode*, PrimExpr>& vmap);
PrimExpr SubstituteVars(const PrimExpr& e,
                        const std::unordered_map<const VarNode*, PrimExpr>& vmap);

/*! \brief Wrap `body` in loops (outermost first) with fresh loop variables given as `vars`. */
Stmt MakeLoopNest(const std::vector<Var>& vars, const std::vector<PrimExpr>& extents, Stmt body);

/*! \brief The statements of a loop/block body as a list (a SeqStmt's elements or itself). */
std::vector<Stmt> AsSeq(const Stmt& body);

/*! \brief A copy of `block` whose reads/writes are recomputed from its body. */
Block RecomputeAccess(const Block& block);

/*!
 * \brief The regions a block body reads and writes (stage 2's GetBlockAccessRegion: loads and
 * stores relaxed over the loops inside the block, nested blocks through their regions, local
 * allocations left out, and — as in TVM — a block with an init not reading what it writes).
 */
std::pair<Array<BufferRegion>, Array<BufferRegion>> ComputeBlockAccess(const Block& block);

/*!
 * \brief Bring the regions of blocks that hold other blocks (outer blocks, e.g. from blockize)
 * up to date with what is inside them; blocks whose regions are unchanged are kept as they are.
 */
PrimFunc RefreshOuterBlockAccess(const PrimFunc& func);

// ---- arithmetic ---------------------------------------------------------------------------

/*! \brief Bind each loop's variable to its range in the analyzer (unit loops optional). */
void BindLoops(arith::Analyzer* analyzer, const std::vector<const ForNode*>& loops,
               bool bind_unit_loops = true);
/*! \brief The constant value of an expression, if it is one. */
std::optional<int64_t> ConstValue(const PrimExpr& e);
/*! \brief Simplify every element. */
Array<PrimExpr> SimplifyAll(arith::Analyzer* analyzer, const Array<PrimExpr>& values);
/*!
 * \brief An integer expression as `sum(coeff * var) + constant` (ok = false when not linear);
 * the schedule's view of arith::LinearForm.
 */
struct LinearForm {
  std::vector<std::pair<const VarNode*, int64_t>> terms;
  int64_t constant = 0;
  bool ok = true;
};
/*! \brief arith::ToLinearForm of `e` (+, -, * by constants, integer casts, variables). */
LinearForm ToLinear(const PrimExpr& e);
/*! \brief The conjuncts of a condition (`a and b and c` -> [a, b, c]). */
std::vector<PrimExpr> SplitConjuncts(const PrimExpr& cond);
/*! \brief `a and b and ...` (true when empty). */
PrimExpr JoinConjuncts(const std::vector<PrimExpr>& conds);
/*!
 * \brief arith::RelaxRange: the region [min, min + extent) covers over loops; ValueError when
 * it cannot be bounded.
 */
Range RelaxRange(arith::Analyzer* analyzer, const PrimExpr& min, const PrimExpr& extent,
                 const std::unordered_map<const VarNode*, arith::IntSet>& dom);
/*! \brief The union of two ranges (simplified; exact when one contains the other). */
Range UnionRange(arith::Analyzer* analyzer, const Range& a, const Range& b);

// ---- block and loop analysis --------------------------------------------------------------

/*! \brief The loop variables used by an expression, restricted to `loops`. */
std::unordered_set<const VarNode*> UsedVars(const PrimExpr& e);
/*! \brief True when the expression uses variable `v`. */
bool UsesVar(const PrimExpr& e, const VarNode* v);
/*! \brief True when a statement uses variable `v`. */
bool UsesVar(const Stmt& s, const VarNode* v);

/*!
 * \brief Whether a block's bindings are affine in the loops above it: each binding is a sum
 * of constant multiples of loop variables (or of floordiv/floormod terms of one fused loop),
 * and no loop variable drives two bindings except through such a fused term.
 */
bool IsAffineBinding(const BlockRealizeNode* realize, const std::vector<const ForNode*>& loops,
                     std::string* why = nullptr);

/*! \brief Kinds of the block iterators a loop variable appears in (from bindings). */
std::set<IterVarType> IterTypesOfLoop(const BlockRealizeNode* realize, const VarNode* loop_var);

/*! \brief True when the block has reduction iterators or an init. */
bool IsReductionBlock(const BlockNode* block);
/*!
 * \brief A "complete" block in its scope: only data-parallel iterators, no init, writes that
 * it does not read, and it is the only block of the scope writing those buffers.
 */
bool IsCompleteBlock(const FuncIndex& index, const BlockNode* block, const BlockNode* scope,
                     std::string* why = nullptr);

/*! \brief All blocks of `scope` (at any depth below it, but not inside a nested block). */
std::vector<const BlockNode*> BlocksInScope(const FuncIndex& index, const BlockNode* scope);
/*! \brief The blocks of the same scope that write a buffer `block` reads (execution order). */
std::vector<const BlockNode*> Producers(const FuncIndex& index, const BlockNode* block);
/*! \brief The blocks of the same scope that read a buffer `block` writes (execution order). */
std::vector<const BlockNode*> Consumers(const FuncIndex& index, const BlockNode* block);
/*! \brief True when a region list mentions `buffer`. */
bool RegionsHave(const Array<BufferRegion>& regions, const BufferNode* buffer);
/*!
 * \brief The `i`-th buffer `block` reads (`write` false) or writes: the one buffer-index check of
 * cache_read/cache_write, set_scope, storage_align, transform_layout and the Python front
 * (ScheduleError IndexOutOfRangeError, naming `primitive`, when `i` is out of range).
 */
Buffer BlockBuffer(const BlockNode* block, int64_t i, bool write, const std::string& primitive);
/*! \brief The block that allocates `buffer` (nullptr when it is a parameter). */
const BlockNode* AllocatingBlock(const FuncIndex& index, const BufferNode* buffer);

/*! \brief `"i_0"`-style display name of a loop / a block for messages. */
std::string LoopName(const ForNode* loop);
std::string BlockName(const BlockNode* block);

/*! \brief A name not used by any block of the function, starting from `base`. */
std::string UniqueBlockName(const FuncIndex& index, const std::string& base);

// ---- shared precondition checks (throw ScheduleError) ---------------------------------------

/*! \brief The sref node must be a For (ValueError otherwise; handles are typed). */
const ForNode* AsLoop(const StmtNode* stmt);
const BlockNode* AsBlock(const StmtNode* stmt);
/*! \brief HasAnnotationOrThreadBindingError unless the loop is a plain serial loop. */
void CheckPlainLoop(const ForNode* loop, const std::string& primitive);
/*! \brief LoopNotStartWithZeroError unless the loop starts at 0. */
void CheckLoopStartsAtZero(arith::Analyzer* analyzer, const ForNode* loop);
/*! \brief NotAffineBindingError for blocks under `stmt` whose bindings are not affine. */
void CheckAffineUnder(const FuncIndex& index, const StmtNode* stmt, const std::string& primitive);

// ---- buffers and scopes (cache.cc) ---------------------------------------------------------

/*! \brief ValueError unless `scope` is a storage scope minitvm knows. */
void CheckStorageScope(const std::string& scope);
/*! \brief A buffer like `buf` in another scope, with a fresh data variable and name. */
Buffer CacheBuffer(const Buffer& buf, const std::string& scope, const std::string& name);
/*! \brief Where a copy block goes: into the body of `parent` (a For or the scope block). */
struct InsertPoint {
  const StmtNode* parent = nullptr;
  int64_t pos = 0;
};
/*!
 * \brief The highest place for a copy that runs after every block of `before` and before every
 * block of `after` (all in `scope`); `anchor_after`: right before the first `after` statement
 * (reindex_cache_read) or right after the last `before` one (reindex_cache_write). nullopt when
 * there is none. (cache_read/cache_write place their copies as TVM does, in cache.cc.)
 */
std::optional<InsertPoint> FindInsertPoint(const BlockNode* scope,
                                           const std::vector<const BlockNode*>& before,
                                           const std::vector<const BlockNode*>& after,
                                           bool anchor_after);
/*! \brief Put `copy` at `at`, replace the statements of `repl`, allocate `alloc` in `scope`. */
void InstallCopy(ScheduleNode* self, const std::string& func, const FuncIndex& index,
                 const BlockNode* scope, const InsertPoint& at, const Stmt& copy,
                 const std::unordered_map<const Object*, Stmt>& repl, const Buffer& alloc);
/*! \brief The CachePositionError of a cache primitive that found no place for its copy. */
[[noreturn]] void NoPosition(const std::string& primitive, const BlockNode* block,
                             const Buffer& buf);

// ---- blockize (blockize.cc), used by tensorize --------------------------------------------

/*!
 * \brief Blockize `loop` of `index`'s function: returns the new function and the name of the
 * new outer block. Throws ScheduleError when the loop cannot be blockized.
 */
std::pair<PrimFunc, std::string> BlockizeLoop(const FuncIndex& index, const ForNode* loop,
                                              bool preserve_unit_iters);

}  // namespace sched
}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_STAGE3_SRC_UTILS_H_
