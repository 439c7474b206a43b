/*!
 * \file arith_bound_test.cc
 * \brief Constant bounds (const_int_bound), symbolic interval sets (int_set) and CanProve:
 * the questions region inference and legality checks ask.
 */
#include <gtest/gtest.h>

#include "minitvm/arith/analyzer.h"
#include "minitvm/arith/int_eval.h"
#include "minitvm/ir/structural.h"
#include "minitvm_test_util.h"
#include "test_util.h"

namespace minitvm {
namespace {

using arith::Analyzer;
using arith::ConstIntBound;
using arith::IntSet;
using testing::ExprStr;
using tir::floordiv;
using tir::floormod;
using tir::Var;

std::string B(Analyzer& a, const PrimExpr& e) {
  ConstIntBound b = a.const_int_bound(e);
  auto show = [](int64_t v) {
    if (v == ConstIntBound::kPosInf) return std::string("+inf");
    if (v == ConstIntBound::kNegInf) return std::string("-inf");
    return std::to_string(v);
  };
  return "[" + show(b.min_value) + ", " + show(b.max_value) + "]";
}

std::string SetStr(const IntSet& s) {
  return "[" + (s.HasLowerBound() ? ExprStr(s.min()) : std::string("-inf")) + ", " +
         (s.HasUpperBound() ? ExprStr(s.max()) : std::string("+inf")) + "]";
}

TEST(ConstIntBoundTest, Propagation) {
  Analyzer a;
  Var i("i"), j("j"), k("k");
  a.Bind(i, Range(0, 8));
  a.Bind(j, Range(-3, 6));  // [-3, 2]
  EXPECT_EQ(B(a, i), "[0, 7]");
  EXPECT_EQ(B(a, i + j), "[-3, 9]");
  EXPECT_EQ(B(a, i - j), "[-2, 10]");
  EXPECT_EQ(B(a, i * j), "[-21, 14]");
  EXPECT_EQ(B(a, i * -2), "[-14, 0]");
  EXPECT_EQ(B(a, floordiv(i, 3)), "[0, 2]");
  EXPECT_EQ(B(a, floordiv(j, 2)), "[-2, 1]");
  EXPECT_EQ(B(a, floormod(j, 4)), "[0, 3]");
  EXPECT_EQ(B(a, floormod(i, 16)), "[0, 7]");
  EXPECT_EQ(B(a, tir::min(i, j)), "[-3, 2]");
  EXPECT_EQ(B(a, tir::max(i, j)), "[0, 7]");
  EXPECT_EQ(B(a, tir::select(i < 3, i, j * 10)), "[-30, 20]");
  EXPECT_EQ(B(a, tir::cast(DataType::Int(64), i)), "[0, 7]");
  EXPECT_EQ(B(a, i < 3), "[0, 1]");
  // Unbound variables take their dtype's range; int64 is unbounded.
  EXPECT_EQ(B(a, k), "[-2147483648, 2147483647]");
  EXPECT_EQ(B(a, Var("big", DataType::Int(64))), "[-inf, +inf]");
  EXPECT_EQ(B(a, tir::SizeVar("n")), "[0, 2147483647]");
  // The canonical form makes x - x exact.
  EXPECT_EQ(B(a, k - k), "[0, 0]");
}

TEST(ConstIntBoundTest, SymbolicRangeOfBoundVar) {
  Analyzer a;
  Var i("i"), j("j");
  a.Bind(i, Range(0, 4));
  a.Bind(j, Range(i * 4, 4));  // j in [i * 4, i * 4 + 3]
  EXPECT_EQ(B(a, j), "[0, 15]");
}

TEST(IntSetTest, AffineOverDomain) {
  Analyzer a;
  Var i0("i0"), i1("i1"), n("n");
  std::unordered_map<const tir::VarNode*, IntSet> dom{{i1.get(), IntSet::FromRange(Range(0, 4))}};
  EXPECT_EQ(SetStr(a.int_set(i0 * 4 + i1, dom)), "[i0 * 4, i0 * 4 + 3]");
  EXPECT_EQ(SetStr(a.int_set(i0 * 4 - i1, dom)), "[i0 * 4 - 3, i0 * 4]");
  EXPECT_EQ(SetStr(a.int_set(i1 * -2 + 1, dom)), "[-5, 1]");
  EXPECT_EQ(SetStr(a.int_set(floordiv(i0 * 4 + i1, 2), dom)), "[i0 * 2, i0 * 2 + 1]");
  EXPECT_EQ(SetStr(a.int_set(floormod(i1 + 1, 8), dom)), "[1, 4]");
  EXPECT_EQ(SetStr(a.int_set(tir::min(i1, 2), dom)), "[0, 2]");
  // A point stays a single point.
  IntSet p = a.int_set(i0 * 2, dom);
  EXPECT_TRUE(p.IsSinglePoint());
  // Symbolic domains.
  std::unordered_map<const tir::VarNode*, IntSet> sym{{i1.get(), IntSet::FromRange(Range(0, n))}};
  EXPECT_EQ(SetStr(a.int_set(i1 + 1, sym)), "[1, n]");
  EXPECT_EQ(ExprStr(a.int_set(i1, sym).CoverRange(Range(0, 1))->extent), "n");
}

TEST(IntSetTest, NonAffineFallsBackToConstantBounds) {
  Analyzer a;
  Var i("i"), j("j");
  a.Bind(i, Range(0, 4));
  a.Bind(j, Range(0, 4));
  std::unordered_map<const tir::VarNode*, IntSet> dom{{i.get(), IntSet::FromRange(Range(0, 4))},
                                                      {j.get(), IntSet::FromRange(Range(0, 4))}};
  EXPECT_EQ(SetStr(a.int_set(i * j, dom)), "[0, 9]");
  // With no dom map the analyzer's own ranges are the domain.
  EXPECT_EQ(SetStr(a.int_set(i * 4 + j)), "[0, 15]");
}

TEST(IntSetTest, CoverRangeOfBlockRead) {
  // compute_at: a consumer reads A[vi * 4 + k] for k in [0, 4): the region is 4 wide.
  Analyzer a;
  Var vi("vi"), k("k");
  std::unordered_map<const tir::VarNode*, IntSet> dom{{k.get(), IntSet::FromRange(Range(0, 4))}};
  Range r = a.int_set(vi * 4 + k, dom).CoverRange(Range(0, 1));
  EXPECT_EQ(ExprStr(r->min), "vi * 4");
  EXPECT_EQ(ExprStr(r->extent), "4");
  // A point covers one element.
  Range one = a.int_set(vi + 1, dom).CoverRange(Range(0, 1));
  EXPECT_EQ(ExprStr(one->extent), "1");
  // Unbounded: the fallback.
  Range fallback = IntSet::Everything().CoverRange(Range(0, 16));
  EXPECT_EQ(ExprStr(fallback->extent), "16");
}

TEST(CanProveTest, Facts) {
  Analyzer a;
  Var i("i"), j("j"), x("x");
  a.Bind(i, Range(0, 16));
  a.Bind(j, Range(0, 4));
  EXPECT_TRUE(a.CanProve(i >= 0));
  EXPECT_TRUE(a.CanProve(i < 16));
  EXPECT_FALSE(a.CanProve(i < 15));
  EXPECT_TRUE(a.CanProve(floordiv(i, 4) * 4 + j < 16));
  EXPECT_TRUE(a.CanProve((i >= 0) && (j < 4)));
  EXPECT_TRUE(a.CanProve((x < 0) || (j < 4)));
  EXPECT_FALSE(a.CanProve(x < 0));
  EXPECT_TRUE(a.CanProveEqual(floordiv(i * 4 + j, 4), i));
  EXPECT_TRUE(a.CanProveEqual(x * 2 + x, x * 3));
  EXPECT_FALSE(a.CanProveEqual(x, x + 1));
  EXPECT_TRUE(a.CanProveGreaterEqual(i * 2 + j, 0));
  EXPECT_TRUE(a.CanProveLess(i * 4 + j, 64));
  EXPECT_FALSE(a.CanProveLess(i * 4 + j, 63));
  // Divisibility, as split checks it.
  EXPECT_TRUE(a.CanProve(floormod(PrimExpr(128), 4) == 0));
  EXPECT_TRUE(a.CanProve(floormod(x * 8, 4) == 0));
  EXPECT_FALSE(a.CanProve(floormod(x * 6, 4) == 0));
  // Floats are never proven.
  Var f("f", DataType::Float(32));
  EXPECT_FALSE(a.CanProve(f < f + 1.0f));
}

TEST(IntEvalTest, Semantics) {
  Var x("x");
  arith::IntEnv env{{x.get(), -7}};
  EXPECT_EQ(arith::EvalIntExpr(floordiv(x, 2), env), -4);
  EXPECT_EQ(arith::EvalIntExpr(floormod(x, 2), env), 1);
  EXPECT_EQ(arith::EvalIntExpr(tir::truncdiv(x, 2), env), -3);
  EXPECT_EQ(arith::EvalIntExpr(tir::truncmod(x, 2), env), -1);
  EXPECT_EQ(arith::EvalIntExpr(tir::cast(DataType::Int(8), x * 100), env), 68);  // wraps
  EXPECT_EQ(arith::EvalIntExpr(tir::Let(Var("t"), x, x * 2), env), -14);
  EXPECT_MINITVM_ERROR(arith::EvalIntExpr(floordiv(x, x + 7), env), "ValueError",
                       "division by zero");
  EXPECT_MINITVM_ERROR(arith::EvalIntExpr(Var("free"), env), "ValueError",
                       "no value for variable free");
}

}  // namespace
}  // namespace minitvm
