/*!
 * \file primitive/decompose_reduction.cc
 * \brief `decompose_reduction` (stage 3): split a reduction block's `T.init()` into its own
 * block `<name>_init`, placed right before a chosen loop above the block.
 *
 * The init block gets copies (`i_init`, ...) of the loops between that loop and the block that
 * drive data-parallel iterators; loops that only drive reduction iterators are left out, since
 * the init does not depend on them. The original block keeps only its update and, as in TVM,
 * is renamed `<name>_update`.
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief decompose_reduction: the block's init becomes a block of its own before `loop_rv`. */
Array<ObjectRef> DecomposeReduction(ScheduleNode* self, const BlockRV& block_rv,
                                    const LoopRV& loop_rv) {
  // Step 1: the block and the loop, and the preconditions.
  auto [func, bstmt] = self->Resolve(block_rv);
  auto [lfunc, lstmt] = self->Resolve(loop_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(bstmt);
  const ForNode* loop = AsLoop(lstmt);
  if (!block->init.defined()) {
    ScheduleError err("NotReductionBlockError",
                      "decompose_reduction needs a block with an init "
                      "statement, but block " +
                          BlockName(block) + " has none");
    err.Subject("block " + BlockName(block))
        .Check("the block has a T.init()", false)
        .At(GetRef<ObjectRef>(block), "no T.init()");
    throw err;
  }
  std::vector<const ForNode*> loops = index.LoopsAbove(block);
  size_t start = loops.size();
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i] == loop) start = i;
  }
  if (start == loops.size()) {
    ScheduleError err("LoopPositionError",
                      "loop " + LoopName(loop) + " is not a loop above block " + BlockName(block));
    err.Subject("block " + BlockName(block))
        .Subject("loop " + LoopName(loop))
        .Check("the loop is an ancestor of the block within its scope", false)
        .At(GetRef<ObjectRef>(loop), "not above " + BlockName(block))
        .At(GetRef<ObjectRef>(block), "the reduction block");
    throw err;
  }
  const BlockRealizeNode* realize = index.Get(block).realize;
  // The init runs once per reduction, so it must sit above every loop of the reduction.
  for (size_t i = 0; i < start; ++i) {
    if (IterTypesOfLoop(realize, loops[i]->loop_var.get()).count(kCommReduce)) {
      ScheduleError err("LoopHeightError", "decompose_reduction needs loop " + LoopName(loop) +
                                               " to be above every reduction loop, but " +
                                               LoopName(loops[i]) +
                                               " drives a reduction iterator of " +
                                               BlockName(block) + " and is outside it");
      err.Subject("block " + BlockName(block))
          .Subject("loop " + LoopName(loop))
          .Check("the loop is above the block", true)
          .Check("no loop above it drives a reduction iterator", false)
          .At(GetRef<ObjectRef>(loops[i]), "reduction loop outside " + LoopName(loop))
          .At(GetRef<ObjectRef>(loop), "the init would run inside the reduction");
      throw err;
    }
  }

  // Data-parallel iterators and the loops they use among loops[start:].
  std::unordered_set<const VarNode*> spatial_loop_vars;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    if (block->iter_vars[k]->iter_type != kDataPar) continue;
    for (const VarNode* v : UsedVars(realize->iter_values[k])) spatial_loop_vars.insert(v);
  }
  // The init loops copy the data-parallel loops as TVM does: same min, extent and kind (a
  // parallel or vectorized loop stays one), a thread binding on a fresh variable, no
  // annotations.
  std::vector<const ForNode*> init_loops;
  std::vector<Var> init_vars;
  std::unordered_map<const VarNode*, PrimExpr> loop_map;
  for (size_t i = start; i < loops.size(); ++i) {
    const ForNode* l = loops[i];
    if (!spatial_loop_vars.count(l->loop_var.get())) continue;
    Var v = l->loop_var.copy_with_suffix("_init");
    init_loops.push_back(l);
    init_vars.push_back(v);
    loop_map[l->loop_var.get()] = v;
  }
  std::unordered_set<const VarNode*> below;
  for (size_t i = start; i < loops.size(); ++i) below.insert(loops[i]->loop_var.get());

  Array<IterVar> iters;
  Array<PrimExpr> bindings;
  std::unordered_map<const VarNode*, PrimExpr> iter_map;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    if (iv->iter_type != kDataPar) continue;
    Var nv = iv->var.copy_with_name(iv->var->name_hint.str());
    iters.push_back(IterVar(iv->dom, nv, kDataPar));
    iter_map[iv->var.get()] = nv;
    bindings.push_back(SubstituteVars(realize->iter_values[k], loop_map));
  }
  // The init may only use data-parallel iterators.
  for (const VarNode* v : [&] {
         std::unordered_set<const VarNode*> used;
         PostOrderVisit(block->init, [&](const ObjectRef& n) {
           if (auto* var = n.as<VarNode>()) used.insert(var);
         });
         return used;
       }()) {
    for (const IterVar& iv : block->iter_vars) {
      if (iv->var.get() == v && iv->iter_type != kDataPar) {
        ScheduleError err("NotReductionBlockError", "the init of block " + BlockName(block) +
                                                        " uses the reduction iterator " +
                                                        v->name_hint.str());
        err.Check("the init uses only data-parallel iterators", false)
            .At(GetRef<ObjectRef>(block), "init uses " + v->name_hint.str());
        throw err;
      }
    }
  }
  // Keep the conditions on the data-parallel loops; drop those on the reduction loops (the
  // init runs once for all of them). A condition mixing both cannot be split.
  std::vector<PrimExpr> kept;
  for (const PrimExpr& c : SplitConjuncts(realize->predicate)) {
    PrimExpr mapped = SubstituteVars(c, loop_map);
    bool uses_reduction = false, uses_spatial = false;
    for (const VarNode* v : UsedVars(c)) {
      if (!below.count(v)) continue;
      (spatial_loop_vars.count(v) ? uses_spatial : uses_reduction) = true;
    }
    if (uses_reduction && uses_spatial) {
      ScheduleError err("NotReductionBlockError", "the predicate " + ExprStr(realize->predicate) +
                                                      " of block " + BlockName(block) +
                                                      " mixes data-parallel and reduction loops");
      err.Check("each condition of the predicate uses only data-parallel or only reduction loops",
                false)
          .At(GetRef<ObjectRef>(block), "predicate " + ExprStr(c));
      throw err;
    }
    if (!uses_reduction) kept.push_back(mapped);
  }
  PrimExpr predicate = JoinConjuncts(kept);
  Stmt init_body = SubstituteVars(block->init, iter_map);
  std::string name = UniqueBlockName(index, block->name_hint.str() + "_init");
  Array<BufferRegion> init_writes;
  for (const BufferRegion& w : block->writes) {
    Array<Range> region;
    for (const Range& r : w->region) {
      region.push_back(
          Range(SubstituteVars(r->min, iter_map), SubstituteVars(r->extent, iter_map)));
    }
    init_writes.push_back(BufferRegion(w->buffer, region));
  }
  Block init_block(iters, {}, init_writes, name, init_body);
  init_block.CopyOnWrite()->annotations = block->annotations;  // as TVM: the block's annotations
  Stmt init_nest = BlockRealize(bindings, predicate, init_block);
  for (size_t i = init_loops.size(); i-- > 0;) {
    const ForNode* l = init_loops[i];
    IterVar binding = l->thread_binding;
    if (binding.defined()) {
      binding = IterVar(binding->dom, binding->var.copy_with_suffix(""), binding->iter_type,
                        binding->thread_tag);
    }
    init_nest = For(init_vars[i], l->min, l->extent, l->kind, init_nest, binding);
  }

  // As in TVM, the block that keeps the update is renamed `<name>_update`; its handles follow.
  Block update = GetRef<Block>(block);
  std::string update_name = UniqueBlockName(index, block->name_hint.str() + "_update");
  update.CopyOnWrite()->init = Stmt();
  update.CopyOnWrite()->name_hint = update_name;
  self->NoteRename(block, update_name);
  // As TVM: without its init the update reads what it writes; those regions go first.
  {
    Array<BufferRegion> reads;
    for (const BufferRegion& w : block->writes) {
      if (!RegionsHave(block->reads, w->buffer.get())) reads.push_back(w);
    }
    for (const BufferRegion& r : block->reads) reads.push_back(r);
    update.CopyOnWrite()->reads = reads;
  }
  For loop_ref = GetRef<For>(loop);
  // The loop itself is replaced by [init nest, loop]; inside it the block loses its init.
  For new_loop = Downcast<For>(ReplaceStmts(loop_ref, {{block, update}}));
  Stmt pair = SeqStmt::Flatten(Array<Stmt>{init_nest, new_loop});
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{loop, pair}}));
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(name).at(0))};
}

}  // namespace

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("DecomposeReduction", "decompose_reduction",
                                               {"block", "loop"}, {}, DecomposeReduction));

}  // namespace tir
}  // namespace minitvm
