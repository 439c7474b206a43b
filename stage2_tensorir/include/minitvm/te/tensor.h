/*!
 * \file minitvm/te/tensor.h
 * \brief Tensors and operations of the tensor-expression language (stage 2): an `Operation`
 * (a placeholder or a compute) produces one or more `Tensor`s; indexing a tensor builds a
 * load expression that other computes use.
 *
 * Design note: TVM represents `A[i]` inside a compute body with a special `ProducerLoad`
 * node. minitvm uses a plain `tir::BufferLoad` instead, on a `TensorBuffer` — a Buffer that
 * remembers the operation and output index it stands for. Every TIR visitor, mutator and
 * printer therefore already understands TE bodies, and `create_prim_func` only has to swap
 * each TensorBuffer for the real buffer of the PrimFunc it builds.
 */
#ifndef MINITVM_TE_TENSOR_H_
#define MINITVM_TE_TENSOR_H_

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "minitvm/tir/buffer.h"
#include "minitvm/tir/expr.h"

namespace minitvm {
namespace te {

using tir::Buffer;
using tir::IterVar;
using tir::Var;

class Tensor;

/*!
 * \brief Base of operations: a named producer of tensors.
 *
 * `tag` classifies the operation for schedules ("elemwise", "broadcast", "injective", ...),
 * `attrs` carries free-form annotations that `create_prim_func` copies onto the block.
 */
class OperationNode : public Object {
 public:
  String name;
  String tag;
  Map<String, Any> attrs;
  /*! \brief How many tensors this operation produces. */
  virtual int num_outputs() const = 0;
  /*! \brief The shape of output i. */
  virtual Array<PrimExpr> output_shape(int i) const = 0;
  /*! \brief The dtype of output i. */
  virtual DataType output_dtype(int i) const = 0;
  /*! \brief The tensors this operation reads (in first-use order, no duplicates). */
  virtual std::vector<Tensor> InputTensors() const = 0;
  MINITVM_DECLARE_OBJECT_INFO(OperationNode, Object, "te.Operation");
};

/*! \brief Handle to an operation. */
class Operation : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(Operation, ObjectRef, OperationNode);
  /*! \brief Output i as a tensor; IndexError when i is out of range. */
  Tensor output(int i) const;
};

/*! \brief The node of a Tensor: one output of an operation. */
class TensorNode : public Object {
 public:
  Array<PrimExpr> shape;
  DataType dtype;
  Operation op;
  int64_t value_index = 0;
  /*! \brief The TensorBuffer that loads of this tensor refer to. */
  Buffer buffer;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("shape", &shape);
    v->Visit("dtype", &dtype);
    v->Visit("op", &op);
    v->Visit("value_index", &value_index);
  }
  MINITVM_DECLARE_OBJECT_INFO(TensorNode, Object, "te.Tensor");
};

/*!
 * \brief Handle to a tensor. `A(i, j)` (or `A({i, j})`) is the load of element (i, j);
 * integer indices of another width are converted to the shape's index type.
 */
class Tensor : public ObjectRef {
 public:
  /*! \brief Output `value_index` of `op`. */
  Tensor(Operation op, int64_t value_index);
  /*! \brief The load `this[indices]`; ValueError on a rank mismatch. */
  PrimExpr operator()(Array<PrimExpr> indices) const;
  /*! \brief The load `this[indices]` with the variables of a compute's axes. */
  PrimExpr operator()(const Array<Var>& indices) const;
  /*! \brief `A(i, j)`: each argument converts to a PrimExpr. */
  template <typename... Args>
  requires(std::is_convertible_v<Args, PrimExpr>&&...) PrimExpr operator()(Args&&... args) const {
    return (*this)(Array<PrimExpr>{PrimExpr(std::forward<Args>(args))...});
  }
  /*! \brief The rank. */
  size_t ndim() const { return get()->shape.size(); }
  /*! \brief The name of the tensor: the op name, with `_v<i>` for multi-output ops. */
  std::string name() const;
  /*! \brief True when both handles denote the same output of the same operation. */
  bool IsSame(const Tensor& other) const {
    return get()->op.same_as(other->op) && get()->value_index == other->value_index;
  }
  MINITVM_DEFINE_OBJECT_REF_METHODS(Tensor, ObjectRef, TensorNode);
};

/*!
 * \brief The buffer that loads of a tensor use inside TE bodies: a `tir::Buffer` that also
 * records which operation output it stands for.
 */
class TensorBufferNode : public tir::BufferNode {
 public:
  Operation op;
  int64_t value_index = 0;
  MINITVM_DECLARE_OBJECT_INFO(TensorBufferNode, tir::BufferNode, "te.TensorBuffer");
};

/*! \brief The tensor a buffer stands for, when it is a TensorBuffer; else an undefined Tensor. */
Tensor TensorOfBuffer(const Buffer& buffer);

}  // namespace te
}  // namespace minitvm

#endif  // MINITVM_TE_TENSOR_H_
