/*!
 * \file arith_property_test.cc
 * \brief Property tests of the arithmetic: on seeded random integer expressions (biased to
 * the split/fuse shapes) and random variable values inside the bound ranges,
 *  - the simplified expression evaluates to the same value as the original,
 *  - simplifying again changes nothing (the printed form is stable),
 *  - const_int_bound contains every value, int_set's symbolic ends enclose every value,
 *  - whatever CanProve claims holds at every sample.
 * Counts are bounded so the whole file runs well under a second.
 */
#include <gtest/gtest.h>

#include "minitvm/arith/analyzer.h"
#include "minitvm/arith/int_eval.h"
#include "minitvm/ir/structural.h"
#include "test_util.h"

namespace minitvm {
namespace {

using arith::Analyzer;
using arith::EvalIntExpr;
using arith::IntEnv;
using testing::ExprStr;
using testing::RandomExprGen;
using testing::RangedVar;
using tir::Var;

constexpr int kExprs = 400;
constexpr int kSamples = 24;

/*! \brief The value of e at env, or nullopt when the evaluation divides by zero. */
std::optional<int64_t> TryEval(const PrimExpr& e, const IntEnv& env) {
  try {
    return EvalIntExpr(e, env);
  } catch (const Error&) {
    return std::nullopt;
  }
}

class ArithPropertyTest : public ::testing::Test {
 protected:
  ArithPropertyTest() {
    vars_ = {
        {Var("x"), 0, 16}, {Var("y"), 0, 8}, {Var("z"), 0, 4}, {Var("w"), -6, 6}, {Var("v"), 0, 2}};
    for (const RangedVar& rv : vars_)
      analyzer_.Bind(rv.var, Range(PrimExpr(static_cast<int>(rv.lo)),
                                   PrimExpr(static_cast<int>(rv.hi - rv.lo))));
  }
  IntEnv Sample(RandomExprGen& gen) {
    IntEnv env;
    for (const RangedVar& rv : vars_) env[rv.var.get()] = gen.Uniform(rv.lo, rv.hi - 1);
    return env;
  }
  std::vector<RangedVar> vars_;
  Analyzer analyzer_;
};

TEST_F(ArithPropertyTest, SimplifyPreservesValues) {
  RandomExprGen gen(vars_, 20240601);
  int checked = 0;
  for (int n = 0; n < kExprs; ++n) {
    PrimExpr e = gen.Gen(4);
    PrimExpr s = analyzer_.Simplify(e);
    for (int t = 0; t < kSamples; ++t) {
      IntEnv env = Sample(gen);
      auto before = TryEval(e, env);
      if (!before) continue;
      auto after = TryEval(s, env);
      ASSERT_TRUE(after.has_value()) << ExprStr(e) << "\n  simplified to " << ExprStr(s);
      ASSERT_EQ(*before, *after) << ExprStr(e) << "\n  simplified to " << ExprStr(s);
      ++checked;
    }
  }
  EXPECT_GT(checked, kExprs * kSamples / 2);
}

TEST_F(ArithPropertyTest, SimplifyIsIdempotent) {
  RandomExprGen gen(vars_, 7);
  for (int n = 0; n < kExprs; ++n) {
    PrimExpr e = gen.Gen(4);
    PrimExpr s = analyzer_.Simplify(e);
    PrimExpr s2 = analyzer_.Simplify(s);
    EXPECT_EQ(ExprStr(s), ExprStr(s2)) << "from " << ExprStr(e);
  }
}

TEST_F(ArithPropertyTest, ConstIntBoundContainsValues) {
  RandomExprGen gen(vars_, 99);
  for (int n = 0; n < kExprs; ++n) {
    PrimExpr e = gen.Gen(4);
    arith::ConstIntBound b = analyzer_.const_int_bound(e);
    ASSERT_LE(b.min_value, b.max_value) << ExprStr(e);
    for (int t = 0; t < kSamples; ++t) {
      auto v = TryEval(e, Sample(gen));
      if (!v) continue;
      ASSERT_GE(*v, b.min_value) << ExprStr(e);
      ASSERT_LE(*v, b.max_value) << ExprStr(e);
    }
  }
}

TEST_F(ArithPropertyTest, IntSetEnclosesValues) {
  RandomExprGen gen(vars_, 4242);
  // x and z range over their sets; y, w, v stay symbolic (single points).
  std::unordered_map<const tir::VarNode*, arith::IntSet> dom;
  dom[vars_[0].var.get()] = arith::IntSet::FromRange(Range(0, 16));
  dom[vars_[2].var.get()] = arith::IntSet::FromRange(Range(0, 4));
  int bounded = 0;
  for (int n = 0; n < kExprs; ++n) {
    PrimExpr e = gen.Gen(3);
    arith::IntSet set = analyzer_.int_set(e, dom);
    if (set.HasLowerBound() && set.HasUpperBound()) ++bounded;
    for (int t = 0; t < kSamples; ++t) {
      IntEnv env = Sample(gen);
      auto v = TryEval(e, env);
      if (!v) continue;
      if (set.HasLowerBound()) {
        auto lo = TryEval(set.min(), env);
        ASSERT_TRUE(lo.has_value()) << ExprStr(set.min());
        ASSERT_LE(*lo, *v) << ExprStr(e) << " has lower end " << ExprStr(set.min());
      }
      if (set.HasUpperBound()) {
        auto hi = TryEval(set.max(), env);
        ASSERT_TRUE(hi.has_value()) << ExprStr(set.max());
        ASSERT_GE(*hi, *v) << ExprStr(e) << " has upper end " << ExprStr(set.max());
      }
    }
  }
  EXPECT_GT(bounded, kExprs / 2);
}

TEST_F(ArithPropertyTest, CanProveIsSound) {
  RandomExprGen gen(vars_, 31337);
  int proven = 0;
  for (int n = 0; n < kExprs; ++n) {
    PrimExpr a = gen.Gen(3), b = gen.Gen(2);
    PrimExpr cond;
    switch (gen.Uniform(0, 3)) {
      case 0:
        cond = a < b;
        break;
      case 1:
        cond = a <= b;
        break;
      case 2:
        cond = a >= PrimExpr(static_cast<int>(gen.Uniform(-4, 4)));
        break;
      default:
        cond = a == b;
        break;
    }
    if (!cond.as<tir::LTNode>() && !cond.as<tir::LENode>() && !cond.as<tir::GENode>() &&
        !cond.as<tir::EQNode>()) {
      continue;  // folded while building
    }
    if (!analyzer_.CanProve(cond)) continue;
    ++proven;
    for (int t = 0; t < kSamples; ++t) {
      auto v = TryEval(cond, Sample(gen));
      if (v) {
        ASSERT_EQ(*v, 1) << ExprStr(cond);
      }
    }
  }
  EXPECT_GT(proven, 10);
}

TEST_F(ArithPropertyTest, SplitAndFuseRoundTrip) {
  // For every split factor: substituting i = i0 * f + i1 and reading i back gives i0 and i1.
  RandomExprGen gen(vars_, 5);
  for (int64_t extent : {8, 12, 16, 30}) {
    for (int64_t f = 2; f < extent; ++f) {  // f == extent pins i0 to 0
      Analyzer a;
      Var i0("i0"), i1("i1");
      int64_t outer = (extent + f - 1) / f;
      a.Bind(i0, Range(0, PrimExpr(static_cast<int>(outer))));
      a.Bind(i1, Range(0, PrimExpr(static_cast<int>(f))));
      PrimExpr i = i0 * PrimExpr(static_cast<int>(f)) + i1;
      PrimExpr back0 = a.Simplify(tir::floordiv(i, PrimExpr(static_cast<int>(f))));
      PrimExpr back1 = a.Simplify(tir::floormod(i, PrimExpr(static_cast<int>(f))));
      EXPECT_TRUE(ExprDeepEqual(back0, i0)) << "f=" << f << ": " << ExprStr(back0);
      EXPECT_TRUE(ExprDeepEqual(back1, i1)) << "f=" << f << ": " << ExprStr(back1);
      arith::IntSet set = a.int_set(
          i, {{i1.get(), arith::IntSet::FromRange(Range(0, PrimExpr(static_cast<int>(f))))}});
      Range cover = set.CoverRange(Range(0, 1));
      EXPECT_EQ(ExprStr(cover->extent), std::to_string(f));
      EXPECT_EQ(ExprStr(cover->min), "i0 * " + std::to_string(f));
    }
  }
}

}  // namespace
}  // namespace minitvm
