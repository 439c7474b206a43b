/*!
 * \file minitvm/te/reduce.h
 * \brief Reductions of the tensor-expression language (stage 2): a commutative reducer
 * (`CommReducer`: how two partial results combine, and the identity) and the `Reduce`
 * expression that applies it over reduction axes — what `te.sum(A[i, k], axis=k)` builds.
 *
 * A Reduce may only appear at the top of a compute body. `create_prim_func` turns it into a
 * block with reduction iterators, a `T.init()` that stores the identity and an update
 * `C[i] = combine(C[i], source)`. A reducer over tuples (lhs and rhs of several values)
 * expresses argmax/argmin; each output of the compute is one element of the tuple.
 *
 * The node type keys are TVM's (`tir.CommReducer`, `tir.Reduce`), though the classes live in
 * `te`: only tensor expressions use them.
 */
#ifndef MINITVM_TE_REDUCE_H_
#define MINITVM_TE_REDUCE_H_

#include <functional>
#include <string>

#include "minitvm/tir/expr.h"

namespace minitvm {
namespace te {

using tir::IterVar;
using tir::Var;

/*!
 * \brief A commutative reducer: `result` combines `lhs` (the partial result) with `rhs` (the
 * next value); `identity_element` is the value of an empty reduction.
 */
class CommReducerNode : public Object {
 public:
  Array<Var> lhs;
  Array<Var> rhs;
  Array<PrimExpr> result;
  Array<PrimExpr> identity_element;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("lhs", &lhs);
    v->VisitBinding("rhs", &rhs);
    v->Visit("result", &result);
    v->Visit("identity_element", &identity_element);
  }
  MINITVM_DECLARE_OBJECT_INFO(CommReducerNode, Object, "tir.CommReducer");
};

/*! \brief Handle to a reducer. */
class CommReducer : public ObjectRef {
 public:
  /*! \brief ValueError when the four arrays do not have one entry per tuple element. */
  CommReducer(Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result,
              Array<PrimExpr> identity_element);
  /*! \brief Substitute lhs → a and rhs → b in `result`. */
  Array<PrimExpr> Combine(const Array<PrimExpr>& a, const Array<PrimExpr>& b) const;
  MINITVM_DEFINE_OBJECT_REF_METHODS(CommReducer, ObjectRef, CommReducerNode);
};

/*!
 * \brief Element `value_index` of the reduction of `source` over `axis` with `combiner`,
 * counting only the points where `condition` holds. `init`, when not empty, replaces the
 * combiner's identity as the starting value.
 */
class ReduceNode : public PrimExprNode {
 public:
  CommReducer combiner;
  Array<PrimExpr> source;
  Array<PrimExpr> init;
  Array<IterVar> axis;
  PrimExpr condition;
  int64_t value_index = 0;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("dtype", &dtype);
    v->Visit("combiner", &combiner);
    v->Visit("source", &source);
    v->Visit("init", &init);
    v->Visit("axis", &axis);
    v->Visit("condition", &condition);
    v->Visit("value_index", &value_index);
  }
  MINITVM_DECLARE_OBJECT_INFO(ReduceNode, PrimExprNode, "tir.Reduce");
};

/*! \brief Handle to a reduction expression. */
class Reduce : public PrimExpr {
 public:
  /*! \brief ValueError when an axis is not a reduction IterVar or the sizes disagree. */
  Reduce(CommReducer combiner, Array<PrimExpr> source, Array<IterVar> axis, PrimExpr condition,
         int64_t value_index, Array<PrimExpr> init = {});
  MINITVM_DEFINE_OBJECT_REF_METHODS(Reduce, PrimExpr, ReduceNode);
};

/*! \brief Sum of `source` over `axis` (where `where` holds), like `te.sum`. */
PrimExpr sum(PrimExpr source, Array<IterVar> axis, PrimExpr where = PrimExpr(),
             PrimExpr init = PrimExpr());
/*! \brief Maximum over `axis`; the identity is the dtype's lowest value. */
PrimExpr max(PrimExpr source, Array<IterVar> axis, PrimExpr where = PrimExpr(),
             PrimExpr init = PrimExpr());
/*! \brief Minimum over `axis`; the identity is the dtype's highest value. */
PrimExpr min(PrimExpr source, Array<IterVar> axis, PrimExpr where = PrimExpr(),
             PrimExpr init = PrimExpr());
/*! \brief Product over `axis`. */
PrimExpr prod(PrimExpr source, Array<IterVar> axis, PrimExpr where = PrimExpr(),
              PrimExpr init = PrimExpr());

/*!
 * \brief A reducer from a combine function and an identity function, like
 * `te.comm_reducer(fcombine, fidentity)`: `fcombine(lhs, rhs)` for one value of `dtype`.
 */
CommReducer MakeCommReducer(DataType dtype,
                            const std::function<PrimExpr(PrimExpr, PrimExpr)>& fcombine,
                            const std::function<PrimExpr(DataType)>& fidentity);

/*!
 * \brief The (index, value) argmax reducer: keeps the larger value, and the smaller index
 * among equal values (NumPy's first occurrence). `argmin` keeps the smaller value.
 */
CommReducer ArgMaxReducer(DataType index_dtype, DataType value_dtype);
CommReducer ArgMinReducer(DataType index_dtype, DataType value_dtype);

}  // namespace te
}  // namespace minitvm

#endif  // MINITVM_TE_REDUCE_H_
