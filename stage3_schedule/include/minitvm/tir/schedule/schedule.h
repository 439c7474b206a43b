/*!
 * \file minitvm/tir/schedule/schedule.h
 * \brief `tir.Schedule` (stage 3): the object a learner transforms a PrimFunc with, one
 * primitive at a time, without changing what it computes.
 *
 * A schedule holds the module being transformed (`mod()`, always valid IR), the handles it
 * gave out (`BlockRV` for blocks, `LoopRV` for loops) and the trace of the primitives applied
 * so far. Every primitive:
 *  1. resolves its handles to the current blocks and loops,
 *  2. checks its preconditions, raising a `ScheduleError` (rendered, with kind
 *     `"ScheduleError.<Rule>"`) when one fails — the schedule is then left unchanged,
 *  3. builds the new function and installs it,
 *  4. re-finds every live handle in the new function and records itself in the trace.
 * Names and signatures follow TVM's `tvm.tir.Schedule`.
 */
#ifndef MINITVM_TIR_SCHEDULE_SCHEDULE_H_
#define MINITVM_TIR_SCHEDULE_SCHEDULE_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/tir/schedule/error.h"
#include "minitvm/tir/schedule/index_map.h"
#include "minitvm/tir/schedule/state.h"
#include "minitvm/tir/schedule/trace.h"

namespace minitvm {
namespace tir {

/*! \brief The node of a block handle (identity is what matters). */
class BlockRVNode : public Object {
 public:
  MINITVM_DECLARE_OBJECT_INFO(BlockRVNode, Object, "tir.BlockRV");
};
/*! \brief A handle to a block of the scheduled module. */
class BlockRV : public ObjectRef {
 public:
  /*! \brief A fresh handle. */
  static BlockRV New();
  MINITVM_DEFINE_OBJECT_REF_METHODS(BlockRV, ObjectRef, BlockRVNode);
};

/*! \brief The node of a loop handle. */
class LoopRVNode : public Object {
 public:
  MINITVM_DECLARE_OBJECT_INFO(LoopRVNode, Object, "tir.LoopRV");
};
/*! \brief A handle to a loop of the scheduled module. */
class LoopRV : public ObjectRef {
 public:
  /*! \brief A fresh handle. */
  static LoopRV New();
  MINITVM_DEFINE_OBJECT_REF_METHODS(LoopRV, ObjectRef, LoopRVNode);
};

/*!
 * \brief The node of an expression handle: an integer a sampling primitive chose
 * (`sample_perfect_tile`, `sample_categorical`). TVM's ExprRV is a PrimExpr variable; here it is
 * a handle that carries its value, which `split` factors and `sch.get` read.
 */
class ExprRVNode : public Object {
 public:
  /*! \brief The sampled value. */
  int64_t value = 0;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("value", &value); }
  MINITVM_DECLARE_OBJECT_INFO(ExprRVNode, Object, "tir.ExprRV");
};
/*! \brief A handle to a sampled integer. */
class ExprRV : public ObjectRef {
 public:
  /*! \brief A fresh handle holding `value`. */
  static ExprRV New(int64_t value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(ExprRV, ObjectRef, ExprRVNode);
};

/*! \brief True when `v` holds a schedule handle: a BlockRV, LoopRV or ExprRV. */
bool IsScheduleRV(const Any& v);
/*! \brief A fresh handle of kind 'b' (block), 'l' (loop) or 'v' (expression). */
ObjectRef NewScheduleRV(char kind);

/*! \brief Which of a block's buffer lists `transform_layout` names ("read" or "write"). */
enum class BufferIndexType : int { kRead = 0, kWrite = 1 };

class Schedule;

/*! \brief The node of a Schedule: state, handle table and trace. */
class ScheduleNode : public Object {
 public:
  // ---- the state ---------------------------------------------------------------------------
  /*! \brief The module as scheduled so far. */
  const IRModule& mod() const { return state_.mod(); }
  /*! \brief The module the schedule started from (what the trace replays on). */
  const IRModule& original_mod() const { return original_mod_; }
  /*! \brief The state (module and block/loop index). */
  const ScheduleState& state() const { return state_; }
  /*! \brief The trace of every primitive applied so far. */
  const Trace& trace() const { return trace_; }
  /*! \brief How errors are rendered. */
  ErrorRenderLevel error_render_level() const { return error_render_level_; }
  /*! \brief Nonzero: check the IR after every primitive (an InternalError means a bug). */
  int debug_mask() const { return debug_mask_; }
  /*! \brief An independent copy: same module, handles and trace; later changes diverge. */
  Schedule Copy() const;

  /*! \brief The block a handle refers to now (ValueError when it no longer exists). */
  Block Get(const BlockRV& rv) const;
  /*! \brief The loop a handle refers to now (ValueError when it no longer exists). */
  For Get(const LoopRV& rv) const;
  /*! \brief The value a sampled expression handle holds. */
  int64_t Get(const ExprRV& rv) const { return rv->value; }
  /*! \brief The function a handle lives in. */
  std::string FuncNameOf(const ObjectRef& rv) const;
  /*! \brief The name a handle has in the trace (`b0`, `l3`), or "" when not yet named. */
  std::string NameOf(const ObjectRef& rv) const;

  // ---- getters -----------------------------------------------------------------------------
  /*! \brief The block named `name` in function `func_name`. */
  BlockRV GetBlock(const std::string& name, const std::string& func_name = "main");
  /*! \brief The loops above a block, outermost first (up to its enclosing block). */
  Array<LoopRV> GetLoops(const BlockRV& block);
  /*! \brief The blocks directly under a block or a loop. */
  Array<BlockRV> GetChildBlocks(const ObjectRef& block_or_loop);
  /*! \brief The blocks of the same scope that write what `block` reads. */
  Array<BlockRV> GetProducers(const BlockRV& block);
  /*! \brief The blocks of the same scope that read what `block` writes. */
  Array<BlockRV> GetConsumers(const BlockRV& block);

  // ---- loop transformations ----------------------------------------------------------------
  /*!
   * \brief Split a loop into nested loops with the given extents. At most one factor may be
   * None (std::nullopt): it is inferred. When the product exceeds the extent the blocks get a
   * `T.where` predicate. Returns the new loops, outermost first.
   */
  Array<LoopRV> Split(const LoopRV& loop, const std::vector<std::optional<int64_t>>& factors,
                      bool preserve_unit_iters = true, bool disable_predication = false);
  /*! \brief Fuse a chain of perfectly nested loops into one loop `a_b_fused`. */
  LoopRV Fuse(const Array<LoopRV>& loops, bool preserve_unit_iters = true);
  /*! \brief Reorder loops of one chain (they need not be adjacent). */
  void Reorder(const Array<LoopRV>& ordered_loops);
  /*! \brief Run a loop's iterations in parallel threads. */
  void Parallel(const LoopRV& loop);
  /*! \brief Run a loop as vector lanes. */
  void Vectorize(const LoopRV& loop);
  /*! \brief Unroll a loop. */
  void Unroll(const LoopRV& loop);
  /*! \brief Bind a loop to a GPU thread axis ("blockIdx.x", "threadIdx.y", "vthread", ...). */
  void Bind(const LoopRV& loop, const std::string& thread_axis);
  /*! \brief Wrap a block or loop in a new loop of extent 1; returns it. */
  LoopRV AddUnitLoop(const ObjectRef& block_or_loop);

  // ---- compute location --------------------------------------------------------------------
  /*! \brief Move a producer block under `loop`, computing only the region its consumers there
   * need. */
  void ComputeAt(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops = false,
                 int index = -1);
  /*! \brief Move a consumer block under `loop`, consuming what its producers there write. */
  void ReverseComputeAt(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops = false,
                        int index = -1);
  /*! \brief Inline a block's expression into the blocks that read its output. */
  void ComputeInline(const BlockRV& block);
  /*! \brief Inline a consumer's expression into its single producer. */
  void ReverseComputeInline(const BlockRV& block);

  // ---- buffers -----------------------------------------------------------------------------
  /*! \brief Read a block's `read_buffer_index`-th buffer through a copy in `storage_scope`. */
  BlockRV CacheRead(const BlockRV& block, int read_buffer_index, const std::string& storage_scope,
                    const Array<BlockRV>& consumer_blocks = {});
  /*! \brief Write a block's `write_buffer_index`-th buffer through a copy in `storage_scope`. */
  BlockRV CacheWrite(const BlockRV& block, int write_buffer_index, const std::string& storage_scope,
                     const Array<BlockRV>& consumer_blocks = {});
  /*! \brief Change the storage scope of a buffer the block writes (an allocated buffer). */
  void SetScope(const BlockRV& block, int buffer_index, const std::string& storage_scope);
  /*! \brief Pad the stride of `axis` of a written buffer to `factor * k + offset`. */
  void StorageAlign(const BlockRV& block, int buffer_index, int axis, int factor, int offset);
  /*! \brief Rewrite a buffer's layout through an index map (every access is rewritten). */
  void TransformLayout(const BlockRV& block, int buffer_index, BufferIndexType buffer_index_type,
                       const IndexMap& index_map,
                       const std::optional<PrimExpr>& pad_value = std::nullopt);

  // ---- reductions --------------------------------------------------------------------------
  /*! \brief Split a reduction block's init into its own block placed before `loop`. */
  BlockRV DecomposeReduction(const BlockRV& block, const LoopRV& loop);
  /*! \brief Factor a reduction over `loop` into partial results plus a final reduction. */
  BlockRV RFactor(const LoopRV& loop, int factor_axis);

  // ---- annotations, blockize, tensorize ----------------------------------------------------
  /*! \brief Set an annotation on a block or loop. */
  void Annotate(const ObjectRef& block_or_loop, const std::string& ann_key, const Any& ann_val);
  /*! \brief Remove an annotation from a block or loop. */
  void Unannotate(const ObjectRef& block_or_loop, const std::string& ann_key);
  /*! \brief Make the subtree under `loop` (with `loop`) the body of a new outer block. */
  BlockRV Blockize(const LoopRV& loop, bool preserve_unit_iters = true);
  /*! \brief Replace the computation under a loop (or a block) by a registered tensor intrinsic. */
  void Tensorize(const ObjectRef& block_or_loop, const std::string& tensor_intrin,
                 bool preserve_unit_iters = true);
  /*! \brief Mark the start of post-processing in the trace (dropped by remove_postproc). */
  void EnterPostproc();

  // ---- sampling (the search space of automatic scheduling) ---------------------------------
  /*!
   * \brief Seed the random state of the sampling primitives; -1 seeds from the clock. The same
   * seed and the same calls give the same decisions.
   */
  void Seed(int64_t seed);
  /*! \brief A new seed drawn from this schedule's random state (for a forked schedule). */
  int64_t ForkSeed();
  /*! \brief The next number of the random state (a splitmix64 sequence). */
  uint64_t NextRandom();
  /*!
   * \brief Sample `n` factors whose product is the loop's constant extent, the innermost at
   * most `max_innermost_factor` (unless n = 1). `decision` (the factors) replays a recorded choice.
   */
  Array<ExprRV> SamplePerfectTile(const LoopRV& loop, int n, int max_innermost_factor,
                                  const Any& decision = Any());
  /*! \brief Sample one of `candidates` with probabilities `probs`; `decision` is an index. */
  ExprRV SampleCategorical(const Array<Any>& candidates, const Array<Any>& probs,
                           const Any& decision = Any());
  /*!
   * \brief Sample a loop at which `compute_at(block, loop)` is legal; `decision` is the index
   * of the loop among those candidates (each loop listed before the loops inside it).
   */
  LoopRV SampleComputeLocation(const BlockRV& block, const Any& decision = Any());
  /*! \brief Set by a sampling primitive while it runs: the decision the trace records. */
  void SetDecision(Any decision) { pending_decision_ = std::move(decision); }

  // ---- the generic path --------------------------------------------------------------------
  /*!
   * \brief Apply one instruction of kind `kind` with resolved inputs and attributes; returns the
   * new handles. Every method above goes through here, as does trace replay.
   */
  Array<ObjectRef> Apply(const std::string& kind, const Array<Any>& inputs,
                         const Array<Any>& attrs);

  MINITVM_DECLARE_OBJECT_INFO(ScheduleNode, Object, "tir.Schedule");

  // ---- used by instruction kinds (not for users) -------------------------------------------
  /*! \brief The state, writable by the primitive that is running. */
  ScheduleState* mutable_state() { return &state_; }
  /*! \brief Resolve a handle to its function and current node. */
  std::pair<std::string, const StmtNode*> Resolve(const ObjectRef& rv) const;
  /*! \brief A new handle for a block or loop of `func_name`. */
  ObjectRef NewRV(const std::string& func_name, const StmtNode* stmt);
  /*! \brief A primitive renamed `block`: handles to it follow the new name. */
  void NoteRename(const BlockNode* block, const std::string& new_name) {
    renames_[block] = new_name;
  }
  /*! \brief The name of the primitive being applied (for messages). */
  const std::string& current_call() const { return current_call_; }

 private:
  friend class Schedule;
  /*! \brief What a handle refers to: the function and the node it was last found at. */
  struct RVEntry {
    std::string func;
    ObjectRef stmt;          // a Block or For node
    std::string expired_by;  // non-empty: the primitive that removed it
  };
  /*! \brief Re-find every handle of `func` after it changed. */
  void Reconcile(const std::string& func, const std::string& primitive);
  /*! \brief Check the IR of a function (debug_mask): InternalError on malformed IR. */
  void VerifyFunc(const std::string& func) const;
  /*! \brief Give handles their trace names, in order of definition. */
  void NameRV(const ObjectRef& rv);

  ScheduleState state_;
  IRModule original_mod_;
  Trace trace_;
  ErrorRenderLevel error_render_level_ = ErrorRenderLevel::kDetail;
  int debug_mask_ = 0;
  std::unordered_map<ObjectRef, RVEntry, ObjectPtrHash, ObjectPtrEqual> rvs_;
  std::unordered_map<ObjectRef, std::string, ObjectPtrHash, ObjectPtrEqual> rv_names_;
  int next_block_name_ = 0;
  int next_loop_name_ = 0;
  int next_rv_index_ = 0;
  std::string current_call_;
  std::unordered_map<const Object*, std::string> renames_;
  uint64_t rand_state_ = 0x6a09e667f3bcc909ULL;
  Any pending_decision_;
};

/*! \brief A schedule over an IRModule (see the file comment). */
class Schedule : public ObjectRef {
 public:
  /*!
   * \brief Schedule a module. `debug_mask` nonzero verifies the IR after every primitive;
   * `error_render_level` chooses how much an error message shows.
   */
  static Schedule Create(IRModule mod, int debug_mask = 0,
                         ErrorRenderLevel error_render_level = ErrorRenderLevel::kDetail);
  /*! \brief Schedule a single PrimFunc (it becomes "main" of a new module). */
  static Schedule Create(PrimFunc func, int debug_mask = 0,
                         ErrorRenderLevel error_render_level = ErrorRenderLevel::kDetail);
  Schedule() = default;
  explicit Schedule(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  ScheduleNode* operator->() const { return static_cast<ScheduleNode*>(get_mutable()); }
  ScheduleNode* get() const { return operator->(); }
  using ContainerType = ScheduleNode;
};

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_SCHEDULE_SCHEDULE_H_
