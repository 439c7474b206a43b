/*!
 * \file layout_rewrite_test.cc
 * \brief Stage 4: weight packing at compile time — AttachAttrLayoutFreeBuffers (which PrimFunc
 * parameters receive constants) and SplitLayoutRewritePreproc (a block annotated
 * "meta_schedule.layout_rewrite_preproc" moved into a PrimFunc of its own, called on the weight,
 * which FoldConstant then folds). Modules are written in TVMScript; each one is run before and
 * after the passes by the Relax reference interpreter on random inputs and must agree.
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
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt_functor.h"
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

// Y = X @ W^T, with W [6, 8] packed into panels WP[2][8][3] by a block marked as layout-rewrite
// preprocessing (what the CPU GEMM rule makes of a constant weight).
const char* kDensePacked = R"(
    @T.prim_func(private=True)
    def dense(X: T.Buffer((4, 8), "float32"), W: T.Buffer((6, 8), "float32"), Y: T.Buffer((4, 6), "float32")):
        T.func_attr({"tir.noalias": True})
        WP = T.alloc_buffer((2, 8, 3), "float32")
        for jo, k, ji in T.grid(2, 8, 3):
            with T.block("pack"):
                vjo, vk, vji = T.axis.remap("SSS", [jo, k, ji])
                T.reads(W[vjo * 3 + vji, vk])
                T.writes(WP[vjo, vk, vji])
                T.block_attr({"meta_schedule.layout_rewrite_preproc": T.bool(True)})
                WP[vjo, vk, vji] = W[vjo * 3 + vji, vk]
        for i, j, k in T.grid(4, 6, 8):
            with T.block("dense"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(X[vi, vk], WP[vj // 3, vk, vj % 3])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * WP[vj // 3, vk, vj % 3]
)";

// The same computation without any annotation (what AttachAttrLayoutFreeBuffers reads).
const char* kDensePlain = R"(
    @T.prim_func(private=True)
    def dense(X: T.Buffer((4, 8), "float32"), W: T.Buffer((6, 8), "float32"), Y: T.Buffer((4, 6), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j, k in T.grid(4, 6, 8):
            with T.block("dense"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
)";

const char* kMain = R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((6, 8), "float32")) -> R.Tensor((4, 6), "float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.dense, (x, w), out_sinfo=R.Tensor((4, 6), "float32"))
            R.output(y)
        return y
)";

IRModule Parse(const std::string& funcs, const std::string& main) {
  return Downcast<IRModule>(script::FromSource(kHeader + funcs + main, "layout_rewrite_test.py"));
}

NDArray Weight() { return ln::random_uniform({6, 8}, -1, 1, 7); }

/*! \brief `mod` with main's parameter w bound to Weight(). */
IRModule BindW(const IRModule& mod) {
  Map<Any, NDArray> params;
  params.Set(Any(String("w")), Weight());
  return transform::BindParams("main", params)(mod);
}

int CountCallTIR(const IRModule& mod) {
  struct V : ExprVisitor {
    int n = 0;
    void VisitExpr_(const CallNode* op) override {
      if (IsOp(op->op, "relax.call_tir")) ++n;
      ExprVisitor::VisitExpr_(op);
    }
  } v;
  v.VisitExpr(Downcast<Function>(mod->Lookup("main")));
  return v.n;
}

/*! \brief main's results on the same random inputs (w, when still a parameter, is Weight()). */
void ExpectSameResults(const IRModule& before, const IRModule& after) {
  EXPECT_TRUE(WellFormed(after));
  for (uint64_t seed : {1, 2}) {
    NDArray x = ln::random_uniform({4, 8}, -1, 1, seed);
    auto args_for = [&](const IRModule& m) {
      std::vector<Any> args{x};
      if (Downcast<Function>(m->Lookup("main"))->params.size() == 2) args.push_back(Weight());
      return args;
    };
    auto want =
        testing::ToVector<float>(Interpret(before, "main", args_for(before)).cast<NDArray>());
    auto got = testing::ToVector<float>(Interpret(after, "main", args_for(after)).cast<NDArray>());
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(want[i], got[i]) << i;
  }
}

std::vector<int64_t> LayoutFree(const IRModule& mod, const std::string& name) {
  auto f = Downcast<tir::PrimFunc>(mod->Lookup(name));
  std::vector<int64_t> out;
  auto attr = f->attrs.Get(String("layout_free_buffers"));
  if (!attr) return out;
  for (const Any& v : attr->cast<Array<Any>>()) out.push_back(v.cast<int64_t>());
  return out;
}

TEST(LayoutRewrite, AttachMarksConstantArguments) {
  IRModule args = Parse(kDensePlain, kMain);
  // Weights as arguments: nothing is layout free.
  IRModule same = transform::AttachAttrLayoutFreeBuffers()(args);
  EXPECT_TRUE(LayoutFree(same, "dense").empty());
  // Bound: the weight parameter (index 1) is.
  IRModule bound = transform::AttachAttrLayoutFreeBuffers()(BindW(args));
  EXPECT_EQ(LayoutFree(bound, "dense"), std::vector<int64_t>{1});
  ExpectSameResults(args, bound);
}

TEST(LayoutRewrite, AttachFollowsConstantBindingsAndNumInput) {
  // A variable bound to a constant counts as the constant.
  IRModule m = Parse(kDensePlain, R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((4, 6), "float32"):
        cls = Module
        with R.dataflow():
            c = R.const(1.5, "float32")
            w = R.broadcast_to(c, R.shape([6, 8]))
            y = R.call_tir(cls.dense, (x, w), out_sinfo=R.Tensor((4, 6), "float32"))
            R.output(y)
        return y
)");
  IRModule folded = transform::FoldConstant()(m);
  EXPECT_EQ(LayoutFree(transform::AttachAttrLayoutFreeBuffers()(folded), "dense"),
            std::vector<int64_t>{1});
  // TVM's "num_input" (the parameters from that index on are weights) marks them too, for
  // LiftTransformParams; tvm.compile's "default" build (mark_num_input = false) marks constants
  // only.
  IRModule args = Parse(kDensePlain, kMain);
  auto main = Downcast<Function>(args->Lookup("main"));
  IRModule with_num = args;
  with_num.Add(*args->GetGlobalVar("main"), WithAttr(main, "num_input", Any(int64_t{1})));
  EXPECT_EQ(LayoutFree(transform::AttachAttrLayoutFreeBuffers()(with_num), "dense"),
            std::vector<int64_t>{1});
  EXPECT_TRUE(LayoutFree(transform::AttachAttrLayoutFreeBuffers(false)(with_num), "dense").empty());
}

TEST(LayoutRewrite, AttachCopiesAPrimFuncCalledBothWays) {
  IRModule m = Parse(kDensePlain, R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((6, 8), "float32"), v: R.Tensor((6, 8), "float32")) -> R.Tensor((4, 6), "float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.dense, (x, w), out_sinfo=R.Tensor((4, 6), "float32"))
            z = R.call_tir(cls.dense, (x, v), out_sinfo=R.Tensor((4, 6), "float32"))
            s = R.add(y, z)
            R.output(s)
        return s
)");
  IRModule bound = BindW(m);
  IRModule after = transform::AttachAttrLayoutFreeBuffers()(bound);
  int with_attr = 0, without = 0;
  for (const GlobalVar& gv : after->GetGlobalVars()) {
    if (!after->Lookup(gv).as<tir::PrimFuncNode>()) continue;
    (LayoutFree(after, gv->name_hint).empty() ? without : with_attr)++;
  }
  EXPECT_EQ(with_attr, 1);
  EXPECT_EQ(without, 1);
  EXPECT_EQ(CountCallTIR(after), 2);
  for (uint64_t seed : {3, 4}) {
    std::vector<Any> a{ln::random_uniform({4, 8}, -1, 1, seed),
                       ln::random_uniform({6, 8}, -1, 1, seed + 10)};
    auto want = testing::ToVector<float>(Interpret(bound, "main", a).cast<NDArray>());
    auto got = testing::ToVector<float>(Interpret(after, "main", a).cast<NDArray>());
    EXPECT_EQ(want, got);
  }
}

TEST(LayoutRewrite, SplitMovesThePackingOut) {
  IRModule before = Parse(kDensePacked, kMain);
  IRModule after = transform::SplitLayoutRewritePreproc()(before);
  EXPECT_FALSE(after->ContainGlobalVar("dense"));
  ASSERT_TRUE(after->ContainGlobalVar("dense_weight_prepack"));
  ASSERT_TRUE(after->ContainGlobalVar("dense_prepacked"));
  auto pre = Downcast<tir::PrimFunc>(after->Lookup("dense_weight_prepack"));
  auto comp = Downcast<tir::PrimFunc>(after->Lookup("dense_prepacked"));
  // prepack(W, WP); prepacked(X, WP, Y) with WP no longer allocated inside.
  ASSERT_EQ(pre->params.size(), 2u);
  EXPECT_EQ(std::string((*pre->buffer_map.Get(pre->params[0]))->name), "W");
  EXPECT_EQ(std::string((*pre->buffer_map.Get(pre->params[1]))->name), "WP");
  ASSERT_EQ(comp->params.size(), 3u);
  EXPECT_EQ(std::string((*comp->buffer_map.Get(comp->params[1]))->name), "WP");
  EXPECT_TRUE(comp->body.as<tir::BlockRealizeNode>()->block->alloc_buffers.empty());
  int annotated = 0;
  for (const tir::PrimFunc& f : {pre, comp}) {
    tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
      if (const auto* b = n.as<tir::BlockNode>()) {
        annotated += b->annotations.count(String("meta_schedule.layout_rewrite_preproc"));
      }
    });
  }
  EXPECT_EQ(annotated, 0);
  EXPECT_EQ(CountCallTIR(after), 2);
  ExpectSameResults(before, after);
  // Nothing annotated: the module is returned as it is.
  IRModule plain = Parse(kDensePlain, kMain);
  EXPECT_TRUE(transform::SplitLayoutRewritePreproc()(plain).same_as(plain));
}

TEST(LayoutRewrite, BoundWeightFoldsIntoPackedConstant) {
  IRModule before = BindW(Parse(kDensePacked, kMain));
  IRModule split = transform::SplitLayoutRewritePreproc()(before);
  IRModule folded = transform::DeadCodeElimination()(transform::FoldConstant()(split));
  EXPECT_EQ(CountCallTIR(folded), 1);
  EXPECT_FALSE(folded->ContainGlobalVar("dense_weight_prepack"));
  // The constant the compute kernel receives is the packed weight: WP[jo][k][ji] = W[jo*3+ji][k].
  struct Find : ExprVisitor {
    std::vector<NDArray> consts;
    void VisitExpr_(const ConstantNode* op) override { consts.push_back(op->data); }
  } find;
  find.VisitExpr(Downcast<Function>(folded->Lookup("main")));
  ASSERT_EQ(find.consts.size(), 1u);
  EXPECT_EQ(find.consts[0].Shape(), (std::vector<int64_t>{2, 8, 3}));
  auto w = testing::ToVector<float>(Weight());
  auto wp = testing::ToVector<float>(find.consts[0]);
  for (int jo = 0; jo < 2; ++jo) {
    for (int k = 0; k < 8; ++k) {
      for (int ji = 0; ji < 3; ++ji) EXPECT_EQ(wp[(jo * 8 + k) * 3 + ji], w[(jo * 3 + ji) * 8 + k]);
    }
  }
  ExpectSameResults(before, folded);
}

TEST(LayoutRewrite, SplitRefusesMixedOrWideBlocks) {
  // The packing inside the compute's loop nest: not a statement of its own.
  std::string mixed = R"(
    @T.prim_func(private=True)
    def dense(X: T.Buffer((4, 8), "float32"), W: T.Buffer((6, 8), "float32"), Y: T.Buffer((4, 6), "float32")):
        WP = T.alloc_buffer((6, 8), "float32")
        for i in range(4):
            for j, k in T.grid(6, 8):
                with T.block("pack"):
                    vj, vk = T.axis.remap("SS", [j, k])
                    T.reads(W[vj, vk])
                    T.writes(WP[vj, vk])
                    T.block_attr({"meta_schedule.layout_rewrite_preproc": T.bool(True)})
                    WP[vj, vk] = W[vj, vk]
            for j, k in T.grid(6, 8):
                with T.block("dense"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + X[vi, vk] * WP[vj, vk]
)";
  EXPECT_MINITVM_ERROR(transform::SplitLayoutRewritePreproc()(Parse(mixed, kMain)), "InternalError",
                       "block dense shares a top-level statement");
  // A preprocessing block reading two buffers.
  std::string wide = R"(
    @T.prim_func(private=True)
    def dense(X: T.Buffer((4, 8), "float32"), W: T.Buffer((6, 8), "float32"), Y: T.Buffer((4, 6), "float32")):
        WP = T.alloc_buffer((6, 8), "float32")
        for j, k in T.grid(6, 8):
            with T.block("pack"):
                vj, vk = T.axis.remap("SS", [j, k])
                T.reads(W[vj, vk], X[0, vk])
                T.writes(WP[vj, vk])
                T.block_attr({"meta_schedule.layout_rewrite_preproc": T.bool(True)})
                WP[vj, vk] = W[vj, vk] + X[0, vk]
        for i, j, k in T.grid(4, 6, 8):
            with T.block("dense"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * WP[vj, vk]
)";
  EXPECT_MINITVM_ERROR(transform::SplitLayoutRewritePreproc()(Parse(wide, kMain)), "InternalError",
                       "layout-rewrite block pack must read one buffer and write one (it reads "
                       "2, writes 1");
}

}  // namespace
}  // namespace relax
}  // namespace minitvm
