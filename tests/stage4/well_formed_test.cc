/*!
 * \file well_formed_test.cc
 * \brief Stage 4: `relax::WellFormed` — a builder-made module passes, and each rule has a
 * malformed function that breaks exactly it, checked by the rule name, the function and the
 * variable in the violation message.
 */
#include <gtest/gtest.h>

#include "minitvm/ir/structural.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

MINITVM_REGISTER_OP("test.wf_impure")
    .set_num_inputs(1)
    .set_attr_typed(kFInferStructInfo, [](Call) { return StructInfo(ObjectStructInfo()); })
    .set_attr(kFPurity, false);

StructInfo T(Array<PrimExpr> shape, DataType dtype = DataType::Float(32)) {
  return TensorStructInfo(ShapeExpr(shape), dtype);
}

/*! \brief A function named "f" (global_symbol) from blocks and a body. */
Function Fn(Array<Var> params, Array<BindingBlock> blocks, Expr body, StructInfo ret) {
  return Function(params, SeqExpr(blocks, body), ret, true, {{"global_symbol", String("f")}});
}

/*! \brief Whether some violation contains every one of `parts`. */
::testing::AssertionResult HasViolation(const Array<String>& violations,
                                        const std::vector<std::string>& parts) {
  std::string all;
  for (const String& v : violations) {
    bool ok = true;
    for (const std::string& p : parts) ok = ok && std::string(v).find(p) != std::string::npos;
    if (ok) return ::testing::AssertionSuccess();
    all += "\n  " + std::string(v);
  }
  return ::testing::AssertionFailure() << "no violation has all the parts; violations:" << all;
}

TEST(WellFormed, BuilderModulesAreWellFormed) {
  tir::Var n("n", DataType::Int(64));
  Var x("x", T({n, 4})), w("w", T({4, 4}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x, w});
  bb.BeginDataflowBlock();
  Var lv = bb.Emit(op::matmul(x, w));
  Var gv = bb.EmitOutput(op::nn::relu(lv));
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  IRModule mod = bb.Get();
  EXPECT_TRUE(WellFormed(mod));
  EXPECT_EQ(WellFormedViolations(mod).size(), 0u);
  EXPECT_TRUE(WellFormed(Downcast<Function>(mod->Lookup("main"))));
}

TEST(WellFormed, DataflowVarBoundOutsideDataflowBlock) {
  Var x("x", T({4}));
  DataflowVar lv("lv", T({4}));
  Function f = Fn({x}, {BindingBlock({VarBinding(lv, Normalize(op::add(x, x)))})}, lv, T({4}));
  EXPECT_FALSE(WellFormed(f));
  EXPECT_TRUE(HasViolation(WellFormedViolations(f),
                           {"[dataflow-var-outside-block]", "function \"f\"", "variable \"lv\""}));
}

TEST(WellFormed, DataflowVarUsedAfterItsBlock) {
  Var x("x", T({4}));
  DataflowVar lv("lv", T({4}));
  Var gv("gv", T({4}));
  Function f = Fn({x},
                  {DataflowBlock({VarBinding(lv, Normalize(op::add(x, x)))}),
                   BindingBlock({VarBinding(gv, Normalize(op::add(lv, x)))})},
                  gv, T({4}));
  EXPECT_TRUE(HasViolation(
      WellFormedViolations(f),
      {"[dataflow-var-scope]", "function \"f\"", "variable \"lv\"", "outside the dataflow block"}));
}

TEST(WellFormed, ImpureCallInDataflowBlock) {
  Var x("x", T({4}));
  DataflowVar lv("lv", ObjectStructInfo());
  Var gv("gv", ObjectStructInfo());
  Function f = Fn({x},
                  {DataflowBlock({VarBinding(lv, Normalize(Call(Op::Get("test.wf_impure"), {x}))),
                                  VarBinding(gv, lv)})},
                  gv, ObjectStructInfo());
  EXPECT_TRUE(HasViolation(WellFormedViolations(f), {"[impure-in-dataflow]", "function \"f\"",
                                                     "variable \"lv\"", "test.wf_impure"}));
}

TEST(WellFormed, VariableDefinedTwice) {
  Var x("x", T({4}));
  Var v("v", T({4}));
  Expr value = Normalize(op::add(x, x));
  Function f = Fn({x}, {BindingBlock({VarBinding(v, value), VarBinding(v, value)})}, v, T({4}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(f),
                           {"[defined-twice]", "function \"f\"", "variable \"v\""}));
  // A parameter bound again.
  Function g = Fn({x}, {BindingBlock({VarBinding(x, value)})}, x, T({4}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(g), {"[defined-twice]", "variable \"x\""}));
}

TEST(WellFormed, UndefinedOrUsedBeforeDefinition) {
  Var x("x", T({4}));
  Var ghost("ghost", T({4}));
  Function f = Fn({x}, {}, ghost, T({4}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(f),
                           {"[undefined-var]", "function \"f\"", "variable \"ghost\""}));
  Var a("a", T({4})), b("b", T({4}));
  Function g = Fn({x},
                  {BindingBlock({VarBinding(a, Normalize(op::add(b, x))),
                                 VarBinding(b, Normalize(op::add(x, x)))})},
                  a, T({4}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(g), {"[undefined-var]", "variable \"b\""}));
}

TEST(WellFormed, MissingStructInfo) {
  // A binding variable without struct info (parameters cannot lack it: Function refuses).
  Var x("x", T({4}));
  Var p("p");
  Function f = Fn({x}, {BindingBlock({VarBinding(p, Normalize(op::add(x, x)))})}, x, T({4}));
  EXPECT_TRUE(
      HasViolation(WellFormedViolations(f), {"[missing-struct-info]", "function \"f\"",
                                             "variable \"p\"", "variable has no struct info"}));
  // A bound value that was never normalised.
  Var v("v", T({4}));
  Function g = Fn({x}, {BindingBlock({VarBinding(v, op::add(x, x))})}, v, T({4}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(g), {"[missing-struct-info]", "variable \"v\"",
                                                     "bound value has no struct info"}));
  // Not checked when asked not to.
  EXPECT_TRUE(WellFormed(g, /*check_struct_info=*/false));
}

TEST(WellFormed, BindingStructInfoMustBeABaseOfTheValues) {
  Var x("x", T({4}));
  Var v("v", T({5}));
  Function f = Fn({x}, {BindingBlock({VarBinding(v, Normalize(op::add(x, x)))})}, v, T({5}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(f), {"[struct-info-mismatch]", "function \"f\"",
                                                     "variable \"v\"", "is not a base of"}));
  // A less precise annotation is fine.
  Var u("u", TensorStructInfo(DataType::Float(32), 1));
  Function g = Fn({x}, {BindingBlock({VarBinding(u, Normalize(op::add(x, x)))})}, u,
                  TensorStructInfo(DataType::Float(32), 1));
  EXPECT_TRUE(WellFormed(g)) << WellFormedViolations(g).size();
}

/*! \brief A module with PrimFunc "add_one" ((4,) -> (4,) float32) and main calling it. */
IRModule CallTIRModule(StructInfo out_sinfo, size_t num_args = 1) {
  te::Tensor a = te::placeholder({4}, DataType::Float(32), "A");
  te::Tensor b = te::compute(
      {4}, [&](tir::Var i) { return a(i) + FloatImm(DataType::Float(32), 1); }, "B");
  tir::PrimFunc prim = te::CreatePrimFunc({a, b});
  GlobalVar gv("add_one");
  Var x("x", T({4}));
  Array<Expr> args;
  for (size_t i = 0; i < num_args; ++i) args.push_back(x);
  Var out("out", out_sinfo);
  Expr call = Normalize(op::call_tir(gv, Any(Tuple(args)), Any(out_sinfo)));
  Function main({x}, SeqExpr({BindingBlock({VarBinding(out, call)})}, out), out_sinfo, true,
                {{"global_symbol", String("main")}});
  IRModule mod;
  mod.Add(gv, prim);
  mod.Add(GlobalVar("main"), main);
  return mod;
}

TEST(WellFormed, CallTIROutputsMatchThePrimFunc) {
  EXPECT_TRUE(WellFormed(CallTIRModule(T({4})))) << WellFormedViolations(CallTIRModule(T({4})))[0];
  EXPECT_TRUE(HasViolation(WellFormedViolations(CallTIRModule(T({5}))),
                           {"[call-tir-signature]", "function \"main\"", "\"add_one\"",
                            "extent 4 in dimension 0 but out_sinfo says 5"}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(CallTIRModule(T({4}, DataType::Int(32)))),
                           {"[call-tir-signature]", "dtype float32 but out_sinfo says int32"}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(CallTIRModule(T({4, 1}))),
                           {"[call-tir-signature]", "1 dimension(s) but out_sinfo says 2"}));
  EXPECT_TRUE(HasViolation(WellFormedViolations(CallTIRModule(T({4}), 2)),
                           {"[call-tir-signature]", "2 buffer parameter(s)", "2 input(s)"}));
}

TEST(WellFormed, GlobalVarsReferToModuleFunctions) {
  Var x("x", T({4}));
  Var v("v", ObjectStructInfo());
  Function main(
      {x}, SeqExpr({BindingBlock({VarBinding(v, Normalize(Call(GlobalVar("ghost"), {x})))})}, v),
      ObjectStructInfo(), true, {{"global_symbol", String("main")}});
  IRModule mod;
  mod.Add(GlobalVar("main"), main);
  EXPECT_TRUE(HasViolation(WellFormedViolations(mod),
                           {"[unknown-global-var]", "function \"main\"", "variable \"ghost\""}));
}

TEST(WellFormed, FunctionBodyIsASeqExpr) {
  Var x("x", T({4}));
  Function f(Array<Var>{x}, x, T({4}), true, {{"global_symbol", String("f")}});
  EXPECT_TRUE(HasViolation(WellFormedViolations(f), {"[body-not-seq-expr]", "function \"f\""}));
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
