/*!
 * \file minitvm/tir/stmt_functor.h
 * \brief Functors over TensorIR statements (stage 2): `StmtFunctor` dispatches on the node
 * type; `StmtVisitor`/`StmtMutator` walk statements; `StmtExprVisitor`/`StmtExprMutator` walk
 * statements and the expressions inside them. Also `Substitute` and `PostOrderVisit`.
 */
#ifndef MINITVM_TIR_STMT_FUNCTOR_H_
#define MINITVM_TIR_STMT_FUNCTOR_H_

#include <functional>
#include <unordered_map>
#include <utility>

#include "minitvm/runtime/depth_guard.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace tir {

template <typename FType>
class StmtFunctor;

// clang-format off
#define MINITVM_TIR_STMT_NODES(X)                                                         \
  X(BufferStore)                                                                          \
  X(For)                                                                                  \
  X(While)                                                                                \
  X(IfThenElse) X(SeqStmt) X(Evaluate) X(LetStmt) X(AssertStmt) X(Allocate) X(DeclBuffer) \
      X(AttrStmt) X(Block) X(BlockRealize)
// clang-format on

/*! \brief Dispatch `VisitStmt` to `VisitStmt_(const XxxNode*)` by node type. */
template <typename R, typename... Args>
class StmtFunctor<R(const Stmt& n, Args...)> {
 private:
  using TSelf = StmtFunctor<R(const Stmt& n, Args...)>;
  using FType = NodeFunctor<R(const ObjectRef& n, TSelf* self, Args...)>;

 public:
  virtual ~StmtFunctor() = default;
  R operator()(const Stmt& n, Args... args) { return VisitStmt(n, std::forward<Args>(args)...); }
  virtual R VisitStmt(const Stmt& n, Args... args) {
    static FType vtable = InitVTable();
    DepthGuard guard(&stmt_depth_, "statement");  // the depth policy (depth_guard.h)
    return vtable(n, this, std::forward<Args>(args)...);
  }
#define MINITVM_X(Name)                                      \
  virtual R VisitStmt_(const Name##Node* op, Args... args) { \
    return VisitStmtDefault_(op, args...);                   \
  }
  MINITVM_TIR_STMT_NODES(MINITVM_X)
#undef MINITVM_X
  virtual R VisitStmtDefault_(const Object* op, Args...) {
    MINITVM_THROW(InternalError) << "StmtFunctor: unhandled node " << op->GetTypeKey();
  }

 private:
  /*! \brief How deep this functor's walk is nested now (checked by DepthGuard). */
  int stmt_depth_ = 0;
  static FType InitVTable() {
    FType vtable;
#define MINITVM_X(Name)                                                                            \
  vtable.template set_dispatch<Name##Node>([](const ObjectRef& n, TSelf* self, Args... args) {     \
    return self->VisitStmt_(static_cast<const Name##Node*>(n.get()), std::forward<Args>(args)...); \
  });
    MINITVM_TIR_STMT_NODES(MINITVM_X)
#undef MINITVM_X
    return vtable;
  }
};

/*! \brief Visits every sub-statement; `VisitExpr` is called on each expression (no-op here). */
class StmtVisitor : public StmtFunctor<void(const Stmt&)> {
 public:
  using StmtFunctor::VisitStmt;
#define MINITVM_X(Name) void VisitStmt_(const Name##Node* op) override;
  MINITVM_TIR_STMT_NODES(MINITVM_X)
#undef MINITVM_X
  virtual void VisitExpr(const PrimExpr& e) {}
  /*! \brief Called for each BufferRegion of a block's reads/writes and match_buffers. */
  virtual void VisitBufferRegion(const BufferRegion& region);
};

/*! \brief Rebuilds statements copy-on-write; `VisitExpr` is the identity here. */
class StmtMutator : public StmtFunctor<Stmt(const Stmt&)> {
 public:
  using StmtFunctor::VisitStmt;
#define MINITVM_X(Name) Stmt VisitStmt_(const Name##Node* op) override;
  MINITVM_TIR_STMT_NODES(MINITVM_X)
#undef MINITVM_X
  virtual PrimExpr VisitExpr(const PrimExpr& e) { return e; }
  /*! \brief Rewrites a BufferRegion (ranges go through VisitExpr). */
  virtual BufferRegion VisitBufferRegion(const BufferRegion& region);
  /*! \brief Hook to replace buffers in stores and regions (default: keep). */
  virtual Buffer VisitBuffer(const Buffer& buffer) { return buffer; }
};

/*! \brief A StmtVisitor that also visits every expression with ExprVisitor. */
class StmtExprVisitor : public StmtVisitor, public ExprVisitor {
 public:
  using ExprVisitor::VisitExpr;
  using StmtVisitor::VisitStmt;
  void VisitExpr(const PrimExpr& e) override { ExprVisitor::VisitExpr(e); }
};

/*! \brief A StmtMutator that also rewrites every expression with ExprMutator. */
class StmtExprMutator : public StmtMutator, public ExprMutator {
 public:
  using ExprMutator::VisitExpr;
  using StmtMutator::VisitStmt;
  PrimExpr VisitExpr(const PrimExpr& e) override { return ExprMutator::VisitExpr(e); }
  Buffer VisitBuffer(const Buffer& buffer) override { return buffer; }
};

/*! \brief Apply `f` to every node of `stmt` (statements and expressions) in post-order. */
void PostOrderVisit(const Stmt& stmt, const std::function<void(const ObjectRef&)>& f);

/*! \brief Replace variables: `vmap(v)` returns the replacement or an undefined PrimExpr. */
Stmt Substitute(const Stmt& stmt, std::function<PrimExpr(const Var&)> vmap);
PrimExpr Substitute(const PrimExpr& expr, std::function<PrimExpr(const Var&)> vmap);
/*! \brief Replace variables by a map (keys are Vars, compared by identity). */
Stmt Substitute(const Stmt& stmt, const Map<Var, PrimExpr>& vmap);
PrimExpr Substitute(const PrimExpr& expr, const Map<Var, PrimExpr>& vmap);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_STMT_FUNCTOR_H_
