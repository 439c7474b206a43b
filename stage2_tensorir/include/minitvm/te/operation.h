/*!
 * \file minitvm/te/operation.h
 * \brief The operations of the tensor-expression language (stage 2): `placeholder` (an
 * input) and `compute` (a tensor defined element by element, possibly with a reduction),
 * plus the variables TE programs use (`var`, `size_var`, `reduce_axis`).
 *
 * A compute is only a *definition*: "element (i, j) of C is sum over k of A(i, k) * B(k, j)".
 * `create_prim_func` (create_prim_func.h) turns a set of computes into a block-based PrimFunc
 * that the interpreter runs and schedules transform.
 */
#ifndef MINITVM_TE_OPERATION_H_
#define MINITVM_TE_OPERATION_H_

#include <functional>
#include <string>
#include <vector>

#include "minitvm/te/reduce.h"
#include "minitvm/te/tensor.h"

namespace minitvm {
namespace te {

/*! \brief An input tensor: only a shape, a dtype and a name. */
class PlaceholderOpNode : public OperationNode {
 public:
  Array<PrimExpr> shape;
  DataType dtype;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("name", &name);
    v->Visit("tag", &tag);
    v->Visit("attrs", &attrs);
    v->Visit("shape", &shape);
    v->Visit("dtype", &dtype);
  }
  int num_outputs() const override { return 1; }
  Array<PrimExpr> output_shape(int i) const override { return shape; }
  DataType output_dtype(int i) const override { return dtype; }
  std::vector<Tensor> InputTensors() const override { return {}; }
  MINITVM_DECLARE_OBJECT_INFO(PlaceholderOpNode, OperationNode, "te.PlaceholderOp");
};

/*!
 * \brief A tensor defined by an expression of its indices.
 *
 * `axis` holds one spatial IterVar per output dimension (domain [0, shape[d])); `body` one
 * expression per output. When the body is a reduction, every body element is a `Reduce`
 * over the same `reduce_axis` (a tuple reduction such as argmax has several).
 */
class ComputeOpNode : public OperationNode {
 public:
  Array<IterVar> axis;
  Array<IterVar> reduce_axis;
  Array<PrimExpr> body;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("name", &name);
    v->Visit("tag", &tag);
    v->Visit("attrs", &attrs);
    v->VisitBinding("axis", &axis);
    v->VisitBinding("reduce_axis", &reduce_axis);
    v->Visit("body", &body);
  }
  int num_outputs() const override { return static_cast<int>(body.size()); }
  Array<PrimExpr> output_shape(int i) const override;
  DataType output_dtype(int i) const override { return body[i].dtype(); }
  std::vector<Tensor> InputTensors() const override;
  MINITVM_DECLARE_OBJECT_INFO(ComputeOpNode, OperationNode, "te.ComputeOp");
};

/*! \brief Handle to a compute operation. */
class ComputeOp : public Operation {
 public:
  /*!
   * \brief Build a compute op directly. ValueError when a body mixes reductions and plain
   * expressions, a reduction is not at the top of the body, or the reductions differ.
   */
  ComputeOp(std::string name, std::string tag, Map<String, Any> attrs, Array<IterVar> axis,
            Array<PrimExpr> body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(ComputeOp, Operation, ComputeOpNode);
};

/*! \brief An input tensor of `shape` and `dtype`, like `te.placeholder`. */
Tensor placeholder(Array<PrimExpr> shape, DataType dtype = DataType::Float(32),
                   std::string name = "placeholder");

/*! \brief The element function of a compute: the axis variables → the element's value. */
using FCompute = std::function<PrimExpr(const Array<Var>& i)>;
/*! \brief The element function of a multi-output compute. */
using FBatchCompute = std::function<Array<PrimExpr>(const Array<Var>& i)>;

/*!
 * \brief A tensor of `shape` whose element at `i` is `fcompute(i)`, like `te.compute`.
 *
 * The axis variables are named `axis_names` when given, else `ax0, ax1, ...` (TVM's C++
 * naming; Python takes the lambda's parameter names). The loops and block variables of the
 * PrimFunc that `create_prim_func` builds are named after them (`ax0`, `v_ax0`).
 */
Tensor compute(Array<PrimExpr> shape, FCompute fcompute, std::string name = "compute",
               std::string tag = "", Map<String, Any> attrs = {},
               std::vector<std::string> axis_names = {});
/*! \brief A compute with several outputs of the same shape (one per returned expression). */
Array<Tensor> compute(Array<PrimExpr> shape, FBatchCompute fcompute, std::string name = "compute",
                      std::string tag = "", Map<String, Any> attrs = {},
                      std::vector<std::string> axis_names = {});
/*! \brief Overloads taking one variable per dimension: `compute({n}, [&](Var i) {...})`. */
Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var)> f, std::string name = "compute",
               std::string tag = "", Map<String, Any> attrs = {},
               std::vector<std::string> axis_names = {});
Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var, Var)> f,
               std::string name = "compute", std::string tag = "", Map<String, Any> attrs = {},
               std::vector<std::string> axis_names = {});
Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var, Var, Var)> f,
               std::string name = "compute", std::string tag = "", Map<String, Any> attrs = {},
               std::vector<std::string> axis_names = {});
Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var, Var, Var, Var)> f,
               std::string name = "compute", std::string tag = "", Map<String, Any> attrs = {},
               std::vector<std::string> axis_names = {});

/*! \brief A reduction axis over `dom`, like `te.reduce_axis((0, n), "k")`. */
IterVar reduce_axis(Range dom, std::string name = "rv");
/*! \brief A scalar variable (a symbolic parameter), like `te.var`. */
Var var(std::string name = "tindex", DataType dtype = DataType::Int(32));
/*! \brief A variable known to be non-negative (a symbolic size), like `te.size_var`. */
Var size_var(std::string name = "size", DataType dtype = DataType::Int(32));

/*!
 * \brief The operations that `outputs` depend on, each after its inputs (a topological
 * order); placeholders included.
 */
std::vector<Operation> PostOrderOps(const std::vector<Tensor>& outputs);

}  // namespace te
}  // namespace minitvm

#endif  // MINITVM_TE_OPERATION_H_
