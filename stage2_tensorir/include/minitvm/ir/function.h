/*!
 * \file minitvm/ir/function.h
 * \brief `BaseFunc` (a TIR PrimFunc or a Relax Function) with its attributes, and
 * `GlobalVar`, the name a module gives a function (stage 2).
 */
#ifndef MINITVM_IR_FUNCTION_H_
#define MINITVM_IR_FUNCTION_H_

#include <optional>
#include <string>

#include "minitvm/ir/expr.h"

namespace minitvm {

/*! \brief Base of functions: attributes such as "global_symbol" and "tir.noalias". */
class BaseFuncNode : public BaseExprNode {
 public:
  /*! \brief Function attributes ("global_symbol", "tir.noalias", ...). */
  Map<String, Any> attrs;
  /*! \brief An attribute converted to T, or nullopt when absent. */
  template <typename T>
  std::optional<T> GetAttr(const std::string& key) const {
    if (auto v = attrs.Get(key)) return v->cast<T>();
    return std::nullopt;
  }
  MINITVM_DECLARE_OBJECT_INFO(BaseFuncNode, BaseExprNode, "ir.BaseFunc");
};
class BaseFunc : public BaseExpr {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(BaseFunc, BaseExpr, BaseFuncNode);
};

/*! \brief A copy of `func` with one attribute set (copy-on-write). */
template <typename TFunc>
TFunc WithAttr(TFunc func, const std::string& key, Any value) {
  auto* n = func.CopyOnWrite();
  n->attrs.Set(String(key), value);
  return func;
}

/*! \brief The global name of a function inside an IRModule. */
class GlobalVarNode : public BaseExprNode {
 public:
  /*! \brief The function's name in its module. */
  String name_hint;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("name_hint", &name_hint); }
  MINITVM_DECLARE_OBJECT_INFO(GlobalVarNode, BaseExprNode, "ir.GlobalVar");
};
class GlobalVar : public BaseExpr {
 public:
  explicit GlobalVar(String name_hint);
  MINITVM_DEFINE_OBJECT_REF_METHODS(GlobalVar, BaseExpr, GlobalVarNode);
};

}  // namespace minitvm

#endif  // MINITVM_IR_FUNCTION_H_
