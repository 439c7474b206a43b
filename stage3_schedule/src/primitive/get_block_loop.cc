/*!
 * \file primitive/get_block_loop.cc
 * \brief The getters (stage 3): get_block, get_loops, get_child_blocks, get_producers and
 * get_consumers. They change nothing; they hand out handles, and are recorded in the trace so
 * that a replay hands out the same handles.
 */
#include <sstream>

#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {

namespace {

using namespace sched;

/*! \brief get_block: the one block named `name` in function `func_name`. */
Array<ObjectRef> GetBlock(ScheduleNode* self, const std::string& name,
                          const std::string& func_name) {
  // Step 1: look the name up.
  const FuncIndex& index = self->state().Index(func_name);
  auto found = index.BlocksNamed(name);
  if (found.size() == 1) return {self->NewRV(func_name, found[0])};
  // Step 2: none or several: say which blocks there are.
  std::ostringstream names;
  for (const BlockNode* b : index.blocks()) {
    if (b != index.root()) names << (names.tellp() > 0 ? ", " : "") << "\"" << b->name_hint << "\"";
  }
  if (found.empty()) {
    ScheduleError err("BlockNotFoundError",
                      "function \"" + func_name + "\" has no block named \"" + name + "\"");
    err.Check("a block named \"" + name + "\" exists", false)
        .Detail("the blocks are: " + names.str());
    throw err;
  }
  ScheduleError err("AmbiguousBlockNameError", "function \"" + func_name + "\" has " +
                                                   std::to_string(found.size()) +
                                                   " blocks named \"" + name + "\"");
  err.Check("exactly one block is named \"" + name + "\"", false);
  for (const BlockNode* b : found) err.At(GetRef<ObjectRef>(b), "one of them");
  throw err;
}

/*! \brief get_loops: the loops above `block`, outermost first. */
Array<ObjectRef> GetLoops(ScheduleNode* self, const BlockRV& block) {
  auto [func, stmt] = self->Resolve(block);
  const FuncIndex& index = self->state().Index(func);
  Array<ObjectRef> out;
  for (const ForNode* loop : index.LoopsAbove(AsBlock(stmt)))
    out.push_back(self->NewRV(func, loop));
  return out;
}

/*! \brief get_child_blocks: the blocks directly under a block or loop (given as a one-handle
 * list: the kind prints its input positionally). */
Array<ObjectRef> GetChildBlocks(ScheduleNode* self, const Array<ObjectRef>& block_or_loop) {
  if (block_or_loop.size() != 1) {
    MINITVM_THROW(TypeError) << "get_child_blocks takes one block or loop, not "
                             << block_or_loop.size();
  }
  auto [func, stmt] = self->Resolve(block_or_loop[0]);
  const FuncIndex& index = self->state().Index(func);
  Array<ObjectRef> out;
  for (const BlockNode* b : index.ChildBlocks(stmt)) out.push_back(self->NewRV(func, b));
  return out;
}

/*! \brief get_producers / get_consumers: the blocks of the same scope on either side. */
template <bool kProducers>
Array<ObjectRef> GetNeighbours(ScheduleNode* self, const BlockRV& block) {
  auto [func, stmt] = self->Resolve(block);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* b = AsBlock(stmt);
  Array<ObjectRef> out;
  for (const BlockNode* n : kProducers ? Producers(index, b) : Consumers(index, b)) {
    out.push_back(self->NewRV(func, n));
  }
  return out;
}

/*! \brief Array<ObjectRef> EnterPostproc: a marker in the trace; it changes nothing. */
Array<ObjectRef> EnterPostproc(ScheduleNode*) { return {}; }

/*! \brief A getter's kind: it returns a list of handles. */
template <typename... Args>
InstructionKindInfo GetterKind(std::string name, std::string method,
                               std::vector<std::string> input_names,
                               Array<ObjectRef> (*fn)(ScheduleNode*, Args...)) {
  auto k = MakeInstructionKind(std::move(name), std::move(method), std::move(input_names), {}, fn);
  k.returns_list = true;
  return k;
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("GetBlock", "get_block", {}, {"name", "func_name"}, GetBlock);
  k.defaults = {{"func_name", Any(String("main"))}};
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  auto k = GetterKind("GetLoops", "get_loops", {"block"}, GetLoops);
  k.output_kind = 'l';
  return k;
}());
MINITVM_REGISTER_INST_KIND(GetterKind("GetChildBlocks", "get_child_blocks", {}, GetChildBlocks));
MINITVM_REGISTER_INST_KIND(GetterKind("GetProducers", "get_producers", {"block"},
                                      GetNeighbours<true>));
MINITVM_REGISTER_INST_KIND(GetterKind("GetConsumers", "get_consumers", {"block"},
                                      GetNeighbours<false>));
MINITVM_REGISTER_INST_KIND(MakeInstructionKind("EnterPostproc", "enter_postproc", {}, {},
                                               EnterPostproc));

}  // namespace tir
}  // namespace minitvm
