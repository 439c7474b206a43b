/*!
 * \file minitvm/relax/expr_functor.h
 * \brief Visitors and mutators over Relax (stage 4): `ExprFunctor` dispatches on the node type,
 * `ExprVisitor` walks every expression, binding and block, `ExprMutator` rebuilds what changed
 * (and returns the very same node when nothing did). Passes, the analyses, the printer and the
 * interpreter are written on these — never as ad-hoc recursive switches.
 */
#ifndef MINITVM_RELAX_EXPR_FUNCTOR_H_
#define MINITVM_RELAX_EXPR_FUNCTOR_H_

#include <functional>
#include <unordered_map>

#include "minitvm/ir/module.h"
#include "minitvm/relax/expr.h"

namespace minitvm {
namespace relax {

template <typename FType>
class ExprFunctor;

/*! \brief Dispatch on the Relax node type: override the `VisitExpr_` you need. */
template <typename R, typename... Args>
class ExprFunctor<R(const Expr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  /*! \brief Visit `e`, calling the `VisitExpr_` of its type. */
  virtual R VisitExpr(const Expr& e, Args... args) {
    if (!e.defined()) MINITVM_THROW(InternalError) << "visiting an undefined Relax expression";
#define MINITVM_RELAX_DISPATCH(NODE) \
  if (auto* n = e.as<NODE>()) return VisitExpr_(n, std::forward<Args>(args)...)
    // Subclasses first (DataflowVar before Var).
    MINITVM_RELAX_DISPATCH(DataflowVarNode);
    MINITVM_RELAX_DISPATCH(VarNode);
    MINITVM_RELAX_DISPATCH(ConstantNode);
    MINITVM_RELAX_DISPATCH(TupleNode);
    MINITVM_RELAX_DISPATCH(TupleGetItemNode);
    MINITVM_RELAX_DISPATCH(ShapeExprNode);
    MINITVM_RELAX_DISPATCH(PrimValueNode);
    MINITVM_RELAX_DISPATCH(StringImmNode);
    MINITVM_RELAX_DISPATCH(DataTypeImmNode);
    MINITVM_RELAX_DISPATCH(CallNode);
    MINITVM_RELAX_DISPATCH(IfNode);
    MINITVM_RELAX_DISPATCH(SeqExprNode);
    MINITVM_RELAX_DISPATCH(FunctionNode);
    MINITVM_RELAX_DISPATCH(ExternFuncNode);
    MINITVM_RELAX_DISPATCH(GlobalVarNode);
    MINITVM_RELAX_DISPATCH(OpNode);
#undef MINITVM_RELAX_DISPATCH
    return VisitExprDefault_(e.get(), std::forward<Args>(args)...);
  }
  virtual R VisitExpr_(const VarNode* op, Args... args) { return VisitExprDefault_(op, args...); }
  virtual R VisitExpr_(const DataflowVarNode* op, Args... args) {
    return VisitExpr_(static_cast<const VarNode*>(op), args...);
  }
  virtual R VisitExpr_(const ConstantNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const TupleNode* op, Args... args) { return VisitExprDefault_(op, args...); }
  virtual R VisitExpr_(const TupleGetItemNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const ShapeExprNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const PrimValueNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const StringImmNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const DataTypeImmNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const CallNode* op, Args... args) { return VisitExprDefault_(op, args...); }
  virtual R VisitExpr_(const IfNode* op, Args... args) { return VisitExprDefault_(op, args...); }
  virtual R VisitExpr_(const SeqExprNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const FunctionNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const ExternFuncNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const GlobalVarNode* op, Args... args) {
    return VisitExprDefault_(op, args...);
  }
  virtual R VisitExpr_(const OpNode* op, Args... args) { return VisitExprDefault_(op, args...); }
  /*! \brief Called for a node no `VisitExpr_` handles (a PrimExpr, say): InternalError. */
  virtual R VisitExprDefault_(const Object* op, Args...) {
    MINITVM_THROW(InternalError) << "no Relax visitor case for " << op->GetTypeKey();
  }
};

/*!
 * \brief Walks a Relax expression: every sub-expression, binding, block, variable definition
 * and use. Override the parts you need and call the base to keep walking.
 */
class ExprVisitor : public ExprFunctor<void(const Expr&)> {
 public:
  void VisitExpr(const Expr& e) override;
  void VisitExpr_(const VarNode* op) override;
  void VisitExpr_(const ConstantNode* op) override;
  void VisitExpr_(const TupleNode* op) override;
  void VisitExpr_(const TupleGetItemNode* op) override;
  void VisitExpr_(const ShapeExprNode* op) override;
  void VisitExpr_(const PrimValueNode* op) override;
  void VisitExpr_(const StringImmNode* op) override;
  void VisitExpr_(const DataTypeImmNode* op) override;
  void VisitExpr_(const CallNode* op) override;
  void VisitExpr_(const IfNode* op) override;
  void VisitExpr_(const SeqExprNode* op) override;
  void VisitExpr_(const FunctionNode* op) override;
  void VisitExpr_(const ExternFuncNode* op) override;
  void VisitExpr_(const GlobalVarNode* op) override;
  void VisitExpr_(const OpNode* op) override;

  virtual void VisitBinding(const Binding& binding);
  virtual void VisitBinding_(const VarBindingNode* binding);
  virtual void VisitBinding_(const MatchCastNode* binding);
  virtual void VisitBindingBlock(const BindingBlock& block);
  virtual void VisitBindingBlock_(const BindingBlockNode* block);
  virtual void VisitBindingBlock_(const DataflowBlockNode* block);
  /*! \brief A variable where it is defined (parameter or binding target). */
  virtual void VisitVarDef(const Var& var);
  /*! \brief A struct info (the annotations of vars, match_cast, call_tir outputs). */
  virtual void VisitStructInfo(const StructInfo& info) {}
  /*! \brief A TIR expression inside Relax (shape dims, PrimValue). */
  virtual void VisitPrimExpr(const PrimExpr& e) {}
};

/*!
 * \brief Rebuilds a Relax expression bottom-up. Unchanged subtrees are returned as they are.
 * Rewritten bindings keep their variable unless the value's struct info changed, in which case
 * a fresh variable of the new info replaces it and later uses are remapped (`var_remap_`).
 * The results are normalised (struct info filled in) through `builder_` when one is set.
 */
class ExprMutator : public ExprFunctor<Expr(const Expr&)> {
 public:
  ExprMutator() = default;
  virtual ~ExprMutator() = default;

  Expr VisitExpr(const Expr& e) override;
  Expr VisitExpr_(const VarNode* op) override;
  Expr VisitExpr_(const ConstantNode* op) override;
  Expr VisitExpr_(const TupleNode* op) override;
  Expr VisitExpr_(const TupleGetItemNode* op) override;
  Expr VisitExpr_(const ShapeExprNode* op) override;
  Expr VisitExpr_(const PrimValueNode* op) override;
  Expr VisitExpr_(const StringImmNode* op) override;
  Expr VisitExpr_(const DataTypeImmNode* op) override;
  Expr VisitExpr_(const CallNode* op) override;
  Expr VisitExpr_(const IfNode* op) override;
  Expr VisitExpr_(const SeqExprNode* op) override;
  Expr VisitExpr_(const FunctionNode* op) override;
  Expr VisitExpr_(const ExternFuncNode* op) override;
  Expr VisitExpr_(const GlobalVarNode* op) override;
  Expr VisitExpr_(const OpNode* op) override;

  /*! \brief Rewrite one binding; return the bindings it becomes (none to drop it). */
  virtual Array<Binding> VisitBinding(const Binding& binding);
  virtual BindingBlock VisitBindingBlock(const BindingBlock& block);
  /*! \brief A variable at its definition; returns the variable to define instead. */
  virtual Var VisitVarDef(const Var& var);
  virtual StructInfo VisitStructInfo(const StructInfo& info) { return info; }
  virtual PrimExpr VisitPrimExpr(const PrimExpr& e) { return e; }

 protected:
  /*! \brief Uses of a key variable become the value (set by VisitBinding / VisitVarDef). */
  std::unordered_map<const VarNode*, Var> var_remap_;
};

/*!
 * \brief Apply `fmutate` to every Relax function of `mod` (PrimFuncs untouched); a function the
 * mutator returns unchanged stays the same object, so an untouched module is returned as is.
 */
IRModule MapRelaxFunctions(const IRModule& mod,
                           const std::function<Expr(const Function&)>& fmutate);

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_EXPR_FUNCTOR_H_
