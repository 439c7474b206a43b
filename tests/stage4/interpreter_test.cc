/*!
 * \file interpreter_test.cc
 * \brief Tests of the Relax reference interpreter (stage 4): operators against lownumpy,
 * symbolic shapes bound from the arguments, match_cast, call_tir through the TIR interpreter,
 * packed calls, control flow and tuples, and the errors (kind and message) for wrong
 * arguments, failed casts, unknown packed functions and inference/reference disagreement.
 * The Relax functions are built from nodes directly (struct info from each op's
 * FInferStructInfo), so these tests need neither the BlockBuilder nor the parser.
 */
#include "minitvm/relax/interpreter.h"

#include <gtest/gtest.h>

#include <random>

#include "minitvm/lownumpy/creation.h"
#include "minitvm/lownumpy/elementwise.h"
#include "minitvm/lownumpy/linalg.h"
#include "minitvm/lownumpy/manip.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

namespace ln = lownumpy;
using runtime::Any;
using testing::ToVector;

const DataType kF32 = DataType::Float(32);

StructInfo TensorInfo(Array<PrimExpr> shape, DataType dtype = kF32) {
  return TensorStructInfo(ShapeExpr(shape), dtype);
}

Var Param(const std::string& name, Array<PrimExpr> shape, DataType dtype = kF32) {
  return Var(name, TensorInfo(shape, dtype));
}

/*! \brief Give `e` its struct info the way the normaliser would (ops: FInferStructInfo). */
Expr Infer(const Expr& e) {
  if (e->struct_info_.defined()) return e;
  if (auto* call = e.as<CallNode>()) {
    if (auto* op = call->op.as<OpNode>()) {
      Any f = GetRef<Op>(op).GetAttr(kFInferStructInfo);
      UpdateStructInfo(e, f.cast<runtime::PackedFunc>()(e).cast<StructInfo>());
      return e;
    }
  }
  if (auto* t = e.as<TupleNode>()) {
    Array<StructInfo> fields;
    for (const Expr& f : t->fields) fields.push_back(GetStructInfo(Infer(f)));
    UpdateStructInfo(e, TupleStructInfo(fields));
  }
  return e;
}

Call OpCall(const std::string& name, Array<Expr> args, Map<String, Any> attrs = {},
            Array<StructInfo> sinfo_args = {}) {
  Call c = MakeOpCall(name, args, attrs, sinfo_args);
  Infer(c);
  return c;
}

/*! \brief Collects bindings and closes them into a function. */
struct FunctionBuilder {
  std::vector<Binding> bindings;
  Var Bind(const std::string& name, const Expr& value) {
    Infer(value);
    Var v(name, GetStructInfo(value));
    bindings.push_back(VarBinding(v, value));
    return v;
  }
  Var Cast(const std::string& name, const Expr& value, const StructInfo& info) {
    Var v(name, info);
    bindings.push_back(MatchCast(v, value, info));
    return v;
  }
  Function Finish(Array<Var> params, const Expr& out, const std::string& name = "main") {
    Infer(out);
    SeqExpr seq({BindingBlock(Array<Binding>(bindings))}, out);
    UpdateStructInfo(seq, GetStructInfo(out));
    Map<String, Any> attrs;
    attrs.Set("global_symbol", String(name));
    return Function(params, seq, GetStructInfo(out), true, attrs);
  }
};

NDArray Random(const std::vector<int64_t>& shape, uint64_t seed) {
  return ln::random_uniform(shape, -1.0, 1.0, seed);
}

void ExpectAllClose(const NDArray& got, const NDArray& want, double tol = 1e-5) {
  ASSERT_EQ(got.Shape(), want.Shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  auto g = ToVector<float>(got), w = ToVector<float>(want);
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], w[i], tol) << "element " << i;
}

IRModule Module(const Function& main) { return IRModule::FromNamed({{"main", main}}); }

TEST(RelaxInterpreter, ElementwiseOpsMatchLownumpy) {
  Var x = Param("x", {2, 3}), y = Param("y", {2, 3});
  FunctionBuilder fb;
  Var lv0 = fb.Bind("lv0", OpCall("relax.add", {x, y}));
  Var lv1 = fb.Bind("lv1", OpCall("relax.nn.relu", {lv0}));
  Var lv2 = fb.Bind("lv2", OpCall("relax.multiply", {lv1, x}));
  Function f = fb.Finish({x, y}, lv2);
  NDArray a = Random({2, 3}, 1), b = Random({2, 3}, 2);
  NDArray got = Interpret(Module(f), "main", {a, b}).cast<NDArray>();
  ExpectAllClose(got, ln::multiply(ln::relu(ln::add(a, b)), a));
  // The Function variant.
  ExpectAllClose(Interpret(f, {a, b}).cast<NDArray>(), got);
}

TEST(RelaxInterpreter, MatmulAndSoftmaxWithAttributes) {
  Var x = Param("x", {4, 5}), w = Param("w", {3, 5});
  FunctionBuilder fb;
  Var wt = fb.Bind("wt", OpCall("relax.permute_dims", {w}));
  Var mm = fb.Bind("mm", OpCall("relax.matmul", {x, wt}));
  Var sm = fb.Bind("sm", OpCall("relax.nn.softmax", {mm}, {{"axis", int64_t(0)}}));
  Function f = fb.Finish({x, w}, sm);
  NDArray a = Random({4, 5}, 3), b = Random({3, 5}, 4);
  NDArray got = Interpret(Module(f), "main", {a, b}).cast<NDArray>();
  ExpectAllClose(got, ln::softmax(ln::matmul(a, ln::permute_dims(b)), 0));
}

TEST(RelaxInterpreter, SymbolicDimsAreBoundFromArgumentsAndChecked) {
  tir::Var n("n", DataType::Int(64));
  Var x = Param("x", {n, 4}), y = Param("y", {n, 4});
  FunctionBuilder fb;
  Var lv = fb.Bind("lv", OpCall("relax.add", {x, y}));
  Var shp = fb.Bind("shp", ShapeExpr({n * 2, 4}));
  Function f = fb.Finish({x, y}, Tuple({lv, shp}));
  for (int64_t rows : {1, 3, 7}) {
    NDArray a = Random({rows, 4}, rows), b = Random({rows, 4}, rows + 10);
    Any out = Interpret(Module(f), "main", {a, b});
    Array<Any> tup = out.cast<Array<Any>>();
    ASSERT_EQ(tup.size(), 2u);
    ExpectAllClose(tup[0].cast<NDArray>(), ln::add(a, b));
    EXPECT_EQ(tup[1].cast<ShapeTuple>().values(), (std::vector<int64_t>{rows * 2, 4}));
  }
  EXPECT_MINITVM_ERROR(Interpret(Module(f), "main", {Random({3, 4}, 1), Random({2, 4}, 2)}),
                       "ValueError",
                       "main: argument y has shape (2, 4) but parameter y: R.Tensor((n, 4), "
                       "dtype=\"float32\") expects dim 0 == n (n = 3)");
}

TEST(RelaxInterpreter, WrongArgumentsAreRejectedBeforeRunning) {
  Var x = Param("x", {1, 784});
  FunctionBuilder fb;
  Var lv = fb.Bind("lv", OpCall("relax.nn.relu", {x}));
  Function f = fb.Finish({x}, lv);
  IRModule mod = Module(f);
  EXPECT_MINITVM_ERROR(Interpret(mod, "main", {Random({2, 784}, 1)}), "ValueError",
                       "main: argument x has shape (2, 784) but parameter x: R.Tensor((1, 784), "
                       "dtype=\"float32\") expects dim 0 == 1");
  EXPECT_MINITVM_ERROR(Interpret(mod, "main", {}), "TypeError",
                       "main: expects 1 argument (x) but 0 were given");
  EXPECT_MINITVM_ERROR(Interpret(mod, "main", {ln::zeros({1, 784}, DataType::Float(64))}),
                       "ValueError",
                       "main: argument x has dtype float64 but parameter x: R.Tensor((1, 784), "
                       "dtype=\"float32\") expects dtype float32");
  EXPECT_MINITVM_ERROR(Interpret(mod, "main", {Random({784}, 1)}), "ValueError", "expects rank 2");
  EXPECT_MINITVM_ERROR(Interpret(mod, "main", {Any(int64_t(3))}), "TypeError",
                       "main: argument x is the int 3 but parameter x");
  EXPECT_MINITVM_ERROR(Interpret(mod, "nope", {}), "ValueError", "no function \"nope\"");
}

TEST(RelaxInterpreter, MatchCastBindsNewVarsAndChecksKnownOnes) {
  tir::Var m("m", DataType::Int(64));
  Var x = Var("x", TensorStructInfo(kF32, 2));
  FunctionBuilder fb;
  Var y = fb.Cast("y", x, TensorInfo({m, 3}));
  Var s = fb.Bind("s", ShapeExpr({m + 1}));
  Function f = fb.Finish({x}, Tuple({y, s}));
  Array<Any> out = Interpret(Module(f), "main", {Random({5, 3}, 1)}).cast<Array<Any>>();
  EXPECT_EQ(out[1].cast<ShapeTuple>().values(), std::vector<int64_t>{6});
  EXPECT_MINITVM_ERROR(Interpret(Module(f), "main", {Random({5, 4}, 1)}), "ValueError",
                       "main: match_cast of binding y: the value has shape (5, 4) but "
                       "R.Tensor((m, 3), dtype=\"float32\") expects dim 1 == 3");
}

TEST(RelaxInterpreter, CallTIRRunsThePrimFuncDestinationPassingStyle) {
  // linear: Y[i, j] = sum_k X[i, k] * W[j, k] + B[j], with a symbolic batch.
  tir::Var n("n", DataType::Int(64));
  te::Tensor X = te::placeholder({n, 8}, kF32, "X");
  te::Tensor W = te::placeholder({4, 8}, kF32, "W");
  te::Tensor B = te::placeholder({4}, kF32, "B");
  tir::IterVar k = te::reduce_axis(Range(0, 8), "k");
  te::Tensor Y = te::compute(
      {n, 4},
      [&](const Array<tir::Var>& i) { return te::sum(X(i[0], k->var) * W(i[1], k->var), {k}); },
      "Y");
  te::Tensor Z = te::compute(
      {n, 4}, [&](const Array<tir::Var>& i) { return Y(i[0], i[1]) + B(i[1]); }, "Z");
  tir::PrimFunc linear = te::CreatePrimFunc({X, W, B, Z});
  GlobalVar gv("linear");

  Var x = Param("x", {n, 8}), w = Param("w", {4, 8}), b = Param("b", {4});
  FunctionBuilder fb;
  Tuple args({x, w, b});
  Infer(args);
  Var lv = fb.Bind("lv", OpCall("relax.call_tir", {gv, args}, {}, {TensorInfo({n, 4})}));
  Function f = fb.Finish({x, w, b}, lv);
  IRModule mod = IRModule::FromNamed({{"main", f}, {"linear", linear}});
  for (int64_t rows : {1, 5}) {
    NDArray xa = Random({rows, 8}, 1), wa = Random({4, 8}, 2), ba = Random({4}, 3);
    NDArray got = Interpret(mod, "main", {xa, wa, ba}).cast<NDArray>();
    ExpectAllClose(got, ln::linear(xa, wa, ba));
  }
}

TEST(RelaxInterpreter, CallDPSPackedAndCallPurePackedUseTheRegistry) {
  runtime::Registry::Register("test.interp.double", true)
      .set_body_typed([](NDArray x, NDArray out) { out.CopyFrom(ln::add(x, x)); });
  runtime::Registry::Register("test.interp.negate", true).set_body_typed([](NDArray x) {
    return ln::negative(x);
  });
  Var x = Param("x", {3});
  FunctionBuilder fb;
  Tuple args({x});
  Infer(args);
  Var lv0 = fb.Bind("lv0", OpCall("relax.call_dps_packed", {ExternFunc("test.interp.double"), args},
                                  {}, {TensorInfo({3})}));
  Var lv1 = fb.Bind("lv1", OpCall("relax.call_pure_packed", {ExternFunc("test.interp.negate"), lv0},
                                  {}, {TensorInfo({3})}));
  Function f = fb.Finish({x}, lv1);
  NDArray a = Random({3}, 7);
  ExpectAllClose(Interpret(Module(f), "main", {a}).cast<NDArray>(), ln::negative(ln::add(a, a)));

  FunctionBuilder fb2;
  Var bad =
      fb2.Bind("lv", OpCall("relax.call_dps_packed", {ExternFunc("test.interp.missing"), args}, {},
                            {TensorInfo({3})}));
  Function g = fb2.Finish({x}, bad);
  EXPECT_MINITVM_ERROR(Interpret(Module(g), "main", {a}), "ValueError",
                       "main: binding lv: R.call_dps_packed(\"test.interp.missing\"): no global "
                       "function named \"test.interp.missing\" is registered");
}

TEST(RelaxInterpreter, TuplesIfAndCallsOfOtherFunctions) {
  // helper(a) = (exp(a), a); main(x, c) = if c: helper(x)[0] else: negative(x)
  Var a = Param("a", {2});
  FunctionBuilder hb;
  Var e = hb.Bind("e", OpCall("relax.exp", {a}));
  Function helper = hb.Finish({a}, Tuple({e, a}), "helper");
  GlobalVar hgv("helper");
  UpdateStructInfo(hgv, helper->struct_info_.as<StructInfoNode>()
                            ? Downcast<StructInfo>(helper->struct_info_)
                            : StructInfo());

  Var x = Param("x", {2});
  Var c = Var("c", TensorInfo({}, DataType::Bool()));
  FunctionBuilder tb;
  Call hc(hgv, {x});
  UpdateStructInfo(hc, TupleStructInfo({TensorInfo({2}), TensorInfo({2})}));
  Var t = tb.Bind("t", hc);
  TupleGetItem item(t, 0);
  UpdateStructInfo(item, TensorInfo({2}));
  Var r = tb.Bind("r", item);
  SeqExpr tbranch({BindingBlock(Array<Binding>(tb.bindings))}, r);
  UpdateStructInfo(tbranch, TensorInfo({2}));
  FunctionBuilder eb;
  Var ng = eb.Bind("ng", OpCall("relax.negative", {x}));
  SeqExpr fbranch({BindingBlock(Array<Binding>(eb.bindings))}, ng);
  UpdateStructInfo(fbranch, TensorInfo({2}));
  If branch(c, tbranch, fbranch);
  UpdateStructInfo(branch, TensorInfo({2}));
  FunctionBuilder mb;
  Var out = mb.Bind("out", branch);
  Function main = mb.Finish({x, c}, out);
  IRModule mod = IRModule::FromNamed({{"main", main}, {"helper", helper}});

  NDArray xa = Random({2}, 5);
  NDArray yes = ln::full({}, 1, DataType::Bool()), no = ln::full({}, 0, DataType::Bool());
  ExpectAllClose(Interpret(mod, "main", {xa, yes}).cast<NDArray>(), ln::exp(xa));
  ExpectAllClose(Interpret(mod, "main", {xa, no}).cast<NDArray>(), ln::negative(xa));
}

TEST(RelaxInterpreter, InferenceAndReferenceDisagreementIsAnInternalError) {
  Var x = Param("x", {2, 3});
  Call c = MakeOpCall("relax.exp", {x});
  UpdateStructInfo(c, TensorInfo({3, 2}));  // a wrong "inferred" struct info
  FunctionBuilder fb;
  Var lv = fb.Bind("lv", c);
  Function f = fb.Finish({x}, lv);
  EXPECT_MINITVM_ERROR(Interpret(Module(f), "main", {Random({2, 3}, 1)}), "InternalError",
                       "main: binding lv: relax.exp returned a value that has shape (2, 3) but "
                       "the call's inferred struct info R.Tensor((3, 2), dtype=\"float32\") "
                       "expects dim 0 == 3");
}

TEST(RelaxInterpreter, RandomBroadcastShapesMatchLownumpy) {
  std::mt19937 rng(42);
  const char* ops[] = {"relax.add", "relax.subtract", "relax.multiply", "relax.maximum",
                       "relax.minimum"};
  for (int trial = 0; trial < 20; ++trial) {
    int rank = 1 + rng() % 3;
    std::vector<int64_t> sa, sb;
    Array<PrimExpr> pa, pb;
    for (int i = 0; i < rank; ++i) {
      int64_t d = 1 + rng() % 4;
      int64_t da = rng() % 3 == 0 ? 1 : d, db = rng() % 3 == 0 ? 1 : d;
      sa.push_back(da);
      sb.push_back(db);
      pa.push_back(IntImm(DataType::Int(64), da));
      pb.push_back(IntImm(DataType::Int(64), db));
    }
    std::string op = ops[trial % 5];
    Var x = Param("x", pa), y = Param("y", pb);
    FunctionBuilder fb;
    Var lv = fb.Bind("lv", OpCall(op, {x, y}));
    Function f = fb.Finish({x, y}, lv);
    NDArray a = Random(sa, trial), b = Random(sb, trial + 100);
    NDArray got = Interpret(f, {a, b}).cast<NDArray>();
    NDArray want = op == "relax.add"        ? ln::add(a, b)
                   : op == "relax.subtract" ? ln::subtract(a, b)
                   : op == "relax.multiply" ? ln::multiply(a, b)
                   : op == "relax.maximum"  ? ln::maximum(a, b)
                                            : ln::minimum(a, b);
    ExpectAllClose(got, want);
  }
}

// Every Relax operator with struct-info inference can be interpreted: it has an FReference, or
// is one of the calls the interpreter runs itself.
TEST(RelaxInterpreter, EveryInferableOpHasAReference) {
  for (const std::string& name : Op::ListNames()) {
    if (name.rfind("relax.", 0) != 0) continue;
    Op op = Op::Get(name);
    if (!op.HasAttr(kFInferStructInfo)) continue;
    if (name == "relax.call_tir" || name == "relax.call_dps_packed" ||
        name == "relax.call_pure_packed") {
      continue;
    }
    EXPECT_TRUE(op.HasAttr(kFReference)) << name << " has no FReference";
  }
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
