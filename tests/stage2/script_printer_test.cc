/*!
 * \file script_printer_test.cc
 * \brief Tests of the TVMScript printer (stage 2): IR built in C++ prints in TVM's current
 * format — layout, loops, block iterators, literals, parentheses and names.
 */
#include <gtest/gtest.h>

#include "minitvm/ir/op.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/doc.h"
#include "minitvm/tir/op.h"
#include "script_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)
using script::AsScript;
using testing::CheckRoundTrip;

Map<String, Any> MainAttrs() {
  return {{String("global_symbol"), Any("main")}, {String("tir.noalias"), Any(true)}};
}

/*! \brief The course's vector add: B[vi] = A[vi] + 1 in a block under one loop. */
PrimFunc VectorAdd() {
  Buffer A = decl_buffer({8}, DataType::Float(32), "A");
  Buffer B = decl_buffer({8}, DataType::Float(32), "B");
  Var i("i"), vi("vi");
  Stmt store = BufferStore(B, A({vi}) + PrimExpr(1.0), {vi});
  Block blk({IterVar(Range(0, 8), vi, kDataPar)}, {BufferRegion(A, {Range(vi, 1)})},
            {BufferRegion(B, {Range(vi, 1)})}, "B", store);
  Stmt loop = For(i, 0, 8, ForKind::kSerial, BlockRealize({i}, PrimExpr(), blk));
  Stmt root = BlockRealize({}, PrimExpr(), Block({}, {}, {}, "root", loop));
  Var a("A", DataType::Handle()), b("B", DataType::Handle());
  return PrimFunc({a, b}, root, Map<Var, Buffer>{{a, A}, {b, B}}, MainAttrs());
}

TEST(ScriptPrinter, CourseVectorAddModule) {
  IRModule mod = IRModule::FromNamed({{"main", VectorAdd()}});
  EXPECT_EQ(AsScript(mod),
            "# from minitvm.script import ir as I\n"
            "# from minitvm.script import tir as T\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @T.prim_func\n"
            "    def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
            "        T.func_attr({\"tir.noalias\": True})\n"
            "        # with T.block(\"root\"):\n"
            "        for i in range(8):\n"
            "            with T.block(\"B\"):\n"
            "                vi = T.axis.spatial(8, i)\n"
            "                T.reads(A[vi])\n"
            "                T.writes(B[vi])\n"
            "                B[vi] = A[vi] + T.float32(1.0)\n");
  CheckRoundTrip(mod);
}

TEST(ScriptPrinter, PrimFuncAloneAndPrivate) {
  PrimFunc f = VectorAdd();
  std::string text = AsScript(f);
  EXPECT_EQ(testing::Lines(text)[0], "# from minitvm.script import tir as T");
  EXPECT_NE(text.find("@T.prim_func\ndef main("), std::string::npos) << text;
  // The name comes from global_symbol; without one the function is private.
  PrimFunc named = WithAttr(f, "global_symbol", Any("add_one"));
  EXPECT_NE(AsScript(named).find("def add_one("), std::string::npos);
  EXPECT_EQ(AsScript(named).find("global_symbol"), std::string::npos);
  PrimFunc priv = f;
  priv.CopyOnWrite()->attrs.erase(String("global_symbol"));
  EXPECT_NE(AsScript(priv).find("@T.prim_func(private=True)\ndef main("), std::string::npos);
  CheckRoundTrip(priv);
  // A global symbol that is not a Python name stays in T.func_attr (found by the fuzzer).
  PrimFunc odd = WithAttr(f, "global_symbol", Any("ma//"));
  text = CheckRoundTrip(odd);
  EXPECT_NE(text.find("def main("), std::string::npos) << text;
  EXPECT_NE(text.find("\"global_symbol\": \"ma//\""), std::string::npos) << text;
  // A global_symbol other than the name inside a module is kept.
  IRModule mod = IRModule::FromNamed({{"other", f}});
  EXPECT_NE(AsScript(mod).find("T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": True})"),
            std::string::npos);
  CheckRoundTrip(mod);
}

TEST(ScriptPrinter, Literals) {
  Var x("x");
  EXPECT_EQ(AsScript(IntImm(DataType::Int(32), 7)), "7");
  EXPECT_EQ(AsScript(IntImm(DataType::Int(32), -7)), "-7");
  EXPECT_EQ(AsScript(IntImm(DataType::Int(64), 3)), "T.int64(3)");
  EXPECT_EQ(AsScript(IntImm(DataType::UInt(8), 255)), "T.uint8(255)");
  EXPECT_EQ(AsScript(IntImm(DataType::Bool(), 1)), "T.bool(True)");
  EXPECT_EQ(AsScript(FloatImm(DataType::Float(32), 1.0)), "T.float32(1.0)");
  EXPECT_EQ(AsScript(FloatImm(DataType::Float(32), 0.1)), "T.float32(0.1)");
  EXPECT_EQ(AsScript(FloatImm(DataType::Float(64), 0.1)), "T.float64(0.1)");
  EXPECT_EQ(AsScript(FloatImm(DataType::Float(16), -2.5)), "T.float16(-2.5)");
  EXPECT_EQ(AsScript(FloatImm(DataType::Float(32), 1e-30)), "T.float32(1e-30)");
  EXPECT_EQ(AsScript(FloatImm(DataType::Float(32), 1.0 / 0.0)), "T.float32(\"inf\")");
  EXPECT_EQ(AsScript(StringImm("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(AsScript(Cast(DataType::Float(32), x)), "T.Cast(\"float32\", x)");
}

TEST(ScriptPrinter, MinimalParentheses) {
  Var x("x"), y("y"), z("z");
  EXPECT_EQ(AsScript((x + 1) * (y - 2)), "(x + 1) * (y - 2)");
  EXPECT_EQ(AsScript(x - (y - z)), "x - (y - z)");
  EXPECT_EQ(AsScript((x - y) - z), "x - y - z");
  EXPECT_EQ(AsScript(floordiv(x, 4) * 3 + floormod(x, 5)), "x // 4 * 3 + x % 5");
  EXPECT_EQ(AsScript(x * floordiv(y, 2)), "x * (y // 2)");
  EXPECT_EQ(AsScript(x * y + z), "x * y + z");
  EXPECT_EQ(AsScript(x * (y + z)), "x * (y + z)");
  EXPECT_EQ(AsScript((x < y) == (y < x)), "(x < y) == (y < x)");
  EXPECT_EQ(AsScript((x < y && x > z) || !(y == z)), "x < y and x > z or not y == z");
  EXPECT_EQ(AsScript(x < y && (x > z || y == z)), "x < y and (x > z or y == z)");
  EXPECT_EQ(AsScript(x * IntImm(DataType::Int(32), -3)), "x * -3");
  Var f("f", DataType::Float(32));
  EXPECT_EQ(AsScript(f / (f + PrimExpr(2.0))), "f / (f + T.float32(2.0))");
}

TEST(ScriptPrinter, CallsAndExplicitConstructors) {
  Var x("x"), y("y");
  Var f("f", DataType::Float(32));
  EXPECT_EQ(AsScript(tir::max(x, y)), "T.max(x, y)");
  EXPECT_EQ(AsScript(truncmod(x, y)), "T.truncmod(x, y)");
  EXPECT_EQ(AsScript(truncdiv(x, y)), "T.Div(x, y)");
  EXPECT_EQ(AsScript(exp(f)), "T.exp(f)");
  EXPECT_EQ(AsScript(if_then_else(x < y, x, y)), "T.if_then_else(x < y, x, y)");
  EXPECT_EQ(AsScript(Select(x < y, x, y)), "T.Select(x < y, x, y)");
  EXPECT_EQ(AsScript(call_extern(DataType::Int(32), "foo", {x, f})),
            "T.call_extern(\"int32\", \"foo\", x, f)");
  EXPECT_EQ(AsScript(Ramp(x, 1, 4)), "T.Ramp(x, 1, 4)");
  EXPECT_EQ(AsScript(Broadcast(f, 4)), "T.Broadcast(f, 4)");
  // Nodes the folding operators would not rebuild keep their constructor names.
  EXPECT_EQ(AsScript(Add(x, 0)), "T.Add(x, 0)");
  EXPECT_EQ(AsScript(Mul(IntImm(DataType::Int(32), 2), 3)), "T.Mul(2, 3)");
  EXPECT_EQ(AsScript(Max(x, x)), "T.max(x, x)");
  // Between two bare ints Python would fold while parsing, even where the IR did not (an
  // overflow the folding operators refuse; found by the fuzzer).
  PrimExpr big = IntImm(DataType::Int(32), 2147483647),
           small = IntImm(DataType::Int(32), -2147483648);
  EXPECT_EQ(AsScript(Sub(big, small)), "T.Sub(2147483647, -2147483648)");
  CheckRoundTrip(IRModule::FromNamed({{"f", PrimFunc({x}, Evaluate(Sub(big, small) + x))}}));
  EXPECT_EQ(AsScript(Call(DataType::Int(32), "tir.my_op", {x})),
            "T.call_intrin(\"int32\", \"tir.my_op\", x)");
}

TEST(ScriptPrinter, IntrinsicsFollowTheTable) {
  // T.<name> exactly for the intrinsics whose "TScriptPrinterName" is set (tir/builtin.h).
  Var f("f", DataType::Float(32)), x("x");
  EXPECT_EQ(AsScript(pow(f, f)), "T.pow(f, f)");
  EXPECT_EQ(AsScript(sigmoid(x)), "T.sigmoid(T.Cast(\"float32\", x))");
  EXPECT_EQ(AsScript(Call(DataType::Float(32), "tir.exp2", {f})),
            "T.call_intrin(\"float32\", \"tir.exp2\", f)");
  // A call the builder would not rebuild (an int32 exp) keeps T.call_intrin.
  EXPECT_EQ(AsScript(Call(DataType::Int(32), "tir.exp", {x})),
            "T.call_intrin(\"int32\", \"tir.exp\", x)");
  Op exp_op = Op::Get("tir.exp");
  EXPECT_EQ(exp_op->num_inputs, 1);
  EXPECT_EQ(exp_op.GetAttr("TLLVMIntrinsic").cast<std::string>(), "llvm.exp");
  EXPECT_TRUE(exp_op.GetAttr("TVectorizable").cast<bool>());
  EXPECT_FALSE(Op::Get("tir.sin").HasAttr("TScriptPrinterName"));
  EXPECT_TRUE(IsKnownIntrinsic("tir.atan2"));
  EXPECT_FALSE(IsKnownIntrinsic("tir.my_op"));
}

TEST(ScriptPrinter, ReadableModePrintsPythonLiterals) {
  script::ScriptOptions readable;
  readable.plain_literals = true;
  Var i("i"), j("j"), n("n", DataType::Int(64));
  PrimExpr i64 = IntImm(DataType::Int(64), 4);
  EXPECT_EQ(AsScript(n * i64 + IntImm(DataType::Int(64), 1)), "n * T.int64(4) + T.int64(1)");
  EXPECT_EQ(AsScript(n * i64 + IntImm(DataType::Int(64), 1), readable), "n * 4 + 1");
  EXPECT_EQ(AsScript(FloatImm(DataType::Float(32), 0.5), readable), "0.5");
  EXPECT_EQ(AsScript(Add(i, 0), readable), "i + 0");
  EXPECT_EQ(AsScript(truncdiv(i, j), readable), "i / j");
  EXPECT_EQ(AsScript(floordiv(i, 4) + floormod(j, 4), readable), "i // 4 + j % 4");
  // A comparison inside a comparison keeps its parentheses: Python would chain `a < b < c`.
  EXPECT_EQ(AsScript(LT(LT(i, j), LT(j, i)), readable), "(i < j) < (j < i)");
  EXPECT_EQ(AsScript(Call(DataType::Int(32), "tir.my_op", {i}), readable), "T.my_op(i)");
}

TEST(ScriptPrinter, LoopsAndGrid) {
  Buffer A = decl_buffer({4, 4, 4}, DataType::Float(32), "A");
  Var i("i"), j("j"), k("k");
  Stmt store = BufferStore(A, PrimExpr(0.0), {i, j, k});
  Stmt grid = For(i, 0, 4, ForKind::kSerial,
                  For(j, 0, 4, ForKind::kSerial, For(k, 0, 4, ForKind::kSerial, store)));
  // A buffer used but never declared is declared in the innermost scope of all its uses.
  EXPECT_EQ(AsScript(grid),
            "for i, j, k in T.grid(4, 4, 4):\n"
            "    A = T.Buffer((4, 4, 4))\n"
            "    A[i, j, k] = T.float32(0.0)\n");
  auto has_line = [](const Stmt& s, const std::string& line) {
    std::string text = AsScript(s);
    return text.find(line + "\n") != std::string::npos;
  };
  Stmt kinds = For(i, 1, 3, ForKind::kParallel,
                   For(j, 0, 4, ForKind::kVectorized, For(k, 0, 4, ForKind::kUnrolled, store)));
  EXPECT_TRUE(has_line(kinds, "for i in T.parallel(1, 4):")) << AsScript(kinds);
  EXPECT_TRUE(has_line(kinds, "    for j in T.vectorized(4):")) << AsScript(kinds);
  EXPECT_TRUE(has_line(kinds, "        for k in T.unroll(4):")) << AsScript(kinds);
  Stmt bound = For(i, 0, 4, ForKind::kThreadBinding, store,
                   IterVar(Range(), Var("threadIdx.x"), kThreadIndex, "threadIdx.x"));
  EXPECT_TRUE(has_line(bound, "for i in T.thread_binding(4, thread=\"threadIdx.x\"):"));
  Stmt annotated = For(i, 0, 4, ForKind::kSerial, store, IterVar(),
                       {{String("pragma_unroll"), Any(int64_t(1))}});
  EXPECT_TRUE(has_line(annotated, "for i in T.serial(4, annotations={\"pragma_unroll\": 1}):"));
}

TEST(ScriptPrinter, UniqueNames) {
  Buffer A = decl_buffer({4}, DataType::Float(32), "A");
  Var i1("i"), i2("i"), i3("i"), t("T"), kw("for");
  // Nested loops with the same hint get suffixes; sibling loops reuse the name.
  Stmt nested = For(i1, 0, 4, ForKind::kSerial,
                    For(i2, 0, 4, ForKind::kSerial, BufferStore(A, PrimExpr(0.0), {i1 + i2})));
  Stmt sibling = For(i3, 0, 4, ForKind::kSerial, BufferStore(A, PrimExpr(1.0), {i3}));
  std::string text = AsScript(SeqStmt({nested, sibling}));
  EXPECT_NE(text.find("for i, i_1 in T.grid(4, 4):\n    A[i + i_1] = "), std::string::npos) << text;
  EXPECT_NE(text.find("for i in range(4):\n    A[i] = T.float32(1.0)"), std::string::npos) << text;
  // Names that would break the script are renamed.
  Stmt odd = For(t, 0, 4, ForKind::kSerial,
                 For(kw, 0, 4, ForKind::kSerial, BufferStore(A, PrimExpr(0.0), {t + kw})));
  text = AsScript(odd);
  EXPECT_NE(text.find("for T_1, for_ in T.grid(4, 4):"), std::string::npos) << text;
}

TEST(ScriptPrinter, BlockIteratorsRemapAndRoot) {
  Buffer A = decl_buffer({16, 16}, DataType::Float(32), "A");
  Buffer C = decl_buffer({16}, DataType::Float(32), "C");
  Buffer Y = decl_buffer({16}, DataType::Float(32), "Y");
  Var i("i"), k("k"), vi("vi"), vk("vk");
  Block blk({IterVar(Range(0, 16), vi, kDataPar), IterVar(Range(0, 16), vk, kCommReduce)},
            {BufferRegion(A, {Range(vi, 1), Range(vk, 1)})}, {BufferRegion(Y, {Range(vi, 1)})}, "Y",
            BufferStore(Y, Y({vi}) + A({vi, vk}), {vi}), BufferStore(Y, PrimExpr(0.0), {vi}));
  Stmt loops = For(i, 0, 16, ForKind::kSerial,
                   For(k, 0, 16, ForKind::kSerial, BlockRealize({i, k}, PrimExpr(), blk)));
  Var j("j"), vj("vj");
  Block copy({IterVar(Range(0, 16), vj, kDataPar)}, {BufferRegion(Y, {Range(vj, 1)})},
             {BufferRegion(C, {Range(vj, 1)})}, "C", BufferStore(C, Y({vj}), {vj}));
  Stmt split = For(j, 0, 4, ForKind::kSerial, BlockRealize({j * 4 + 1}, j < 3, copy));
  Stmt root =
      BlockRealize({}, PrimExpr(), Block({}, {}, {}, "root", SeqStmt({loops, split}), Stmt(), {Y}));
  Var a("A", DataType::Handle()), c("C", DataType::Handle());
  PrimFunc f({a, c}, root, Map<Var, Buffer>{{a, A}, {c, C}}, MainAttrs());
  std::string text = CheckRoundTrip(f);
  for (const char* expected :
       {"    # with T.block(\"root\"):\n    Y = T.alloc_buffer((16,))\n",
        "            vi, vk = T.axis.remap(\"SR\", [i, k])\n",
        "            with T.init():\n                Y[vi] = T.float32(0.0)\n",
        "            vj = T.axis.spatial(16, j * 4 + 1)\n            T.where(j < 3)\n"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing:\n"
                                                      << expected << "in:\n"
                                                      << text;
  }
}

TEST(ScriptPrinter, SymbolicShapesUseMatchBuffer) {
  Var n("n");
  Buffer A = decl_buffer({n}, DataType::Float(16), "A");
  Var a("a", DataType::Handle()), i("i");
  PrimFunc f({a},
             For(i, 0, n, ForKind::kSerial, BufferStore(A, FloatImm(DataType::Float(16), 0), {i})),
             Map<Var, Buffer>{{a, A}}, MainAttrs());
  std::string text = CheckRoundTrip(f);
  EXPECT_NE(text.find("def main(a: T.handle):\n"
                      "    T.func_attr({\"tir.noalias\": True})\n"
                      "    n = T.int32()\n"
                      "    A = T.match_buffer(a, (n,), \"float16\")\n"),
            std::string::npos)
      << text;
}

TEST(ScriptPrinter, ReprAndRegisteredFunction) {
  Var x("x");
  EXPECT_EQ(runtime::Repr(x + 1), "x + 1");
  std::string module_repr = runtime::Repr(IRModule::FromNamed({{"main", VectorAdd()}}));
  EXPECT_NE(module_repr.find("@I.ir_module"), std::string::npos);
  auto f = runtime::Registry::Get("script.AsScript");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ((*f)(x * 2).cast<std::string>(), "x * 2");
  Buffer A = decl_buffer({8, 4}, DataType::Int(8), "A");
  EXPECT_EQ(AsScript(A), "A: T.Buffer((8, 4), \"int8\")");
}

TEST(ScriptPrinter, DocRenderer) {
  using namespace script::printer;  // NOLINT(build/namespaces)
  ExprDoc a = IdDoc("a"), b = IdDoc("b");
  EXPECT_EQ(DocToPythonScript(OperationDoc(OpKind::kPow, {OperationDoc(OpKind::kPow, {a, b}), a})),
            "(a ** b) ** a");
  EXPECT_EQ(DocToPythonScript(OperationDoc(OpKind::kPow, {a, OperationDoc(OpKind::kPow, {a, b})})),
            "a ** a ** b");
  EXPECT_EQ(DocToPythonScript(OperationDoc(OpKind::kUSub, {OperationDoc(OpKind::kAdd, {a, b})})),
            "-(a + b)");
  EXPECT_EQ(DocToPythonScript(TupleDoc({a})), "(a,)");
  EXPECT_EQ(DocToPythonScript(IndexDoc(a, {})), "a[()]");
  EXPECT_EQ(DocToPythonScript({IfDoc(a, {}, {})}), "if a:\n    pass\n");
  EXPECT_EQ(
      DocToPythonScript({FunctionDoc("f", {}, {}, nullptr, {ExprStmtDoc(a)}), CommentDoc("x\ny")}),
      "def f():\n    a\n# x\n# y\n");
}

}  // namespace
}  // namespace minitvm
