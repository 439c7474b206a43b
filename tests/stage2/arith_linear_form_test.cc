/*!
 * \file arith_linear_form_test.cc
 * \brief The shared affine vocabulary (stage 2, minitvm/arith/linear_form.h): linear forms over
 * variables, affine forms with atoms, relaxation over intervals — random expressions are
 * checked against direct evaluation.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <unordered_map>

#include "minitvm/arith/int_eval.h"
#include "minitvm/arith/linear_form.h"
#include "minitvm/ir/structural.h"
#include "minitvm_test_util.h"
#include "test_util.h"

namespace minitvm {
namespace {

using arith::AffineRelaxer;
using arith::IntSet;
using arith::LinearForm;
using arith::ToAffineForm;
using arith::ToLinearForm;
using testing::ExprStr;
using tir::floordiv;
using tir::floormod;
using tir::Var;

TEST(LinearFormTest, VariablesAndConstants) {
  Var i("i"), j("j");
  auto f = ToLinearForm(i * 8 + j - 3 + (i - j) * 2);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->Coeff(i), 10);
  EXPECT_EQ(f->Coeff(j), -1);
  EXPECT_EQ(f->constant, -3);
  EXPECT_EQ(ExprStr(f->ToExpr()), "i * 10 - j - 3");
  // Terms that cancel disappear.
  auto g = ToLinearForm(i + j - i);
  ASSERT_TRUE(g.has_value());
  ASSERT_EQ(g->terms.size(), 1u);
  EXPECT_TRUE(g->terms[0].first.same_as(j));
  // Integer casts are looked through; non-affine expressions have no linear form.
  EXPECT_TRUE(ToLinearForm(tir::cast(DataType::Int(64), i) * 2).has_value());
  EXPECT_FALSE(ToLinearForm(i * j).has_value());
  EXPECT_FALSE(ToLinearForm(floordiv(i, 2)).has_value());
  EXPECT_FALSE(ToLinearForm(tir::make_const(DataType::Float(32), 1.0)).has_value());
}

TEST(LinearFormTest, AtomsAreDeepEqualSubExpressions) {
  Var i("i"), j("j");
  LinearForm f = ToAffineForm(floordiv(i, 4) * 3 + j - floordiv(i, 4));
  ASSERT_EQ(f.terms.size(), 2u);
  EXPECT_EQ(f.Coeff(floordiv(i, 4)), 2);
  EXPECT_EQ(f.Coeff(j), 1);
  EXPECT_EQ(arith::ConstDifference(i * 2 + 7, i + i + 3), 4);
  EXPECT_FALSE(arith::ConstDifference(i, j).has_value());
  EXPECT_TRUE(f.Equals(ToAffineForm(j + floordiv(i, 4) * 2)));
  EXPECT_FALSE(f.Equals(ToAffineForm(j + floordiv(i, 4))));
}

TEST(LinearFormTest, RelaxMatchesEvaluation) {
  // Random affine combinations of two loop variables and a floordiv/floormod term: the relaxed
  // interval holds every value the expression takes, and its ends are taken.
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> coef(-4, 4), ext(1, 6), pick(0, 2);
  Var i("i"), j("j");
  for (int trial = 0; trial < 200; ++trial) {
    int ei = ext(rng), ej = ext(rng), ci = coef(rng), cj = coef(rng), c0 = coef(rng);
    PrimExpr e = i * ci + j * cj + c0;
    int kind = pick(rng);
    if (kind == 1) e = e + floordiv(j, 2) * ci;
    if (kind == 2) e = e + floormod(i, 3);
    AffineRelaxer r;
    r.PushRange(i.get(), Range(0, ei));
    r.PushRange(j.get(), Range(0, ej));
    IntSet s = r.Relax(e);
    ASSERT_TRUE(s.HasLowerBound() && s.HasUpperBound()) << ExprStr(e);
    int64_t lo = arith::EvalIntExpr(s.min(), {}), hi = arith::EvalIntExpr(s.max(), {});
    int64_t seen_lo = INT64_MAX, seen_hi = INT64_MIN;
    for (int vi = 0; vi < ei; ++vi) {
      for (int vj = 0; vj < ej; ++vj) {
        int64_t v = arith::EvalIntExpr(e, {{i.get(), vi}, {j.get(), vj}});
        seen_lo = std::min(seen_lo, v);
        seen_hi = std::max(seen_hi, v);
      }
    }
    EXPECT_LE(lo, seen_lo) << ExprStr(e);
    EXPECT_GE(hi, seen_hi) << ExprStr(e);
    if (kind == 0) {
      EXPECT_EQ(lo, seen_lo) << ExprStr(e);
      EXPECT_EQ(hi, seen_hi) << ExprStr(e);
    }
  }
}

TEST(LinearFormTest, RelaxKeepsOtherVariablesSymbolic) {
  Var io("io"), ii("ii");
  Range r = arith::RelaxIndex(io * 4 + ii, {{ii, Range(0, 4)}}, Range(0, 99));
  EXPECT_EQ(ExprStr(r->min), "io * 4");
  EXPECT_EQ(ExprStr(r->extent), "4");
  // A product of two relaxed variables is not understood: the fallback is returned.
  Range f = arith::RelaxIndex(io * ii, {{ii, Range(0, 4)}, {io, Range(0, 4)}}, Range(0, 99));
  EXPECT_EQ(ExprStr(f->extent), "99");
}

TEST(LinearFormTest, RelaxRangeUsesTheAnalyzer) {
  Var i("i"), k("k");
  arith::Analyzer analyzer;
  std::unordered_map<const tir::VarNode*, IntSet> dom;
  dom[k.get()] = IntSet::FromRange(Range(0, 8));
  auto r = arith::RelaxRange(&analyzer, i * 8 + k, 1, dom);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(ExprStr((*r)->min), "i * 8");
  EXPECT_EQ(ExprStr((*r)->extent), "8");
}

}  // namespace
}  // namespace minitvm
