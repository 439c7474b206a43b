/*!
 * \file primitive/transform_layout.cc
 * \brief `transform_layout` (stage 3): change how a buffer's elements are laid out.
 *
 * An index map `lambda i, j: (j // 32, i, j % 32)` turns `B` of shape (M, N) into a buffer of
 * shape (N / 32, M, 32) — the packed layout of PERF_NOTES.md — and every access `B[i, j]`
 * into `B[j // 32, i, j % 32]`, simplified under the iterator ranges of the block it is in.
 * When the buffer is a parameter the function's signature changes with it (as in TVM).
 *
 * A map with more new elements than old ones (`lambda i: (i // 4, i % 4)` on 14 elements) pads
 * the buffer; it needs `pad_value`, which a new block writes into the padding elements. A map
 * that could send two elements to one (`lambda i, j: (i, i)`) is refused.
 */
#include <map>
#include <set>

#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

/*! \brief Rewrites every access of one buffer through the index map. */
class LayoutRewriter : public StmtExprMutator {
 public:
  LayoutRewriter(const BufferNode* from, Buffer to, IndexMap map)
      : from_(from), to_(std::move(to)), map_(std::move(map)) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || load->buffer.get() != from_) return e;
    return BufferLoad(to_, Map(load->indices));
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    if (store == nullptr || store->buffer.get() != from_) return s;
    return BufferStore(to_, store->value, Map(store->indices));
  }
  Stmt VisitStmt_(const ForNode* op) override {
    analyzer_.Bind(op->loop_var, Range(op->min, op->extent), true);
    return StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) analyzer_.Bind(iv->var, iv->dom, true);
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    bool allocs = false;
    for (const Buffer& x : b->alloc_buffers) allocs |= x.get() == from_;
    bool mentions = RegionsHave(b->reads, from_) || RegionsHave(b->writes, from_);
    if (!allocs && !mentions) return b;
    if (allocs) {
      Array<Buffer> a;
      for (const Buffer& x : b->alloc_buffers) a.push_back(x.get() == from_ ? to_ : x);
      b.CopyOnWrite()->alloc_buffers = a;
    }
    if (mentions && op->name_hint.str() != "root") b = RecomputeAccess(b);
    return b;
  }

 private:
  Array<PrimExpr> Map(const Array<PrimExpr>& indices) {
    return SimplifyAll(&analyzer_, map_.MapIndices(indices));
  }
  const BufferNode* from_;
  Buffer to_;
  IndexMap map_;
  arith::Analyzer analyzer_;
};

/*!
 * \brief The old indices in terms of the new ones, for a map whose every new index is an old
 * index `i`, or one of a pair `i // c`, `i % c` (a split, possibly with padding, in any order of
 * the new dimensions); nullopt for any other map.
 */
std::optional<std::vector<PrimExpr>> InvertSplitMap(const IndexMap& map,
                                                    const std::vector<Var>& new_vars) {
  const Array<Var>& old_vars = map->initial_indices;
  size_t n = old_vars.size();
  std::vector<int> plain(n, -1), div(n, -1), mod(n, -1);
  std::vector<int64_t> div_by(n, 0), mod_by(n, 0);
  auto old_position = [&](const PrimExpr& e) -> int {
    auto* v = e.as<VarNode>();
    for (size_t k = 0; v != nullptr && k < n; ++k) {
      if (old_vars[k].get() == v) return static_cast<int>(k);
    }
    return -1;
  };
  for (size_t j = 0; j < map->final_indices.size(); ++j) {
    const PrimExpr& e = map->final_indices[j];
    int k = old_position(e);
    std::vector<int>* slot = &plain;
    std::optional<int64_t> by;
    if (auto* d = e.as<FloorDivNode>()) {
      k = old_position(d->a), slot = &div, by = ConstValue(d->b);
      if (k >= 0) div_by[k] = by.value_or(0);
    } else if (auto* m = e.as<FloorModNode>()) {
      k = old_position(m->a), slot = &mod, by = ConstValue(m->b);
      if (k >= 0) mod_by[k] = by.value_or(0);
    }
    if (k < 0 || (slot != &plain && (!by || *by <= 0)) || (*slot)[k] >= 0) return std::nullopt;
    (*slot)[k] = static_cast<int>(j);
  }
  std::vector<PrimExpr> old;
  for (size_t k = 0; k < n; ++k) {
    if (plain[k] >= 0 && div[k] < 0 && mod[k] < 0) {
      old.push_back(new_vars[plain[k]]);
    } else if (plain[k] < 0 && div[k] >= 0 && mod[k] >= 0 && div_by[k] == mod_by[k]) {
      Var outer = new_vars[div[k]], inner = new_vars[mod[k]];
      old.push_back(outer * IntImm(outer.dtype(), div_by[k]) + inner);
    } else {
      return std::nullopt;
    }
  }
  return old;
}

/*! \brief `(a, b, c)`: a point of an index space, for messages. */
std::string PointStr(const std::vector<int64_t>& p) {
  std::string s = "(";
  for (size_t k = 0; k < p.size(); ++k) s += (k ? ", " : "") + std::to_string(p[k]);
  return s + (p.size() == 1 ? ",)" : ")");
}

/*!
 * \brief Refuses an index map that may send two elements of the buffer to one new element
 * (`NotInjectiveIndexMapError`). The first of three checks that applies decides:
 *  1. a split map (`InvertSplitMap`: permutations, `i // c` with `i % c`) is injective;
 *  2. a map whose new indices, read as a row-major offset into the new shape, give back the
 *     row-major offset of the old indices (fuses, and splits of a fused index) is injective:
 *     the old offset, and so the old indices, can be read off the new ones;
 *  3. on a constant shape of at most kMaxTriedPoints elements, every point is mapped and two
 *     points that land on one are named.
 * A larger or symbolic buffer with any other map is refused as not provably injective.
 */
void CheckInjective(const IndexMap& map, const Buffer& buf, const Array<PrimExpr>& new_shape,
                    const BlockNode* block) {
  constexpr int64_t kMaxTriedPoints = 4096;
  const Array<Var>& vars = map->initial_indices;
  std::vector<Var> probe;
  for (const PrimExpr& s : new_shape) probe.push_back(Var("j", s.dtype()));
  if (InvertSplitMap(map, probe)) return;

  arith::Analyzer analyzer;
  for (size_t k = 0; k < vars.size(); ++k) {
    analyzer.Bind(vars[k], Range(IntImm(vars[k].dtype(), 0), cast(vars[k].dtype(), buf->shape[k])),
                  true);
  }
  // In the indices' own dtype: casts would hide `(f // c) * c + f % c == f` from the analyzer.
  DataType t = vars[0].dtype();
  auto row_major = [t](const Array<PrimExpr>& idx, const Array<PrimExpr>& shape) {
    PrimExpr off = IntImm(t, 0);
    for (size_t k = 0; k < idx.size(); ++k) off = off * cast(t, shape[k]) + cast(t, idx[k]);
    return off;
  };
  Array<PrimExpr> old_idx(vars.begin(), vars.end());
  if (analyzer.CanProveEqual(row_major(map->final_indices, new_shape),
                             row_major(old_idx, buf->shape))) {
    return;
  }

  std::string map_text = PythonLiteral(Any(map));
  std::vector<int64_t> extents;
  int64_t total = 1;
  for (const PrimExpr& s : buf->shape) {
    std::optional<int64_t> e = ConstValue(s);
    if (!e || *e < 0 || (*e > 0 && total > kMaxTriedPoints / *e)) {
      total = -1;
      break;
    }
    extents.push_back(*e);
    total *= *e;
  }
  if (total < 0) {
    ScheduleError err("NotInjectiveIndexMapError",
                      "cannot prove that " + map_text + " sends distinct elements of " +
                          buf->name.str() +
                          " to distinct elements: minitvm proves it for splits "
                          "(i // c, i % c), permutations and fuses, and tries every element of "
                          "buffers of at most " +
                          std::to_string(kMaxTriedPoints) + " elements");
    err.Check("the index map is injective on the buffer's elements (not proven)", false)
        .At(GetRef<ObjectRef>(block), "transforms " + buf->name.str());
    throw err;
  }
  std::map<std::vector<int64_t>, std::vector<int64_t>> seen;
  std::vector<int64_t> point(vars.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    Map<Var, PrimExpr> at;
    for (size_t k = 0; k < vars.size(); ++k) at.Set(vars[k], IntImm(vars[k].dtype(), point[k]));
    std::vector<int64_t> image;
    for (const PrimExpr& e : map->final_indices) {
      std::optional<int64_t> v = ConstValue(analyzer.Simplify(Substitute(e, at)));
      if (!v) MINITVM_THROW(ValueError) << "cannot evaluate the index map " << map_text;
      image.push_back(*v);
    }
    auto [it, fresh] = seen.emplace(image, point);
    if (!fresh) {
      ScheduleError err("NotInjectiveIndexMapError",
                        map_text + " sends two elements of " + buf->name.str() + ", " +
                            PointStr(it->second) + " and " + PointStr(point) +
                            ", to one: " + PointStr(image));
      err.Check("the index map is injective on the buffer's elements", false)
          .At(GetRef<ObjectRef>(block), "transforms " + buf->name.str());
      throw err;
    }
    for (size_t k = vars.size(); k-- > 0;) {  // the next point, row-major
      if (++point[k] < extents[k]) break;
      point[k] = 0;
    }
  }
}

/*! \brief `pad_value` as an expression of the buffer's dtype (TypeError for anything else). */
PrimExpr PadValue(const Any& value, DataType dtype) {
  if (auto e = value.try_cast<PrimExpr>()) return cast(dtype, *e);
  if (value.is_float() || value.is_int() || value.is_bool()) {
    return make_const(dtype, value.cast<double>());
  }
  MINITVM_THROW(TypeError) << "transform_layout: pad_value must be a number or a PrimExpr, not "
                           << value.type_name();
}

/*!
 * \brief The block nest that writes `pad` into the padding elements of `buf` (the elements no
 * old index maps to): loops over the new shape, predicated on being outside the old shape.
 * Undefined when no element can be padding.
 */
Stmt PaddingNest(const Buffer& buf, const Array<PrimExpr>& old_shape, const IndexMap& map,
                 const PrimExpr& pad, const std::string& name) {
  std::vector<Var> loops, new_vars;
  std::vector<PrimExpr> extents;
  Array<IterVar> iters;
  Array<PrimExpr> indices, bindings;
  for (size_t k = 0; k < buf->shape.size(); ++k) {
    DataType t = buf->shape[k].dtype();
    Var ax("ax" + std::to_string(k), t), v("v" + std::to_string(k), t);
    loops.push_back(ax);
    new_vars.push_back(v);
    extents.push_back(buf->shape[k]);
    iters.push_back(IterVar(Range(IntImm(t, 0), buf->shape[k]), v, kDataPar));
    indices.push_back(v);
    bindings.push_back(ax);
  }
  std::vector<PrimExpr> old = InvertSplitMap(map, loops).value();
  PrimExpr is_padding;
  for (size_t k = 0; k < old.size(); ++k) {
    PrimExpr outside = cast(old_shape[k].dtype(), old[k]) >= old_shape[k];
    arith::Analyzer analyzer;
    for (size_t j = 0; j < loops.size(); ++j) {
      analyzer.Bind(loops[j], Range(IntImm(loops[j].dtype(), 0), extents[j]), true);
    }
    if (analyzer.CanProve(!outside)) continue;  // this dimension has no padding
    is_padding = is_padding.defined() ? (is_padding || outside) : outside;
  }
  if (!is_padding.defined()) return Stmt();  // no element can be padding after all
  Stmt store = BufferStore(buf, pad, indices);
  Block block = RecomputeAccess(Block(iters, {}, {}, name, store));
  return MakeLoopNest(loops, extents, BlockRealize(bindings, is_padding, block));
}

/*!
 * \brief transform_layout: the `i`-th buffer the block reads (`buffer_index_type` 0) or writes
 * (1) gets the layout `map` gives; `pad_value` fills the elements the new layout adds.
 */
Array<ObjectRef> TransformLayout(ScheduleNode* self, const BlockRV& block_rv,
                                 int64_t buffer_index_type, int64_t i, const IndexMap& map,
                                 const Any& pad_value) {
  // Step 1: the block, the buffer and the map's arity.
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  bool write = buffer_index_type == static_cast<int64_t>(BufferIndexType::kWrite);
  Buffer buf = BlockBuffer(block, i, write, "transform_layout");
  if (map->initial_indices.size() != buf->shape.size()) {
    ScheduleError err("IndexMapArityError", "the index map takes " +
                                                std::to_string(map->initial_indices.size()) +
                                                " indices but " + buf->name.str() + " has " +
                                                std::to_string(buf->shape.size()) + " dimensions");
    err.Check("the index map takes one index per buffer dimension", false)
        .At(GetRef<ObjectRef>(block), "accesses " + buf->name.str());
    throw err;
  }
  arith::Analyzer analyzer;
  Array<PrimExpr> new_shape = map.MapShape(buf->shape, &analyzer);
  CheckInjective(map, buf, new_shape, block);
  PrimExpr old_size = IntImm(DataType::Int(64), 1), new_size = IntImm(DataType::Int(64), 1);
  for (const PrimExpr& s : buf->shape) old_size = old_size * cast(DataType::Int(64), s);
  for (const PrimExpr& s : new_shape) new_size = new_size * cast(DataType::Int(64), s);
  // Step 2: without a pad value the map must be a bijection.
  bool pad = !pad_value.is_null();
  if (!pad && !analyzer.CanProveEqual(old_size, new_size)) {
    ScheduleError err("TransformationPaddingError",
                      "the index map sends the " + ExprStr(analyzer.Simplify(old_size)) +
                          " elements of " + buf->name.str() + " into a buffer of " +
                          ExprStr(analyzer.Simplify(new_size)) +
                          " elements; give pad_value to allow padding");
    err.Check("the new layout has as many elements as the old one, or pad_value is given", false)
        .At(GetRef<ObjectRef>(block), "transforms " + buf->name.str());
    throw err;
  }
  Buffer now = buf;
  {
    BufferNode* n = now.CopyOnWrite();
    n->shape = new_shape;
    n->strides = {};
  }
  Stmt body = index.func()->body;
  if (pad && !analyzer.CanProveEqual(old_size, new_size)) {
    // The padding elements get pad_value, written right after the last block that writes the
    // buffer. A buffer that no block writes (an input) is the caller's: its padding is assumed
    // to hold pad_value, as TVM assumes.
    PrimExpr pad_expr = PadValue(pad_value, buf->dtype);
    std::vector<Var> probe;
    for (const PrimExpr& s : new_shape) probe.push_back(Var("j", s.dtype()));
    if (!InvertSplitMap(map, probe)) {
      ScheduleError err("TransformationPaddingIndexMapError",
                        "to write pad_value, transform_layout needs an index map made of old "
                        "indices i and pairs i // c, i % c (a split with padding); " +
                            PythonLiteral(Any(map)) + " is not one");
      err.Check("every new index is i, i // c or i % c, each old index split at most once", false)
          .At(GetRef<ObjectRef>(block), "transforms " + buf->name.str());
      throw err;
    }
    // The last block that writes the buffer directly in the scope that owns it (the block
    // allocating it, or the root for a parameter): after blockize that is the outer block, so
    // the padding is written once, not once per tile.
    const BlockNode* owner = AllocatingBlock(index, buf.get());
    if (owner == nullptr) owner = index.root();
    const BlockNode* last_writer = nullptr;
    for (const BlockNode* b : index.blocks()) {
      if (b != owner && index.ScopeBlock(b) == owner && RegionsHave(b->writes, buf.get())) {
        last_writer = b;
      }
    }
    Stmt nest = PaddingNest(now, buf->shape, map, pad_expr,
                            UniqueBlockName(index, buf->name.str() + "_pad"));
    if (last_writer != nullptr && nest.defined()) {
      std::vector<const ForNode*> loops = index.LoopsAbove(last_writer);
      const StmtNode* outer = loops.empty()
                                  ? static_cast<const StmtNode*>(index.Get(last_writer).realize)
                                  : loops.front();
      body = ReplaceStmts(body, {{outer, SeqStmt({GetRef<Stmt>(outer), nest})}});
    }
  }
  body = LayoutRewriter(buf.get(), now, map).VisitStmt(body);
  PrimFunc f = WithBody(index.func(), body);
  for (const auto& [var, b] : f->buffer_map.items()) {
    if (b.same_as(buf)) f.CopyOnWrite()->buffer_map.Set(var, now);
  }
  self->mutable_state()->Replace(func, f);
  return {};
}

/*!
 * \brief The old indices in terms of `new_vars` (ranging over `new_shape`) for a map whose new
 * indices, read row-major in the new shape, give the row-major offset of the old indices in
 * `old_shape` (fuses, reshapes): each old index is read back off that offset. nullopt when the
 * analyzer cannot prove the offsets equal.
 */
std::optional<std::vector<PrimExpr>> InvertReshapeMap(const IndexMap& map,
                                                      const Array<PrimExpr>& old_shape,
                                                      const Array<PrimExpr>& new_shape,
                                                      const std::vector<Var>& new_vars) {
  const Array<Var>& vars = map->initial_indices;
  if (vars.empty()) return std::nullopt;
  DataType t = vars[0].dtype();
  arith::Analyzer analyzer;
  for (size_t k = 0; k < vars.size(); ++k) {
    analyzer.Bind(vars[k], Range(IntImm(vars[k].dtype(), 0), cast(vars[k].dtype(), old_shape[k])),
                  true);
  }
  auto row_major = [t](const Array<PrimExpr>& idx, const Array<PrimExpr>& shape) {
    PrimExpr off = IntImm(t, 0);
    for (size_t k = 0; k < idx.size(); ++k) off = off * cast(t, shape[k]) + cast(t, idx[k]);
    return off;
  };
  Array<PrimExpr> old_idx(vars.begin(), vars.end());
  if (!analyzer.CanProveEqual(row_major(map->final_indices, new_shape),
                              row_major(old_idx, old_shape))) {
    return std::nullopt;
  }
  Array<PrimExpr> nv(new_vars.begin(), new_vars.end());
  PrimExpr offset = row_major(nv, new_shape);
  std::vector<PrimExpr> old(vars.size());
  PrimExpr stride = IntImm(t, 1);
  for (size_t k = vars.size(); k-- > 0;) {
    PrimExpr q = k + 1 == vars.size() ? offset : floordiv(offset, stride);
    old[k] = k == 0 ? q : floormod(q, cast(t, old_shape[k]));
    stride = stride * cast(t, old_shape[k]);
  }
  return old;
}

/*! \brief Simplifies the indices of every buffer access (under the analyzer's bounds). */
class AccessSimplifier : public StmtExprMutator {
 public:
  explicit AccessSimplifier(arith::Analyzer* analyzer) : analyzer_(analyzer) {}
  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load == nullptr) return e;
    return BufferLoad(load->buffer, SimplifyAll(analyzer_, load->indices));
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt st = StmtExprMutator::VisitStmt_(op);
    auto* store = st.as<BufferStoreNode>();
    if (store == nullptr) return st;
    return BufferStore(store->buffer, store->value, SimplifyAll(analyzer_, store->indices));
  }

 private:
  arith::Analyzer* analyzer_;
};

/*!
 * \brief transform_block_layout: give the block the iteration space `map` makes of its iterators
 * (`lambda i, j: (i * 128 + j,)` fuses them, `lambda i, j: (j, i)` swaps them), with one new loop
 * `ax<k>` per new iterator `v<k>`. As TVM: the loops above the block must form a chain down to
 * it, start at zero, and bind the block's iterators one to one (a trivial binding); the map must
 * be a bijection of the iteration space and not mix spatial and reduction iterators.
 */
Array<ObjectRef> TransformBlockLayout(ScheduleNode* self, const BlockRV& block_rv,
                                      const IndexMap& map) {
  // Step 1: the block, its loops (a chain starting at zero) and its trivial binding.
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  const StmtSRef& sref = index.Get(block);
  if (sref.realize == nullptr || block == index.root()) {
    MINITVM_THROW(ValueError) << "transform_block_layout: the root block has no iteration space";
  }
  std::vector<const ForNode*> loops = index.LoopsAbove(block);
  arith::Analyzer analyzer;
  for (size_t k = 0; k < loops.size(); ++k) {
    CheckLoopStartsAtZero(&analyzer, loops[k]);
    const StmtNode* child = k + 1 < loops.size() ? static_cast<const StmtNode*>(loops[k + 1])
                                                 : static_cast<const StmtNode*>(sref.realize);
    if (loops[k]->body.get() != child) {
      ScheduleError err("NotSingleChildBlockError",
                        "loop " + LoopName(loops[k]) + " holds more than the loop nest of block " +
                            BlockName(block) + "; transform_block_layout rebuilds that nest whole");
      err.Check("every loop above the block has the next loop (or the block) as its only child",
                false)
          .At(GetRef<ObjectRef>(loops[k]), "has more than one child");
      throw err;
    }
  }
  const BlockRealizeNode* realize = sref.realize;
  bool trivial = realize->iter_values.size() == loops.size() &&
                 ConstValue(realize->predicate) == std::optional<int64_t>(1);
  for (size_t k = 0; trivial && k < loops.size(); ++k) {
    auto* v = realize->iter_values[k].as<VarNode>();
    trivial = v == loops[k]->loop_var.get() &&
              analyzer.CanProveEqual(loops[k]->extent, block->iter_vars[k]->dom->extent);
  }
  if (!trivial) {
    ScheduleError err("NotTrivialBindingError",
                      "block " + BlockName(block) +
                          " is not bound one to one to the loops above it (each iterator "
                          "bound to its own loop, in order, with no predicate)");
    err.Check("the block's bindings are the loop variables above it, in order", false)
        .At(GetRef<ObjectRef>(block), "has a non-trivial binding");
    throw err;
  }
  // Step 2: the map applies to the block's iterators.
  if (map->initial_indices.size() != block->iter_vars.size()) {
    ScheduleError err("IndexMapNotApplicableToBlockIterError",
                      "the index map takes " + std::to_string(map->initial_indices.size()) +
                          " indices but block " + BlockName(block) + " has " +
                          std::to_string(block->iter_vars.size()) + " iterators");
    err.Check("the index map takes one index per block iterator", false)
        .At(GetRef<ObjectRef>(block), "is transformed");
    throw err;
  }
  Array<PrimExpr> extents;
  std::unordered_map<const VarNode*, IterVarType> kinds;
  for (const IterVar& iv : block->iter_vars) {
    if (ConstValue(iv->dom->min) != std::optional<int64_t>(0)) {
      MINITVM_THROW(ValueError) << "transform_block_layout: iterator " << iv->var->name_hint
                                << " of block " << BlockName(block) << " does not start at 0";
    }
    extents.push_back(iv->dom->extent);
    kinds[iv->var.get()] = iv->iter_type;
  }
  Array<PrimExpr> block_vars;
  for (const IterVar& iv : block->iter_vars) block_vars.push_back(iv->var);
  for (const IterVar& iv : block->iter_vars) analyzer.Bind(iv->var, iv->dom, true);
  Array<PrimExpr> mapped = SimplifyAll(&analyzer, map.MapIndices(block_vars));
  Array<PrimExpr> new_extents = map.MapShape(extents, &analyzer);
  // Step 3: the new iterators, each spatial or reduction as the old ones it is made of.
  std::vector<Var> new_vars;
  Array<IterVar> new_iters;
  // The new iterators take the old ones' integer type when they all share one (an int64 nest
  // stays int64 although the map's own variables are int32).
  std::optional<DataType> iter_type;
  if (!block->iter_vars.empty()) iter_type = block->iter_vars[0]->var.dtype();
  for (const IterVar& iv : block->iter_vars) {
    if (iter_type && iv->var.dtype() != *iter_type) iter_type.reset();
  }
  for (size_t k = 0; k < mapped.size(); ++k) {
    Var v("v" + std::to_string(k), iter_type ? *iter_type : mapped[k].dtype());
    new_vars.push_back(v);
    std::set<IterVarType> used;
    for (const VarNode* u : UsedVars(mapped[k])) {
      auto it = kinds.find(u);
      if (it != kinds.end()) used.insert(it->second);
    }
    IterVarType type = kDataPar;
    if (ConstValue(new_extents[k]) != std::optional<int64_t>(1) && !used.empty()) {
      type = used.size() == 1 ? *used.begin() : kOpaque;
    }
    if (type != kDataPar && type != kCommReduce) {
      ScheduleError err("OpaqueNewIterTypeError",
                        "new iterator " + ExprStr(mapped[k]) +
                            " mixes spatial and reduction iterators of block " + BlockName(block) +
                            " (or uses opaque ones)");
      err.Check("each new iterator is made of spatial iterators only, or reduction ones only",
                false)
          .At(GetRef<ObjectRef>(block), "is transformed");
      throw err;
    }
    new_iters.push_back(
        IterVar(Range(IntImm(v.dtype(), 0), cast(v.dtype(), new_extents[k])), v, type));
  }
  // Step 4: the old iterators in terms of the new ones (the map must be a bijection).
  std::optional<std::vector<PrimExpr>> old = InvertSplitMap(map, new_vars);
  PrimExpr old_size = IntImm(DataType::Int(64), 1), new_size = IntImm(DataType::Int(64), 1);
  for (const PrimExpr& e : extents) old_size = old_size * cast(DataType::Int(64), e);
  for (const PrimExpr& e : new_extents) new_size = new_size * cast(DataType::Int(64), e);
  if (!old) old = InvertReshapeMap(map, extents, new_extents, new_vars);
  if (!old || !analyzer.CanProveEqual(old_size, new_size)) {
    ScheduleError err("NotBijectiveAffineIndexMapError",
                      PythonLiteral(Any(map)) +
                          " is not a bijection of the iteration space of "
                          "block " +
                          BlockName(block) +
                          " that minitvm can invert (permutations, splits i // c with i % c, "
                          "and fuses / reshapes of the row-major order)");
    err.Check("the index map is a bijective affine map of the iteration space", false)
        .At(GetRef<ObjectRef>(block), "is transformed");
    throw err;
  }
  // The inverse is simplified under the new iterators' ranges (`v0 // 12544` of a fused index
  // whose outer extent is 1 becomes 0), except where it is a new iterator itself.
  arith::Analyzer ranged;
  for (const IterVar& iv : new_iters) ranged.Bind(iv->var, iv->dom, true);
  std::unordered_map<const VarNode*, PrimExpr> subst;
  for (size_t k = 0; k < block_vars.size(); ++k) {
    PrimExpr e = (*old)[k];
    if (e.as<VarNode>() == nullptr) e = ranged.Simplify(e);
    subst[block->iter_vars[k]->var.get()] = cast(block->iter_vars[k]->var.dtype(), e);
  }
  // As TVM, the accesses are simplified without the new iterators' ranges (a unit iterator
  // stays a variable, `B[v1, v0]`, not `B[0, v0]`).
  arith::Analyzer inner;
  Block nb = Downcast<Block>(SubstituteVars(GetRef<Stmt>(block), subst));
  nb.CopyOnWrite()->iter_vars = new_iters;
  nb = RecomputeAccess(Downcast<Block>(AccessSimplifier(&inner).VisitStmt(nb)));
  // Step 5: one loop per new iterator, and the new nest in place of the old one.
  std::vector<Var> loop_vars;
  std::vector<PrimExpr> loop_extents;
  Array<PrimExpr> bindings;
  for (size_t k = 0; k < new_iters.size(); ++k) {
    Var ax("ax" + std::to_string(k), new_vars[k].dtype());
    loop_vars.push_back(ax);
    loop_extents.push_back(new_iters[k]->dom->extent);
    bindings.push_back(ax);
  }
  Stmt nest = MakeLoopNest(loop_vars, loop_extents, BlockRealize(bindings, realize->predicate, nb));
  const Object* outer = loops.empty() ? static_cast<const Object*>(realize)
                                      : static_cast<const Object*>(loops.front());
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{outer, nest}}));
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("TransformLayout", "transform_layout", {"block"},
                               {"buffer_index_type", "buffer_index", "index_map", "pad_value"},
                               TransformLayout);
  k.defaults = {{"pad_value", Any()}};
  k.print_args = [](const std::vector<std::string>& in, const Array<Any>& attrs) {
    std::string kind = attrs[0].cast<int64_t>() == 1 ? "\"write\"" : "\"read\"";
    return "block=" + in[0] + ", buffer=(" + kind + ", " + PythonLiteral(attrs[1]) +
           "), index_map=" + PythonLiteral(attrs[2]) + ", pad_value=" + PythonLiteral(attrs[3]);
  };
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("TransformBlockLayout", "transform_block_layout", {"block"},
                               {"index_map"}, TransformBlockLayout);
  k.print_args = [](const std::vector<std::string>& in, const Array<Any>& attrs) {
    return "block=" + in[0] + ", index_map=" + PythonLiteral(attrs[0]);
  };
  return k;
}());

}  // namespace tir
}  // namespace minitvm
