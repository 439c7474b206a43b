/*!
 * \file lift_transform_params_test.cc
 * \brief Stage 4: LiftTransformParams — the bindings computed from a function's weights (its
 * parameters from "num_input" on) move into `<name>_transform_params`; the function then takes
 * its inputs followed by the transformed values. Checked: the structure (parameters, results and
 * their order, attributes, which bindings moved), the results through the Relax interpreter on
 * random inputs (before == transform then main), and the errors (kind and message).
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "minitvm/lownumpy/creation.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/transform.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

namespace ln = lownumpy;
using runtime::Any;

const char* kHeader = R"(from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
)";

// x: input; w1, b, w2: weights. wt and w2s depend on weights only (lifted); s uses no weight
// (a constant computation: stays, and is copied into the transform since w2s needs it); y, z, o
// need the input; b is used as it is.
const char* kMain = R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w1: R.Tensor((6, 8), "float32"), b: R.Tensor((6,), "float32"), w2: R.Tensor((6, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(w1)
            y = R.matmul(x, wt)
            z = R.add(y, b)
            s = R.add(R.const(1.0, "float32"), R.const(1.0, "float32"))
            w2s = R.multiply(w2, s)
            o = R.matmul(z, w2s)
            R.output(o)
        return o
)";

IRModule Parse(const std::string& funcs) {
  return Downcast<IRModule>(script::FromSource(kHeader + funcs, "lift_transform_params_test.py"));
}

std::vector<std::string> ParamNames(const Function& f) {
  std::vector<std::string> out;
  for (const Var& p : f->params) out.push_back(p->name_hint);
  return out;
}

/*! \brief The operators called in `f` (by name), in order. */
std::vector<std::string> Ops(const Function& f) {
  struct V : ExprVisitor {
    std::vector<std::string> ops;
    void VisitExpr_(const CallNode* op) override {
      if (const auto* o = op->op.as<OpNode>()) ops.push_back(o->name);
      ExprVisitor::VisitExpr_(op);
    }
  } v;
  v.VisitExpr(f);
  return v.ops;
}

std::vector<float> RunMain(const IRModule& mod, const std::string& name, std::vector<Any> args) {
  return testing::ToVector<float>(Interpret(mod, name, args).cast<NDArray>());
}

IRModule WithNumInput(const IRModule& mod, const std::string& fn, Any value) {
  IRModule out = mod;
  auto f = Downcast<Function>(mod->Lookup(fn));
  out.Add(*mod->GetGlobalVar(fn), WithAttr(f, "num_input", value));
  return out;
}

TEST(LiftTransformParams, SplitsTheWeightTransforms) {
  IRModule before = Parse(kMain);
  IRModule after = transform::LiftTransformParams()(before);
  EXPECT_TRUE(WellFormed(after));
  auto main = Downcast<Function>(after->Lookup("main"));
  auto tp = Downcast<Function>(after->Lookup("main_transform_params"));
  // main: the input, then the weights used as they are (parameter order), then the lifted values
  // (binding order).
  EXPECT_EQ(ParamNames(main), (std::vector<std::string>{"x", "b", "wt", "w2s"}));
  EXPECT_EQ(main->GetAttr<int64_t>("num_input"), 1);
  EXPECT_EQ(Ops(main), (std::vector<std::string>{"relax.matmul", "relax.add", "relax.matmul"}));
  // The transform: one tuple parameter of the three weights; returns (b, wt, w2s).
  ASSERT_EQ(tp->params.size(), 1u);
  const auto* in = GetStructInfoAs<TupleStructInfoNode>(tp->params[0]);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->fields.size(), 3u);
  const auto* out = tp->ret_struct_info.as<TupleStructInfoNode>();
  ASSERT_TRUE(out);
  EXPECT_EQ(out->fields.size(), 3u);
  EXPECT_EQ(tp->GetAttr<int64_t>("num_input"), 0);
  EXPECT_EQ(tp->GetAttr<std::string>("global_symbol"), "main_transform_params");
  EXPECT_EQ(Ops(tp),
            (std::vector<std::string>{"relax.permute_dims", "relax.add", "relax.multiply"}));
  // No Var is shared between the two functions.
  for (const Var& v : AllVars(tp)) {
    for (const Var& w : AllVars(main)) EXPECT_FALSE(v.same_as(w)) << v->name_hint;
  }
  // Same results: before(x, w1, b, w2) == main(x, *transform((w1, b, w2))).
  for (uint64_t seed : {1, 2, 3}) {
    NDArray x = ln::random_uniform({4, 8}, -1, 1, seed);
    NDArray w1 = ln::random_uniform({6, 8}, -1, 1, seed + 10);
    NDArray b = ln::random_uniform({6}, -1, 1, seed + 20);
    NDArray w2 = ln::random_uniform({6, 3}, -1, 1, seed + 30);
    Array<Any> weights{Any(w1), Any(b), Any(w2)};
    auto transformed = Interpret(after, "main_transform_params", {Any(weights)}).cast<Array<Any>>();
    ASSERT_EQ(transformed.size(), 3u);
    std::vector<Any> args{x};
    for (const Any& t : transformed) args.push_back(t);
    EXPECT_EQ(RunMain(before, "main", {x, w1, b, w2}), RunMain(after, "main", args));
  }
}

TEST(LiftTransformParams, LeavesFunctionsWithoutNumInputAlone) {
  IRModule m = Parse(R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((6, 8), "float32")) -> R.Tensor((4, 6), "float32"):
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            R.output(y)
        return y
)");
  IRModule after = transform::LiftTransformParams()(m);
  EXPECT_FALSE(after->ContainGlobalVar("main_transform_params"));
  EXPECT_TRUE(after->Lookup("main").same_as(m->Lookup("main")));
}

TEST(LiftTransformParams, KeepsBindingsOutsideDataflowAndOnInputs) {
  // A binding outside a dataflow block is not lifted (TVM's rule), even on weights alone.
  IRModule m = Parse(R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((6, 8), "float32")) -> R.Tensor((4, 6), "float32"):
        R.func_attr({"num_input": 1})
        wt = R.permute_dims(w)
        y = R.matmul(x, wt)
        return y
)");
  IRModule after = transform::LiftTransformParams()(m);
  auto main = Downcast<Function>(after->Lookup("main"));
  EXPECT_EQ(ParamNames(main), (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(Ops(main), (std::vector<std::string>{"relax.permute_dims", "relax.matmul"}));
  auto tp = Downcast<Function>(after->Lookup("main_transform_params"));
  EXPECT_TRUE(Ops(tp).empty());
  EXPECT_EQ(tp->ret_struct_info.as<TupleStructInfoNode>()->fields.size(), 1u);
}

TEST(LiftTransformParams, KeepsFunctionsWithoutGlobalSymbol) {
  // The new transform function is public; a main without "global_symbol" must not be dropped
  // as unreachable from it.
  IRModule m = Parse(kMain);
  auto main = Downcast<Function>(m->Lookup("main"));
  Map<String, Any> attrs;
  attrs.Set("num_input", Any(int64_t{1}));
  main.CopyOnWrite()->attrs = attrs;
  m.Add(*m->GetGlobalVar("main"), main);
  IRModule after = transform::LiftTransformParams()(m);
  ASSERT_TRUE(after->ContainGlobalVar("main"));
  EXPECT_EQ(ParamNames(Downcast<Function>(after->Lookup("main"))),
            (std::vector<std::string>{"x", "b", "wt", "w2s"}));
}

TEST(LiftTransformParams, SharedTransformForOneFunction) {
  IRModule after = transform::LiftTransformParams(true)(Parse(kMain));
  EXPECT_TRUE(after->ContainGlobalVar("transform_params"));
  EXPECT_FALSE(after->ContainGlobalVar("main_transform_params"));
  EXPECT_EQ(
      Downcast<Function>(after->Lookup("transform_params"))->GetAttr<std::string>("global_symbol"),
      "transform_params");
}

TEST(LiftTransformParams, Errors) {
  IRModule m = Parse(kMain);
  EXPECT_MINITVM_ERROR(transform::LiftTransformParams()(WithNumInput(m, "main", Any(int64_t{-1}))),
                       "ValueError",
                       "function main has \"num_input\" = -1, but it has 4 parameters");
  EXPECT_MINITVM_ERROR(transform::LiftTransformParams()(WithNumInput(m, "main", Any(int64_t{5}))),
                       "ValueError",
                       "function main has \"num_input\" = 5, but it has 4 parameters");
  EXPECT_MINITVM_ERROR(
      transform::LiftTransformParams()(WithNumInput(m, "main", Any(String("one")))), "ValueError",
      "function main has \"num_input\" = \"one\", which is not an integer");
  // Two functions with "num_input" and one shared transform.
  IRModule two = m;
  two.Add(GlobalVar(String("other")), Downcast<Function>(m->Lookup("main")));
  EXPECT_MINITVM_ERROR(transform::LiftTransformParams(true)(two), "ValueError",
                       "minitvm supports for one function only; the module has 2 (main, other)");
  EXPECT_MINITVM_ERROR(transform::LiftTransformParams(true, {String("nope")})(m), "ValueError",
                       "shared_transform names function nope, which the module does not have");
  // Lifting twice.
  IRModule once = transform::LiftTransformParams()(m);
  EXPECT_MINITVM_ERROR(transform::LiftTransformParams()(once), "ValueError",
                       "already has a function main_transform_params");
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
