/*!
 * \file nn_norm.cc
 * \brief Activations (relu, leaky_relu, gelu), softmax and log_softmax, batch_norm
 * (inference), layer_norm and batch_flatten (stage 2).
 */
#include <cmath>

#include "minitvm/topi/nn.h"
#include "minitvm/topi/reduction.h"
#include "minitvm/topi/transform.h"
#include "topi_util.h"

namespace minitvm {
namespace topi {
namespace nn {

using detail::NormalizeAxis;
using detail::ShapeStr;
using tir::IterVar;
using tir::Var;

Tensor relu(const Tensor& x, std::string name) {
  return te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                       return tir::max(x(i), tir::make_zero(x->dtype));
                     }),
                     name, kElementWise);
}

Tensor leaky_relu(const Tensor& x, double alpha, std::string name) {
  return te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                       PrimExpr v = x(i);
                       return tir::Select(v > tir::make_zero(x->dtype), v,
                                          v * tir::make_const(x->dtype, alpha));
                     }),
                     name, kElementWise);
}

Tensor gelu(const Tensor& x, std::string approximate, std::string name) {
  if (approximate != "none" && approximate != "tanh") {
    MINITVM_THROW(ValueError) << "gelu: approximate must be \"none\" or \"tanh\", got \""
                              << approximate << "\"";
  }
  DataType t = x->dtype;
  auto c = [&](double v) { return tir::make_const(t, v); };
  return te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                       PrimExpr v = x(i);
                       if (approximate == "tanh") {
                         PrimExpr inner = c(std::sqrt(2.0 / M_PI)) * (v + c(0.044715) * v * v * v);
                         return c(0.5) * v * (c(1.0) + tir::tanh(inner));
                       }
                       return c(0.5) * v * (c(1.0) + tir::erf(v * c(M_SQRT1_2)));
                     }),
                     name, kElementWise);
}

namespace {

/*! \brief The index of a per-row tensor (axis removed). */
Array<PrimExpr> WithoutAxis(const Array<Var>& i, int64_t axis) {
  Array<PrimExpr> idx;
  for (size_t d = 0; d < i.size(); ++d) {
    if (static_cast<int64_t>(d) != axis) idx.push_back(i[d]);
  }
  return idx;
}
Array<PrimExpr> ShapeWithoutAxis(const Array<PrimExpr>& shape, int64_t axis) {
  Array<PrimExpr> out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int64_t>(d) != axis) out.push_back(shape[d]);
  }
  return out;
}
/*! \brief The full index of x for row index `row` (axis removed) and `k` along the axis. */
Array<PrimExpr> Insert(const Array<Var>& row, int64_t axis, const PrimExpr& k) {
  Array<PrimExpr> idx;
  for (size_t d = 0; d <= row.size(); ++d) {
    if (static_cast<int64_t>(d) == axis) idx.push_back(k);
    if (d < row.size()) idx.push_back(row[d]);
  }
  return idx;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t axis, std::string name) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  axis = NormalizeAxis(axis, n, "softmax");
  Array<PrimExpr> row_shape = ShapeWithoutAxis(x->shape, axis);
  const PrimExpr& len = x->shape[axis];
  IterVar k1 = te::reduce_axis(Range(tir::make_zero(len.dtype()), len), "k");
  Tensor maxelem = te::compute(row_shape, te::FCompute([&](const Array<Var>& r) {
                                 return te::max(x(Insert(r, axis, k1->var)), {k1});
                               }),
                               name + "_maxelem", kCommReduce);
  Tensor e = te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                           return tir::exp(x(i) - maxelem(WithoutAxis(i, axis)));
                         }),
                         name + "_exp", kElementWise);
  IterVar k2 = te::reduce_axis(Range(tir::make_zero(len.dtype()), len), "k");
  Tensor expsum = te::compute(row_shape, te::FCompute([&](const Array<Var>& r) {
                                return te::sum(e(Insert(r, axis, k2->var)), {k2});
                              }),
                              name + "_expsum", kCommReduce);
  return te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                       return e(i) / expsum(WithoutAxis(i, axis));
                     }),
                     name + "_norm", kInjective);
}

Tensor log_softmax(const Tensor& x, int64_t axis, std::string name) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  axis = NormalizeAxis(axis, n, "log_softmax");
  Array<PrimExpr> row_shape = ShapeWithoutAxis(x->shape, axis);
  const PrimExpr& len = x->shape[axis];
  IterVar k1 = te::reduce_axis(Range(tir::make_zero(len.dtype()), len), "k");
  Tensor maxelem = te::compute(row_shape, te::FCompute([&](const Array<Var>& r) {
                                 return te::max(x(Insert(r, axis, k1->var)), {k1});
                               }),
                               name + "_maxelem", kCommReduce);
  IterVar k2 = te::reduce_axis(Range(tir::make_zero(len.dtype()), len), "k");
  Tensor expsum =
      te::compute(row_shape, te::FCompute([&](const Array<Var>& r) {
                    return te::sum(tir::exp(x(Insert(r, axis, k2->var)) - maxelem(r)), {k2});
                  }),
                  name + "_expsum", kCommReduce);
  return te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> r = WithoutAxis(i, axis);
                       return x(i) - maxelem(r) - tir::log(expsum(r));
                     }),
                     name, kInjective);
}

Array<Tensor> batch_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                         const Tensor& moving_mean, const Tensor& moving_var, int64_t axis,
                         double epsilon, bool center, bool scale) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  axis = NormalizeAxis(axis, n, "batch_norm");
  for (const Tensor& p : {gamma, beta, moving_mean, moving_var}) {
    if (!p.defined()) continue;
    if (p->shape.size() != 1 || !detail::SameExtent(p->shape[0], x->shape[axis])) {
      MINITVM_THROW(ValueError) << "batch_norm: parameter " << p->op->name << " has shape "
                                << ShapeStr(p->shape) << " but the input " << ShapeStr(x->shape)
                                << " has " << ShapeStr({x->shape[axis]}) << " channels on axis "
                                << axis;
    }
  }
  DataType t = x->dtype;
  Tensor out = te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                             PrimExpr c = i[axis];
                             PrimExpr v = (x(i) - moving_mean(c)) /
                                          tir::sqrt(moving_var(c) + tir::make_const(t, epsilon));
                             if (scale && gamma.defined()) v = v * gamma(c);
                             if (center && beta.defined()) v = v + beta(c);
                             return v;
                           }),
                           "T_batch_norm", kInjective);
  Tensor mean_copy = te::compute(moving_mean->shape,
                                 te::FCompute([&](const Array<Var>& i) { return moving_mean(i); }),
                                 "T_moving_mean", kElementWise);
  Tensor var_copy = te::compute(moving_var->shape,
                                te::FCompute([&](const Array<Var>& i) { return moving_var(i); }),
                                "T_moving_var", kElementWise);
  return {out, mean_copy, var_copy};
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                  std::vector<int64_t> axes, double epsilon, std::string name) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  std::vector<bool> reduced(n, false);
  for (int64_t a : axes) {
    int64_t k = NormalizeAxis(a, n, "layer_norm");
    if (reduced[k]) MINITVM_THROW(ValueError) << "layer_norm: axis " << a << " repeated";
    reduced[k] = true;
  }
  Array<PrimExpr> param_shape;
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d]) param_shape.push_back(x->shape[d]);
  }
  for (const Tensor& p : {gamma, beta}) {
    if (!p.defined()) continue;
    bool ok = p->shape.size() == param_shape.size();
    for (size_t d = 0; ok && d < param_shape.size(); ++d) {
      ok = detail::SameExtent(p->shape[d], param_shape[d]);
    }
    if (!ok) {
      MINITVM_THROW(ValueError) << "layer_norm: gamma/beta must have shape "
                                << ShapeStr(param_shape) << ", got " << ShapeStr(p->shape);
    }
  }
  DataType t = x->dtype;
  PrimExpr count = tir::make_const(t, 1);
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d]) count = count * tir::cast(t, x->shape[d]);
  }
  std::vector<int64_t> norm_axes;
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d]) norm_axes.push_back(d);
  }
  // Kept-dims shape of the per-row statistics.
  Array<PrimExpr> stat_shape;
  for (int64_t d = 0; d < n; ++d) {
    stat_shape.push_back(reduced[d] ? tir::make_const(x->shape[d].dtype(), 1) : x->shape[d]);
  }
  auto stat_index = [&](const Array<Var>& i) {
    Array<PrimExpr> idx;
    for (int64_t d = 0; d < n; ++d) {
      idx.push_back(reduced[d] ? tir::make_zero(x->shape[d].dtype()) : PrimExpr(i[d]));
    }
    return idx;
  };
  auto make_axes = [&](const std::string& prefix) {
    Array<IterVar> ks;
    for (int64_t d : norm_axes) {
      ks.push_back(te::reduce_axis(Range(tir::make_zero(x->shape[d].dtype()), x->shape[d]),
                                   prefix + std::to_string(d)));
    }
    return ks;
  };
  auto reduce_index = [&](const Array<Var>& i, const Array<IterVar>& ks) {
    Array<PrimExpr> idx;
    size_t j = 0;
    for (int64_t d = 0; d < n; ++d)
      idx.push_back(reduced[d] ? PrimExpr(ks[j++]->var) : PrimExpr(i[d]));
    return idx;
  };
  Array<IterVar> ks1 = make_axes("k");
  Tensor s1 = te::compute(stat_shape, te::FCompute([&](const Array<Var>& i) {
                            return te::sum(x(reduce_index(i, ks1)), ks1);
                          }),
                          name + "_sum", kCommReduce);
  Array<IterVar> ks2 = make_axes("k");
  Tensor s2 = te::compute(stat_shape, te::FCompute([&](const Array<Var>& i) {
                            PrimExpr dev = x(reduce_index(i, ks2)) - s1(i) / count;
                            return te::sum(dev * dev, ks2);
                          }),
                          name + "_sqsum", kCommReduce);
  return te::compute(x->shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> si = stat_index(i);
                       PrimExpr v = (x(i) - s1(si) / count) *
                                    tir::rsqrt(s2(si) / count + tir::make_const(t, epsilon));
                       Array<PrimExpr> pi;
                       for (int64_t d : norm_axes) pi.push_back(i[d]);
                       if (gamma.defined()) v = v * gamma(pi);
                       if (beta.defined()) v = v + beta(pi);
                       return v;
                     }),
                     name, kInjective);
}

Tensor batch_flatten(const Tensor& x, std::string name) {
  if (x->shape.empty()) MINITVM_THROW(ValueError) << "batch_flatten: needs rank >= 1";
  return flatten(x, 1, -1, name, kInjective);
}

}  // namespace nn
}  // namespace topi
}  // namespace minitvm
