/*!
 * \file minitvm/tir/function.h
 * \brief `PrimFunc` (stage 2): a TensorIR function — parameters (handles and scalars), the
 * buffers bound to handle parameters, a body and attributes ("global_symbol", "tir.noalias").
 */
#ifndef MINITVM_TIR_FUNCTION_H_
#define MINITVM_TIR_FUNCTION_H_

#include "minitvm/ir/function.h"
#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace tir {

/*! \brief The node of a PrimFunc. */
class PrimFuncNode : public BaseFuncNode {
 public:
  /*! \brief Parameters: handle Vars (bound to buffers in buffer_map) or scalar Vars. */
  Array<Var> params;
  /*! \brief Handle parameter → the Buffer it points at. */
  Map<Var, Buffer> buffer_map;
  /*! \brief The function body. */
  Stmt body;
  DataType ret_type = DataType::Void();
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("params", &params);
    v->VisitBinding("buffer_map", &buffer_map);
    v->Visit("ret_type", &ret_type);
    v->Visit("attrs", &attrs);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(PrimFuncNode, BaseFuncNode, "tir.PrimFunc");
};

class PrimFunc : public BaseFunc {
 public:
  PrimFunc(Array<Var> params, Stmt body, Map<Var, Buffer> buffer_map = {},
           Map<String, Any> attrs = {}, DataType ret_type = DataType::Void());
  MINITVM_DEFINE_OBJECT_REF_METHODS(PrimFunc, BaseFunc, PrimFuncNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(PrimFuncNode);
};

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_FUNCTION_H_
