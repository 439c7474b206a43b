/*!
 * \file operation.cc
 * \brief placeholder and compute, their operation nodes, and the TE variables (stage 2).
 */
#include "minitvm/te/operation.h"

#include <unordered_set>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace te {

namespace {

/*! \brief Collects the tensors an expression loads, looking through Reduce nodes. */
class InputCollector : public tir::ExprVisitor {
 public:
  std::vector<Tensor> tensors;
  void VisitExpr(const PrimExpr& e) override {
    if (auto* r = e.as<ReduceNode>()) {
      for (const PrimExpr& s : r->source) VisitExpr(s);
      for (const PrimExpr& s : r->init) VisitExpr(s);
      VisitExpr(r->condition);
      return;
    }
    tir::ExprVisitor::VisitExpr(e);
  }
  void VisitExpr_(const tir::BufferLoadNode* op) override {
    if (auto* tb = op->buffer.as<TensorBufferNode>()) {
      bool seen = false;
      for (const Tensor& t : tensors) {
        seen = seen || (t->op.same_as(tb->op) && t->value_index == tb->value_index);
      }
      if (!seen) tensors.push_back(Tensor(tb->op, tb->value_index));
    }
    tir::ExprVisitor::VisitExpr_(op);
  }
};

/*! \brief Fails when a Reduce appears below the top of a compute body. */
class NestedReduceChecker : public tir::ExprVisitor {
 public:
  explicit NestedReduceChecker(const std::string& name) : name_(name) {}
  void VisitExpr(const PrimExpr& e) override {
    if (e.as<ReduceNode>()) {
      MINITVM_THROW(ValueError) << "compute " << name_
                                << ": a reduction (te.sum/max/min) must be the whole body of a "
                                   "compute, not part of a larger expression; compute it in its "
                                   "own te.compute first";
    }
    tir::ExprVisitor::VisitExpr(e);
  }

 private:
  std::string name_;
};

/*! \brief A constant extent must not be negative (a symbolic one is the caller's to bind). */
void CheckExtent(const PrimExpr& extent, const std::string& what, size_t dim) {
  if (auto* imm = extent.as<IntImmNode>(); imm && imm->value < 0) {
    MINITVM_THROW(ValueError) << what << ": dimension " << dim << " has the negative extent "
                              << imm->value;
  }
}

}  // namespace

Array<PrimExpr> ComputeOpNode::output_shape(int i) const {
  Array<PrimExpr> shape;
  for (const IterVar& iv : axis) shape.push_back(iv->dom->extent);
  return shape;
}

std::vector<Tensor> ComputeOpNode::InputTensors() const {
  InputCollector c;
  for (const PrimExpr& b : body) c.VisitExpr(b);
  return c.tensors;
}

ComputeOp::ComputeOp(std::string name, std::string tag, Map<String, Any> attrs, Array<IterVar> axis,
                     Array<PrimExpr> body) {
  if (body.empty()) MINITVM_THROW(ValueError) << "compute " << name << ": empty body";
  for (size_t i = 0; i < axis.size(); ++i) CheckExtent(axis[i]->dom->extent, "compute " + name, i);
  auto n = make_object<ComputeOpNode>();
  const ReduceNode* first = body[0].as<ReduceNode>();
  for (size_t i = 0; i < body.size(); ++i) {
    if (!body[i].defined()) MINITVM_THROW(ValueError) << "compute " << name << ": undefined body";
    const ReduceNode* r = body[i].as<ReduceNode>();
    if ((r != nullptr) != (first != nullptr)) {
      MINITVM_THROW(ValueError) << "compute " << name
                                << ": either every output is a reduction or none is";
    }
    if (r) {
      if (!r->combiner.same_as(first->combiner) || r->axis.size() != first->axis.size() ||
          r->value_index != static_cast<int64_t>(i) || r->source.size() != body.size()) {
        MINITVM_THROW(ValueError) << "compute " << name
                                  << ": the outputs must be the elements of one tuple reduction, "
                                     "in order";
      }
      for (size_t k = 0; k < r->axis.size(); ++k) {
        if (!r->axis[k].same_as(first->axis[k])) {
          MINITVM_THROW(ValueError)
              << "compute " << name << ": all outputs must reduce over the same axes";
        }
      }
      NestedReduceChecker checker(name);
      for (const PrimExpr& s : r->source) checker.VisitExpr(s);
      checker.VisitExpr(r->condition);
    } else {
      NestedReduceChecker(name).VisitExpr(body[i]);
    }
  }
  if (first) n->reduce_axis = first->axis;
  n->name = std::move(name);
  n->tag = std::move(tag);
  n->attrs = std::move(attrs);
  n->axis = std::move(axis);
  n->body = std::move(body);
  data_ = std::move(n);
}

Tensor placeholder(Array<PrimExpr> shape, DataType dtype, std::string name) {
  for (const PrimExpr& d : shape) {
    if (!d.defined() || !(d.dtype().is_int() || d.dtype().is_uint()) || !d.dtype().is_scalar()) {
      MINITVM_THROW(ValueError) << "placeholder " << name << ": shape entries must be integers";
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) CheckExtent(shape[i], "placeholder " + name, i);
  auto n = make_object<PlaceholderOpNode>();
  n->name = std::move(name);
  n->shape = std::move(shape);
  n->dtype = dtype;
  return Operation(ObjectPtr<Object>(std::move(n))).output(0);
}

namespace {
Array<IterVar> MakeAxes(const Array<PrimExpr>& shape, const std::vector<std::string>& names,
                        const std::string& op_name) {
  if (!names.empty() && names.size() != shape.size()) {
    MINITVM_THROW(ValueError) << "compute " << op_name << ": " << names.size()
                              << " axis names for a shape of rank " << shape.size();
  }
  Array<IterVar> axis;
  for (size_t i = 0; i < shape.size(); ++i) {
    const PrimExpr& d = shape[i];
    if (!d.defined()) {
      MINITVM_THROW(ValueError) << "compute " << op_name << ": shape[" << i << "] is undefined";
    }
    if (!(d.dtype().is_int() || d.dtype().is_uint()) || d.dtype().is_bool() ||
        !d.dtype().is_scalar()) {
      MINITVM_THROW(ValueError) << "compute " << op_name << ": shape[" << i << "] is a "
                                << d.dtype() << " value; shape entries must be integers";
    }
    std::string vname = names.empty() ? "ax" + std::to_string(i) : names[i];
    axis.push_back(
        IterVar(Range(tir::make_zero(d.dtype()), d), Var(vname, d.dtype()), tir::kDataPar));
  }
  return axis;
}
// Python's te.compute builds its axes here too, so both fronts check shapes the same way.
MINITVM_REGISTER_GLOBAL("te.ComputeAxes")
    .set_body_typed([](Array<PrimExpr> shape, Array<String> names, std::string op_name) {
      std::vector<std::string> n;
      for (const String& s : names) n.push_back(s.str());
      return MakeAxes(shape, n, op_name);
    });
Array<Var> AxisVars(const Array<IterVar>& axis) {
  Array<Var> vars;
  for (const IterVar& iv : axis) vars.push_back(iv->var);
  return vars;
}
void CheckArity(size_t rank, size_t want, const std::string& name) {
  if (rank != want) {
    MINITVM_THROW(ValueError) << "compute " << name << ": the element function takes " << want
                              << " variable(s) but the shape has rank " << rank;
  }
}
}  // namespace

Array<Tensor> compute(Array<PrimExpr> shape, FBatchCompute fcompute, std::string name,
                      std::string tag, Map<String, Any> attrs,
                      std::vector<std::string> axis_names) {
  Array<IterVar> axis = MakeAxes(shape, axis_names, name);
  Array<PrimExpr> body = fcompute(AxisVars(axis));
  ComputeOp op(name, tag, attrs, axis, body);
  Array<Tensor> outs;
  for (int i = 0; i < op->num_outputs(); ++i) outs.push_back(op.output(i));
  return outs;
}

Tensor compute(Array<PrimExpr> shape, FCompute fcompute, std::string name, std::string tag,
               Map<String, Any> attrs, std::vector<std::string> axis_names) {
  Array<IterVar> axis = MakeAxes(shape, axis_names, name);
  PrimExpr body = fcompute(AxisVars(axis));
  return ComputeOp(name, tag, attrs, axis, {body}).output(0);
}

Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var)> f, std::string name,
               std::string tag, Map<String, Any> attrs, std::vector<std::string> axis_names) {
  CheckArity(shape.size(), 1, name);
  return compute(shape, FCompute([&](const Array<Var>& i) { return f(i[0]); }), name, tag, attrs,
                 axis_names);
}
Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var, Var)> f, std::string name,
               std::string tag, Map<String, Any> attrs, std::vector<std::string> axis_names) {
  CheckArity(shape.size(), 2, name);
  return compute(shape, FCompute([&](const Array<Var>& i) { return f(i[0], i[1]); }), name, tag,
                 attrs, axis_names);
}
Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var, Var, Var)> f, std::string name,
               std::string tag, Map<String, Any> attrs, std::vector<std::string> axis_names) {
  CheckArity(shape.size(), 3, name);
  return compute(shape, FCompute([&](const Array<Var>& i) { return f(i[0], i[1], i[2]); }), name,
                 tag, attrs, axis_names);
}
Tensor compute(Array<PrimExpr> shape, std::function<PrimExpr(Var, Var, Var, Var)> f,
               std::string name, std::string tag, Map<String, Any> attrs,
               std::vector<std::string> axis_names) {
  CheckArity(shape.size(), 4, name);
  return compute(shape, FCompute([&](const Array<Var>& i) { return f(i[0], i[1], i[2], i[3]); }),
                 name, tag, attrs, axis_names);
}

IterVar reduce_axis(Range dom, std::string name) {
  if (!dom.defined()) MINITVM_THROW(ValueError) << "reduce_axis " << name << ": undefined domain";
  if (auto* imm = dom->extent.as<IntImmNode>(); imm && imm->value < 0) {
    MINITVM_THROW(ValueError) << "reduce_axis " << name << ": the domain has the negative extent "
                              << imm->value << " (its end is below its begin)";
  }
  DataType t = dom->extent.dtype();
  return IterVar(dom, Var(name, t), tir::kCommReduce);
}

Var var(std::string name, DataType dtype) { return Var(name, dtype); }
Var size_var(std::string name, DataType dtype) { return tir::SizeVar(name, dtype); }

std::vector<Operation> PostOrderOps(const std::vector<Tensor>& outputs) {
  // Iterative depth-first search: a chain of thousands of stages must not exhaust the stack.
  struct Frame {
    Operation op;
    std::vector<Tensor> inputs;
    size_t next = 0;
  };
  std::vector<Operation> order;
  std::unordered_set<const Object*> visited;
  std::vector<Frame> stack;
  auto push = [&](const Operation& op) {
    if (!visited.insert(op.get()).second) return;
    Frame f{op, {}, 0};
    for (const Tensor& t : op->InputTensors()) f.inputs.push_back(t);
    stack.push_back(std::move(f));
  };
  for (const Tensor& out : outputs) {
    push(out->op);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.inputs.size()) {
        Operation input = top.inputs[top.next++]->op;
        push(input);  // may reallocate `stack`: `top` is not used after this
      } else {
        order.push_back(top.op);
        stack.pop_back();
      }
    }
  }
  return order;
}

}  // namespace te
}  // namespace minitvm
