/*!
 * \file primitive/for_kind.cc
 * \brief `parallel`, `vectorize`, `unroll` and `bind` (stage 3): change how a loop runs.
 *
 * Running iterations at the same time is only safe when they are independent: the loop
 * variable may only drive data-parallel block iterators (not a reduction), and the bindings
 * must be affine so that distinct iterations touch distinct data. As in TVM, every block
 * directly under the loop must also have compact dataflow (complete, or a reduction that still
 * has its init), so a schedule sets loop kinds before decompose_reduction, whose init loops copy
 * them. `unroll` has no such condition: it keeps the order of iterations.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

bool IsValidThreadAxis(const std::string& axis) {
  for (const char* prefix : {"blockIdx.", "threadIdx.", "vthread."}) {
    std::string p = prefix;
    if (axis.size() == p.size() + 1 && axis.rfind(p, 0) == 0 &&
        (axis.back() == 'x' || axis.back() == 'y' || axis.back() == 'z')) {
      return true;
    }
  }
  return axis == "vthread";
}

/*!
 * \brief Writers per buffer among the blocks directly inside `b` (b's own scope), as TVM's
 * block scope keeps them; the first child scope that writes a buffer decides for it.
 */
void CollectScopeWriters(const FuncIndex& index, const BlockNode* b,
                         std::unordered_map<const BufferNode*, int>* writers) {
  std::unordered_set<const BlockNode*> in_init;  // blocks of T.init() are not in the scope
  if (b->init.defined()) {
    PostOrderVisit(b->init, [&](const ObjectRef& n) {
      if (auto* c = n.as<BlockNode>()) in_init.insert(c);
    });
  }
  std::unordered_map<const BufferNode*, int> own;
  for (const BlockNode* c : index.ChildBlocks(b)) {
    if (in_init.count(c)) continue;
    for (const BufferRegion& w : c->writes) ++own[w->buffer.get()];
  }
  for (const auto& [buf, n] : own) writers->emplace(buf, n);
}

/*!
 * \brief TVM's compact-dataflow check of parallel/vectorize/bind: each block directly under the
 * loop (not nested in another block) must be a "local complete" block (only data-parallel
 * iterators, the only writer of its outputs, no buffer both read and written) or a "local
 * reduction" block (has an init, affine bindings, only data-parallel and reduction iterators,
 * the only writer of its outputs, reduction iterators not indexing the outputs). With a loop as
 * the subtree root, "only writer" is judged, as in TVM, against the writers recorded in the
 * child blocks' own scopes (blocks nested inside them), so a leaf block always passes it.
 * A block left by decompose_reduction (a reduction iterator, no init) fails both.
 */
void CheckCompactDataflow(const FuncIndex& index, const ForNode* loop,
                          const std::string& primitive) {
  std::vector<const BlockNode*> children = index.ChildBlocks(loop);
  std::unordered_map<const BufferNode*, int> writers;
  for (const BlockNode* b : children) CollectScopeWriters(index, b, &writers);
  auto dominant = [&](const BlockNode* b) {
    for (const BufferRegion& w : b->writes) {
      auto it = writers.find(w->buffer.get());
      if (it != writers.end() && it->second != 1) return false;
    }
    return true;
  };
  for (const BlockNode* b : children) {
    // Local complete block: conditions 1-3.
    int complete = 0;
    for (const IterVar& iv : b->iter_vars) {
      if (iv->iter_type != kDataPar) complete = 1;
    }
    if (complete == 0 && !dominant(b)) complete = 2;
    if (complete == 0) {
      for (const BufferRegion& r : b->reads) {
        if (RegionsHave(b->writes, r->buffer.get())) complete = 3;
      }
    }
    if (complete == 0) continue;
    // Local reduction block: conditions 1-5.
    int reduction = 0;
    std::string why;
    const StmtSRef& s = index.Get(b);
    if (!b->init.defined()) {
      reduction = 1;
    } else if (s.realize != nullptr && !IsAffineBinding(s.realize, index.LoopsAbove(b), &why)) {
      reduction = 2;
    } else {
      for (const IterVar& iv : b->iter_vars) {
        if (iv->iter_type != kDataPar && iv->iter_type != kCommReduce) reduction = 3;
      }
      if (reduction == 0 && !dominant(b)) reduction = 4;
      if (reduction == 0) {
        for (const IterVar& iv : b->iter_vars) {
          if (iv->iter_type != kCommReduce) continue;
          for (const BufferRegion& w : b->writes) {
            for (const Range& r : w->region) {
              if (UsesVar(r->min, iv->var.get()) || UsesVar(r->extent, iv->var.get())) {
                reduction = 5;
              }
            }
          }
        }
      }
    }
    if (reduction == 0) continue;
    static const char* kComplete[] = {"", "not all its iterators are data-parallel",
                                      "it is not the only writer of its output",
                                      "it reads a buffer it writes"};
    static const char* kReduction[] = {"",
                                       "it has no init",
                                       "its bindings are not affine",
                                       "it has an iterator neither data-parallel nor reduction",
                                       "it is not the only writer of its output",
                                       "a reduction iterator indexes its output"};
    // The usual case: the update block decompose_reduction leaves (reduction iterators, no
    // init). Its iterations are only independent together with the init that zeroes them.
    bool decomposed = reduction == 1;
    for (const IterVar& iv : b->iter_vars) decomposed = decomposed && iv->iter_type != kOpaque;
    decomposed = decomposed && complete == 1;
    std::string reason = std::string("block ") + BlockName(b) +
                         " is neither a local complete block (" + kComplete[complete] +
                         ") nor a local reduction block (" + kReduction[reduction] + ")";
    if (decomposed) {
      reason += "; it looks like the update block decompose_reduction leaves: as in TVM, call " +
                primitive + " before decompose_reduction (the init's loops copy the loop kinds)";
    }
    ScheduleError err("NotCompactDataFlowError", primitive + ": the subtree of loop " +
                                                     LoopName(loop) +
                                                     " does not have compact dataflow: " + reason);
    err.Subject("loop " + LoopName(loop))
        .Subject("block " + BlockName(b))
        .Check("every block under the loop is a local complete or local reduction block", false)
        .At(GetRef<ObjectRef>(b), std::string("not complete: ") + kComplete[complete] +
                                      "; not a reduction with its init: " + kReduction[reduction]);
    throw err;
  }
}

/*! \brief The checks shared by parallel, vectorize and bind. */
void CheckParallelizable(const FuncIndex& index, const ForNode* loop, const std::string& primitive,
                         ForKind target, const std::string& thread_axis = "") {
  // As in TVM, a loop bound to threadIdx.x/y/z may drive reduction iterators too: the threads
  // of a block reduce together (a cross-thread reduction, lowered with an allreduce).
  const bool cross_thread =
      target == ForKind::kThreadBinding && thread_axis.rfind("threadIdx.", 0) == 0;
  if (loop->kind != ForKind::kSerial && loop->kind != target) {
    ScheduleError err("HasAnnotationOrThreadBindingError",
                      "loop " + LoopName(loop) + " is already " + ForKindName(loop->kind));
    err.Subject("loop " + LoopName(loop))
        .Check("the loop is serial", false)
        .At(GetRef<ObjectRef>(loop), std::string("already ") + ForKindName(loop->kind));
    throw err;
  }
  CheckCompactDataflow(index, loop, primitive);
  CheckAffineUnder(index, loop, primitive);
  for (const BlockNode* b : index.blocks()) {
    if (b == index.root() || !index.IsAncestor(loop, b)) continue;
    const StmtSRef& s = index.Get(b);
    if (s.realize == nullptr) continue;
    for (IterVarType t : IterTypesOfLoop(s.realize, loop->loop_var.get())) {
      if (t == kDataPar || (t == kCommReduce && cross_thread)) continue;
      std::string kind = t == kCommReduce ? "a reduction" : "an opaque";
      ScheduleError err("WrongBlockIterTypeError",
                        primitive + " needs loop " + LoopName(loop) +
                            " to drive only data-parallel block iterators, but it drives " + kind +
                            " iterator of block " + BlockName(b));
      err.Subject("loop " + LoopName(loop))
          .Subject("block " + BlockName(b))
          .Check("the block bindings under the loop are affine", true)
          .Check("the loop variable is bound only to data-parallel iterators", false)
          .At(GetRef<ObjectRef>(loop), "drives " + kind + " iterator of " + BlockName(b))
          .At(GetRef<ObjectRef>(b), kind + " iterator bound to " + LoopName(loop));
      throw err;
    }
  }
}

void SetKind(ScheduleNode* self, const ObjectRef& rv, ForKind kind, const std::string& primitive,
             const std::string& thread_axis = "") {
  auto [func, stmt] = self->Resolve(rv);
  const FuncIndex& index = self->state().Index(func);
  const ForNode* loop = AsLoop(stmt);
  if (kind != ForKind::kUnrolled) CheckParallelizable(index, loop, primitive, kind, thread_axis);
  For f = GetRef<For>(loop);
  ForNode* n = f.CopyOnWrite();
  n->kind = kind;
  if (kind == ForKind::kThreadBinding) {
    n->thread_binding =
        IterVar(Range(), Var(thread_axis, loop->loop_var.dtype()), kThreadIndex, thread_axis);
  } else {
    n->thread_binding = IterVar();
  }
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{loop, f}}));
}

/*! \brief parallel / vectorize / unroll: the loop's kind becomes `kKind`. */
template <ForKind kKind>
Array<ObjectRef> SetLoopKind(ScheduleNode* self, const LoopRV& loop) {
  const char* method = kKind == ForKind::kParallel     ? "parallel"
                       : kKind == ForKind::kVectorized ? "vectorize"
                                                       : "unroll";
  SetKind(self, loop, kKind, method);
  return {};
}

/*! \brief bind: the loop runs as the thread axis `thread_axis`. */
Array<ObjectRef> Bind(ScheduleNode* self, const LoopRV& loop, const std::string& thread_axis) {
  // Step 1: the axis is one minitvm knows.
  if (!IsValidThreadAxis(thread_axis)) {
    MINITVM_THROW(ValueError) << "bind: \"" << thread_axis
                              << "\" is not a thread axis; use blockIdx.x/y/z, threadIdx.x/y/z "
                                 "or vthread";
  }
  // Step 2: the loop's kind and binding (SetKind checks the loop).
  SetKind(self, loop, ForKind::kThreadBinding, "bind", thread_axis);
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("Parallel", "parallel", {"loop"}, {},
                                               SetLoopKind<ForKind::kParallel>));
MINITVM_REGISTER_INST_KIND(MakeInstructionKind("Vectorize", "vectorize", {"loop"}, {},
                                               SetLoopKind<ForKind::kVectorized>));
MINITVM_REGISTER_INST_KIND(MakeInstructionKind("Unroll", "unroll", {"loop"}, {},
                                               SetLoopKind<ForKind::kUnrolled>));

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("Bind", "bind", {"loop"}, {"thread_axis"}, Bind));

}  // namespace tir
}  // namespace minitvm
