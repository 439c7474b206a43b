/*!
 * \file interpreter/reference_nn_ops.cc
 * \brief `FReference` of the Relax neural-network operators (stage 4): softmax, conv2d,
 * pooling, batch_norm, layer_norm and dropout through the stage-1 lownumpy nn ops. Layouts are
 * lownumpy's (NCHW activations, OIHW weights); another layout is a ValueError naming it.
 */
#include "interpreter/value_util.h"
#include "minitvm/lownumpy/creation.h"
#include "minitvm/lownumpy/elementwise.h"
#include "minitvm/lownumpy/manip.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/lownumpy/reduce.h"
#include "minitvm/relax/op_attr.h"

namespace minitvm {
namespace relax {
namespace interp {
namespace {

namespace ln = lownumpy;
using Args = Array<Any>;

NDArray T(const Call& c, const Args& a, int i) { return TensorArg(c, a, i); }

/*! \brief Parameter `name` read by `to` (ToInt, ToInts...), or `fallback` when it is None. */
template <typename T>
T ParamOr(const Call& c, const Args& a, const std::string& name, T fallback,
          T (*to)(const Any&, const std::string&)) {
  Any v = Param(c, a, name);
  return v.is_null() ? fallback : to(v, CallName(c) + ": " + name);
}
Shape IntsOr(const Call& c, const Args& a, const std::string& name, Shape fallback) {
  return ParamOr<Shape>(c, a, name, std::move(fallback), ToInts);
}
int64_t IntOr(const Call& c, const Args& a, const std::string& name, int64_t fallback) {
  return ParamOr<int64_t>(c, a, name, fallback, ToInt);
}
double FloatOr(const Call& c, const Args& a, const std::string& name, double fallback) {
  return ParamOr<double>(c, a, name, fallback, ToFloat);
}
bool BoolOr(const Call& c, const Args& a, const std::string& name, bool fallback) {
  return ParamOr<bool>(c, a, name, fallback, ToBool);
}
/*! \brief ValueError unless the layout attribute `name` is absent or one of `ok`. */
void CheckLayout(const Call& c, const Args& a, const std::string& name,
                 std::initializer_list<const char*> ok) {
  Any v = Param(c, a, name);
  if (v.is_null()) return;
  std::string layout = ToStr(v, CallName(c) + ": " + name);
  if (layout.empty()) return;
  for (const char* o : ok) {
    if (layout == o) return;
  }
  MINITVM_THROW(ValueError) << CallName(c) << ": the reference supports " << name << " "
                            << *ok.begin() << " only, not " << layout;
}
NDArray CastTo(const NDArray& x, const Any& dtype, const std::string& what) {
  auto d = ToDType(dtype, what);
  return (!d || *d == x.dtype()) ? x : ln::cast(x, *d);
}

/*!
 * \brief Whether the call's inferred struct info is a tuple (TVM's batch_norm and dropout return
 * tuples; a single tensor is returned when the op's inference says so).
 */
bool WantsTuple(const Call& c) {
  return !c->struct_info_.defined() || !c->struct_info_.as<TensorStructInfoNode>();
}

#define MINITVM_RELAX_REF(OpName) \
  MINITVM_REGISTER_OP(OpName).set_attr_typed(kFReference, [](const Call& c, const Args& a) -> Any

MINITVM_RELAX_REF("relax.nn.softmax") { return ln::softmax(T(c, a, 0), IntOr(c, a, "axis", -1)); });
MINITVM_RELAX_REF("relax.nn.log_softmax") {
  return ln::log_softmax(T(c, a, 0), IntOr(c, a, "axis", -1));
});

// With out_dtype the operands are converted first (the accumulation happens in out_dtype).
MINITVM_RELAX_REF("relax.nn.conv2d") {
  CheckLayout(c, a, "data_layout", {"NCHW"});
  CheckLayout(c, a, "kernel_layout", {"OIHW"});
  CheckLayout(c, a, "out_layout", {"NCHW"});
  Any od = Param(c, a, "out_dtype");
  NDArray x = CastTo(T(c, a, 0), od, "relax.nn.conv2d: out_dtype");
  NDArray w = CastTo(T(c, a, 1), od, "relax.nn.conv2d: out_dtype");
  return ln::conv2d(x, w, NDArray(), IntsOr(c, a, "strides", {1, 1}),
                    IntsOr(c, a, "padding", {0, 0}), IntsOr(c, a, "dilation", {1, 1}),
                    IntOr(c, a, "groups", 1));
});

MINITVM_RELAX_REF("relax.nn.max_pool2d") {
  CheckLayout(c, a, "layout", {"NCHW"});
  CheckLayout(c, a, "out_layout", {"NCHW"});
  Shape pool = IntsOr(c, a, "pool_size", {1, 1});
  return ln::max_pool2d(T(c, a, 0), pool, IntsOr(c, a, "strides", pool),
                        IntsOr(c, a, "padding", {0, 0}), IntsOr(c, a, "dilation", {1, 1}),
                        BoolOr(c, a, "ceil_mode", false));
});

MINITVM_RELAX_REF("relax.nn.avg_pool2d") {
  CheckLayout(c, a, "layout", {"NCHW"});
  CheckLayout(c, a, "out_layout", {"NCHW"});
  Shape dil = IntsOr(c, a, "dilation", {1, 1});
  for (int64_t d : dil) {
    if (d != 1) {
      MINITVM_THROW(ValueError) << "relax.nn.avg_pool2d: the reference supports dilation 1 only, "
                                   "not "
                                << runtime::ShapeToString(dil);
    }
  }
  Shape pool = IntsOr(c, a, "pool_size", {1, 1});
  return ln::avg_pool2d(T(c, a, 0), pool, IntsOr(c, a, "strides", pool),
                        IntsOr(c, a, "padding", {0, 0}), BoolOr(c, a, "ceil_mode", false),
                        BoolOr(c, a, "count_include_pad", false));
});

// Without output_size the spatial size is kept.
MINITVM_RELAX_REF("relax.nn.adaptive_avg_pool2d") {
  CheckLayout(c, a, "layout", {"NCHW"});
  CheckLayout(c, a, "out_layout", {"NCHW"});
  NDArray x = T(c, a, 0);
  Shape keep;
  if (x.ndim() == 4) keep = {x.Shape()[2], x.Shape()[3]};
  return ln::adaptive_avg_pool2d(x, IntsOr(c, a, "output_size", keep));
});

/*! \brief The axes of `x` other than `axis` (what batch statistics reduce over). */
Shape OtherAxes(const NDArray& x, int64_t axis) {
  Shape out;
  for (int64_t i = 0; i < x.ndim(); ++i) {
    if (i != axis) out.push_back(i);
  }
  return out;
}

// Returns (out, moving_mean, moving_var) as TVM does. In training mode (composed) the output
// normalises with the batch statistics and the moving statistics are updated with momentum:
// new = (1 - momentum) * moving + momentum * batch.
MINITVM_RELAX_REF("relax.nn.batch_norm") {
  NDArray x = T(c, a, 0), gamma = T(c, a, 1), beta = T(c, a, 2);
  NDArray mean = T(c, a, 3), var = T(c, a, 4);
  int64_t axis = IntOr(c, a, "axis", 1);
  if (axis < 0) axis += x.ndim();
  double eps = FloatOr(c, a, "epsilon", 1e-5);
  if (!BoolOr(c, a, "center", true)) beta = ln::zeros(beta.Shape(), beta.dtype());
  if (!BoolOr(c, a, "scale", true)) gamma = ln::ones(gamma.Shape(), gamma.dtype());
  if (BoolOr(c, a, "training", false)) {
    double m = FloatOr(c, a, "momentum", 0.1);
    Shape axes = OtherAxes(x, axis);
    NDArray bmean = ln::mean(x, axes, true);
    NDArray centered = ln::subtract(x, bmean);
    NDArray bvar = ln::reshape(ln::mean(ln::multiply(centered, centered), axes), mean.Shape());
    bmean = ln::reshape(bmean, mean.Shape());
    NDArray out = ln::batch_norm(x, gamma, beta, bmean, bvar, axis, eps);
    auto mix = [&](const NDArray& old, const NDArray& batch) {
      NDArray k1 = ln::full({}, 1.0 - m, old.dtype()), k2 = ln::full({}, m, old.dtype());
      return ln::add(ln::multiply(old, k1), ln::multiply(batch, k2));
    };
    if (!WantsTuple(c)) return out;
    return Args{out, mix(mean, bmean), mix(var, bvar)};
  }
  NDArray out = ln::batch_norm(x, gamma, beta, mean, var, axis, eps);
  if (!WantsTuple(c)) return out;
  return Args{out, mean, var};
});

MINITVM_RELAX_REF("relax.nn.layer_norm") {
  NDArray x = T(c, a, 0), gamma = T(c, a, 1), beta = T(c, a, 2);
  if (!BoolOr(c, a, "center", true)) beta = NDArray();
  if (!BoolOr(c, a, "scale", true)) gamma = NDArray();
  return ln::layer_norm(x, gamma, beta, IntsOr(c, a, "axes", {-1}), FloatOr(c, a, "epsilon", 1e-5));
});

// Composed: dropout in inference is the identity; like TVM it returns (output, mask), the mask
// all ones.
MINITVM_RELAX_REF("relax.nn.dropout") {
  NDArray x = T(c, a, 0);
  NDArray out = ln::reshape(x, x.Shape());
  if (!WantsTuple(c)) return out;
  return Args{out, ln::ones(x.Shape(), x.dtype())};
});

}  // namespace
}  // namespace interp
}  // namespace relax
}  // namespace minitvm
