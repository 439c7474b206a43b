/*!
 * \file tensor.cc
 * \brief Tensors and operation outputs of the tensor-expression language (stage 2).
 */
#include "minitvm/te/tensor.h"

namespace minitvm {
namespace te {

Tensor Operation::output(int i) const {
  if (i < 0 || i >= get()->num_outputs()) {
    MINITVM_THROW(IndexError) << "operation " << get()->name << " has " << get()->num_outputs()
                              << " output(s); output " << i << " does not exist";
  }
  return Tensor(*this, i);
}

Tensor::Tensor(Operation op, int64_t value_index) {
  if (!op.defined()) MINITVM_THROW(ValueError) << "Tensor: undefined operation";
  auto n = make_object<TensorNode>();
  n->shape = op->output_shape(static_cast<int>(value_index));
  n->dtype = op->output_dtype(static_cast<int>(value_index));
  n->op = op;
  n->value_index = value_index;
  std::string name =
      op->num_outputs() == 1 ? op->name.str() : op->name.str() + "_v" + std::to_string(value_index);
  auto b = make_object<TensorBufferNode>();
  b->data = Var(name, DataType::Handle());
  b->dtype = n->dtype;
  b->shape = n->shape;
  b->elem_offset = IntImm(n->shape.empty() ? DataType::Int(64) : DataType::Int(32), 0);
  b->name = name;
  b->op = op;
  b->value_index = value_index;
  n->buffer = Buffer(ObjectPtr<Object>(std::move(b)));
  data_ = std::move(n);
}

PrimExpr Tensor::operator()(Array<PrimExpr> indices) const {
  return tir::BufferLoad(get()->buffer, std::move(indices));
}

PrimExpr Tensor::operator()(const Array<Var>& indices) const {
  Array<PrimExpr> idx;
  for (const Var& v : indices) idx.push_back(v);
  return (*this)(idx);
}

std::string Tensor::name() const { return get()->buffer->name.str(); }

Tensor TensorOfBuffer(const Buffer& buffer) {
  if (auto* tb = buffer.as<TensorBufferNode>()) return Tensor(tb->op, tb->value_index);
  return Tensor();
}

}  // namespace te
}  // namespace minitvm
