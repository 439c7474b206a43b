/*!
 * \file expr_functor.cc
 * \brief The default ExprVisitor (walk) and ExprMutator (copy-on-write rebuild) (stage 2).
 */
#include "minitvm/tir/expr_functor.h"

namespace minitvm {
namespace tir {

// ---- ExprVisitor -------------------------------------------------------------------------

void ExprVisitor::VisitExpr_(const VarNode*) {}
void ExprVisitor::VisitExpr_(const SizeVarNode*) {}
void ExprVisitor::VisitExpr_(const IntImmNode*) {}
void ExprVisitor::VisitExpr_(const FloatImmNode*) {}
void ExprVisitor::VisitExpr_(const StringImmNode*) {}
void ExprVisitor::VisitExpr_(const CastNode* op) { VisitExpr(op->value); }
// clang-format off
/*! \brief The nodes with two operands `a` and `b`, visited and rebuilt alike. */
#define MINITVM_BINARY_NODES(X) \
  X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(FloorDiv) X(FloorMod) X(Min) X(Max) \
  X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or)
// clang-format on

#define MINITVM_X(Name)                                \
  void ExprVisitor::VisitExpr_(const Name##Node* op) { \
    VisitExpr(op->a);                                  \
    VisitExpr(op->b);                                  \
  }
MINITVM_BINARY_NODES(MINITVM_X)
#undef MINITVM_X
void ExprVisitor::VisitExpr_(const NotNode* op) { VisitExpr(op->a); }
void ExprVisitor::VisitExpr_(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}
void ExprVisitor::VisitExpr_(const BufferLoadNode* op) {
  VisitBufferUse(op->buffer);
  for (const PrimExpr& i : op->indices) VisitExpr(i);
}
void ExprVisitor::VisitExpr_(const RampNode* op) {
  VisitExpr(op->base);
  VisitExpr(op->stride);
}
void ExprVisitor::VisitExpr_(const BroadcastNode* op) { VisitExpr(op->value); }
void ExprVisitor::VisitExpr_(const LetNode* op) {
  VisitExpr(op->value);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const CallNode* op) {
  for (const PrimExpr& a : op->args) VisitExpr(a);
}

// ---- ExprMutator -------------------------------------------------------------------------

namespace {
/*! \brief Mutate each element; returns the same array when nothing changed. */
template <typename F>
Array<PrimExpr> MutateArray(const Array<PrimExpr>& arr, F fmutate) {
  Array<PrimExpr> out = arr;
  for (size_t i = 0; i < arr.size(); ++i) {
    PrimExpr old = arr[i];
    PrimExpr now = fmutate(old);
    if (!now.same_as(old)) out.Set(i, now);
  }
  return out;
}
}  // namespace

PrimExpr ExprMutator::VisitExpr_(const VarNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const SizeVarNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const IntImmNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const FloatImmNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const StringImmNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const CastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
  return Cast(op->dtype.with_lanes(v.dtype().lanes()), v);
}
#define MINITVM_X(Name)                                                    \
  PrimExpr ExprMutator::VisitExpr_(const Name##Node* op) {                 \
    PrimExpr a = VisitExpr(op->a);                                         \
    PrimExpr b = VisitExpr(op->b);                                         \
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op); \
    return Name(a, b);                                                     \
  }
MINITVM_BINARY_NODES(MINITVM_X)
#undef MINITVM_X
PrimExpr ExprMutator::VisitExpr_(const NotNode* op) {
  PrimExpr a = VisitExpr(op->a);
  if (a.same_as(op->a)) return GetRef<PrimExpr>(op);
  return Not(a);
}
PrimExpr ExprMutator::VisitExpr_(const SelectNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  PrimExpr t = VisitExpr(op->true_value);
  PrimExpr f = VisitExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
    return GetRef<PrimExpr>(op);
  }
  return Select(c, t, f);
}
PrimExpr ExprMutator::VisitExpr_(const BufferLoadNode* op) {
  Buffer buffer = VisitBuffer(op->buffer);
  Array<PrimExpr> indices =
      MutateArray(op->indices, [this](const PrimExpr& e) { return VisitExpr(e); });
  if (buffer.same_as(op->buffer) && indices.same_as(op->indices)) return GetRef<PrimExpr>(op);
  return BufferLoad(buffer, indices);
}
PrimExpr ExprMutator::VisitExpr_(const RampNode* op) {
  PrimExpr base = VisitExpr(op->base);
  PrimExpr stride = VisitExpr(op->stride);
  if (base.same_as(op->base) && stride.same_as(op->stride)) return GetRef<PrimExpr>(op);
  return Ramp(base, stride, op->lanes);
}
PrimExpr ExprMutator::VisitExpr_(const BroadcastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
  return Broadcast(v, op->lanes);
}
PrimExpr ExprMutator::VisitExpr_(const LetNode* op) {
  PrimExpr value = VisitExpr(op->value);
  PrimExpr body = VisitExpr(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<PrimExpr>(op);
  return Let(op->var, value, body);
}
PrimExpr ExprMutator::VisitExpr_(const CallNode* op) {
  Array<PrimExpr> args = MutateArray(op->args, [this](const PrimExpr& e) { return VisitExpr(e); });
  if (args.same_as(op->args)) return GetRef<PrimExpr>(op);
  return Call(op->dtype, op->op, args);
}

void PostOrderVisit(const PrimExpr& e, const std::function<void(const ObjectRef&)>& f) {
  class Visitor : public ExprVisitor {
   public:
    explicit Visitor(const std::function<void(const ObjectRef&)>& f) : f_(f) {}
    void VisitExpr(const PrimExpr& e) override {
      ExprVisitor::VisitExpr(e);
      f_(e);
    }

   private:
    const std::function<void(const ObjectRef&)>& f_;
  };
  Visitor(f).VisitExpr(e);
}

}  // namespace tir
}  // namespace minitvm
