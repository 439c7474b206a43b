/*!
 * \file ir_validation_test.cc
 * \brief The constructors and builders refuse input that would make invalid IR (stage 2):
 * float bounds and extents, negative constant extents and shapes, loop and let dtypes, unknown
 * iterator and loop kinds, expressions where statements belong, float constants that overflow
 * their dtype, repeated reduction axes, non-bool reduction conditions, intrinsic names outside
 * the tir namespace and negative expand_dims. Each error is checked for its kind and for a
 * message naming the argument at fault; the valid neighbours of each case still build.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "minitvm/runtime/registry.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt.h"
#include "minitvm/topi/transform.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)

const DataType f16 = DataType::Float(16);
const DataType f32 = DataType::Float(32);
const DataType i32 = DataType::Int(32);
const DataType i64 = DataType::Int(64);

Stmt Nop() { return Evaluate(PrimExpr(0)); }

// ---- 1. ranges, reduction axes and compute shapes are integers ------------------------------

TEST(IRValidationTest, RangeBoundsAreIntegers) {
  EXPECT_MINITVM_ERROR(Range(FloatImm(f32, 0.5), 4), "ValueError", "min must be an integer");
  EXPECT_MINITVM_ERROR(Range(0, FloatImm(f32, 2.5)), "ValueError", "extent must be an integer");
  EXPECT_MINITVM_ERROR(Range(0, Var("f", f32)), "ValueError", "float32");
  EXPECT_MINITVM_ERROR(Range(0, const_true()), "ValueError", "extent must be an integer");
  Range ok(IntImm(i64, 0), Var("n", i64));
  EXPECT_EQ(ok->extent.dtype(), i64);
  Range unsigned_ok(IntImm(DataType::UInt(32), 0), IntImm(DataType::UInt(32), 4));
  EXPECT_TRUE(unsigned_ok.defined());
}

TEST(IRValidationTest, ReduceAxisAndComputeShapeAreIntegers) {
  EXPECT_MINITVM_ERROR(te::reduce_axis(Range(0, FloatImm(f32, 2.5)), "k"), "ValueError",
                       "extent must be an integer");
  EXPECT_MINITVM_ERROR(te::compute(
                           {FloatImm(f32, 4.5)}, [](Var i) -> PrimExpr { return i; }, "C"),
                       "ValueError", "compute C: shape[0] is a float32 value");
  std::optional<runtime::PackedFunc> reduce_axis = runtime::Registry::Get("te.ReduceAxis");
  ASSERT_TRUE(reduce_axis.has_value());
  EXPECT_MINITVM_ERROR((*reduce_axis)(PrimExpr(0), FloatImm(f32, 2.5), "k"), "ValueError",
                       "te.reduce_axis k: the domain's end must be an integer");
}

// ---- 2. negative constant extents -----------------------------------------------------------

TEST(IRValidationTest, ReduceAxisWithNegativeExtent) {
  EXPECT_MINITVM_ERROR(te::reduce_axis(Range(5, -3), "k"), "ValueError",
                       "reduce_axis k: the domain has the negative extent -3");
  IterVar empty = te::reduce_axis(Range(5, 0), "k");  // an empty domain is allowed
  EXPECT_EQ(empty->iter_type, kCommReduce);
  IterVar symbolic = te::reduce_axis(Range(0, Var("n")), "k");  // the caller binds n
  EXPECT_TRUE(symbolic.defined());
}

// ---- 3. loops ---------------------------------------------------------------------------------

TEST(IRValidationTest, ForLoopVariableAndBoundsAreIntegers) {
  EXPECT_MINITVM_ERROR(For(Var("f", f32), 0, 4, ForKind::kSerial, Nop()), "ValueError",
                       "For f: the loop variable must be an integer scalar, got float32");
  Var i("i");
  EXPECT_MINITVM_ERROR(For(i, FloatImm(f32, 0.5), 4, ForKind::kSerial, Nop()), "ValueError",
                       "For i: min must be an integer scalar, got float32");
  EXPECT_MINITVM_ERROR(For(i, 0, Var("e", f32), ForKind::kSerial, Nop()), "ValueError",
                       "For i: extent must be an integer scalar");
  EXPECT_MINITVM_ERROR(For(Var("b", DataType::Bool()), 0, 4, ForKind::kSerial, Nop()), "ValueError",
                       "loop variable must be an integer");
}

TEST(IRValidationTest, ForBoundsHaveTheLoopVariablesDtype) {
  Var i("i"), n64("n", i64), i64v("i", i64);
  EXPECT_MINITVM_ERROR(For(i, 0, n64, ForKind::kSerial, Nop()), "ValueError",
                       "For i: extent has dtype int64 but the loop variable is int32");
  EXPECT_MINITVM_ERROR(For(i64v, Var("m"), n64, ForKind::kSerial, Nop()), "ValueError",
                       "For i: min has dtype int32 but the loop variable is int64");
  // Integer constants take the loop variable's dtype (TVM promotes them the same way).
  For wide(i64v, 0, 8, ForKind::kSerial, Nop());
  EXPECT_EQ(wide->min.dtype(), i64);
  EXPECT_EQ(wide->extent.dtype(), i64);
  EXPECT_EQ(AsConstInt(wide->extent), 8);
  For narrow(Var("j", DataType::Int(16)), IntImm(i64, 0), IntImm(i64, 100), ForKind::kSerial,
             Nop());
  EXPECT_EQ(narrow->extent.dtype(), DataType::Int(16));
  EXPECT_MINITVM_ERROR(For(Var("j", DataType::Int(8)), 0, 1000, ForKind::kSerial, Nop()),
                       "ValueError", "extent 1000 does not fit the loop variable's dtype int8");
}

TEST(IRValidationTest, ForKindMustBeAForKind) {
  EXPECT_MINITVM_ERROR(For(Var("i"), 0, 4, static_cast<ForKind>(99), Nop()), "ValueError",
                       "kind 99 is not a ForKind");
  EXPECT_MINITVM_ERROR(For(Var("i"), 0, 4, static_cast<ForKind>(-1), Nop()), "ValueError",
                       "kind -1 is not a ForKind");
}

// ---- 4. iterator kinds ------------------------------------------------------------------------

TEST(IRValidationTest, IterVarKindMustBeAnIterVarType) {
  EXPECT_MINITVM_ERROR(IterVar(Range(0, 4), Var("v"), static_cast<IterVarType>(99)), "ValueError",
                       "IterVar v: iter_type 99 is not an iterator kind");
  EXPECT_MINITVM_ERROR(IterVar(Range(0, 4), Var("v"), static_cast<IterVarType>(5)), "ValueError",
                       "iter_type 5");
  EXPECT_MINITVM_ERROR(IterVar(Range(0, 4), Var("v", f32), kDataPar), "ValueError",
                       "IterVar v: the variable must be an integer scalar, got float32");
  for (IterVarType t : {kDataPar, kThreadIndex, kCommReduce, kOrdered, kOpaque}) {
    EXPECT_EQ(IterVar(Range(0, 4), Var("v"), t)->iter_type, t);
  }
}

// ---- 5. let bindings --------------------------------------------------------------------------

TEST(IRValidationTest, LetValueHasTheVariablesDtype) {
  Var x("x");
  EXPECT_MINITVM_ERROR(Let(x, FloatImm(f32, 1.5), x), "ValueError",
                       "Let x: the value has dtype float32 but the variable is int32");
  EXPECT_MINITVM_ERROR(LetStmt(x, IntImm(i64, 1), Nop()), "ValueError",
                       "LetStmt x: the value has dtype int64 but the variable is int32");
  EXPECT_MINITVM_ERROR(LetStmt(x, 1, Stmt()), "ValueError", "LetStmt x: undefined body");
  EXPECT_MINITVM_ERROR(Let(x, PrimExpr(), x), "ValueError", "undefined value");
  EXPECT_EQ(Let(x, 1, x + 1).dtype(), i32);
  Var h("h", DataType::Handle());
  EXPECT_TRUE(
      LetStmt(h, Call(DataType::Handle(), "tir.call_extern", {StringImm("f")}), Nop()).defined());
}

// ---- 6. sequences hold statements -------------------------------------------------------------

TEST(IRValidationTest, SeqStmtElementsAreStatements) {
  Var x("x");
  Array<Stmt> seq;
  seq.push_back(Nop());
  seq.CopyOnWrite()->data.push_back(Any(x + 1));  // what an untyped Python list can hand over
  EXPECT_MINITVM_ERROR(SeqStmt s(seq), "TypeError",
                       "SeqStmt: seq[1] is tir.Add, not a Stmt (wrap an expression in Evaluate)");
  Array<Stmt> with_none;
  with_none.CopyOnWrite()->data.push_back(Any());
  EXPECT_MINITVM_ERROR(SeqStmt s(with_none), "TypeError", "seq[0] is None");
  EXPECT_EQ(SeqStmt({Nop(), Evaluate(x + 1)})->seq.size(), 2u);
}

TEST(IRValidationTest, BlockAndPrimFuncListsHoldTheirTypes) {
  Array<IterVar> iters;
  iters.CopyOnWrite()->data.push_back(Any(Var("v")));
  EXPECT_MINITVM_ERROR(Block(iters, {}, {}, "B", Nop()), "TypeError",
                       "Block B: iter_vars[0] is tir.Var, not an IterVar");
  Array<Var> params;
  params.CopyOnWrite()->data.push_back(Any(PrimExpr(1)));
  EXPECT_MINITVM_ERROR(PrimFunc(params, Nop()), "TypeError", "PrimFunc: params[0] is ir.IntImm");
}

// ---- 7. buffer shapes -------------------------------------------------------------------------

TEST(IRValidationTest, BufferShapeIsNotNegative) {
  EXPECT_MINITVM_ERROR(decl_buffer({-1}, f32, "A"), "ValueError",
                       "Buffer A: shape[0] is negative (-1)");
  EXPECT_MINITVM_ERROR(decl_buffer({4, -2}, f32, "A"), "ValueError", "shape[1] is negative (-2)");
  EXPECT_EQ(decl_buffer({0, 4}, f32, "A")->shape.size(), 2u);  // empty buffers are fine
  EXPECT_TRUE(decl_buffer({Var("n")}, f32, "A").defined());
}

// ---- 8. float constants fit their dtype ---------------------------------------------------------

TEST(IRValidationTest, FloatImmFitsItsDtype) {
  EXPECT_MINITVM_ERROR(FloatImm(f16, 1e10), "ValueError",
                       "FloatImm: value 1e+10 does not fit float16");
  EXPECT_MINITVM_ERROR(FloatImm(f16, -65520.0), "ValueError", "does not fit float16");
  EXPECT_MINITVM_ERROR(FloatImm(f32, 1e39), "ValueError", "does not fit float32");
  EXPECT_MINITVM_ERROR(FloatImm(DataType::BFloat(16), 1e39), "ValueError", "does not fit bfloat16");
  EXPECT_MINITVM_ERROR(make_const(f16, 70000.0), "ValueError", "does not fit float16");
  // The largest finite values, and what rounds to them, are fine; so are inf and nan.
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(FloatImm(f16, 65504.0)->value, 65504.0);
  EXPECT_EQ(FloatImm(f16, 65519.0)->value, 65519.0);
  EXPECT_EQ(FloatImm(f32, std::numeric_limits<float>::max())->value,
            std::numeric_limits<float>::max());
  EXPECT_EQ(FloatImm(f32, 3.4028235e38)->value, std::numeric_limits<float>::max());
  EXPECT_EQ(FloatImm(f16, inf)->value, inf);
  EXPECT_EQ(FloatImm(f32, -inf)->value, -inf);
  EXPECT_TRUE(std::isnan(FloatImm(f16, std::nan(""))->value));
  EXPECT_EQ(FloatImm(DataType::Float(64), 1e300)->value, 1e300);
  EXPECT_TRUE(min_value(f16).defined());
  EXPECT_TRUE(max_value(f32).defined());
}

// ---- 9. reductions ----------------------------------------------------------------------------

TEST(IRValidationTest, ReductionAxesAreDistinctAndTheConditionIsBool) {
  te::Tensor A = te::placeholder({4, 8}, f32, "A");
  IterVar k = te::reduce_axis(Range(0, 8), "k");
  EXPECT_MINITVM_ERROR(te::sum(A({0, k->var}), {k, k}), "ValueError",
                       "Reduce: axis k is listed twice");
  EXPECT_MINITVM_ERROR(te::sum(A({0, k->var}), {k}, FloatImm(f32, 1.5)), "ValueError",
                       "the condition (where=) must be a bool expression, got float32");
  EXPECT_MINITVM_ERROR(te::max(A({0, k->var}), {k}, PrimExpr(1)), "ValueError",
                       "must be a bool expression, got int32");
  IterVar k2 = te::reduce_axis(Range(0, 4), "k2");
  PrimExpr ok = te::sum(A(Array<PrimExpr>{k2->var, k->var}), {k, k2}, k->var < 4);
  EXPECT_TRUE(ok.defined());
}

// ---- 10. intrinsic names ----------------------------------------------------------------------

TEST(IRValidationTest, CallOpsLiveInTheTirNamespace) {
  Var x("x", f32);
  EXPECT_MINITVM_ERROR(Call(f32, "no.such.op", {x}), "ValueError",
                       "Call: op \"no.such.op\" is not an intrinsic name");
  EXPECT_MINITVM_ERROR(Call(f32, "exp", {x}), "ValueError", "tir.call_extern");
  EXPECT_MINITVM_ERROR(Call(f32, "tir.", {x}), "ValueError", "not an intrinsic name");
  EXPECT_MINITVM_ERROR(Call(f32, "", {x}), "ValueError", "not an intrinsic name");
  // Names in the namespace are not checked against a list: passes and tests use their own.
  EXPECT_TRUE(Call(f32, "tir.my_op", {x}).defined());
  EXPECT_TRUE(call_extern(f32, "my_function", {x}).defined());
  EXPECT_TRUE(exp(x).defined());
}

// ---- 11. expand_dims --------------------------------------------------------------------------

TEST(IRValidationTest, ExpandDimsNeedsANonNegativeCount) {
  te::Tensor A = te::placeholder({4, 8}, f32, "A");
  EXPECT_MINITVM_ERROR(topi::expand_dims(A, 0, -1), "ValueError",
                       "expand_dims: num_newaxis must be in [0, 1024], got -1");
  EXPECT_MINITVM_ERROR(topi::expand_dims(A, 0, int64_t(1) << 40), "ValueError", "num_newaxis");
  EXPECT_EQ(topi::expand_dims(A, 0, 0)->shape.size(), 2u);
  EXPECT_EQ(topi::expand_dims(A, -1, 2)->shape.size(), 4u);
}

TEST(IRValidationTest, IntegerConstantsFromDoublesMustFitInt64) {
  // Converting such a double to int64 would be undefined behaviour (found by the fuzzer).
  EXPECT_MINITVM_ERROR(make_const(DataType::Int(64), 9.3e18), "ValueError", "does not fit int64");
  EXPECT_MINITVM_ERROR(make_const(DataType::Int(32), std::nan("")), "ValueError", "does not fit");
  EXPECT_EQ(make_const(DataType::Int(64), -9223372036854775808.0).as<IntImmNode>()->value,
            std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace minitvm
