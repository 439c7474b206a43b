/*!
 * \file script_roundtrip_test.cc
 * \brief The IR text cases of tests/stage2/ir_text/ (stage 2): each `NAME.tvms` parses and
 * prints as `NAME.expected` (compared as text), `NAME.expected` parses to a structurally equal
 * IR, and printing is a fixed point. Also: TE-created functions round-trip.
 *
 * Regenerate the expected files after an intended printer change with
 * `UPDATE_GOLDEN=1 ./stage2_tests --gtest_filter='ScriptRoundTrip*'`.
 */
#include <gtest/gtest.h>

#include <cstdlib>

#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/op.h"
#include "script_test_util.h"

#if __has_include("minitvm/topi/topi.h")
#include "minitvm/topi/topi.h"
#endif

namespace minitvm {
namespace {

TEST(ScriptRoundTrip, IRTextCases) {
  std::vector<std::string> cases = testing::IRTextCases();
  ASSERT_GE(cases.size(), 10u) << "no IR text cases found under " << testing::SourceDir();
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  for (const std::string& input_path : cases) {
    SCOPED_TRACE(input_path);
    std::string expected_path = input_path.substr(0, input_path.size() - 5) + ".expected";
    ObjectRef input;
    try {
      input = script::FromSource(testing::ReadBytes(input_path), input_path);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    std::string printed = script::AsScript(input);
    if (update) testing::WriteBytes(expected_path, printed);
    std::string expected = testing::ReadBytes(expected_path);
    EXPECT_EQ(printed, expected);
    ObjectRef reparsed = script::FromSource(expected, expected_path);
    EXPECT_TRUE(StructuralEqual(input, reparsed, /*map_free_vars=*/true))
        << StructuralDiff(input, reparsed, true);
    EXPECT_EQ(script::AsScript(reparsed), expected);
  }
}

TEST(ScriptRoundTrip, TeCreatePrimFunc) {
  using namespace te;  // NOLINT(build/namespaces)
  Tensor A = placeholder({8}, DataType::Float(32), "A");
  Tensor B = compute({8}, std::function<PrimExpr(tir::Var)>([&](tir::Var i) {
                       return A(Array<PrimExpr>{i}) + PrimExpr(1.0);
                     }),
                     "B");
  std::string text = testing::CheckRoundTrip(CreatePrimFunc({A, B}));
  EXPECT_NE(text.find("B[v_ax0] = A[v_ax0] + T.float32(1.0)"), std::string::npos) << text;
  Tensor X = placeholder({16, 32}, DataType::Float(32), "X");
  Tensor W = placeholder({8, 32}, DataType::Float(32), "W");
  tir::IterVar k = reduce_axis(Range(0, 32), "k");
  Tensor Y =
      compute({16, 8}, std::function<PrimExpr(tir::Var, tir::Var)>([&](tir::Var i, tir::Var j) {
                return sum(X(Array<PrimExpr>{i, k->var}) * W(Array<PrimExpr>{j, k->var}), {k});
              }),
              "Y");
  Tensor Z =
      compute({16, 8}, std::function<PrimExpr(tir::Var, tir::Var)>([&](tir::Var i, tir::Var j) {
                return tir::max(Y(Array<PrimExpr>{i, j}), PrimExpr(0.0f));
              }),
              "Z");
  testing::CheckRoundTrip(IRModule::FromNamed({{"dense_relu", CreatePrimFunc({X, W, Z})}}));
}

}  // namespace
}  // namespace minitvm
