/*!
 * \file printer_test.cc
 * \brief Tests of the Relax TVMScript printer (stage 4): Relax IR built in C++ prints in TVM's
 * current format — the course's call_tir module, bindings and their annotations, dataflow
 * blocks, symbolic shapes, match_cast, if/else, every leaf expression, struct info, names,
 * function attributes, metadata constants — through `AsScript` and the repr.
 */
#include <gtest/gtest.h>

#include <random>

#include "minitvm/ir/structural.h"
#include "minitvm/relax/expr.h"
#include "minitvm/relax/struct_info.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace relax {
namespace {

using script::AsScript;

// ---- helpers ----------------------------------------------------------------------------

const DataType f32 = DataType::Float(32);

StructInfo Tensor(std::vector<PrimExpr> shape, DataType dtype = DataType::Float(32)) {
  return TensorStructInfo(ShapeExpr(Array<PrimExpr>(shape)), dtype);
}

/*! \brief `expr` with its struct info set (what the normaliser would do). */
template <typename T>
T WithInfo(T expr, const StructInfo& info) {
  UpdateStructInfo(expr, info);
  return expr;
}

Call CallTIR(Expr callee, Array<Expr> args, StructInfo out) {
  return Call(Op::Get("relax.call_tir"), {callee, Tuple(args)}, {}, {out});
}

Map<String, Any> Symbol(const std::string& name) {
  return {{String("global_symbol"), Any(String(name))}};
}

const char* kLinear0 =
    "@T.prim_func\n"
    "def linear0(X: T.Buffer((1, 784), \"float32\"), W: T.Buffer((128, 784), \"float32\"), "
    "Z: T.Buffer((1, 128), \"float32\")):\n"
    "    T.func_attr({\"global_symbol\": \"linear0\", \"tir.noalias\": True})\n"
    "    for i, j, k in T.grid(1, 128, 784):\n"
    "        with T.block(\"Y\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            T.reads(X[vi, vk], W[vj, vk])\n"
    "            T.writes(Z[vi, vj])\n"
    "            with T.init():\n"
    "                Z[vi, vj] = T.float32(0.0)\n"
    "            Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]\n";

/*! \brief The course's module: a PrimFunc called by call_tir, a packed function by
 * call_dps_packed, inside a dataflow block. */
IRModule CourseModule() {
  IRModule mod;
  GlobalVar linear0("linear0");
  mod.Add(linear0, script::ParsePrimFunc(kLinear0));
  Var x("x", Tensor({1, 784})), w0("w0", Tensor({128, 784}));
  DataflowVar lv("lv", Tensor({1, 128})), lv1("lv1", Tensor({1, 128}));
  Var gv("gv", Tensor({1, 128}));
  Call c0 = CallTIR(linear0, {x, w0}, Tensor({1, 128}));
  Call c1 = Call(Op::Get("relax.call_dps_packed"), {ExternFunc("env.relu"), Tuple({lv})}, {},
                 {Tensor({1, 128})});
  Call c2 = Call(Op::Get("relax.add"), {lv1, lv1});
  DataflowBlock block({VarBinding(lv, c0), VarBinding(lv1, c1), VarBinding(gv, c2)});
  Function main({x, w0}, SeqExpr({block}, gv), Tensor({1, 128}), true, Symbol("main"));
  mod.Add(GlobalVar("main"), main);
  return mod;
}

std::string ReprOf(const ObjectRef& node) { return runtime::Repr(node); }

// ---- modules and functions --------------------------------------------------------------

TEST(RelaxPrinter, CourseModule) {
  std::string text = AsScript(CourseModule());
  const char* expected =
      "# from minitvm.script import ir as I\n"
      "# from minitvm.script import tir as T\n"
      "# from minitvm.script import relax as R\n"
      "\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func\n"
      "    def linear0(X: T.Buffer((1, 784), \"float32\"), W: T.Buffer((128, 784), \"float32\"), "
      "Z: T.Buffer((1, 128), \"float32\")):\n"
      "        T.func_attr({\"tir.noalias\": True})\n"
      "        # with T.block(\"root\"):\n"
      "        for i, j, k in T.grid(1, 128, 784):\n"
      "            with T.block(\"Y\"):\n"
      "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "                T.reads(X[vi, vk], W[vj, vk])\n"
      "                T.writes(Z[vi, vj])\n"
      "                with T.init():\n"
      "                    Z[vi, vj] = T.float32(0.0)\n"
      "                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]\n"
      "\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((1, 784), dtype=\"float32\"), w0: R.Tensor((128, 784), "
      "dtype=\"float32\")) -> R.Tensor((1, 128), dtype=\"float32\"):\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            lv = R.call_tir(cls.linear0, (x, w0), out_sinfo=R.Tensor((1, 128), "
      "dtype=\"float32\"))\n"
      "            lv1 = R.call_dps_packed(\"env.relu\", (lv,), out_sinfo=R.Tensor((1, 128), "
      "dtype=\"float32\"))\n"
      "            gv: R.Tensor((1, 128), dtype=\"float32\") = R.add(lv1, lv1)\n"
      "            R.output(gv)\n"
      "        return gv\n";
  EXPECT_EQ(text, expected);
  // print(mod) is the same text.
  EXPECT_EQ(ReprOf(CourseModule()), expected);
}

TEST(RelaxPrinter, FunctionOrderPrimFuncsFirstMainLast) {
  IRModule mod;
  Var x("x", Tensor({4}));
  Function id({x}, SeqExpr({}, x), Tensor({4}), true, Symbol("main"));
  Function other({x}, SeqExpr({}, x), Tensor({4}), true, Symbol("b_func"));
  mod.Add(GlobalVar("main"), id);
  mod.Add(GlobalVar("b_func"), other);
  mod.Add(GlobalVar("ext"), ExternFunc("ext"));
  mod.Add(GlobalVar("linear0"), script::ParsePrimFunc(kLinear0));
  std::string text = AsScript(mod);
  size_t p_linear = text.find("def linear0("), p_ext = text.find("ext = R.ExternFunc(\"ext\")"),
         p_b = text.find("def b_func("), p_main = text.find("def main(");
  ASSERT_NE(p_main, std::string::npos) << text;
  EXPECT_LT(p_linear, p_ext) << text;
  EXPECT_LT(p_ext, p_b) << text;
  EXPECT_LT(p_b, p_main) << text;
  // No function refers to another, so there is no `cls = Module`.
  EXPECT_EQ(text.find("cls = Module"), std::string::npos) << text;
}

TEST(RelaxPrinter, FunctionAloneAttrsPrivatePure) {
  Var x("x", Tensor({2, 3}));
  Map<String, Any> attrs = Symbol("my_func");
  attrs.Set(String("num_input"), Any(int64_t{1}));
  Function f({x}, SeqExpr({}, x), Tensor({2, 3}), true, attrs);
  EXPECT_EQ(AsScript(f),
            "# from minitvm.script import relax as R\n"
            "\n"
            "@R.function\n"
            "def my_func(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), "
            "dtype=\"float32\"):\n"
            "    R.func_attr({\"num_input\": 1})\n"
            "    return x\n");
  // No global symbol: private, named main. Impure: pure=False.
  Function g({x}, SeqExpr({}, x), Tensor({2, 3}), false, {});
  EXPECT_EQ(AsScript(g),
            "# from minitvm.script import relax as R\n"
            "\n"
            "@R.function(pure=False, private=True)\n"
            "def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), "
            "dtype=\"float32\"):\n"
            "    return x\n");
  // The repr of a function is its script.
  EXPECT_EQ(ReprOf(f), AsScript(f));
  // func_attr keys print sorted, as TVM does.
  Map<String, Any> more;
  more.Set(String("zeta"), Any(true));
  more.Set(String("alpha"), Any(String("a")));
  Function h({x}, SeqExpr({}, x), Tensor({2, 3}), true, more);
  EXPECT_NE(AsScript(h).find("R.func_attr({\"alpha\": \"a\", \"zeta\": True})"), std::string::npos)
      << AsScript(h);
}

TEST(RelaxPrinter, CallsBetweenModuleFunctionsUseCls) {
  IRModule mod;
  GlobalVar helper("helper");
  Var a("a", Tensor({2}));
  mod.Add(helper, Function({a}, SeqExpr({}, a), Tensor({2}), true, Symbol("helper")));
  Var x("x", Tensor({2})), y("y", Tensor({2})), z("z", Tensor({2}));
  BindingBlock block({VarBinding(y, Call(helper, {x})), VarBinding(z, Call(helper, {y}))});
  mod.Add(GlobalVar("main"), Function({x}, SeqExpr({block}, z), Tensor({2}), true, Symbol("main")));
  std::string text = AsScript(mod);
  // `cls = Module` once, at the first reference; helper (a Relax function) before main.
  EXPECT_NE(text.find("    @R.function\n"
                      "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), "
                      "dtype=\"float32\"):\n"
                      "        cls = Module\n"
                      "        y: R.Tensor((2,), dtype=\"float32\") = cls.helper(x)\n"
                      "        z: R.Tensor((2,), dtype=\"float32\") = cls.helper(y)\n"
                      "        return z\n"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("def helper("), text.find("def main("));
}

TEST(RelaxPrinter, ReservedAndKeywordNamesGetSuffixes) {
  Var r("R", Tensor({2})), cls("cls", Tensor({2})), kw("lambda", Tensor({2}));
  Var m("Module", Tensor({2}));
  Function f({r, cls, kw, m}, SeqExpr({}, r), Tensor({2}), true, Symbol("main"));
  IRModule mod;
  mod.Add(GlobalVar("main"), f);
  std::string text = AsScript(mod);
  EXPECT_NE(text.find("def main(R_1: R.Tensor((2,), dtype=\"float32\"), cls_1: R.Tensor((2,), "
                      "dtype=\"float32\"), lambda_: R.Tensor((2,), dtype=\"float32\"), Module_1: "
                      "R.Tensor((2,), dtype=\"float32\"))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("        return R_1\n"), std::string::npos) << text;
}

// ---- symbolic shapes --------------------------------------------------------------------

TEST(RelaxPrinter, SymbolicShapesDeclaredInBody) {
  tir::Var n("n", DataType::Int(64)), m("m", DataType::Int(64));
  Var x("x", Tensor({n, 4}));
  Var y("y", TensorStructInfo(f32, 2));
  Var lv("lv", Tensor({n * 2, 4}));
  Var z("z", Tensor({m, 4}));
  Call double_it = Call(Op::Get("relax.add"), {x, x});
  BindingBlock block({VarBinding(lv, double_it), MatchCast(z, y, Tensor({m, 4}))});
  Function f({x, y}, SeqExpr({block}, z), Tensor({m, 4}), true, Symbol("main"));
  EXPECT_EQ(AsScript(f),
            "# from minitvm.script import tir as T\n"
            "# from minitvm.script import relax as R\n"
            "\n"
            "@R.function\n"
            "def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), y: R.Tensor(dtype=\"float32\", "
            "ndim=2)) -> R.Tensor((\"m\", 4), dtype=\"float32\"):\n"
            "    m = T.int64()\n"
            "    n = T.int64()\n"
            "    lv: R.Tensor((n * 2, 4), dtype=\"float32\") = R.add(x, x)\n"
            "    z: R.Tensor((m, 4), dtype=\"float32\") = R.match_cast(y, R.Tensor((m, 4), "
            "dtype=\"float32\"))\n"
            "    return z\n");
}

TEST(RelaxPrinter, SymbolicVarDefinedByMatchCast) {
  tir::Var k("k", DataType::Int(64));
  Var y("y", TensorStructInfo(f32, 1));
  Var z("z", Tensor({k}));
  BindingBlock block({MatchCast(z, y, Tensor({k}))});
  Function f({y}, SeqExpr({block}, z), TensorStructInfo(f32, 1), true, Symbol("main"));
  std::string text = AsScript(f);
  EXPECT_NE(text.find("    k = T.int64()\n    z: R.Tensor((k,), dtype=\"float32\") = "
                      "R.match_cast(y, R.Tensor((k,), dtype=\"float32\"))\n"),
            std::string::npos)
      << text;
}

// ---- bindings ---------------------------------------------------------------------------

TEST(RelaxPrinter, IfBindingAndUniqueNames) {
  Var c("c", TensorStructInfo(ShapeExpr(Array<PrimExpr>{}), DataType::Bool()));
  Var x("x", Tensor({4}));
  Var a("lv", Tensor({4})), b("lv", Tensor({4})), r("lv", Tensor({4}));
  Expr t = SeqExpr({BindingBlock({VarBinding(a, Call(Op::Get("relax.add"), {x, x}))})}, a);
  Expr e = SeqExpr({BindingBlock({VarBinding(b, Call(Op::Get("relax.multiply"), {x, x}))})}, b);
  BindingBlock block({VarBinding(r, If(c, t, e))});
  Function f({c, x}, SeqExpr({block}, r), Tensor({4}), true, Symbol("main"));
  EXPECT_EQ(AsScript(f),
            "# from minitvm.script import relax as R\n"
            "\n"
            "@R.function\n"
            "def main(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor((4,), dtype=\"float32\")) -> "
            "R.Tensor((4,), dtype=\"float32\"):\n"
            "    if c:\n"
            "        lv_1: R.Tensor((4,), dtype=\"float32\") = R.add(x, x)\n"
            "        lv: R.Tensor((4,), dtype=\"float32\") = lv_1\n"
            "    else:\n"
            "        lv_1: R.Tensor((4,), dtype=\"float32\") = R.multiply(x, x)\n"
            "        lv: R.Tensor((4,), dtype=\"float32\") = lv_1\n"
            "    return lv\n");
}

TEST(RelaxPrinter, LeafExpressions) {
  Var x("x", TupleStructInfo({Tensor({2}), Tensor({3})}));
  Var t0("t0", Tensor({2})), s("s", ShapeStructInfo(Array<PrimExpr>{2, 3}));
  Var p("p", PrimStructInfo(DataType::Int(64))), str("str", ObjectStructInfo());
  Var d("d", ObjectStructInfo()), tup("tup", TupleStructInfo(Array<StructInfo>{}));
  Var c("c", Tensor({}));
  NDArray one = NDArray::Empty({}, f32, runtime::Device{kDLCPU, 0});
  *static_cast<float*>(one.data()) = 1.5f;
  BindingBlock block({VarBinding(t0, TupleGetItem(x, 0)), VarBinding(s, ShapeExpr({2, 3})),
                      VarBinding(p, PrimValue(IntImm(DataType::Int(64), 1))),
                      VarBinding(str, StringImm("hi")), VarBinding(d, DataTypeImm(f32)),
                      VarBinding(tup, Tuple(Array<Expr>{})), VarBinding(c, Constant(one))});
  Function f({x}, SeqExpr({block}, Tuple({t0, c})), TupleStructInfo({Tensor({2}), Tensor({})}),
             true, Symbol("main"));
  std::string text = AsScript(f);
  for (const char* line :
       {"    t0: R.Tensor((2,), dtype=\"float32\") = x[0]\n",
        "    s: R.Shape([2, 3]) = R.shape([2, 3])\n",
        "    p: R.Prim(\"int64\") = R.prim_value(1)\n", "    str: R.Object = R.str(\"hi\")\n",
        "    d: R.Object = R.dtype(\"float32\")\n",  // A binding of "no value" (an empty tuple)
                                                     // prints as the expression alone, as in TVM.
        "    R.tuple()\n", "    c: R.Tensor((), dtype=\"float32\") = R.const(1.5, \"float32\")\n",
        "    return (t0, c)\n",
        "def main(x: R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((3,), "
        "dtype=\"float32\"))) -> R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((), "
        "dtype=\"float32\")):\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nnot in\n" << text;
  }
  EXPECT_EQ(text.find("Metadata"), std::string::npos);
}

TEST(RelaxPrinter, TensorConstantsGoToMetadata) {
  NDArray w = NDArray::Empty({2, 2}, f32, runtime::Device{kDLCPU, 0});
  Constant cw(w);
  Var x("x", Tensor({2, 2})), a("a", Tensor({2, 2})), b("b", Tensor({2, 2}));
  BindingBlock block({VarBinding(a, Call(Op::Get("relax.add"), {x, cw})),
                      VarBinding(b, Call(Op::Get("relax.add"), {a, Constant(w)}))});
  Function f({x}, SeqExpr({block}, b), Tensor({2, 2}), true, Symbol("main"));
  IRModule mod;
  mod.Add(GlobalVar("main"), f);
  std::string text = AsScript(mod);
  EXPECT_NE(text.find("R.add(x, metadata[\"relax.expr.Constant\"][0])"), std::string::npos) << text;
  EXPECT_NE(text.find("R.add(a, metadata[\"relax.expr.Constant\"][1])"), std::string::npos) << text;
  const std::string tail =
      "        return b\n\n# Metadata omitted. Use show_meta=True in script() method to show it.\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;
}

// ---- calls ------------------------------------------------------------------------------

TEST(RelaxPrinter, OpAttributesInOrder) {
  Var x("x", Tensor({1, 3, 8, 8})), w("w", Tensor({4, 3, 3, 3}));
  Map<String, Any> attrs;
  attrs.Set(String("strides"), Any(Array<Any>{int64_t{1}, int64_t{1}}));
  attrs.Set(String("padding"), Any(Array<Any>{int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}}));
  attrs.Set(String("groups"), Any(int64_t{1}));
  attrs.Set(String("data_layout"), Any(String("NCHW")));
  attrs.Set(String("out_dtype"), Any());
  Call conv(Op::Get("relax.nn.conv2d"), {x, w}, attrs);
  EXPECT_EQ(ReprOf(conv),
            "R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], groups=1, "
            "data_layout=\"NCHW\", out_dtype=None)");
}

TEST(RelaxPrinter, PackedCallsAndSinfoArgs) {
  Var x("x", Tensor({2}));
  Call pure(Op::Get("relax.call_pure_packed"), {ExternFunc("my.f"), x}, {}, {Tensor({2})});
  EXPECT_EQ(ReprOf(pure),
            "R.call_pure_packed(\"my.f\", x, sinfo_args=(R.Tensor((2,), dtype=\"float32\"),))");
  Call packed(ExternFunc("my.g"), {x}, {}, {ObjectStructInfo()});
  EXPECT_EQ(ReprOf(packed), "R.call_packed(\"my.g\", x, sinfo_args=(R.Object,))");
  // Several outputs: out_sinfo is a list. tir_vars are a keyword.
  tir::Var n("n", DataType::Int(64));
  Call multi(Op::Get("relax.call_tir"), {GlobalVar("f"), Tuple({x}), ShapeExpr({n})}, {},
             {TupleStructInfo({Tensor({2}), Tensor({n})})});
  EXPECT_EQ(ReprOf(multi),
            "R.call_tir(f, (x,), out_sinfo=[R.Tensor((2,), dtype=\"float32\"), R.Tensor((n,), "
            "dtype=\"float32\")], tir_vars=R.shape([n]))");
  // A call of a GlobalVar outside a module prints the bare name.
  EXPECT_EQ(ReprOf(Call(GlobalVar("helper"), {x})), "helper(x)");
}

TEST(RelaxPrinter, CallTIRAnnotationShownWhenDifferent) {
  // The var's struct info is less precise than out_sinfo: TVM shows it.
  Var x("x", Tensor({2}));
  Var lv("lv", TensorStructInfo(f32, 1));
  VarBinding b(lv, CallTIR(GlobalVar("f"), {x}, Tensor({2})));
  EXPECT_EQ(ReprOf(b),
            "x: R.Tensor((2,), dtype=\"float32\")\n"
            "lv: R.Tensor(dtype=\"float32\", ndim=1) = R.call_tir(f, (x,), "
            "out_sinfo=R.Tensor((2,), dtype=\"float32\"))\n");
}

// ---- struct info ------------------------------------------------------------------------

TEST(RelaxPrinter, StructInfoForms) {
  tir::Var n("n", DataType::Int(64));
  EXPECT_EQ(ReprOf(Tensor({n, 784})), "R.Tensor((n, 784), dtype=\"float32\")");
  EXPECT_EQ(ReprOf(TensorStructInfo(f32, 2)), "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(ReprOf(TensorStructInfo(DataType::Void(), kUnknownNDim)), "R.Tensor");
  EXPECT_EQ(ReprOf(TensorStructInfo(DataType::Void(), 3)), "R.Tensor(ndim=3)");
  EXPECT_EQ(ReprOf(ShapeStructInfo(Array<PrimExpr>{n, 4})), "R.Shape([n, 4])");
  EXPECT_EQ(ReprOf(ShapeStructInfo(2)), "R.Shape(ndim=2)");
  EXPECT_EQ(ReprOf(ShapeStructInfo(kUnknownNDim)), "R.Shape(ndim=-1)");
  EXPECT_EQ(ReprOf(TupleStructInfo(Array<StructInfo>{})), "R.Tuple");
  EXPECT_EQ(ReprOf(TupleStructInfo({ObjectStructInfo(), ShapeStructInfo(1)})),
            "R.Tuple(R.Object, R.Shape(ndim=1))");
  EXPECT_EQ(ReprOf(ObjectStructInfo()), "R.Object");
  EXPECT_EQ(ReprOf(PrimStructInfo(DataType::Int(64))), "R.Prim(\"int64\")");
  EXPECT_EQ(ReprOf(PrimStructInfo(PrimExpr(n))), "R.Prim(value=n)");
  EXPECT_EQ(ReprOf(FuncStructInfo({Tensor({2})}, Tensor({2}))),
            "R.Callable((R.Tensor((2,), dtype=\"float32\"),), R.Tensor((2,), dtype=\"float32\"), "
            "True)");
  EXPECT_EQ(ReprOf(FuncStructInfo::OpaqueFunc()), "R.Callable");
  EXPECT_EQ(ReprOf(FuncStructInfo::OpaqueFunc(Tensor({2}), true)),
            "R.Callable(ret=R.Tensor((2,), dtype=\"float32\"), purity=True)");
}

TEST(RelaxPrinter, ExpressionReprs) {
  Var x("x", Tensor({2})), y("y", Tensor({2}));
  EXPECT_EQ(ReprOf(x), "x");
  EXPECT_EQ(ReprOf(Call(Op::Get("relax.add"), {x, y})), "R.add(x, y)");
  EXPECT_EQ(ReprOf(Tuple({x, y})), "(x, y)");
  EXPECT_EQ(ReprOf(TupleGetItem(Tuple({x, y}), 1)), "(x, y)[1]");
  EXPECT_EQ(ReprOf(ExternFunc("env.relu")), "R.ExternFunc(\"env.relu\")");
  EXPECT_EQ(ReprOf(ShapeExpr({1, 2})), "R.shape([1, 2])");
  EXPECT_EQ(ReprOf(PrimValue(IntImm(DataType::Bool(), 1))), "R.prim_value(True)");
  // A binding shows the declarations of the variables it uses freely.
  EXPECT_EQ(ReprOf(VarBinding(Var("z", Tensor({2})), Call(Op::Get("relax.add"), {x, y}))),
            "x: R.Tensor((2,), dtype=\"float32\")\n"
            "y: R.Tensor((2,), dtype=\"float32\")\n"
            "z: R.Tensor((2,), dtype=\"float32\") = R.add(x, y)\n");
  EXPECT_TRUE(script::CanPrintAsScript(x));
  EXPECT_TRUE(script::CanPrintAsScript(Tensor({2})));
}

TEST(RelaxPrinter, DataflowOutputsAndNestedFunction) {
  Var x("x", Tensor({2}));
  DataflowVar lv("lv", Tensor({2}));
  Var o1("o1", Tensor({2})), o2("o2", Tensor({2}));
  DataflowBlock dfb(
      {VarBinding(lv, Call(Op::Get("relax.add"), {x, x})), VarBinding(o1, lv), VarBinding(o2, lv)});
  Var a("a", Tensor({2}));
  Function inner({a}, SeqExpr({}, a), Tensor({2}), true, {});
  Var g("g", Downcast<StructInfo>(inner->struct_info_));
  BindingBlock bb({VarBinding(g, inner)});
  Function f({x}, SeqExpr({dfb, bb}, Tuple({o1, o2})), TupleStructInfo({Tensor({2}), Tensor({2})}),
             true, Symbol("main"));
  std::string text = AsScript(f);
  EXPECT_NE(text.find("    with R.dataflow():\n"
                      "        lv: R.Tensor((2,), dtype=\"float32\") = R.add(x, x)\n"
                      "        o1: R.Tensor((2,), dtype=\"float32\") = lv\n"
                      "        o2: R.Tensor((2,), dtype=\"float32\") = lv\n"
                      "        R.output(o1, o2)\n"
                      "    @R.function\n"
                      "    def g(a: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), "
                      "dtype=\"float32\"):\n"
                      "        return a\n"
                      "    return (o1, o2)\n"),
            std::string::npos)
      << text;
}

// ---- property: print -> parse -> print ------------------------------------------------------

/*!
 * \brief A random function: chains of elementwise ops over tensors of one (possibly symbolic)
 * shape, name hints drawn from a small pool (so they collide, and hit reserved names), in a
 * dataflow block or not, sometimes a match_cast.
 */
Function RandomFunction(std::mt19937* rng) {
  auto pick = [&](int n) { return static_cast<int>((*rng)() % static_cast<unsigned>(n)); };
  const char* names[] = {"x", "lv", "lv1", "gv", "R", "cls", "T", "y", "lambda", "v"};
  tir::Var n("n", DataType::Int(64));
  PrimExpr d0 = pick(2) ? PrimExpr(n) : PrimExpr(IntImm(DataType::Int(64), 1 + pick(4)));
  StructInfo info = Tensor({d0, 4});
  std::vector<Var> params;
  for (int i = 0, k = 1 + pick(3); i < k; ++i) params.emplace_back(names[pick(10)], info);
  bool dataflow = pick(2);
  std::vector<Var> avail(params.begin(), params.end());
  Array<Binding> bindings;
  const char* ops[] = {"relax.add", "relax.multiply", "relax.subtract"};
  for (int i = 0, k = 1 + pick(5); i < k; ++i) {
    Expr a = avail[pick(avail.size())], b = avail[pick(avail.size())];
    Var v = dataflow ? DataflowVar(names[pick(10)], info) : Var(names[pick(10)], info);
    bindings.push_back(VarBinding(v, Call(Op::Get(ops[pick(3)]), {a, b})));
    avail.push_back(v);
  }
  Var out("gv", info);
  bindings.push_back(VarBinding(out, avail.back()));
  Expr result = out;
  if (pick(2)) {
    Var cast(names[pick(10)], info);
    bindings.push_back(MatchCast(cast, out, info));
    result = cast;
  }
  BindingBlock block = dataflow ? DataflowBlock(bindings) : BindingBlock(bindings);
  return Function(Array<Var>(params.begin(), params.end()), SeqExpr({block}, result), info, true,
                  Symbol("main"));
}

TEST(RelaxPrinter, RandomFunctionsRoundTrip) {
  std::mt19937 rng(20261125);
  for (int trial = 0; trial < 60; ++trial) {
    Function f = RandomFunction(&rng);
    std::string text = AsScript(f);
    ObjectRef parsed;
    try {
      parsed = script::FromSource(text);
    } catch (const Error& e) {
      FAIL() << "trial " << trial << ": the printed text does not parse: " << e.what() << "\n"
             << text;
    }
    EXPECT_TRUE(StructuralEqual(f, parsed)) << "trial " << trial << "\n" << text;
    EXPECT_EQ(AsScript(parsed), text) << "trial " << trial;
  }
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
