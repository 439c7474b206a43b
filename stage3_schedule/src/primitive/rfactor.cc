/*!
 * \file primitive/rfactor.cc
 * \brief `rfactor` (stage 3): factor a reduction over one of its loops.
 *
 * For `B[i] += A[i, k]` with `k` split into `k_0, k_1`, rfactor(k_1) produces a block
 * `B_rf` computing the partial results `B_rf[k_1, i] += A[i, k_0 * 4 + k_1]` (the loop k_1 has
 * become a data-parallel dimension of a new buffer, at position `factor_axis`), followed by a
 * block `B` that reduces the partial results: `B[i] += B_rf[k_1, i]`. The partial reductions
 * are independent, so the rfactor loop can then run in parallel.
 */
#include <limits>
#include <optional>

#include "../instruction.h"
#include "../utils.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief A recognised reduction `C[idx] = C[idx] op rhs` with init `C[idx] = identity`. */
struct Reducer {
  std::string op;  // "add", "mul", "max", "min"
  Buffer buffer;
  Array<PrimExpr> indices;
  PrimExpr rhs;
  PrimExpr identity;
  PrimExpr Combine(const PrimExpr& a, const PrimExpr& b) const {
    if (op == "add") return a + b;
    if (op == "mul") return a * b;
    if (op == "max") return max(a, b);
    return min(a, b);
  }
};

bool SameIndices(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i]) && !StructuralEqual(a[i], b[i])) return false;
  }
  return true;
}

std::optional<Reducer> MatchReducer(const BlockNode* block) {
  auto* store = block->body.as<BufferStoreNode>();
  auto* init = block->init.defined() ? block->init.as<BufferStoreNode>() : nullptr;
  if (store == nullptr || init == nullptr) return std::nullopt;
  if (!init->buffer.same_as(store->buffer) || !SameIndices(init->indices, store->indices)) {
    return std::nullopt;
  }
  Reducer r;
  r.buffer = store->buffer;
  r.indices = store->indices;
  r.identity = init->value;
  auto is_self = [&](const PrimExpr& e) {
    auto* load = e.as<BufferLoadNode>();
    return load && load->buffer.same_as(store->buffer) &&
           SameIndices(load->indices, store->indices);
  };
  const BinaryOpNode* bin = nullptr;
  if (auto* op = store->value.as<AddNode>()) {
    r.op = "add";
    bin = op;
  } else if (auto* op = store->value.as<MulNode>()) {
    r.op = "mul";
    bin = op;
  } else if (auto* op = store->value.as<MaxNode>()) {
    r.op = "max";
    bin = op;
  } else if (auto* op = store->value.as<MinNode>()) {
    r.op = "min";
    bin = op;
  } else {
    return std::nullopt;
  }
  if (is_self(bin->a)) {
    r.rhs = bin->b;
  } else if (is_self(bin->b)) {
    r.rhs = bin->a;
  } else {
    return std::nullopt;
  }
  return r;
}

/*! \brief The value of a constant (an IntImm/FloatImm, possibly cast), or nullopt. */
std::optional<double> ConstValue(PrimExpr e) {
  while (auto* c = e.as<CastNode>()) e = c->value;
  if (auto* i = e.as<IntImmNode>()) return static_cast<double>(i->value);
  if (auto* f = e.as<FloatImmNode>()) return f->value;
  return std::nullopt;
}

/*!
 * \brief Whether `init` is the identity of the reduction `op` over `dtype` (add: 0, mul: 1,
 * max: the dtype's lowest value or -inf, min: its highest value or +inf). rfactor starts every
 * partial result from the init, so any other value would be counted once per partial result.
 */
bool IsIdentity(const std::string& op, const PrimExpr& init, DataType dtype,
                std::string* expected) {
  std::optional<double> v = ConstValue(init);
  if (op == "add" || op == "mul") {
    *expected = op == "add" ? "0" : "1";
    return v && *v == (op == "add" ? 0.0 : 1.0);
  }
  bool is_max = op == "max";
  PrimExpr bound = is_max ? min_value(dtype) : max_value(dtype);
  *expected = ExprStr(bound) + (dtype.is_float() ? (is_max ? " or -inf" : " or inf") : "");
  if (!v) return false;
  double inf = std::numeric_limits<double>::infinity();
  if (dtype.is_float() && *v == (is_max ? -inf : inf)) return true;
  std::optional<double> b = ConstValue(bound);
  return b && *v == *b;
}

Array<PrimExpr> InsertAt(const Array<PrimExpr>& a, int64_t pos, const PrimExpr& v) {
  Array<PrimExpr> out = a;
  out.insert_at(pos, v);
  return out;
}

/*!
 * \brief rfactor: the reduction over `loop_rv` becomes partial results (a new buffer with the
 * loop's axis at `factor_axis`) and a final reduction; returns the rfactor block.
 */
Array<ObjectRef> RFactor(ScheduleNode* self, const LoopRV& loop_rv, int64_t factor_axis) {
  // Step 1: the loop and the one reduction block under it.
  auto [func, lstmt] = self->Resolve(loop_rv);
  const FuncIndex& index = self->state().Index(func);
  const ForNode* rf_loop = AsLoop(lstmt);

  std::vector<const BlockNode*> children = index.ChildBlocks(rf_loop);
  if (children.size() != 1) {
    ScheduleError err("NotSingleChildBlockError", "rfactor needs exactly one block under loop " +
                                                      LoopName(rf_loop) + ", but there are " +
                                                      std::to_string(children.size()));
    err.Subject("loop " + LoopName(rf_loop))
        .Check("exactly one block is under the loop", false)
        .At(GetRef<ObjectRef>(rf_loop), std::to_string(children.size()) + " blocks below");
    throw err;
  }
  const BlockNode* block = children[0];
  const BlockRealizeNode* realize = index.Get(block).realize;
  const BlockNode* scope = index.ScopeBlock(block);
  std::optional<Reducer> red = MatchReducer(block);
  if (!red) {
    ScheduleError err("ReductionPatternError",
                      "rfactor needs block " + BlockName(block) +
                          " to be `C[idx] = C[idx] op expr` (op: +, *, max, min) with a "
                          "T.init() storing the identity to the same element");
    err.Subject("block " + BlockName(block))
        .Check("the block has a T.init()", block->init.defined())
        .Check("the body is a reduction update of the element the init writes", false)
        .At(GetRef<ObjectRef>(block), "not a recognised reduction");
    throw err;
  }
  std::string expected;
  if (!IsIdentity(red->op, red->identity, red->buffer->dtype, &expected)) {
    std::string got = ExprStr(red->identity);
    ScheduleError err("InitNotIdentityError",
                      "rfactor needs the T.init() of block " + BlockName(block) +
                          " to store the identity of its reduction (" + red->op + ": " + expected +
                          "), but it stores " + got +
                          ": every partial result starts from the init, so the result would "
                          "include it once per partial result");
    err.Subject("block " + BlockName(block))
        .Check("the init stores the reduction's identity", false)
        .At(GetRef<ObjectRef>(block), "init " + got + " is not " + expected);
    throw err;
  }
  std::string why;
  if (!IsAffineBinding(realize, index.LoopsAbove(block), &why)) {
    ScheduleError err("NotAffineBindingError",
                      "rfactor needs block " + BlockName(block) + " to be affinely bound");
    err.Check("the block bindings are affine", false).Detail(why).At(GetRef<ObjectRef>(block), why);
    throw err;
  }
  std::vector<const ForNode*> loops = index.LoopsAbove(block);
  // Loops that drive reduction iterators must drive nothing else.
  std::vector<const ForNode*> red_loops;
  for (const ForNode* l : loops) {
    auto types = IterTypesOfLoop(realize, l->loop_var.get());
    bool reduces = types.count(kCommReduce) > 0;
    bool pure = types.size() == 1;
    if (l == rf_loop && !reduces) {
      ScheduleError err("LoopPropertyError", "rfactor needs loop " + LoopName(l) +
                                                 " to drive a reduction iterator of block " +
                                                 BlockName(block));
      err.Check("the rfactor loop drives a reduction iterator", false)
          .At(GetRef<ObjectRef>(l), "does not drive a reduction iterator");
      throw err;
    }
    if (reduces && !pure) {
      ScheduleError err("LoopPropertyError", "loop " + LoopName(l) +
                                                 " drives both reduction and data-parallel "
                                                 "iterators of block " +
                                                 BlockName(block));
      err.Check("each loop drives only reduction or only data-parallel iterators", false)
          .At(GetRef<ObjectRef>(l), "mixed iterator kinds");
      throw err;
    }
    if (reduces) {
      if (ConstValue(l->min) != 0) {
        ScheduleError err("LoopNotStartWithZeroError",
                          "loop " + LoopName(l) + " does not start at 0");
        err.Check("the reduction loops start at 0", false).At(GetRef<ObjectRef>(l), "min != 0");
        throw err;
      }
      red_loops.push_back(l);
    }
  }
  int64_t ndim = static_cast<int64_t>(red->buffer->shape.size());
  int64_t axis = factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis;
  if (axis < 0 || axis > ndim) {
    ScheduleError err("FactorAxisOutOfRangeError",
                      "factor_axis " + std::to_string(factor_axis) + " is out of range for the " +
                          std::to_string(ndim) + "-d buffer " + red->buffer->name.str());
    err.Check("-(ndim + 1) <= factor_axis <= ndim", false);
    throw err;
  }

  // ---- the rfactor block: partial results over the rfactor loop -----------------------------
  Array<IterVar> rf_iters;
  Array<PrimExpr> rf_bindings;
  std::unordered_map<const VarNode*, PrimExpr> loop_to_iter;
  Var rf_var;
  for (const ForNode* l : red_loops) {
    Var v("v" + l->loop_var->name_hint.str(), l->loop_var.dtype());
    loop_to_iter[l->loop_var.get()] = v;
    if (l == rf_loop) rf_var = v;
  }
  rf_iters.push_back(
      IterVar(Range(IntImm(rf_loop->extent.dtype(), 0), rf_loop->extent), rf_var, kDataPar));
  rf_bindings.push_back(rf_loop->loop_var);
  std::unordered_map<const VarNode*, PrimExpr> red_iter_map;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    if (iv->iter_type == kDataPar) {
      rf_iters.push_back(iv);
      rf_bindings.push_back(realize->iter_values[k]);
    } else {
      red_iter_map[iv->var.get()] = SubstituteVars(realize->iter_values[k], loop_to_iter);
    }
  }
  for (const ForNode* l : red_loops) {
    if (l == rf_loop) continue;
    rf_iters.push_back(IterVar(Range(IntImm(l->extent.dtype(), 0), l->extent),
                               Downcast<Var>(loop_to_iter[l->loop_var.get()]), kCommReduce));
    rf_bindings.push_back(l->loop_var);
  }
  std::string rf_name = red->buffer->name.str() + "_rf";
  Buffer rf_buf(Var(rf_name, red->buffer->data.dtype()), red->buffer->dtype,
                InsertAt(red->buffer->shape, axis, rf_loop->extent), {},
                IntImm(DataType::Int(32), 0), rf_name, red->buffer->scope.str());
  Array<PrimExpr> rf_idx = InsertAt(red->indices, axis, rf_var);
  PrimExpr rhs = SubstituteVars(red->rhs, red_iter_map);
  Stmt rf_body = BufferStore(rf_buf, red->Combine(BufferLoad(rf_buf, rf_idx), rhs), rf_idx);
  Stmt rf_init = BufferStore(rf_buf, red->identity, rf_idx);
  std::string rf_block_name = UniqueBlockName(index, block->name_hint.str() + "_rf");
  Block rf_block = RecomputeAccess(Block(rf_iters, {}, {}, rf_block_name, rf_body, rf_init));
  BlockRealize rf_realize(rf_bindings, realize->predicate, rf_block);

  // ---- the write-back block: reduce the partial results -------------------------------------
  size_t top = 0;
  while (loops[top] != red_loops.front()) ++top;
  std::vector<Var> wb_vars;
  std::vector<PrimExpr> wb_extents;
  std::unordered_map<const VarNode*, PrimExpr> wb_loop_map;
  Var wb_rf_loop;
  for (size_t i = top; i < loops.size(); ++i) {
    const ForNode* l = loops[i];
    bool is_red = std::find(red_loops.begin(), red_loops.end(), l) != red_loops.end();
    if (is_red && l != rf_loop) continue;
    if (!is_red && IterTypesOfLoop(realize, l->loop_var.get()).empty()) continue;
    Var v = l->loop_var.copy_with_name(l->loop_var->name_hint.str());
    wb_vars.push_back(v);
    wb_extents.push_back(l->extent);
    wb_loop_map[l->loop_var.get()] = ConstValue(l->min) == 0 ? PrimExpr(v) : v + l->min;
    if (l == rf_loop) wb_rf_loop = v;
  }
  Array<IterVar> wb_iters;
  Array<PrimExpr> wb_bindings;
  std::unordered_map<const VarNode*, PrimExpr> wb_iter_map;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    if (iv->iter_type != kDataPar) continue;
    Var nv = iv->var.copy_with_name(iv->var->name_hint.str());
    wb_iter_map[iv->var.get()] = nv;
    wb_iters.push_back(IterVar(iv->dom, nv, kDataPar));
    wb_bindings.push_back(SubstituteVars(realize->iter_values[k], wb_loop_map));
  }
  Var wb_rf_iter = rf_var.copy_with_name(rf_var->name_hint.str());
  wb_iters.push_back(
      IterVar(Range(IntImm(rf_loop->extent.dtype(), 0), rf_loop->extent), wb_rf_iter, kCommReduce));
  wb_bindings.push_back(wb_rf_loop);
  Array<PrimExpr> wb_idx;
  for (const PrimExpr& e : red->indices) wb_idx.push_back(SubstituteVars(e, wb_iter_map));
  Stmt wb_body = BufferStore(red->buffer,
                             red->Combine(BufferLoad(red->buffer, wb_idx),
                                          BufferLoad(rf_buf, InsertAt(wb_idx, axis, wb_rf_iter))),
                             wb_idx);
  Stmt wb_init = BufferStore(red->buffer, red->identity, wb_idx);
  // The write-back keeps the conditions on data-parallel loops, and those on the rfactor loop.
  std::vector<PrimExpr> wb_conds;
  for (const PrimExpr& c : SplitConjuncts(realize->predicate)) {
    bool other_reduction = false;
    for (const VarNode* v : UsedVars(c)) {
      for (const ForNode* l : red_loops) {
        if (l != rf_loop && l->loop_var.get() == v) other_reduction = true;
      }
    }
    if (!other_reduction) wb_conds.push_back(SubstituteVars(c, wb_loop_map));
  }
  PrimExpr wb_pred = JoinConjuncts(wb_conds);
  Block wb_block =
      RecomputeAccess(Block(wb_iters, {}, {}, block->name_hint.str(), wb_body, wb_init));
  Stmt wb_nest = MakeLoopNest(wb_vars, wb_extents, BlockRealize(wb_bindings, wb_pred, wb_block));

  // ---- install: rfactor block in place, write-back after the top reduction loop -------------
  const ForNode* top_loop = loops[top];
  Stmt top_new = ReplaceStmts(GetRef<Stmt>(top_loop), {{realize, rf_realize}});
  Stmt pair = SeqStmt::Flatten(Array<Stmt>{top_new, wb_nest});
  PrimFunc f1 = ReplaceInFunc(index.func(), {{top_loop, pair}});
  FuncIndex mid(f1);
  const BlockNode* new_scope = scope == index.root() ? mid.root() : nullptr;
  if (new_scope == nullptr) {
    auto named = mid.BlocksNamed(scope->name_hint.str());
    MINITVM_ICHECK(named.size() == 1) << "rfactor: lost the scope block";
    new_scope = named[0];
  }
  Block scope_block = GetRef<Block>(new_scope);
  scope_block.CopyOnWrite()->alloc_buffers.push_back(rf_buf);
  self->mutable_state()->Replace(func, ReplaceInFunc(f1, {{new_scope, scope_block}}));
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(rf_block_name).at(0))};
}

}  // namespace

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("RFactor", "rfactor", {"loop"}, {"factor_axis"},
                                               RFactor));

}  // namespace tir
}  // namespace minitvm
