/*!
 * \file sampling_test.cc
 * \brief The sampling primitives of stage 3 (sample_perfect_tile, sample_categorical,
 * sample_compute_location): seeded decisions, their place in the trace, replay with the same
 * and with changed decisions, the JSON round trip, and the errors for bad decisions.
 */
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "minitvm/ir/structural.h"
#include "minitvm/runtime/registry.h"
#include "sched_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)
using testing::MainOf;
using testing::ParseMod;

const char* kMatmul = R"(
@T.prim_func
def main(A: T.Buffer((48, 16), "float32"), B: T.Buffer((16, 36), "float32"),
         C: T.Buffer((48, 36), "float32")):
    for i, j, k in T.grid(48, 36, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kTwoStage = R"(
@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kWrong = "ScheduleError.WrongDecisionError";

Schedule Seeded(const char* text, int64_t seed) {
  Schedule sch = Schedule::Create(ParseMod(text));
  sch->Seed(seed);
  return sch;
}

/*! \brief Tile i in 3 and j in 2 with sampled factors; the trace holds both decisions. */
Schedule Tiled(int64_t seed) {
  Schedule sch = Seeded(kMatmul, seed);
  Array<LoopRV> loops = sch->GetLoops(sch->GetBlock("C"));
  Array<ExprRV> fi = sch->SamplePerfectTile(loops[0], 3, 8);
  Array<ExprRV> fj = sch->SamplePerfectTile(loops[1], 2, 16);
  sch->Apply("Split", {Any(loops[0]), Any(Array<Any>(fi.begin(), fi.end()))},
             {Any(true), Any(false)});
  sch->Apply("Split", {Any(loops[1]), Any(Array<Any>(fj.begin(), fj.end()))},
             {Any(true), Any(false)});
  return sch;
}

/*! \brief The decision of every sampling instruction, in order, as text. */
std::vector<std::string> Decisions(const Trace& trace) {
  std::vector<std::string> out;
  for (const Instruction& inst : trace->insts) {
    std::string kind = inst->kind;
    if (kind.rfind("Sample", 0) != 0) continue;
    const Any& d = inst->attrs.back();
    if (d.as<runtime::ArrayNode>()) {
      std::string text = "[";
      for (const Any& f : d.cast<Array<Any>>()) {
        text += (text.size() > 1 ? ", " : "") + std::to_string(f.cast<int64_t>());
      }
      out.push_back(text + "]");
    } else {
      out.push_back(d.ToString());
    }
  }
  return out;
}

int64_t Product(const ScheduleNode* sch, const Array<ExprRV>& rvs) {
  int64_t p = 1;
  for (const ExprRV& rv : rvs) p *= sch->Get(rv);
  return p;
}

TEST(SamplePerfectTile, EveryDrawIsAPerfectTilingWithinTheLimit) {
  for (int64_t seed = 0; seed < 40; ++seed) {
    Schedule sch = Seeded(kMatmul, seed);
    Array<LoopRV> loops = sch->GetLoops(sch->GetBlock("C"));
    int n = 1 + static_cast<int>(seed % 4);
    Array<ExprRV> f = sch->SamplePerfectTile(loops[0], n, 4);
    ASSERT_EQ(f.size(), static_cast<size_t>(n));
    EXPECT_EQ(Product(sch.get(), f), 48);
    if (n > 1) EXPECT_LE(sch->Get(f[n - 1]), 4);
    for (const ExprRV& rv : f) EXPECT_GE(sch->Get(rv), 1);
  }
}

TEST(SamplePerfectTile, SameSeedSameDecisionsOtherSeedsExplore) {
  EXPECT_EQ(Decisions(Tiled(7)->trace()), Decisions(Tiled(7)->trace()));
  EXPECT_TRUE(StructuralEqual(Tiled(7)->mod(), Tiled(7)->mod()));
  std::set<std::vector<std::string>> seen;
  for (int64_t seed = 0; seed < 12; ++seed) seen.insert(Decisions(Tiled(seed)->trace()));
  EXPECT_GE(seen.size(), 3u);
  // Forked seeds are reproducible and positive.
  int64_t a = Seeded(kMatmul, 3)->ForkSeed(), b = Seeded(kMatmul, 3)->ForkSeed();
  EXPECT_EQ(a, b);
  EXPECT_GE(a, 0);
}

TEST(SamplePerfectTile, TraceReplaysToTheSameModuleAlsoThroughJSON) {
  Schedule sch = Tiled(11);
  std::vector<std::string> lines = sch->trace().AsPythonLines();
  int with_decision = 0;
  for (const std::string& l : lines) {
    if (l.find("sample_perfect_tile") != std::string::npos) {
      EXPECT_NE(l.find("decision=["), std::string::npos) << l;
      ++with_decision;
    }
  }
  EXPECT_EQ(with_decision, 2);
  for (int64_t other_seed : {0, 99}) {
    Schedule replay = Seeded(kMatmul, other_seed);
    Trace::FromJSON(sch->trace().AsJSON()).ApplyToSchedule(replay);
    EXPECT_TRUE(StructuralEqual(sch->mod(), replay->mod()));
    EXPECT_EQ(Decisions(replay->trace()), Decisions(sch->trace()));
    EXPECT_EQ(replay->trace().AsJSON(), sch->trace().AsJSON());
  }
  EXPECT_TRUE(
      testing::Equivalent(Downcast<PrimFunc>(ParseMod(kMatmul)->Lookup("main")), MainOf(sch)));
}

TEST(SamplePerfectTile, AChangedDecisionReplaysToAnEquivalentSchedule) {
  Schedule sch = Tiled(1);
  auto with_decision = runtime::Registry::GetOrThrow("tir.schedule.TraceWithDecision");
  // Instruction 2 is the first SamplePerfectTile (after GetBlock and GetLoops).
  ASSERT_EQ(std::string(sch->trace()->insts[2]->kind), "SamplePerfectTile");
  Trace changed =
      with_decision(sch->trace(), 2, Array<Any>{Any(int64_t{4}), Any(int64_t{3}), Any(int64_t{4})})
          .cast<Trace>();
  Schedule replay = Seeded(kMatmul, 0);
  changed.ApplyToSchedule(replay);
  EXPECT_EQ(Decisions(replay->trace())[0], "[4, 3, 4]");
  EXPECT_TRUE(
      testing::Equivalent(Downcast<PrimFunc>(ParseMod(kMatmul)->Lookup("main")), MainOf(replay)));
  // A decision of None draws again.
  Trace redraw = with_decision(sch->trace(), 2, Any()).cast<Trace>();
  Schedule again = Seeded(kMatmul, 5);
  redraw.ApplyToSchedule(again);
  EXPECT_EQ(Decisions(again->trace()).size(), 2u);
  // Non-sampling instructions have no decision; indexes are checked.
  EXPECT_MINITVM_ERROR(with_decision(sch->trace(), 0, Any(int64_t{1})), "ValueError",
                       "not a sampling instruction");
  EXPECT_MINITVM_ERROR(with_decision(sch->trace(), 99, Any(int64_t{1})), "IndexError",
                       "is not in a trace of");
}

TEST(SamplePerfectTile, WrongDecisionsAndArgumentsAreRefused) {
  Schedule sch = Seeded(kMatmul, 0);
  Array<LoopRV> loops = sch->GetLoops(sch->GetBlock("C"));
  IRModule before = sch->mod();
  size_t trace_len = sch->trace()->insts.size();
  auto wrong = [&](Array<Any> d, int limit) {
    return sch->SamplePerfectTile(loops[0], 2, limit, Any(d));
  };
  EXPECT_MINITVM_ERROR(wrong({Any(int64_t{5}), Any(int64_t{5})}, 16), kWrong,
                       "the decision [5, 5] is not a perfect tiling of loop \"i\" into 2");
  // The product fits, the innermost factor is too large.
  EXPECT_MINITVM_ERROR(wrong({Any(int64_t{3}), Any(int64_t{16})}, 8), kWrong,
                       "[not met] the innermost factor is at most 8");
  EXPECT_MINITVM_ERROR(sch->SamplePerfectTile(loops[0], 0, 16), "ValueError",
                       "n must be at least 1, got 0");
  EXPECT_MINITVM_ERROR(sch->SamplePerfectTile(loops[0], 2, 0), "ValueError",
                       "max_innermost_factor must be positive");
  EXPECT_MINITVM_ERROR(sch->SamplePerfectTile(loops[0], 2, 16, Any(String("x"))), "TypeError",
                       "decision must be a list of ints");
  // Nothing changed and nothing was recorded.
  EXPECT_TRUE(StructuralEqual(sch->mod(), before));
  EXPECT_EQ(sch->trace()->insts.size(), trace_len);
}

TEST(SampleCategorical, FollowsTheProbabilitiesAndChecksItsInput) {
  Schedule sch = Seeded(kMatmul, 42);
  Array<Any> cands{Any(int64_t{0}), Any(int64_t{16}), Any(int64_t{64})};
  Array<Any> probs{Any(0.25), Any(0.0), Any(0.75)};
  std::map<int64_t, int> counts;
  for (int t = 0; t < 400; ++t) counts[sch->Get(sch->SampleCategorical(cands, probs))]++;
  EXPECT_EQ(counts[16], 0);
  EXPECT_GT(counts[0], 50);
  EXPECT_GT(counts[64], 250);
  // The decision is the index; replaying a given index gives its candidate.
  EXPECT_EQ(sch->Get(sch->SampleCategorical(cands, probs, Any(int64_t{1}))), 16);
  EXPECT_EQ(Decisions(sch->trace()).back(), "1");
  EXPECT_MINITVM_ERROR(sch->SampleCategorical(cands, probs, Any(int64_t{3})), kWrong,
                       "the decision 3 is not an index of the 3 candidates");
  EXPECT_MINITVM_ERROR(sch->SampleCategorical(cands, {Any(1.0)}), "ValueError",
                       "got 3 candidates and 1 probabilities");
  EXPECT_MINITVM_ERROR(sch->SampleCategorical(cands, {Any(1.0), Any(-1.0), Any(1.0)}), "ValueError",
                       "probability 1 is -1");
  EXPECT_MINITVM_ERROR(sch->SampleCategorical(cands, {Any(0.0), Any(0.0), Any(0.0)}), "ValueError",
                       "sum to 0");
  EXPECT_MINITVM_ERROR(sch->SampleCategorical({Any(String("a"))}, {Any(1.0)}), "TypeError",
                       "candidate 0 must be an int");
}

TEST(SampleComputeLocation, EveryDrawIsLegalAndReplays) {
  PrimFunc original = Downcast<PrimFunc>(ParseMod(kTwoStage)->Lookup("main"));
  std::set<std::string> chosen;
  for (int64_t seed = 0; seed < 8; ++seed) {
    Schedule sch = Seeded(kTwoStage, seed);
    BlockRV b = sch->GetBlock("B");
    LoopRV loop = sch->SampleComputeLocation(b);
    chosen.insert(Decisions(sch->trace()).back());
    sch->ComputeAt(b, loop);
    EXPECT_TRUE(testing::Equivalent(original, MainOf(sch)));
    Schedule replay = Seeded(kTwoStage, seed + 100);
    Trace::FromJSON(sch->trace().AsJSON()).ApplyToSchedule(replay);
    EXPECT_TRUE(StructuralEqual(sch->mod(), replay->mod()));
  }
  EXPECT_GE(chosen.size(), 2u);  // both loops of C are legal locations
  Schedule sch = Seeded(kTwoStage, 0);
  EXPECT_MINITVM_ERROR(sch->SampleComputeLocation(sch->GetBlock("B"), Any(int64_t{7})), kWrong,
                       "the decision 7 is not an index of the 2 legal compute-at locations");
  // C has no consumer: no loop outside it accepts compute_at.
  EXPECT_MINITVM_ERROR(sch->SampleComputeLocation(sch->GetBlock("C")),
                       "ScheduleError.NoComputeLocationError",
                       "no loop is a legal compute-at location of block \"C\"");
}

TEST(SamplingTrace, DecisionsGlobalListsSamplingInstructionsOnly) {
  Schedule sch = Tiled(3);
  auto decisions = runtime::Registry::GetOrThrow("tir.schedule.TraceDecisions");
  Array<Any> got = decisions(sch->trace()).cast<Array<Any>>();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].cast<Array<Any>>()[0].cast<int64_t>(), 2);
  EXPECT_EQ(got[1].cast<Array<Any>>()[0].cast<int64_t>(), 3);
}

}  // namespace
}  // namespace minitvm
