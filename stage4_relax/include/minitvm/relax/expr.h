/*!
 * \file minitvm/relax/expr.h
 * \brief The Relax IR (stage 4): graph-level expressions over tensors — variables, constants,
 * tuples, shapes, calls (of operators, PrimFuncs through `call_tir`, packed functions, other
 * functions), `If`, and `SeqExpr`s made of binding blocks, some of them dataflow blocks —
 * and the Relax `Function`.
 *
 * Every node lists its fields once in `VisitAttrs`; that list drives structural equality and
 * hashing (variables are matched at their binding sites: function parameters, `VarBinding` and
 * `MatchCast` variables), field access from Python and printing. Every expression carries its
 * struct info in `struct_info_` once normalised (see `block_builder.h`); a Relax variable lists
 * it as a field, because the annotation is part of the definition.
 *
 * Type keys are TVM's (`relax.expr.Call`, ...), so the Python classes keep TVM's names.
 */
#ifndef MINITVM_RELAX_EXPR_H_
#define MINITVM_RELAX_EXPR_H_

#include <string>

#include "minitvm/ir/function.h"
#include "minitvm/ir/op.h"
#include "minitvm/relax/struct_info.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace relax {

using runtime::NDArray;

// ---- leaves ---------------------------------------------------------------------------------

/*! \brief A variable: a function parameter or the target of a binding. */
class VarNode : public ExprNode {
 public:
  /*! \brief The name it prints with (names do not take part in equality). */
  String name_hint;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("name_hint", &name_hint);
    v->Visit("struct_info", &struct_info_);
  }
  MINITVM_DECLARE_OBJECT_INFO(VarNode, ExprNode, "relax.expr.Var");
};
class Var : public Expr {
 public:
  /*! \brief A variable with struct info `info` (may be undefined until normalised). */
  explicit Var(String name_hint, StructInfo info = StructInfo());
  MINITVM_DEFINE_OBJECT_REF_METHODS(Var, Expr, VarNode);
};

/*! \brief A variable that lives only inside a dataflow block. */
class DataflowVarNode : public VarNode {
 public:
  MINITVM_DECLARE_OBJECT_INFO(DataflowVarNode, VarNode, "relax.expr.DataflowVar");
};
class DataflowVar : public Var {
 public:
  explicit DataflowVar(String name_hint, StructInfo info = StructInfo());
  MINITVM_DEFINE_OBJECT_REF_METHODS(DataflowVar, Var, DataflowVarNode);
};

/*! \brief A constant tensor (`R.const(...)`, or a weight bound by BindParams). */
class ConstantNode : public ExprNode {
 public:
  NDArray data;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("data", &data); }
  MINITVM_DECLARE_OBJECT_INFO(ConstantNode, ExprNode, "relax.expr.Constant");
};
class Constant : public Expr {
 public:
  /*! \brief The struct info is `R.Tensor(<data's shape>, <data's dtype>)`. */
  explicit Constant(NDArray data);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Constant, Expr, ConstantNode);
};

/*! \brief A shape value `R.shape([n, 4])` built from TIR integer expressions. */
class ShapeExprNode : public ExprNode {
 public:
  Array<PrimExpr> values;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("values", &values); }
  MINITVM_DECLARE_OBJECT_INFO(ShapeExprNode, ExprNode, "relax.expr.ShapeExpr");
};
class ShapeExpr : public Expr {
 public:
  /*! \brief TypeError unless every value is an integer expression (ints become int64). */
  explicit ShapeExpr(Array<PrimExpr> values);
  MINITVM_DEFINE_OBJECT_REF_METHODS(ShapeExpr, Expr, ShapeExprNode);
};

/*! \brief A TIR scalar as a Relax value (`R.prim_value(1)`). */
class PrimValueNode : public ExprNode {
 public:
  PrimExpr value;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("value", &value); }
  MINITVM_DECLARE_OBJECT_INFO(PrimValueNode, ExprNode, "relax.expr.PrimValue");
};
class PrimValue : public Expr {
 public:
  explicit PrimValue(PrimExpr value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(PrimValue, Expr, PrimValueNode);
};

/*! \brief A string as a Relax value (`R.str("x")`). */
class StringImmNode : public ExprNode {
 public:
  String value;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("value", &value); }
  MINITVM_DECLARE_OBJECT_INFO(StringImmNode, ExprNode, "relax.expr.StringImm");
};
class StringImm : public Expr {
 public:
  explicit StringImm(String value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(StringImm, Expr, StringImmNode);
};

/*! \brief A dtype as a Relax value (`R.dtype("float32")`), e.g. the argument of astype. */
class DataTypeImmNode : public ExprNode {
 public:
  DataType value;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("value", &value); }
  MINITVM_DECLARE_OBJECT_INFO(DataTypeImmNode, ExprNode, "relax.expr.DataTypeImm");
};
class DataTypeImm : public Expr {
 public:
  explicit DataTypeImm(DataType value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(DataTypeImm, Expr, DataTypeImmNode);
};

/*! \brief A function outside the module, by name (a packed function in the registry). */
class ExternFuncNode : public BaseFuncNode {
 public:
  String global_symbol;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("global_symbol", &global_symbol);
    v->Visit("attrs", &attrs);
  }
  MINITVM_DECLARE_OBJECT_INFO(ExternFuncNode, BaseFuncNode, "relax.expr.ExternFunc");
};
class ExternFunc : public BaseFunc {
 public:
  /*! \brief Its struct info is an opaque function. */
  explicit ExternFunc(String global_symbol);
  MINITVM_DEFINE_OBJECT_REF_METHODS(ExternFunc, BaseFunc, ExternFuncNode);
};

// ---- compound expressions -------------------------------------------------------------------

/*! \brief A tuple of values. */
class TupleNode : public ExprNode {
 public:
  Array<Expr> fields;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("fields", &fields); }
  MINITVM_DECLARE_OBJECT_INFO(TupleNode, ExprNode, "relax.expr.Tuple");
};
class Tuple : public Expr {
 public:
  explicit Tuple(Array<Expr> fields);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Tuple, Expr, TupleNode);
};

/*! \brief `tuple[index]`. */
class TupleGetItemNode : public ExprNode {
 public:
  Expr tuple;
  int64_t index = 0;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("tuple_value", &tuple);
    v->Visit("index", &index);
  }
  MINITVM_DECLARE_OBJECT_INFO(TupleGetItemNode, ExprNode, "relax.expr.TupleGetItem");
};
class TupleGetItem : public Expr {
 public:
  TupleGetItem(Expr tuple, int64_t index);
  MINITVM_DEFINE_OBJECT_REF_METHODS(TupleGetItem, Expr, TupleGetItemNode);
};

/*!
 * \brief A call. `op` is an `Op` (`relax.add`, `relax.call_tir`, ...), a `GlobalVar` (another
 * function of the module), an `ExternFunc`, or a variable holding a function. `attrs` holds the
 * operator's keyword arguments (`strides`, `axis`, ...) by name; `sinfo_args` the struct info
 * arguments some operators take (the output of `call_tir`).
 */
class CallNode : public ExprNode {
 public:
  Expr op;
  Array<Expr> args;
  Map<String, Any> attrs;
  Array<StructInfo> sinfo_args;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("op", &op);
    v->Visit("args", &args);
    v->Visit("attrs", &attrs);
    v->Visit("sinfo_args", &sinfo_args);
  }
  /*! \brief Attribute `key` converted to T; ValueError naming the op when absent. */
  template <typename T>
  T GetAttr(const std::string& key) const {
    auto v = attrs.Get(key);
    if (!v) MINITVM_THROW(ValueError) << "call has no attribute \"" << key << "\"";
    return v->cast<T>();
  }
  MINITVM_DECLARE_OBJECT_INFO(CallNode, ExprNode, "relax.expr.Call");
};
class Call : public Expr {
 public:
  Call(Expr op, Array<Expr> args, Map<String, Any> attrs = {}, Array<StructInfo> sinfo_args = {});
  MINITVM_DEFINE_OBJECT_REF_METHODS(Call, Expr, CallNode);
};

/*! \brief `if cond: ... else: ...` on a boolean scalar (a 0-d bool tensor or PrimValue). */
class IfNode : public ExprNode {
 public:
  Expr cond;
  Expr true_branch;   ///< a SeqExpr
  Expr false_branch;  ///< a SeqExpr
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("cond", &cond);
    v->Visit("true_branch", &true_branch);
    v->Visit("false_branch", &false_branch);
  }
  MINITVM_DECLARE_OBJECT_INFO(IfNode, ExprNode, "relax.expr.If");
};
class If : public Expr {
 public:
  If(Expr cond, Expr true_branch, Expr false_branch);
  MINITVM_DEFINE_OBJECT_REF_METHODS(If, Expr, IfNode);
};

// ---- bindings and blocks --------------------------------------------------------------------

/*! \brief Base of the two bindings; `var` is what the binding defines. */
class BindingNode : public Object {
 public:
  Var var;
  MINITVM_DECLARE_OBJECT_INFO(BindingNode, Object, "relax.expr.Binding");
};
class Binding : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(Binding, ObjectRef, BindingNode);
};

/*! \brief `var = value`. */
class VarBindingNode : public BindingNode {
 public:
  Expr value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("value", &value);
    v->VisitBinding("var", &var);
  }
  MINITVM_DECLARE_OBJECT_INFO(VarBindingNode, BindingNode, "relax.expr.VarBinding");
};
class VarBinding : public Binding {
 public:
  VarBinding(Var var, Expr value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(VarBinding, Binding, VarBindingNode);
};

/*!
 * \brief `var = R.match_cast(value, struct_info)`: checks at run time that `value` matches
 * `struct_info`, defining the symbolic variables that appear in it for the first time.
 */
class MatchCastNode : public BindingNode {
 public:
  Expr value;
  StructInfo struct_info;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("value", &value);
    v->VisitBinding("struct_info", &struct_info);
    v->VisitBinding("var", &var);
  }
  MINITVM_DECLARE_OBJECT_INFO(MatchCastNode, BindingNode, "relax.expr.MatchCast");
};
class MatchCast : public Binding {
 public:
  MatchCast(Var var, Expr value, StructInfo struct_info);
  MINITVM_DEFINE_OBJECT_REF_METHODS(MatchCast, Binding, MatchCastNode);
};

/*! \brief A sequence of bindings, run in order. */
class BindingBlockNode : public Object {
 public:
  Array<Binding> bindings;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("bindings", &bindings); }
  MINITVM_DECLARE_OBJECT_INFO(BindingBlockNode, Object, "relax.expr.BindingBlock");
};
class BindingBlock : public ObjectRef {
 public:
  explicit BindingBlock(Array<Binding> bindings);
  MINITVM_DEFINE_OBJECT_REF_METHODS(BindingBlock, ObjectRef, BindingBlockNode);
};

/*!
 * \brief A block of pure bindings with no control flow (`with R.dataflow():`): its DataflowVars
 * are local; only its `R.output(...)` variables (plain Vars) are visible after it.
 */
class DataflowBlockNode : public BindingBlockNode {
 public:
  MINITVM_DECLARE_OBJECT_INFO(DataflowBlockNode, BindingBlockNode, "relax.expr.DataflowBlock");
};
class DataflowBlock : public BindingBlock {
 public:
  explicit DataflowBlock(Array<Binding> bindings);
  MINITVM_DEFINE_OBJECT_REF_METHODS(DataflowBlock, BindingBlock, DataflowBlockNode);
};

/*! \brief Blocks followed by a result expression: the body of a function or a branch. */
class SeqExprNode : public ExprNode {
 public:
  Array<BindingBlock> blocks;
  Expr body;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("blocks", &blocks);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(SeqExprNode, ExprNode, "relax.expr.SeqExpr");
};
class SeqExpr : public Expr {
 public:
  SeqExpr(Array<BindingBlock> blocks, Expr body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(SeqExpr, Expr, SeqExprNode);
};

// ---- functions ------------------------------------------------------------------------------

/*!
 * \brief A Relax function (`@R.function`). Its struct info is a FuncStructInfo built from the
 * parameters' struct info and `ret_struct_info`. Attributes: "global_symbol", "num_input", ...
 */
class FunctionNode : public BaseFuncNode {
 public:
  Array<Var> params;
  Expr body;  ///< a SeqExpr once normalised
  StructInfo ret_struct_info;
  bool is_pure = true;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("params", &params);
    v->Visit("body", &body);
    v->Visit("ret_struct_info", &ret_struct_info);
    v->Visit("is_pure", &is_pure);
    v->Visit("attrs", &attrs);
  }
  MINITVM_DECLARE_OBJECT_INFO(FunctionNode, BaseFuncNode, "relax.expr.Function");
};
class Function : public BaseFunc {
 public:
  /*!
   * \brief A function. When `ret_struct_info` is undefined it is the body's struct info
   * (the body must then be normalised). Sets the function's own struct info.
   */
  Function(Array<Var> params, Expr body, StructInfo ret_struct_info = StructInfo(),
           bool is_pure = true, Map<String, Any> attrs = {});
  MINITVM_DEFINE_OBJECT_REF_METHODS(Function, BaseFunc, FunctionNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(FunctionNode);
};

/*! \brief Whether `op` is the Op named `name`. */
bool IsOp(const Expr& op, const char* name);

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_EXPR_H_
