/*!
 * \file op_infer_test.cc
 * \brief Stage 4: struct-info inference of the Relax operators, called directly through the
 * `FInferStructInfo` attribute on calls whose arguments are variables with struct info.
 * Random shapes are checked against small reference rules (numpy's broadcasting, matmul,
 * reductions); symbolic dimensions and the error kind + message of bad calls are checked too.
 */
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "minitvm/relax/op.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

using Shape = std::vector<int64_t>;

Array<PrimExpr> Dims(const Shape& s) {
  Array<PrimExpr> out;
  for (int64_t d : s) out.push_back(IntImm(DataType::Int(64), d));
  return out;
}

Var T(const Shape& s, const std::string& dtype = "float32", const std::string& name = "x") {
  return Var(name, TensorStructInfo(ShapeExpr(Dims(s)), DataType(dtype)));
}

Var TSym(Array<PrimExpr> dims, const std::string& dtype = "float32") {
  return Var("x", TensorStructInfo(ShapeExpr(dims), DataType(dtype)));
}

StructInfo Infer(const Call& call) {
  Op op = Downcast<Op>(call->op);
  return op.GetAttr(kFInferStructInfo).cast<runtime::PackedFunc>()(call).cast<StructInfo>();
}

/*! \brief The static shape of a tensor struct info (fails the test when not static). */
Shape StaticShape(const StructInfo& info) {
  auto* t = info.as<TensorStructInfoNode>();
  EXPECT_TRUE(t) << "not a tensor: " << StructInfoToString(info);
  if (!t) return {};
  auto s = t->GetShape();
  EXPECT_TRUE(s.has_value()) << "shape unknown: " << StructInfoToString(info);
  if (!s) return {};
  Shape out;
  for (const PrimExpr& d : *s) {
    auto c = AsConstInt(d);
    EXPECT_TRUE(c.has_value()) << "symbolic dim in " << StructInfoToString(info);
    out.push_back(c ? *c : -999);
  }
  return out;
}

DataType DTypeOf(const StructInfo& info) { return info.as<TensorStructInfoNode>()->dtype; }

std::string Str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

/*! \brief numpy broadcasting, or nullopt. */
std::optional<Shape> NpBroadcast(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[n - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

Shape RandomShape(std::mt19937& rng, int max_rank) {
  int rank = std::uniform_int_distribution<int>(0, max_rank)(rng);
  Shape s;
  for (int i = 0; i < rank; ++i) s.push_back(std::uniform_int_distribution<int64_t>(1, 4)(rng));
  return s;
}

// ---- registry ------------------------------------------------------------------------------

TEST(RelaxOpRegistry, EveryOpHasTheAttributes) {
  const char* names[] = {"relax.add",
                         "relax.subtract",
                         "relax.multiply",
                         "relax.divide",
                         "relax.floor_divide",
                         "relax.power",
                         "relax.maximum",
                         "relax.minimum",
                         "relax.equal",
                         "relax.not_equal",
                         "relax.less",
                         "relax.less_equal",
                         "relax.greater",
                         "relax.greater_equal",
                         "relax.where",
                         "relax.exp",
                         "relax.log",
                         "relax.sqrt",
                         "relax.rsqrt",
                         "relax.tanh",
                         "relax.sigmoid",
                         "relax.erf",
                         "relax.negative",
                         "relax.abs",
                         "relax.astype",
                         "relax.matmul",
                         "relax.permute_dims",
                         "relax.reshape",
                         "relax.flatten",
                         "relax.concat",
                         "relax.split",
                         "relax.expand_dims",
                         "relax.squeeze",
                         "relax.strided_slice",
                         "relax.take",
                         "relax.broadcast_to",
                         "relax.sum",
                         "relax.mean",
                         "relax.max",
                         "relax.min",
                         "relax.argmax",
                         "relax.argmin",
                         "relax.zeros",
                         "relax.ones",
                         "relax.full",
                         "relax.nn.relu",
                         "relax.nn.gelu",
                         "relax.nn.silu",
                         "relax.nn.softmax",
                         "relax.nn.log_softmax",
                         "relax.nn.conv2d",
                         "relax.nn.max_pool2d",
                         "relax.nn.avg_pool2d",
                         "relax.nn.adaptive_avg_pool2d",
                         "relax.nn.batch_norm",
                         "relax.nn.layer_norm",
                         "relax.nn.dropout",
                         "relax.call_tir",
                         "relax.call_dps_packed",
                         "relax.call_pure_packed",
                         "relax.builtin.alloc_tensor",
                         "relax.memory.alloc_storage",
                         "relax.memory.alloc_tensor",
                         "relax.memory.kill_storage",
                         "relax.memory.kill_tensor"};
  for (const char* n : names) {
    ASSERT_TRUE(Op::Has(n)) << n;
    Op op = Op::Get(n);
    for (const char* key : {kFInferStructInfo, kFPurity, kTOpPattern, kTAttrDefaults}) {
      EXPECT_TRUE(op.HasAttr(key)) << n << " lacks " << key;
    }
    EXPECT_FALSE(op->description.str().empty()) << n;
  }
  OpAttrMap<bool> purity(kFPurity);
  EXPECT_FALSE(purity[Op::Get("relax.memory.kill_tensor")]);
  EXPECT_TRUE(purity[Op::Get("relax.call_tir")]);
  OpAttrMap<int64_t> pattern(kTOpPattern);
  EXPECT_EQ(pattern[Op::Get("relax.add")], kBroadcast);
  EXPECT_EQ(pattern[Op::Get("relax.exp")], kElemWise);
  EXPECT_EQ(pattern[Op::Get("relax.sum")], kCommReduce);
  EXPECT_EQ(pattern[Op::Get("relax.matmul")], kOutEWiseFusable);
  EXPECT_EQ(pattern[Op::Get("relax.reshape")], kInjective);
  EXPECT_EQ(pattern[Op::Get("relax.call_tir")], kOpaque);
}

TEST(RelaxOpRegistry, MakeOpCallFillsDefaultsInOrderAndRefusesUnknownAttributes) {
  Var x = T({1, 3, 8, 8}), w = T({4, 3, 3, 3}, "float32", "w");
  Call c = MakeOpCall("relax.nn.conv2d", {x, w}, {{"groups", 1}, {"strides", 2}});
  std::vector<std::string> keys;
  for (const auto& kv : c->attrs.items()) keys.push_back(kv.first.str());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"strides", "padding", "dilation", "groups", "data_layout",
                                      "kernel_layout", "out_layout", "out_dtype"}));
  EXPECT_EQ(c->attrs.at("strides").cast<Array<Any>>().size(), 2u);   // 2 → [2, 2]
  EXPECT_EQ(c->attrs.at("padding").cast<Array<Any>>().size(), 4u);   // [0, 0, 0, 0]
  EXPECT_EQ(c->attrs.at("out_layout").cast<std::string>(), "NCHW");  // None → data_layout
  EXPECT_TRUE(c->attrs.at("out_dtype").is_null());
  EXPECT_MINITVM_ERROR(MakeOpCall("relax.nn.conv2d", {x, w}, {{"stride", 1}}), "ValueError",
                       "relax.nn.conv2d has no attribute \"stride\" (its attributes are strides");
  EXPECT_MINITVM_ERROR(MakeOpCall("relax.add", {x}), "ValueError",
                       "relax.add takes 2 arguments (x1, x2), but got 1");
  EXPECT_MINITVM_ERROR(MakeOpCall("relax.add", {x, x}, {{"axis", 1}}), "ValueError",
                       "it takes no attributes");
  // Two routes to the same call are structurally the same attribute values.
  Call a = op::sum(x, 1, true);
  EXPECT_EQ(a->attrs.at("axis").cast<Array<Any>>()[0].cast<int64_t>(), 1);
  EXPECT_TRUE(a->attrs.at("keepdims").cast<bool>());
}

// ---- binary --------------------------------------------------------------------------------

TEST(RelaxOpInfer, BinaryBroadcastsLikeNumpyOnRandomShapes) {
  std::mt19937 rng(7);
  using Ctor = Call (*)(Expr, Expr);
  std::vector<std::pair<Ctor, bool>> ops = {{op::add, false},      {op::subtract, false},
                                            {op::multiply, false}, {op::divide, false},
                                            {op::power, false},    {op::maximum, false},
                                            {op::less, true},      {op::greater_equal, true},
                                            {op::equal, true},     {op::floor_divide, false}};
  int ok = 0, bad = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Shape a = RandomShape(rng, 4), b = RandomShape(rng, 4);
    if (trial % 3 == 0 && !a.empty()) b = Shape(a.begin() + (trial % a.size()), a.end());
    auto [ctor, cmp] = ops[trial % ops.size()];
    Call c = ctor(T(a), T(b, "float32", "y"));
    auto expect = NpBroadcast(a, b);
    if (expect) {
      StructInfo out = Infer(c);
      EXPECT_EQ(StaticShape(out), *expect) << Str(a) << " " << Str(b);
      EXPECT_EQ(DTypeOf(out), cmp ? DataType::Bool() : DataType::Float(32));
      ++ok;
    } else {
      EXPECT_MINITVM_ERROR(Infer(c), "ValueError", "cannot broadcast at dimension");
      ++bad;
    }
  }
  EXPECT_GT(ok, 50);
  EXPECT_GT(bad, 20);
}

TEST(RelaxOpInfer, BinaryErrorsNameTheOpBothShapesAndDtypes) {
  EXPECT_MINITVM_ERROR(Infer(op::add(T({2, 3}), T({4, 3}))), "ValueError",
                       "relax.add: the shapes of x1 (2, 3) and x2 (4, 3) cannot broadcast at "
                       "dimension 0 (2 vs 4)");
  EXPECT_MINITVM_ERROR(Infer(op::multiply(T({2, 3}), T({2, 3}, "int32"))), "TypeError",
                       "relax.multiply: the dtypes of x1 (float32) and x2 (int32) must be equal");
  Var tup("t", TupleStructInfo({TensorStructInfo(ShapeExpr(Dims({2})), DataType::Float(32))}));
  EXPECT_MINITVM_ERROR(Infer(op::add(tup, T({2}))), "TypeError",
                       "relax.add: argument x1 must be a tensor");
}

TEST(RelaxOpInfer, BinarySymbolicDims) {
  tir::Var n("n", DataType::Int(64)), m("m", DataType::Int(64));
  PrimExpr i64_4 = IntImm(DataType::Int(64), 4), one = IntImm(DataType::Int(64), 1);
  StructInfo s = Infer(op::add(TSym({n, i64_4}), TSym({one, i64_4})));
  auto dims = *s.as<TensorStructInfoNode>()->GetShape();
  EXPECT_TRUE(dims[0].same_as(n));
  // n vs m: rank known, shape decided at run time.
  StructInfo u = Infer(op::add(TSym({n}), TSym({m})));
  EXPECT_EQ(u.as<TensorStructInfoNode>()->ndim, 1);
  EXPECT_FALSE(u.as<TensorStructInfoNode>()->GetShape().has_value());
  // Unknown rank and unknown dtype propagate.
  Var any_rank("a", TensorStructInfo(DataType::Float(32), kUnknownNDim));
  EXPECT_TRUE(Infer(op::add(any_rank, T({2}))).as<TensorStructInfoNode>()->IsUnknownNdim());
  Var any_dtype("a", TensorStructInfo(ShapeExpr(Dims({2})), DataType::Void()));
  EXPECT_TRUE(Infer(op::add(any_dtype, T({2}))).as<TensorStructInfoNode>()->IsUnknownDtype());
}

TEST(RelaxOpInfer, Where) {
  EXPECT_EQ(StaticShape(Infer(op::where(T({3, 1}, "bool"), T({4}), T({1, 4})))), Shape({3, 4}));
  EXPECT_MINITVM_ERROR(Infer(op::where(T({3}, "float32"), T({3}), T({3}))), "TypeError",
                       "relax.where: condition must have dtype bool, but has float32");
}

// ---- unary ---------------------------------------------------------------------------------

TEST(RelaxOpInfer, UnaryKeepsTheInput) {
  using Ctor = Call (*)(Expr);
  for (Ctor f : {op::exp, op::log, op::sqrt, op::rsqrt, op::tanh, op::sigmoid, op::erf,
                 op::negative, op::abs, op::nn::relu, op::nn::gelu, op::nn::silu}) {
    StructInfo s = Infer(f(T({2, 5})));
    EXPECT_EQ(StaticShape(s), Shape({2, 5}));
  }
  EXPECT_MINITVM_ERROR(Infer(op::exp(T({2}, "int32"))), "TypeError",
                       "relax.exp: argument x must have a float dtype, but has int32");
  EXPECT_EQ(DTypeOf(Infer(op::abs(T({2}, "int32")))), DataType::Int(32));
  EXPECT_EQ(DTypeOf(Infer(op::astype(T({2}), "float16"))), DataType::Float(16));
  EXPECT_EQ(DTypeOf(Infer(op::astype(T({2}), DataType::Int(8)))), DataType::Int(8));
}

// ---- matmul --------------------------------------------------------------------------------

/*! \brief numpy matmul's result shape, or nullopt. */
std::optional<Shape> NpMatmul(const Shape& a0, const Shape& b0) {
  bool av = a0.size() == 1, bv = b0.size() == 1;
  Shape a = av ? Shape{1, a0[0]} : a0;
  Shape b = bv ? Shape{b0[0], 1} : b0;
  if (a[a.size() - 1] != b[b.size() - 2]) return std::nullopt;
  auto batch = NpBroadcast(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  if (!batch) return std::nullopt;
  Shape out = *batch;
  if (!av) out.push_back(a[a.size() - 2]);
  if (!bv) out.push_back(b[b.size() - 1]);
  return out;
}

TEST(RelaxOpInfer, MatmulFollowsNumpyOnRandomShapes) {
  std::mt19937 rng(11);
  int ok = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Shape a = RandomShape(rng, 4), b = RandomShape(rng, 4);
    if (a.empty()) a.push_back(3);
    if (b.empty()) b.push_back(3);
    if (trial % 2 == 0) b[b.size() == 1 ? 0 : b.size() - 2] = a.back();  // mostly compatible
    Call c = op::matmul(T(a), T(b, "float32", "y"));
    auto expect = NpMatmul(a, b);
    if (expect) {
      EXPECT_EQ(StaticShape(Infer(c)), *expect) << Str(a) << " @ " << Str(b);
      ++ok;
    } else {
      EXPECT_MINITVM_ERROR(Infer(c), "ValueError", "relax.matmul: the ");
    }
  }
  EXPECT_GT(ok, 100);
}

TEST(RelaxOpInfer, MatmulMessagesSymbolicAndOutDtype) {
  EXPECT_MINITVM_ERROR(Infer(op::matmul(T({2, 3}), T({4, 5}))), "ValueError",
                       "relax.matmul: the reduction dimensions of x1 (2, 3) and x2 (4, 5) differ "
                       "(3 vs 4)");
  tir::Var n("n", DataType::Int(64));
  PrimExpr k = IntImm(DataType::Int(64), 784), h = IntImm(DataType::Int(64), 128);
  StructInfo s = Infer(op::matmul(TSym({n, k}), TSym({k, h})));
  auto dims = *s.as<TensorStructInfoNode>()->GetShape();
  EXPECT_TRUE(dims[0].same_as(n));
  EXPECT_EQ(*AsConstInt(dims[1]), 128);
  EXPECT_EQ(DTypeOf(Infer(op::matmul(T({2, 3}, "int8"), T({3, 4}, "int8"), "int32"))),
            DataType::Int(32));
  EXPECT_MINITVM_ERROR(Infer(op::matmul(T({}), T({3}))), "ValueError", "x1 is a scalar");
}

// ---- manipulation --------------------------------------------------------------------------

TEST(RelaxOpInfer, PermuteDimsReshapeFlatten) {
  EXPECT_EQ(StaticShape(Infer(op::permute_dims(T({2, 3, 4})))), Shape({4, 3, 2}));
  EXPECT_EQ(StaticShape(Infer(op::permute_dims(T({2, 3, 4}), Array<Any>{1, -1, 0}))),
            Shape({3, 4, 2}));
  EXPECT_MINITVM_ERROR(Infer(op::permute_dims(T({2, 3}), Array<Any>{0, 0})), "ValueError",
                       "relax.permute_dims: axis 0 appears more than once");
  EXPECT_MINITVM_ERROR(Infer(op::permute_dims(T({2, 3}), Array<Any>{0})), "ValueError",
                       "axes has 1 entries, but x (2, 3) has rank 2");

  EXPECT_EQ(StaticShape(Infer(op::reshape(T({2, 3, 4}), Array<Any>{6, 4}))), Shape({6, 4}));
  // -1 is resolved by the constructor when x's shape is known.
  Call r = op::reshape(T({2, 3, 4}), Array<Any>{-1, 8});
  EXPECT_EQ(*AsConstInt(r->args[1].as<ShapeExprNode>()->values[0]), 3);
  EXPECT_EQ(StaticShape(Infer(r)), Shape({3, 8}));
  EXPECT_MINITVM_ERROR(op::reshape(T({2, 3}), Array<Any>{-1, 4}), "ValueError",
                       "relax.reshape: cannot reshape x of shape (2, 3) (6 elements) to (-1, 4)");
  EXPECT_MINITVM_ERROR(Infer(op::reshape(T({2, 3}), Array<Any>{4, 2})), "ValueError",
                       "relax.reshape: cannot reshape x of shape (2, 3) (6 elements) to (4, 2) "
                       "(8 elements)");
  EXPECT_MINITVM_ERROR(op::reshape(T({2, 3}), Array<Any>{-1, -1}), "ValueError",
                       "more than one -1");
  tir::Var n("n", DataType::Int(64));
  PrimExpr four = IntImm(DataType::Int(64), 4);
  StructInfo s = Infer(op::reshape(TSym({n, four}), Array<Any>{-1}));
  auto dims = *s.as<TensorStructInfoNode>()->GetShape();
  EXPECT_EQ(dims.size(), 1u);
  EXPECT_FALSE(AsConstInt(dims[0]).has_value());  // n * 4

  EXPECT_EQ(StaticShape(Infer(op::flatten(T({2, 3, 4})))), Shape({24}));
  EXPECT_EQ(StaticShape(Infer(op::flatten(T({})))), Shape({1}));
}

TEST(RelaxOpInfer, ConcatSplit) {
  Var a = T({2, 3}), b = T({2, 5}, "float32", "b");
  Call c = op::concat(Array<Expr>{a, b}, 1);
  Tuple tup = Downcast<Tuple>(c->args[0]);
  UpdateStructInfo(tup, TupleStructInfo({GetStructInfo(a), GetStructInfo(b)}));
  EXPECT_EQ(StaticShape(Infer(c)), Shape({2, 8}));
  Call bad = op::concat(tup, 0);
  EXPECT_MINITVM_ERROR(Infer(bad), "ValueError",
                       "relax.concat: tensors[0] (2, 3) and tensors[1] (2, 5) differ at dimension "
                       "1 (3 vs 5)");
  EXPECT_EQ(StaticShape(Infer(op::concat(tup, nullptr))), Shape({16}));

  StructInfo sp = Infer(op::split(T({2, 9}), 3, 1));
  auto* st = sp.as<TupleStructInfoNode>();
  ASSERT_TRUE(st);
  ASSERT_EQ(st->fields.size(), 3u);
  for (const StructInfo& f : st->fields) EXPECT_EQ(StaticShape(f), Shape({2, 3}));
  StructInfo sp2 = Infer(op::split(T({10}), Array<Any>{2, 5, 20}, 0));
  auto* st2 = sp2.as<TupleStructInfoNode>();
  std::vector<Shape> got;
  for (const StructInfo& f : st2->fields) got.push_back(StaticShape(f));
  EXPECT_EQ(got,
            (std::vector<Shape>{{2}, {3}, {5}, {0}}));  // numpy: a[:2], a[2:5], a[5:20], a[20:]
  EXPECT_MINITVM_ERROR(Infer(op::split(T({4}), 0, 0)), "ValueError",
                       "relax.split: the number of sections must be positive");
}

TEST(RelaxOpInfer, ExpandDimsSqueezeStridedSliceTakeBroadcastTo) {
  EXPECT_EQ(StaticShape(Infer(op::expand_dims(T({2, 3}), Array<Any>{0, -1}))), Shape({1, 2, 3, 1}));
  EXPECT_EQ(StaticShape(Infer(op::expand_dims(T({2, 3}), 1))), Shape({2, 1, 3}));
  EXPECT_EQ(StaticShape(Infer(op::squeeze(T({1, 2, 1, 3})))), Shape({2, 3}));
  EXPECT_EQ(StaticShape(Infer(op::squeeze(T({1, 2, 1}), 2))), Shape({1, 2}));
  EXPECT_MINITVM_ERROR(Infer(op::squeeze(T({2, 3}), 1)), "ValueError",
                       "relax.squeeze: dimension 1 of x (2, 3) is 3, not 1");

  // numpy: np.zeros((10, 8))[1:7:2, ::-3].shape == (3, 3)
  Call ss = op::strided_slice(T({10, 8}), Array<Any>{0, 1}, Array<Any>{1, -1}, Array<Any>{7, -100},
                              Array<Any>{2, -3});
  EXPECT_EQ(StaticShape(Infer(ss)), Shape({3, 3}));
  // A symbolic extent: x[0:2] of (n,) has min(2, n) rows; x[1:] has n - 1.
  tir::Var n("n", DataType::Int(64));
  StructInfo sym = Infer(op::strided_slice(TSym({n}), 0, 1, 1000000));
  PrimExpr len = (*sym.as<TensorStructInfoNode>()->GetShape())[0];
  EXPECT_FALSE(AsConstInt(len).has_value());
  StructInfo sym2 = Infer(op::strided_slice(TSym({n}), 0, 1, -1, 1, true));
  EXPECT_FALSE(AsConstInt((*sym2.as<TensorStructInfoNode>()->GetShape())[0]).has_value());
  EXPECT_MINITVM_ERROR(
      Infer(op::strided_slice(T({4}), Array<Any>{0}, Array<Any>{0, 1}, Array<Any>{2})),
      "ValueError", "axes, begin, end and strides must have the same length");

  EXPECT_EQ(StaticShape(Infer(op::take(T({5, 6}), T({2, 3}, "int64", "i"), 1))), Shape({5, 2, 3}));
  EXPECT_EQ(StaticShape(Infer(op::take(T({5}), T({4}, "int32", "i")))), Shape({4}));
  EXPECT_MINITVM_ERROR(Infer(op::take(T({5}), T({4}, "float32", "i"), 0)), "TypeError",
                       "relax.take: indices must have an integer dtype, but has float32");
  EXPECT_MINITVM_ERROR(Infer(op::take(T({5, 2}), T({4}, "int64", "i"))), "ValueError",
                       "x must be 1-D when axis is None");

  EXPECT_EQ(StaticShape(Infer(op::broadcast_to(T({3, 1}), Array<Any>{2, 3, 4}))), Shape({2, 3, 4}));
  EXPECT_MINITVM_ERROR(Infer(op::broadcast_to(T({3, 2}), Array<Any>{3, 4})), "ValueError",
                       "relax.broadcast_to: cannot broadcast x (3, 2) to (3, 4): dimension 1 is "
                       "2, not 1 or 4");
}

// ---- reductions ----------------------------------------------------------------------------

TEST(RelaxOpInfer, ReductionsOnRandomShapes) {
  std::mt19937 rng(3);
  using Ctor = Call (*)(Expr, Any, bool);
  std::vector<Ctor> ops = {op::sum, op::mean, op::max, op::min};
  for (int trial = 0; trial < 200; ++trial) {
    Shape s = RandomShape(rng, 4);
    bool keep = trial % 2;
    Array<Any> axes;
    std::vector<bool> red(s.size(), false);
    for (size_t d = 0; d < s.size(); ++d) {
      if (rng() % 2) {
        axes.push_back(rng() % 2 ? int64_t(d) : int64_t(d) - int64_t(s.size()));
        red[d] = true;
      }
    }
    bool all = trial % 5 == 0;
    Shape expect;
    for (size_t d = 0; d < s.size(); ++d) {
      if (!(red[d] || all)) {
        expect.push_back(s[d]);
      } else if (keep) {
        expect.push_back(1);
      }
    }
    Call c = ops[trial % ops.size()](T(s), all ? Any() : Any(axes), keep);
    EXPECT_EQ(StaticShape(Infer(c)), expect) << Str(s);
  }
  StructInfo am = Infer(op::argmax(T({3, 4}), 1, false));
  EXPECT_EQ(StaticShape(am), Shape({3}));
  EXPECT_EQ(DTypeOf(am), DataType::Int(64));
  EXPECT_EQ(StaticShape(Infer(op::argmin(T({3, 4})))), Shape({}));
  EXPECT_MINITVM_ERROR(Infer(op::sum(T({3, 4}), Array<Any>{2})), "ValueError",
                       "relax.sum: axis 2 is out of range for a tensor of rank 2");
  EXPECT_MINITVM_ERROR(Infer(op::mean(T({3, 4}), Array<Any>{1, -1})), "ValueError",
                       "relax.mean: axis 1 appears more than once");
}

// ---- nn ------------------------------------------------------------------------------------

TEST(RelaxOpInfer, Conv2dAndPools) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    auto r = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    int64_t n = r(1, 3), groups = r(1, 2), c = groups * r(1, 3), o = groups * r(1, 3);
    int64_t h = r(5, 12), w = r(5, 12), kh = r(1, 3), kw = r(1, 3);
    int64_t sh = r(1, 2), sw = r(1, 3), ph = r(0, 2), pw = r(0, 2), dh = r(1, 2), dw = r(1, 2);
    Call call = op::nn::conv2d(T({n, c, h, w}), T({o, c / groups, kh, kw}, "float32", "w"),
                               Array<Any>{sh, sw}, Array<Any>{ph, pw}, Array<Any>{dh, dw}, groups);
    int64_t oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    int64_t ow = (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    EXPECT_EQ(StaticShape(Infer(call)), Shape({n, o, oh, ow}));
    bool ceil = trial % 2;
    Call pool = op::nn::max_pool2d(T({n, c, h, w}), Array<Any>{kh, kw}, Array<Any>{sh, sw},
                                   Array<Any>{ph, pw}, Array<Any>{1, 1}, ceil);
    int64_t ph2 = (h + 2 * ph - kh + (ceil ? sh - 1 : 0)) / sh + 1;
    int64_t pw2 = (w + 2 * pw - kw + (ceil ? sw - 1 : 0)) / sw + 1;
    EXPECT_EQ(StaticShape(Infer(pool)), Shape({n, c, ph2, pw2}));
  }
  EXPECT_MINITVM_ERROR(Infer(op::nn::conv2d(T({1, 3, 8, 8}), T({4, 2, 3, 3}))), "ValueError",
                       "relax.nn.conv2d: data (1, 3, 8, 8) has 3 input channels, but weight "
                       "(4, 2, 3, 3) with groups=1 expects 2");
  EXPECT_MINITVM_ERROR(
      Infer(op::nn::conv2d(T({1, 8, 8, 3}), T({4, 3, 3, 3}), 1, 0, 1, 1, "NHWC")), "ValueError",
      "relax.nn.conv2d: only data_layout=\"NCHW\" is supported, but got data_layout=\"NHWC\"");
  EXPECT_MINITVM_ERROR(Infer(op::nn::conv2d(T({1, 3, 8}), T({4, 3, 3, 3}))), "ValueError",
                       "relax.nn.conv2d: data must be 4-D (NCHW), but has shape (1, 3, 8)");
  EXPECT_EQ(StaticShape(Infer(op::nn::avg_pool2d(T({1, 2, 7, 7}), 2, 2))), Shape({1, 2, 3, 3}));
  EXPECT_EQ(StaticShape(Infer(op::nn::adaptive_avg_pool2d(T({1, 2, 7, 7}), 1))),
            Shape({1, 2, 1, 1}));
  EXPECT_EQ(StaticShape(Infer(op::nn::adaptive_avg_pool2d(T({1, 2, 7, 5})))), Shape({1, 2, 7, 5}));
  // A symbolic batch passes through.
  tir::Var n("n", DataType::Int(64));
  auto I = [](int64_t v) { return PrimExpr(IntImm(DataType::Int(64), v)); };
  StructInfo s = Infer(op::nn::conv2d(TSym({n, I(3), I(32), I(32)}), T({8, 3, 3, 3}), 1, 1));
  auto dims = *s.as<TensorStructInfoNode>()->GetShape();
  EXPECT_TRUE(dims[0].same_as(n));
  EXPECT_EQ(*AsConstInt(dims[2]), 32);
}

TEST(RelaxOpInfer, SoftmaxNormsDropout) {
  EXPECT_EQ(StaticShape(Infer(op::nn::softmax(T({2, 10})))), Shape({2, 10}));
  EXPECT_MINITVM_ERROR(Infer(op::nn::log_softmax(T({2, 10}), 2)), "ValueError",
                       "relax.nn.log_softmax: axis 2 is out of range for a tensor of rank 2");
  Var x = T({4, 3, 5, 5}), g = T({3}, "float32", "g");
  StructInfo bn = Infer(op::nn::batch_norm(x, g, g, g, g, 1));
  auto* bt = bn.as<TupleStructInfoNode>();
  ASSERT_TRUE(bt);
  ASSERT_EQ(bt->fields.size(), 3u);
  EXPECT_EQ(StaticShape(bt->fields[0]), Shape({4, 3, 5, 5}));
  EXPECT_EQ(StaticShape(bt->fields[1]), Shape({3}));
  EXPECT_MINITVM_ERROR(Infer(op::nn::batch_norm(x, g, g, g, T({4}, "float32", "v"), 1)),
                       "ValueError", "relax.nn.batch_norm: moving_var (4,) must have 3 elements");
  Var ln = T({2, 7, 16});
  EXPECT_EQ(StaticShape(Infer(op::nn::layer_norm(ln, T({16}), T({16}), -1))), Shape({2, 7, 16}));
  EXPECT_MINITVM_ERROR(Infer(op::nn::layer_norm(ln, T({7}), T({16}), Array<Any>{-1})), "ValueError",
                       "relax.nn.layer_norm: gamma (7,) must have the shape (16,)");
  StructInfo d = Infer(op::nn::dropout(T({3, 3}), 0.2));
  ASSERT_EQ(d.as<TupleStructInfoNode>()->fields.size(), 2u);
  EXPECT_MINITVM_ERROR(Infer(op::nn::dropout(T({3}), 1.5)), "ValueError", "rate must be in [0, 1)");
}

// ---- creation ------------------------------------------------------------------------------

TEST(RelaxOpInfer, Creation) {
  StructInfo z = Infer(op::zeros(Array<Any>{2, 3}, "int32"));
  EXPECT_EQ(StaticShape(z), Shape({2, 3}));
  EXPECT_EQ(DTypeOf(z), DataType::Int(32));
  EXPECT_EQ(StaticShape(Infer(op::ones(ShapeExpr(Dims({4})), "float32"))), Shape({4}));
  StructInfo f = Infer(op::full(Array<Any>{2}, T({}, "float16", "v")));
  EXPECT_EQ(DTypeOf(f), DataType::Float(16));
  EXPECT_MINITVM_ERROR(Infer(op::full(Array<Any>{2}, T({2}, "float32", "v"))), "ValueError",
                       "relax.full: fill_value must be a scalar (a 0-d tensor), but has shape "
                       "(2,)");
  EXPECT_MINITVM_ERROR(Infer(op::zeros(Array<Any>{2}, nullptr)), "ValueError",
                       "relax.zeros: dtype is required");
}

// ---- calls and memory ----------------------------------------------------------------------

TEST(RelaxOpInfer, CallTIRAndPackedCalls) {
  GlobalVar gv("linear");
  Var x = T({1, 784}), w = T({784, 128}, "float32", "w");
  StructInfo out = TensorStructInfo(ShapeExpr(Dims({1, 128})), DataType::Float(32));
  Call c = op::call_tir(gv, Array<Expr>{x, w}, out);
  ASSERT_EQ(c->args.size(), 2u);
  EXPECT_TRUE(c->args[1].as<TupleNode>());
  EXPECT_EQ(StaticShape(Infer(c)), Shape({1, 128}));
  Call two = op::call_tir(gv, Array<Expr>{x}, Array<StructInfo>{out, out});
  EXPECT_EQ(Infer(two).as<TupleStructInfoNode>()->fields.size(), 2u);
  Call with_vars = op::call_tir(gv, Array<Expr>{x}, out, Array<Any>{7});
  ASSERT_EQ(with_vars->args.size(), 3u);
  EXPECT_TRUE(with_vars->args[2].as<ShapeExprNode>());
  Call bad(Op::Get("relax.call_tir"), {gv, Tuple({x})});
  EXPECT_MINITVM_ERROR(Infer(bad), "ValueError",
                       "relax.call_tir: expects exactly one output struct info (out_sinfo), but "
                       "the call has 0");
  EXPECT_MINITVM_ERROR(Infer(op::call_tir(gv, Array<Expr>{x}, ObjectStructInfo())), "TypeError",
                       "out_sinfo must be a tensor or a tuple of tensors");

  Call dps = op::call_dps_packed("env.linear", Array<Expr>{x, w}, out);
  EXPECT_TRUE(dps->args[0].as<ExternFuncNode>());
  EXPECT_EQ(StaticShape(Infer(dps)), Shape({1, 128}));
  Call pure = op::call_pure_packed("env.f", {x, w}, out);
  EXPECT_EQ(pure->args.size(), 3u);
  EXPECT_EQ(StaticShape(Infer(pure)), Shape({1, 128}));
}

TEST(RelaxOpInfer, MemoryOps) {
  StructInfo t = Infer(op::builtin::alloc_tensor(Array<Any>{2, 3}, "float32", 0));
  EXPECT_EQ(StaticShape(t), Shape({2, 3}));
  Call st = op::memory::alloc_storage(Array<Any>{24}, 0, "global", "float32");
  EXPECT_TRUE(Infer(st).as<ObjectStructInfoNode>());
  Var s("s", ObjectStructInfo());
  StructInfo mt = Infer(op::memory::alloc_tensor(s, 0, Array<Any>{2, 3}, "float32"));
  EXPECT_EQ(StaticShape(mt), Shape({2, 3}));
  EXPECT_EQ(Infer(op::memory::kill_storage(s)).as<TupleStructInfoNode>()->fields.size(), 0u);
  Call bad(Op::Get("relax.memory.alloc_tensor"),
           {s, PrimValue(IntImm(DataType::Int(64), 0)), ShapeExpr(Dims({2})), StringImm("f32")});
  EXPECT_MINITVM_ERROR(Infer(bad), "TypeError",
                       "relax.memory.alloc_tensor: dtype must be a DataTypeImm");
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
