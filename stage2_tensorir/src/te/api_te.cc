/*!
 * \file api_te.cc
 * \brief The tensor-expression functions Python reaches by name (stage 2): "te.Placeholder",
 * "te.ComputeOp", "te.TensorLoad", reductions and reducers.
 */
#include "minitvm/runtime/registry.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace te {

namespace {
/*!
 * \brief Arrays that come from Python hold plain ints and floats; store them as IntImm /
 * FloatImm nodes so the IR has one form whoever built it (structural equality and
 * identity of elements rely on it).
 */
inline Array<PrimExpr> Norm(const Array<PrimExpr>& a) {
  if (!a.get()) return a;
  for (const Any& x : a->data) {
    if (!x.is_object()) return Array<PrimExpr>(a.to_vector());
  }
  return a;
}
}  // namespace

MINITVM_REGISTER_GLOBAL("te.Placeholder")
    .set_body_typed([](Array<PrimExpr> shape, DataType dtype, std::string name) {
      return placeholder(Norm(shape), dtype, name);
    });

MINITVM_REGISTER_GLOBAL("te.ComputeOp")
    .set_body_typed([](std::string name, std::string tag, Map<String, Any> attrs,
                       Array<IterVar> axis, Array<PrimExpr> body) {
      return ComputeOp(name, tag, attrs, axis, Norm(body));
    });

MINITVM_REGISTER_GLOBAL("te.OpNumOutputs").set_body_typed([](Operation op) {
  return static_cast<int64_t>(op->num_outputs());
});
MINITVM_REGISTER_GLOBAL("te.OpOutput").set_body_typed([](Operation op, int64_t i) {
  return op.output(static_cast<int>(i));
});
MINITVM_REGISTER_GLOBAL("te.OpInputTensors").set_body_typed([](Operation op) {
  Array<Tensor> out;
  for (const Tensor& t : op->InputTensors()) out.push_back(t);
  return out;
});
MINITVM_REGISTER_GLOBAL("te.TensorLoad").set_body_typed([](Tensor t, Array<PrimExpr> indices) {
  return t(Norm(indices));
});
MINITVM_REGISTER_GLOBAL("te.TensorName").set_body_typed([](Tensor t) { return t.name(); });
MINITVM_REGISTER_GLOBAL("te.TensorEqual").set_body_typed([](Tensor a, Tensor b) {
  return a.IsSame(b);
});

MINITVM_REGISTER_GLOBAL("te.ReduceAxis")
    .set_body_typed([](PrimExpr begin, PrimExpr end, std::string name) {
      for (const auto& [field, e] : {std::pair<const char*, PrimExpr>{"begin", begin},
                                     std::pair<const char*, PrimExpr>{"end", end}}) {
        DataType t = e.defined() ? e.dtype() : DataType::Void();
        if (!(t.is_int() || t.is_uint()) || t.is_bool() || !t.is_scalar()) {
          MINITVM_THROW(ValueError) << "te.reduce_axis " << name << ": the domain's " << field
                                    << " must be an integer, got "
                                    << (e.defined() ? runtime::DataTypeToString(t) : "None");
        }
      }
      return reduce_axis(Range(begin, end - begin), name);
    });

MINITVM_REGISTER_GLOBAL("te.CommReducer")
    .set_body_typed([](Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result,
                       Array<PrimExpr> identity) {
      return CommReducer(lhs, rhs, Norm(result), Norm(identity));
    });
MINITVM_REGISTER_GLOBAL("te.CommReducerCombine")
    .set_body_typed([](CommReducer r, Array<PrimExpr> a, Array<PrimExpr> b) {
      return r.Combine(a, b);
    });
MINITVM_REGISTER_GLOBAL("te.Reduce")
    .set_body_typed([](CommReducer combiner, Array<PrimExpr> source, Array<IterVar> axis,
                       PrimExpr condition, int64_t value_index, Array<PrimExpr> init) {
      return Reduce(combiner, Norm(source), axis, condition, value_index, Norm(init));
    });

#define MINITVM_TE_REGISTER_REDUCER(Name, Func)                                                 \
  MINITVM_REGISTER_GLOBAL("te." #Name)                                                          \
      .set_body_typed([](PrimExpr source, Array<IterVar> axis, PrimExpr where, PrimExpr init) { \
        return Func(source, axis, where, init);                                                 \
      });
MINITVM_TE_REGISTER_REDUCER(Sum, sum)
MINITVM_TE_REGISTER_REDUCER(Max, max)
MINITVM_TE_REGISTER_REDUCER(Min, min)
MINITVM_TE_REGISTER_REDUCER(Prod, prod)
#undef MINITVM_TE_REGISTER_REDUCER

MINITVM_REGISTER_GLOBAL("te.ArgMaxReducer")
    .set_body_typed([](DataType index_dtype, DataType value_dtype) {
      return ArgMaxReducer(index_dtype, value_dtype);
    });
MINITVM_REGISTER_GLOBAL("te.ArgMinReducer")
    .set_body_typed([](DataType index_dtype, DataType value_dtype) {
      return ArgMinReducer(index_dtype, value_dtype);
    });

}  // namespace te
}  // namespace minitvm
