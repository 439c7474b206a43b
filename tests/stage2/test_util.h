/*!
 * \file test_util.h
 * \brief Helpers for the stage 2 tests: a compact infix printer for expressions (so that the
 * tests read like the math and do not depend on the TVMScript printer), and a seeded random
 * generator of integer expressions for the property tests of the arithmetic.
 */
#ifndef MINITVM_TESTS_STAGE2_TEST_UTIL_H_
#define MINITVM_TESTS_STAGE2_TEST_UTIL_H_

#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/tir/expr.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace testing {

/*! \brief Print an expression in Python-like infix: `i * 4 + j`, `x // 8`, `T.min(a, b)`. */
inline std::string ExprStr(const PrimExpr& e) {
  using namespace tir;  // NOLINT(build/namespaces)
  struct Printer {
    // Precedence: higher binds tighter (Python's order).
    static int Prec(const PrimExpr& e) {
      if (e.as<OrNode>()) return 1;
      if (e.as<AndNode>()) return 2;
      if (e.as<NotNode>()) return 3;
      if (e.as<EQNode>() || e.as<NENode>() || e.as<LTNode>() || e.as<LENode>() || e.as<GTNode>() ||
          e.as<GENode>()) {
        return 4;
      }
      if (e.as<AddNode>() || e.as<SubNode>()) return 5;
      if (e.as<MulNode>() || e.as<DivNode>() || e.as<ModNode>() || e.as<FloorDivNode>() ||
          e.as<FloorModNode>()) {
        return 6;
      }
      if (auto* i = e.as<IntImmNode>(); i && i->value < 0) return 7;
      return 9;
    }
    static std::string Binary(const BinaryOpNode* op, const char* sym, int prec) {
      std::string a = Print(op->a), b = Print(op->b);
      if (Prec(op->a) < prec) a = "(" + a + ")";
      if (Prec(op->b) <= prec) b = "(" + b + ")";
      return a + " " + sym + " " + b;
    }
    static std::string Print(const PrimExpr& e) {
      if (!e.defined()) return "<undefined>";
      if (auto* v = e.as<VarNode>()) return v->name_hint;
      if (auto* i = e.as<IntImmNode>()) {
        if (i->dtype.is_bool()) return i->value ? "True" : "False";
        return std::to_string(i->value);
      }
      if (auto* f = e.as<FloatImmNode>()) {
        std::ostringstream os;
        os << f->value;
        return os.str();
      }
      if (auto* op = e.as<AddNode>()) return Binary(op, "+", 5);
      if (auto* op = e.as<SubNode>()) return Binary(op, "-", 5);
      if (auto* op = e.as<MulNode>()) return Binary(op, "*", 6);
      if (auto* op = e.as<FloorDivNode>()) return Binary(op, "//", 6);
      if (auto* op = e.as<FloorModNode>()) return Binary(op, "%", 6);
      if (auto* op = e.as<DivNode>()) return Binary(op, "/", 6);
      if (auto* op = e.as<ModNode>()) return Binary(op, "truncmod", 6);
      if (auto* op = e.as<EQNode>()) return Binary(op, "==", 4);
      if (auto* op = e.as<NENode>()) return Binary(op, "!=", 4);
      if (auto* op = e.as<LTNode>()) return Binary(op, "<", 4);
      if (auto* op = e.as<LENode>()) return Binary(op, "<=", 4);
      if (auto* op = e.as<GTNode>()) return Binary(op, ">", 4);
      if (auto* op = e.as<GENode>()) return Binary(op, ">=", 4);
      if (auto* op = e.as<AndNode>()) return Binary(op, "and", 2);
      if (auto* op = e.as<OrNode>()) return Binary(op, "or", 1);
      if (auto* op = e.as<NotNode>()) return "not " + Print(op->a);
      if (auto* op = e.as<MinNode>()) return "T.min(" + Print(op->a) + ", " + Print(op->b) + ")";
      if (auto* op = e.as<MaxNode>()) return "T.max(" + Print(op->a) + ", " + Print(op->b) + ")";
      if (auto* op = e.as<SelectNode>()) {
        return "T.Select(" + Print(op->condition) + ", " + Print(op->true_value) + ", " +
               Print(op->false_value) + ")";
      }
      if (auto* op = e.as<CastNode>()) {
        return "T.Cast(\"" + DataTypeToString(op->dtype) + "\", " + Print(op->value) + ")";
      }
      if (auto* op = e.as<LetNode>()) {
        return "T.Let(" + Print(op->body) + ", where={" + op->var->name_hint.str() + ": " +
               Print(op->value) + "})";
      }
      if (auto* op = e.as<BufferLoadNode>()) {
        std::string s = op->buffer->name.str() + "[";
        for (size_t i = 0; i < op->indices.size(); ++i) {
          s += (i ? ", " : "") + Print(op->indices[i]);
        }
        return s + "]";
      }
      if (auto* op = e.as<CallNode>()) {
        std::string s = op->op.str() + "(";
        for (size_t i = 0; i < op->args.size(); ++i) s += (i ? ", " : "") + Print(op->args[i]);
        return s + ")";
      }
      return e->GetTypeKey();
    }
  };
  return Printer::Print(e);
}

/*! \brief A variable with the range it takes in a property test: [lo, hi). */
struct RangedVar {
  tir::Var var;
  int64_t lo;
  int64_t hi;
};

/*!
 * \brief Seeded random integer expressions over a few ranged variables, biased towards the
 * shapes schedules produce (affine sums with constant coefficients, div/mod by constants,
 * split and fuse patterns), plus min/max/select for the bound analysis.
 */
class RandomExprGen {
 public:
  RandomExprGen(std::vector<RangedVar> vars, uint32_t seed) : vars_(std::move(vars)), rng_(seed) {}

  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  const RangedVar& AnyVar() { return vars_[Uniform(0, vars_.size() - 1)]; }

  /*! \brief A random expression of at most `depth` levels. */
  PrimExpr Gen(int depth) {
    if (depth <= 0 || Uniform(0, 9) < 2) return Leaf();
    switch (Uniform(0, 17)) {
      case 14:
        return tir::truncdiv(Gen(depth - 1), PrimExpr(static_cast<int>(Uniform(1, 6))));
      case 15:
        return tir::truncmod(Gen(depth - 1), PrimExpr(static_cast<int>(Uniform(1, 6))));
      case 16: {
        // A let whose variable is used twice, and a round trip through int64.
        tir::Var t("t");
        PrimExpr wide = tir::cast(DataType::Int(64), t) * PrimExpr(2);
        return tir::Let(t, Gen(depth - 1), t + tir::cast(DataType::Int(32), wide));
      }
      case 17:
        return tir::floordiv(Gen(depth - 1),
                             AnyVar().var + PrimExpr(static_cast<int>(Uniform(1, 3))));
      case 0:
      case 1:
        return Gen(depth - 1) + Gen(depth - 1);
      case 2:
        return Gen(depth - 1) - Gen(depth - 1);
      case 3:
        return Gen(depth - 1) * PrimExpr(static_cast<int>(Uniform(-3, 8)));
      case 4:
        return Gen(depth - 1) * Leaf();
      case 5:
        return tir::floordiv(Gen(depth - 1), PrimExpr(static_cast<int>(Uniform(1, 9))));
      case 6:
        return tir::floormod(Gen(depth - 1), PrimExpr(static_cast<int>(Uniform(1, 9))));
      case 7:
        return tir::min(Gen(depth - 1), Gen(depth - 1));
      case 8:
        return tir::max(Gen(depth - 1), Gen(depth - 1));
      case 9:
        return tir::select(Gen(depth - 1) < Gen(depth - 1), Gen(depth - 1), Gen(depth - 1));
      case 10:
        return SplitPattern();
      case 11:
        return FusePattern();
      case 12:
        return tir::floordiv(
            tir::floordiv(Gen(depth - 1), PrimExpr(static_cast<int>(Uniform(1, 4)))),
            PrimExpr(static_cast<int>(Uniform(1, 4))));
      default: {
        int64_t c = Uniform(1, 4);
        return tir::floordiv(
            tir::floormod(Gen(depth - 1), PrimExpr(static_cast<int>(c * Uniform(1, 3)))),
            PrimExpr(static_cast<int>(c)));
      }
    }
  }

  /*! \brief `(a * f + b) // f` or `% f` with b in [0, f): what split produces. */
  PrimExpr SplitPattern() {
    const RangedVar& a = AnyVar();
    const RangedVar& b = AnyVar();
    int64_t f = std::max<int64_t>(1, b.hi);
    PrimExpr e =
        a.var * PrimExpr(static_cast<int>(f)) + b.var + PrimExpr(static_cast<int>(Uniform(0, 2)));
    return Uniform(0, 1) ? tir::floordiv(e, PrimExpr(static_cast<int>(f)))
                         : tir::floormod(e, PrimExpr(static_cast<int>(f)));
  }
  /*! \brief `x // f * f + x % f` or a three-level fused index taken apart. */
  PrimExpr FusePattern() {
    PrimExpr x = Gen(1);
    PrimExpr f(static_cast<int>(Uniform(1, 8)));
    if (Uniform(0, 1)) return tir::floordiv(x, f) * f + tir::floormod(x, f);
    PrimExpr g(static_cast<int>(Uniform(1, 4)));
    return tir::floordiv(tir::floormod(x, f * g), g);
  }

  PrimExpr Leaf() {
    if (Uniform(0, 3) == 0) return PrimExpr(static_cast<int>(Uniform(-5, 12)));
    return AnyVar().var;
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::vector<RangedVar> vars_;
  std::mt19937 rng_;
};

}  // namespace testing
}  // namespace minitvm

#endif  // MINITVM_TESTS_STAGE2_TEST_UTIL_H_
