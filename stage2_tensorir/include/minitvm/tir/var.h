/*!
 * \file minitvm/tir/var.h
 * \brief Variables of TensorIR (stage 2): `Var`, `SizeVar` (a non-negative size) and
 * `IterVar` (a block iterator or a thread axis with its domain and kind).
 */
#ifndef MINITVM_TIR_VAR_H_
#define MINITVM_TIR_VAR_H_

#include <string>

#include "minitvm/ir/expr.h"

namespace minitvm {
namespace tir {

/*! \brief A variable. Identity matters: two Vars with the same name are different. */
class VarNode : public PrimExprNode {
 public:
  /*! \brief Name for printing; variables compare by identity, not by name. */
  String name_hint;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("name_hint", &name_hint);
    v->Visit("dtype", &dtype);
  }
  MINITVM_DECLARE_OBJECT_INFO(VarNode, PrimExprNode, "tir.Var");
};
class Var : public PrimExpr {
 public:
  explicit Var(String name_hint, DataType dtype = DataType::Int(32));
  /*! \brief A fresh variable with the same dtype and a name with a suffix. */
  Var copy_with_suffix(const std::string& suffix) const;
  /*! \brief A fresh variable with the same dtype and another name. */
  Var copy_with_name(const std::string& name) const;
  MINITVM_DEFINE_OBJECT_REF_METHODS(Var, PrimExpr, VarNode);
};

/*! \brief A variable known to be >= 0 (a symbolic shape). */
class SizeVarNode : public VarNode {
 public:
  MINITVM_DECLARE_OBJECT_INFO(SizeVarNode, VarNode, "tir.SizeVar");
};
class SizeVar : public Var {
 public:
  explicit SizeVar(String name_hint, DataType dtype = DataType::Int(32));
  MINITVM_DEFINE_OBJECT_REF_METHODS(SizeVar, Var, SizeVarNode);
};

/*! \brief The kind of an IterVar, as TVM numbers them. */
enum IterVarType : int {
  kDataPar = 0,      ///< spatial ("S")
  kThreadIndex = 1,  ///< a thread axis (blockIdx.x, threadIdx.x, vthread)
  kCommReduce = 2,   ///< reduction ("R")
  kOrdered = 3,      ///< scan
  kOpaque = 4,       ///< opaque ("O")
};

/*! \brief A block iterator (or thread axis): its domain, variable, kind and thread tag. */
class IterVarNode : public Object {
 public:
  /*! \brief The range the iterator covers. */
  Range dom;
  /*! \brief The variable that carries its value. */
  Var var;
  /*! \brief Data-parallel, reduction, ordered or opaque. */
  IterVarType iter_type = kDataPar;
  /*! \brief For a thread-bound iterator, e.g. "threadIdx.x"; else empty. */
  String thread_tag;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dom", &dom);
    v->VisitBinding("var", &var);
    v->Visit("iter_type", &iter_type);
    v->Visit("thread_tag", &thread_tag);
  }
  MINITVM_DECLARE_OBJECT_INFO(IterVarNode, Object, "tir.IterVar");
};
class IterVar : public ObjectRef {
 public:
  IterVar(Range dom, Var var, IterVarType iter_type, String thread_tag = "");
  MINITVM_DEFINE_OBJECT_REF_METHODS(IterVar, ObjectRef, IterVarNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(IterVarNode);
};

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_VAR_H_
