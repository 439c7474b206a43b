/*!
 * \file primitive/add_unit_loop.cc
 * \brief `add_unit_loop` (stage 3): a loop transformation like split and fuse — wrap a block or
 * a loop in a new loop of extent 1, e.g. to have a loop to compute_at under or to bind.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief add_unit_loop: `for u in range(1)` around a block (its realize) or a loop. */
Array<ObjectRef> AddUnitLoop(ScheduleNode* self, const ObjectRef& block_or_loop) {
  // Step 1: what to wrap: a loop, or the realize of a block other than the root.
  auto [func, stmt] = self->Resolve(block_or_loop);
  const FuncIndex& index = self->state().Index(func);
  const Object* target = stmt;
  Stmt wrapped;
  if (auto* block = dynamic_cast<const BlockNode*>(stmt)) {
    const StmtSRef& s = index.Get(block);
    if (s.realize == nullptr || block == index.root()) {
      MINITVM_THROW(ValueError) << "add_unit_loop: the root block cannot be wrapped in a loop";
    }
    target = s.realize;
    wrapped = GetRef<Stmt>(s.realize);
  } else {
    wrapped = GetRef<Stmt>(AsLoop(stmt));
  }
  // Step 2: the unit loop around it, installed in its place.
  Var u("u");
  Stmt loop =
      For(u, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 1), ForKind::kSerial, wrapped);
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{target, loop}}));
  // Step 3: a handle to the new loop.
  return {self->NewRV(func, self->state().Index(func).LoopOfVar(u.get()))};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("AddUnitLoop", "add_unit_loop", {"block_or_loop"}, {}, AddUnitLoop);
  k.output_kind = 'l';
  return k;
}());

}  // namespace tir
}  // namespace minitvm
