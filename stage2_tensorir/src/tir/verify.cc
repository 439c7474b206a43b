/*!
 * \file verify.cc
 * \brief VerifyWellFormed (stage 2): one walk over a PrimFunc that keeps the variables and
 * buffers in scope and the stack of enclosing blocks, and reports the first broken rule.
 */
#include "minitvm/tir/verify.h"

#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {
namespace {

/*! \brief Thrown at the first problem; carries the message. */
struct NotWellFormed {
  std::string message;
};

class WellFormedChecker : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;

  void CheckFunc(const PrimFunc& func) {
    for (const Var& p : func->params) Define(p, Kind::kParam, "parameter");
    for (const auto& kv : func->buffer_map.items()) {
      if (!defined_.count(kv.first.get())) {
        Fail() << "buffer_map key " << kv.first->name_hint << " is not a parameter";
      }
      DeclareBuffer(kv.second, Kind::kParam, /*define_shape_vars=*/true);
    }
    if (func->body.defined()) VisitStmt(func->body);
  }

  // ---- expressions -----------------------------------------------------------------------
  void VisitExpr_(const VarNode* op) override { CheckUse(op); }
  void VisitExpr_(const SizeVarNode* op) override { CheckUse(op); }
  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    Define(op->var, Kind::kLet, "let variable");
    VisitExpr(op->body);
    Undefine(op->var);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    CheckBuffer(op->buffer, "loaded");
    CheckRank(op->buffer, op->indices.size(), "load from");
    for (const PrimExpr& i : op->indices) VisitExpr(i);
  }

  // ---- statements ------------------------------------------------------------------------
  void VisitStmt_(const BufferStoreNode* op) override {
    CheckBuffer(op->buffer, "stored to");
    CheckRank(op->buffer, op->indices.size(), "store to");
    DataType value_t = op->value.dtype(), buf_t = op->buffer->dtype;
    bool vector_index = false;
    for (const PrimExpr& i : op->indices) vector_index = vector_index || i.dtype().lanes() > 1;
    if (value_t.code() != buf_t.code() || value_t.bits() != buf_t.bits() ||
        (!vector_index && value_t.lanes() != buf_t.lanes())) {
      Fail() << "store to buffer " << op->buffer->name << " (" << buf_t << ") has a value of type "
             << value_t << InBlock();
    }
    VisitExpr(op->value);
    for (const PrimExpr& i : op->indices) VisitExpr(i);
  }
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    Define(op->loop_var, Kind::kLoop, "loop variable");
    VisitStmt(op->body);
    Undefine(op->loop_var);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    Define(op->var, Kind::kLet, "let variable");
    VisitStmt(op->body);
    Undefine(op->var);
  }
  void VisitStmt_(const AllocateNode* op) override {
    for (const PrimExpr& e : op->extents) VisitExpr(e);
    if (op->condition.defined()) VisitExpr(op->condition);
    Define(op->buffer_var, Kind::kAlloc, "allocation");
    VisitStmt(op->body);
    Undefine(op->buffer_var);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    std::vector<Var> defined = DeclareBuffer(op->buffer, Kind::kAlloc, false);
    VisitStmt(op->body);
    UndeclareBuffer(op->buffer, defined);
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    VisitExpr(op->value);
    // A thread_extent attribute defines its thread axis variable for the body.
    const IterVarNode* iv = op->node.as<IterVarNode>();
    bool define = iv && !defined_.count(iv->var.get());
    if (define) Define(iv->var, Kind::kLoop, "thread axis");
    VisitStmt(op->body);
    if (define) Undefine(iv->var);
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    const Block& block = op->block;
    if (op->iter_values.size() != block->iter_vars.size()) {
      Fail() << "block " << block->name_hint << " has " << block->iter_vars.size()
             << " iterators but its BlockRealize gives " << op->iter_values.size() << " values";
    }
    // iter_values and the predicate are evaluated outside the block: loop variables are fine.
    for (const PrimExpr& v : op->iter_values) VisitExpr(v);
    if (op->predicate.defined()) VisitExpr(op->predicate);
    VisitStmt(op->block);
  }
  void VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) {
      VisitExpr(iv->dom->min);
      VisitExpr(iv->dom->extent);
    }
    blocks_.push_back(op->name_hint);
    // Opaque blocks (no iterators) may use outer loop variables, as in TVM.
    bool opaque = op->iter_vars.empty();
    if (!opaque) scoped_blocks_.push_back(op->name_hint);
    for (const IterVar& iv : op->iter_vars) Define(iv->var, Kind::kBlockIter, "block iterator");
    std::vector<std::pair<Buffer, std::vector<Var>>> declared;
    for (const Buffer& b : op->alloc_buffers) {
      declared.emplace_back(b, DeclareBuffer(b, Kind::kAlloc, false));
    }
    for (const MatchBufferRegion& m : op->match_buffers) {
      VisitBufferRegion(m->source);
      declared.emplace_back(m->buffer, DeclareBuffer(m->buffer, Kind::kAlloc, true));
    }
    for (const BufferRegion& r : op->reads) VisitBufferRegion(r);
    for (const BufferRegion& r : op->writes) VisitBufferRegion(r);
    if (op->init.defined()) VisitStmt(op->init);
    VisitStmt(op->body);
    for (auto it = declared.rbegin(); it != declared.rend(); ++it) {
      UndeclareBuffer(it->first, it->second);
    }
    for (const IterVar& iv : op->iter_vars) Undefine(iv->var);
    if (!opaque) scoped_blocks_.pop_back();
    blocks_.pop_back();
  }
  void VisitBufferRegion(const BufferRegion& region) override {
    CheckBuffer(region->buffer, "named in a region");
    CheckRank(region->buffer, region->region.size(), "region of");
    StmtVisitor::VisitBufferRegion(region);
  }

 private:
  enum class Kind { kParam, kLoop, kLet, kBlockIter, kAlloc };
  struct Def {
    Kind kind;
    size_t block_depth;  ///< number of enclosing blocks with iterators where it was defined
    const char* what;
  };

  /*! \brief Start an error message; the NotWellFormed is thrown when the statement ends. */
  class FailStream {
   public:
    FailStream() = default;
    FailStream(const FailStream&) = delete;
    template <typename T>
    FailStream& operator<<(const T& v) {
      os_ << v;
      return *this;
    }
    ~FailStream() noexcept(false) { throw NotWellFormed{os_.str()}; }

   private:
    std::ostringstream os_;
  };
  FailStream Fail() { return FailStream(); }

  std::string InBlock() const {
    return blocks_.empty() ? std::string() : " (in block " + blocks_.back().str() + ")";
  }

  void Define(const Var& v, Kind kind, const char* what) {
    auto it = defined_.find(v.get());
    if (it != defined_.end()) {
      Fail() << what << " " << v->name_hint << " is defined again while its " << it->second.what
             << " definition is still in scope" << InBlock();
    }
    defined_[v.get()] = Def{kind, scoped_blocks_.size(), what};
  }
  void Undefine(const Var& v) { defined_.erase(v.get()); }

  void CheckUse(const VarNode* v) {
    auto it = defined_.find(v);
    if (it == defined_.end()) {
      Fail() << "variable " << v->name_hint << " is used but not defined: it is not a "
             << "parameter, a buffer shape variable, or a loop, let or block variable in scope"
             << InBlock();
    }
    const Def& d = it->second;
    if (d.kind == Kind::kLoop && d.block_depth < scoped_blocks_.size()) {
      Fail() << "block " << scoped_blocks_.back() << " uses the " << d.what << " " << v->name_hint
             << " of an enclosing scope; inside a block only its own iterators may be used "
             << "(pass " << v->name_hint << " in through the block's iter_values)";
    }
  }

  /*! \brief Declare a buffer in scope; returns the variables this declaration defined. */
  std::vector<Var> DeclareBuffer(const Buffer& b, Kind kind, bool define_shape_vars) {
    std::vector<Var> defined;
    if (!defined_.count(b->data.get())) {
      defined_[b->data.get()] = Def{kind, scoped_blocks_.size(), "buffer data variable"};
      defined.push_back(b->data);
    }
    auto define_vars = [&](const PrimExpr& e) {
      if (!e.defined()) return;
      PostOrderVisit(e, [&](const ObjectRef& n) {
        if (auto* v = n.as<VarNode>()) {
          if (define_shape_vars && !defined_.count(v)) {
            defined_[v] = Def{Kind::kParam, scoped_blocks_.size(), "buffer shape variable"};
            defined.push_back(GetRef<Var>(v));
          }
        }
      });
      if (!define_shape_vars) VisitExpr(e);  // must already be defined
    };
    for (const PrimExpr& e : b->shape) define_vars(e);
    for (const PrimExpr& e : b->strides) define_vars(e);
    define_vars(b->elem_offset);
    buffers_.insert(b.get());
    return defined;
  }
  void UndeclareBuffer(const Buffer& b, const std::vector<Var>& defined) {
    buffers_.erase(b.get());
    for (const Var& v : defined) defined_.erase(v.get());
  }

  void CheckBuffer(const Buffer& b, const char* how) {
    if (buffers_.count(b.get())) return;
    if (defined_.count(b->data.get())) return;  // lowered code: a buffer over a live allocation
    Fail() << "buffer " << b->name << " is " << how << " but not declared: it is not in the "
           << "buffer_map, an alloc_buffers or match_buffers of an enclosing block, or a "
           << "DeclBuffer" << InBlock();
  }
  void CheckRank(const Buffer& b, size_t n, const char* what) {
    if (n != b->shape.size()) {
      Fail() << what << " buffer " << b->name << " has " << n << " indices but the buffer has rank "
             << b->shape.size() << InBlock();
    }
  }

  std::unordered_map<const VarNode*, Def> defined_;
  std::unordered_set<const BufferNode*> buffers_;
  std::vector<String> blocks_;         ///< enclosing blocks (for messages)
  std::vector<String> scoped_blocks_;  ///< enclosing blocks with iterators (scope rule)
};

}  // namespace

bool VerifyWellFormed(const PrimFunc& func, bool assert_mode) {
  if (!func.defined()) MINITVM_THROW(ValueError) << "VerifyWellFormed: undefined function";
  try {
    WellFormedChecker().CheckFunc(func);
  } catch (const NotWellFormed& e) {
    if (!assert_mode) return false;
    std::string name = func->GetAttr<std::string>("global_symbol").value_or("the PrimFunc");
    MINITVM_THROW(ValueError) << "VerifyWellFormed(" << name << "): " << e.message;
  }
  return true;
}

MINITVM_REGISTER_GLOBAL("tir.analysis.VerifyWellFormed")
    .set_body_typed([](PrimFunc func, bool assert_mode) {
      return VerifyWellFormed(func, assert_mode);
    });

}  // namespace tir
}  // namespace minitvm
