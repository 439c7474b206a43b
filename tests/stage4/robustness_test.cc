/*!
 * \file robustness_test.cc
 * \brief Stage 4 regression tests for the hardening of the Relax layer (issue 16): inputs that
 * used to crash the process, recurse without a limit or give a silently wrong answer now give
 * a clear error. The Python sweep is tests/python/test_relax_robustness.py; each test here keeps
 * one C++ fix.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "minitvm/lownumpy/creation.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/op.h"
#include "minitvm/runtime/registry.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

namespace ln = lownumpy;
using runtime::Any;

const DataType kF32 = DataType::Float(32);

TensorStructInfo Tensor(Array<PrimExpr> shape, DataType dtype = kF32) {
  return TensorStructInfo(ShapeExpr(shape), dtype);
}

/*! \brief `main(a) { gv = body(a); return gv }` through the BlockBuilder. */
IRModule OneBinding(const Var& a, const std::function<Expr(const Var&)>& body) {
  BlockBuilder bb;
  bb.BeginFunction("main", {a});
  Var gv = bb.Emit(body(a));
  bb.EmitFuncOutput(gv);
  return bb.Get();
}

TEST(RelaxRobustness, BlockBuilderRefusesNullArguments) {
  BlockBuilder bb;
  // AddFunction(null) used to crash inside the module.
  EXPECT_MINITVM_ERROR(bb.AddFunction(BaseFunc(), "f"), "ValueError", "no function");
  EXPECT_MINITVM_ERROR(bb.UpdateFunction(GlobalVar(), BaseFunc()), "ValueError", "GlobalVar");
  EXPECT_MINITVM_ERROR(bb.LookupFunction(GlobalVar()), "ValueError", "GlobalVar");
  EXPECT_MINITVM_ERROR(bb.Normalize(Expr()), "ValueError", "no expression");
  // A TIR expression is a TypeError naming the fix, not an internal "no visitor case" error.
  EXPECT_MINITVM_ERROR(bb.Normalize(IntImm(DataType::Int(32), 1)), "TypeError", "prim_value");
  Var a("a", Tensor({2, 3}));
  bb.BeginFunction("main", {a});
  EXPECT_MINITVM_ERROR(bb.EmitMatchCast(Expr(), Tensor({2, 3})), "ValueError", "no value");
  EXPECT_MINITVM_ERROR(bb.EmitNormalized(Binding()), "ValueError", "no binding");
}

TEST(RelaxRobustness, DeeplyNestedExpressionsAreAClearError) {
  Var a("a", Tensor({2, 3}));
  Expr deep = a;
  for (int i = 0; i < 20000; ++i) deep = op::add(deep, a);
  EXPECT_MINITVM_ERROR(BlockBuilder().Normalize(deep), "ValueError", "nested more than");
  // Within the limit the same chain normalises (and binds every inner call).
  Expr ok = a;
  for (int i = 0; i < 500; ++i) ok = op::add(ok, a);
  IRModule mod = OneBinding(a, [&](const Var&) { return ok; });
  EXPECT_TRUE(WellFormed(mod));
}

TEST(RelaxRobustness, InterpreterRefusesTuplesNestedTooDeeply) {
  Var a("a", Tensor({2}));
  Expr t = a;
  for (int i = 0; i < 1200; ++i) t = Tuple({t});
  IRModule mod = OneBinding(a, [&](const Var&) { return t; });
  // Checking the result against its struct info used to overflow the stack.
  EXPECT_MINITVM_ERROR(Interpret(mod, "main", {ln::ones({2})}), "RuntimeError", "nested more");
}

TEST(RelaxRobustness, InterpreterRefusesANullModule) {
  EXPECT_MINITVM_ERROR(Interpret(IRModule(ObjectPtr<Object>()), "main", {}), "ValueError",
                       "no module");
  auto f = runtime::Registry::Get("relax.Interpret");
  ASSERT_TRUE(f.has_value());
  EXPECT_MINITVM_ERROR((*f)(Any(), String("main")), "TypeError", "IRModule");
}

TEST(RelaxRobustness, IntegerDivisionByZeroIsAnError) {
  const DataType i32 = DataType::Int(32);
  Var a("a", Tensor({2}, i32));
  for (const char* name : {"divide", "floor_divide"}) {
    IRModule mod = OneBinding(a, [&](const Var& x) -> Expr {
      Expr zero = Constant(ln::zeros({2}, i32));
      return std::string(name) == "divide" ? op::divide(x, zero) : op::floor_divide(x, zero);
    });
    EXPECT_MINITVM_ERROR(Interpret(mod, "main", {ln::ones({2}, i32)}), "ValueError",
                         "division by zero");
    IRModule m1 = OneBinding(a, [&](const Var& x) -> Expr {
      Expr minus1 = Constant(ln::full({2}, -1, i32));
      return std::string(name) == "divide" ? op::divide(x, minus1) : op::floor_divide(x, minus1);
    });
    EXPECT_MINITVM_ERROR(Interpret(m1, "main", {ln::full({2}, -2147483648.0, i32)}), "ValueError",
                         "overflow");
  }
}

TEST(RelaxRobustness, TensorShapesAreSizes) {
  EXPECT_MINITVM_ERROR(Tensor({2, -1}), "ValueError", "negative");
  PrimExpr big = IntImm(DataType::Int(64), int64_t{1} << 40);
  EXPECT_MINITVM_ERROR(Tensor({big, big}), "ValueError", "more elements than int64");
  EXPECT_NO_THROW(Tensor({big, big, 0}));
  Any shape(Array<Any>{Any(int64_t{-1})});
  EXPECT_MINITVM_ERROR(BlockBuilder().Normalize(op::zeros(shape, Any(String("float32")))),
                       "ValueError", "negative");
}

TEST(RelaxRobustness, NaNAttributesAreRefused) {
  Var a("a", Tensor({2, 3})), g("g", Tensor({3}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_MINITVM_ERROR(BlockBuilder().Normalize(op::nn::dropout(a, nan)), "ValueError", "rate");
  EXPECT_MINITVM_ERROR(BlockBuilder().Normalize(op::nn::layer_norm(a, g, g, Any(int64_t{1}), nan)),
                       "ValueError", "epsilon");
  EXPECT_MINITVM_ERROR(BlockBuilder().Normalize(op::nn::layer_norm(a, g, g, Any(int64_t{1}), -1.0)),
                       "ValueError", "epsilon");
}

TEST(RelaxRobustness, WellFormedChecksTheReturnAnnotation) {
  Var a("a", Tensor({2, 3}));
  Function f({a}, SeqExpr({}, a), Tensor({7}, DataType::Int(8)));
  EXPECT_FALSE(WellFormed(f));
  bool found = false;
  for (const String& v : WellFormedViolations(f)) {
    found = found || std::string(v).find("return-struct-info-mismatch") != std::string::npos;
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(WellFormed(Function({a}, SeqExpr({}, a), Tensor({2, 3}))));
}

TEST(RelaxRobustness, VarAnalysesRefuseNull) {
  auto f = runtime::Registry::Get("relax.analysis.free_vars");
  ASSERT_TRUE(f.has_value());
  EXPECT_MINITVM_ERROR((*f)(Any()), "ValueError", "no expression");
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
