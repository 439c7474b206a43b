/*!
 * \file bind_params_test.cc
 * \brief Stage 4: `relax::transform::BindParams` — binding weights by name and by Var,
 * specialising symbolic shapes, the pass wrapper, and the errors (unknown name, shape, dtype,
 * inconsistent symbolic dimension, unknown function).
 */
#include <gtest/gtest.h>

#include "minitvm/ir/structural.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/transform.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

StructInfo T(Array<PrimExpr> shape, DataType dtype = DataType::Float(32)) {
  return TensorStructInfo(ShapeExpr(shape), dtype);
}
NDArray Array2D(int64_t rows, int64_t cols, DataType dtype = DataType::Float(32)) {
  NDArray a = NDArray::Empty({rows, cols}, dtype);
  if (dtype == DataType::Float(32)) {
    float* p = a.data_as<float>();
    for (int64_t i = 0; i < rows * cols; ++i) p[i] = static_cast<float>(i);
  }
  return a;
}

struct Mlp {
  tir::Var m{"m", DataType::Int(64)};
  tir::Var k{"k", DataType::Int(64)};
  Var x{"x", T({1, m})};
  Var w{"w", T({m, k})};
  IRModule mod;
  Mlp() {
    BlockBuilder bb;
    bb.BeginFunction("main", {x, w}, {{"global_symbol", String("main")}});
    bb.BeginDataflowBlock();
    Var lv = bb.Emit(op::matmul(x, w));
    Var gv = bb.EmitOutput(op::nn::relu(lv));
    bb.EndBlock();
    bb.EmitFuncOutput(gv);
    mod = bb.Get();
  }
};

TEST(BindParams, BindsByNameAndSpecialisesSymbolicShapes) {
  Mlp net;
  NDArray w = Array2D(4, 3);
  IRModule out = transform::BindParams("main", {{Any(String("w")), w}})(net.mod);
  const auto* f = out->Lookup("main").as<FunctionNode>();
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->params.size(), 1u);
  EXPECT_EQ(f->params[0]->name_hint, "x");
  EXPECT_TRUE(StructuralEqual(GetStructInfo(f->params[0]), T({1, 4})));
  EXPECT_TRUE(StructuralEqual(f->ret_struct_info, T({1, 3})));
  // The weight is a constant holding the very array.
  const auto* seq = f->body.as<SeqExprNode>();
  const auto* mm = seq->blocks[0]->bindings[0].as<VarBindingNode>()->value.as<CallNode>();
  ASSERT_NE(mm, nullptr);
  const auto* c = mm->args[1].as<ConstantNode>();
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->data.same_as(w));
  EXPECT_TRUE(StructuralEqual(GetStructInfo(seq->blocks[0]->bindings[0]->var), T({1, 3})));
  EXPECT_TRUE(WellFormed(out)) << WellFormedViolations(out).size();
  // The input module is unchanged.
  EXPECT_EQ(net.mod->Lookup("main").as<FunctionNode>()->params.size(), 2u);
}

TEST(BindParams, BindsByVar) {
  Mlp net;
  IRModule out = transform::BindParams("main", {{Any(net.w), Array2D(6, 2)}})(net.mod);
  const auto* f = out->Lookup("main").as<FunctionNode>();
  ASSERT_EQ(f->params.size(), 1u);
  EXPECT_TRUE(StructuralEqual(f->ret_struct_info, T({1, 2})));
}

TEST(BindParams, NothingToBindLeavesTheModule) {
  Mlp net;
  IRModule out = transform::BindParams("main", {})(net.mod);
  EXPECT_TRUE(out->Lookup("main").same_as(net.mod->Lookup("main")));
}

TEST(BindParams, UnknownParameterNameListsTheParameters) {
  Mlp net;
  EXPECT_MINITVM_ERROR(transform::BindParams("main", {{Any(String("q")), Array2D(4, 3)}})(net.mod),
                       "ValueError",
                       "function \"main\" has no parameter named \"q\"; its parameters are: x, w");
  Var stranger("stranger", T({2}));
  EXPECT_MINITVM_ERROR(transform::BindParams("main", {{Any(stranger), Array2D(4, 3)}})(net.mod),
                       "ValueError", "variable \"stranger\" is not a parameter of function");
}

TEST(BindParams, ShapeAndDtypeMismatchesNameTheParameter) {
  Var x("x", T({2, 3}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.EmitFuncOutput(op::add(x, x));
  IRModule mod = bb.Get();
  EXPECT_MINITVM_ERROR(transform::BindParams("main", {{Any(String("x")), Array2D(2, 4)}})(mod),
                       "ValueError", "parameter \"x\" of function \"main\" is R.Tensor(");
  EXPECT_MINITVM_ERROR(transform::BindParams("main", {{Any(String("x")), Array2D(2, 4)}})(mod),
                       "ValueError", "but the array is (2, 4) float32 (dimension 1 differs)");
  EXPECT_MINITVM_ERROR(
      transform::BindParams("main", {{Any(String("x")), Array2D(2, 3, DataType::Int(32))}})(mod),
      "ValueError", "(2, 3) int32 (dtype mismatch)");
  EXPECT_MINITVM_ERROR(
      transform::BindParams("main",
                            {{Any(String("x")), NDArray::Empty({6}, DataType::Float(32))}})(mod),
      "ValueError", "(rank mismatch)");
}

TEST(BindParams, SymbolicDimensionMustAgreeAcrossParameters) {
  tir::Var m("m", DataType::Int(64));
  Var a("a", T({m, 3})), b("b", T({m, 3}));
  BlockBuilder bb;
  bb.BeginFunction("main", {a, b});
  bb.EmitFuncOutput(op::add(a, b));
  IRModule mod = bb.Get();
  IRModule ok = transform::BindParams("main", {{Any(String("a")), Array2D(5, 3)}})(bb.Get());
  EXPECT_TRUE(
      StructuralEqual(GetStructInfo(ok->Lookup("main").as<FunctionNode>()->params[0]), T({5, 3})));
  EXPECT_MINITVM_ERROR(transform::BindParams("main", {{Any(String("a")), Array2D(5, 3)},
                                                      {Any(String("b")), Array2D(6, 3)}})(mod),
                       "ValueError", "parameter \"b\"");
}

TEST(BindParams, UnknownFunction) {
  Mlp net;
  EXPECT_MINITVM_ERROR(transform::BindParams("mian", {{Any(String("w")), Array2D(4, 3)}})(net.mod),
                       "ValueError",
                       "the module has no function \"mian\"; its functions are: main");
}

TEST(BindParams, IsARegisteredPass) {
  auto f = runtime::Registry::Get("relax.transform.BindParams");
  ASSERT_TRUE(f.has_value());
  Mlp net;
  Map<Any, NDArray> params{{Any(String("w")), Array2D(4, 3)}};
  auto pass = (*f)(String("main"), params).cast<transform::Pass>();
  EXPECT_EQ(std::string(pass.info()->name), "BindParams");
  EXPECT_EQ(pass(net.mod)->Lookup("main").as<FunctionNode>()->params.size(), 1u);
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
