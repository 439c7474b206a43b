/*!
 * \file minitvm/tir/expr_functor.h
 * \brief Functors over TensorIR expressions (stage 2): `ExprFunctor` dispatches on the node
 * type; `ExprVisitor` walks every sub-expression; `ExprMutator` rebuilds an expression
 * copy-on-write (unchanged sub-trees are shared, not copied).
 */
#ifndef MINITVM_TIR_EXPR_FUNCTOR_H_
#define MINITVM_TIR_EXPR_FUNCTOR_H_

#include <utility>

#include "minitvm/ir/node_functor.h"
#include "minitvm/runtime/depth_guard.h"
#include "minitvm/tir/expr.h"

namespace minitvm {
namespace tir {

template <typename FType>
class ExprFunctor;

// X-macro of every expression node: used to declare and dispatch the visit methods once.
// clang-format off
#define MINITVM_TIR_EXPR_NODES(X)                                                             \
  X(Var)                                                                                      \
  X(SizeVar)                                                                                  \
  X(IntImm)                                                                                   \
  X(FloatImm) X(StringImm) X(Cast) X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(FloorDiv) X(FloorMod) \
      X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or) X(Not) X(Select)         \
          X(BufferLoad) X(Ramp) X(Broadcast) X(Let) X(Call)
// clang-format on

/*! \brief Dispatch `VisitExpr` to `VisitExpr_(const XxxNode*)` by node type. */
template <typename R, typename... Args>
class ExprFunctor<R(const PrimExpr& n, Args...)> {
 private:
  using TSelf = ExprFunctor<R(const PrimExpr& n, Args...)>;
  using FType = NodeFunctor<R(const ObjectRef& n, TSelf* self, Args...)>;

 public:
  virtual ~ExprFunctor() = default;
  R operator()(const PrimExpr& n, Args... args) {
    return VisitExpr(n, std::forward<Args>(args)...);
  }
  virtual R VisitExpr(const PrimExpr& n, Args... args) {
    static FType vtable = InitVTable();
    DepthGuard guard(&expr_depth_, "expression");  // the depth policy (depth_guard.h)
    return vtable(n, this, std::forward<Args>(args)...);
  }
#define MINITVM_X(Name)                                      \
  virtual R VisitExpr_(const Name##Node* op, Args... args) { \
    return VisitExprDefault_(op, args...);                   \
  }
  MINITVM_TIR_EXPR_NODES(MINITVM_X)
#undef MINITVM_X
  /*! \brief Called for node types the subclass does not handle. */
  virtual R VisitExprDefault_(const Object* op, Args...) {
    MINITVM_THROW(InternalError) << "ExprFunctor: unhandled node " << op->GetTypeKey();
  }

 private:
  /*! \brief How deep this functor's walk is nested now (checked by DepthGuard). */
  int expr_depth_ = 0;
  static FType InitVTable() {
    FType vtable;
#define MINITVM_X(Name)                                                                            \
  vtable.template set_dispatch<Name##Node>([](const ObjectRef& n, TSelf* self, Args... args) {     \
    return self->VisitExpr_(static_cast<const Name##Node*>(n.get()), std::forward<Args>(args)...); \
  });
    MINITVM_TIR_EXPR_NODES(MINITVM_X)
#undef MINITVM_X
    return vtable;
  }
};

/*! \brief Visits every sub-expression (override a VisitExpr_ and call the base to recurse). */
class ExprVisitor : public ExprFunctor<void(const PrimExpr&)> {
 public:
  using ExprFunctor::VisitExpr;
#define MINITVM_X(Name) void VisitExpr_(const Name##Node* op) override;
  MINITVM_TIR_EXPR_NODES(MINITVM_X)
#undef MINITVM_X
  /*! \brief Visit the indices / extents of a buffer referenced by a load (default: nothing). */
  virtual void VisitBufferUse(const Buffer& buffer) {}
};

/*! \brief Rebuilds expressions; returns the same node when nothing below it changed. */
class ExprMutator : public ExprFunctor<PrimExpr(const PrimExpr&)> {
 public:
  using ExprFunctor::VisitExpr;
#define MINITVM_X(Name) PrimExpr VisitExpr_(const Name##Node* op) override;
  MINITVM_TIR_EXPR_NODES(MINITVM_X)
#undef MINITVM_X
  /*! \brief Hook to replace the buffer of a load/store (default: keep it). */
  virtual Buffer VisitBuffer(const Buffer& buffer) { return buffer; }
};

/*! \brief Apply `f` to every node of `e` in post-order. */
void PostOrderVisit(const PrimExpr& e, const std::function<void(const ObjectRef&)>& f);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_EXPR_FUNCTOR_H_
