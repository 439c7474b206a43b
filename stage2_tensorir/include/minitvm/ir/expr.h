/*!
 * \file minitvm/ir/expr.h
 * \brief The expression base classes shared by TensorIR and Relax (stage 2): `BaseExpr`,
 * `PrimExpr` (a scalar/vector value with a dtype), the immediates `IntImm` and `FloatImm`, and
 * `Range`.
 */
#ifndef MINITVM_IR_EXPR_H_
#define MINITVM_IR_EXPR_H_

#include <cstdint>
#include <string>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/reflection.h"

namespace minitvm {

// The runtime vocabulary is used everywhere in the IR.
using runtime::Any;
using runtime::Array;
using runtime::AttrVisitor;
using runtime::DataType;
using runtime::Downcast;
using runtime::GetRef;
using runtime::make_object;
using runtime::Map;
using runtime::Object;
using runtime::ObjectPtr;
using runtime::ObjectPtrEqual;
using runtime::ObjectPtrHash;
using runtime::ObjectRef;
using runtime::String;

/*! \brief Base of every expression node (TIR and Relax). */
class BaseExprNode : public Object {
 public:
  /*!
   * \brief Relax's structural type of this expression (a `relax::StructInfo`), filled in by the
   * Relax BlockBuilder when it normalises the expression; undefined for TIR expressions. Not a
   * reflected field: it is derived information, so it takes no part in structural equality
   * (Relax variables list it as a field of their own, where it is part of the definition).
   */
  mutable ObjectRef struct_info_;
  MINITVM_DECLARE_OBJECT_INFO(BaseExprNode, Object, "ir.BaseExpr");
};
/*! \brief Handle to any expression. */
class BaseExpr : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(BaseExpr, ObjectRef, BaseExprNode);
};

/*! \brief Base of TensorIR expressions: every one has a dtype. */
class PrimExprNode : public BaseExprNode {
 public:
  /*! \brief The type of the value. */
  DataType dtype;
  MINITVM_DECLARE_OBJECT_INFO(PrimExprNode, BaseExprNode, "ir.PrimExpr");
};

/*!
 * \brief Handle to a TensorIR expression. Converts implicitly from C++ numbers: an int
 * becomes an int32 IntImm, a float or double a float32 FloatImm.
 */
class PrimExpr : public BaseExpr {
 public:
  PrimExpr(int value);      // NOLINT(*)
  PrimExpr(int64_t value);  // NOLINT(*)  int32 when it fits, else int64
  PrimExpr(float value);    // NOLINT(*)
  PrimExpr(double value);   // NOLINT(*)  float32, as in TVM
  DataType dtype() const { return get()->dtype; }
  MINITVM_DEFINE_OBJECT_REF_METHODS(PrimExpr, BaseExpr, PrimExprNode);
};

/*! \brief An integer (or bool) constant. */
class IntImmNode : public PrimExprNode {
 public:
  /*! \brief The integer value (fits the dtype). */
  int64_t value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("value", &value);
  }
  MINITVM_DECLARE_OBJECT_INFO(IntImmNode, PrimExprNode, "ir.IntImm");
};
class IntImm : public PrimExpr {
 public:
  /*! \brief ValueError when the value does not fit the dtype or the dtype is not int/bool. */
  IntImm(DataType dtype, int64_t value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(IntImm, PrimExpr, IntImmNode);
};

/*! \brief A floating-point constant. */
class FloatImmNode : public PrimExprNode {
 public:
  /*! \brief The floating-point value. */
  double value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("value", &value);
  }
  MINITVM_DECLARE_OBJECT_INFO(FloatImmNode, PrimExprNode, "ir.FloatImm");
};
class FloatImm : public PrimExpr {
 public:
  FloatImm(DataType dtype, double value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(FloatImm, PrimExpr, FloatImmNode);
};

/*! \brief A half-open range [min, min + extent). */
class RangeNode : public Object {
 public:
  /*! \brief First value. */
  PrimExpr min;
  /*! \brief Number of values. */
  PrimExpr extent;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("min", &min);
    v->Visit("extent", &extent);
  }
  MINITVM_DECLARE_OBJECT_INFO(RangeNode, Object, "ir.Range");
};
class Range : public ObjectRef {
 public:
  Range(PrimExpr min, PrimExpr extent);
  /*! \brief [begin, end): extent is end - begin. */
  static Range FromMinExtent(PrimExpr min, PrimExpr extent) { return Range(min, extent); }
  MINITVM_DEFINE_OBJECT_REF_METHODS(Range, ObjectRef, RangeNode);
};

/*! \brief The value of an IntImm, or nullopt for anything else. */
inline std::optional<int64_t> AsConstInt(const PrimExpr& e) {
  if (auto* imm = e.as<IntImmNode>()) return imm->value;
  return std::nullopt;
}

}  // namespace minitvm

namespace minitvm {
namespace runtime {
/*! \brief Any → PrimExpr: ints become int32 (int64 if large), floats float32, bools bool. */
template <>
struct AnyConverter<PrimExpr> {
  static bool Check(const Any& a) {
    return a.is_int() || a.is_float() || a.is_bool() || a.as<PrimExprNode>() != nullptr;
  }
  static PrimExpr Convert(const Any& a);
};
}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_IR_EXPR_H_
