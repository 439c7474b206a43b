/*!
 * \file vectorize_loop.cc
 * \brief VectorizeLoop (stage 5): a loop of kind "vectorized" with a constant extent N becomes
 * straight-line vector IR over N lanes. The loop variable becomes `Ramp(min, 1, N)`; values
 * that do not depend on it stay scalar and are broadcast where they meet a vector, so
 * `C[i * 32 + ji]` turns into the contiguous access `C[Ramp(i * 32, 1, 32)]` and `A[i, k]`
 * into one scalar load and a `Broadcast`.
 *
 * When the body cannot be vectorized safely — a store whose address does not vary with the
 * lane (a loop-carried reduction), a branch on a per-lane condition, a guarded load, an
 * allocation or an opaque call — the loop is kept as a serial loop instead. The PassContext
 * option "tir.disable_vectorize" turns every vectorized loop into a serial one.
 */
#include <unordered_map>

#include "ir_utils.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

int Lanes(const PrimExpr& e) { return e.dtype().lanes(); }

/*! \brief Broadcast a scalar to `lanes`; vectors are returned unchanged. */
PrimExpr BroadcastTo(const PrimExpr& e, int lanes) {
  if (Lanes(e) == lanes || lanes == 1) return e;
  return Broadcast(e, lanes);
}

bool ContainsLoad(const PrimExpr& e) {
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) { found = found || n.as<BufferLoadNode>(); });
  return found;
}

/*! \brief Whether the intrinsic `name` applies lane-wise ("TVectorizable", tir/builtin.h). */
bool IsElementwiseCall(const std::string& name) {
  std::optional<Op> op = GetIntrinsic(name);
  return op && GetIntrinsicFlag(*op, tir::attr::kVectorizable);
}

/*! \brief Rewrites one loop body over `lanes` lanes; sets `failed` when it cannot. */
class Vectorizer : public StmtExprMutator {
 public:
  Vectorizer(Var var, PrimExpr min, int lanes) : var_(std::move(var)), lanes_(lanes) {
    ramp_ = Ramp(min, make_const(min.dtype(), 1), lanes);
  }
  bool failed = false;

  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (failed) return e;
    return ExprMutator::VisitExpr(e);
  }
  Stmt VisitStmt(const Stmt& s) override {
    if (failed) return s;
    return StmtMutator::VisitStmt(s);
  }

  PrimExpr VisitExpr_(const VarNode* op) override {
    if (op == var_.get()) return ramp_;
    auto it = let_map_.find(op);
    return it != let_map_.end() ? it->second : GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override { return GetRef<PrimExpr>(op); }

  // Index arithmetic keeps Ramps as Ramps, so addresses stay recognisably contiguous.
  PrimExpr VisitExpr_(const AddNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);
    auto* ra = a.as<RampNode>();
    auto* rb = b.as<RampNode>();
    if (ra && rb && ra->lanes == rb->lanes)
      return Ramp(ra->base + rb->base, ra->stride + rb->stride, ra->lanes);
    if (ra && Lanes(b) == 1) return Ramp(ra->base + b, ra->stride, ra->lanes);
    if (rb && Lanes(a) == 1) return Ramp(a + rb->base, rb->stride, rb->lanes);
    return Binary<Add>(a, b);
  }
  PrimExpr VisitExpr_(const SubNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);
    auto* ra = a.as<RampNode>();
    auto* rb = b.as<RampNode>();
    if (ra && rb && ra->lanes == rb->lanes)
      return Ramp(ra->base - rb->base, ra->stride - rb->stride, ra->lanes);
    if (ra && Lanes(b) == 1) return Ramp(ra->base - b, ra->stride, ra->lanes);
    if (rb && Lanes(a) == 1)
      return Ramp(a - rb->base, make_zero(rb->stride.dtype()) - rb->stride, rb->lanes);
    return Binary<Sub>(a, b);
  }
  PrimExpr VisitExpr_(const MulNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);
    auto* ra = a.as<RampNode>();
    auto* rb = b.as<RampNode>();
    if (ra && Lanes(b) == 1) return Ramp(ra->base * b, ra->stride * b, ra->lanes);
    if (rb && Lanes(a) == 1) return Ramp(a * rb->base, a * rb->stride, rb->lanes);
    return Binary<Mul>(a, b);
  }
#define MINITVM_VEC_BINARY(Name)                                           \
  PrimExpr VisitExpr_(const Name##Node* op) override {                     \
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);                   \
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op); \
    return Binary<Name>(a, b);                                             \
  }
  MINITVM_VEC_BINARY(Div)
  MINITVM_VEC_BINARY(Mod)
  MINITVM_VEC_BINARY(FloorDiv)
  MINITVM_VEC_BINARY(FloorMod)
  MINITVM_VEC_BINARY(Min)
  MINITVM_VEC_BINARY(Max)
  MINITVM_VEC_BINARY(EQ)
  MINITVM_VEC_BINARY(NE)
  MINITVM_VEC_BINARY(LT)
  MINITVM_VEC_BINARY(LE)
  MINITVM_VEC_BINARY(GT)
  MINITVM_VEC_BINARY(GE)
  MINITVM_VEC_BINARY(And)
  MINITVM_VEC_BINARY(Or)
#undef MINITVM_VEC_BINARY

  PrimExpr VisitExpr_(const NotNode* op) override {
    PrimExpr a = VisitExpr(op->a);
    return a.same_as(op->a) ? GetRef<PrimExpr>(op) : Not(a);
  }
  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition), t = VisitExpr(op->true_value),
             f = VisitExpr(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
      return GetRef<PrimExpr>(op);
    }
    int l = std::max({Lanes(c), Lanes(t), Lanes(f)});
    if (!CheckLanes({c, t, f}, l)) return GetRef<PrimExpr>(op);
    return Select(BroadcastTo(c, l), BroadcastTo(t, l), BroadcastTo(f, l));
  }
  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
    return Cast(op->dtype.with_lanes(Lanes(v)), v);
  }
  PrimExpr VisitExpr_(const RampNode* op) override { return Unchanged(op); }
  PrimExpr VisitExpr_(const BroadcastNode* op) override { return Unchanged(op); }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    Array<PrimExpr> indices;
    bool changed = false;
    int l = 1;
    for (const PrimExpr& i : op->indices) {
      PrimExpr x = VisitExpr(i);
      changed = changed || !x.same_as(i);
      l = std::max(l, Lanes(x));
      indices.push_back(x);
    }
    if (!changed) return GetRef<PrimExpr>(op);
    if (!CheckLanes(indices.to_vector(), l)) return GetRef<PrimExpr>(op);
    Array<PrimExpr> widened;
    for (const PrimExpr& x : indices) widened.push_back(indices.size() > 1 ? BroadcastTo(x, l) : x);
    return BufferLoad(op->buffer, widened);
  }
  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    if (Lanes(value) > 1) {
      Var v(op->var->name_hint, value.dtype());
      let_map_[op->var.get()] = v;
      PrimExpr body = VisitExpr(op->body);
      return Let(v, value, body);
    }
    PrimExpr body = VisitExpr(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<PrimExpr>(op);
    return Let(op->var, value, body);
  }
  PrimExpr VisitExpr_(const CallNode* op) override {
    std::vector<PrimExpr> args;
    bool changed = false;
    int l = 1;
    for (const PrimExpr& a : op->args) {
      PrimExpr x = VisitExpr(a);
      changed = changed || !x.same_as(a);
      l = std::max(l, Lanes(x));
      args.push_back(x);
    }
    if (!changed) return GetRef<PrimExpr>(op);
    const std::string& name = op->op.str();
    if (name == "tir.if_then_else") {
      // Both sides of a vector select are evaluated: a guarded load could fault.
      if (Lanes(args[0]) > 1 && (ContainsLoad(args[1]) || ContainsLoad(args[2]))) {
        return Fail(op);
      }
    } else if (!IsElementwiseCall(name)) {
      return Fail(op);
    }
    if (!CheckLanes(args, l)) return GetRef<PrimExpr>(op);
    Array<PrimExpr> widened;
    for (const PrimExpr& x : args) widened.push_back(BroadcastTo(x, l));
    return Call(op->dtype.with_lanes(l), op->op, widened);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    Array<PrimExpr> indices;
    int l = 1;
    for (const PrimExpr& i : op->indices) {
      PrimExpr x = VisitExpr(i);
      l = std::max(l, Lanes(x));
      indices.push_back(x);
    }
    if (failed) return GetRef<Stmt>(op);
    // Every lane must write its own element; otherwise this is a loop-carried update.
    if (l == 1) return FailStmt(op);
    if (Lanes(value) != 1 && Lanes(value) != l) return FailStmt(op);
    if (!CheckLanes(indices.to_vector(), l)) return GetRef<Stmt>(op);
    Array<PrimExpr> widened;
    for (const PrimExpr& x : indices) widened.push_back(indices.size() > 1 ? BroadcastTo(x, l) : x);
    return BufferStore(op->buffer, BroadcastTo(value, l), widened);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    PrimExpr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
    if (Lanes(min) > 1 || Lanes(extent) > 1) return FailStmt(op);
    Stmt body = VisitStmt(op->body);
    if (failed) return GetRef<Stmt>(op);
    For loop = GetRef<For>(op);
    ForNode* n = loop.CopyOnWrite();
    n->min = min, n->extent = extent, n->body = body;
    if (n->kind == ForKind::kVectorized || n->kind == ForKind::kParallel)
      n->kind = ForKind::kSerial;
    return loop;
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    PrimExpr c = VisitExpr(op->condition);
    if (Lanes(c) > 1) return FailStmt(op);
    Stmt t = VisitStmt(op->then_case);
    Stmt e = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
    if (failed) return GetRef<Stmt>(op);
    return IfThenElse(c, t, e);
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    if (Lanes(value) > 1) {
      Var v(op->var->name_hint, value.dtype());
      let_map_[op->var.get()] = v;
      return LetStmt(v, value, VisitStmt(op->body));
    }
    Stmt body = VisitStmt(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<Stmt>(op);
    return LetStmt(op->var, value, body);
  }
  Stmt VisitStmt_(const AllocateNode* op) override { return FailStmt(op); }
  Stmt VisitStmt_(const WhileNode* op) override { return FailStmt(op); }
  Stmt VisitStmt_(const AssertStmtNode* op) override {
    if (UsesVar(op->condition, var_.get())) return FailStmt(op);
    return StmtMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const EvaluateNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    if (!v.same_as(op->value)) return FailStmt(op);
    return GetRef<Stmt>(op);
  }
  Stmt VisitStmt_(const BlockNode* op) override { return FailStmt(op); }
  Stmt VisitStmt_(const BlockRealizeNode* op) override { return FailStmt(op); }

 private:
  template <typename T>
  PrimExpr Binary(const PrimExpr& a, const PrimExpr& b) {
    int l = std::max(Lanes(a), Lanes(b));
    if (!CheckLanes({a, b}, l)) return a;
    return T(BroadcastTo(a, l), BroadcastTo(b, l));
  }
  /*! \brief Every value must be scalar or have `lanes` lanes. */
  bool CheckLanes(const std::vector<PrimExpr>& values, int lanes) {
    for (const PrimExpr& v : values) {
      if (Lanes(v) != 1 && Lanes(v) != lanes) {
        failed = true;
        return false;
      }
    }
    return true;
  }
  PrimExpr Unchanged(const Object* op) {
    PrimExpr e = GetRef<PrimExpr>(static_cast<const PrimExprNode*>(op));
    if (UsesVar(e, var_.get())) failed = true;
    return e;
  }
  PrimExpr Fail(const Object* op) {
    failed = true;
    return GetRef<PrimExpr>(static_cast<const PrimExprNode*>(op));
  }
  Stmt FailStmt(const Object* op) {
    failed = true;
    return GetRef<Stmt>(static_cast<const StmtNode*>(op));
  }

  Var var_;
  int lanes_;
  PrimExpr ramp_;
  std::unordered_map<const VarNode*, Var> let_map_;
};

class LoopVectorizer : public StmtMutator {
 public:
  explicit LoopVectorizer(bool disabled) : disabled_(disabled) {}
  Stmt VisitStmt_(const ForNode* op) override {
    For loop = Downcast<For>(StmtMutator::VisitStmt_(op));
    if (loop->kind != ForKind::kVectorized) return loop;
    auto extent = AsConstInt(loop->extent);
    if (disabled_ || !extent || *extent < 1) return Serial(loop);
    if (*extent == 1) {
      Var v = loop->loop_var;
      PrimExpr min = loop->min;
      return Substitute(loop->body, [&](const Var& x) { return x.same_as(v) ? min : PrimExpr(); });
    }
    Vectorizer vec(loop->loop_var, loop->min, static_cast<int>(*extent));
    Stmt body = vec.VisitStmt(loop->body);
    if (vec.failed) return Serial(loop);
    return body;
  }

 private:
  static Stmt Serial(For loop) {
    loop.CopyOnWrite()->kind = ForKind::kSerial;
    return loop;
  }
  bool disabled_;
};

}  // namespace

MINITVM_REGISTER_PASS_CONFIG_OPTION("tir.disable_vectorize", "bool");

Pass VectorizeLoop() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext ctx) {
        bool disabled = ctx.GetConfig<bool>("tir.disable_vectorize", false);
        Stmt body = LoopVectorizer(disabled).VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.VectorizeLoop");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm
