/*!
 * \file script_diagnostics_test.cc
 * \brief Negative tests of the TVMScript parser (stage 2): every error is a ParseError whose
 * message names the problem and shows the file, line, column, source line and a caret under
 * the offending text. Each test checks the message and the caret line.
 */
#include <gtest/gtest.h>

#include "script_test_util.h"

namespace minitvm {
namespace {

using testing::Lines;
using testing::ParseErrorOf;

/*! \brief A kernel whose block body line is `line` (line 7 of the text). */
std::string Kernel(const std::string& line) {
  return "@T.prim_func\n"
         "def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\"),\n"
         "         C: T.Buffer((8,), \"int32\")):\n"
         "    for i in range(8):\n"
         "        with T.block(\"B\"):\n"
         "            vi = T.axis.spatial(8, i)\n"
         "            " +
         line + "\n";
}

/*! \brief Expect the full layout: message, location, gutter, source line and caret. */
void ExpectDiagnostic(const std::string& error, const std::string& message,
                      const std::string& location, const std::string& source_line,
                      const std::string& caret_line) {
  std::vector<std::string> lines = Lines(error);
  ASSERT_EQ(lines.size(), 5u) << error;
  EXPECT_EQ(lines[0], "error: " + message);
  EXPECT_EQ(lines[1], " --> " + location);
  EXPECT_EQ(lines[3], source_line);
  EXPECT_EQ(lines[4], caret_line);
}

TEST(ScriptDiagnostics, UnknownName) {
  std::string e = ParseErrorOf(Kernel("B[vi] = T.foo(A[vi])"), "my_kernel.py", 5);
  ExpectDiagnostic(e, "unknown name \"T.foo\"", "my_kernel.py:12:21",
                   "12 |             B[vi] = T.foo(A[vi])", "   |                     ^^^^^");
  EXPECT_NE(e.find("   |\n"), std::string::npos) << e;
}

TEST(ScriptDiagnostics, WrongArity) {
  std::string e = ParseErrorOf(Kernel("vj = T.axis.spatial(8, i, 2)"));
  ExpectDiagnostic(e, "T.axis.spatial expects 2 arguments, got 3", "kernel.py:7:18",
                   "7 |             vj = T.axis.spatial(8, i, 2)",
                   "  |                  ^^^^^^^^^^^^^^^^^^^^^^^");
  e = ParseErrorOf(Kernel("B[vi] = T.exp()"));
  EXPECT_NE(e.find("error: T.exp expects 1 argument, got 0"), std::string::npos) << e;
  e = ParseErrorOf(Kernel("B[vi] = T.max(A[vi], 1, 2)"));
  EXPECT_NE(e.find("error: T.max expects 2 arguments, got 3"), std::string::npos) << e;
  e = ParseErrorOf(Kernel("B[vi] = T.Cast(\"float32\", A[vi], bad=1)"));
  EXPECT_NE(e.find("T.Cast got an unexpected keyword argument \"bad\""), std::string::npos) << e;
}

TEST(ScriptDiagnostics, UndefinedVariable) {
  std::string e = ParseErrorOf(Kernel("B[vi] = A[vj] + 1.0"));
  ExpectDiagnostic(e, "undefined variable \"vj\"", "kernel.py:7:23",
                   "7 |             B[vi] = A[vj] + 1.0", "  |                       ^^");
}

TEST(ScriptDiagnostics, DtypeMismatch) {
  // As TVM: a value of the same lane count is cast to the buffer's dtype (C[vi] = A[vi] stores
  // T.Cast("int32", A[vi])); another lane count is an error.
  std::string e = ParseErrorOf(Kernel("C[vi] = T.Broadcast(C[vi], 4)"));
  ExpectDiagnostic(e,
                   "dtype mismatch: storing a int32x4 value into buffer C of dtype int32 needs "
                   "int32 (indexing lanes: 1)",
                   "kernel.py:7:13", "7 |             C[vi] = T.Broadcast(C[vi], 4)",
                   "  |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^");
  e = ParseErrorOf(Kernel("x: T.int32 = A[vi]"));
  EXPECT_NE(e.find("error: dtype mismatch: x is declared int32 but the value is float32"),
            std::string::npos)
      << e;
  e = ParseErrorOf(Kernel("B[vi] = A[vi] and A[vi]"));
  EXPECT_NE(e.find("error: dtype mismatch: 'and' needs bool operands"), std::string::npos) << e;
  e = ParseErrorOf(Kernel("B[vi] = A[A[vi]]"));
  EXPECT_NE(e.find("error: dtype mismatch: a buffer index must be an integer, got float32"),
            std::string::npos)
      << e;
}

TEST(ScriptDiagnostics, BadIndentation) {
  std::string e = ParseErrorOf(
      "@T.prim_func\n"
      "def main(A: T.Buffer((8,), \"float32\")):\n"
      "    for i in range(8):\n"
      "        A[i] = 1.0\n"
      "      A[0] = 2.0\n");
  ExpectDiagnostic(e, "bad indentation: unindent does not match any outer indentation level",
                   "kernel.py:5:1", "5 |       A[0] = 2.0", "  | ^^^^^^");
  e = ParseErrorOf(
      "@T.prim_func\n"
      "def main(A: T.Buffer((8,), \"float32\")):\n"
      "    A[0] = 1.0\n"
      "        A[1] = 2.0\n");
  EXPECT_NE(e.find("error: bad indentation: unexpected indent\n --> kernel.py:4:1"),
            std::string::npos)
      << e;
  e = ParseErrorOf(
      "@T.prim_func\n"
      "def main(A: T.Buffer((8,), \"float32\")):\n"
      "    for i in range(8):\n"
      "    A[0] = 2.0\n");
  EXPECT_NE(e.find("error: bad indentation: expected an indented block after this line (line 3)"),
            std::string::npos)
      << e;
}

TEST(ScriptDiagnostics, UnsupportedConstructs) {
  std::string e = ParseErrorOf(Kernel("B[vi] = lambda x: x"));
  ExpectDiagnostic(e, "unsupported Python construct: lambda (only the combiner of T.comm_reducer)",
                   "kernel.py:7:21", "7 |             B[vi] = lambda x: x",
                   "  |                     ^^^^^^^^^^^");
  e = ParseErrorOf("@T.prim_func\ndef f():\n    try:\n        pass\n    except:\n        pass\n");
  ExpectDiagnostic(e, "unsupported Python construct: try statement", "kernel.py:3:5",
                   "3 |     try:", "  |     ^^^");
  for (const char* line : {"x = [j for j in range(3)]", "global x", "x = f\"{i}\"", "x = {1, 2}",
                           "yield i", "x = 1j"}) {
    e = ParseErrorOf(Kernel(line));
    EXPECT_NE(e.find("error: unsupported Python construct"), std::string::npos) << line << "\n"
                                                                                << e;
  }
  e = ParseErrorOf(Kernel("return"));
  EXPECT_NE(e.find("error: unsupported Python construct: return in a T.prim_func"),
            std::string::npos)
      << e;
}

TEST(ScriptDiagnostics, Tokens) {
  std::string e = ParseErrorOf(Kernel("B[vi] = (A[vi] + 1.0"));
  ExpectDiagnostic(e, "'(' was never closed (unexpected end of input)", "kernel.py:7:21",
                   "7 |             B[vi] = (A[vi] + 1.0", "  |                     ^");
  e = ParseErrorOf(Kernel("B[vi] = A[vi] $ 2"));
  EXPECT_NE(e.find("error: invalid character in script"), std::string::npos) << e;
  e = ParseErrorOf(Kernel("T.reads(\"A)"));
  EXPECT_NE(e.find("error: unterminated string literal"), std::string::npos) << e;
  e = ParseErrorOf(Kernel("x = 99999999999999999999"));
  EXPECT_NE(e.find("error: integer literal is too large"), std::string::npos) << e;
  e = ParseErrorOf(Kernel("B[vi] = A[vi]]"));
  EXPECT_NE(e.find("error: unmatched ']'"), std::string::npos) << e;
  e = ParseErrorOf(Kernel("B[vi] = = 1"));
  EXPECT_NE(e.find("error: invalid syntax: expected an expression, found '='"), std::string::npos)
      << e;
}

TEST(ScriptDiagnostics, TensorIRRules) {
  std::string e = ParseErrorOf(Kernel("B[vi, vi] = A[vi]"));
  EXPECT_NE(e.find("error: buffer B has 1 dimension but is indexed with 2 indices"),
            std::string::npos)
      << e;
  e = ParseErrorOf(Kernel("T.reads(A[vi])\n            T.reads(A[vi])"));
  EXPECT_NE(e.find("error: T.reads is given twice in block \"B\""), std::string::npos) << e;
  e = ParseErrorOf(Kernel("vj, vk = T.axis.remap(\"SS\", [i, vi])"));
  EXPECT_NE(e.find("error: T.axis.remap binds loop variables only"), std::string::npos) << e;
  e = ParseErrorOf("@T.prim_func\ndef f(A: T.Buffer((8,), \"float32\")):\n    T.reads(A[0])\n");
  EXPECT_NE(e.find("error: T.reads is only allowed directly inside a `with T.block(...):`"),
            std::string::npos)
      << e;
  e = ParseErrorOf("@T.prim_func\ndef f(a):\n    pass\n");
  EXPECT_NE(e.find("error: parameter \"a\" needs a type"), std::string::npos) << e;
  e = ParseErrorOf("print(1)\n");
  EXPECT_NE(e.find("a script holds one @I.ir_module class or one @T.prim_func function"),
            std::string::npos)
      << e;
  e = ParseErrorOf("x = 1\n");  // constants alone: still no function
  EXPECT_NE(e.find("the script defines no @I.ir_module class or @T.prim_func function"),
            std::string::npos)
      << e;
  e = ParseErrorOf(
      "@T.prim_func\ndef f(A: T.Buffer((8,), \"float32\")):\n    for i in 8:\n        pass\n");
  EXPECT_NE(e.find("error: a for loop iterates over range(...)"), std::string::npos) << e;
}

TEST(ScriptDiagnostics, TvmNamesMinitvmDoesNotHave) {
  // Names from TVM's TensorIR that minitvm lacks say why and what to write instead.
  std::string e = ParseErrorOf(Kernel("T.evaluate(T.call_packed(\"f\", A.data))"));
  ExpectDiagnostic(e,
                   "unknown name \"T.call_packed\": minitvm's TensorIR has no packed function "
                   "calls; call a registered function with T.call_extern(dtype, \"name\", "
                   "args...)",
                   "kernel.py:7:24", "7 |             T.evaluate(T.call_packed(\"f\", A.data))",
                   "  |                        ^^^^^^^^^^^^^");
  e = ParseErrorOf(Kernel("T.ptx_ldmatrix(\"shared\")"));
  EXPECT_NE(e.find("error: unknown name \"T.ptx_ldmatrix\": this TVM intrinsic has no "
                   "builder in minitvm; keep it in the IR as T.call_intrin(dtype, "
                   "\"tir.ptx_ldmatrix\", args...)"),
            std::string::npos)
      << e;
  e = ParseErrorOf(Kernel("T.Bind(1, 2)"));
  EXPECT_NE(e.find("error: unknown name \"T.Bind\": not supported by minitvm's TensorIR"),
            std::string::npos)
      << e;
  e = ParseErrorOf(Kernel("T.comm_reducer(1, 2)"));
  EXPECT_NE(e.find("error: the combiner of T.comm_reducer must be a lambda, got int"),
            std::string::npos)
      << e;
}

TEST(ScriptDiagnostics, TvmSyntaxMisuse) {
  // Module-level names must be Python constants.
  std::string e = ParseErrorOf("n = T.int32()\n@T.prim_func\ndef f():\n    pass\n");
  ExpectDiagnostic(e,
                   "a module-level assignment must be a Python constant (a number, a string, a "
                   "dtype or a tuple of them), got a variable declaration",
                   "kernel.py:1:5", "1 | n = T.int32()", "  |     ^^^^^^^^^");
  e = ParseErrorOf("T = 1\n@T.prim_func\ndef f():\n    pass\n");
  EXPECT_NE(e.find("error: the name T is reserved in a script"), std::string::npos) << e;
  e = ParseErrorOf("@T.prim_func\ndef f():\n    pass\nx = 1\n");
  EXPECT_NE(e.find("this statement is not part of one"), std::string::npos) << e;
  // Integer-only intrinsics, bool-only assumptions.
  e = ParseErrorOf(Kernel("B[vi] = T.cast(T.bitwise_and(A[vi], 1), \"float32\")"));
  EXPECT_NE(e.find("error: dtype mismatch: T.bitwise_and needs integer operands, got float32"),
            std::string::npos)
      << e;
  e = ParseErrorOf(Kernel("C[vi] = T.ceildiv(A[vi], 2)"));
  EXPECT_NE(e.find("error: dtype mismatch: T.ceildiv needs integers, got float32"),
            std::string::npos)
      << e;
  e = ParseErrorOf(Kernel("C[vi] = ~A[vi]"));
  EXPECT_NE(e.find("error: dtype mismatch: T.bitwise_not needs an integer operand, got float32"),
            std::string::npos)
      << e;
  e = ParseErrorOf(Kernel("T.assume(vi)"));
  EXPECT_NE(e.find("error: dtype mismatch: T.assume needs a bool condition, got int32"),
            std::string::npos)
      << e;
  e = ParseErrorOf("@T.prim_func\ndef f(p: T.handle(\"float33\")):\n    pass\n");
  EXPECT_NE(e.find("error: "), std::string::npos) << e;
  EXPECT_EQ(e.find("InternalError"), std::string::npos) << e;
  e = ParseErrorOf("@T.prim_func\ndef f():\n    tx = T.launch_thread(\"threadIdx.x\", 1e3)\n");
  EXPECT_NE(e.find("error: dtype mismatch: T.launch_thread needs an integer extent, got float32"),
            std::string::npos)
      << e;
  // Found by the fuzz test: a region with a negative extent gives no implicit shape.
  e = ParseErrorOf(
      "@T.prim_func\ndef f(A: T.Buffer((16, 64), \"int32\")):\n    with T.block():\n"
      "        B = T.match_buffer(A[8:16, 432:64])\n");
  ExpectDiagnostic(e, "a shape entry cannot be negative", "kernel.py:4:28",
                   "4 |         B = T.match_buffer(A[8:16, 432:64])",
                   "  |                            ^^^^^^^^^^^^^^^");
  e = ParseErrorOf("@T.prim_func\ndef f():\n    T.func_attr({\"target\": T.target(\"nosuch\")})\n");
  EXPECT_NE(e.find("error: T.target: "), std::string::npos) << e;
}

TEST(ScriptDiagnostics, NonAsciiSourceLinesAlignTheCaret) {
  // The caret counts characters, not bytes (course code has Chinese comments and names).
  std::string e = ParseErrorOf(Kernel("B[vi] = \"数据\" + T.foo"));
  std::vector<std::string> lines = Lines(e);
  ASSERT_EQ(lines.size(), 5u) << e;
  EXPECT_EQ(lines[1], " --> kernel.py:7:28");
  EXPECT_EQ(lines[4], "  |                            ^^^^^");
}

TEST(ScriptDiagnostics, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')');
  std::string e = ParseErrorOf(Kernel(deep));
  EXPECT_NE(e.find("nested too deeply"), std::string::npos) << e.substr(0, 200);
  std::string chain = "x = 1";
  for (int i = 0; i < 3000; ++i) chain += " + 1";
  e = ParseErrorOf(Kernel("B[vi] = A[vi]" + chain.substr(5)));
  EXPECT_NE(e.find("nested too deeply"), std::string::npos) << e.substr(0, 200);
  std::string neg = "B[vi] = " + std::string(5000, '-') + "A[vi]";
  e = ParseErrorOf(Kernel(neg));
  EXPECT_NE(e.find("nested too deeply"), std::string::npos) << e.substr(0, 200);
  std::string power = "x = 2";
  for (int i = 0; i < 5000; ++i) power += " ** 1";
  e = ParseErrorOf(Kernel(power));
  EXPECT_NE(e.find("nested too deeply"), std::string::npos) << e.substr(0, 200);
  std::string cond = "x = 1";
  for (int i = 0; i < 5000; ++i) cond += " if True else 1";
  e = ParseErrorOf(Kernel(cond));
  EXPECT_NE(e.find("nested too deeply"), std::string::npos) << e.substr(0, 200);
  // What the parser accepts prints as text it accepts again (found by the fuzzer: 120 unary
  // minus signs print as 120 nested parentheses, `0 - (0 - ...)`).
  std::string minus = "B[vi] = " + std::string(300, '-') + "A[vi]";
  ObjectRef f = script::FromSource(Kernel(minus));
  EXPECT_NO_THROW(script::FromSource(script::AsScript(f)));
}

TEST(ScriptDiagnostics, EmptyScriptsPointAtTheFirstLine) {
  ExpectDiagnostic(ParseErrorOf(""),
                   "the script defines no @I.ir_module class or @T.prim_func function",
                   "kernel.py:1:1", "1 | ", "  | ^");
  std::string e = ParseErrorOf("# only a comment\n", "k.py", 9);
  ExpectDiagnostic(e, "the script defines no @I.ir_module class or @T.prim_func function",
                   "k.py:10:1", "10 | # only a comment", "   | ^");
}

TEST(ScriptDiagnostics, DecoratorsAreRequired) {
  // As in TVM, a bare def or class is Python, not TVMScript.
  ExpectDiagnostic(ParseErrorOf("def main():\n    pass\n"),
                   "the decorator @T.prim_func is missing on function \"main\" (a module is a "
                   "class decorated with @I.ir_module)",
                   "kernel.py:1:1", "1 | def main():", "  | ^^^");
  ExpectDiagnostic(ParseErrorOf("class Module:\n    pass\n"),
                   "the decorator @I.ir_module is missing on class \"Module\"", "kernel.py:1:1",
                   "1 | class Module:", "  | ^^^^^");
  ExpectDiagnostic(
      ParseErrorOf("@I.ir_module\nclass Module:\n    def f():\n        T.evaluate(0)\n"),
      "the decorator @T.prim_func is missing on function \"f\"", "kernel.py:3:5",
      "3 |     def f():", "  |     ^^^");
}

}  // namespace
}  // namespace minitvm
