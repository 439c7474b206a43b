/*!
 * \file primitive/tensorize.cc
 * \brief `tensorize` (stage 3): replace a tile of computation by a registered tensor
 * intrinsic's implementation.
 *
 * Steps: blockize the loop (when given a loop) so that the tile is one outer block; match the
 * outer block's body against the intrinsic's description (same loop extents, same block
 * iterators and bindings, the same expression tree, and each buffer access equal to the
 * description's access plus an offset that is fixed for the tile); then put the
 * implementation's body in the outer block, every access to an intrinsic buffer rewritten to
 * the matched buffer at offset + index. The implementation's loops and blocks get fresh
 * variables, so one intrinsic can be used many times in one function.
 */
#include "../instruction.h"
#include "../utils.h"
#include "minitvm/tir/schedule/tensor_intrin.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief How a description buffer maps onto a real buffer: per real dimension, the offset
 * and the description dimension it follows (-1: fixed). */
struct BufferBinding {
  Buffer real;
  std::vector<PrimExpr> offsets;
  std::vector<int> desc_dim;
};

[[noreturn]] void Mismatch(const BlockNode* outer, const std::string& intrin,
                           const std::string& why) {
  ScheduleError err("TensorizeComparisonError", "the computation in block " + BlockName(outer) +
                                                    " does not match the description of "
                                                    "tensor intrinsic \"" +
                                                    intrin + "\": " + why);
  err.Subject("block " + BlockName(outer))
      .Check("the loop nest, block iterators and body match the intrinsic's description", false)
      .At(GetRef<ObjectRef>(outer), why);
  throw err;
}

/*! \brief The body of a function's root block (or the body when there is no root block). */
Stmt RootBody(const PrimFunc& f) {
  if (auto* r = f->body.as<BlockRealizeNode>()) return r->block->body;
  return f->body;
}

/*! \brief Structural matcher of a description subtree against the scheduled one. */
class Matcher {
 public:
  Matcher(const BlockNode* outer, std::string intrin, arith::Analyzer* analyzer)
      : outer_(outer), intrin_(std::move(intrin)), analyzer_(analyzer) {}

  std::unordered_map<const VarNode*, PrimExpr> var_map;           // desc var -> real var
  std::unordered_set<const VarNode*> inner_vars;                  // real iterators of the tile
  std::unordered_map<const BufferNode*, BufferBinding> bindings;  // desc buffer -> real

  void Fail(const std::string& why) const { Mismatch(outer_, intrin_, why); }

  void MatchStmt(const Stmt& d, const Stmt& r) {
    if (d->type_index() != r->type_index()) {
      Fail("a " + d->GetTypeKey() + " in the description meets a " + r->GetTypeKey());
    }
    if (auto* ds = d.as<BufferStoreNode>()) {
      auto* rs = r.as<BufferStoreNode>();
      MatchAccess(ds->buffer, ds->indices, rs->buffer, rs->indices);
      MatchExpr(ds->value, rs->value);
    } else if (auto* dq = d.as<SeqStmtNode>()) {
      auto* rq = r.as<SeqStmtNode>();
      if (dq->size() != rq->size()) Fail("the bodies have different numbers of statements");
      for (size_t i = 0; i < dq->size(); ++i) MatchStmt(dq->seq[i], rq->seq[i]);
    } else {
      Fail("the description uses a " + d->GetTypeKey() + ", which tensorize cannot match");
    }
  }

  void MatchExpr(const PrimExpr& d, const PrimExpr& r) {
    if (d.dtype() != r.dtype()) Fail("dtypes differ: " + ExprStr(d) + " vs " + ExprStr(r));
    if (auto* dv = d.as<VarNode>()) {
      auto it = var_map.find(dv);
      if (it == var_map.end() || !it->second.same_as(r)) {
        Fail("variable " + dv->name_hint.str() + " meets " + ExprStr(r));
      }
      return;
    }
    if (d->type_index() != r->type_index()) Fail(ExprStr(d) + " meets " + ExprStr(r));
    if (auto* di = d.as<IntImmNode>()) {
      if (di->value != r.as<IntImmNode>()->value) Fail(ExprStr(d) + " meets " + ExprStr(r));
    } else if (auto* df = d.as<FloatImmNode>()) {
      if (df->value != r.as<FloatImmNode>()->value) Fail(ExprStr(d) + " meets " + ExprStr(r));
    } else if (auto* db = d.as<BinaryOpNode>()) {
      auto* rb = r.as<BinaryOpNode>();
      MatchExpr(db->a, rb->a);
      MatchExpr(db->b, rb->b);
    } else if (auto* dl = d.as<BufferLoadNode>()) {
      auto* rl = r.as<BufferLoadNode>();
      MatchAccess(dl->buffer, dl->indices, rl->buffer, rl->indices);
    } else if (auto* dc = d.as<CastNode>()) {
      MatchExpr(dc->value, r.as<CastNode>()->value);
    } else if (auto* dn = d.as<NotNode>()) {
      MatchExpr(dn->a, r.as<NotNode>()->a);
    } else if (auto* ds = d.as<SelectNode>()) {
      auto* rs = r.as<SelectNode>();
      MatchExpr(ds->condition, rs->condition);
      MatchExpr(ds->true_value, rs->true_value);
      MatchExpr(ds->false_value, rs->false_value);
    } else if (auto* dcall = d.as<CallNode>()) {
      auto* rcall = r.as<CallNode>();
      if (dcall->op != rcall->op || dcall->args.size() != rcall->args.size()) {
        Fail(ExprStr(d) + " meets " + ExprStr(r));
      }
      for (size_t i = 0; i < dcall->args.size(); ++i) MatchExpr(dcall->args[i], rcall->args[i]);
    } else {
      Fail("cannot match " + ExprStr(d));
    }
  }

 private:
  bool Varying(const PrimExpr& e) const {
    for (const VarNode* v : UsedVars(e)) {
      if (inner_vars.count(v)) return true;
    }
    return false;
  }
  bool DescVarying(const PrimExpr& e) const {
    for (const VarNode* v : UsedVars(e)) {
      if (var_map.count(v)) return true;
    }
    return false;
  }

  void MatchAccess(const Buffer& d, const Array<PrimExpr>& di, const Buffer& r,
                   const Array<PrimExpr>& ri) {
    if (d->dtype != r->dtype) {
      Fail("buffer " + d->name.str() + " is " + DataTypeToString(d->dtype) + " but " +
           r->name.str() + " is " + DataTypeToString(r->dtype));
    }
    if (ri.size() < di.size()) {
      Fail(r->name.str() + " has fewer dimensions than " + d->name.str());
    }
    // Assign each description dimension to a real dimension, in order: varying to varying.
    std::vector<int> desc_dim(ri.size(), -1);
    size_t next = 0;
    for (size_t j = 0; j < di.size(); ++j) {
      bool dv = DescVarying(di[j]);
      while (next < ri.size() && Varying(ri[next]) != dv) ++next;
      if (next >= ri.size()) {
        Fail("the accesses of " + d->name.str() + " and " + r->name.str() +
             " vary along different dimensions");
      }
      desc_dim[next++] = static_cast<int>(j);
    }
    std::vector<PrimExpr> offsets;
    for (size_t k = 0; k < ri.size(); ++k) {
      PrimExpr off = ri[k];
      if (desc_dim[k] >= 0) off = ri[k] - SubstituteVars(di[desc_dim[k]], var_map);
      off = analyzer_->Simplify(off);
      if (Varying(off)) {
        Fail("the access " + r->name.str() + " index " + ExprStr(ri[k]) +
             " is not the description's index plus a fixed offset");
      }
      offsets.push_back(off);
    }
    auto it = bindings.find(d.get());
    if (it == bindings.end()) {
      bindings[d.get()] = BufferBinding{r, offsets, desc_dim};
      return;
    }
    const BufferBinding& b = it->second;
    if (!b.real.same_as(r)) {
      Fail(d->name.str() + " meets both " + b.real->name.str() + " and " + r->name.str());
    }
    for (size_t k = 0; k < offsets.size(); ++k) {
      if (b.desc_dim[k] != desc_dim[k] || !analyzer_->CanProveEqual(b.offsets[k], offsets[k])) {
        Fail("two accesses of " + r->name.str() + " have different offsets");
      }
    }
  }

  const BlockNode* outer_;
  std::string intrin_;
  arith::Analyzer* analyzer_;
};

/*! \brief Rewrites the implementation: buffers onto the real ones, fresh loop/block vars. */
class ImplRewriter : public StmtExprMutator {
 public:
  ImplRewriter(const std::unordered_map<const BufferNode*, BufferBinding>& bindings)
      : bindings_(bindings) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = fresh_.find(op);
    return it == fresh_.end() ? GetRef<PrimExpr>(op) : it->second;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    auto it = bindings_.find(load->buffer.get());
    if (it == bindings_.end()) return e;
    return BufferLoad(it->second.real, Remap(it->second, load->indices));
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    auto it = bindings_.find(store->buffer.get());
    if (it == bindings_.end()) return s;
    return BufferStore(it->second.real, store->value, Remap(it->second, store->indices));
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Var v = op->loop_var.copy_with_name(op->loop_var->name_hint.str());
    fresh_[op->loop_var.get()] = v;
    Stmt s = StmtExprMutator::VisitStmt_(op);
    For f = Downcast<For>(s);
    f.CopyOnWrite()->loop_var = v;
    return f;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Array<IterVar> iters;
    for (const IterVar& iv : op->iter_vars) {
      Var v = iv->var.copy_with_name(iv->var->name_hint.str());
      fresh_[iv->var.get()] = v;
      iters.push_back(IterVar(iv->dom, v, iv->iter_type, iv->thread_tag));
    }
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    b.CopyOnWrite()->iter_vars = iters;
    return RecomputeAccess(b);
  }

 private:
  static Array<PrimExpr> Remap(const BufferBinding& b, const Array<PrimExpr>& idx) {
    Array<PrimExpr> out;
    for (size_t k = 0; k < b.offsets.size(); ++k) {
      int j = b.desc_dim[k];
      out.push_back(j >= 0 ? b.offsets[k] + idx[j] : b.offsets[k]);
    }
    return out;
  }
  const std::unordered_map<const BufferNode*, BufferBinding>& bindings_;
  std::unordered_map<const VarNode*, PrimExpr> fresh_;
};

/*! \brief Peel a chain of loops down to a BlockRealize. */
const BlockRealizeNode* PeelLoops(const Stmt& s, std::vector<const ForNode*>* loops) {
  Stmt cur = s;
  while (auto* f = cur.as<ForNode>()) {
    loops->push_back(f);
    cur = f->body;
  }
  return cur.as<BlockRealizeNode>();
}

/*! \brief tensorize: the computation under a loop (or a block) becomes `intrin_name`'s. */
Array<ObjectRef> Tensorize(ScheduleNode* self, const ObjectRef& block_or_loop,
                           const std::string& intrin_name, bool preserve_unit_iters) {
  // Step 1: the block or loop and the intrinsic.
  auto [func, stmt] = self->Resolve(block_or_loop);
  TensorIntrin intrin = TensorIntrin::Get(intrin_name);
  std::string outer_name;
  if (auto* loop = dynamic_cast<const ForNode*>(stmt)) {
    auto [f, name] = BlockizeLoop(self->state().Index(func), loop, preserve_unit_iters);
    self->mutable_state()->Replace(func, f);
    outer_name = name;
  } else {
    outer_name = AsBlock(stmt)->name_hint.str();
  }
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* outer = index.BlocksNamed(outer_name).at(0);

  // Description: loops and one block.
  std::vector<const ForNode*> dloops, rloops;
  const BlockRealizeNode* drealize = PeelLoops(RootBody(intrin->desc), &dloops);
  const BlockRealizeNode* rrealize = PeelLoops(outer->body, &rloops);
  arith::Analyzer analyzer;
  Matcher m(outer, intrin_name, &analyzer);
  if (drealize == nullptr) m.Fail("the description is not a loop nest around one block");
  if (rrealize == nullptr) m.Fail("the tile is not a loop nest around one block");
  if (dloops.size() != rloops.size()) {
    m.Fail("the description has " + std::to_string(dloops.size()) + " loops, the tile " +
           std::to_string(rloops.size()));
  }
  for (size_t i = 0; i < dloops.size(); ++i) {
    if (!analyzer.CanProveEqual(dloops[i]->extent, rloops[i]->extent)) {
      m.Fail("loop " + std::to_string(i) + " has extent " + ExprStr(rloops[i]->extent) +
             " but the description's has " + ExprStr(dloops[i]->extent));
    }
    m.var_map[dloops[i]->loop_var.get()] = rloops[i]->loop_var;
  }
  const BlockNode* dblock = drealize->block.get();
  const BlockNode* rblock = rrealize->block.get();
  if (dblock->iter_vars.size() != rblock->iter_vars.size()) {
    m.Fail("the block has " + std::to_string(rblock->iter_vars.size()) +
           " iterators, the description's " + std::to_string(dblock->iter_vars.size()));
  }
  for (size_t k = 0; k < dblock->iter_vars.size(); ++k) {
    const IterVar& dv = dblock->iter_vars[k];
    const IterVar& rv = rblock->iter_vars[k];
    if (dv->iter_type != rv->iter_type ||
        !analyzer.CanProveEqual(dv->dom->extent, rv->dom->extent)) {
      m.Fail("iterator " + rv->var->name_hint.str() + " differs in kind or extent");
    }
    PrimExpr db = SubstituteVars(drealize->iter_values[k], m.var_map);
    if (!analyzer.CanProveEqual(db, rrealize->iter_values[k])) {
      m.Fail("iterator " + rv->var->name_hint.str() + " is bound to " +
             ExprStr(rrealize->iter_values[k]) + ", the description's to " +
             ExprStr(drealize->iter_values[k]));
    }
    m.var_map[dv->var.get()] = rv->var;
    m.inner_vars.insert(rv->var.get());
  }
  for (const ForNode* l : rloops) m.inner_vars.insert(l->loop_var.get());
  if (dblock->init.defined() != rblock->init.defined()) {
    m.Fail(rblock->init.defined() ? "the block has a T.init() but the description has none "
                                    "(call decompose_reduction first)"
                                  : "the description has a T.init() but the block has none");
  }
  if (dblock->init.defined()) m.MatchStmt(dblock->init, rblock->init);
  m.MatchStmt(dblock->body, rblock->body);

  // Map the implementation's buffers (by parameter position) to the real ones.
  std::unordered_map<const BufferNode*, BufferBinding> impl_bindings;
  const PrimFunc& desc = intrin->desc;
  const PrimFunc& impl = intrin->impl;
  for (size_t p = 0; p < desc->params.size() && p < impl->params.size(); ++p) {
    auto db = desc->buffer_map.Get(desc->params[p]);
    auto ib = impl->buffer_map.Get(impl->params[p]);
    if (!db || !ib) continue;
    auto it = m.bindings.find(db->get());
    if (it == m.bindings.end()) m.Fail("the description never accesses " + (*db)->name.str());
    impl_bindings[ib->get()] = it->second;
  }
  Stmt body = ImplRewriter(impl_bindings).VisitStmt(RootBody(impl));
  Block new_outer = GetRef<Block>(outer);
  new_outer.CopyOnWrite()->body = body;
  new_outer = RecomputeAccess(new_outer);
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{outer, new_outer}}));
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("Tensorize", "tensorize", {"block_or_loop"},
                               {"tensor_intrin", "preserve_unit_iters"}, Tensorize);
  k.defaults = {{"preserve_unit_iters", Any(true)}};
  return k;
}());

}  // namespace tir
}  // namespace minitvm
