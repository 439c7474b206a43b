/*!
 * \file nn.cc
 * \brief The neural-network Relax operators `relax.nn.*` (stage 4): activations (`relu`,
 * `gelu`, `silu`, `softmax`, `log_softmax`), `conv2d`, `max_pool2d`, `avg_pool2d`,
 * `adaptive_avg_pool2d`, `batch_norm` (a 3-tuple), `layer_norm` and `dropout` (a 2-tuple).
 *
 * Convolution and pooling support the NCHW data layout (and OIHW kernels) only; other layouts
 * are refused with a ValueError. Window attributes are normalised by MakeOpCall as TVM's
 * constructors do: 2 values for strides/dilation/pool_size, 4 for padding (top, left, bottom,
 * right), `out_layout` None becomes the input layout.
 */
#include <limits>

#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

StructInfo SameAs(const TensorStructInfoNode* x) {
  if (x->shape.defined()) return TensorStructInfo(x->shape, x->dtype);
  return TensorStructInfo(x->dtype, x->ndim);
}

// ---- activations -----------------------------------------------------------------------------

StructInfo InferRelu(const Call& call) {
  CheckNumArgs(call, 1, 1);
  return SameAs(TensorArg(call, 0));
}

StructInfo InferFloatActivation(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  RequireFloat(call, 0, x->dtype);
  return SameAs(x);
}

StructInfo InferSoftmax(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  RequireFloat(call, 0, x->dtype);
  if (!x->IsUnknownNdim()) {
    if (x->ndim == 0) MINITVM_THROW(ValueError) << OpName(call) << ": data is a scalar (rank 0)";
    NormalizeAxis(call, IntAttr(call, "axis"), x->ndim, "axis");
  }
  return SameAs(x);
}

// ---- windows ---------------------------------------------------------------------------------

/*! \brief A window attribute expanded to n values (already done by MakeOpCall normally). */
std::vector<int64_t> Window(const Call& call, const std::string& key, size_t n) {
  Any v = ExpandIntList(AttrOf(call, key), n, OpName(call), key,
                        n == 4 ? std::vector<size_t>{1, 2} : std::vector<size_t>{1});
  if (v.is_null()) MINITVM_THROW(ValueError) << OpName(call) << ": " << key << " is required";
  std::vector<int64_t> out;
  for (const Any& e : v.as<ArrayNode>()->data) out.push_back(e.raw_int());
  for (int64_t x : out) {
    if (key != "padding" && x <= 0) {
      MINITVM_THROW(ValueError) << OpName(call) << ": " << key << " must be positive, but is "
                                << ShapeStr(Array<PrimExpr>(
                                       std::vector<PrimExpr>(out.begin(), out.end())));
    }
    if (key == "padding" && x < 0) {
      MINITVM_THROW(ValueError) << OpName(call) << ": padding must not be negative";
    }
  }
  return out;
}

void RequireLayout(const Call& call, const std::string& key, const std::string& expected,
                   bool optional) {
  auto v = OptStrAttr(call, key);
  if (!v && optional) return;
  if (!v || *v != expected) {
    MINITVM_THROW(ValueError) << OpName(call) << ": only " << key << "=\"" << expected
                              << "\" is supported, but got " << key << "="
                              << (v ? "\"" + *v + "\"" : std::string("None"));
  }
}

void RequireRank(const Call& call, int i, const TensorStructInfoNode* t, int64_t rank,
                 const std::string& layout) {
  if (!t->IsUnknownNdim() && t->ndim != rank) {
    MINITVM_THROW(ValueError) << OpName(call) << ": " << ArgName(call, i) << " must be " << rank
                              << "-D (" << layout << "), but has shape " << TensorShapeStr(t);
  }
}

/*! \brief floor((in + pad - dilation * (k - 1) - 1 [+ stride - 1]) / stride) + 1. */
PrimExpr WindowOut(const PrimExpr& in, int64_t pad, const PrimExpr& k, int64_t dilation,
                   int64_t stride, bool ceil_mode) {
  PrimExpr num = NormDim(in) + Int64(pad) - Int64(dilation) * (NormDim(k) - Int64(1)) - Int64(1);
  if (ceil_mode) num = num + Int64(stride - 1);
  return NormDim(tir::floordiv(num, Int64(stride)) + Int64(1));
}

void CheckPositive(const Call& call, const PrimExpr& d, const Array<PrimExpr>& shape,
                   const std::string& what) {
  auto c = AsConstInt(d);
  if (c && *c <= 0) {
    MINITVM_THROW(ValueError) << OpName(call) << ": the output " << what << " is " << *c
                              << " for data " << ShapeStr(shape)
                              << " (the window is larger than the padded input)";
  }
}

StructInfo InferConv2d(const Call& call) {
  CheckNumArgs(call, 2, 2);
  auto* data = TensorArg(call, 0);
  auto* weight = TensorArg(call, 1);
  RequireLayout(call, "data_layout", "NCHW", false);
  RequireLayout(call, "kernel_layout", "OIHW", false);
  RequireLayout(call, "out_layout", "NCHW", true);
  DataType out_dtype = DTypeAttr(call, "out_dtype");
  if (out_dtype.is_void()) {
    out_dtype = UnifyDType(call, data->dtype, "data", weight->dtype, "weight");
  }
  RequireRank(call, 0, data, 4, "NCHW");
  RequireRank(call, 1, weight, 4, "OIHW");
  auto strides = Window(call, "strides", 2), dilation = Window(call, "dilation", 2);
  auto padding = Window(call, "padding", 4);
  int64_t groups = IntAttr(call, "groups");
  if (groups <= 0) MINITVM_THROW(ValueError) << "relax.nn.conv2d: groups must be positive";
  auto ds = data->GetShape(), ws = weight->GetShape();
  if (!ds || !ws) return TensorStructInfo(out_dtype, 4);
  PrimExpr in_c = NormDim((*ds)[1]), w_c = NormDim((*ws)[1] * Int64(groups));
  if (ProveNotEqual(in_c, w_c)) {
    MINITVM_THROW(ValueError) << "relax.nn.conv2d: data " << ShapeStr(*ds) << " has "
                              << DimStr(in_c) << " input channels, but weight " << ShapeStr(*ws)
                              << " with groups=" << groups << " expects " << DimStr(w_c);
  }
  if (auto o = AsConstInt((*ws)[0])) {
    if (*o % groups != 0) {
      MINITVM_THROW(ValueError) << "relax.nn.conv2d: the output channels of weight "
                                << ShapeStr(*ws) << " (" << *o
                                << ") are not a multiple of groups=" << groups;
    }
  }
  PrimExpr oh =
      WindowOut((*ds)[2], padding[0] + padding[2], (*ws)[2], dilation[0], strides[0], false);
  PrimExpr ow =
      WindowOut((*ds)[3], padding[1] + padding[3], (*ws)[3], dilation[1], strides[1], false);
  CheckPositive(call, oh, *ds, "height");
  CheckPositive(call, ow, *ds, "width");
  return TensorFromShape({(*ds)[0], (*ws)[0], oh, ow}, out_dtype);
}

StructInfo InferPool2d(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* data = TensorArg(call, 0);
  RequireLayout(call, "layout", "NCHW", false);
  RequireLayout(call, "out_layout", "NCHW", true);
  RequireRank(call, 0, data, 4, "NCHW");
  auto pool = Window(call, "pool_size", 2), strides = Window(call, "strides", 2);
  auto dilation = Window(call, "dilation", 2), padding = Window(call, "padding", 4);
  bool ceil_mode = BoolAttr(call, "ceil_mode");
  auto ds = data->GetShape();
  if (!ds) return TensorStructInfo(data->dtype, 4);
  PrimExpr oh = WindowOut((*ds)[2], padding[0] + padding[2], Int64(pool[0]), dilation[0],
                          strides[0], ceil_mode);
  PrimExpr ow = WindowOut((*ds)[3], padding[1] + padding[3], Int64(pool[1]), dilation[1],
                          strides[1], ceil_mode);
  CheckPositive(call, oh, *ds, "height");
  CheckPositive(call, ow, *ds, "width");
  return TensorFromShape({(*ds)[0], (*ds)[1], oh, ow}, data->dtype);
}

StructInfo InferAdaptivePool2d(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* data = TensorArg(call, 0);
  RequireLayout(call, "layout", "NCHW", false);
  RequireLayout(call, "out_layout", "NCHW", true);
  RequireRank(call, 0, data, 4, "NCHW");
  Any os = AttrOf(call, "output_size");
  auto ds = data->GetShape();
  if (os.is_null())
    return ds ? TensorFromShape(*ds, data->dtype) : TensorStructInfo(data->dtype, 4);
  auto size = Window(call, "output_size", 2);
  if (!ds) return TensorStructInfo(data->dtype, 4);
  return TensorFromShape({(*ds)[0], (*ds)[1], Int64(size[0]), Int64(size[1])}, data->dtype);
}

// ---- normalisation ---------------------------------------------------------------------------

/*! \brief Checks that argument i is a 1-D tensor of extent `c` and dtype `dtype`. */
void CheckChannelParam(const Call& call, int i, const PrimExpr& c, const std::string& c_what,
                       DataType dtype) {
  auto* t = TensorArg(call, i);
  UnifyDType(call, dtype, ArgName(call, 0), t->dtype, ArgName(call, i));
  if (!t->IsUnknownNdim() && t->ndim != 1) {
    MINITVM_THROW(ValueError) << OpName(call) << ": " << ArgName(call, i)
                              << " must be 1-D, but has shape " << TensorShapeStr(t);
  }
  auto s = t->GetShape();
  if (s && c.defined() && ProveNotEqual((*s)[0], c)) {
    MINITVM_THROW(ValueError) << OpName(call) << ": " << ArgName(call, i) << " " << ShapeStr(*s)
                              << " must have " << DimStr(c) << " elements (" << c_what << ")";
  }
}

/*! \brief The epsilon of a normalisation: a finite number >= 0 (NaN would poison the result). */
void CheckEpsilon(const Call& call, const char* op) {
  double eps = FloatAttr(call, "epsilon");
  if (!(eps >= 0 && eps < std::numeric_limits<double>::infinity())) {
    MINITVM_THROW(ValueError) << op << ": epsilon must be a finite number >= 0, but is " << eps;
  }
}

StructInfo InferBatchNorm(const Call& call) {
  CheckNumArgs(call, 5, 5);
  CheckEpsilon(call, "relax.nn.batch_norm");
  auto* data = TensorArg(call, 0);
  int64_t axis = IntAttr(call, "axis");
  PrimExpr c;
  std::string c_what;
  auto ds = data->GetShape();
  if (!data->IsUnknownNdim()) {
    int64_t ax = NormalizeAxis(call, axis, data->ndim, "axis");
    if (ds) {
      c = (*ds)[ax];
      c_what = "the extent of axis " + std::to_string(ax) + " of data " + ShapeStr(*ds);
    }
  }
  for (int i = 1; i < 5; ++i) CheckChannelParam(call, i, c, c_what, data->dtype);
  StructInfo stat;
  if (c.defined()) {
    stat = TensorFromShape({c}, data->dtype);
  } else {
    auto* mm = TensorArg(call, 3);
    stat = mm->shape.defined() ? StructInfo(TensorStructInfo(mm->shape, data->dtype))
                               : StructInfo(TensorStructInfo(data->dtype, 1));
  }
  return TupleStructInfo({SameAs(data), stat, stat});
}

StructInfo InferLayerNorm(const Call& call) {
  CheckNumArgs(call, 3, 3);
  CheckEpsilon(call, "relax.nn.layer_norm");
  auto* data = TensorArg(call, 0);
  std::vector<int64_t> axes = IntListAttr(call, "axes");
  for (int i = 1; i < 3; ++i)
    UnifyDType(call, data->dtype, "data", TensorArg(call, i)->dtype, ArgName(call, i));
  if (data->IsUnknownNdim()) return SameAs(data);
  std::vector<int64_t> norm = NormalizeAxes(call, axes, data->ndim, "axis");
  auto ds = data->GetShape();
  if (!ds) return SameAs(data);
  std::vector<PrimExpr> expect;
  for (int64_t a : norm) expect.push_back((*ds)[a]);
  Array<PrimExpr> want(expect);
  for (int i = 1; i < 3; ++i) {
    auto* t = TensorArg(call, i);
    if (t->IsUnknownNdim()) continue;
    bool bad = t->ndim != static_cast<int64_t>(expect.size());
    auto s = t->GetShape();
    if (!bad && s) {
      for (size_t k = 0; k < expect.size(); ++k) bad = bad || ProveNotEqual((*s)[k], expect[k]);
    }
    if (bad) {
      MINITVM_THROW(ValueError) << "relax.nn.layer_norm: " << ArgName(call, i) << " "
                                << TensorShapeStr(t) << " must have the shape " << ShapeStr(want)
                                << " of the normalised axes of data " << ShapeStr(*ds);
    }
  }
  return SameAs(data);
}

StructInfo InferDropout(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  double rate = FloatAttr(call, "rate");
  if (!(rate >= 0 && rate < 1)) {  // (NaN fails both)
    MINITVM_THROW(ValueError) << "relax.nn.dropout: rate must be in [0, 1), but is " << rate;
  }
  return TupleStructInfo({SameAs(x), SameAs(x)});
}

// ---- attribute normalisers -------------------------------------------------------------------

Map<String, Any> NormWindows(Map<String, Any> a, const std::string& op,
                             std::initializer_list<const char*> pairs, const char* layout_key) {
  for (const char* k : pairs) {
    if (auto v = a.Get(k)) a.Set(k, ExpandIntList(*v, 2, op, k, {1}));
  }
  if (auto v = a.Get("padding")) a.Set("padding", ExpandIntList(*v, 4, op, "padding", {1, 2}));
  auto out = a.Get("out_layout");
  if (out && out->is_null()) a.Set("out_layout", *a.Get(layout_key));
  return a;
}

[[maybe_unused]] const bool kNNNormalizers = [] {
  RegisterAttrNormalizer("relax.nn.conv2d", [](const Array<Expr>&, Map<String, Any> a) {
    return NormWindows(a, "relax.nn.conv2d", {"strides", "dilation"}, "data_layout");
  });
  for (const char* name : {"relax.nn.max_pool2d", "relax.nn.avg_pool2d"}) {
    std::string n = name;
    RegisterAttrNormalizer(n, [n](const Array<Expr>&, Map<String, Any> a) {
      return NormWindows(a, n, {"pool_size", "strides", "dilation"}, "layout");
    });
  }
  RegisterAttrNormalizer(
      "relax.nn.adaptive_avg_pool2d", [](const Array<Expr>&, Map<String, Any> a) {
        if (auto v = a.Get("output_size")) {
          a.Set("output_size",
                ExpandIntList(*v, 2, "relax.nn.adaptive_avg_pool2d", "output_size", {1}));
        }
        auto out = a.Get("out_layout");
        if (out && out->is_null()) a.Set("out_layout", *a.Get("layout"));
        return a;
      });
  RegisterAttrNormalizer("relax.nn.layer_norm", [](const Array<Expr>&, Map<String, Any> a) {
    auto v = a.Get("axes");
    if (v && (v->is_int() || v->as<IntImmNode>())) a.Set("axes", Array<Any>{*v});
    return a;
  });
  return true;
}();

AttrMap PoolDefaults() {
  return AttrMap{{"pool_size", IntList({1, 1})},     {"strides", IntList({1, 1})},
                 {"padding", IntList({0, 0, 0, 0})}, {"dilation", IntList({1, 1})},
                 {"ceil_mode", Any(false)},          {"count_include_pad", Any(false)},
                 {"layout", Any(String("NCHW"))},    {"out_layout", Any()}};
}

}  // namespace

#define MINITVM_RELAX_NN_OP(Name, Pattern, Infer) \
  MINITVM_REGISTER_OP("relax.nn." #Name).MINITVM_RELAX_OP_TRAITS(Pattern, true, Infer)

MINITVM_RELAX_NN_OP(relu, kElemWise, InferRelu)
    .describe("max(data, 0), elementwise.")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap());
MINITVM_RELAX_NN_OP(gelu, kElemWise, InferFloatActivation)
    .describe("data * Phi(data) (the erf form), elementwise.")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap());
MINITVM_RELAX_NN_OP(silu, kElemWise, InferFloatActivation)
    .describe("data * sigmoid(data), elementwise.")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap());
MINITVM_RELAX_NN_OP(softmax, kOpaque, InferSoftmax)
    .describe("exp(data) / sum(exp(data)) along axis.")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"axis", Any(int64_t{-1})}});
MINITVM_RELAX_NN_OP(log_softmax, kOpaque, InferSoftmax)
    .describe("log(softmax(data)) along axis.")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"axis", Any(int64_t{-1})}});
MINITVM_RELAX_NN_OP(conv2d, kOutEWiseFusable, InferConv2d)
    .describe("2-D convolution (NCHW data, OIHW weight).")
    .set_num_inputs(2)
    .add_argument("data", "Tensor", "The input, NCHW.")
    .add_argument("weight", "Tensor", "The kernel, OIHW.")
    .set_attr(kTAttrDefaults, AttrMap{{"strides", IntList({1, 1})},
                                      {"padding", IntList({0, 0, 0, 0})},
                                      {"dilation", IntList({1, 1})},
                                      {"groups", Any(int64_t{1})},
                                      {"data_layout", Any(String("NCHW"))},
                                      {"kernel_layout", Any(String("OIHW"))},
                                      {"out_layout", Any()},
                                      {"out_dtype", Any()}});
MINITVM_RELAX_NN_OP(max_pool2d, kOutEWiseFusable, InferPool2d)
    .describe("2-D max pooling (NCHW).")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input, NCHW.")
    .set_attr(kTAttrDefaults, PoolDefaults());
MINITVM_RELAX_NN_OP(avg_pool2d, kOutEWiseFusable, InferPool2d)
    .describe("2-D average pooling (NCHW).")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input, NCHW.")
    .set_attr(kTAttrDefaults, PoolDefaults());
MINITVM_RELAX_NN_OP(adaptive_avg_pool2d, kOutEWiseFusable, InferAdaptivePool2d)
    .describe("2-D average pooling to a given output size (NCHW).")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input, NCHW.")
    .set_attr(kTAttrDefaults,
              AttrMap{
                  {"output_size", Any()}, {"layout", Any(String("NCHW"))}, {"out_layout", Any()}});
MINITVM_RELAX_NN_OP(batch_norm, kOpaque, InferBatchNorm)
    .describe("Batch normalisation along axis; returns (out, moving_mean, moving_var).")
    .set_num_inputs(5)
    .add_argument("data", "Tensor", "The input.")
    .add_argument("gamma", "Tensor", "The scale.")
    .add_argument("beta", "Tensor", "The offset.")
    .add_argument("moving_mean", "Tensor", "The running mean.")
    .add_argument("moving_var", "Tensor", "The running variance.")
    .set_attr(kTAttrDefaults, AttrMap{{"axis", Any(int64_t{1})},
                                      {"epsilon", Any(1e-5)},
                                      {"center", Any(true)},
                                      {"scale", Any(true)},
                                      {"momentum", Any(0.1)},
                                      {"training", Any(true)}});
MINITVM_RELAX_NN_OP(layer_norm, kOpaque, InferLayerNorm)
    .describe("Layer normalisation over axes.")
    .set_num_inputs(3)
    .add_argument("data", "Tensor", "The input.")
    .add_argument("gamma", "Tensor", "The scale.")
    .add_argument("beta", "Tensor", "The offset.")
    .set_attr(kTAttrDefaults, AttrMap{{"axes", Any()},
                                      {"epsilon", Any(1e-5)},
                                      {"center", Any(true)},
                                      {"scale", Any(true)}});
MINITVM_RELAX_NN_OP(dropout, kOpaque, InferDropout)
    .describe("Dropout; returns (out, mask).")
    .set_num_inputs(1)
    .add_argument("data", "Tensor", "The input.")
    .set_attr(kTAttrDefaults, AttrMap{{"rate", Any(0.5)}});

namespace op {
namespace nn {
Call relu(Expr data) { return MakeOpCall("relax.nn.relu", {data}); }
Call gelu(Expr data) { return MakeOpCall("relax.nn.gelu", {data}); }
Call silu(Expr data) { return MakeOpCall("relax.nn.silu", {data}); }
Call softmax(Expr data, int64_t axis) {
  return MakeOpCall("relax.nn.softmax", {data}, {{"axis", axis}});
}
Call log_softmax(Expr data, int64_t axis) {
  return MakeOpCall("relax.nn.log_softmax", {data}, {{"axis", axis}});
}
Call conv2d(Expr data, Expr weight, Any strides, Any padding, Any dilation, int64_t groups,
            std::string data_layout, std::string kernel_layout, Any out_layout, Any out_dtype) {
  return MakeOpCall("relax.nn.conv2d", {data, weight},
                    {{"strides", strides},
                     {"padding", padding},
                     {"dilation", dilation},
                     {"groups", groups},
                     {"data_layout", String(data_layout)},
                     {"kernel_layout", String(kernel_layout)},
                     {"out_layout", out_layout},
                     {"out_dtype", out_dtype}});
}
static Call Pool(const char* name, Expr data, Any pool_size, Any strides, Any padding, Any dilation,
                 bool ceil_mode, bool count_include_pad, std::string layout, Any out_layout) {
  return MakeOpCall(name, {data},
                    {{"pool_size", pool_size},
                     {"strides", strides},
                     {"padding", padding},
                     {"dilation", dilation},
                     {"ceil_mode", ceil_mode},
                     {"count_include_pad", count_include_pad},
                     {"layout", String(layout)},
                     {"out_layout", out_layout}});
}
Call max_pool2d(Expr data, Any pool_size, Any strides, Any padding, Any dilation, bool ceil_mode,
                bool count_include_pad, std::string layout, Any out_layout) {
  return Pool("relax.nn.max_pool2d", data, pool_size, strides, padding, dilation, ceil_mode,
              count_include_pad, layout, out_layout);
}
Call avg_pool2d(Expr data, Any pool_size, Any strides, Any padding, Any dilation, bool ceil_mode,
                bool count_include_pad, std::string layout, Any out_layout) {
  return Pool("relax.nn.avg_pool2d", data, pool_size, strides, padding, dilation, ceil_mode,
              count_include_pad, layout, out_layout);
}
Call adaptive_avg_pool2d(Expr data, Any output_size, std::string layout, Any out_layout) {
  return MakeOpCall(
      "relax.nn.adaptive_avg_pool2d", {data},
      {{"output_size", output_size}, {"layout", String(layout)}, {"out_layout", out_layout}});
}
Call batch_norm(Expr data, Expr gamma, Expr beta, Expr moving_mean, Expr moving_var, int64_t axis,
                double epsilon, bool center, bool scale, double momentum, bool training) {
  return MakeOpCall("relax.nn.batch_norm", {data, gamma, beta, moving_mean, moving_var},
                    {{"axis", axis},
                     {"epsilon", epsilon},
                     {"center", center},
                     {"scale", scale},
                     {"momentum", momentum},
                     {"training", training}});
}
Call layer_norm(Expr data, Expr gamma, Expr beta, Any axes, double epsilon, bool center,
                bool scale) {
  return MakeOpCall("relax.nn.layer_norm", {data, gamma, beta},
                    {{"axes", axes}, {"epsilon", epsilon}, {"center", center}, {"scale", scale}});
}
Call dropout(Expr data, double rate) {
  return MakeOpCall("relax.nn.dropout", {data}, {{"rate", rate}});
}
}  // namespace nn
}  // namespace op

MINITVM_REGISTER_GLOBAL("relax.op.nn.relu").set_body_typed(op::nn::relu);
MINITVM_REGISTER_GLOBAL("relax.op.nn.gelu").set_body_typed(op::nn::gelu);
MINITVM_REGISTER_GLOBAL("relax.op.nn.silu").set_body_typed(op::nn::silu);
MINITVM_REGISTER_GLOBAL("relax.op.nn.softmax").set_body_typed(op::nn::softmax);
MINITVM_REGISTER_GLOBAL("relax.op.nn.log_softmax").set_body_typed(op::nn::log_softmax);
MINITVM_REGISTER_GLOBAL("relax.op.nn.conv2d").set_body_typed(op::nn::conv2d);
MINITVM_REGISTER_GLOBAL("relax.op.nn.max_pool2d").set_body_typed(op::nn::max_pool2d);
MINITVM_REGISTER_GLOBAL("relax.op.nn.avg_pool2d").set_body_typed(op::nn::avg_pool2d);
MINITVM_REGISTER_GLOBAL("relax.op.nn.adaptive_avg_pool2d")
    .set_body_typed(op::nn::adaptive_avg_pool2d);
MINITVM_REGISTER_GLOBAL("relax.op.nn.batch_norm").set_body_typed(op::nn::batch_norm);
MINITVM_REGISTER_GLOBAL("relax.op.nn.layer_norm").set_body_typed(op::nn::layer_norm);
MINITVM_REGISTER_GLOBAL("relax.op.nn.dropout").set_body_typed(op::nn::dropout);

}  // namespace relax
}  // namespace minitvm
