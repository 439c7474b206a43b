/*!
 * \file api_topi.cc
 * \brief The TOPI operators Python reaches by name (stage 2): "topi.add", "topi.nn.conv2d_nchw",
 * ... Arguments that Python passes loosely (an int or a list for axes, None for "absent") are
 * normalised here.
 */
#include "minitvm/runtime/registry.h"
#include "minitvm/topi/topi.h"

namespace minitvm {
namespace topi {

using runtime::PackedArgs;

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

/*! \brief None → nullopt, an int → {int}, a list of ints → the list. */
std::optional<std::vector<int64_t>> OptInts(const Any& a) {
  if (a.is_null()) return std::nullopt;
  if (a.is_int()) return std::vector<int64_t>{a.raw_int()};
  std::vector<int64_t> out;
  for (const Any& v : a.cast<Array<Any>>()) out.push_back(v.cast<int64_t>());
  return out;
}
std::vector<int64_t> Ints(const Any& a) { return OptInts(a).value_or(std::vector<int64_t>{}); }
DataType OptDType(const Any& a) { return a.is_null() ? DataType::Void() : a.cast<DataType>(); }
Tensor OptTensor(const Any& a) { return a.is_null() ? Tensor() : a.cast<Tensor>(); }

/*! \brief Dispatch a binary operator on (tensor|scalar, tensor|scalar). */
template <Tensor (*TT)(const Tensor&, const Tensor&, std::string, std::string),
          Tensor (*TS)(const Tensor&, const PrimExpr&, std::string, std::string),
          Tensor (*ST)(const PrimExpr&, const Tensor&, std::string, std::string)>
void Binary(const char* name, PackedArgs args, Any* rv) {
  if (args.size() != 2) MINITVM_THROW(TypeError) << "topi." << name << ": expects 2 arguments";
  std::string out = std::string("T_") + name;
  auto* ta = args[0].as<te::TensorNode>();
  auto* tb = args[1].as<te::TensorNode>();
  if (ta && tb) {
    *rv = TT(args[0].cast<Tensor>(), args[1].cast<Tensor>(), out, kBroadcast);
  } else if (ta) {
    *rv = TS(args[0].cast<Tensor>(), args[1].cast<PrimExpr>(), out, kElementWise);
  } else if (tb) {
    *rv = ST(args[0].cast<PrimExpr>(), args[1].cast<Tensor>(), out, kElementWise);
  } else {
    MINITVM_THROW(TypeError) << "topi." << name << ": at least one argument must be a tensor";
  }
}

}  // namespace

#define MINITVM_TOPI_REGISTER_BINARY(Name)                                                        \
  MINITVM_REGISTER_GLOBAL("topi." #Name).set_body([](PackedArgs args, Any* rv) {                  \
    Binary<                                                                                       \
        static_cast<Tensor (*)(const Tensor&, const Tensor&, std::string, std::string)>(Name),    \
        static_cast<Tensor (*)(const Tensor&, const PrimExpr&, std::string, std::string)>(Name),  \
        static_cast<Tensor (*)(const PrimExpr&, const Tensor&, std::string, std::string)>(Name)>( \
        #Name, args, rv);                                                                         \
  });
MINITVM_TOPI_REGISTER_BINARY(add)
MINITVM_TOPI_REGISTER_BINARY(subtract)
MINITVM_TOPI_REGISTER_BINARY(multiply)
MINITVM_TOPI_REGISTER_BINARY(divide)
MINITVM_TOPI_REGISTER_BINARY(floor_divide)
MINITVM_TOPI_REGISTER_BINARY(mod)
MINITVM_TOPI_REGISTER_BINARY(floor_mod)
MINITVM_TOPI_REGISTER_BINARY(power)
MINITVM_TOPI_REGISTER_BINARY(maximum)
MINITVM_TOPI_REGISTER_BINARY(minimum)
MINITVM_TOPI_REGISTER_BINARY(equal)
MINITVM_TOPI_REGISTER_BINARY(not_equal)
MINITVM_TOPI_REGISTER_BINARY(less)
MINITVM_TOPI_REGISTER_BINARY(less_equal)
MINITVM_TOPI_REGISTER_BINARY(greater)
MINITVM_TOPI_REGISTER_BINARY(greater_equal)
MINITVM_TOPI_REGISTER_BINARY(logical_and)
MINITVM_TOPI_REGISTER_BINARY(logical_or)
MINITVM_TOPI_REGISTER_BINARY(logical_xor)
#undef MINITVM_TOPI_REGISTER_BINARY

#define MINITVM_TOPI_REGISTER_UNARY(Name) \
  MINITVM_REGISTER_GLOBAL("topi." #Name).set_body_typed([](Tensor x) { return Name(x); });
MINITVM_TOPI_REGISTER_UNARY(negative)
MINITVM_TOPI_REGISTER_UNARY(abs)
MINITVM_TOPI_REGISTER_UNARY(exp)
MINITVM_TOPI_REGISTER_UNARY(log)
MINITVM_TOPI_REGISTER_UNARY(sqrt)
MINITVM_TOPI_REGISTER_UNARY(rsqrt)
MINITVM_TOPI_REGISTER_UNARY(tanh)
MINITVM_TOPI_REGISTER_UNARY(sigmoid)
MINITVM_TOPI_REGISTER_UNARY(erf)
MINITVM_TOPI_REGISTER_UNARY(floor)
MINITVM_TOPI_REGISTER_UNARY(ceil)
MINITVM_TOPI_REGISTER_UNARY(round)
MINITVM_TOPI_REGISTER_UNARY(sign)
MINITVM_TOPI_REGISTER_UNARY(logical_not)
MINITVM_TOPI_REGISTER_UNARY(identity)
#undef MINITVM_TOPI_REGISTER_UNARY

MINITVM_REGISTER_GLOBAL("topi.cast").set_body_typed([](Tensor x, DataType t) {
  return cast(x, t);
});
MINITVM_REGISTER_GLOBAL("topi.clip").set_body_typed([](Tensor x, PrimExpr lo, PrimExpr hi) {
  return clip(x, lo, hi);
});
MINITVM_REGISTER_GLOBAL("topi.full")
    .set_body_typed([](Array<PrimExpr> shape, DataType t, PrimExpr value) {
      return full(Norm(shape), t, value);
    });
MINITVM_REGISTER_GLOBAL("topi.full_like").set_body_typed([](Tensor x, PrimExpr value) {
  return full_like(x, value);
});
MINITVM_REGISTER_GLOBAL("topi.arange")
    .set_body_typed([](double start, double stop, double step, DataType t) {
      return arange(start, stop, step, t);
    });
MINITVM_REGISTER_GLOBAL("topi.broadcast_to").set_body_typed([](Tensor x, Array<PrimExpr> shape) {
  return broadcast_to(x, Norm(shape));
});

// ---- transform ---------------------------------------------------------------------------------
MINITVM_REGISTER_GLOBAL("topi.reshape").set_body_typed([](Tensor x, Array<PrimExpr> shape) {
  return reshape(x, Norm(shape));
});
MINITVM_REGISTER_GLOBAL("topi.transpose").set_body_typed([](Tensor x, Any axes) {
  return transpose(x, OptInts(axes));
});
MINITVM_REGISTER_GLOBAL("topi.flatten").set_body_typed([](Tensor x, int64_t start, int64_t end) {
  return flatten(x, start, end);
});
MINITVM_REGISTER_GLOBAL("topi.concatenate").set_body_typed([](Array<Tensor> xs, int64_t axis) {
  return concatenate(xs, axis);
});
MINITVM_REGISTER_GLOBAL("topi.split")
    .set_body_typed([](Tensor x, Any indices_or_sections, int64_t axis) {
      if (indices_or_sections.is_int()) {
        return split_sections(x, indices_or_sections.raw_int(), axis);
      }
      return split(x, Ints(indices_or_sections), axis);
    });
MINITVM_REGISTER_GLOBAL("topi.squeeze").set_body_typed([](Tensor x, Any axes) {
  return squeeze(x, OptInts(axes));
});
MINITVM_REGISTER_GLOBAL("topi.expand_dims")
    .set_body_typed([](Tensor x, int64_t axis, int64_t num_newaxis) {
      return expand_dims(x, axis, num_newaxis);
    });
MINITVM_REGISTER_GLOBAL("topi.expand_dims_axes").set_body_typed([](Tensor x, Any axes) {
  return expand_dims(x, Ints(axes));
});
MINITVM_REGISTER_GLOBAL("topi.take")
    .set_body_typed([](Tensor x, Tensor indices, Any axis, std::string mode) {
      std::optional<int64_t> a;
      if (!axis.is_null()) a = axis.cast<int64_t>();
      return take(x, indices, a, mode);
    });
MINITVM_REGISTER_GLOBAL("topi.where").set_body_typed([](Tensor c, Tensor x, Tensor y) {
  return where(c, x, y);
});
MINITVM_REGISTER_GLOBAL("topi.strided_slice")
    .set_body_typed([](Tensor x, Any begin, Any end, Any strides) {
      return strided_slice(x, Ints(begin), Ints(end), Ints(strides));
    });
MINITVM_REGISTER_GLOBAL("topi.nn.pad")
    .set_body_typed([](Tensor x, Array<PrimExpr> before, Array<PrimExpr> after, PrimExpr value,
                       std::string mode) {
      return pad(x, Norm(before), Norm(after), value, "PadInput", mode);
    });

// ---- reductions --------------------------------------------------------------------------------
#define MINITVM_TOPI_REGISTER_REDUCE(Name)                                                      \
  MINITVM_REGISTER_GLOBAL("topi." #Name).set_body_typed([](Tensor x, Any axis, bool keepdims) { \
    return Name(x, OptInts(axis), keepdims);                                                    \
  });
MINITVM_TOPI_REGISTER_REDUCE(sum)
MINITVM_TOPI_REGISTER_REDUCE(max)
MINITVM_TOPI_REGISTER_REDUCE(min)
MINITVM_TOPI_REGISTER_REDUCE(prod)
MINITVM_TOPI_REGISTER_REDUCE(mean)
#undef MINITVM_TOPI_REGISTER_REDUCE
MINITVM_REGISTER_GLOBAL("topi.argmax").set_body_typed([](Tensor x, Any axis, bool keepdims) {
  std::optional<int64_t> a;
  if (!axis.is_null()) a = axis.cast<int64_t>();
  return argmax(x, a, keepdims);
});
MINITVM_REGISTER_GLOBAL("topi.argmin").set_body_typed([](Tensor x, Any axis, bool keepdims) {
  std::optional<int64_t> a;
  if (!axis.is_null()) a = axis.cast<int64_t>();
  return argmin(x, a, keepdims);
});

// ---- linear algebra and nn ---------------------------------------------------------------------
MINITVM_REGISTER_GLOBAL("topi.matmul")
    .set_body_typed([](Tensor a, Tensor b, bool ta, bool tb, Any out_dtype) {
      return matmul(a, b, ta, tb, OptDType(out_dtype));
    });
MINITVM_REGISTER_GLOBAL("topi.nn.dense")
    .set_body_typed([](Tensor data, Tensor weight, Any bias, Any out_dtype) {
      return nn::dense(data, weight, OptTensor(bias), OptDType(out_dtype));
    });
MINITVM_REGISTER_GLOBAL("topi.nn.batch_matmul")
    .set_body_typed([](Tensor x, Tensor y, bool ta, bool tb, Any out_dtype) {
      return nn::batch_matmul(x, y, ta, tb, OptDType(out_dtype));
    });
MINITVM_REGISTER_GLOBAL("topi.nn.relu").set_body_typed([](Tensor x) { return nn::relu(x); });
MINITVM_REGISTER_GLOBAL("topi.nn.leaky_relu").set_body_typed([](Tensor x, double alpha) {
  return nn::leaky_relu(x, alpha);
});
MINITVM_REGISTER_GLOBAL("topi.nn.gelu").set_body_typed([](Tensor x, std::string approximate) {
  return nn::gelu(x, approximate);
});
MINITVM_REGISTER_GLOBAL("topi.nn.softmax").set_body_typed([](Tensor x, int64_t axis) {
  return nn::softmax(x, axis);
});
MINITVM_REGISTER_GLOBAL("topi.nn.log_softmax").set_body_typed([](Tensor x, int64_t axis) {
  return nn::log_softmax(x, axis);
});
MINITVM_REGISTER_GLOBAL("topi.nn.conv2d_nchw")
    .set_body_typed([](Tensor input, Tensor filter, Any stride, Any padding, Any dilation,
                       int64_t groups, Any out_dtype) {
      return nn::conv2d_nchw(input, filter, Ints(stride), Ints(padding), Ints(dilation), groups,
                             OptDType(out_dtype));
    });
MINITVM_REGISTER_GLOBAL("topi.nn.conv2d_transpose_nchw")
    .set_body_typed([](Tensor input, Tensor filter, Any stride, Any padding, Any output_padding,
                       Any dilation, int64_t groups, Any out_dtype) {
      return nn::conv2d_transpose_nchw(input, filter, Ints(stride), Ints(padding),
                                       Ints(output_padding), Ints(dilation), groups,
                                       OptDType(out_dtype));
    });
MINITVM_REGISTER_GLOBAL("topi.nn.pool2d")
    .set_body_typed([](Tensor x, Any kernel, Any stride, Any dilation, Any padding,
                       std::string pool_type, bool ceil_mode, bool count_include_pad) {
      return nn::pool2d(x, Ints(kernel), Ints(stride), Ints(dilation), Ints(padding), pool_type,
                        ceil_mode, count_include_pad);
    });
MINITVM_REGISTER_GLOBAL("topi.nn.adaptive_pool")
    .set_body_typed([](Tensor x, Any output_size, std::string pool_type) {
      return nn::adaptive_pool(x, Ints(output_size), pool_type);
    });
MINITVM_REGISTER_GLOBAL("topi.nn.batch_norm")
    .set_body_typed([](Tensor x, Tensor gamma, Tensor beta, Tensor mean, Tensor var, int64_t axis,
                       double epsilon, bool center, bool scale) {
      return nn::batch_norm(x, gamma, beta, mean, var, axis, epsilon, center, scale);
    });
MINITVM_REGISTER_GLOBAL("topi.nn.layer_norm")
    .set_body_typed([](Tensor x, Any gamma, Any beta, Any axes, double epsilon) {
      return nn::layer_norm(x, OptTensor(gamma), OptTensor(beta), Ints(axes), epsilon);
    });
MINITVM_REGISTER_GLOBAL("topi.nn.batch_flatten").set_body_typed([](Tensor x) {
  return nn::batch_flatten(x);
});

}  // namespace topi
}  // namespace minitvm
