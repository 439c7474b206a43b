/*!
 * \file reduction.cc
 * \brief Reductions over axes: sum, max, min, prod, mean, argmax, argmin (stage 2).
 */
#include "minitvm/topi/reduction.h"

#include <algorithm>
#include <functional>

#include "minitvm/topi/broadcast.h"
#include "topi_util.h"

namespace minitvm {
namespace topi {

using detail::NormalizeAxis;
using tir::IterVar;
using tir::Var;

namespace {

/*! \brief Which axes a reduction removes (sorted, unique). */
std::vector<bool> ReducedAxes(const Tensor& x, const Axes& axis, const std::string& op) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  std::vector<bool> reduced(n, !axis.has_value());
  if (axis) {
    for (int64_t a : *axis) {
      int64_t k = NormalizeAxis(a, n, op);
      if (reduced[k]) MINITVM_THROW(ValueError) << op << ": axis " << a << " repeated";
      reduced[k] = true;
    }
  }
  return reduced;
}

/*!
 * \brief A compute reducing x over the marked axes. `freduce` receives the load of x at the
 * reduction point and the reduction axes and returns the compute's bodies.
 */
Array<Tensor> CommReduce(const Tensor& x, const std::vector<bool>& reduced, bool keepdims,
                         const std::function<Array<PrimExpr>(const PrimExpr&, const PrimExpr&,
                                                             const Array<IterVar>&)>& freduce,
                         const std::string& name, const std::string& tag) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  Array<IterVar> raxes;
  std::vector<int64_t> raxis_of(n, -1);
  for (int64_t d = 0; d < n; ++d) {
    if (!reduced[d]) continue;
    raxis_of[d] = static_cast<int64_t>(raxes.size());
    DataType t = x->shape[d].dtype();
    raxes.push_back(
        te::reduce_axis(Range(tir::make_zero(t), x->shape[d]), "k" + std::to_string(d)));
  }
  Array<PrimExpr> shape;
  for (int64_t d = 0; d < n; ++d) {
    if (!reduced[d]) {
      shape.push_back(x->shape[d]);
    } else if (keepdims) {
      shape.push_back(tir::make_const(x->shape[d].dtype(), 1));
    }
  }
  return te::compute(shape, te::FBatchCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> idx;
                       size_t j = 0;
                       // The flat position of the reduction point among the reduced axes (for
                       // arg-reductions).
                       PrimExpr flat = tir::make_const(DataType::Int(64), 0);
                       for (int64_t d = 0; d < n; ++d) {
                         if (reduced[d]) {
                           Var k = raxes[raxis_of[d]]->var;
                           idx.push_back(k);
                           flat = flat * tir::cast(DataType::Int(64), x->shape[d]) +
                                  tir::cast(DataType::Int(64), k);
                           if (keepdims) ++j;
                         } else {
                           idx.push_back(i[j++]);
                         }
                       }
                       return freduce(x(idx), flat, raxes);
                     }),
                     name, tag);
}

Tensor Simple(const Tensor& x, const Axes& axis, bool keepdims, const std::string& op,
              PrimExpr (*f)(PrimExpr, Array<IterVar>, PrimExpr, PrimExpr)) {
  auto reduced = ReducedAxes(x, axis, op);
  return CommReduce(
      x, reduced, keepdims,
      [&](const PrimExpr& load, const PrimExpr&, const Array<IterVar>& raxes) {
        return Array<PrimExpr>{f(load, raxes, PrimExpr(), PrimExpr())};
      },
      x->op->name.str() + "_red", kCommReduce)[0];
}

/*!
 * \brief TVM's argmax / argmin reducer over (index, value): keep the left pair when its value
 * is better, or equal with a smaller index; the identity is (-1, the worst value).
 */
te::CommReducer TopiArgReducer(DataType index_dtype, DataType value_dtype, bool is_max) {
  Var li("x0", index_dtype), lv("x1", value_dtype);
  Var ri("y0", index_dtype), rv("y1", value_dtype);
  PrimExpr better = is_max ? (lv > rv) : (lv < rv);
  PrimExpr keep_left = better || (lv == rv && li < ri);
  PrimExpr id_val = is_max ? tir::min_value(value_dtype) : tir::max_value(value_dtype);
  return te::CommReducer({li, lv}, {ri, rv},
                         {tir::Select(keep_left, li, ri), tir::Select(better, lv, rv)},
                         {tir::make_const(index_dtype, -1), id_val});
}

/*!
 * \brief argmax / argmin as TVM's topi builds them: `<x>_red_temp` reduces (flat index, value)
 * pairs into two buffers, then `<x>_red` copies out the index. The index has the dtype of the
 * reduced axes (row-major position among them).
 */
Tensor ArgReduce(const Tensor& x, std::optional<int64_t> axis, bool keepdims, bool is_max) {
  const char* op = is_max ? "argmax" : "argmin";
  Axes axes = axis ? Axes(std::vector<int64_t>{*axis}) : std::nullopt;
  auto reduced = ReducedAxes(x, axes, op);
  DataType index_dtype = DataType::Int(32);
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) {
      index_dtype = x->shape[d].dtype();
      break;
    }
  }
  te::CommReducer r = TopiArgReducer(index_dtype, x->dtype, is_max);
  Array<Tensor> outs = CommReduce(
      x, reduced, keepdims,
      [&](const PrimExpr& load, const PrimExpr&, const Array<IterVar>& raxes) {
        PrimExpr flat = raxes[0]->var;
        for (size_t j = 1; j < raxes.size(); ++j) {
          flat = flat * tir::cast(index_dtype, raxes[j]->dom->extent) +
                 tir::cast(index_dtype, raxes[j]->var);
        }
        Array<PrimExpr> src{tir::cast(index_dtype, flat), load};
        return Array<PrimExpr>{te::Reduce(r, src, raxes, PrimExpr(), 0),
                               te::Reduce(r, src, raxes, PrimExpr(), 1)};
      },
      x->op->name.str() + "_red_temp", kCommReduceIdx);
  Tensor temp = outs[0];
  return te::compute(temp->shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> idx(i.begin(), i.end());
                       return temp(idx);
                     }),
                     x->op->name.str() + "_red", kCommReduceIdx);
}

}  // namespace

Tensor sum(const Tensor& x, const Axes& axis, bool keepdims) {
  return Simple(x, axis, keepdims, "sum", &te::sum);
}
Tensor max(const Tensor& x, const Axes& axis, bool keepdims) {
  return Simple(x, axis, keepdims, "max", &te::max);
}
Tensor min(const Tensor& x, const Axes& axis, bool keepdims) {
  return Simple(x, axis, keepdims, "min", &te::min);
}
Tensor prod(const Tensor& x, const Axes& axis, bool keepdims) {
  return Simple(x, axis, keepdims, "prod", &te::prod);
}

Tensor mean(const Tensor& x, const Axes& axis, bool keepdims) {
  auto reduced = ReducedAxes(x, axis, "mean");
  PrimExpr count = tir::make_const(x->dtype, 1);
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) count = count * tir::cast(x->dtype, x->shape[d]);
  }
  Tensor s = sum(x, axis, keepdims);
  return divide(s, count, "T_divide", kElementWise);
}

Tensor argmax(const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
  return ArgReduce(x, axis, keepdims, true);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
  return ArgReduce(x, axis, keepdims, false);
}

}  // namespace topi
}  // namespace minitvm
