/*!
 * \file minitvm/relax/struct_info.h
 * \brief StructInfo (stage 4): the structural type of every Relax value — what it is (tensor,
 * shape, tuple, function, scalar, opaque object) and, as far as known at compile time, its
 * dtype, rank and shape, with symbolic dimensions as `tir::Var`s.
 *
 * `R.Tensor((n, 784), "float32")` is `TensorStructInfo(ShapeExpr([n, 784]), float32)`; an
 * unknown rank is `ndim == kUnknownNDim`, an unknown dtype is `DataType::Void()`. StructInfo is
 * ordered by precision: `IsBaseOf(base, derived)` says every value described by `derived` is
 * also described by `base` (`R.Tensor(ndim=2)` is a base of `R.Tensor((4, 8), "float32")`).
 * Arguments are checked against parameters with it, and `R.match_cast` narrows with it.
 */
#ifndef MINITVM_RELAX_STRUCT_INFO_H_
#define MINITVM_RELAX_STRUCT_INFO_H_

#include <optional>
#include <string>

#include "minitvm/ir/expr.h"
#include "minitvm/ir/global_info.h"
#include "minitvm/tir/var.h"

namespace minitvm {
namespace relax {

/*! \brief A Relax expression. Relax shares the expression base with TIR (`ir/expr.h`). */
using Expr = BaseExpr;
using ExprNode = BaseExprNode;

/*! \brief The rank of a tensor or shape whose rank is not known. */
constexpr int kUnknownNDim = -1;

/*! \brief Base of all struct infos. */
class StructInfoNode : public Object {
 public:
  MINITVM_DECLARE_OBJECT_INFO(StructInfoNode, Object, "StructInfo");
};
/*! \brief Handle to any struct info. */
class StructInfo : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(StructInfo, ObjectRef, StructInfoNode);
};

/*! \brief Any value at all (`R.Object`): the least precise struct info. */
class ObjectStructInfoNode : public StructInfoNode {
 public:
  void VisitAttrs(AttrVisitor* v) override {}
  MINITVM_DECLARE_OBJECT_INFO(ObjectStructInfoNode, StructInfoNode, "relax.ObjectStructInfo");
};
class ObjectStructInfo : public StructInfo {
 public:
  ObjectStructInfo();
  // Never null: the default constructor above makes the node.
  MINITVM_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(ObjectStructInfo, StructInfo, ObjectStructInfoNode);
};

/*! \brief A scalar of `dtype` (`R.Prim("int64")`), with its value when known (`R.Prim(value=n)`).
 */
class PrimStructInfoNode : public StructInfoNode {
 public:
  /*! \brief The scalar's dtype. */
  DataType dtype;
  /*! \brief The value when known (a constant or a symbolic expression), else undefined. */
  PrimExpr value;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("value", &value);
  }
  MINITVM_DECLARE_OBJECT_INFO(PrimStructInfoNode, StructInfoNode, "relax.PrimStructInfo");
};
class PrimStructInfo : public StructInfo {
 public:
  explicit PrimStructInfo(DataType dtype);
  /*! \brief A scalar whose value is `value` (its dtype is the value's). */
  explicit PrimStructInfo(PrimExpr value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(PrimStructInfo, StructInfo, PrimStructInfoNode);
};

/*! \brief A shape value (`R.Shape([n, 4])` or `R.Shape(ndim=2)`). */
class ShapeStructInfoNode : public StructInfoNode {
 public:
  /*! \brief The dimensions when known, else undefined (then only `ndim` may be known). */
  Array<PrimExpr> values;
  /*! \brief The number of dimensions, or kUnknownNDim. */
  int64_t ndim = kUnknownNDim;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("values", &values);
    v->Visit("ndim", &ndim);
  }
  bool IsUnknownNdim() const { return ndim == kUnknownNDim; }
  MINITVM_DECLARE_OBJECT_INFO(ShapeStructInfoNode, StructInfoNode, "relax.ShapeStructInfo");
};
class ShapeStructInfo : public StructInfo {
 public:
  /*! \brief A shape with known dimensions (ndim is their count). */
  explicit ShapeStructInfo(Array<PrimExpr> values);
  /*! \brief A shape of known (or unknown: kUnknownNDim) rank only. */
  explicit ShapeStructInfo(int64_t ndim);
  MINITVM_DEFINE_OBJECT_REF_METHODS(ShapeStructInfo, StructInfo, ShapeStructInfoNode);
};

/*! \brief A tensor: dtype (Void when unknown), rank, and shape when known. */
class TensorStructInfoNode : public StructInfoNode {
 public:
  /*!
   * \brief The shape: a `ShapeExpr` when the dimensions are known, a Relax `Var` of shape struct
   * info when the shape is another value's, or undefined when unknown.
   */
  Expr shape;
  /*! \brief The element type; `DataType::Void()` when unknown. */
  DataType dtype;
  /*! \brief The virtual device the tensor lives on; undefined when unspecified. */
  VDevice vdevice;
  /*! \brief The rank, or kUnknownNDim. */
  int64_t ndim = kUnknownNDim;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("shape", &shape);
    v->Visit("dtype", &dtype);
    v->Visit("vdevice", &vdevice);
    v->Visit("ndim", &ndim);
  }
  bool IsUnknownNdim() const { return ndim == kUnknownNDim; }
  bool IsUnknownDtype() const { return dtype.is_void(); }
  /*! \brief The dimensions when the shape is a ShapeExpr (or a var of known shape values). */
  std::optional<Array<PrimExpr>> GetShape() const;
  MINITVM_DECLARE_OBJECT_INFO(TensorStructInfoNode, StructInfoNode, "relax.TensorStructInfo");
};
class TensorStructInfo : public StructInfo {
 public:
  /*! \brief A tensor whose shape is `shape` (a ShapeExpr or a shape-typed Var). */
  TensorStructInfo(Expr shape, DataType dtype, VDevice vdevice = VDevice());
  /*! \brief A tensor of unknown shape, with rank `ndim` (kUnknownNDim: unknown). */
  TensorStructInfo(DataType dtype, int64_t ndim, VDevice vdevice = VDevice());
  MINITVM_DEFINE_OBJECT_REF_METHODS(TensorStructInfo, StructInfo, TensorStructInfoNode);
};

/*! \brief A tuple (`R.Tuple(R.Tensor(...), R.Shape(...))`). */
class TupleStructInfoNode : public StructInfoNode {
 public:
  Array<StructInfo> fields;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("fields", &fields); }
  MINITVM_DECLARE_OBJECT_INFO(TupleStructInfoNode, StructInfoNode, "relax.TupleStructInfo");
};
class TupleStructInfo : public StructInfo {
 public:
  explicit TupleStructInfo(Array<StructInfo> fields);
  MINITVM_DEFINE_OBJECT_REF_METHODS(TupleStructInfo, StructInfo, TupleStructInfoNode);
};

/*! \brief A function: its parameters' and result's struct info, and whether it is pure. */
class FuncStructInfoNode : public StructInfoNode {
 public:
  /*! \brief The parameters; undefined for an opaque function (any arguments). */
  Array<StructInfo> params;
  /*! \brief The result. */
  StructInfo ret;
  /*! \brief Whether calling it has no visible side effect. */
  bool purity = true;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("params", &params);
    v->Visit("ret", &ret);
    v->Visit("purity", &purity);
  }
  bool IsOpaque() const { return !params.defined(); }
  MINITVM_DECLARE_OBJECT_INFO(FuncStructInfoNode, StructInfoNode, "relax.FuncStructInfo");
};
class FuncStructInfo : public StructInfo {
 public:
  FuncStructInfo(Array<StructInfo> params, StructInfo ret, bool purity = true);
  /*! \brief An opaque function returning `ret`. */
  static FuncStructInfo OpaqueFunc(StructInfo ret = ObjectStructInfo(), bool purity = false);
  MINITVM_DEFINE_OBJECT_REF_METHODS(FuncStructInfo, StructInfo, FuncStructInfoNode);
};

// ---- queries --------------------------------------------------------------------------------

/*! \brief The struct info of a normalised expression; InternalError when it has none. */
StructInfo GetStructInfo(const Expr& expr);
/*! \brief The struct info as `T`, or null when it has none or is of another kind. */
template <typename T>
const T* GetStructInfoAs(const Expr& expr) {
  return expr->struct_info_.defined() ? expr->struct_info_.as<T>() : nullptr;
}
/*! \brief Set the struct info of a freshly made expression (the normaliser's job). */
void UpdateStructInfo(const Expr& expr, const StructInfo& info);

/*!
 * \brief Whether every value described by `derived` is also described by `base`. Symbolic
 * dimensions compare by provable equality (`n` vs `n` yes, `n` vs `m` no, `n` vs 4 no).
 */
bool IsBaseOf(const StructInfo& base, const StructInfo& derived);
/*!
 * \brief Whether `derived` *might* match `base` at run time (what `R.match_cast` and argument
 * checks with symbolic dimensions need: `R.Tensor((n, 4))` may match `R.Tensor((8, 4))`).
 */
bool MayBeBaseOf(const StructInfo& base, const StructInfo& derived);
/*! \brief The most precise struct info describing both (`R.Tensor((4,))` ∪ `R.Tensor((8,))` is
 * `R.Tensor(ndim=1)`). */
StructInfo StructInfoLCA(const StructInfo& a, const StructInfo& b);
/*! \brief The struct info as TVMScript text (`R.Tensor((n, 784), dtype="float32")`), for messages.
 */
std::string StructInfoToString(const StructInfo& info);
/*!
 * \brief The symbolic shape variables that `info` *defines* (the first time each tir::Var appears
 * as a whole dimension), in order. A function's parameters define its shape variables.
 */
Array<tir::Var> DefinableTIRVarsInStructInfo(const StructInfo& info);
/*! \brief Every tir::Var used anywhere in `info`. */
Array<tir::Var> TIRVarsInStructInfo(const StructInfo& info);

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_STRUCT_INFO_H_
