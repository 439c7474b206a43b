/*!
 * \file codegen_llvm_basic_test.cc
 * \brief Stage 5: the vertical slice — the course's vector add lowered and compiled by LLVM,
 * run through the packed calling convention; matmul with an init block; target strings LLVM
 * does not know are ValueErrors, not aborts.
 */
#include <gtest/gtest.h>

#include "minitvm/codegen/llvm.h"
#include "minitvm/runtime/registry.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)

TEST(CodeGenLLVM, VectorAdd) {
  runtime::Module mod = codegen::BuildLLVM(ModuleOf(MakeVectorAdd(8)), "llvm");
  EXPECT_EQ(mod->kind(), "llvm");
  NDArray a = MakeArray<float>({8}, F32(), {0, 1, 2, 3, 4, 5, 6, 7});
  NDArray b = MakeArray<float>({8}, F32(), {1, 1, 1, 1, 1, 1, 1, 1});
  NDArray c = Zeros({8});
  mod["main"](a, b, c);
  EXPECT_EQ(ToVector<float>(c), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(CodeGenLLVM, Matmul) {
  runtime::Module mod = codegen::BuildLLVM(ModuleOf(MakeMatmul(17, 9, 13)), "llvm -mcpu=native");
  NDArray a = RandomArray({17, 13}, 1), b = RandomArray({13, 9}, 2), c = Zeros({17, 9});
  mod["main"](a, b, c);
  EXPECT_LT(MaxAbsDiff(c, RefMatmul(a, b)), 1e-4);
}

TEST(CodeGenLLVM, UnknownTargetOptionsAreValueErrors) {
  IRModule mod = ModuleOf(MakeVectorAdd(8));
  // LLVM itself aborts the process on some unknown CPU names: minitvm checks them first.
  EXPECT_MINITVM_ERROR(codegen::BuildLLVM(mod, "llvm -mcpu=nonexistentcpu"), "ValueError",
                       "unknown -mcpu=nonexistentcpu");
  EXPECT_MINITVM_ERROR(codegen::BuildLLVM(mod, "llvm -mattr=+nofeature"), "ValueError",
                       "-mattr entry \"+nofeature\" is not +feature or -feature");
  EXPECT_MINITVM_ERROR(codegen::BuildLLVM(mod, "llvm -mattr=nosign"), "ValueError", "nosign");
  EXPECT_MINITVM_ERROR(codegen::BuildLLVM(mod, "llvm -opt-level=x"), "ValueError",
                       "-opt-level must be 0, 1, 2 or 3, not \"x\"");
  EXPECT_MINITVM_ERROR(codegen::BuildLLVM(mod, "llvm -foo"), "ValueError", "-foo");
  // The host CPU is always known.
  EXPECT_NO_THROW(codegen::BuildLLVM(mod, "llvm -mcpu=native -opt-level=1"));
}

}  // namespace
}  // namespace minitvm
