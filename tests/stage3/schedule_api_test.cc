/*!
 * \file schedule_api_test.cc
 * \brief The schedule's machinery (stage 3): handles across primitives, copies, errors that
 * leave the schedule unchanged, render levels, the trace as Python and JSON, and the
 * step-by-step view with its equivalence check and diff.
 */
#include <gtest/gtest.h>

#include "instruction.h"  // white-box: a test-only instruction kind that breaks the results
#include "minitvm/ir/structural.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/tensor_intrin.h"
#include "minitvm/tir/stmt_functor.h"
#include "sched_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)
using testing::MainOf;
using testing::ParseMod;

const char* kTwoStage = R"(
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

TEST(ScheduleHandles, LoopsAndBlocksSurviveOtherPrimitives) {
  Schedule sch = Schedule::Create(ParseMod(kTwoStage), 1);
  BlockRV c = sch->GetBlock("C");
  Array<LoopRV> loops = sch->GetLoops(c);
  Array<LoopRV> parts = sch->Split(loops[1], {std::nullopt, 4});
  sch->Reorder({parts[1], loops[0]});
  // The handle to i still names the loop i; the block handle the block "C".
  EXPECT_EQ(sch->Get(loops[0])->loop_var->name_hint, "i");
  EXPECT_EQ(sch->Get(c)->name_hint, "C");
  // The split loop is gone: its handle says so and names the primitive that removed it.
  EXPECT_MINITVM_ERROR(sch->Get(loops[1]), "ValueError", "removed by sch.split()");
  // compute_inline removes block B; its handle expires too.
  BlockRV b = sch->GetBlock("B");
  sch->ComputeInline(b);
  EXPECT_MINITVM_ERROR(sch->Get(b), "ValueError", "no longer exists");
}

TEST(ScheduleHandles, DecomposeReductionRenamesTheUpdate) {
  Schedule sch = Schedule::Create(ParseMod(R"(
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]
)"));
  BlockRV b = sch->GetBlock("B");
  BlockRV init = sch->DecomposeReduction(b, sch->GetLoops(b)[1]);
  EXPECT_EQ(sch->Get(b)->name_hint, "B_update");
  EXPECT_EQ(sch->Get(init)->name_hint, "B_init");
}

TEST(ScheduleCopy, CopiesDiverge) {
  Schedule sch = Schedule::Create(ParseMod(kTwoStage));
  BlockRV b = sch->GetBlock("B");
  Schedule copy = sch->Copy();
  sch->ComputeInline(b);
  EXPECT_EQ(sch->state().Index("main").BlocksNamed("B").size(), 0u);
  EXPECT_EQ(copy->state().Index("main").BlocksNamed("B").size(), 1u);
  // The handle is shared and still valid in the copy.
  EXPECT_EQ(copy->Get(b)->name_hint, "B");
  EXPECT_EQ(copy->trace()->insts.size(), 1u);
  EXPECT_EQ(sch->trace()->insts.size(), 2u);
}

TEST(ScheduleErrors, FailedPrimitiveChangesNothing) {
  Schedule sch = Schedule::Create(ParseMod(kTwoStage));
  Array<LoopRV> b_loops = sch->GetLoops(sch->GetBlock("B"));
  Array<LoopRV> c_loops = sch->GetLoops(sch->GetBlock("C"));
  IRModule before = sch->mod();
  size_t n = sch->trace()->insts.size();
  EXPECT_MINITVM_ERROR(sch->Reorder({c_loops[0], b_loops[1]}), "ScheduleError.LoopsNotAChainError",
                       "[not met] the loops lie on one path");
  EXPECT_TRUE(sch->mod().same_as(before));
  EXPECT_EQ(sch->trace()->insts.size(), n);
  // Every handle still works after the failure.
  EXPECT_EQ(sch->Get(c_loops[0])->loop_var->name_hint, "i");
}

TEST(ScheduleErrors, HandlesOfTheWrongKindAreTypeErrors) {
  Schedule sch = Schedule::Create(ParseMod(kTwoStage));
  BlockRV b = sch->GetBlock("B");
  LoopRV i = sch->GetLoops(b)[0];
  IRModule before = sch->mod();
  // Not a handle at all: an undefined one, or an IR node where a handle belongs.
  EXPECT_MINITVM_ERROR(sch->Get(BlockRV()), "TypeError", "None");
  EXPECT_MINITVM_ERROR(sch->Get(LoopRV()), "TypeError", "None");
  EXPECT_MINITVM_ERROR(sch->Annotate(Var("x"), "k", Any(1)), "TypeError",
                       "expected a BlockRV or LoopRV handle but got tir.Var");
  EXPECT_MINITVM_ERROR(sch->GetChildBlocks(ObjectRef()), "TypeError", "None");
  EXPECT_MINITVM_ERROR(
      sch->Apply("Split", {Any(Var("x")), Any(Array<Any>{Any(4), Any()})}, {Any(true), Any(false)}),
      "TypeError", "tir.Var");
  // A handle of the other kind.
  EXPECT_MINITVM_ERROR(sch->Apply("GetLoops", {Any(i)}, {}), "TypeError", "expected a block");
  EXPECT_MINITVM_ERROR(sch->Apply("Parallel", {Any(b)}, {}), "TypeError", "expected a loop");
  EXPECT_TRUE(sch->mod().same_as(before));
  EXPECT_EQ(sch->trace()->insts.size(), 2u);
}

TEST(ScheduleErrors, ComputeAtIndexMustBeAValidPosition) {
  Schedule sch = Schedule::Create(ParseMod(kTwoStage));
  BlockRV b = sch->GetBlock("B"), c = sch->GetBlock("C");
  LoopRV bi = sch->GetLoops(b)[0], ci = sch->GetLoops(c)[0];
  IRModule before = sch->mod();
  // Under C's loop i the only valid place for B is before C's loop j: position 0.
  for (int64_t bad : {5, 1, -3, -99}) {
    EXPECT_MINITVM_ERROR(sch->ComputeAt(b, ci, false, bad), "ScheduleError.InsertionPositionError",
                         "index " + std::to_string(bad) +
                             " is not a valid position in loop \"i\" for \"B\": -1 (the last "
                             "valid position), -2 (the first) or an index in [0, 0]");
  }
  // Under B's loop i, C goes after B's loop j: position 1.
  EXPECT_MINITVM_ERROR(sch->ReverseComputeAt(c, bi, false, -99),
                       "ScheduleError.InsertionPositionError", "an index in [1, 1]");
  EXPECT_MINITVM_ERROR(sch->ReverseComputeAt(c, bi, false, 0),
                       "ScheduleError.InsertionPositionError", "index 0");
  EXPECT_TRUE(sch->mod().same_as(before));
  // -2 and an explicit valid index are accepted.
  Schedule copy = sch->Copy();
  sch->ComputeAt(b, ci, false, -2);
  copy->ComputeAt(b, ci, false, 0);
  EXPECT_TRUE(StructuralEqual(sch->mod(), copy->mod()));
}

TEST(ScheduleErrors, TransformLayoutRefusesMapsThatAreNotInjective) {
  auto map2 = [](std::function<Array<PrimExpr>(Var, Var)> f) {
    return IndexMap::FromFunc(2, [f](Array<Var> v) { return f(v[0], v[1]); }, {"i", "j"});
  };
  Schedule sch = Schedule::Create(ParseMod(kTwoStage));
  BlockRV b = sch->GetBlock("B");
  IRModule before = sch->mod();
  // Small buffers: every element is tried, and the two that collide are named.
  EXPECT_MINITVM_ERROR(sch->TransformLayout(b, 0, BufferIndexType::kWrite, map2([](Var i, Var j) {
                                              return Array<PrimExpr>{i, i};
                                            })),
                       "ScheduleError.NotInjectiveIndexMapError",
                       "(0, 0) and (0, 1), to one: (0, 0)");
  EXPECT_MINITVM_ERROR(sch->TransformLayout(b, 0, BufferIndexType::kWrite, map2([](Var i, Var j) {
                                              return Array<PrimExpr>{floormod(i + j, 4)};
                                            })),
                       "ScheduleError.NotInjectiveIndexMapError", "to one: (0,)");
  EXPECT_TRUE(sch->mod().same_as(before));
  // Injective without being a split: tried point by point.
  sch->Copy()->TransformLayout(b, 0, BufferIndexType::kWrite, map2([](Var i, Var j) {
                                 return Array<PrimExpr>{floormod(i + j, 16), j};
                               }));

  // 256 x 256 elements are too many to try: splits and fuses are proved, others refused.
  Schedule big = Schedule::Create(ParseMod(R"(
@T.prim_func
def main(A: T.Buffer((256, 256), "float32"), C: T.Buffer((256, 256), "float32")):
    for i, j in T.grid(256, 256):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj]
)"));
  BlockRV c = big->GetBlock("C");
  big->Copy()->TransformLayout(c, 0, BufferIndexType::kWrite, map2([](Var i, Var j) {
                                 return Array<PrimExpr>{floordiv(j, 16), i, floormod(j, 16)};
                               }));
  big->Copy()->TransformLayout(c, 0, BufferIndexType::kWrite,
                               map2([](Var i, Var j) { return Array<PrimExpr>{i * 256 + j}; }));
  big->Copy()->TransformLayout(c, 0, BufferIndexType::kWrite, map2([](Var i, Var j) {
                                 PrimExpr f = i * 256 + j;
                                 return Array<PrimExpr>{floordiv(f, 512), floormod(f, 512)};
                               }));
  EXPECT_MINITVM_ERROR(big->TransformLayout(c, 0, BufferIndexType::kWrite, map2([](Var i, Var j) {
                                              return Array<PrimExpr>{i, floormod(i + j, 256)};
                                            })),
                       "ScheduleError.NotInjectiveIndexMapError", "cannot prove");
}

TEST(ScheduleErrors, RenderLevels) {
  auto message = [](ErrorRenderLevel level) {
    Schedule sch = Schedule::Create(ParseMod(kTwoStage), 0, level);
    Array<LoopRV> loops = sch->GetLoops(sch->GetBlock("B"));
    try {
      sch->Split(loops[0], {3, 3});
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), "ScheduleError.WrongFactorProductError");
      return std::string(e.what());
    }
    ADD_FAILURE() << "split did not fail";
    return std::string();
  };
  std::string detail = message(ErrorRenderLevel::kDetail);
  std::string fast = message(ErrorRenderLevel::kFast);
  std::string none = message(ErrorRenderLevel::kNone);
  EXPECT_NE(detail.find("# <- error here: extent 16 but factors [3, 3] multiply to 9"),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("sch.split(loop=l1, factors=[3, 3]"), std::string::npos) << detail;
  EXPECT_EQ(fast.find("# <- error here"), std::string::npos);
  EXPECT_NE(fast.find("[not met] the product of the factors"), std::string::npos);
  EXPECT_EQ(none.find('\n'), std::string::npos) << none;
  EXPECT_EQ(ParseErrorRenderLevel("fast"), ErrorRenderLevel::kFast);
  EXPECT_MINITVM_ERROR(ParseErrorRenderLevel("loud"), "ValueError", "detail");
}

TEST(Trace, ShowJsonAndPythonRoundTrip) {
  IRModule mod = ParseMod(kTwoStage);
  Schedule sch = Schedule::Create(mod);
  BlockRV b = sch->GetBlock("B");
  BlockRV c = sch->GetBlock("C");
  Array<LoopRV> loops = sch->GetLoops(c);
  Array<LoopRV> parts = sch->Split(loops[0], {std::nullopt, 4});
  sch->ComputeAt(b, parts[0], /*preserve_unit_loops=*/true);
  sch->Annotate(c, "note", Any(String("x\"y")));
  sch->TransformLayout(b, 0, BufferIndexType::kWrite,
                       IndexMap::FromFunc(2,
                                          [](Array<Var> v) {
                                            return Array<PrimExpr>{v[1], v[0]};
                                          },
                                          {"i", "j"}));
  std::vector<std::string> lines = sch->trace().AsPythonLines();
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0], "b0 = sch.get_block(name=\"B\", func_name=\"main\")");
  EXPECT_EQ(lines[2], "l2, l3 = sch.get_loops(block=b1)");
  EXPECT_EQ(lines[3],
            "l4, l5 = sch.split(loop=l2, factors=[None, 4], preserve_unit_iters=True, "
            "disable_predication=False)");
  EXPECT_EQ(lines[4], "sch.compute_at(block=b0, loop=l4, preserve_unit_loops=True, index=-1)");
  EXPECT_EQ(lines[5], "sch.annotate(block_or_loop=b1, ann_key=\"note\", ann_val=\"x\\\"y\")");
  EXPECT_EQ(lines[6],
            "sch.transform_layout(block=b0, buffer=(\"write\", 0), index_map=lambda i, j: (j, "
            "i), pad_value=None)");
  // JSON and Python both replay to the same IR.
  for (const Trace& t :
       {Trace::FromJSON(sch->trace().AsJSON()), Trace::FromPython(sch->trace().Show())}) {
    Schedule replay = Schedule::Create(mod);
    t.ApplyToSchedule(replay);
    EXPECT_TRUE(StructuralEqual(replay->mod(), sch->mod()))
        << StructuralDiff(replay->mod(), sch->mod());
    EXPECT_EQ(t.Show(), sch->trace().Show());
  }
}

TEST(Trace, RemovePostproc) {
  Schedule sch = Schedule::Create(ParseMod(kTwoStage));
  BlockRV b = sch->GetBlock("B");
  sch->EnterPostproc();
  sch->Parallel(sch->GetLoops(b)[0]);
  EXPECT_EQ(sch->trace().Instructions(true).size(), 1u);
  EXPECT_EQ(sch->trace().Instructions(false).size(), 4u);
  Schedule replay = Schedule::Create(ParseMod(kTwoStage));
  sch->trace().ApplyToSchedule(replay, /*remove_postproc=*/true);
  EXPECT_EQ(replay->mod()->Lookup("main")->GetTypeKey(), "tir.PrimFunc");
  EXPECT_EQ(script::AsScript(replay->mod()).find("T.parallel"), std::string::npos);
}

TEST(Trace, MalformedInputNamesThePlace) {
  EXPECT_MINITVM_ERROR(Trace::FromJSON("[[[\"Split\", [\"l9\"], [], []]], []]"), "ValueError",
                       "uses handle \"l9\" before defining it");
  EXPECT_MINITVM_ERROR(Trace::FromJSON("[[[\"NoSuchKind\", [], [], []]], []]"), "ValueError",
                       "unknown schedule instruction kind");
  EXPECT_MINITVM_ERROR(Trace::FromJSON("[[[\"GetBlock\", [], [\"B\", \"main\"]"), "ValueError",
                       "malformed JSON");
  EXPECT_MINITVM_ERROR(Trace::FromPython("b0 = sch.get_block(\"B\")\nsch.parallel(l7)"),
                       "ValueError", "schedule line 2, column 14");
  EXPECT_MINITVM_ERROR(Trace::FromPython("sch.frobnicate(1)"), "ValueError",
                       "unknown schedule method \"frobnicate\"");
  EXPECT_MINITVM_ERROR(Trace::FromPython("b0 = sch.get_block()"), "ValueError",
                       "needs the argument \"name\"");
}

TEST(Equivalence, DetectsChangedResults) {
  IRModule a = ParseMod(kTwoStage);
  PrimFunc f = Downcast<PrimFunc>(a->Lookup("main"));
  // The same function with `+ 1.0` changed to `+ 1.5`.
  PrimFunc g = f;
  class Bump : public StmtExprMutator {
   public:
    using StmtExprMutator::VisitExpr_;
    PrimExpr VisitExpr_(const FloatImmNode* op) override {
      return op->value == 1.0 ? FloatImm(op->dtype, 1.5) : GetRef<PrimExpr>(op);
    }
  };
  g.CopyOnWrite()->body = Bump().VisitStmt(f->body);
  EquivalenceResult same = CheckEquivalence(f, f, 3);
  EXPECT_TRUE(same.checked && same.equal) << same.message;
  EquivalenceResult diff = CheckEquivalence(f, g, 3);
  EXPECT_TRUE(diff.checked);
  EXPECT_FALSE(diff.equal);
  EXPECT_NE(diff.message.find("buffer C differs"), std::string::npos) << diff.message;
  EXPECT_NEAR(diff.max_abs_diff, 0.5, 1e-6);
}

TEST(ShowSteps, DiffAndFirstBadStep) {
  // A test-only primitive that changes what the function computes: the step view must name it.
  RegisterInstructionKind([] {
    InstructionKindInfo k;
    k.name = "TestBreakResults";
    k.method = "test_break_results";
    k.apply = [](ScheduleNode* self, const Array<Any>&, const Array<Any>&) {
      PrimFunc f = self->state().Func("main");
      class Bump : public StmtExprMutator {
       public:
        using StmtExprMutator::VisitExpr_;
        PrimExpr VisitExpr_(const FloatImmNode* op) override {
          return FloatImm(op->dtype, op->value + 0.25);
        }
      };
      f.CopyOnWrite()->body = Bump().VisitStmt(f->body);
      self->mutable_state()->Replace("main", f);
      return Array<ObjectRef>();
    };
    return k;
  }());
  Schedule sch = Schedule::Create(ParseMod(kTwoStage));
  BlockRV b = sch->GetBlock("B");
  sch->Split(sch->GetLoops(b)[0], {4, 4});
  sch->Apply("TestBreakResults", {}, {});
  sch->Parallel(sch->GetLoops(b)[0]);
  ScheduleSteps steps = ShowSteps(sch);
  ASSERT_EQ(steps.steps.size(), 6u);
  EXPECT_TRUE(steps.steps[0].diff.empty());  // get_block changes nothing
  EXPECT_NE(steps.steps[2].diff.find("-    for i, j in T.grid(16, 16):"), std::string::npos)
      << steps.steps[2].diff;
  EXPECT_NE(steps.steps[2].diff.find("+    for i_0, i_1, j in T.grid(4, 4, 16):"),
            std::string::npos)
      << steps.steps[2].diff;
  EXPECT_TRUE(steps.steps[2].check.equal);
  EXPECT_EQ(steps.first_bad_step, 4);
  std::string text = steps.ToString();
  EXPECT_NE(text.find("first step that changed the results: step 4 (sch.test_break_results())"),
            std::string::npos)
      << text;
}

TEST(UnifiedDiff, Hunks) {
  std::string a = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
  std::string b = "a\nb\nc\nD\ne\nf\ng\nh\ni\n";
  EXPECT_EQ(UnifiedDiff(a, b),
            "--- before\n+++ after\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n");
  EXPECT_EQ(UnifiedDiff(a, a), "");
}

TEST(TensorIntrin, RegistryAndBuiltin) {
  TensorIntrin dot = TensorIntrin::Get("dot_16_f32");
  EXPECT_EQ(dot->desc->params.size(), 3u);
  EXPECT_MINITVM_ERROR(TensorIntrin::Get("no_such_intrin"), "ValueError", "dot_16_f32");
  EXPECT_MINITVM_ERROR(TensorIntrin::Register("dot_16_f32", dot), "ValueError",
                       "already registered");
}

}  // namespace
}  // namespace minitvm
