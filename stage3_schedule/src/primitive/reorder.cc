/*!
 * \file primitive/reorder.cc
 * \brief `reorder` (stage 3): permute loops of one chain.
 *
 * The loops given must all lie on one path from an outer loop down to an inner one, with no
 * block in between and each loop on that path the only statement in its parent loop. Loops of
 * the path that are not named stay where they are; the named ones take each other's places in
 * the order given. `reorder(i_0, i_2, i_1)` on `i_0, i_1, i_2` swaps the inner two.
 *
 * Legality is TVM's: every block directly under the innermost loop may only have data-parallel
 * and reduction iterators, and its bindings must be affine in the loops of the reordered range
 * (loops above it count as constants, so `v0 * v0 + v1` may be reordered below `v0`). Affine
 * here means what TVM's iterator-map detection accepts: each binding walks its loops in mixed
 * radix (`i * 16 + j` with j of extent 16; not `l * 16` alone) and a predicate such as
 * `i * 64 + j * 8 + k < 100` may only bound a binding that covers all of i, j, k.
 */
#include <algorithm>
#include <map>
#include <optional>

#include "../instruction.h"
#include "../utils.h"
#include "minitvm/arith/linear_form.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief How TVMScript names an iterator kind (T.axis.<name>). */
std::string IterKindName(IterVarType t) {
  switch (t) {
    case kDataPar:
      return "spatial";
    case kCommReduce:
      return "reduce";
    case kOrdered:
      return "scan";
    case kOpaque:
      return "opaque";
    default:
      return "thread";
  }
}

/*! \brief The terms of `e` on the loop variables of `dom`; nullopt when some are not linear. */
std::optional<std::map<const VarNode*, int64_t>> DomainTerms(
    const PrimExpr& e, const std::unordered_map<const VarNode*, const ForNode*>& dom) {
  std::map<const VarNode*, int64_t> out;
  for (const auto& [atom, coeff] : arith::ToAffineForm(e).terms) {
    auto* v = atom.as<VarNode>();
    if (v != nullptr && dom.count(v)) {
      out[v] += coeff;
      continue;
    }
    for (const VarNode* u : UsedVars(atom)) {
      if (dom.count(u)) return std::nullopt;
    }
  }
  return out;
}

/*!
 * \brief Whether a binding is affine as TVM's IsAffineBinding decides it (surjective iterator
 * map, unit scale), over the loops `loops` (others are constants). Beside minitvm's structural
 * check: the linear terms of a binding form a mixed radix starting at scale 1, and a predicate
 * conjunct over several loops bounds only bindings that hold all of them in the same ratio.
 * Bindings with floordiv/floormod terms (left by fuse) are judged by the structural check alone.
 */
bool AffineAsTvm(const BlockRealizeNode* realize, const std::vector<const ForNode*>& loops,
                 std::string* why) {
  if (loops.empty()) return true;
  if (!IsAffineBinding(realize, loops, why)) return false;
  std::unordered_map<const VarNode*, const ForNode*> dom;
  for (const ForNode* l : loops) dom[l->loop_var.get()] = l;
  const BlockNode* block = realize->block.get();
  std::vector<std::map<const VarNode*, int64_t>> bindings;
  for (size_t i = 0; i < realize->iter_values.size(); ++i) {
    auto terms = DomainTerms(realize->iter_values[i], dom);
    if (!terms) continue;
    std::vector<std::pair<int64_t, const ForNode*>> radix;
    for (const auto& [v, c] : *terms) {
      if (c != 0 && ConstValue(dom.at(v)->extent) != 1) radix.emplace_back(c, dom.at(v));
    }
    // TVM's fusion of the terms, which tolerates overlap but no gap: the smallest scale is 1;
    // then a term of exactly the next scale (scale times extent of the last) or else the
    // largest smaller one.
    std::sort(radix.begin(), radix.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    std::optional<int64_t> expect = 1;
    while (!radix.empty()) {
      int pick = -1;
      for (size_t k = 0; k < radix.size(); ++k) {
        int64_t c = radix[k].first;
        if (!expect || c > *expect) continue;
        if (c == *expect) {
          pick = static_cast<int>(k);
          break;
        }
        if (pick < 0 || c > radix[pick].first) pick = static_cast<int>(k);
      }
      if (pick < 0 || (expect == 1 && radix[pick].first != 1)) {
        if (why) {
          *why = "iterator " + block->iter_vars[i]->var->name_hint.str() + " is bound to " +
                 ExprStr(realize->iter_values[i]) + ", which leaves gaps: no loop walks it at " +
                 "scale " + (expect ? std::to_string(*expect) : std::string("(symbolic)"));
        }
        return false;
      }
      auto ext = ConstValue(radix[pick].second->extent);
      expect = ext ? std::optional<int64_t>(radix[pick].first * *ext) : std::nullopt;
      radix.erase(radix.begin() + pick);
    }
    bindings.push_back(std::move(*terms));
  }
  // Predicate conjuncts over two or more loops of the domain.
  std::vector<PrimExpr> conjuncts{realize->predicate};
  for (size_t k = 0; k < conjuncts.size(); ++k) {
    PrimExpr c = conjuncts[k];
    if (auto* a = c.as<AndNode>()) {
      conjuncts.push_back(a->a);
      conjuncts.push_back(a->b);
      continue;
    }
    PrimExpr lhs, rhs;
    if (auto* op = c.as<LTNode>()) lhs = op->a, rhs = op->b;
    if (auto* op = c.as<LENode>()) lhs = op->a, rhs = op->b;
    if (auto* op = c.as<GTNode>()) lhs = op->a, rhs = op->b;
    if (auto* op = c.as<GENode>()) lhs = op->a, rhs = op->b;
    if (!lhs.defined()) continue;
    auto bound = DomainTerms(lhs - rhs, dom);
    if (!bound || bound->size() < 2) continue;
    for (const auto& b : bindings) {
      size_t shared = 0;
      std::optional<std::pair<int64_t, int64_t>> ratio;  // binding coeff : predicate coeff
      bool same = true;
      for (const auto& [v, pc] : *bound) {
        auto it = b.find(v);
        if (it == b.end() || it->second == 0) continue;
        ++shared;
        if (!ratio) ratio = std::make_pair(it->second, pc);
        same = same && it->second * ratio->second == pc * ratio->first;
      }
      if (shared == 0 || (shared == bound->size() && same)) continue;
      if (why) {
        *why = "the predicate " + ExprStr(c) + " bounds a combination of loops that no binding" +
               " of block " + BlockName(block) + " walks whole";
      }
      return false;
    }
  }
  return true;
}

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
  // TVM's block checks: blocks directly under the innermost loop (not inside another block).
  int top_depth = index.Get(path.front()).depth;
  for (const BlockNode* b : index.ChildBlocks(path.back())) {
    for (const IterVar& iv : b->iter_vars) {
      if (iv->iter_type == kDataPar || iv->iter_type == kCommReduce) continue;
      ScheduleError err("BlockPropertyError",
                        "reorder: block " + BlockName(b) + " under the loops has iterator " +
                            iv->var->name_hint.str() + " of kind " + IterKindName(iv->iter_type) +
                            "; only data-parallel and reduction iterators can be reordered");
      err.Subject("block " + BlockName(b))
          .Check("the blocks under the loops have only data-parallel and reduction iterators",
                 false)
          .At(GetRef<ObjectRef>(b),
              "iterator " + iv->var->name_hint.str() + " is " + IterKindName(iv->iter_type));
      throw err;
    }
    const BlockRealizeNode* realize = index.Get(b).realize;
    if (b->iter_vars.empty() || realize == nullptr) continue;
    std::vector<const ForNode*> all = index.LoopsAbove(b), range;
    for (const ForNode* l : all) {
      if (index.Get(l).depth >= top_depth) range.push_back(l);
    }
    std::string why;
    if (AffineAsTvm(realize, all, nullptr) || AffineAsTvm(realize, range, &why)) continue;
    ScheduleError err("NotAffineBindingError", "reorder needs block " + BlockName(b) +
                                                   " to be affinely bound in the loops from " +
                                                   LoopName(path.front()) +
                                                   " down, but it is not: " + why);
    err.Subject("block " + BlockName(b))
        .Check("every block iterator is an affine function of the reordered loops", false)
        .Detail(why)
        .At(GetRef<ObjectRef>(b), why);
    throw err;
  }
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
