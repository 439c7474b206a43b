/*!
 * \file primitive/blockize.cc
 * \brief `blockize` (stage 3): make a loop and everything under it the body of a new block.
 *
 * Each iterator `v` of the inner block, bound to `outer_part * E + inner_part` where the
 * inner part uses only the loops being wrapped and ranges over [0, E), is divided in two: the
 * new outer block `<name>_o` gets `v_o` (bound to `outer_part`) and the inner block gets `v_i`
 * (bound to `inner_part`), with `v` replaced by `v_o * E + v_i`. This is what lets tensorize
 * treat a whole tile as one unit.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {

namespace sched {

namespace {

[[noreturn]] void NotDivisible(const BlockNode* block, const ForNode* loop,
                               const std::string& why) {
  ScheduleError err("SubspaceNotDivisibleError", "cannot blockize loop " + LoopName(loop) +
                                                     ": in block " + BlockName(block) + " " + why);
  err.Subject("loop " + LoopName(loop))
      .Subject("block " + BlockName(block))
      .Check(
          "each block binding splits into a part of the outer loops times the extent of a "
          "dense part of the inner loops",
          false)
      .At(GetRef<ObjectRef>(block), why);
  throw err;
}

}  // namespace

std::pair<PrimFunc, std::string> BlockizeLoop(const FuncIndex& index, const ForNode* loop,
                                              bool preserve_unit_iters) {
  std::vector<const BlockNode*> children = index.ChildBlocks(loop);
  if (children.size() != 1) {
    ScheduleError err("NotSingleChildBlockError", "blockize needs exactly one block under loop " +
                                                      LoopName(loop) + ", but there are " +
                                                      std::to_string(children.size()));
    err.Subject("loop " + LoopName(loop))
        .Check("exactly one block is under the loop", false)
        .At(GetRef<ObjectRef>(loop), std::to_string(children.size()) + " blocks below");
    throw err;
  }
  const BlockNode* block = children[0];
  const BlockRealizeNode* realize = index.Get(block).realize;
  CheckAffineUnder(index, loop, "blockize");
  std::vector<const ForNode*> all_loops = index.LoopsAbove(block);
  std::unordered_map<const VarNode*, const ForNode*> inner;
  bool in = false;
  for (const ForNode* l : all_loops) {
    if (l == loop) in = true;
    if (in) inner[l->loop_var.get()] = l;
  }
  for (const VarNode* v : UsedVars(realize->predicate)) {
    if (index.LoopOfVar(v) && !inner.count(v)) {
      NotDivisible(
          block, loop,
          "the predicate " + ExprStr(realize->predicate) + " uses loops outside the new block");
    }
  }

  arith::Analyzer analyzer;
  Array<IterVar> outer_iters, inner_iters;
  Array<PrimExpr> outer_bindings, inner_bindings;
  std::unordered_map<const VarNode*, PrimExpr> subst;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    const PrimExpr& binding = realize->iter_values[k];
    bool uses_inner = false, uses_outer = false;
    for (const VarNode* v : UsedVars(binding)) {
      if (inner.count(v)) {
        uses_inner = true;
      } else if (index.LoopOfVar(v)) {
        uses_outer = true;
      }
    }
    std::string name = iv->var->name_hint.str();
    if (!uses_inner) {
      Var vo = iv->var.copy_with_name(name + "_o");
      outer_iters.push_back(IterVar(iv->dom, vo, iv->iter_type));
      outer_bindings.push_back(binding);
      subst[iv->var.get()] = vo;
      continue;
    }
    if (!uses_outer) {
      inner_iters.push_back(iv);
      inner_bindings.push_back(binding);
      continue;
    }
    LinearForm lin = ToLinear(binding);
    if (!lin.ok) NotDivisible(block, loop, "the binding " + ExprStr(binding) + " is not linear");
    std::vector<std::pair<int64_t, const ForNode*>> inner_terms;
    PrimExpr outer_part = IntImm(binding.dtype(), 0), inner_part = IntImm(binding.dtype(), 0);
    for (const auto& [v, c] : lin.terms) {
      auto it = inner.find(v);
      if (it != inner.end()) inner_terms.emplace_back(c, it->second);
    }
    std::sort(inner_terms.begin(), inner_terms.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t expect = 1;
    for (const auto& [c, l] : inner_terms) {
      auto ext = ConstValue(l->extent);
      if (c != expect || !ext) {
        NotDivisible(block, loop,
                     "the inner loops of " + ExprStr(binding) + " do not cover a dense range");
      }
      expect *= *ext;
    }
    int64_t extent = expect;
    for (const auto& [v, c] : lin.terms) {
      if (inner.count(v)) {
        inner_part = inner_part + PrimExpr(GetRef<Var>(v)) * IntImm(binding.dtype(), c);
      } else {
        if (c % extent != 0) {
          NotDivisible(block, loop,
                       "the coefficient " + std::to_string(c) + " of " + v->name_hint.str() +
                           " is not a multiple of " + std::to_string(extent));
        }
        outer_part = outer_part + PrimExpr(GetRef<Var>(v)) * IntImm(binding.dtype(), c / extent);
      }
    }
    auto dom_ext = ConstValue(iv->dom->extent);
    if (lin.constant % extent != 0 || !dom_ext || *dom_ext % extent != 0) {
      NotDivisible(block, loop,
                   "the range of " + name + " is not a multiple of " + std::to_string(extent));
    }
    outer_part = outer_part + IntImm(binding.dtype(), lin.constant / extent);
    Var vo = iv->var.copy_with_name(name + "_o");
    Var vi = iv->var.copy_with_name(name + "_i");
    DataType t = iv->dom->extent.dtype();
    outer_iters.push_back(
        IterVar(Range(IntImm(t, 0), IntImm(t, *dom_ext / extent)), vo, iv->iter_type));
    outer_bindings.push_back(analyzer.Simplify(outer_part));
    inner_iters.push_back(IterVar(Range(IntImm(t, 0), IntImm(t, extent)), vi, iv->iter_type));
    inner_bindings.push_back(analyzer.Simplify(inner_part));
    subst[iv->var.get()] = vo * IntImm(t, extent) + vi;
  }

  // The init moves to the outer block when the outer block reduces too.
  bool outer_reduces = false;
  for (const IterVar& iv : outer_iters) outer_reduces |= iv->iter_type == kCommReduce;
  Stmt outer_init;
  Block inner_block = GetRef<Block>(block);
  {
    BlockNode* n = inner_block.CopyOnWrite();
    n->iter_vars = inner_iters;
    n->body = SubstituteVars(block->body, subst);
    n->init = block->init.defined() ? SubstituteVars(block->init, subst) : Stmt();
    if (block->init.defined() && outer_reduces) {
      std::vector<Var> vars;
      std::vector<PrimExpr> extents;
      std::unordered_map<const VarNode*, PrimExpr> init_map;
      for (const IterVar& iv : inner_iters) {
        if (iv->iter_type != kDataPar) continue;
        Var v = iv->var.copy_with_suffix("_init");
        vars.push_back(v);
        extents.push_back(iv->dom->extent);
        init_map[iv->var.get()] = iv->dom->min + v;
      }
      outer_init = MakeLoopNest(vars, extents, SubstituteVars(n->init, init_map));
      n->init = Stmt();
    }
  }
  inner_block = RecomputeAccess(inner_block);
  BlockRealize inner_realize(inner_bindings, realize->predicate, inner_block);
  Stmt inner_body = ReplaceStmts(GetRef<Stmt>(loop), {{realize, inner_realize}});
  std::string name = UniqueBlockName(index, block->name_hint.str() + "_o");
  Block outer_block = RecomputeAccess(Block(outer_iters, {}, {}, name, inner_body, outer_init));
  BlockRealize outer_realize(outer_bindings, IntImm(DataType::Bool(), 1), outer_block);
  (void)preserve_unit_iters;
  return {ReplaceInFunc(index.func(), {{loop, outer_realize}}), name};
}

}  // namespace sched

namespace {

using namespace sched;

/*! \brief blockize: the subtree under `target` (with it) becomes the body of a new block. */
Array<ObjectRef> Blockize(ScheduleNode* self, const LoopRV& target, bool preserve_unit_iters) {
  // Step 1: the loop.
  auto [func, stmt] = self->Resolve(target);
  const FuncIndex& index = self->state().Index(func);
  // Step 2: the blockized function (BlockizeLoop checks the preconditions), installed.
  auto [new_func, name] = BlockizeLoop(index, AsLoop(stmt), preserve_unit_iters);
  self->mutable_state()->Replace(func, new_func);
  // Step 3: a handle to the new outer block.
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(name).at(0))};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k =
      MakeInstructionKind("Blockize", "blockize", {"target"}, {"preserve_unit_iters"}, Blockize);
  k.defaults = {{"preserve_unit_iters", Any(true)}};
  return k;
}());

}  // namespace tir
}  // namespace minitvm
