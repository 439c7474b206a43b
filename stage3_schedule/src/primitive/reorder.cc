/*!
 * \file primitive/reorder.cc
 * \brief `reorder` (stage 3): permute loops of one chain.
 *
 * The loops given must all lie on one path from an outer loop down to an inner one, with no
 * block in between and each loop on that path the only statement in its parent loop. Loops of
 * the path that are not named stay where they are; the named ones take each other's places in
 * the order given. `reorder(i_0, i_2, i_1)` on `i_0, i_1, i_2` swaps the inner two.
 */
#include <algorithm>

#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief reorder: the loops of one chain in the order given (they need not be adjacent). */
Array<ObjectRef> Reorder(ScheduleNode* self, const Array<ObjectRef>& ordered_loops) {
  // Step 1: the loops (of one function).
  if (ordered_loops.empty()) return {};
  std::string func;
  std::vector<const ForNode*> order;
  for (const ObjectRef& rv : ordered_loops) {
    auto [f, stmt] = self->Resolve(rv);
    if (!func.empty() && f != func) MINITVM_THROW(ValueError) << "reorder: loops of two functions";
    func = f;
    order.push_back(AsLoop(stmt));
  }
  const FuncIndex& index = self->state().Index(func);
  std::unordered_set<const ForNode*> given(order.begin(), order.end());
  if (given.size() != order.size()) {
    for (size_t i = 0; i < order.size(); ++i) {
      for (size_t j = i + 1; j < order.size(); ++j) {
        if (order[i] != order[j]) continue;
        ScheduleError err("LoopMultiAppearanceError",
                          "loop " + LoopName(order[i]) + " is given more than once");
        err.Subject("loop " + LoopName(order[i]))
            .Check("each loop is given once", false)
            .At(GetRef<ObjectRef>(order[i]), "given twice");
        throw err;
      }
    }
  }
  for (const ForNode* l : order) {
    if (l->kind == ForKind::kThreadBinding) CheckPlainLoop(l, "reorder");
  }

  // The innermost given loop; walk up from it to collect the path.
  const ForNode* bottom = order[0];
  for (const ForNode* l : order) {
    if (index.Get(l).depth > index.Get(bottom).depth) bottom = l;
  }
  std::vector<const ForNode*> path;  // bottom ... top
  size_t seen = 0;
  const StmtNode* p = bottom;
  const BlockNode* crossed = nullptr;
  while (p != nullptr && seen < given.size()) {
    if (auto* block = dynamic_cast<const BlockNode*>(p)) {
      crossed = block;
      break;
    }
    auto* loop = static_cast<const ForNode*>(p);
    path.push_back(loop);
    if (given.count(loop)) ++seen;
    p = index.Get(p).parent;
  }
  if (seen < given.size()) {
    std::vector<std::string> off;
    for (const ForNode* l : order) {
      if (std::find(path.begin(), path.end(), l) == path.end()) off.push_back(LoopName(l));
    }
    // A block in between matters only when a missing loop is above it.
    bool block_between = false;
    for (const ForNode* l : order) {
      if (crossed && std::find(path.begin(), path.end(), l) == path.end() &&
          index.IsAncestor(l, crossed)) {
        block_between = true;
      }
    }
    if (!block_between) crossed = nullptr;
    ScheduleError err("LoopsNotAChainError", "the loops are not nested in one another: " + off[0] +
                                                 " is not above " + LoopName(bottom));
    for (const ForNode* l : order) err.Subject("loop " + LoopName(l));
    err.Check("the loops lie on one path from an outer loop to an inner loop", false)
        .Check("no block lies between the loops", crossed == nullptr);
    if (crossed) err.At(GetRef<ObjectRef>(crossed), "block between the loops");
    for (const ForNode* l : order) {
      if (std::find(path.begin(), path.end(), l) == path.end()) {
        err.At(GetRef<ObjectRef>(l), "not on the path above " + LoopName(bottom));
      }
    }
    err.At(GetRef<ObjectRef>(bottom), "innermost loop given");
    throw err;
  }
  std::reverse(path.begin(), path.end());  // top ... bottom
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (path[i]->body.get() != path[i + 1]) {
      ScheduleError err("NotOnlyChildError", "loop " + LoopName(path[i + 1]) +
                                                 " is not the only statement in loop " +
                                                 LoopName(path[i]));
      for (const ForNode* l : order) err.Subject("loop " + LoopName(l));
      err.Check("the loops lie on one path from an outer loop to an inner loop", true)
          .Check("each loop on the path is the only statement in its parent loop", false)
          .At(GetRef<ObjectRef>(path[i]),
              "its body has statements beside " + LoopName(path[i + 1]));
      throw err;
    }
  }
  for (size_t i = 0; i < path.size(); ++i) {
    for (size_t j = 0; j < path.size(); ++j) {
      if (i == j) continue;
      if (UsesVar(path[j]->extent, path[i]->loop_var.get()) ||
          UsesVar(path[j]->min, path[i]->loop_var.get())) {
        ScheduleError err("DependentLoopError", "the range of loop " + LoopName(path[j]) +
                                                    " depends on loop " + LoopName(path[i]));
        err.Check("no loop's range depends on another loop of the chain", false)
            .At(GetRef<ObjectRef>(path[j]), "depends on " + LoopName(path[i]));
        throw err;
      }
    }
  }
  CheckAffineUnder(index, path.front(), "reorder");
  // A reduction runs its init when every reduction iterator is at its start. A loop that
  // drives both data-parallel and reduction iterators (left by fuse) ties the two together,
  // and moving it could visit an update of an element before that element's init.
  for (const BlockNode* b : index.blocks()) {
    if (b == index.root() || !index.IsAncestor(path.front(), b) || !b->init.defined()) continue;
    const BlockRealizeNode* realize = index.Get(b).realize;
    for (const ForNode* l : path) {
      auto types = IterTypesOfLoop(realize, l->loop_var.get());
      if (types.count(kDataPar) && types.count(kCommReduce)) {
        ScheduleError err("WrongBlockIterTypeError",
                          "reorder cannot move loop " + LoopName(l) +
                              ": it drives both "
                              "data-parallel and reduction iterators of block " +
                              BlockName(b) +
                              ", so the new order could update an element before its init");
        err.Subject("loop " + LoopName(l))
            .Subject("block " + BlockName(b))
            .Check("the block bindings under the loops are affine", true)
            .Check("no loop of the chain drives both data-parallel and reduction iterators", false)
            .At(GetRef<ObjectRef>(l), "drives both kinds of iterators of " + BlockName(b));
        throw err;
      }
    }
  }

  // Positions of the given loops along the path receive them in the order given.
  std::vector<const ForNode*> arranged = path;
  size_t k = 0;
  for (auto& slot : arranged) {
    if (given.count(slot)) slot = order[k++];
  }
  Stmt body = path.back()->body;
  for (size_t i = arranged.size(); i-- > 0;) {
    For f = GetRef<For>(arranged[i]);
    f.CopyOnWrite()->body = body;
    body = f;
  }
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{path.front(), body}}));
  return {};
}

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("Reorder", "reorder", {}, {}, Reorder));

}  // namespace
}  // namespace tir
}  // namespace minitvm
