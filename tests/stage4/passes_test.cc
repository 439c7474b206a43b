/*!
 * \file passes_test.cc
 * \brief Tests of the Relax passes and pipelines of stage 4b (AnnotateTIROpPattern,
 * FoldConstant, DeadCodeElimination, CanonicalizeBindings, ConvertToDataflow, ToNonDataflow,
 * DecomposeOpsForInference, AttachGlobalSymbol, relax::GetPipeline): each module is run before
 * and after the pass by the Relax reference interpreter on random inputs and must give the same
 * result; the structural effect of each pass is checked too (what it removed, added or
 * annotated), and pass instruments print a Relax module's per-pass diff.
 */
#include <gtest/gtest.h>

#include <functional>

#include "minitvm/lownumpy/creation.h"
#include "minitvm/lownumpy/elementwise.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/transform.h"
#include "minitvm/tir/function.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

namespace ln = lownumpy;
using runtime::Any;

const DataType kF32 = DataType::Float(32);

Array<PrimExpr> Dims(const std::vector<int64_t>& shape) {
  Array<PrimExpr> out;
  for (int64_t d : shape) out.push_back(IntImm(DataType::Int(64), d));
  return out;
}
Var Param(const std::string& name, const std::vector<int64_t>& shape) {
  return Var(name, TensorStructInfo(ShapeExpr(Dims(shape)), kF32));
}
Array<Any> Ints(std::initializer_list<int64_t> v) {
  Array<Any> out;
  for (int64_t x : v) out.push_back(Any(x));
  return out;
}
Constant Const(const std::vector<int64_t>& shape, uint64_t seed) {
  return Constant(ln::random_uniform(shape, -1, 1, seed));
}

void ExpectSameValue(const Any& want, const Any& got) {
  if (const auto* arr = want.as<runtime::ArrayNode>()) {
    const auto* garr = got.as<runtime::ArrayNode>();
    ASSERT_TRUE(garr);
    ASSERT_EQ(arr->data.size(), garr->data.size());
    for (size_t i = 0; i < arr->data.size(); ++i) ExpectSameValue(arr->data[i], garr->data[i]);
    return;
  }
  NDArray w = want.cast<NDArray>(), g = got.cast<NDArray>();
  ASSERT_EQ(w.Shape(), g.Shape());
  auto wv = testing::ToVector<double>(ln::cast(w, DataType::Float(64)));
  auto gv = testing::ToVector<double>(ln::cast(g, DataType::Float(64)));
  for (size_t i = 0; i < wv.size(); ++i) ASSERT_NEAR(wv[i], gv[i], 1e-4 + 1e-4 * std::abs(wv[i]));
}

/*! \brief Run `main` of both modules on the same random inputs (per the params) and compare. */
void ExpectSameBehaviour(const IRModule& before, const IRModule& after) {
  EXPECT_TRUE(WellFormed(after)) << (WellFormedViolations(after).empty()
                                         ? std::string()
                                         : std::string(WellFormedViolations(after)[0]));
  const auto* f = before->Lookup("main").as<FunctionNode>();
  ASSERT_TRUE(f);
  for (uint64_t seed : {11, 12, 13}) {
    std::vector<Any> args;
    for (size_t i = 0; i < f->params.size(); ++i) {
      const auto* t = GetStructInfoAs<TensorStructInfoNode>(f->params[i]);
      std::vector<int64_t> shape;
      for (const PrimExpr& d : *t->GetShape()) shape.push_back(*AsConstInt(d));
      args.push_back(ln::random_uniform(shape, -2, 2, seed * 10 + i));
    }
    ExpectSameValue(Interpret(before, "main", args), Interpret(after, "main", args));
  }
}

/*! \brief How many calls of `op_name` the Relax functions of `mod` make. */
int CountCalls(const IRModule& mod, const std::string& op_name) {
  struct V : ExprVisitor {
    std::string name;
    int n = 0;
    void VisitExpr_(const CallNode* op) override {
      if (IsOp(op->op, name.c_str())) ++n;
      ExprVisitor::VisitExpr_(op);
    }
  } v;
  v.name = op_name;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (const auto* f = mod->Lookup(gv).as<FunctionNode>()) v.VisitExpr(GetRef<Function>(f));
  }
  return v.n;
}
int CountBindings(const IRModule& mod) {
  struct V : ExprVisitor {
    int n = 0;
    void VisitBinding(const Binding& b) override {
      ++n;
      ExprVisitor::VisitBinding(b);
    }
  } v;
  v.VisitExpr(Downcast<Function>(mod->Lookup("main")));
  return v.n;
}
int CountDataflowBlocks(const IRModule& mod) {
  const auto* f = mod->Lookup("main").as<FunctionNode>();
  int n = 0;
  for (const BindingBlock& b : f->body.as<SeqExprNode>()->blocks)
    n += b.as<DataflowBlockNode>() != nullptr;
  return n;
}

/*! \brief main(x: (4, 8), w: (8, 6)) with a constant subexpression and a dead binding. */
IRModule MLPModule(bool dataflow = true) {
  Var x = Param("x", {4, 8}), w = Param("w", {8, 6});
  BlockBuilder bb;
  bb.BeginFunction("main", {x, w});
  if (dataflow) bb.BeginDataflowBlock();
  Var c = bb.Emit(op::add(Const({6}, 1), Const({6}, 2)));
  Var mm = bb.Emit(op::matmul(x, w));
  Var biased = bb.Emit(op::add(mm, c));
  bb.Emit(op::exp(biased));     // dead
  Var alias = bb.Emit(biased);  // a var-to-var binding
  Var out = dataflow ? bb.EmitOutput(op::nn::relu(alias)) : bb.Emit(op::nn::relu(alias));
  if (dataflow) bb.EndBlock();
  bb.EmitFuncOutput(out);
  return bb.Get();
}

TEST(RelaxPasses, AnnotateTIROpPatternClassifiesKernels) {
  Var x = Param("x", {2, 3, 4, 4}), w = Param("w", {5, 3, 3, 3}), b = Param("b", {4});
  Var m = Param("m", {4, 6});
  BlockBuilder bb;
  bb.BeginFunction("main", {x, w, b, m});
  bb.BeginDataflowBlock();
  Var ew = bb.Emit(op::exp(x));
  Var bc = bb.Emit(op::add(ew, b));
  Var tr = bb.Emit(op::permute_dims(bc, Ints({0, 2, 1, 3})));
  Var rd = bb.Emit(op::sum(tr, Ints({1})));
  Var mm = bb.Emit(op::matmul(rd, m));
  Var cv = bb.Emit(op::nn::conv2d(x, w, Ints({1, 1}), Ints({1, 1})));
  Var gv = bb.EmitOutput(Tuple({mm, cv}));
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  IRModule legal = transform::LegalizeOps()(bb.Get());
  IRModule mod = transform::AnnotateTIROpPattern()(legal);
  std::map<std::string, int64_t> want = {
      {"exp", kElemWise},   {"add", kBroadcast},          {"transpose", kInjective},
      {"sum", kCommReduce}, {"matmul", kOutEWiseFusable}, {"conv2d", kOutEWiseFusable}};
  for (const auto& [name, kind] : want) {
    auto f = mod->Lookup(name).as<tir::PrimFuncNode>();
    ASSERT_TRUE(f) << name;
    auto got = f->GetAttr<int64_t>("op_pattern");
    ASSERT_TRUE(got) << name;
    EXPECT_EQ(*got, kind) << name;
  }
  ExpectSameBehaviour(legal, mod);
}

TEST(RelaxPasses, FoldConstantFoldsOpsAndCallTIR) {
  IRModule before = MLPModule();
  IRModule folded = transform::FoldConstant()(before);
  EXPECT_EQ(CountCalls(before, "relax.add"), 2);
  EXPECT_EQ(CountCalls(folded, "relax.add"), 1);  // the add of two constants is gone
  ExpectSameBehaviour(before, folded);
  // After legalization the constant add is a call_tir with constant arguments: folded too.
  IRModule legal = transform::LegalizeOps()(before);
  int calls = CountCalls(legal, "relax.call_tir");
  IRModule legal_folded = transform::FoldConstant()(legal);
  EXPECT_EQ(CountCalls(legal_folded, "relax.call_tir"), calls - 1);
  ExpectSameBehaviour(before, legal_folded);
}

TEST(RelaxPasses, DeadCodeEliminationRemovesUnusedBindingsAndFunctions) {
  IRModule before = transform::LegalizeOps()(MLPModule());
  IRModule after = transform::DeadCodeElimination({"main"})(before);
  EXPECT_EQ(CountBindings(after), CountBindings(before) - 1);  // the exp
  EXPECT_FALSE(after->ContainGlobalVar("exp"));                // its kernel
  EXPECT_TRUE(after->ContainGlobalVar("matmul"));
  ExpectSameBehaviour(before, after);
  // A second run changes nothing.
  IRModule again = transform::DeadCodeElimination({"main"})(after);
  EXPECT_EQ(CountBindings(again), CountBindings(after));
}

TEST(RelaxPasses, CanonicalizeBindingsRemovesAliases) {
  IRModule before = MLPModule();
  IRModule after = transform::CanonicalizeBindings()(before);
  EXPECT_EQ(CountBindings(after), CountBindings(before) - 1);
  ExpectSameBehaviour(before, after);
}

TEST(RelaxPasses, ConvertToDataflowAndBack) {
  IRModule plain = MLPModule(/*dataflow=*/false);
  EXPECT_EQ(CountDataflowBlocks(plain), 0);
  IRModule df = transform::ConvertToDataflow()(plain);
  EXPECT_EQ(CountDataflowBlocks(df), 1);
  ExpectSameBehaviour(plain, df);
  IRModule back = transform::ToNonDataflow()(df);
  EXPECT_EQ(CountDataflowBlocks(back), 0);
  ExpectSameBehaviour(plain, back);
  // No DataflowVar remains.
  struct V : ExprVisitor {
    int n = 0;
    void VisitVarDef(const Var& v) override { n += v.as<DataflowVarNode>() != nullptr; }
  } v;
  v.VisitExpr(Downcast<Function>(back->Lookup("main")));
  EXPECT_EQ(v.n, 0);
  // A run shorter than min_size stays plain.
  EXPECT_EQ(CountDataflowBlocks(transform::ConvertToDataflow(100)(plain)), 0);
}

TEST(RelaxPasses, DecomposeBatchNormForInference) {
  Var x = Param("x", {2, 3, 4, 4});
  Var g = Param("g", {3}), b = Param("b", {3}), m = Param("m", {3}), v = Param("v", {3});
  BlockBuilder bb;
  bb.BeginFunction("main", {x, g, b, m, v});
  bb.BeginDataflowBlock();
  // Variances must be positive: square them first.
  Var vv = bb.Emit(op::multiply(v, v));
  Var bn = bb.Emit(op::nn::batch_norm(x, g, b, m, vv, 1, 1e-5, true, true, 0.1, false));
  Var out = bb.EmitOutput(TupleGetItem(bn, 0));
  bb.EndBlock();
  bb.EmitFuncOutput(out);
  IRModule before = bb.Get();
  IRModule after = transform::DecomposeOpsForInference()(before);
  EXPECT_EQ(CountCalls(after, "relax.nn.batch_norm"), 0);
  EXPECT_GT(CountCalls(after, "relax.sqrt"), 0);
  ExpectSameBehaviour(before, after);
  // And it legalizes to the same numbers.
  ExpectSameBehaviour(before, transform::LegalizeOps()(after));
}

/*! \brief main(x) = batch_norm(conv2d(x, W))[0] with a constant kernel and vectors. */
IRModule ConvBatchNormModule(int64_t groups, bool conv_used_twice) {
  Var x = Param("x", {1, 4, 7, 6});
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  Var y = bb.Emit(op::nn::conv2d(x, Const({6, 4 / groups, 3, 3}, 21), Ints({2, 1}), Ints({1, 1}),
                                 Ints({1, 1}), groups));
  // Positive variances and scales.
  Constant gamma(ln::random_uniform({6}, 0.5, 1.5, 22)), var(ln::random_uniform({6}, 0.2, 2, 23));
  Var bn = bb.Emit(op::nn::batch_norm(y, gamma, Const({6}, 24), Const({6}, 25), var, 1, 1e-3, true,
                                      true, 0.1, false));
  Var out = bb.Emit(TupleGetItem(bn, 0));
  if (conv_used_twice) out = bb.Emit(op::add(out, y));
  out = bb.EmitOutput(out);
  bb.EndBlock();
  bb.EmitFuncOutput(out);
  return bb.Get();
}

TEST(RelaxPasses, FoldBatchnormToConv2DFoldsIntoTheKernel) {
  for (int64_t groups : {1, 2}) {
    IRModule before = ConvBatchNormModule(groups, false);
    IRModule folded = transform::FoldBatchnormToConv2D()(before);
    EXPECT_EQ(CountCalls(folded, "relax.sqrt"), 1);
    ExpectSameBehaviour(before, folded);
    // FoldConstant computes the new kernel and bias: what is left is conv2d + add.
    IRModule after = transform::DeadCodeElimination()(
        transform::FoldConstant()(transform::CanonicalizeBindings()(folded)));
    EXPECT_EQ(CountCalls(after, "relax.nn.batch_norm"), 0);
    EXPECT_EQ(CountCalls(after, "relax.sqrt"), 0);
    EXPECT_EQ(CountCalls(after, "relax.nn.conv2d"), 1);
    EXPECT_EQ(CountCalls(after, "relax.add"), 1);
    ExpectSameBehaviour(before, after);
  }
  // A convolution whose result is also used elsewhere is not folded (it would run twice).
  IRModule twice = ConvBatchNormModule(1, true);
  EXPECT_TRUE(transform::FoldBatchnormToConv2D()(twice).same_as(twice));
}

TEST(RelaxPasses, AttachGlobalSymbolNamesEveryFunction) {
  IRModule mod = transform::AttachGlobalSymbol()(transform::LegalizeOps()(MLPModule()));
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto sym = mod->Lookup(gv)->GetAttr<String>("global_symbol");
    ASSERT_TRUE(sym) << gv->name_hint;
    EXPECT_EQ(std::string(*sym), std::string(gv->name_hint));
  }
}

TEST(RelaxPipelines, ZeroAndDefault) {
  auto names = [](const transform::Pass& p) {
    std::vector<std::string> out;
    for (const transform::Pass& q : Downcast<minitvm::transform::Sequential>(p)->passes) {
      out.push_back(q.info()->name);
    }
    return out;
  };
  std::vector<std::string> zero = names(GetPipeline("zero"));
  ASSERT_GE(zero.size(), 3u);
  EXPECT_EQ(zero[0], "LegalizeOps");
  EXPECT_EQ(zero[1], "AnnotateTIROpPattern");
  EXPECT_EQ(zero[2], "FoldConstant");
  std::vector<std::string> dflt = names(GetPipeline("default"));
  EXPECT_EQ(dflt.back(), "DeadCodeElimination");
  // default = inference batch norms folded into constant conv kernels, the others decomposed,
  // CanonicalizeBindings, then zero with a DeadCodeElimination before FuseOps and one at the end.
  ASSERT_EQ(dflt.size(), zero.size() + 5);
  EXPECT_EQ(dflt[0], "FoldInferenceBatchnormToConv2D");
  EXPECT_EQ(dflt[1], "DecomposeInferenceBatchNorm");
  EXPECT_EQ(dflt[2], "CanonicalizeBindings");
  EXPECT_EQ(dflt[6], "DeadCodeElimination");
  IRModule before = MLPModule();
  for (const char* name : {"zero", "default"}) {
    IRModule after = GetPipeline(name)(before);
    EXPECT_EQ(CountCalls(after, "relax.matmul"), 0) << name;
    ExpectSameBehaviour(before, after);
  }
  EXPECT_MINITVM_ERROR(GetPipeline("fast"), "ValueError", "\"default\", \"zero\"");
}

TEST(RelaxPipelines, InstrumentsPrintRelaxDiffs) {
  auto ctx = minitvm::transform::PassContext::Create();
  ctx->instruments.push_back(minitvm::transform::PrintDiffInstrument());
  ::testing::internal::CaptureStdout();
  {
    minitvm::transform::PassContext::Scope scope(ctx);
    GetPipeline("zero")(MLPModule());
  }
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("LegalizeOps"), std::string::npos);
  EXPECT_NE(out.find("+            lv1 = R.call_tir(cls.matmul"), std::string::npos) << out;
  EXPECT_NE(out.find("-            lv1: R.Tensor((4, 6), dtype=\"float32\") = R.matmul"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"op_pattern\": 4"), std::string::npos);
}

// The C++ pass of docs/stage4_relax_passes.md ("Writing your own pass"), checked here.
class ReluToMaximum : public ExprMutator {
 public:
  Expr VisitExpr_(const CallNode* op) override {
    Expr e = ExprMutator::VisitExpr_(op);  // rewrite the arguments first
    const auto* call = e.as<CallNode>();
    if (!call || !IsOp(call->op, "relax.nn.relu")) return e;
    const auto* t = GetStructInfoAs<TensorStructInfoNode>(call->args[0]);
    Constant zero(lownumpy::zeros({}, t->dtype));
    return Normalize(op::maximum(call->args[0], zero));  // struct info filled in
  }
};

transform::Pass ReluToMaximumPass() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, transform::PassContext) {
        return MapRelaxFunctions(mod,
                                 [](const Function& f) { return ReluToMaximum().VisitExpr(f); });
      },
      /*opt_level=*/0, "ReluToMaximum");
}

TEST(RelaxPasses, DocsReluToMaximumExample) {
  IRModule before = MLPModule();
  IRModule after = ReluToMaximumPass()(before);
  EXPECT_EQ(CountCalls(after, "relax.nn.relu"), 0);
  EXPECT_EQ(CountCalls(after, "relax.maximum"), 1);
  ExpectSameBehaviour(before, after);
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
