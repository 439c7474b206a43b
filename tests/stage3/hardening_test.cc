/*!
 * \file tests/stage3/hardening_test.cc
 * \brief Schedules that used to compute silently wrong results (stage 3, issue 16): rfactor
 * with an init that is not the reduction's identity, declared regions narrower than the
 * accesses, iterator kinds that contradict the body. Each is refused with the rule's name.
 */
#include <gtest/gtest.h>

#include <string>

#include "sched_test_util.h"

namespace minitvm {
namespace tir {
namespace {

using testing::Equivalent;
using testing::MainOf;
using testing::ParseMod;

std::string SumWithInit(const std::string& op, const std::string& init) {
  std::string update = op == "max"   ? "T.max(B[vi], A[vi, vk])"
                       : op == "min" ? "T.min(B[vi], A[vi, vk])"
                       : op == "mul" ? "B[vi] * A[vi, vk]"
                                     : "B[vi] + A[vi, vk]";
  return R"(
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = )" +
         init + R"(
            B[vi] = )" +
         update + "\n";
}

BlockRV RFactorInner(const Schedule& sch) {
  Array<LoopRV> loops = sch->GetLoops(sch->GetBlock("B"));
  Array<LoopRV> parts = sch->Split(loops[1], {std::nullopt, 4});
  return sch->RFactor(parts[1], 0);
}

TEST(HardeningRFactor, InitMustBeTheIdentity) {
  struct Case {
    const char* op;
    const char* init;
    bool ok;
  };
  for (const Case& c :
       {Case{"add", "T.float32(0)", true}, Case{"add", "T.float32(1)", false},
        Case{"mul", "T.float32(1)", true}, Case{"mul", "T.float32(0)", false},
        Case{"max", "T.float32(-3.4028234663852886e+38)", true}, Case{"max", "T.float32(0)", false},
        Case{"min", "T.float32(0)", false}, Case{"add", "A[vi, 0]", false}}) {
    SCOPED_TRACE(std::string(c.op) + " init " + c.init);
    IRModule mod = ParseMod(SumWithInit(c.op, c.init));
    Schedule sch = Schedule::Create(mod);
    if (c.ok) {
      RFactorInner(sch);
      EXPECT_TRUE(Equivalent(Downcast<PrimFunc>(mod->Lookup("main")), MainOf(sch)));
    } else {
      EXPECT_MINITVM_ERROR(RFactorInner(sch), "ScheduleError.InitNotIdentityError",
                           "identity of its reduction");
    }
  }
}

constexpr const char* kProducerConsumer = R"(
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(2)
    for i in range(15):
        with T.block("C"):
            vi = T.axis.spatial(15, i)
            T.reads(READS)
            T.writes(C[vi])
            C[vi] = B[vi] + B[vi + 1]
)";

std::string WithReads(const std::string& reads) {
  std::string s = kProducerConsumer;
  s.replace(s.find("READS"), 5, reads);
  return s;
}

TEST(HardeningRegions, NarrowDeclaredReadsAreRefused) {
  EXPECT_MINITVM_ERROR(Schedule::Create(ParseMod(WithReads("B[vi]"))),
                       "ScheduleError.RegionNotCoveredError", "narrower");
  EXPECT_MINITVM_ERROR(Schedule::Create(ParseMod(WithReads("B[vi + 1]"))),
                       "ScheduleError.RegionNotCoveredError", "narrower");
  // A wider declaration is loose, not wrong: accepted, and compute_at keeps the values.
  for (const char* reads : {"B[vi:vi + 2]", "B[0:16]"}) {
    SCOPED_TRACE(reads);
    IRModule mod = ParseMod(WithReads(reads));
    Schedule sch = Schedule::Create(mod);
    sch->ComputeAt(sch->GetBlock("B"), sch->GetLoops(sch->GetBlock("C"))[0]);
    EXPECT_TRUE(Equivalent(Downcast<PrimFunc>(mod->Lookup("main")), MainOf(sch)));
  }
}

TEST(HardeningRegions, UndeclaredBufferIsRefused) {
  std::string s = kProducerConsumer;
  s.replace(s.find("            T.reads(READS)\n"),
            std::string("            T.reads(READS)\n").size(), "            T.reads()\n");
  EXPECT_MINITVM_ERROR(Schedule::Create(ParseMod(s)), "ScheduleError.RegionNotCoveredError",
                       "does not list buffer B");
}

std::string Matmul(const std::string& kinds) {
  return R"(
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap(")" +
         kinds + R"(", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";
}

TEST(HardeningIterKinds, KindsMustAgreeWithTheWrites) {
  EXPECT_MINITVM_ERROR(Schedule::Create(ParseMod(Matmul("SRR"))),
                       "ScheduleError.ReductionIterInWriteIndexError", "reduction iterator vj");
  EXPECT_MINITVM_ERROR(Schedule::Create(ParseMod(Matmul("SSS"))),
                       "ScheduleError.SpatialIterNotInWriteIndexError", "spatial iterator vk");
  Schedule::Create(ParseMod(Matmul("SSR")));
}

}  // namespace
}  // namespace tir
}  // namespace minitvm
