/*!
 * \file primitive/rfactor.cc
 * \brief `rfactor` (stage 3): factor a reduction over one of its loops.
 *
 * For `B[i] += A[i, k]` with `k` split into `k_0, k_1`, rfactor(k_1) produces a block
 * `B_rf` computing the partial results `B_rf[k_1, i] += A[i, k_0 * 4 + k_1]` (the loop k_1 has
 * become a data-parallel dimension of a new buffer, at position `factor_axis`), followed by a
 * block `B` that reduces the partial results: `B[i] += B_rf[k_1, i]`. The partial reductions
 * are independent, so the rfactor loop can then run in parallel.
 *
 * As in TVM, the two blocks get loop nests of their own, side by side where the outermost loop
 * of the block was: the rfactor block under a copy of every loop of the block, the write-back
 * block under the loops that are not reduction loops, plus the rfactor loop. The reduction is
 * recognised by matching its init values and update against a list of commutative reducers
 * (sum, product, min, max, and the two-buffer argmax/argmin forms), so a reduction may update
 * several buffers at once through `LetStmt`s (`v0 = ...; v1 = ...; A[i] = v0; B[i] = v1`).
 */
#include <cmath>
#include <limits>
#include <optional>

#include "../instruction.h"
#include "../utils.h"
#include "minitvm/arith/linear_form.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

// ---- commutative reducers -------------------------------------------------------------------

/*!
 * \brief A commutative reducer over n buffers: `result(x, y)` combines two partial values
 * (x: the accumulated one, y: the new one) and `identity` is its neutral element.
 */
struct CommReducer {
  std::vector<Var> x, y;
  std::vector<PrimExpr> result;
  std::vector<PrimExpr> identity;
  /*! \brief The combined values of `lhs` and `rhs`. */
  std::vector<PrimExpr> Apply(const std::vector<PrimExpr>& lhs,
                              const std::vector<PrimExpr>& rhs) const {
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < x.size(); ++i) {
      vmap[x[i].get()] = lhs[i];
      vmap[y[i].get()] = rhs[i];
    }
    std::vector<PrimExpr> out;
    for (const PrimExpr& r : result) out.push_back(SubstituteVars(r, vmap));
    return out;
  }
};

using CombinerFn =
    std::function<std::vector<PrimExpr>(const std::vector<Var>&, const std::vector<Var>&)>;
using IdentityFn = std::function<std::vector<PrimExpr>(const std::vector<DataType>&)>;

/*! \brief One entry of the reducer list: the buffer count, the combiner and the identity. */
struct ReducerPattern {
  size_t n;
  CombinerFn combiner;
  IdentityFn identity;
  std::optional<CommReducer> For(const std::vector<DataType>& dtypes) const {
    if (dtypes.size() != n) return std::nullopt;
    CommReducer r;
    for (size_t i = 0; i < n; ++i) {
      r.x.push_back(Var("x" + std::to_string(i), dtypes[i]));
      r.y.push_back(Var("y" + std::to_string(i), dtypes[i]));
    }
    r.result = combiner(r.x, r.y);
    r.identity = identity(dtypes);
    return r;
  }
};

/*!
 * \brief The reducers rfactor knows, in the order TVM's ReducerRegistry tries them: +, *, min,
 * max, a two-buffer sum, argmax and argmin (each plain and with the smaller index winning ties).
 */
const std::vector<ReducerPattern>& Reducers() {
  using V = const std::vector<Var>&;
  using D = const std::vector<DataType>&;
  static const std::vector<ReducerPattern> reducers = {
      {1, [](V x, V y) { return std::vector<PrimExpr>{x[0] + y[0]}; },
       [](D d) { return std::vector<PrimExpr>{make_const(d[0], 0)}; }},
      {1, [](V x, V y) { return std::vector<PrimExpr>{x[0] * y[0]}; },
       [](D d) { return std::vector<PrimExpr>{make_const(d[0], 1)}; }},
      {1, [](V x, V y) { return std::vector<PrimExpr>{min(x[0], y[0])}; },
       [](D d) { return std::vector<PrimExpr>{max_value(d[0])}; }},
      {1, [](V x, V y) { return std::vector<PrimExpr>{max(x[0], y[0])}; },
       [](D d) { return std::vector<PrimExpr>{min_value(d[0])}; }},
      {2,
       [](V x, V y) {
         return std::vector<PrimExpr>{x[0] + y[0], x[1] + y[1]};
       },
       [](D d) {
         return std::vector<PrimExpr>{make_const(d[0], 0), make_const(d[1], 0)};
       }},
      {2,
       [](V x, V y) {
         PrimExpr c = GE(x[1], y[1]);
         return std::vector<PrimExpr>{Select(c, x[0], y[0]), Select(c, x[1], y[1])};
       },
       [](D d) {
         return std::vector<PrimExpr>{make_const(d[0], -1), min_value(d[1])};
       }},
      {2,
       [](V x, V y) {
         PrimExpr c = Or(GT(x[1], y[1]), And(EQ(x[1], y[1]), LT(x[0], y[0])));
         return std::vector<PrimExpr>{Select(c, x[0], y[0]), Select(GT(x[1], y[1]), x[1], y[1])};
       },
       [](D d) {
         return std::vector<PrimExpr>{make_const(d[0], -1), min_value(d[1])};
       }},
      {2,
       [](V x, V y) {
         PrimExpr c = LE(x[1], y[1]);
         return std::vector<PrimExpr>{Select(c, x[0], y[0]), Select(c, x[1], y[1])};
       },
       [](D d) {
         return std::vector<PrimExpr>{make_const(d[0], -1), max_value(d[1])};
       }},
      {2,
       [](V x, V y) {
         PrimExpr c = Or(LT(x[1], y[1]), And(EQ(x[1], y[1]), LT(x[0], y[0])));
         return std::vector<PrimExpr>{Select(c, x[0], y[0]), Select(LT(x[1], y[1]), x[1], y[1])};
       },
       [](D d) {
         return std::vector<PrimExpr>{make_const(d[0], -1), max_value(d[1])};
       }},
  };
  return reducers;
}

/*!
 * \brief Match `expr` against `pattern`, whose variables in `holes` stand for any
 * sub-expression (the same one at every use). Other nodes must agree in kind and operands.
 */
class HoleMatcher {
 public:
  explicit HoleMatcher(std::unordered_set<const VarNode*> holes) : holes_(std::move(holes)) {}

  bool Match(const PrimExpr& pattern, const PrimExpr& expr) {
    if (auto* v = pattern.as<VarNode>(); v && holes_.count(v)) {
      auto it = filled_.find(v);
      if (it == filled_.end()) {
        filled_[v] = expr;
        return true;
      }
      return it->second.same_as(expr) || ExprDeepEqual(it->second, expr);
    }
    if (pattern->type_index() != expr->type_index()) return false;
    if (pattern.dtype() != expr.dtype()) return false;
    if (auto* p = pattern.as<BinaryOpNode>()) {
      auto* e = expr.as<BinaryOpNode>();
      return Match(p->a, e->a) && Match(p->b, e->b);
    }
    if (auto* p = pattern.as<SelectNode>()) {
      auto* e = expr.as<SelectNode>();
      return Match(p->condition, e->condition) && Match(p->true_value, e->true_value) &&
             Match(p->false_value, e->false_value);
    }
    if (auto* p = pattern.as<NotNode>()) return Match(p->a, expr.as<NotNode>()->a);
    if (auto* p = pattern.as<CastNode>()) return Match(p->value, expr.as<CastNode>()->value);
    return ExprDeepEqual(pattern, expr);
  }

  PrimExpr Get(const Var& v) const {
    auto it = filled_.find(v.get());
    return it == filled_.end() ? PrimExpr() : it->second;
  }

 private:
  std::unordered_set<const VarNode*> holes_;
  std::unordered_map<const VarNode*, PrimExpr> filled_;
};

/*! \brief Whether `a` and `b` are the same value for a reducer's identity. */
bool SameIdentity(const PrimExpr& expected, const PrimExpr& got) {
  if (ExprDeepEqual(expected, got)) return true;
  // minitvm also takes -inf / +inf as the identity of a float max / min (whose TVM identity is
  // the dtype's lowest / highest finite value).
  auto* e = expected.as<FloatImmNode>();
  auto* g = got.as<FloatImmNode>();
  if (e == nullptr || g == nullptr || e->dtype != g->dtype || !std::isinf(g->value)) return false;
  auto* lo = min_value(e->dtype).as<FloatImmNode>();
  auto* hi = max_value(e->dtype).as<FloatImmNode>();
  return (lo && e->value == lo->value && g->value < 0) ||
         (hi && e->value == hi->value && g->value > 0);
}

/*! \brief A reduction as rfactor sees it: its reducer and, per buffer, x (the load of the
 * accumulated value) and y (the new value) of its update. */
struct MatchedReduction {
  CommReducer reducer;
  std::vector<PrimExpr> lhs, rhs;
};

std::optional<MatchedReduction> MatchReduction(const std::vector<PrimExpr>& init_values,
                                               const std::vector<BufferStore>& updates,
                                               bool check_identity = true) {
  std::vector<DataType> dtypes;
  for (const PrimExpr& v : init_values) dtypes.push_back(v.dtype());
  for (const ReducerPattern& pattern : Reducers()) {
    std::optional<CommReducer> reducer = pattern.For(dtypes);
    if (!reducer) continue;
    bool same_identity = true;
    for (size_t i = 0; i < init_values.size(); ++i) {
      same_identity = same_identity && SameIdentity(reducer->identity[i], init_values[i]);
    }
    if (check_identity && !same_identity) continue;
    // A single commutative operation may also be written `C = expr op C`.
    for (int swapped = 0; swapped < (pattern.n == 1 ? 2 : 1); ++swapped) {
      std::unordered_set<const VarNode*> holes;
      for (size_t i = 0; i < pattern.n; ++i)
        holes.insert({reducer->x[i].get(), reducer->y[i].get()});
      HoleMatcher m(holes);
      bool ok = true;
      for (size_t i = 0; i < updates.size() && ok; ++i) {
        PrimExpr p = reducer->result[i];
        if (swapped) {
          auto* bin = p.as<BinaryOpNode>();
          std::unordered_map<const VarNode*, PrimExpr> swap = {
              {reducer->x[0].get(), reducer->y[0]}, {reducer->y[0].get(), reducer->x[0]}};
          p = bin ? SubstituteVars(p, swap) : p;
        }
        ok = m.Match(p, updates[i]->value);
      }
      if (!ok) continue;
      MatchedReduction out;
      for (size_t i = 0; i < updates.size() && ok; ++i) {
        PrimExpr l = m.Get(reducer->x[i]), r = m.Get(reducer->y[i]);
        PrimExpr self = BufferLoad(updates[i]->buffer, updates[i]->indices);
        if (!l.defined() || !r.defined() || !ExprDeepEqual(l, self)) ok = false;
        out.lhs.push_back(l);
        out.rhs.push_back(r);
      }
      if (!ok) continue;
      if (check_identity) {
        for (size_t i = 0; i < init_values.size(); ++i) reducer->identity[i] = init_values[i];
      }
      out.reducer = *reducer;
      return out;
    }
  }
  return std::nullopt;
}

// ---- the shape of a reduction block ---------------------------------------------------------

[[noreturn]] void NotApplicable(const BlockNode* block, int cond, const std::string& what) {
  ScheduleError err("RFactorNotApplicableError",
                    "rfactor cannot be applied to block " + BlockName(block) +
                        ": it violates condition #" + std::to_string(cond) + " (" + what + ")");
  err.Subject("block " + BlockName(block))
      .Check(what, false)
      .Detail(
          "a reduction block rfactor can factor: its init is one BufferStore or a sequence of "
          "them to different buffers; its body is that many LetStmts (or, for one buffer, none) "
          "around as many BufferStores, each storing one of the let variables to a different "
          "buffer; the init and the body write the same buffers, of the same shape, at the same "
          "indices")
      .At(GetRef<ObjectRef>(block), "condition #" + std::to_string(cond));
  throw err;
}

/*! \brief The init values and the updates of a reduction block, in the order of the lets. */
std::pair<std::vector<PrimExpr>, std::vector<BufferStore>> InitsAndUpdates(const BlockNode* block) {
  std::vector<BufferStore> inits;
  if (auto* s = block->init.as<BufferStoreNode>()) {
    inits.push_back(GetRef<BufferStore>(s));
  } else if (auto* seq = block->init.as<SeqStmtNode>()) {
    std::unordered_set<const BufferNode*> seen;
    for (const Stmt& st : seq->seq) {
      auto* s = st.as<BufferStoreNode>();
      if (s == nullptr) NotApplicable(block, 1, "the init is BufferStores only");
      if (!seen.insert(s->buffer.get()).second) {
        NotApplicable(block, 2, "the init writes each buffer once");
      }
      inits.push_back(GetRef<BufferStore>(s));
    }
  } else {
    NotApplicable(block, 1, "the init is BufferStores only");
  }
  size_t n = inits.size();
  std::vector<BufferStore> updates(n);
  std::unordered_map<const BufferNode*, size_t> buf_index;
  if (auto* s = block->body.as<BufferStoreNode>()) {
    updates.resize(1);
    updates[0] = GetRef<BufferStore>(s);
    buf_index[s->buffer.get()] = 0;
  } else {
    auto* let = block->body.as<LetStmtNode>();
    std::unordered_map<const VarNode*, size_t> var_index;
    std::vector<PrimExpr> values;
    for (size_t i = 0; i < n; ++i) {
      if (let == nullptr) NotApplicable(block, 3, "one LetStmt per buffer of the init");
      values.push_back(let->value);
      if (!var_index.emplace(let->var.get(), i).second) {
        NotApplicable(block, 4, "the let variables are all different");
      }
      if (i + 1 < n) let = let->body.as<LetStmtNode>();
    }
    if (let->body.as<LetStmtNode>()) NotApplicable(block, 3, "one LetStmt per buffer of the init");
    std::vector<Stmt> seq;
    if (auto* sq = let->body.as<SeqStmtNode>()) {
      for (const Stmt& st : sq->seq) seq.push_back(st);
    } else if (let->body.as<BufferStoreNode>()) {
      seq.push_back(let->body);
    } else {
      NotApplicable(block, 5, "the innermost LetStmt holds BufferStores");
    }
    if (seq.size() != n) NotApplicable(block, 6, "as many BufferStores as the init has");
    for (const Stmt& st : seq) {
      auto* s = st.as<BufferStoreNode>();
      if (s == nullptr) NotApplicable(block, 5, "the innermost LetStmt holds BufferStores");
      auto* v = s->value.as<VarNode>();
      auto it = v ? var_index.find(v) : var_index.end();
      if (it == var_index.end()) NotApplicable(block, 7, "each BufferStore stores a let variable");
      if (updates[it->second].defined()) {
        NotApplicable(block, 8, "each let variable is stored once");
      }
      updates[it->second] = BufferStore(s->buffer, values[it->second], s->indices);
      if (!buf_index.emplace(s->buffer.get(), it->second).second) {
        NotApplicable(block, 9, "the body writes each buffer once");
      }
    }
  }
  if (updates.size() != n) NotApplicable(block, 6, "as many BufferStores as the init has");
  std::vector<PrimExpr> init_values(n);
  const Array<PrimExpr>& shape = updates[0]->buffer->shape;
  const Array<PrimExpr>& indices = updates[0]->indices;
  arith::Analyzer ana;
  for (size_t i = 0; i < n; ++i) {
    if (updates[i]->buffer->shape.size() != shape.size()) {
      NotApplicable(block, 11, "the reduction buffers have the same shape");
    }
    if (inits[i]->indices.size() != indices.size() ||
        updates[i]->indices.size() != indices.size()) {
      NotApplicable(block, 12, "every BufferStore uses the same indices");
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!ana.CanProveEqual(updates[i]->buffer->shape[d], shape[d])) {
        NotApplicable(block, 11, "the reduction buffers have the same shape");
      }
      if (!ana.CanProveEqual(inits[i]->indices[d], indices[d]) ||
          !ana.CanProveEqual(updates[i]->indices[d], indices[d])) {
        NotApplicable(block, 12, "every BufferStore uses the same indices");
      }
    }
    auto it = buf_index.find(inits[i]->buffer.get());
    if (it == buf_index.end()) {
      NotApplicable(block, 10, "the init and the body write the same buffers");
    }
    init_values[it->second] = inits[i]->value;
  }
  return {init_values, updates};
}

// ---- legality ------------------------------------------------------------------------------

/*! \brief The variables an expression uses, in the order they first appear. */
std::vector<const VarNode*> OrderedVars(const PrimExpr& e) {
  std::vector<const VarNode*> out;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (auto* v = n.as<VarNode>()) {
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
  });
  return out;
}

/*!
 * \brief Whether the scope is a stage pipeline as TVM defines it: no block writes a buffer an
 * earlier block of the scope reads, and what a block reads of an earlier block's output is
 * covered by what that block writes (both taken over the loops below their common loop).
 */
bool IsStagePipeline(const FuncIndex& index, const BlockNode* scope, std::string* why) {
  std::vector<const BlockNode*> blocks = BlocksInScope(index, scope);
  arith::Analyzer analyzer;
  auto region_of = [&](const BlockNode* b, const BufferRegion& br, const ForNode* lca,
                       std::vector<Range>* out) {
    const StmtSRef& s = index.Get(b);
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      vmap[b->iter_vars[i]->var.get()] = s.realize->iter_values[i];
    }
    std::unordered_map<const VarNode*, arith::IntSet> dom;
    bool below = lca == nullptr;
    for (const ForNode* l : index.LoopsAbove(b)) {
      if (below) dom[l->loop_var.get()] = arith::IntSet::FromRange(Range(l->min, l->extent));
      if (l == lca) below = true;
    }
    for (const Range& rg : br->region) {
      std::optional<Range> r = arith::RelaxRange(&analyzer, SubstituteVars(rg->min, vmap),
                                                 SubstituteVars(rg->extent, vmap), dom);
      if (!r) return false;
      out->push_back(*r);
    }
    return true;
  };
  for (size_t c = 0; c < blocks.size(); ++c) {
    const BlockNode* consumer = blocks[c];
    for (const BufferRegion& read : consumer->reads) {
      for (size_t p = c + 1; p < blocks.size(); ++p) {
        if (RegionsHave(blocks[p]->writes, read->buffer.get()) &&
            !RegionsHave(consumer->writes, read->buffer.get())) {
          *why = "block " + BlockName(blocks[p]) + " writes " + read->buffer->name.str() +
                 ", which the earlier block " + BlockName(consumer) + " reads";
          return false;
        }
      }
      std::vector<const ForNode*> cloops = index.LoopsAbove(consumer);
      for (size_t p = 0; p < c; ++p) {
        const BlockNode* producer = blocks[p];
        for (const BufferRegion& write : producer->writes) {
          if (write->buffer.get() != read->buffer.get()) continue;
          const ForNode* lca = nullptr;
          for (const ForNode* l : index.LoopsAbove(producer)) {
            if (std::find(cloops.begin(), cloops.end(), l) != cloops.end()) lca = l;
          }
          std::vector<Range> produced, consumed;
          if (!region_of(producer, write, lca, &produced) ||
              !region_of(consumer, read, lca, &consumed)) {
            continue;
          }
          const Array<PrimExpr>& shape = read->buffer->shape;
          for (size_t d = 0; d < produced.size() && d < shape.size(); ++d) {
            PrimExpr zero = make_const(shape[d].dtype(), 0);
            PrimExpr p_lo = max(produced[d]->min, zero);
            PrimExpr p_hi = min(produced[d]->min + produced[d]->extent, shape[d]);
            PrimExpr c_lo = max(consumed[d]->min, zero);
            PrimExpr c_hi = min(consumed[d]->min + consumed[d]->extent, shape[d]);
            if (!analyzer.CanProve(p_lo <= c_lo) || !analyzer.CanProve(c_hi <= p_hi)) {
              *why = "block " + BlockName(consumer) + " reads more of " + read->buffer->name.str() +
                     " than block " + BlockName(producer) + " writes (region cover)";
              return false;
            }
          }
        }
      }
    }
  }
  return true;
}

/*! \brief The checks TVM's rfactor makes on the block (a reduction block in a stage pipeline). */
void CheckReductionBlock(const FuncIndex& index, const BlockNode* block, const BlockNode* scope) {
  const BlockRealizeNode* realize = index.Get(block).realize;
  auto fail = [&](int cond, const std::string& what, const std::string& detail) {
    ScheduleError err("NotReductionBlockError", "block " + BlockName(block) +
                                                    " is not a reduction block: it violates "
                                                    "condition #" +
                                                    std::to_string(cond) + " (" + what + ")");
    err.Subject("block " + BlockName(block)).Check(what, false);
    if (!detail.empty()) err.Detail(detail);
    err.At(GetRef<ObjectRef>(block), detail.empty() ? what : detail);
    throw err;
  };
  if (!block->init.defined()) fail(1, "the block has a T.init()", "");
  std::string why;
  if (!IsAffineBinding(realize, index.LoopsAbove(block), &why)) {
    fail(2, "the block bindings are affine", why);
  }
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != kDataPar && iv->iter_type != kCommReduce) {
      fail(3, "every iterator is data-parallel or a reduction", "");
    }
  }
  for (const BufferRegion& w : block->writes) {
    for (const BlockNode* other : BlocksInScope(index, scope)) {
      if (other != block && RegionsHave(other->writes, w->buffer.get())) {
        fail(4, "the block is the only writer of its output",
             "block " + BlockName(other) + " also writes " + w->buffer->name.str());
      }
    }
  }
  std::unordered_set<const VarNode*> red_iters;
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type == kCommReduce) red_iters.insert(iv->var.get());
  }
  PostOrderVisit(block->body, [&](const ObjectRef& n) {
    auto* store = n.as<BufferStoreNode>();
    if (store == nullptr) return;
    for (const PrimExpr& idx : store->indices) {
      for (const VarNode* v : UsedVars(idx)) {
        if (red_iters.count(v)) {
          fail(
              5, "no reduction iterator indexes the output",
              "reduction iterator " + v->name_hint.str() + " indexes " + store->buffer->name.str());
        }
      }
    }
  });
}

[[noreturn]] void LoopError(const ForNode* loop, const std::string& summary,
                            const std::string& check) {
  ScheduleError err("LoopPropertyError", summary);
  err.Subject("loop " + LoopName(loop)).Check(check, false).At(GetRef<ObjectRef>(loop), summary);
  throw err;
}

Array<PrimExpr> InsertAt(const Array<PrimExpr>& a, int64_t pos, const PrimExpr& v) {
  Array<PrimExpr> out = a;
  out.insert_at(pos, v);
  return out;
}

/*! \brief The body of a block storing `values` to `buffers` at `indices` (through lets when
 * there are several, so each value reads the old contents). */
Stmt StoreAll(const std::vector<Buffer>& buffers, const std::vector<Array<PrimExpr>>& indices,
              const std::vector<PrimExpr>& values, bool lets) {
  if (buffers.size() == 1) return BufferStore(buffers[0], values[0], indices[0]);
  Array<Stmt> stores;
  std::vector<Var> vars;
  for (size_t i = 0; i < buffers.size(); ++i) {
    PrimExpr v = values[i];
    if (lets) {
      vars.push_back(Var("v_" + buffers[i]->name.str(), values[i].dtype()));
      v = vars.back();
    }
    stores.push_back(BufferStore(buffers[i], v, indices[i]));
  }
  Stmt body = SeqStmt(stores);
  for (size_t i = vars.size(); i-- > 0;) body = LetStmt(vars[i], values[i], body);
  return body;
}

/*! \brief Point regions of loads `loads` (BufferLoads). */
Array<BufferRegion> PointRegions(const std::vector<PrimExpr>& loads) {
  Array<BufferRegion> out;
  for (const PrimExpr& e : loads) {
    auto* load = e.as<BufferLoadNode>();
    Array<Range> region;
    for (const PrimExpr& i : load->indices) region.push_back(Range(i, make_const(i.dtype(), 1)));
    out.push_back(BufferRegion(load->buffer, region));
  }
  return out;
}

/*!
 * \brief rfactor: the reduction over `loop_rv` becomes partial results (a new buffer with the
 * loop's axis at `factor_axis`) and a final reduction; returns the rfactor block.
 */
Array<ObjectRef> RFactor(ScheduleNode* self, const LoopRV& loop_rv, int64_t factor_axis) {
  // ---- Step 1: the loop, the one block under it, and TVM's preconditions --------------------
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
  std::string why;
  if (!IsStagePipeline(index, scope, &why)) {
    ScheduleError err("NotStagePipelineError", "rfactor needs the scope " + BlockName(scope) +
                                                   " of block " + BlockName(block) +
                                                   " to be a stage pipeline, but " + why);
    err.Subject("block " + BlockName(scope))
        .Check("the scope is a stage pipeline", false)
        .At(GetRef<ObjectRef>(scope), why);
    throw err;
  }
  CheckReductionBlock(index, block, scope);
  if (rf_loop->kind != ForKind::kSerial || rf_loop->thread_binding.defined()) {
    ScheduleError err("NotSerialLoopKindError", "rfactor needs loop " + LoopName(rf_loop) +
                                                    " to be serial, but it is " +
                                                    ForKindName(rf_loop->kind));
    err.Subject("loop " + LoopName(rf_loop))
        .Check("the rfactor loop is serial", false)
        .At(GetRef<ObjectRef>(rf_loop), "not serial");
    throw err;
  }
  std::unordered_set<const VarNode*> dp_vars, red_vars;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    auto& set = block->iter_vars[k]->iter_type == kDataPar ? dp_vars : red_vars;
    for (const VarNode* v : UsedVars(realize->iter_values[k])) set.insert(v);
  }
  std::vector<const ForNode*> loops = index.LoopsAbove(block);
  std::vector<const BlockNode*> first = index.ChildBlocks(loops[0]);
  if (first.empty() || first[0] != block) {
    LoopError(loops[0],
              "rfactor needs block " + BlockName(block) + " to be the first block under loop " +
                  LoopName(loops[0]) + ", its outermost loop",
              "the block is the first child block of its outermost loop");
  }
  bool met_reduction = false;
  for (const ForNode* l : loops) {
    bool dp = dp_vars.count(l->loop_var.get()), red = red_vars.count(l->loop_var.get());
    if (dp && red) {
      LoopError(l,
                "loop " + LoopName(l) + " drives both reduction and data-parallel iterators of " +
                    "block " + BlockName(block),
                "each loop drives only reduction or only data-parallel iterators");
    } else if (dp) {
      if (l == rf_loop) {
        LoopError(l,
                  "rfactor needs loop " + LoopName(l) +
                      " to drive no data-parallel iterator of block " + BlockName(block),
                  "the rfactor loop drives no data-parallel iterator");
      }
    } else if (red) {
      if (!met_reduction && index.ChildBlocks(l).size() != 1) {
        ScheduleError err("NotSingleChildBlockError",
                          "rfactor needs the outermost reduction loop " + LoopName(l) +
                              " of block " + BlockName(block) + " to hold only that block");
        err.Subject("loop " + LoopName(l))
            .Check("the outermost reduction loop has one child block", false)
            .At(GetRef<ObjectRef>(l), "several blocks below");
        throw err;
      }
      met_reduction = true;
    } else if (met_reduction && ConstValue(l->extent) != 1) {
      LoopError(l,
                "loop " + LoopName(l) + " is bound to no iterator of block " + BlockName(block) +
                    " but has extent " + ExprStr(l->extent) + " under a reduction loop",
                "a loop under a reduction loop that drives no iterator has extent 1");
    }
  }
  auto [init_values, updates] = InitsAndUpdates(block);
  std::optional<MatchedReduction> matched = MatchReduction(init_values, updates);
  if (!matched) {
    // The update is a known combiner but the init is not its identity: say so.
    if (std::optional<MatchedReduction> m = MatchReduction(init_values, updates, false)) {
      std::string expected, got;
      for (size_t i = 0; i < init_values.size(); ++i) {
        expected += (i ? ", " : "") + ExprStr(m->reducer.identity[i]);
        got += (i ? ", " : "") + ExprStr(init_values[i]);
      }
      ScheduleError err("InitNotIdentityError",
                        "rfactor needs the T.init() of block " + BlockName(block) +
                            " to store the identity of its reduction (" + expected +
                            "), but it stores " + got +
                            ": every partial result starts from the init, so the result would "
                            "include it once per partial result");
      err.Subject("block " + BlockName(block))
          .Check("the init stores the reduction's identity", false)
          .At(GetRef<ObjectRef>(block), "init " + got + " is not " + expected);
      throw err;
    }
    std::string got;
    for (const BufferStore& u : updates) {
      got += (got.empty() ? "" : "; ") + u->buffer->name.str() + "[...] = " + ExprStr(u->value);
    }
    ScheduleError err("NoMatchedReducerError",
                      "rfactor found no reducer for the init and update of block " +
                          BlockName(block) +
                          ": it knows `C = C + x` (init 0), `C * x` (1), min (the dtype's max), "
                          "max (the dtype's min) and the argmax/argmin pairs");
    err.Subject("block " + BlockName(block))
        .Check("the init values are the reducer's identity and the update its combiner", false)
        .At(GetRef<ObjectRef>(block), got);
    throw err;
  }
  const size_t n = updates.size();
  int64_t ndim = static_cast<int64_t>(updates[0]->buffer->shape.size());
  if (factor_axis < -(ndim + 1) || factor_axis > ndim) {
    ScheduleError err("FactorAxisOutOfRangeError",
                      "factor_axis " + std::to_string(factor_axis) + " is out of range for the " +
                          std::to_string(ndim) + "-d buffer " + updates[0]->buffer->name.str() +
                          ": it must be in [" + std::to_string(-(ndim + 1)) + ", " +
                          std::to_string(ndim) + "]");
    err.Check("-(ndim + 1) <= factor_axis <= ndim", false);
    throw err;
  }
  int64_t axis = factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis;
  // A predicate that ties the rfactor loop to another loop would leave the rfactor block with
  // bindings that are not affine under it (TVM fails on it too, after the fact).
  for (const PrimExpr& c : SplitConjuncts(realize->predicate)) {
    std::unordered_set<const VarNode*> used = UsedVars(c);
    if (used.count(rf_loop->loop_var.get()) && used.size() > 1) {
      ScheduleError err("NotAffineBindingError",
                        "rfactor of block " + BlockName(block) + " over loop " + LoopName(rf_loop) +
                            ": its predicate " + ExprStr(c) +
                            " ties the rfactor loop to other loops, so the rfactor block "
                            "would not be affinely bound");
      err.Check("the predicate does not tie the rfactor loop to other loops", false)
          .At(GetRef<ObjectRef>(block), "predicate " + ExprStr(c));
      throw err;
    }
  }

  // ---- Step 2: the rfactor buffers (the written buffers with the rfactor loop's axis) -------
  std::vector<Buffer> rf_bufs;
  for (const BufferStore& u : updates) {
    const Buffer& b = u->buffer;
    std::string name = b->name.str() + "_rf";
    rf_bufs.push_back(Buffer(Var(name, b->data.dtype()), b->dtype,
                             InsertAt(b->shape, axis, rf_loop->extent), b->strides, b->elem_offset,
                             name, b->scope, b->data_alignment, b->offset_factor));
  }
  std::unordered_map<const VarNode*, const ForNode*> loop_of;
  for (const ForNode* l : loops) loop_of[l->loop_var.get()] = l;

  // ---- Step 3: the rfactor block --------------------------------------------------------------
  // Its iterators: one data-parallel iterator for the rfactor loop; then each old iterator,
  // except that a reduction iterator whose binding uses the rfactor loop becomes one reduction
  // iterator per other loop of its binding.
  Array<IterVar> rf_iters;
  Array<PrimExpr> rf_bindings;
  std::unordered_map<const VarNode*, PrimExpr> loop_to_iter, rf_vmap;
  IterVar rf_iter(Range(rf_loop->min, rf_loop->extent),
                  Var("v" + rf_loop->loop_var->name_hint.str(), rf_loop->loop_var.dtype()),
                  kDataPar);
  loop_to_iter[rf_loop->loop_var.get()] = rf_iter->var;
  rf_iters.push_back(rf_iter);
  rf_bindings.push_back(rf_loop->loop_var);
  bool rf_has_reduction = false;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    const PrimExpr& binding = realize->iter_values[k];
    if (iv->iter_type == kDataPar || !UsesVar(binding, rf_loop->loop_var.get())) {
      rf_iters.push_back(iv);
      rf_bindings.push_back(binding);
      rf_has_reduction = rf_has_reduction || iv->iter_type == kCommReduce;
      continue;
    }
    for (const VarNode* v : OrderedVars(binding)) {
      auto it = loop_of.find(v);
      if (it == loop_of.end() || loop_to_iter.count(v)) continue;
      const ForNode* l = it->second;
      IterVar nv(Range(l->min, l->extent), Var("v" + v->name_hint.str(), v->dtype), kCommReduce);
      loop_to_iter[v] = nv->var;
      rf_iters.push_back(nv);
      rf_bindings.push_back(l->loop_var);
      rf_has_reduction = true;
    }
    rf_vmap[iv->var.get()] = SubstituteVars(binding, loop_to_iter);
  }
  Array<PrimExpr> rf_idx = InsertAt(updates[0]->indices, axis, rf_iter->var);
  std::vector<Array<PrimExpr>> rf_idxs(n, rf_idx);
  std::vector<PrimExpr> rf_lhs;
  for (const Buffer& b : rf_bufs) rf_lhs.push_back(BufferLoad(b, rf_idx));
  Stmt rf_body, rf_init;
  if (rf_has_reduction) {
    rf_body = StoreAll(rf_bufs, rf_idxs, matched->reducer.Apply(rf_lhs, matched->rhs), true);
    rf_init = StoreAll(rf_bufs, rf_idxs, matched->reducer.identity, false);
    rf_init = SubstituteVars(rf_init, rf_vmap);
  } else {
    rf_body = StoreAll(rf_bufs, rf_idxs, matched->rhs, false);
  }
  rf_body = SubstituteVars(rf_body, rf_vmap);
  Array<BufferRegion> rf_reads, rf_writes;
  for (const BufferRegion& r : block->reads) {
    Array<Range> region;
    for (const Range& rg : r->region) {
      region.push_back(
          Range(SubstituteVars(rg->min, rf_vmap), SubstituteVars(rg->extent, rf_vmap)));
    }
    rf_reads.push_back(BufferRegion(r->buffer, region));
  }
  for (const BufferRegion& w : block->writes) {
    Array<Range> region;
    for (const Range& rg : w->region) {
      region.push_back(
          Range(SubstituteVars(rg->min, rf_vmap), SubstituteVars(rg->extent, rf_vmap)));
    }
    region.insert_at(axis, Range(rf_iter->var, make_const(rf_iter->var.dtype(), 1)));
    Buffer target = w->buffer;
    for (size_t i = 0; i < n; ++i) {
      if (updates[i]->buffer.same_as(w->buffer)) target = rf_bufs[i];
    }
    rf_writes.push_back(BufferRegion(target, region));
  }
  std::string rf_block_name = UniqueBlockName(index, block->name_hint.str() + "_rf");
  Block rf_block(rf_iters, rf_reads, rf_writes, rf_block_name, rf_body, rf_init, {}, {},
                 block->annotations);
  // The rfactor block sits under a copy of every loop of the block.
  std::unordered_map<const VarNode*, PrimExpr> copy_map;
  std::vector<Var> copy_vars;
  for (const ForNode* l : loops) {
    copy_vars.push_back(l->loop_var.copy_with_name(l->loop_var->name_hint.str()));
    copy_map[l->loop_var.get()] = copy_vars.back();
  }
  Array<PrimExpr> rf_bound;
  for (const PrimExpr& b : rf_bindings) rf_bound.push_back(SubstituteVars(b, copy_map));
  Stmt rf_nest = BlockRealize(rf_bound, SubstituteVars(realize->predicate, copy_map), rf_block);
  for (size_t i = loops.size(); i-- > 0;) {
    const ForNode* l = loops[i];
    IterVar tb = l->thread_binding;
    if (tb.defined())
      tb = IterVar(tb->dom, tb->var.copy_with_suffix(""), tb->iter_type, tb->thread_tag);
    rf_nest = For(copy_vars[i], SubstituteVars(l->min, copy_map),
                  SubstituteVars(l->extent, copy_map), l->kind, rf_nest, tb, l->annotations);
  }

  // ---- Step 4: the write-back block ---------------------------------------------------------
  Array<IterVar> wb_iters;
  Array<PrimExpr> wb_bindings;
  std::unordered_map<const VarNode*, PrimExpr> wb_vmap;
  IterVar wb_rf_iter(Range(rf_loop->min, rf_loop->extent),
                     Var("v" + rf_loop->loop_var->name_hint.str(), rf_loop->loop_var.dtype()),
                     kCommReduce);
  wb_vmap[rf_iter->var.get()] = wb_rf_iter->var;
  wb_iters.push_back(wb_rf_iter);
  wb_bindings.push_back(rf_loop->loop_var);
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    if (iv->iter_type != kDataPar) continue;
    Var nv = iv->var.copy_with_name(iv->var->name_hint.str());
    wb_iters.push_back(IterVar(iv->dom, nv, kDataPar));
    wb_bindings.push_back(realize->iter_values[k]);
    wb_vmap[iv->var.get()] = nv;
  }
  std::vector<Buffer> wb_bufs;
  std::vector<Array<PrimExpr>> wb_idxs;
  std::vector<PrimExpr> wb_lhs, wb_rhs;
  for (size_t i = 0; i < n; ++i) {
    wb_bufs.push_back(updates[i]->buffer);
    Array<PrimExpr> idx;
    for (const PrimExpr& e : updates[i]->indices) idx.push_back(SubstituteVars(e, wb_vmap));
    wb_idxs.push_back(idx);
    wb_lhs.push_back(SubstituteVars(matched->lhs[i], wb_vmap));
    wb_rhs.push_back(SubstituteVars(BufferLoad(rf_bufs[i], rf_idx), wb_vmap));
  }
  Stmt wb_body = StoreAll(wb_bufs, wb_idxs, matched->reducer.Apply(wb_lhs, wb_rhs), true);
  Stmt wb_init = StoreAll(wb_bufs, wb_idxs, matched->reducer.identity, false);
  Block wb_block(wb_iters, PointRegions(wb_rhs), PointRegions(wb_lhs), block->name_hint, wb_body,
                 wb_init, {}, {}, block->annotations);
  Stmt wb_realize = BlockRealize(wb_bindings, const_true(), wb_block);

  // ---- Step 5: install ------------------------------------------------------------------------
  // Below the outermost loop, the reduction loops other than the rfactor loop are removed
  // around the write-back block; the rfactor nest goes right before the outermost loop's result.
  std::function<Stmt(const Stmt&)> rebuild = [&](const Stmt& s) -> Stmt {
    if (auto* f = s.as<ForNode>()) {
      if (!loop_of.count(f->loop_var.get())) return s;
      Stmt body = rebuild(f->body);
      if (f == rf_loop || !red_vars.count(f->loop_var.get())) {
        For copy = GetRef<For>(f);
        copy.CopyOnWrite()->body = body;
        body = copy;
      }
      return body;
    }
    if (auto* r = s.as<BlockRealizeNode>()) return r == realize ? wb_realize : s;
    if (auto* seq = s.as<SeqStmtNode>()) {
      Array<Stmt> parts;
      for (const Stmt& st : seq->seq) parts.push_back(rebuild(st));
      return SeqStmt::Flatten(parts);
    }
    return s;
  };
  Stmt outer_new = SeqStmt::Flatten(Array<Stmt>{rf_nest, rebuild(GetRef<Stmt>(loops[0]))});
  PrimFunc f1 = ReplaceInFunc(index.func(), {{loops[0], outer_new}});
  FuncIndex mid(f1);
  const BlockNode* new_scope = scope == index.root() ? mid.root() : nullptr;
  if (new_scope == nullptr) {
    auto named = mid.BlocksNamed(scope->name_hint.str());
    MINITVM_ICHECK(named.size() == 1) << "rfactor: lost the scope block";
    new_scope = named[0];
  }
  Block scope_block = GetRef<Block>(new_scope);
  for (const Buffer& b : rf_bufs) scope_block.CopyOnWrite()->alloc_buffers.push_back(b);
  self->mutable_state()->Replace(func, ReplaceInFunc(f1, {{new_scope, scope_block}}));
  return {self->NewRV(func, self->state().Index(func).BlocksNamed(rf_block_name).at(0))};
}

}  // namespace

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("RFactor", "rfactor", {"loop"}, {"factor_axis"},
                                               RFactor));

}  // namespace tir
}  // namespace minitvm
