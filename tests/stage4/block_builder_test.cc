/*!
 * \file block_builder_test.cc
 * \brief Stage 4: the BlockBuilder — scopes, fresh names, normalisation (struct info of every
 * expression kind, A-normal form of nested calls, calls of functions with symbolic shapes),
 * emit_te, the module, and every misuse error (kind and message).
 */
#include "minitvm/relax/block_builder.h"

#include <gtest/gtest.h>

#include "minitvm/ir/structural.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

// Test-only operators: the identity, an impure one, and one whose inference always fails.
MINITVM_REGISTER_OP("test.bb_identity")
    .set_num_inputs(1)
    .set_attr_typed(kFInferStructInfo, [](Call call) { return GetStructInfo(call->args[0]); })
    .set_attr(kFPurity, true);
MINITVM_REGISTER_OP("test.bb_impure")
    .set_num_inputs(1)
    .set_attr_typed(kFInferStructInfo, [](Call) { return StructInfo(ObjectStructInfo()); })
    .set_attr(kFPurity, false);
MINITVM_REGISTER_OP("test.bb_fail")
    .set_num_inputs(1)
    .set_attr_typed(kFInferStructInfo,
                    [](Call) -> StructInfo {
                      MINITVM_THROW(TypeError) << "test.bb_fail: argument x1 is not acceptable";
                    })
    .set_attr(kFPurity, true);

Call Identity(Expr x) { return Call(Op::Get("test.bb_identity"), {x}); }
Call Impure(Expr x) { return Call(Op::Get("test.bb_impure"), {x}); }
Call Fail(Expr x) { return Call(Op::Get("test.bb_fail"), {x}); }

StructInfo T(Array<PrimExpr> shape, DataType dtype = DataType::Float(32)) {
  return TensorStructInfo(ShapeExpr(shape), dtype);
}
bool SameInfo(const Expr& e, const StructInfo& want) {
  return StructuralEqual(GetStructInfo(e), want);
}
const FunctionNode* Fn(const IRModule& mod, const std::string& name) {
  return mod->Lookup(name).as<FunctionNode>();
}

TEST(BlockBuilder, DataflowNamesKindsAndStructInfo) {
  tir::Var n("n", DataType::Int(64));
  Var x("x", T({n, 4})), y("y", T({n, 4}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x, y});
  bb.BeginDataflowBlock();
  EXPECT_TRUE(bb.CurrentBlockIsDataflow());
  Var lv = bb.Emit(op::add(x, y));
  Var lv1 = bb.Emit(op::multiply(lv, x));
  Var gv = bb.EmitOutput(op::nn::relu(lv1));
  bb.EndBlock();
  EXPECT_FALSE(bb.CurrentBlockIsDataflow());
  GlobalVar main = bb.EmitFuncOutput(gv);

  EXPECT_EQ(lv->name_hint, "lv");
  EXPECT_EQ(lv1->name_hint, "lv1");
  EXPECT_EQ(gv->name_hint, "gv");
  EXPECT_TRUE(lv.as<DataflowVarNode>());
  EXPECT_TRUE(lv1.as<DataflowVarNode>());
  EXPECT_FALSE(gv.as<DataflowVarNode>());
  for (const Var& v : {lv, lv1, gv}) EXPECT_TRUE(SameInfo(v, T({n, 4})));

  IRModule mod = bb.Get();
  EXPECT_EQ(main->name_hint, "main");
  const FunctionNode* f = Fn(mod, "main");
  ASSERT_NE(f, nullptr);
  const auto* seq = f->body.as<SeqExprNode>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->blocks.size(), 1u);
  EXPECT_TRUE(seq->blocks[0].as<DataflowBlockNode>());
  EXPECT_EQ(seq->blocks[0]->bindings.size(), 3u);
  EXPECT_TRUE(seq->body.same_as(gv));
  EXPECT_TRUE(StructuralEqual(f->ret_struct_info, T({n, 4})));
  EXPECT_TRUE(WellFormed(mod)) << WellFormedViolations(mod).size();
}

TEST(BlockBuilder, NestedCallsAreBoundToFreshVariables) {
  Var x("x", T({4})), y("y", T({4}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x, y});
  bb.BeginDataflowBlock();
  Var out = bb.Emit(op::add(op::multiply(x, y), op::subtract(x, y)));
  Var gv = bb.EmitOutput(out);
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  const auto* seq = Fn(bb.Get(), "main")->body.as<SeqExprNode>();
  const auto& bindings = seq->blocks[0]->bindings;
  ASSERT_EQ(bindings.size(), 4u);
  EXPECT_EQ(bindings[0]->var->name_hint, "lv");
  EXPECT_EQ(bindings[1]->var->name_hint, "lv1");
  EXPECT_EQ(bindings[2]->var->name_hint, "lv2");
  EXPECT_TRUE(out.same_as(bindings[2]->var));
  const auto* add = bindings[2].as<VarBindingNode>()->value.as<CallNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->args[0].same_as(bindings[0]->var));
  EXPECT_TRUE(add->args[1].same_as(bindings[1]->var));
  EXPECT_TRUE(WellFormed(bb.Get()));
}

TEST(BlockBuilder, NameHintsAreMadeUnique) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  Var a = bb.Emit(Identity(x), "h");
  Var b = bb.Emit(Identity(a), "h");
  Var c = bb.Emit(Identity(b));
  EXPECT_EQ(a->name_hint, "h");
  EXPECT_EQ(b->name_hint, "h1");
  EXPECT_EQ(c->name_hint, "gv");  // outside a dataflow block: a plain Var
  EXPECT_FALSE(c.as<DataflowVarNode>());
  bb.EmitFuncOutput(c);
  // A second function with the same name gets a fresh one.
  Var z("z", T({2}));
  bb.BeginFunction("main", {z});
  GlobalVar gv2 = bb.EmitFuncOutput(z);
  EXPECT_EQ(gv2->name_hint, "main1");
}

TEST(BlockBuilder, NonLeafFunctionOutputIsBound) {
  Var x("x", T({3}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.EmitFuncOutput(op::add(x, x));
  const auto* seq = Fn(bb.Get(), "main")->body.as<SeqExprNode>();
  ASSERT_EQ(seq->blocks.size(), 1u);
  EXPECT_FALSE(seq->blocks[0].as<DataflowBlockNode>());
  EXPECT_TRUE(seq->body.as<VarNode>());
  EXPECT_TRUE(SameInfo(seq->body, T({3})));
  EXPECT_TRUE(WellFormed(bb.Get()));
}

TEST(BlockBuilder, CallOfGlobalFunctionSubstitutesSymbolicShapes) {
  tir::Var m("m", DataType::Int(64));
  Var a("a", T({m, 4}));
  BlockBuilder bb;
  bb.BeginFunction("f", {a});
  GlobalVar f = bb.EmitFuncOutput(op::add(a, a));
  Var x("x", T({8, 4}));
  bb.BeginFunction("main", {x});
  Var r = bb.Emit(Call(f, {x}));
  EXPECT_TRUE(SameInfo(r, T({8, 4})));
  bb.EmitFuncOutput(r);
  EXPECT_TRUE(WellFormed(bb.Get()));

  // A mismatching argument (rank 1 for a rank-2 parameter) is refused, naming the callee.
  Var bad("bad", T({8}));
  bb.BeginFunction("g", {bad});
  EXPECT_MINITVM_ERROR(bb.Emit(Call(f, {bad})), "ValueError", "call of function \"f\"");
}

TEST(BlockBuilder, CallOfFunctionValuedVarAndExternFunc) {
  tir::Var k("k", DataType::Int(64));
  Var g("g", FuncStructInfo({T({k})}, T({k, 2})));
  Var x("x", T({5}));
  Expr call = Normalize(Call(g, {x}));
  EXPECT_TRUE(SameInfo(call, T({5, 2})));
  // Opaque callee: the sinfo_args give the result.
  Expr ext = Normalize(Call(ExternFunc("env.f"), {x}, {}, {T({7})}));
  EXPECT_TRUE(SameInfo(ext, T({7})));
  // A GlobalVar the builder does not know is opaque.
  Expr unknown = Normalize(Call(GlobalVar("nowhere"), {x}));
  EXPECT_TRUE(GetStructInfo(unknown).as<ObjectStructInfoNode>());
  // Arity mismatch.
  EXPECT_MINITVM_ERROR(Normalize(Call(g, {x, x})), "ValueError", "takes 1 argument(s) but 2");
  // Calling a tensor.
  EXPECT_MINITVM_ERROR(Normalize(Call(x, {x})), "TypeError", "not a function");
}

TEST(BlockBuilder, LeavesTuplesAndTupleGetItem) {
  tir::Var n("n", DataType::Int(64));
  Expr shape = Normalize(ShapeExpr({n, 3}));
  EXPECT_TRUE(SameInfo(shape, ShapeStructInfo(Array<PrimExpr>{n, 3})));
  Expr pv = Normalize(PrimValue(IntImm(DataType::Int(64), 1)));
  EXPECT_TRUE(GetStructInfo(pv).as<PrimStructInfoNode>());
  Expr s = Normalize(StringImm("hi"));
  EXPECT_TRUE(GetStructInfo(s).as<ObjectStructInfoNode>());
  Var x("x", T({2})), y("y", T({3}, DataType::Int(32)));
  Expr tup = Normalize(Tuple({x, y}));
  EXPECT_TRUE(SameInfo(tup, TupleStructInfo({T({2}), T({3}, DataType::Int(32))})));
  Expr item = Normalize(TupleGetItem(Tuple({x, y}), 1));
  EXPECT_TRUE(SameInfo(item, T({3}, DataType::Int(32))));
  EXPECT_MINITVM_ERROR(Normalize(TupleGetItem(Tuple({x, y}), 2)), "IndexError", "index 2");
  EXPECT_MINITVM_ERROR(Normalize(TupleGetItem(x, 0)), "TypeError", "not a tuple");
  Var nothing("nothing");
  EXPECT_MINITVM_ERROR(Normalize(Tuple({nothing})), "ValueError",
                       "variable \"nothing\" has no struct info");
}

TEST(BlockBuilder, IfTakesTheLeastCommonStructInfo) {
  Var c("c", TensorStructInfo(ShapeExpr(Array<PrimExpr>{}), DataType::Bool()));
  Var a("a", T({4})), b("b", T({8}));
  Expr e = Normalize(If(c, SeqExpr({}, a), b));
  const auto* t = GetStructInfoAs<TensorStructInfoNode>(e);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ndim, 1);
  EXPECT_EQ(t->dtype, DataType::Float(32));
  EXPECT_FALSE(t->GetShape().has_value());
  // Both branches are SeqExprs after normalisation.
  EXPECT_TRUE(e.as<IfNode>()->false_branch.as<SeqExprNode>());
}

TEST(BlockBuilder, SeqExprNormalisationBindsNonLeafBody) {
  Var x("x", T({4}));
  Var lv("lv");  // no annotation: takes its value's struct info
  SeqExpr seq({BindingBlock({VarBinding(lv, op::add(x, x))})}, op::multiply(lv, x));
  Expr out = Normalize(seq);
  const auto* s = out.as<SeqExprNode>();
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(SameInfo(lv, T({4})));
  // The body's binding joins the binding block before it (adjacent blocks of a kind merge).
  ASSERT_EQ(s->blocks.size(), 1u);
  EXPECT_EQ(s->blocks[0]->bindings.size(), 2u);
  EXPECT_TRUE(s->body.as<VarNode>());
  EXPECT_TRUE(SameInfo(out, T({4})));
}

TEST(BlockBuilder, MatchCastAndEmitNormalized) {
  Var x("x", ObjectStructInfo());
  tir::Var n("n", DataType::Int(64));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  Var t = bb.EmitMatchCast(x, T({n, 2}));
  EXPECT_TRUE(SameInfo(t, T({n, 2})));
  Var v("v", T({n, 2}));
  Expr value = bb.Normalize(op::add(t, t));
  bb.EmitNormalized(VarBinding(v, value));
  bb.EmitFuncOutput(v);
  const auto* seq = Fn(bb.Get(), "main")->body.as<SeqExprNode>();
  ASSERT_EQ(seq->blocks[0]->bindings.size(), 2u);
  EXPECT_TRUE(seq->blocks[0]->bindings[0].as<MatchCastNode>());
  EXPECT_TRUE(WellFormed(bb.Get()));

  BlockBuilder bb2;
  bb2.BeginFunction("main", {x});
  EXPECT_MINITVM_ERROR(bb2.EmitNormalized(VarBinding(Var("w"), op::add(t, t))), "ValueError",
                       "not normalised");
  EXPECT_MINITVM_ERROR(bb2.EmitNormalized(VarBinding(DataflowVar("d", T({n, 2})), value)),
                       "ValueError", "DataflowVar \"d\" cannot be bound outside a dataflow block");
}

TEST(BlockBuilder, EmitTEMakesAPrimFuncAndCallsIt) {
  tir::Var n("n", DataType::Int(64));
  Var x("x", T({n, 4}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  auto add_one = [](const Array<te::Tensor>& in) -> Array<te::Tensor> {
    te::Tensor a = in[0];
    return {te::compute(
        a->shape,
        [&](tir::Var i, tir::Var j) { return a(i, j) + FloatImm(DataType::Float(32), 1); },
        "add_one")};
  };
  Var lv = bb.EmitTE(add_one, {x}, "add_one");
  Var lv1 = bb.EmitTE(add_one, {x}, "add_one");
  Var gv = bb.EmitOutput(op::add(lv, lv1));
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  IRModule mod = bb.Get();
  EXPECT_TRUE(SameInfo(lv, T({n, 4})));
  ASSERT_TRUE(mod->ContainGlobalVar("add_one"));
  EXPECT_TRUE(mod->Lookup("add_one").as<tir::PrimFuncNode>());
  // The second emit_te builds the very same PrimFunc: it is reused, not added again.
  EXPECT_FALSE(mod->ContainGlobalVar("add_one1"));
  const auto* seq = Fn(mod, "main")->body.as<SeqExprNode>();
  const auto* call = seq->blocks[0]->bindings[0].as<VarBindingNode>()->value.as<CallNode>();
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(IsOp(call->op, "relax.call_tir"));
  EXPECT_EQ(call->args[0].as<GlobalVarNode>()->name_hint, "add_one");
  ASSERT_EQ(call->sinfo_args.size(), 1u);
  EXPECT_TRUE(StructuralEqual(call->sinfo_args[0], T({n, 4})));
  EXPECT_TRUE(WellFormed(mod));
  // The placeholder is named after the Relax variable.
  const auto* prim = mod->Lookup("add_one").as<tir::PrimFuncNode>();
  EXPECT_EQ(std::string(prim->buffer_map.Get(prim->params[0]).value()->name), "x");
}

TEST(BlockBuilder, EmitTEPassesUnboundSymbolicVarsAsTirVars) {
  tir::Var n("n", DataType::Int(64)), m("m", DataType::Int(64));
  Var x("x", T({n}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  Var out = bb.EmitTE(
      [&](const Array<te::Tensor>& in) -> Array<te::Tensor> {
        te::Tensor a = in[0];
        return {te::compute(
            {m}, [&](tir::Var i) { return a(tir::floormod(i, n)); }, "tile")};
      },
      {x}, "tile");
  EXPECT_TRUE(SameInfo(out, T({m})));
  bb.EmitFuncOutput(out);
  const auto* body = Fn(bb.Get(), "main")->body.as<SeqExprNode>();
  const auto* call = body->blocks[0]->bindings[0].as<VarBindingNode>()->value.as<CallNode>();
  ASSERT_EQ(call->args.size(), 3u);
  const auto* tir_vars = call->args[2].as<ShapeExprNode>();
  ASSERT_NE(tir_vars, nullptr);
  ASSERT_EQ(tir_vars->values.size(), 1u);
  EXPECT_TRUE(tir_vars->values[0].same_as(m));
}

TEST(BlockBuilder, EmitTERefusesNonTensorArguments) {
  Var s("s", ShapeStructInfo(2));
  BlockBuilder bb;
  bb.BeginFunction("main", {s});
  EXPECT_MINITVM_ERROR(bb.EmitTE([](const Array<te::Tensor>& in) { return in; }, {s}, "f"),
                       "ValueError",
                       "emit_te: argument 0 must be a tensor of known shape and dtype");
}

TEST(BlockBuilder, AddUpdateAndLookupFunctions) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("f", {x});
  GlobalVar f = bb.EmitFuncOutput(x);
  ASSERT_TRUE(bb.LookupFunction(f).has_value());
  Var y("y", T({2}));
  Function g({y}, SeqExpr({}, y), T({2}));
  bb.UpdateFunction(f, g);
  EXPECT_TRUE(bb.Get()->Lookup("f").same_as(g));
  GlobalVar g2 = bb.AddFunction(g, "f");
  EXPECT_EQ(g2->name_hint, "f");  // the same function: deduplicated
  EXPECT_MINITVM_ERROR(bb.UpdateFunction(GlobalVar("missing"), g), "ValueError",
                       "no function \"missing\"");
  // The builder over an existing module keeps its functions.
  BlockBuilder bb2(bb.Get());
  EXPECT_TRUE(bb2.Get()->ContainGlobalVar("f"));
}

// ---- misuse ---------------------------------------------------------------------------------

TEST(BlockBuilderErrors, EmitOutputOutsideDataflowBlock) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  EXPECT_MINITVM_ERROR(bb.EmitOutput(Identity(x)), "ValueError",
                       "EmitOutput: only a dataflow block has outputs");
}

TEST(BlockBuilderErrors, EmitFuncOutputInsideOpenDataflowBlock) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  Var gv = bb.EmitOutput(Identity(x));
  EXPECT_MINITVM_ERROR(bb.EmitFuncOutput(gv), "ValueError",
                       "function \"main\" still has an open dataflow block");
}

TEST(BlockBuilderErrors, BeginFunctionInsideFunction) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  EXPECT_MINITVM_ERROR(bb.BeginFunction("inner", {x}), "ValueError",
                       "cannot begin function \"inner\" inside function \"main\"");
}

TEST(BlockBuilderErrors, DataflowVarUsedAfterItsBlock) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  Var lv = bb.Emit(Identity(x));
  bb.EndBlock();
  EXPECT_MINITVM_ERROR(bb.Emit(Identity(lv)), "ValueError",
                       "DataflowVar \"lv\" is used in the binding of \"gv\" outside the dataflow "
                       "block that binds it");
  EXPECT_MINITVM_ERROR(bb.EmitFuncOutput(lv), "ValueError",
                       "DataflowVar \"lv\" is used in the output of function \"main\"");
  // ... and in a later dataflow block.
  BlockBuilder bb2;
  bb2.BeginFunction("main", {x});
  bb2.BeginDataflowBlock();
  Var a = bb2.Emit(Identity(x));
  bb2.EndBlock();
  bb2.BeginDataflowBlock();
  EXPECT_MINITVM_ERROR(bb2.Emit(Identity(a)), "ValueError", "DataflowVar \"lv\"");
}

TEST(BlockBuilderErrors, ImpureCallInsideDataflowBlock) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  EXPECT_MINITVM_ERROR(bb.Emit(Impure(x)), "ValueError",
                       "calls operator test.bb_impure, which is impure");
  // Nested: the impure inner call is refused too.
  EXPECT_MINITVM_ERROR(bb.Emit(Identity(Impure(x))), "ValueError", "impure");
  bb.EndBlock();
  // Outside the dataflow block it is fine.
  Var ok = bb.Emit(Impure(x));
  EXPECT_EQ(ok->name_hint, "gv");

  // A call of an impure function (here an ExternFunc, opaque and impure) likewise.
  BlockBuilder bb2;
  bb2.BeginFunction("main", {x});
  bb2.BeginDataflowBlock();
  EXPECT_MINITVM_ERROR(bb2.Emit(Call(ExternFunc("env.print"), {x}, {}, {T({2})})), "ValueError",
                       "extern function \"env.print\", which is impure");
}

TEST(BlockBuilderErrors, ParametersWithoutStructInfo) {
  Var x("x");
  BlockBuilder bb;
  EXPECT_MINITVM_ERROR(bb.BeginFunction("main", {x}), "ValueError",
                       "parameter \"x\" of function \"main\" has no struct info");
}

TEST(BlockBuilderErrors, InferenceErrorsNameTheBinding) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  EXPECT_MINITVM_ERROR(bb.Emit(Fail(x)), "TypeError",
                       "test.bb_fail: argument x1 is not acceptable (while normalising the "
                       "binding of \"lv\")");
  EXPECT_MINITVM_ERROR(bb.Emit(Fail(x), "named"), "TypeError",
                       "(while normalising the binding of \"named\")");
  // The failed emits did not use up the names.
  Var lv = bb.Emit(Identity(x));
  EXPECT_EQ(lv->name_hint, "lv");
  // A real operator's message comes through too.
  Var y("y", T({3}));
  try {
    bb.Emit(op::add(x, y));
    ADD_FAILURE() << "adding shapes (2,) and (3,) did not fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(while normalising the binding of \"lv1\")"),
              std::string::npos)
        << e.what();
  }
}

TEST(BlockBuilderErrors, EmitOutsideAnyFunctionOrBlock) {
  Var x("x", T({2}));
  BlockBuilder bb;
  EXPECT_MINITVM_ERROR(bb.Emit(Identity(x)), "ValueError", "no function or binding block is open");
  EXPECT_MINITVM_ERROR(bb.EmitFuncOutput(x), "ValueError", "no function is being built");
  EXPECT_MINITVM_ERROR(bb.EndBlock(), "ValueError", "no block is open");
  // A bare binding block works without a function.
  bb.BeginBindingBlock();
  Var v = bb.Emit(Identity(x));
  BindingBlock block = bb.EndBlock();
  ASSERT_EQ(block->bindings.size(), 1u);
  EXPECT_TRUE(block->bindings[0]->var.same_as(v));
}

TEST(BlockBuilderErrors, NestedDataflowBlocks) {
  Var x("x", T({2}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  EXPECT_MINITVM_ERROR(bb.BeginDataflowBlock(), "ValueError",
                       "cannot begin a dataflow block inside another dataflow block");
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
