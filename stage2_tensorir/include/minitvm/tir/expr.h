/*!
 * \file minitvm/tir/expr.h
 * \brief TensorIR expression nodes (stage 2): immediates, casts, arithmetic, comparisons,
 * logic, Select, BufferLoad, vectors (Ramp, Broadcast), Let and Call.
 *
 * Constructors check operand dtypes (ValueError on a mismatch); the operator overloads in
 * `op.h` add dtype promotion and constant folding on top.
 */
#ifndef MINITVM_TIR_EXPR_H_
#define MINITVM_TIR_EXPR_H_

#include <string>

#include "minitvm/tir/buffer.h"
#include "minitvm/tir/var.h"

namespace minitvm {
namespace tir {

/*! \brief A string constant (extern call names, assert messages). */
class StringImmNode : public PrimExprNode {
 public:
  /*! \brief The string. */
  String value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("value", &value);
  }
  MINITVM_DECLARE_OBJECT_INFO(StringImmNode, PrimExprNode, "tir.StringImm");
};
class StringImm : public PrimExpr {
 public:
  explicit StringImm(String value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(StringImm, PrimExpr, StringImmNode);
};

/*! \brief Convert `value` to `dtype`. */
class CastNode : public PrimExprNode {
 public:
  /*! \brief The expression converted to this node's dtype. */
  PrimExpr value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("value", &value);
  }
  MINITVM_DECLARE_OBJECT_INFO(CastNode, PrimExprNode, "tir.Cast");
};
class Cast : public PrimExpr {
 public:
  Cast(DataType dtype, PrimExpr value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Cast, PrimExpr, CastNode);
};

/*! \brief Base of two-operand nodes (arithmetic, comparison, logic). */
class BinaryOpNode : public PrimExprNode {
 public:
  /*! \brief Left operand. */
  PrimExpr a;
  /*! \brief Right operand. */
  PrimExpr b;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("a", &a);
    v->Visit("b", &b);
  }
  MINITVM_DECLARE_OBJECT_INFO(BinaryOpNode, PrimExprNode, "tir.BinaryOp");
};

// Each binary node class; the constructor checks that a and b have the same dtype
// (comparisons and logic produce bool).
#define MINITVM_TIR_BINARY_NODE(Name, Key)                         \
  class Name##Node : public BinaryOpNode {                         \
   public:                                                         \
    MINITVM_DECLARE_OBJECT_INFO(Name##Node, BinaryOpNode, Key);    \
  };                                                               \
  class Name : public PrimExpr {                                   \
   public:                                                         \
    Name(PrimExpr a, PrimExpr b);                                  \
    MINITVM_DEFINE_OBJECT_REF_METHODS(Name, PrimExpr, Name##Node); \
  };

MINITVM_TIR_BINARY_NODE(Add, "tir.Add")
MINITVM_TIR_BINARY_NODE(Sub, "tir.Sub")
MINITVM_TIR_BINARY_NODE(Mul, "tir.Mul")
/*! Div: C division (truncation for ints, true division for floats). */
MINITVM_TIR_BINARY_NODE(Div, "tir.Div")
MINITVM_TIR_BINARY_NODE(Mod, "tir.Mod")
MINITVM_TIR_BINARY_NODE(FloorDiv, "tir.FloorDiv")
MINITVM_TIR_BINARY_NODE(FloorMod, "tir.FloorMod")
MINITVM_TIR_BINARY_NODE(Min, "tir.Min")
MINITVM_TIR_BINARY_NODE(Max, "tir.Max")
MINITVM_TIR_BINARY_NODE(EQ, "tir.EQ")
MINITVM_TIR_BINARY_NODE(NE, "tir.NE")
MINITVM_TIR_BINARY_NODE(LT, "tir.LT")
MINITVM_TIR_BINARY_NODE(LE, "tir.LE")
MINITVM_TIR_BINARY_NODE(GT, "tir.GT")
MINITVM_TIR_BINARY_NODE(GE, "tir.GE")
MINITVM_TIR_BINARY_NODE(And, "tir.And")
MINITVM_TIR_BINARY_NODE(Or, "tir.Or")
#undef MINITVM_TIR_BINARY_NODE

/*! \brief Logical not of a bool. */
class NotNode : public PrimExprNode {
 public:
  /*! \brief The negated boolean operand. */
  PrimExpr a;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("a", &a);
  }
  MINITVM_DECLARE_OBJECT_INFO(NotNode, PrimExprNode, "tir.Not");
};
class Not : public PrimExpr {
 public:
  explicit Not(PrimExpr a);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Not, PrimExpr, NotNode);
};

/*! \brief `condition ? true_value : false_value`; both sides are evaluated. */
class SelectNode : public PrimExprNode {
 public:
  /*! \brief Boolean condition (both values are evaluated). */
  PrimExpr condition;
  /*! \brief Value when the condition holds. */
  PrimExpr true_value;
  /*! \brief Value otherwise. */
  PrimExpr false_value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("condition", &condition);
    v->Visit("true_value", &true_value);
    v->Visit("false_value", &false_value);
  }
  MINITVM_DECLARE_OBJECT_INFO(SelectNode, PrimExprNode, "tir.Select");
};
class Select : public PrimExpr {
 public:
  Select(PrimExpr condition, PrimExpr true_value, PrimExpr false_value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Select, PrimExpr, SelectNode);
};

/*! \brief Read `buffer[indices]`. With a Ramp index the result is a vector. */
class BufferLoadNode : public PrimExprNode {
 public:
  /*! \brief The buffer read. */
  Buffer buffer;
  /*! \brief One index per dimension (a Ramp for a vector load). */
  Array<PrimExpr> indices;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("buffer", &buffer);
    v->Visit("indices", &indices);
  }
  MINITVM_DECLARE_OBJECT_INFO(BufferLoadNode, PrimExprNode, "tir.BufferLoad");
};
class BufferLoad : public PrimExpr {
 public:
  /*! \brief ValueError when the number of indices is not the buffer's rank. */
  BufferLoad(Buffer buffer, Array<PrimExpr> indices);
  MINITVM_DEFINE_OBJECT_REF_METHODS(BufferLoad, PrimExpr, BufferLoadNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(BufferLoadNode);
};

/*! \brief The vector `[base, base + stride, ..., base + (lanes-1) * stride]`. */
class RampNode : public PrimExprNode {
 public:
  /*! \brief First element. */
  PrimExpr base;
  /*! \brief Distance between consecutive lanes. */
  PrimExpr stride;
  /*! \brief Number of lanes. */
  int64_t lanes;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("base", &base);
    v->Visit("stride", &stride);
    v->Visit("lanes", &lanes);
  }
  MINITVM_DECLARE_OBJECT_INFO(RampNode, PrimExprNode, "tir.Ramp");
};
class Ramp : public PrimExpr {
 public:
  Ramp(PrimExpr base, PrimExpr stride, int64_t lanes);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Ramp, PrimExpr, RampNode);
};

/*! \brief A scalar repeated over `lanes`. */
class BroadcastNode : public PrimExprNode {
 public:
  /*! \brief The scalar repeated in every lane. */
  PrimExpr value;
  /*! \brief Number of lanes. */
  int64_t lanes;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("value", &value);
    v->Visit("lanes", &lanes);
  }
  MINITVM_DECLARE_OBJECT_INFO(BroadcastNode, PrimExprNode, "tir.Broadcast");
};
class Broadcast : public PrimExpr {
 public:
  Broadcast(PrimExpr value, int64_t lanes);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Broadcast, PrimExpr, BroadcastNode);
};

/*! \brief `let var = value in body` as an expression. */
class LetNode : public PrimExprNode {
 public:
  /*! \brief The variable bound. */
  Var var;
  /*! \brief Its value. */
  PrimExpr value;
  /*! \brief The expression in which `var` is bound. */
  PrimExpr body;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("value", &value);
    v->VisitBinding("var", &var);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(LetNode, PrimExprNode, "tir.Let");
};
class Let : public PrimExpr {
 public:
  Let(Var var, PrimExpr value, PrimExpr body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Let, PrimExpr, LetNode);
};

/*!
 * \brief A call of an intrinsic or an external function.
 *
 * `op` names the callee: "tir.exp", "tir.log", "tir.sqrt", "tir.rsqrt", "tir.tanh",
 * "tir.sigmoid", "tir.erf", "tir.fabs", "tir.pow", "tir.floor", "tir.ceil", "tir.round",
 * "tir.if_then_else", "tir.likely", "tir.reinterpret", or "tir.call_extern" whose first
 * argument is a StringImm with the external function's name. Lowering adds its own
 * ("tir.tvm_struct_get", ...).
 */
class CallNode : public PrimExprNode {
 public:
  /*! \brief The operator's name, e.g. "tir.exp" or "tir.if_then_else". */
  String op;
  /*! \brief The arguments. */
  Array<PrimExpr> args;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("op", &op);
    v->Visit("args", &args);
  }
  MINITVM_DECLARE_OBJECT_INFO(CallNode, PrimExprNode, "tir.Call");
};
class Call : public PrimExpr {
 public:
  Call(DataType dtype, String op, Array<PrimExpr> args);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Call, PrimExpr, CallNode);
};

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_EXPR_H_
