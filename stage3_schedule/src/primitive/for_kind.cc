/*!
 * \file primitive/for_kind.cc
 * \brief `parallel`, `vectorize`, `unroll` and `bind` (stage 3): change how a loop runs.
 *
 * Running iterations at the same time is only safe when they are independent: the loop
 * variable may only drive data-parallel block iterators (not a reduction), and the bindings
 * must be affine so that distinct iterations touch distinct data. `unroll` has no such
 * condition: it keeps the order of iterations.
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
