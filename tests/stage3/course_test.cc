/*!
 * \file course_test.cc
 * \brief The "Blitz course to TensorIR" schedule walkthrough (stage 3): split, reorder and
 * bind on the vector-add module, checked against the printed forms of the course.
 */
#include <gtest/gtest.h>

#include "sched_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)
using testing::Equivalent;
using testing::MainOf;
using testing::ParseMod;
using testing::Script;

const char* kVectorAdd = R"(
@I.ir_module
class MyModule:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0
)";

TEST(Course, SplitReorderBind) {
  IRModule mod = ParseMod(kVectorAdd);
  Schedule sch = Schedule::Create(mod, /*debug_mask=*/1);
  PrimFunc original = MainOf(sch);
  BlockRV block_b = sch->GetBlock("B");
  Array<LoopRV> loops = sch->GetLoops(block_b);
  ASSERT_EQ(loops.size(), 1u);
  Array<LoopRV> split = sch->Split(loops[0], {2, 2, 2});
  std::string text = Script(sch->mod());
  EXPECT_NE(text.find("for i_0, i_1, i_2 in T.grid(2, 2, 2):"), std::string::npos) << text;
  EXPECT_NE(text.find("vi = T.axis.spatial(8, i_0 * 4 + i_1 * 2 + i_2)"), std::string::npos)
      << text;
  EXPECT_TRUE(Equivalent(original, MainOf(sch)));

  sch->Reorder({split[0], split[2], split[1]});
  text = Script(sch->mod());
  EXPECT_NE(text.find("for i_0, i_2, i_1 in T.grid(2, 2, 2):"), std::string::npos) << text;
  EXPECT_TRUE(Equivalent(original, MainOf(sch)));

  sch->Bind(split[0], "blockIdx.x");
  sch->Bind(split[2], "threadIdx.x");
  text = Script(sch->mod());
  EXPECT_NE(text.find("for i_0 in T.thread_binding(2, thread=\"blockIdx.x\"):"), std::string::npos)
      << text;
  EXPECT_NE(text.find("for i_2 in T.thread_binding(2, thread=\"threadIdx.x\"):"), std::string::npos)
      << text;
  EXPECT_TRUE(Equivalent(original, MainOf(sch)));
  std::cout << text << "\n" << sch->trace().Show() << std::endl;
}

}  // namespace
}  // namespace minitvm
