/*!
 * \file arith_simplify_test.cc
 * \brief The canonical simplifier, rule by rule: affine sums, the div/mod patterns of split
 * and fuse, min/max and comparisons decided by bounds, float expressions left alone, and the
 * printing order of terms.
 */
#include <gtest/gtest.h>

#include "minitvm/arith/analyzer.h"
#include "minitvm/ir/structural.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm_test_util.h"
#include "test_util.h"

namespace minitvm {
namespace {

using arith::Analyzer;
using testing::ExprStr;
using tir::floordiv;
using tir::floormod;
using tir::Var;

class SimplifyTest : public ::testing::Test {
 protected:
  Var i{"i"}, j{"j"}, k{"k"}, x{"x"}, y{"y"}, n{"n"};
  Analyzer a;
  std::string S(const PrimExpr& e) { return ExprStr(a.Simplify(e)); }
};

TEST_F(SimplifyTest, ConstantFolding) {
  EXPECT_EQ(S(PrimExpr(2) + 3), "5");
  EXPECT_EQ(S(tir::Add(IntImm(DataType::Int(32), 2), IntImm(DataType::Int(32), 3))), "5");
  EXPECT_EQ(S(tir::Mul(IntImm(DataType::Int(32), 6), IntImm(DataType::Int(32), 7))), "42");
  EXPECT_EQ(S(tir::FloorDiv(IntImm(DataType::Int(32), -7), IntImm(DataType::Int(32), 2))), "-4");
  EXPECT_EQ(S(tir::FloorMod(IntImm(DataType::Int(32), -7), IntImm(DataType::Int(32), 2))), "1");
  EXPECT_EQ(S(tir::Div(IntImm(DataType::Int(32), -7), IntImm(DataType::Int(32), 2))), "-3");
  EXPECT_EQ(S(tir::Min(IntImm(DataType::Int(32), 3), IntImm(DataType::Int(32), 9))), "3");
  EXPECT_EQ(S(tir::LT(IntImm(DataType::Int(32), 3), IntImm(DataType::Int(32), 9))), "True");
}

TEST_F(SimplifyTest, AffineSums) {
  EXPECT_EQ(S(tir::Mul(i, IntImm(DataType::Int(32), 1))), "i");
  EXPECT_EQ(S(tir::Sub(x, x)), "0");
  EXPECT_EQ(S(x + y - x), "y");
  EXPECT_EQ(S((i + 2) * 4), "i * 4 + 8");
  EXPECT_EQ(S(i * 2 + j + i * 3), "i * 5 + j");
  EXPECT_EQ(S(tir::Sub(tir::Mul(x, y), tir::Mul(x, y))), "0");
  EXPECT_EQ(S(x * 2 * y), "x * y * 2");
  EXPECT_EQ(S(n - i - 1), "n - i - 1");
  EXPECT_EQ(S(PrimExpr(0) - x), "x * -1");
  EXPECT_EQ(S(PrimExpr(5) - x), "5 - x");
  EXPECT_EQ(S(i - 3 + 3), "i");
}

TEST_F(SimplifyTest, TermOrderFollowsFirstAppearance) {
  Var i0("i_0"), i1("i_1"), i2("i_2");
  // What split(i, [None, 2, 2]) substitutes for i: the loops from outer to inner.
  EXPECT_EQ(S((i0 * 2 + i1) * 2 + i2), "i_0 * 4 + i_1 * 2 + i_2");
  EXPECT_EQ(S(i2 + (i1 + i0 * 2) * 2), "i_2 + i_1 * 2 + i_0 * 4");
  EXPECT_EQ(S(i0 * 4 - i1 + 7 + i2), "i_0 * 4 + i_2 - i_1 + 7");
}

TEST_F(SimplifyTest, SplitPatterns) {
  a.Bind(i, Range(0, 8));
  a.Bind(j, Range(0, 4));
  EXPECT_EQ(S(floordiv(i * 4 + j, 4)), "i");
  EXPECT_EQ(S(floormod(i * 4 + j, 4)), "j");
  EXPECT_EQ(S(floordiv(i * 4 + j + 4, 4)), "i + 1");
  EXPECT_EQ(S(floordiv(i * 4 + 5, 4)), "i + 1");
  EXPECT_EQ(S(floormod(i * 4 + 5, 4)), "1");
  a.Bind(k, Range(0, 2));
  EXPECT_EQ(S(floordiv(i * 8 + j * 2 + k, 2)), "i * 4 + j");
  EXPECT_EQ(S(floormod(i * 8 + j * 2 + k, 2)), "k");
  EXPECT_EQ(S(floordiv(i * 8 + j * 2 + k, 8)), "i");
  EXPECT_EQ(S(floormod(i * 8 + j * 2 + k, 8)), "j * 2 + k");
}

TEST_F(SimplifyTest, FusePatterns) {
  a.Bind(i, Range(0, 16));
  a.Bind(j, Range(0, 8));
  a.Bind(k, Range(0, 4));
  // fused = i * 32 + j * 4 + k, taken apart the way fuse binds the original loops.
  PrimExpr fused = i * 32 + j * 4 + k;
  EXPECT_EQ(S(floordiv(fused, 32)), "i");
  EXPECT_EQ(S(floordiv(floormod(fused, 32), 4)), "j");
  EXPECT_EQ(S(floormod(fused, 4)), "k");
  // And put together again.
  EXPECT_EQ(S(floordiv(x, 8) * 8 + floormod(x, 8)), "x");
  EXPECT_EQ(S(floormod(x, 8) + floordiv(x, 8) * 8 + 1), "x + 1");
  EXPECT_EQ(S((floordiv(x, 8) * 8 + floormod(x, 8)) * 2), "x * 2");
}

TEST_F(SimplifyTest, DivModRules) {
  EXPECT_EQ(S(floormod(x, 1)), "0");
  EXPECT_EQ(S(tir::FloorDiv(x, IntImm(DataType::Int(32), 1))), "x");
  EXPECT_EQ(S(floordiv(floordiv(x, 4), 2)), "x // 8");
  EXPECT_EQ(S(floormod(floormod(x, 8), 4)), "x % 4");
  EXPECT_EQ(S(floordiv(floormod(x, 8), 4)), "x // 4 % 2");
  EXPECT_EQ(S(floordiv(x * 4 + y * 8, 4)), "x + y * 2");
  EXPECT_EQ(S(floordiv(x + 8, 4)), "x // 4 + 2");
  EXPECT_EQ(S(floormod(x + 9, 4)), "(x + 1) % 4");
  // Not simplifiable without bounds: kept as written.
  EXPECT_EQ(S(floordiv(x * 4 + y, 4)), "x + y // 4");
  EXPECT_EQ(S(floormod(x * 4 + y, 4)), "y % 4");
  a.Bind(x, Range(0, 8));
  EXPECT_EQ(S(floordiv(x, 8)), "0");
  EXPECT_EQ(S(floormod(x, 8)), "x");
  EXPECT_EQ(S(floormod(x, 16)), "x");
  EXPECT_EQ(S(floordiv(x + 8, 8)), "1");
  EXPECT_EQ(S(floormod(x + 8, 8)), "x");
  // Truncating division of non-negative values behaves like floordiv.
  EXPECT_EQ(S(tir::Div(x, IntImm(DataType::Int(32), 8))), "0");
  EXPECT_EQ(S(tir::Mod(x, IntImm(DataType::Int(32), 8))), "x");
}

TEST_F(SimplifyTest, MinMaxWithBounds) {
  a.Bind(i, Range(0, 8));
  EXPECT_EQ(S(tir::min(i, 8)), "i");
  EXPECT_EQ(S(tir::min(i, 7)), "i");
  EXPECT_EQ(S(tir::max(i, 0)), "i");
  EXPECT_EQ(S(tir::max(i, 8)), "8");
  EXPECT_EQ(S(tir::min(i, 5)), "T.min(i, 5)");
  EXPECT_EQ(S(tir::min(x, x)), "x");
  EXPECT_EQ(S(tir::max(x + 1, x)), "x + 1");
  EXPECT_EQ(S(tir::min(x * 4 + 3, x * 4)), "x * 4");
}

TEST_F(SimplifyTest, ComparisonsWithBounds) {
  a.Bind(i, Range(0, 4));
  a.Bind(j, Range(0, 4));
  EXPECT_EQ(S(i * 4 + j < 16), "True");
  EXPECT_EQ(S(i * 4 + j < 15), "i * 4 + j < 15");
  EXPECT_EQ(S(i >= 0), "True");
  EXPECT_EQ(S(i > 3), "False");
  EXPECT_EQ(S(x == x), "True");
  EXPECT_EQ(S(x + 1 != x), "True");
  EXPECT_EQ(S((i < 8) && (x < 3)), "x < 3");
  EXPECT_EQ(S((i < 0) || (x < 3)), "x < 3");
}

TEST_F(SimplifyTest, ComparisonNormalFormAsTvm) {
  // TVM's rewrite rules: >= and > turn around, constants move to one side, x < y + 1 is x <= y
  // and a common factor is divided out.
  a.Bind(i, Range(0, 28));
  a.Bind(j, Range(0, 10));
  EXPECT_EQ(S(i - 16 >= 0), "16 <= i");
  EXPECT_EQ(S(i * 8 - 1 + j >= 0), "1 <= i * 8 + j");
  EXPECT_EQ(S(i * 8 - 1 + j < 224), "i * 8 + j < 225");
  EXPECT_EQ(S(x > y), "y < x");
  EXPECT_EQ(S(x + 3 < 10), "x < 7");
  EXPECT_EQ(S(PrimExpr(2) < x + 5), "-3 < x");
  EXPECT_EQ(S(PrimExpr(9) - x < 4), "5 < x");
  EXPECT_EQ(S(x < y + 1), "x <= y");
  EXPECT_EQ(S(x + 2 < y + 5), "x < y + 3");
  EXPECT_EQ(S(x * 4 < 10), "x < 3");
  EXPECT_EQ(S(x * 4 + y * 8 < 16), "x + y * 2 < 4");
  EXPECT_EQ(S(floordiv(x, 4) < 3), "x < 12");
  EXPECT_EQ(S(tir::Not(x < y)), "y <= x");
  EXPECT_EQ(S(tir::Not(x <= y)), "y < x");
  EXPECT_EQ(S(i * 4 + j < 15), "i * 4 + j < 15");  // nothing to move
}

TEST_F(SimplifyTest, DivModByAMultipleOfTheCoefficient) {
  // (x * k + y) // c with k | c and y in [0, k): x // (c / k); the matching % rule.
  a.Bind(i, Range(0, 8));
  a.Bind(j, Range(0, 8));
  EXPECT_EQ(S(floordiv(i * 8 + 7, 16)), "i // 2");
  EXPECT_EQ(S(floordiv(i * 8, 16)), "i // 2");
  EXPECT_EQ(S(floordiv(i * 8 + j, 16)), "i // 2");
  EXPECT_EQ(S(floormod(i * 8 + j, 16)), "i % 2 * 8 + j");
  EXPECT_EQ(S(floordiv(i * 8 + j, 16) * 16 + floormod(i * 8 + j, 16)), "i * 8 + j");
  // The coefficients' remainders settle the quotient: c_o * 360 // 16 for c_o in [0, 2).
  Var c("c");
  a.Bind(c, Range(0, 2));
  EXPECT_EQ(S(floordiv(c * 360 + 359, 16) - floordiv(c * 360, 16) + 1), "23");
}

TEST_F(SimplifyTest, DivisorAssumedNonZeroAsTvm) {
  // A shape variable n >= 0 divides as if n >= 1 (dividing by 0 is undefined, as TVM assumes).
  a.Bind(n, Range(0, 1 << 20));
  a.Bind(i, Range(0, n * 32));
  EXPECT_EQ(S(floordiv(n * 32 - 1, n)), "31");
  EXPECT_EQ(S(floormod(n * 32 - 1, n)), "n - 1");
  EXPECT_TRUE(a.CanProve(0 <= floordiv(i, n)));
  EXPECT_TRUE(a.CanProve(floordiv(i, n) < 32));
  EXPECT_TRUE(a.CanProve(0 <= floormod(i, n)));
  EXPECT_TRUE(a.CanProve(floormod(i, n) < n));
  EXPECT_FALSE(a.CanProve(floordiv(i, n) < 31));
}

TEST_F(SimplifyTest, MinMaxAbsorption) {
  EXPECT_EQ(S(tir::min(tir::max(x, y), x)), "x");
  EXPECT_EQ(S(tir::min(y, tir::max(x, y))), "y");
  EXPECT_EQ(S(tir::max(tir::min(x, y), x)), "x");
  EXPECT_EQ(S(tir::min(tir::max(n * 32 - 1, 0), n * 32 - 1)), "n * 32 - 1");
}

TEST_F(SimplifyTest, SymbolicBoundsProveLoopConditions) {
  a.Bind(i, Range(0, n));
  EXPECT_EQ(S(i < n), "True");
  EXPECT_EQ(S(n - i >= 1), "True");
  EXPECT_EQ(S(tir::min(i, n - 1)), "i");
  EXPECT_TRUE(a.CanProve(i + 1 <= n));
  EXPECT_FALSE(a.CanProve(i + 2 <= n));
}

TEST_F(SimplifyTest, SymbolicDivisorOfAFusedIndex) {
  // fuse(i, j) with a symbolic inner extent n: fused = i * n + j, j in [0, n).
  a.Bind(n, Range(1, 64));
  a.Bind(j, Range(0, n));
  EXPECT_EQ(S(floordiv(i * n + j, n)), "i");
  EXPECT_EQ(S(floormod(i * n + j, n)), "j");
  EXPECT_EQ(S(floordiv(n * i, n)), "i");
  EXPECT_EQ(S(floordiv(n, n)), "1");
  EXPECT_EQ(S(floordiv(i * n + j + 1, n)), "(i * n + j + 1) // n");  // j + 1 may reach n
  EXPECT_TRUE(a.CanProve(j < n));
}

TEST_F(SimplifyTest, BindValueSubstitutes) {
  a.Bind(y, x * 2 + 1);
  EXPECT_EQ(S(y - x), "x + 1");
  // A loop of one iteration pins its variable.
  a.Bind(k, Range(3, 1));
  EXPECT_EQ(S(k + 1), "4");
}

TEST_F(SimplifyTest, FloatExpressionsOnlyFold) {
  Var f("f", DataType::Float(32));
  EXPECT_EQ(S(f * 1.0f), "f * 1");
  EXPECT_EQ(S(f + 0.0f), "f + 0");
  EXPECT_EQ(S(tir::Sub(f, f)), "f - f");
  EXPECT_EQ(S(tir::Add(FloatImm(DataType::Float(32), 1.5), FloatImm(DataType::Float(32), 2.0))),
            "3.5");
  // Integer indices inside a float expression are still simplified.
  tir::Buffer A = tir::decl_buffer({16}, DataType::Float(32), "A");
  PrimExpr index =
      tir::Add(tir::Mul(i, IntImm(DataType::Int(32), 1)), IntImm(DataType::Int(32), 0));
  PrimExpr load = A({index}) * tir::Mul(f, FloatImm(DataType::Float(32), 1.0));
  EXPECT_EQ(S(load), "A[i] * (f * 1)");
}

TEST_F(SimplifyTest, Int64AndOverflowAreSafe) {
  Var big("big", DataType::Int(64));
  EXPECT_EQ(S(big * 2 + big), "big * 3");
  // int32 results that do not fit are left unfolded instead of throwing.
  PrimExpr huge = tir::Mul(IntImm(DataType::Int(32), 1 << 20), IntImm(DataType::Int(32), 1 << 20));
  EXPECT_NO_THROW(a.Simplify(huge));
}

TEST_F(SimplifyTest, BindTwiceNeedsOverride) {
  a.Bind(i, Range(0, 8));
  EXPECT_NO_THROW(a.Bind(i, Range(0, 8)));  // the same range again is fine
  EXPECT_MINITVM_ERROR(a.Bind(i, Range(0, 16)), "ValueError", "variable i is already bound");
  a.Bind(i, Range(0, 16), /*allow_override=*/true);
  EXPECT_EQ(a.const_int_bound(i).max_value, 15);
}

TEST_F(SimplifyTest, RegisteredGlobals) {
  auto simplify = runtime::Registry::GetOrThrow("arith.Simplify");
  PrimExpr e = simplify(tir::Sub(x, x)).cast<PrimExpr>();
  EXPECT_EQ(ExprStr(e), "0");
  auto create = runtime::Registry::GetOrThrow("arith.CreateAnalyzer");
  ObjectRef an = create().cast<ObjectRef>();
  runtime::Registry::GetOrThrow("arith.AnalyzerBind")(an, i, Range(0, 4), false);
  EXPECT_TRUE(runtime::Registry::GetOrThrow("arith.AnalyzerCanProve")(an, i < 4).cast<bool>());
  ObjectRef bound =
      runtime::Registry::GetOrThrow("arith.AnalyzerConstIntBound")(an, i * 2).cast<ObjectRef>();
  EXPECT_EQ(runtime::GetField(bound.get(), "max_value").cast<int64_t>(), 6);
}

}  // namespace
}  // namespace minitvm
