/*!
 * \file fuzz_test.cc
 * \brief Differential fuzzing of the schedule primitives (stage 3).
 *
 * Each case takes one workload (matmul, conv2d with padding, softmax, mm_relu — written in
 * TVMScript below), applies a random sequence of primitives with random arguments, and after
 * every step checks that
 *   - a refused step raised a ScheduleError and left the module untouched,
 *   - an accepted step keeps the results of the original function (TIR interpreter, random
 *     inputs),
 *   - the printed IR parses back to a structurally equal function,
 *   - and, at the end, the trace replays (through JSON) to the same IR.
 * The suite runs a bounded number of cases; MINITVM_FUZZ_CASES=N runs N (and
 * MINITVM_FUZZ_SEED=S starts at seed S). A failure prints the workload, the seed and the trace
 * so that it can be replayed with `minitvm schedule`.
 */
#include <gtest/gtest.h>

#include <random>

#include "minitvm/ir/structural.h"
#include "sched_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)

const char* kMatmul = R"(
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kConv2d = R"(
@T.prim_func
def main(X: T.Buffer((1, 2, 6, 6), "float32"), W: T.Buffer((4, 2, 3, 3), "float32"), Y: T.Buffer((1, 4, 6, 6), "float32")):
    Xp = T.alloc_buffer((1, 2, 8, 8))
    for n, c, h, w in T.grid(1, 2, 8, 8):
        with T.block("pad"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            Xp[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 7 and 1 <= vw and vw < 7, X[vn, vc, vh - 1, vw - 1], T.float32(0.0))
    for n, k, h, w, c, r, s in T.grid(1, 4, 6, 6, 2, 3, 3):
        with T.block("conv"):
            vn, vk, vh, vw, vc, vr, vs = T.axis.remap("SSSSRRR", [n, k, h, w, c, r, s])
            with T.init():
                Y[vn, vk, vh, vw] = T.float32(0.0)
            Y[vn, vk, vh, vw] = Y[vn, vk, vh, vw] + Xp[vn, vc, vh + vr, vw + vs] * W[vk, vc, vr, vs]
)";

const char* kSoftmax = R"(
@T.prim_func
def main(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4, 16), "float32")):
    M = T.alloc_buffer((4,))
    E = T.alloc_buffer((4, 16))
    S = T.alloc_buffer((4,))
    for i, k in T.grid(4, 16):
        with T.block("max"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.float32(-3.0e38)
            M[vi] = T.max(M[vi], A[vi, vk])
    for i, j in T.grid(4, 16):
        with T.block("exp"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = T.exp(A[vi, vj] - M[vi])
    for i, k in T.grid(4, 16):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0.0)
            S[vi] = S[vi] + E[vi, vk]
    for i, j in T.grid(4, 16):
        with T.block("norm"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = E[vi, vj] / S[vi]
)";

const char* kMmRelu = R"(
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    Y = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0.0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
)";

struct Workload {
  const char* name;
  const char* text;
};
const Workload kWorkloads[] = {
    {"matmul", kMatmul}, {"conv2d", kConv2d}, {"softmax", kSoftmax}, {"mm_relu", kMmRelu}};

/*! \brief Picks random primitives with arguments drawn from the current schedule. */
class Fuzzer {
 public:
  Fuzzer(Schedule sch, uint32_t seed) : sch_(std::move(sch)), rng_(seed) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::vector<std::string> BlockNames() {
    std::vector<std::string> out;
    const FuncIndex& index = sch_->state().Index("main");
    for (const BlockNode* b : index.blocks()) {
      if (b != index.root()) out.push_back(b->name_hint.str());
    }
    return out;
  }
  BlockRV AnyBlock() {
    auto names = BlockNames();
    return sch_->GetBlock(names[Uniform(0, static_cast<int>(names.size()) - 1)]);
  }
  /*! \brief A random loop above a random block (null when the block has none). */
  LoopRV AnyLoop(BlockRV* block_out = nullptr) {
    BlockRV b = AnyBlock();
    if (block_out) *block_out = b;
    Array<LoopRV> loops = sch_->GetLoops(b);
    if (loops.empty()) return LoopRV();
    return loops[Uniform(0, static_cast<int>(loops.size()) - 1)];
  }
  int64_t ExtentOf(const LoopRV& l) { return AsConstInt(sch_->Get(l)->extent).value_or(1); }

  /*! \brief Apply one random primitive; false when it was refused (ScheduleError). */
  bool Step() {
    switch (Uniform(0, 17)) {
      case 0:
      case 1: {  // split
        LoopRV l = AnyLoop();
        if (!l.defined()) return false;
        int64_t ext = ExtentOf(l);
        std::vector<std::optional<int64_t>> factors;
        int64_t f = Uniform(1, 5);
        if (Uniform(0, 2) == 0) {
          factors = {std::nullopt, f};
        } else {
          factors = {f, std::nullopt};
          if (Uniform(0, 1) && ext >= 4) factors = {std::nullopt, 2, 2};
        }
        sch_->Split(l, factors);
        return true;
      }
      case 2: {  // fuse two adjacent loops of a block
        BlockRV b = AnyBlock();
        Array<LoopRV> loops = sch_->GetLoops(b);
        if (loops.size() < 2) return false;
        int i = Uniform(0, static_cast<int>(loops.size()) - 2);
        sch_->Fuse({loops[i], loops[i + 1]});
        return true;
      }
      case 3:
      case 4: {  // reorder: shuffle the loops of a block
        BlockRV b = AnyBlock();
        std::vector<LoopRV> loops = sch_->GetLoops(b).to_vector();
        if (loops.size() < 2) return false;
        std::shuffle(loops.begin(), loops.end(), rng_);
        loops.resize(Uniform(2, static_cast<int>(loops.size())));
        sch_->Reorder(Array<LoopRV>(loops));
        return true;
      }
      case 5: {
        LoopRV l = AnyLoop();
        if (!l.defined()) return false;
        sch_->Parallel(l);
        return true;
      }
      case 6: {
        LoopRV l = AnyLoop();
        if (!l.defined()) return false;
        sch_->Vectorize(l);
        return true;
      }
      case 7: {
        LoopRV l = AnyLoop();
        if (!l.defined()) return false;
        sch_->Unroll(l);
        return true;
      }
      case 8:
        sch_->ComputeInline(AnyBlock());
        return true;
      case 9:
        sch_->ReverseComputeInline(AnyBlock());
        return true;
      case 10:
      case 11: {  // compute_at / reverse_compute_at to a loop of another block
        BlockRV b = AnyBlock();
        BlockRV other;
        LoopRV l = AnyLoop(&other);
        if (!l.defined()) return false;
        if (Uniform(0, 1)) {
          sch_->ComputeAt(b, l, Uniform(0, 1) == 1);
        } else {
          sch_->ReverseComputeAt(b, l, Uniform(0, 1) == 1);
        }
        return true;
      }
      case 12: {
        BlockRV b = AnyBlock();
        Block block = sch_->Get(b);
        const char* scopes[] = {"global", "shared", "local"};
        if (Uniform(0, 1) && !block->reads.empty()) {
          sch_->CacheRead(b, Uniform(0, static_cast<int>(block->reads.size()) - 1),
                          scopes[Uniform(0, 2)]);
        } else if (!block->writes.empty()) {
          sch_->CacheWrite(b, 0, scopes[Uniform(0, 2)]);
        }
        return true;
      }
      case 13: {
        BlockRV b;
        LoopRV l = AnyLoop(&b);
        if (!l.defined()) return false;
        sch_->DecomposeReduction(b, l);
        return true;
      }
      case 14: {
        LoopRV l = AnyLoop();
        if (!l.defined()) return false;
        sch_->RFactor(l, Uniform(0, 1));
        return true;
      }
      case 15: {
        LoopRV l = AnyLoop();
        if (!l.defined()) return false;
        sch_->Blockize(l);
        return true;
      }
      case 16:
        sch_->AddUnitLoop(AnyBlock());
        return true;
      default: {
        BlockRV b = AnyBlock();
        sch_->SetScope(b, 0, Uniform(0, 1) ? "shared" : "local");
        return true;
      }
    }
  }

 private:
  Schedule sch_;
  std::mt19937 rng_;
};

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

TEST(ScheduleFuzz, RandomLegalSequencesKeepResults) {
  int cases = EnvInt("MINITVM_FUZZ_CASES", 48);
  int first_seed = EnvInt("MINITVM_FUZZ_SEED", 1);
  const int steps = 8;
  int accepted = 0, refused = 0;
  for (int c = 0; c < cases; ++c) {
    uint32_t seed = static_cast<uint32_t>(first_seed + c);
    const Workload& w = kWorkloads[seed % 4];
    IRModule mod = testing::ParseMod(w.text);
    Schedule sch = Schedule::Create(mod, /*debug_mask=*/1);
    PrimFunc original = testing::MainOf(sch);
    Fuzzer fuzz(sch, seed);
    for (int s = 0; s < steps; ++s) {
      IRModule before = sch->mod();
      std::string context = std::string("workload ") + w.name + ", seed " + std::to_string(seed) +
                            ", step " + std::to_string(s);
      try {
        fuzz.Step();
      } catch (const Error& e) {
        if (e.base_kind() != "ScheduleError") {
          ADD_FAILURE() << context << ": not a ScheduleError: " << e.kind() << ": " << e.what()
                        << "\ntrace so far:\n"
                        << sch->trace().Show();
          return;
        }
        ++refused;
        ASSERT_TRUE(sch->mod().same_as(before)) << context << ": a refused step changed the IR";
        continue;
      }
      PrimFunc now = testing::MainOf(sch);
      if (now.same_as(original)) continue;
      ++accepted;
      EquivalenceResult eq = CheckEquivalence(original, now, seed);
      ASSERT_TRUE(!eq.checked || eq.equal) << context << ": results changed: " << eq.message << "\n"
                                           << testing::Script(now) << "\ntrace:\n"
                                           << sch->trace().Show();
      std::string printed = testing::Script(now);
      PrimFunc reparsed = Downcast<PrimFunc>(testing::ParseMod(printed)->Lookup("main"));
      ASSERT_TRUE(StructuralEqual(reparsed, now))
          << context << ": print -> parse round trip differs: " << StructuralDiff(reparsed, now)
          << "\n"
          << printed << "\ntrace:\n"
          << sch->trace().Show();
    }
    Schedule replay = Schedule::Create(mod);
    Trace::FromJSON(sch->trace().AsJSON()).ApplyToSchedule(replay);
    ASSERT_TRUE(StructuralEqual(replay->mod(), sch->mod()))
        << "workload " << w.name << ", seed " << seed << ": the trace does not replay\n"
        << sch->trace().Show();
  }
  std::cout << cases << " cases: " << accepted << " steps accepted, " << refused
            << " refused with a ScheduleError\n";
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace minitvm
