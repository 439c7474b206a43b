/*!
 * \file for_kind.cc
 * \brief `parallel`, `vectorize`, `unroll` and `bind` (stage 3): change how a loop runs.
 *
 * Running iterations at the same time is only safe when they are independent: the loop
 * variable may only drive data-parallel block iterators (not a reduction), and the bindings
 * must be affine so that distinct iterations touch distinct data. `unroll` has no such
 * condition: it keeps the order of iterations.
 */
#include "instruction.h"
#include "utils.h"

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
                         ForKind target) {
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
      if (t == kDataPar) continue;
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
  if (kind != ForKind::kUnrolled) CheckParallelizable(index, loop, primitive, kind);
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

InstructionKindInfo KindOf(std::string name, std::string method, ForKind kind) {
  InstructionKindInfo k;
  k.name = std::move(name);
  k.method = method;
  k.input_names = {"loop"};
  k.apply = [kind, method](ScheduleNode* self, const Array<Any>& inputs, const Array<Any>&) {
    SetKind(self, inputs[0].cast<ObjectRef>(), kind, method);
    return Array<ObjectRef>();
  };
  return k;
}

}  // namespace

MINITVM_REGISTER_INST_KIND(KindOf("Parallel", "parallel", ForKind::kParallel));
MINITVM_REGISTER_INST_KIND(KindOf("Vectorize", "vectorize", ForKind::kVectorized));
MINITVM_REGISTER_INST_KIND(KindOf("Unroll", "unroll", ForKind::kUnrolled));

MINITVM_REGISTER_INST_KIND([] {
  InstructionKindInfo k;
  k.name = "Bind";
  k.method = "bind";
  k.input_names = {"loop"};
  k.attr_names = {"thread_axis"};
  k.apply = [](ScheduleNode* self, const Array<Any>& inputs, const Array<Any>& attrs) {
    std::string axis = attrs[0].cast<std::string>();
    if (!IsValidThreadAxis(axis)) {
      MINITVM_THROW(ValueError) << "bind: \"" << axis
                                << "\" is not a thread axis; use blockIdx.x/y/z, threadIdx.x/y/z "
                                   "or vthread";
    }
    SetKind(self, inputs[0].cast<ObjectRef>(), ForKind::kThreadBinding, "bind", axis);
    return Array<ObjectRef>();
  };
  return k;
}());

}  // namespace tir
}  // namespace minitvm
