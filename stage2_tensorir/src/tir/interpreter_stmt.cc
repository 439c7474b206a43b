/*!
 * \file interpreter_stmt.cc
 * \brief The TIR interpreter's statements (stage 2): the compiler's bookkeeping of variables,
 * handles and buffers, and the compiled node classes for loops, blocks, allocations and
 * control flow.
 */
#include <cstring>
#include <sstream>

#include "interpreter_impl.h"
#include "minitvm/tir/allocate_const.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {
namespace interp {

// ---- the compiler's bookkeeping ------------------------------------------------------------

void Compiler::Error(const std::string& message) const {
  MINITVM_THROW(ValueError) << name_ << ": " << message;
}

int Compiler::DefineVar(const Var& v, int lanes) {
  int slot = num_slots_;
  num_slots_ += std::max(lanes, 1);
  var_slot_[v.get()] = slot;
  return slot;
}

int Compiler::SlotOf(const VarNode* v) const {
  auto it = var_slot_.find(v);
  if (it == var_slot_.end()) {
    Error("variable " + v->name_hint.str() +
          " is used but not defined (it is not a parameter, a buffer shape variable, a loop "
          "variable, a block iterator or a let-bound variable in scope)");
  }
  return it->second;
}

int Compiler::HandleOfVar(const VarNode* v) const {
  auto it = handle_of_.find(v);
  return it == handle_of_.end() ? -1 : it->second;
}

void Compiler::AliasHandle(const Var& v, int handle) { handle_of_[v.get()] = handle; }

int Compiler::DefineHandle(const Var& v) {
  int h = num_handles_++;
  handle_of_[v.get()] = h;
  return h;
}

BufferDef* Compiler::DefineBufferHere(const Buffer& b, int handle, bool local) {
  if (b->shape.size() > static_cast<size_t>(kMaxDims)) {
    Error("buffer " + b->name.str() + " has " + std::to_string(b->shape.size()) +
          " dimensions; the interpreter supports at most " + std::to_string(kMaxDims));
  }
  if (b->dtype.lanes() != 1) {
    Error("buffer " + b->name.str() + " has the vector dtype " + DataTypeToString(b->dtype) +
          "; the interpreter supports buffers of scalar elements");
  }
  auto def = std::make_unique<BufferDef>();
  def->buffer = b;
  def->index = static_cast<int>(buffer_defs_.size());
  def->handle = handle;
  def->local = local;
  for (const PrimExpr& d : b->shape) def->shape.push_back(Expr(d));
  for (const PrimExpr& s : b->strides) def->strides.push_back(Expr(s));
  def->elem_offset = Expr(b->elem_offset.defined() ? b->elem_offset : PrimExpr(0));
  buffer_index_[b.get()] = def->index;
  buffer_defs_.push_back(std::move(def));
  return buffer_defs_.back().get();
}

int Compiler::BufferIndexOf(const Buffer& b) {
  auto it = buffer_index_.find(b.get());
  if (it != buffer_index_.end()) return it->second;
  auto h = handle_of_.find(b->data.get());
  if (h == handle_of_.end()) {
    Error("buffer " + b->name.str() +
          " is used but not defined: it is not a parameter's buffer, not allocated by an "
          "enclosing block (alloc_buffers / match_buffer) and its data variable " +
          b->data->name_hint.str() + " is not allocated");
  }
  BufferDef* def = DefineBufferHere(b, h->second, false);
  def->implicit = true;
  implicit_[h->second].push_back(def);
  return def->index;
}

std::vector<const BufferDef*> Compiler::TakeImplicit(int handle) {
  auto it = implicit_.find(handle);
  if (it == implicit_.end()) return {};
  std::vector<const BufferDef*> out = std::move(it->second);
  implicit_.erase(it);
  return out;
}

void Compiler::PushScopeVar(const std::string& name, int slot) {
  scope_vars_.emplace_back(name, slot);
  cached_scope_.reset();
}
void Compiler::PopScopeVar() {
  scope_vars_.pop_back();
  cached_scope_.reset();
}
void Compiler::PushBlock(const std::string& name) {
  blocks_.push_back(name);
  cached_scope_.reset();
}
void Compiler::PopBlock() {
  blocks_.pop_back();
  cached_scope_.reset();
}
ScopePtr Compiler::CurrentScope() {
  if (!cached_scope_) {
    auto s = std::make_shared<Scope>();
    s->vars = scope_vars_;
    s->block = blocks_.empty() ? "" : blocks_.back();
    cached_scope_ = s;
  }
  return cached_scope_;
}

EPtr Compiler::Expr(const PrimExpr& e) { return CompileExpr(this, e); }
SPtr Compiler::Stmt(const tir::Stmt& s) { return CompileStmt(this, s); }

void DefineBuffer(Ctx& c, const BufferDef& def) {
  BufState& b = c.bufs[def.index];
  const HandleState& h = c.handles[def.handle];
  const int ndim = static_cast<int>(def.shape.size());
  b.data = h.data;
  b.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    b.shape[d] = def.shape[d]->I(c, 0);
    if (b.shape[d] < 0 && def.implicit) b.shape[d] = 0;
    if (b.shape[d] < 0) {
      Fail(c, "ValueError",
           "buffer " + def.buffer->name.str() + " has a negative extent " +
               std::to_string(b.shape[d]) + " in dimension " + std::to_string(d));
    }
  }
  if (def.strides.empty()) {
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; --d) {
      b.strides[d] = s;
      s *= b.shape[d];
    }
  } else {
    for (int d = 0; d < ndim; ++d) b.strides[d] = def.strides[d]->I(c, 0);
  }
  b.elem_offset = def.elem_offset->I(c, 0);
  int elem = def.buffer->dtype.bytes();
  b.mem_lo = 0;
  b.mem_hi = elem > 0 ? h.bytes / elem : 0;
  b.written = (h.shadow && h.shadow_elem_bytes == elem) ? h.shadow : nullptr;
}

namespace {

int64_t ConstOr(const PrimExpr& e, int64_t fallback) {
  auto v = AsConstInt(e);
  return v ? *v : fallback;
}

/*! \brief The element count of an allocation: the extents multiplied, checking overflow. */
int64_t ElementCount(Ctx& c, const std::vector<EPtr>& extents, const std::string& what) {
  int64_t count = 1;
  for (const EPtr& e : extents) {
    int64_t d = e->I(c, 0);
    if (d < 0) Fail(c, "ValueError", what + ": negative extent " + std::to_string(d));
    if (__builtin_mul_overflow(count, d, &count)) {
      Fail(c, "ValueError", what + ": the element count overflows int64");
    }
  }
  return count;
}

/*! \brief Owns the memory of the allocations of one statement execution. */
struct LocalMemory {
  std::vector<std::unique_ptr<char[]>> blocks;
  std::vector<std::unique_ptr<uint8_t[]>> shadows;
  /*! \brief Allocate `count` zeroed elements of `elem` bytes for handle `h`. */
  void Allocate(Ctx& c, int h, int64_t count, int elem, bool shadow, const std::string& what) {
    constexpr int64_t kMaxBytes = int64_t(1) << 34;  // 16 GiB: anything larger is a mistake
    if (count < 0) Fail(c, "ValueError", what + ": negative allocation size");
    if (elem > 0 && count > kMaxBytes / elem) {
      Fail(c, "ValueError",
           what + ": allocation of " + std::to_string(count) +
               " elements is too large for the interpreter");
    }
    int64_t bytes = count * elem;
    blocks.emplace_back(new char[std::max<int64_t>(bytes, 1)]());
    HandleState& hs = c.handles[h];
    hs.data = blocks.back().get();
    hs.bytes = bytes;
    hs.shadow = nullptr;
    if (shadow) {
      shadows.emplace_back(new uint8_t[std::max<int64_t>(count, 1)]());
      hs.shadow = shadows.back().get();
      hs.shadow_elem_bytes = elem;
    }
  }
};

// ---- statement nodes -----------------------------------------------------------------------

struct SeqNode final : SNode {
  std::vector<SPtr> seq;
  void Exec(Ctx& c) const override {
    for (const SPtr& s : seq) s->Exec(c);
  }
};

struct NopNode final : SNode {
  void Exec(Ctx&) const override {}
};

struct ForNodeS final : SNode {
  int slot;
  EPtr min, extent;
  int64_t cmin = 0, cextent = 0;
  bool const_range = false;
  SPtr body;
  void Exec(Ctx& c) const override {
    int64_t lo = const_range ? cmin : min->I(c, 0);
    int64_t n = const_range ? cextent : extent->I(c, 0);
    Value* cell = &c.slots[slot];
    const SNode* b = body.get();
    for (int64_t i = 0; i < n; ++i) {
      cell->i = lo + i;
      b->Exec(c);
    }
  }
};

struct WhileNodeS final : SNode {
  EPtr cond;
  SPtr body;
  void Exec(Ctx& c) const override {
    while (cond->I(c, 0)) body->Exec(c);
  }
};

struct IfNode final : SNode {
  EPtr cond;
  SPtr then_case, else_case;
  void Exec(Ctx& c) const override {
    if (cond->I(c, 0)) {
      then_case->Exec(c);
    } else if (else_case) {
      else_case->Exec(c);
    }
  }
};

struct EvaluateNodeS final : SNode {
  EPtr value;
  void Exec(Ctx& c) const override {
    if (IsFloatType(value->dtype)) {
      (void)value->F(c, 0);
    } else {
      (void)value->I(c, 0);
    }
  }
};

struct LetStmtNodeS final : SNode {
  int slot, lanes;
  EPtr value;
  SPtr body;
  void Exec(Ctx& c) const override {
    bool fl = IsFloatType(value->dtype);
    for (int l = 0; l < lanes; ++l) {
      if (fl) {
        c.slots[slot + l].f = value->F(c, l);
      } else {
        c.slots[slot + l].i = value->I(c, l);
      }
    }
    body->Exec(c);
  }
};

struct AssertNode final : SNode {
  EPtr cond;
  std::string message;
  ScopePtr scope;
  SPtr body;
  void Exec(Ctx& c) const override {
    if (!cond->I(c, 0)) {
      std::string where = DescribeScope(*scope, c);
      Fail(c, "RuntimeError",
           "assertion failed: " + message + (where.empty() ? "" : " (" + where + ")"));
    }
    body->Exec(c);
  }
};

struct AllocateNodeS final : SNode {
  int handle;
  int elem;
  std::string name;
  std::vector<EPtr> extents;
  std::vector<const BufferDef*> buffers;
  bool shadow;
  SPtr body;
  /*! \brief T.allocate_const: the initial bytes of the memory (empty otherwise). */
  std::vector<char> image;
  void Exec(Ctx& c) const override {
    int64_t count = ElementCount(c, extents, "allocation of " + name);
    LocalMemory mem;
    HandleState saved = c.handles[handle];
    mem.Allocate(c, handle, count, elem, shadow, "allocation of " + name);
    if (!image.empty()) {
      HandleState& hs = c.handles[handle];
      std::memcpy(hs.data, image.data(), std::min<size_t>(image.size(), hs.bytes));
      if (hs.shadow != nullptr) std::memset(hs.shadow, 1, count);
    }
    for (const BufferDef* d : buffers) DefineBuffer(c, *d);
    body->Exec(c);
    c.handles[handle] = saved;
  }
};

struct DeclBufferNodeS final : SNode {
  const BufferDef* def;
  SPtr body;
  void Exec(Ctx& c) const override {
    DefineBuffer(c, *def);
    body->Exec(c);
  }
};

struct ThreadExtentNode final : SNode {
  int slot;
  EPtr extent;
  SPtr body;
  void Exec(Ctx& c) const override {
    int64_t n = extent->I(c, 0);
    for (int64_t i = 0; i < n; ++i) {
      c.slots[slot].i = i;
      body->Exec(c);
    }
  }
};

/*! \brief A match_buffer: a view of a region of another buffer, set up at block entry. */
struct MatchDef {
  int src = -1, dst = -1;
  std::string name, src_name;
  std::vector<EPtr> mins, extents;
  /*! \brief Per matched-buffer dimension: slot to bind to the extent, or -1 (then check). */
  std::vector<int> shape_slots;
  std::vector<EPtr> shape_exprs;
  std::vector<int> stride_slots;
  std::vector<EPtr> stride_exprs;  ///< empty: use the source's strides
  int offset_slot = -1;
};

struct BlockIter {
  int slot;
  int value_slot = -1;  ///< the value is this plain variable's slot
  EPtr value, min, extent;
  int64_t cmin = 0, cextent = 0;
  bool const_dom = false;
  bool reduce = false;
  std::string name;
};

struct BlockRealizeNodeS final : SNode {
  std::string name;
  std::vector<BlockIter> iters;
  EPtr predicate;  ///< null when always true
  std::vector<const BufferDef*> allocs;
  std::vector<const BufferDef*> aliases;  ///< other buffers over the allocations' memory
  std::vector<MatchDef> matches;
  SPtr init, body;
  ScopePtr scope;
  bool shadow = false;

  void Exec(Ctx& c) const override {
    for (const BlockIter& it : iters) {
      c.slots[it.slot].i = it.value_slot >= 0 ? c.slots[it.value_slot].i : it.value->I(c, 0);
    }
    if (predicate && !predicate->I(c, 0)) return;
    bool at_init = init != nullptr;
    for (const BlockIter& it : iters) {
      int64_t v = c.slots[it.slot].i;
      int64_t lo = it.const_dom ? it.cmin : it.min->I(c, 0);
      int64_t n = it.const_dom ? it.cextent : it.extent->I(c, 0);
      if (v < lo || v >= lo + n) OutOfDomain(c, it, v, lo, n);
      if (it.reduce && v != lo) at_init = false;
    }
    if (allocs.empty() && matches.empty()) {
      if (at_init) init->Exec(c);
      body->Exec(c);
      return;
    }
    LocalMemory mem;
    std::vector<HandleState> saved;
    for (const BufferDef* d : allocs) {
      saved.push_back(c.handles[d->handle]);
      std::string what = "block " + name + ": alloc_buffer " + d->buffer->name.str();
      int64_t count = ElementCount(c, d->shape, what);
      mem.Allocate(c, d->handle, count, d->buffer->dtype.bytes(), shadow, what);
      DefineBuffer(c, *d);
    }
    for (const BufferDef* d : aliases) DefineBuffer(c, *d);
    for (const MatchDef& m : matches) Match(c, m);
    if (at_init) init->Exec(c);
    body->Exec(c);
    for (size_t i = 0; i < allocs.size(); ++i) c.handles[allocs[i]->handle] = saved[i];
  }

  [[noreturn]] void OutOfDomain(Ctx& c, const BlockIter& it, int64_t v, int64_t lo,
                                int64_t n) const {
    std::string where = DescribeScope(*scope, c);
    Fail(c, "ValueError",
         "block " + name + ": iterator " + it.name + " = " + std::to_string(v) +
             " is outside its domain [" + std::to_string(lo) + ", " + std::to_string(lo + n) + ")" +
             (where.empty() ? "" : " (" + where + ")"));
  }

  void Match(Ctx& c, const MatchDef& m) const {
    const BufState& s = c.bufs[m.src];
    const int rank = static_cast<int>(m.mins.size());
    const int drank = static_cast<int>(m.shape_exprs.size());
    int64_t offset = s.elem_offset;
    std::vector<int64_t> ext(rank);
    for (int d = 0; d < rank; ++d) {
      int64_t lo = m.mins[d]->I(c, 0);
      ext[d] = m.extents[d]->I(c, 0);
      if (lo < 0 || ext[d] < 0 || lo + ext[d] > s.shape[d]) {
        Fail(c, "IndexError",
             "block " + name + ": match_buffer " + m.name + ": region [" + std::to_string(lo) +
                 ", " + std::to_string(lo + ext[d]) + ") of dimension " + std::to_string(d) +
                 " of buffer " + m.src_name + " is outside its shape");
      }
      offset += lo * s.strides[d];
    }
    if (drank > rank) {
      Fail(c, "ValueError",
           "block " + name + ": match_buffer " + m.name + " has rank " + std::to_string(drank) +
               " but its source region has rank " + std::to_string(rank));
    }
    // A lower-rank view drops leading region dimensions, which must have extent 1.
    int skip = rank - drank;
    for (int d = 0; d < skip; ++d) {
      if (ext[d] != 1) {
        Fail(c, "ValueError",
             "block " + name + ": match_buffer " + m.name + " of rank " + std::to_string(drank) +
                 " cannot view a region whose dimension " + std::to_string(d) + " has extent " +
                 std::to_string(ext[d]));
      }
    }
    BufState& b = c.bufs[m.dst];
    b.data = s.data;
    b.ndim = drank;
    b.mem_lo = s.mem_lo;
    b.mem_hi = s.mem_hi;
    b.written = s.written;
    for (int d = 0; d < drank; ++d) {
      int64_t want = ext[skip + d];
      if (m.shape_slots[d] >= 0) c.slots[m.shape_slots[d]].i = want;
      int64_t have = m.shape_exprs[d]->I(c, 0);
      if (have != want) {
        Fail(c, "ValueError",
             "block " + name + ": match_buffer " + m.name + " declares extent " +
                 std::to_string(have) + " in dimension " + std::to_string(d) +
                 " but its source region has extent " + std::to_string(want));
      }
      b.shape[d] = want;
      if (m.stride_slots.empty() || m.stride_exprs.empty()) {
        b.strides[d] = s.strides[skip + d];
      } else {
        if (m.stride_slots[d] >= 0) c.slots[m.stride_slots[d]].i = s.strides[skip + d];
        b.strides[d] = m.stride_exprs[d]->I(c, 0);
      }
    }
    if (m.offset_slot >= 0) c.slots[m.offset_slot].i = offset;
    b.elem_offset = offset;
  }
};

// ---- compilation ---------------------------------------------------------------------------

class StmtCompiler : public StmtFunctor<SPtr(const Stmt&)> {
 public:
  explicit StmtCompiler(Compiler* cc) : cc_(cc) {}

  SPtr VisitStmt_(const BufferStoreNode* op) override { return CompileStore(cc_, op); }

  SPtr VisitStmt_(const ForNode* op) override {
    auto n = std::make_unique<ForNodeS>();
    n->min = cc_->Expr(op->min);
    n->extent = cc_->Expr(op->extent);
    auto cmin = AsConstInt(op->min), cext = AsConstInt(op->extent);
    if (cmin && cext) {
      n->const_range = true;
      n->cmin = *cmin;
      n->cextent = *cext;
    }
    n->slot = cc_->DefineVar(op->loop_var);
    cc_->PushScopeVar(op->loop_var->name_hint.str(), n->slot);
    n->body = cc_->Stmt(op->body);
    cc_->PopScopeVar();
    return n;
  }

  SPtr VisitStmt_(const WhileNode* op) override {
    auto n = std::make_unique<WhileNodeS>();
    n->cond = cc_->Expr(op->condition);
    n->body = cc_->Stmt(op->body);
    return n;
  }

  SPtr VisitStmt_(const IfThenElseNode* op) override {
    auto n = std::make_unique<IfNode>();
    n->cond = cc_->Expr(op->condition);
    n->then_case = cc_->Stmt(op->then_case);
    if (op->else_case.defined()) n->else_case = cc_->Stmt(op->else_case);
    return n;
  }

  SPtr VisitStmt_(const SeqStmtNode* op) override {
    auto n = std::make_unique<SeqNode>();
    for (const Stmt& s : op->seq) n->seq.push_back(cc_->Stmt(s));
    return n;
  }

  SPtr VisitStmt_(const EvaluateNode* op) override {
    if (AsConstInt(op->value)) return std::make_unique<NopNode>();
    auto n = std::make_unique<EvaluateNodeS>();
    n->value = cc_->Expr(op->value);
    return n;
  }

  SPtr VisitStmt_(const LetStmtNode* op) override {
    auto n = std::make_unique<LetStmtNodeS>();
    n->value = cc_->Expr(op->value);
    n->lanes = op->var.dtype().lanes();
    n->slot = cc_->DefineVar(op->var, n->lanes);
    n->body = cc_->Stmt(op->body);
    return n;
  }

  SPtr VisitStmt_(const AssertStmtNode* op) override {
    auto n = std::make_unique<AssertNode>();
    n->cond = cc_->Expr(op->condition);
    if (auto* s = op->message.as<StringImmNode>()) {
      n->message = s->value.str();
    } else {
      n->message = "(no message)";
    }
    n->scope = cc_->CurrentScope();
    n->body = cc_->Stmt(op->body);
    return n;
  }

  SPtr VisitStmt_(const AllocateNode* op) override {
    auto n = std::make_unique<AllocateNodeS>();
    for (const PrimExpr& e : op->extents) n->extents.push_back(cc_->Expr(e));
    n->elem = op->dtype.bytes();
    n->name = op->buffer_var->name_hint.str();
    n->handle = cc_->DefineHandle(op->buffer_var);
    n->shadow = cc_->options().check_uninitialized;
    n->body = cc_->Stmt(op->body);
    n->buffers = cc_->TakeImplicit(n->handle);
    if (AllocateConstData(op).size()) n->image = ConstImage(op);
    return n;
  }

  /*! \brief The bytes of a T.allocate_const's values in the memory layout of its dtype. */
  static std::vector<char> ConstImage(const AllocateNode* op) {
    DataType t = op->dtype;
    Array<PrimExpr> data = AllocateConstData(op);
    std::vector<char> out(data.size() * t.bytes());
    auto put = [&](size_t i, auto v) { std::memcpy(out.data() + i * sizeof(v), &v, sizeof(v)); };
    for (size_t i = 0; i < data.size(); ++i) {
      const PrimExpr& x = data[i];
      double f = x.as<FloatImmNode>() ? x.as<FloatImmNode>()->value : 0.0;
      int64_t v = x.as<IntImmNode>() ? x.as<IntImmNode>()->value : 0;
      if (t.is_float() && t.bits() == 32) {
        put(i, static_cast<float>(f));
      } else if (t.is_float() && t.bits() == 64) {
        put(i, f);
      } else if ((t.is_int() || t.is_uint() || t.is_bool()) && t.lanes() == 1) {
        switch (t.bytes()) {
          case 1:
            put(i, static_cast<int8_t>(v));
            break;
          case 2:
            put(i, static_cast<int16_t>(v));
            break;
          case 4:
            put(i, static_cast<int32_t>(v));
            break;
          default:
            put(i, v);
            break;
        }
      } else {
        MINITVM_THROW(ValueError) << "allocate_const " << op->buffer_var->name_hint
                                  << ": the interpreter does not support constants of dtype " << t;
      }
    }
    return out;
  }

  SPtr VisitStmt_(const DeclBufferNode* op) override {
    auto n = std::make_unique<DeclBufferNodeS>();
    int handle = HandleOf(op->buffer);
    n->def = cc_->DefineBufferHere(op->buffer, handle, false);
    n->body = cc_->Stmt(op->body);
    return n;
  }

  SPtr VisitStmt_(const AttrStmtNode* op) override {
    if ((op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") &&
        op->node.as<IterVarNode>()) {
      const IterVar iv = Downcast<IterVar>(op->node);
      auto n = std::make_unique<ThreadExtentNode>();
      n->extent = cc_->Expr(op->value);
      n->slot = cc_->DefineVar(iv->var);
      cc_->PushScopeVar(iv->var->name_hint.str(), n->slot);
      n->body = cc_->Stmt(op->body);
      cc_->PopScopeVar();
      return n;
    }
    return cc_->Stmt(op->body);
  }

  SPtr VisitStmt_(const BlockNode* op) override {
    if (!op->iter_vars.empty()) {
      cc_->Error("block " + op->name_hint.str() +
                 " has iterators but appears without a BlockRealize binding them");
    }
    return CompileBlock({}, PrimExpr(), GetRef<Block>(op));
  }

  SPtr VisitStmt_(const BlockRealizeNode* op) override {
    return CompileBlock(op->iter_values, op->predicate, op->block);
  }

 private:
  int HandleOf(const Buffer& b) {
    int h = cc_->HandleOfVar(b->data.get());
    if (h < 0) {
      cc_->Error("decl_buffer " + b->name.str() + ": its data variable " +
                 b->data->name_hint.str() + " is not allocated");
    }
    return h;
  }

  SPtr CompileBlock(const Array<PrimExpr>& values, const PrimExpr& predicate, const Block& block) {
    auto n = std::make_unique<BlockRealizeNodeS>();
    n->name = block->name_hint.str();
    n->shadow = cc_->options().check_uninitialized;
    // Values, predicate and domains are evaluated outside the block's own iterators.
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const IterVar& iv = block->iter_vars[i];
      BlockIter it;
      it.value = cc_->Expr(values[i]);
      if (auto* v = values[i].as<VarNode>()) it.value_slot = cc_->SlotOf(v);
      it.min = cc_->Expr(iv->dom->min);
      it.extent = cc_->Expr(iv->dom->extent);
      auto cmin = AsConstInt(iv->dom->min), cext = AsConstInt(iv->dom->extent);
      if (cmin && cext) {
        it.const_dom = true;
        it.cmin = *cmin;
        it.cextent = *cext;
      }
      it.reduce = iv->iter_type == kCommReduce;
      it.name = iv->var->name_hint.str();
      n->iters.push_back(std::move(it));
    }
    if (predicate.defined() && ConstOr(predicate, 0) != 1) n->predicate = cc_->Expr(predicate);
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const Var& v = block->iter_vars[i]->var;
      n->iters[i].slot = cc_->DefineVar(v);
      cc_->PushScopeVar(v->name_hint.str(), n->iters[i].slot);
    }
    cc_->PushBlock(n->name);
    n->scope = cc_->CurrentScope();
    for (const Buffer& b : block->alloc_buffers) {
      int h = cc_->DefineHandle(b->data);
      n->allocs.push_back(cc_->DefineBufferHere(b, h, true));
    }
    for (const MatchBufferRegion& m : block->match_buffers) n->matches.push_back(CompileMatch(m));
    if (block->init.defined()) n->init = cc_->Stmt(block->init);
    n->body = cc_->Stmt(block->body);
    // Buffers aliasing a block allocation's data variable are defined with it.
    for (const BufferDef* d : n->allocs) {
      for (const BufferDef* alias : cc_->TakeImplicit(d->handle)) n->aliases.push_back(alias);
    }
    cc_->PopBlock();
    for (size_t i = 0; i < block->iter_vars.size(); ++i) cc_->PopScopeVar();
    return n;
  }

  MatchDef CompileMatch(const MatchBufferRegion& m) {
    MatchDef d;
    const Buffer& src = m->source->buffer;
    const Buffer& dst = m->buffer;
    d.name = dst->name.str();
    d.src_name = src->name.str();
    d.src = cc_->BufferIndexOf(src);
    for (const Range& r : m->source->region) {
      d.mins.push_back(cc_->Expr(r->min));
      d.extents.push_back(cc_->Expr(r->extent));
    }
    // Variables in the matched buffer's shape, strides and offset are bound from the region.
    auto bind_slot = [&](const PrimExpr& e) -> int {
      if (auto* v = e.as<VarNode>()) {
        if (!cc_->IsDefined(v)) return cc_->DefineVar(GetRef<Var>(v));
      }
      return -1;
    };
    for (const PrimExpr& s : dst->shape) d.shape_slots.push_back(bind_slot(s));
    for (const PrimExpr& s : dst->strides) d.stride_slots.push_back(bind_slot(s));
    if (dst->elem_offset.defined()) d.offset_slot = bind_slot(dst->elem_offset);
    for (const PrimExpr& s : dst->shape) d.shape_exprs.push_back(cc_->Expr(s));
    for (const PrimExpr& s : dst->strides) d.stride_exprs.push_back(cc_->Expr(s));
    if (dst->shape.size() > static_cast<size_t>(kMaxDims)) {
      cc_->Error("match_buffer " + d.name + " has too many dimensions");
    }
    // The view shares its source's storage; register it as a buffer with its own state.
    BufferDef* def = cc_->DefineBufferHere(dst, cc_->buffer_defs()[d.src]->handle, false);
    d.dst = def->index;
    return d;
  }

  Compiler* cc_;
};

}  // namespace

SPtr CompileStmt(Compiler* cc, const tir::Stmt& s) {
  if (!s.defined()) cc->Error("undefined statement");
  StmtCompiler compiler(cc);
  return compiler.VisitStmt(s);
}

}  // namespace interp
}  // namespace tir
}  // namespace minitvm
