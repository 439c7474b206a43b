/*!
 * \file tests/stage2/hardening_test.cc
 * \brief Adversarial inputs for stage 2 (issue 16): the depth policy (deep trees are refused by
 * the functors, structural equality/hash and the printer instead of overflowing the stack,
 * also on a thread with a small stack), script text (tabs and spaces, bare carriage returns,
 * deep `and` chains) and interpreter arguments that do not fit their dtype.
 */
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "minitvm/arith/analyzer.h"
#include "minitvm/ir/structural.h"
#include "minitvm/runtime/depth_guard.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)
using runtime::NDArray;
using testing::MakeArray;
using testing::ToVector;

PrimExpr Chain(int n) {
  Var x("x");
  PrimExpr e = x;
  for (int i = 0; i < n; ++i) e = e + 1;
  return e;
}

constexpr const char* kNesting = "ValueError.NestingTooDeepError";

TEST(HardeningDepth, DeepTreesAreRefusedEverywhere) {
  PrimExpr deep = Chain(kMaxNestingDepth + 100);
  EXPECT_MINITVM_ERROR(script::AsScript(deep), kNesting, "expression nested deeper than");
  EXPECT_MINITVM_ERROR(StructuralEqual(deep, deep), kNesting, "structural equality");
  EXPECT_MINITVM_ERROR(StructuralHash(deep), kNesting, "structural hash");
  arith::Analyzer analyzer;
  EXPECT_MINITVM_ERROR(analyzer.Simplify(deep), kNesting, "nested");
  // Much deeper trees fail the same way (the limit, not the stack, is what they meet).
  PrimExpr deeper = Chain(200000);
  EXPECT_MINITVM_ERROR(script::AsScript(deeper), kNesting, "nested");
}

TEST(HardeningDepth, TreesBelowTheLimitWork) {
  PrimExpr e = Chain(2000);
  EXPECT_NE(script::AsScript(e).find("x + 1"), std::string::npos);
  EXPECT_TRUE(StructuralEqual(e, Chain(2000), /*map_free_vars=*/true));
  EXPECT_EQ(StructuralHash(e, true), StructuralHash(Chain(2000), true));
}

/*! \brief Run `fn` on a thread with a `stack_bytes` stack; returns what it reported. */
std::string OnSmallStack(size_t stack_bytes, std::string (*fn)()) {
  struct Job {
    std::string (*fn)();
    std::string result;
  } job{fn, ""};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t t;
  auto body = [](void* p) -> void* {
    auto* j = static_cast<Job*>(p);
    j->result = j->fn();
    return nullptr;
  };
  EXPECT_EQ(pthread_create(&t, &attr, body, &job), 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  return job.result;
}

TEST(HardeningDepth, SmallThreadStacksRaiseInsteadOfCrashing) {
  std::string r = OnSmallStack(512 * 1024, [] {
    try {
      return std::string("printed ") + std::to_string(script::AsScript(Chain(3900)).size());
    } catch (const Error& e) {
      return e.kind() + ": " + e.what();
    }
  });
  EXPECT_NE(r.find(kNesting), std::string::npos) << r;
  EXPECT_NE(r.find("stack"), std::string::npos) << r;
}

TEST(HardeningScript, DeepBoolChainsAreParseErrors) {
  for (const char* op : {" and ", " or ", " < "}) {
    std::string e = "a > 0";
    for (int i = 0; i < 3000; ++i) e += std::string(op) + "a > 0";
    std::string src =
        "@T.prim_func\ndef main(A: T.Buffer((4,), \"int32\"), a: T.int32):\n"
        "    A[0] = T.Select(" +
        e + ", 1, 0)\n";
    EXPECT_MINITVM_ERROR(script::FromSource(src), "ParseError", "nested too deeply");
  }
}

constexpr const char* kScript =
    "@T.prim_func\n"
    "def main(A: T.Buffer((4,), \"float32\")):\n"
    "    for i in range(4):\n"
    "        A[i] = T.float32(1)\n";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
    s.replace(p, from.size(), to);
  }
  return s;
}

TEST(HardeningScript, CarriageReturnsEndLines) {
  ObjectRef lf = script::FromSource(kScript);
  EXPECT_TRUE(StructuralEqual(lf, script::FromSource(Replace(kScript, "\n", "\r"))));
  EXPECT_TRUE(StructuralEqual(lf, script::FromSource(Replace(kScript, "\n", "\r\n"))));
  // Errors point at the right line.
  std::string bad = Replace(Replace(kScript, "T.float32(1)", "T.float32(1) +"), "\n", "\r");
  EXPECT_MINITVM_ERROR(script::FromSource(bad, "cr.py"), "ParseError", "cr.py:4:");
}

TEST(HardeningScript, TabSpaceMixturesAreRefused) {
  // 8 spaces, then a tab + 4 spaces: deeper with tabs of 8 columns, shallower with tabs of 1.
  std::string src =
      "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n"
      "        for i in range(4):\n"
      "\t    A[i] = T.float32(1)\n";
  EXPECT_MINITVM_ERROR(script::FromSource(src, "t.py"), "ParseError",
                       "inconsistent use of tabs and spaces in indentation");
  // Tabs used consistently are fine.
  std::string tabs =
      "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n"
      "\tfor i in range(4):\n"
      "\t\tA[i] = T.float32(1)\n";
  EXPECT_TRUE(StructuralEqual(script::FromSource(tabs), script::FromSource(kScript)));
}

TEST(HardeningInterp, IntArgumentsMustFitTheirDtype) {
  ObjectRef f = script::FromSource(
      "@T.prim_func\n"
      "def main(A: T.Buffer((2,), \"int32\"), n: T.int32, u: T.uint8):\n"
      "    A[0] = n\n"
      "    A[1] = T.Cast(\"int32\", u)\n");
  Interpreter run(Downcast<PrimFunc>(f));
  NDArray a = MakeArray<int32_t>({2}, DataType::Int(32), {0, 0});
  EXPECT_MINITVM_ERROR(run(a, int64_t{1} << 31, 0), "ValueError",
                       "argument n: value 2147483648 out of range for int32");
  EXPECT_MINITVM_ERROR(run(a, -(int64_t{1} << 31) - 1, 0), "ValueError",
                       "value -2147483649 out of range for int32");
  EXPECT_MINITVM_ERROR(run(a, 0, 256), "ValueError",
                       "argument u: value 256 out of range for uint8");
  EXPECT_MINITVM_ERROR(run(a, 0, -1), "ValueError", "value -1 out of range for uint8");
  run(a, (int64_t{1} << 31) - 1, 255);
  EXPECT_EQ(ToVector<int32_t>(a)[0], 2147483647);
  EXPECT_EQ(ToVector<int32_t>(a)[1], 255);
}

}  // namespace
}  // namespace minitvm
