/*!
 * \file annotate.cc
 * \brief `annotate`, `unannotate` and `add_unit_loop` (stage 3): attach hints to blocks and
 * loops, and wrap a block or loop in a loop of extent 1.
 */
#include "instruction.h"
#include "utils.h"

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

Array<ObjectRef> ApplyAnnotate(ScheduleNode* self, const Array<Any>& inputs,
                               const Array<Any>& attrs) {
  auto [func, stmt] = self->Resolve(inputs[0].cast<ObjectRef>());
  const FuncIndex& index = self->state().Index(func);
  std::string key = attrs[0].cast<std::string>();
  Any value = attrs[1];
  Stmt now = WithAnnotations(stmt, [&](Map<String, Any>* m) { m->Set(String(key), value); });
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{stmt, now}}));
  return {};
}

Array<ObjectRef> ApplyUnannotate(ScheduleNode* self, const Array<Any>& inputs,
                                 const Array<Any>& attrs) {
  auto [func, stmt] = self->Resolve(inputs[0].cast<ObjectRef>());
  const FuncIndex& index = self->state().Index(func);
  std::string key = attrs[0].cast<std::string>();
  Stmt now = WithAnnotations(stmt, [&](Map<String, Any>* m) { m->erase(String(key)); });
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{stmt, now}}));
  return {};
}

Array<ObjectRef> ApplyAddUnitLoop(ScheduleNode* self, const Array<Any>& inputs, const Array<Any>&) {
  auto [func, stmt] = self->Resolve(inputs[0].cast<ObjectRef>());
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
  Var u("u");
  Stmt loop =
      For(u, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 1), ForKind::kSerial, wrapped);
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{target, loop}}));
  return {self->NewRV(func, self->state().Index(func).LoopOfVar(u.get()))};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  InstructionKindInfo k;
  k.name = "Annotate";
  k.method = "annotate";
  k.input_names = {"block_or_loop"};
  k.attr_names = {"ann_key", "ann_val"};
  k.apply = ApplyAnnotate;
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  InstructionKindInfo k;
  k.name = "Unannotate";
  k.method = "unannotate";
  k.input_names = {"block_or_loop"};
  k.attr_names = {"ann_key"};
  k.apply = ApplyUnannotate;
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  InstructionKindInfo k;
  k.name = "AddUnitLoop";
  k.output_kind = 'l';
  k.method = "add_unit_loop";
  k.input_names = {"block_or_loop"};
  k.apply = ApplyAddUnitLoop;
  return k;
}());

}  // namespace tir
}  // namespace minitvm
