/*!
 * \file text_cases_test.cc
 * \brief The expected-output text cases of the schedule primitives (stage 3): every file
 * `tests/stage3/text/*.tvms` is one case.
 *
 * A case file is TVMScript with a header of comments:
 *
 *     # What the case shows.
 *     # sch: b0 = sch.get_block("B")
 *     # sch: l1, = sch.get_loops(b0)
 *     # sch: l2, l3 = sch.split(l1, factors=[None, 4])
 *     @T.prim_func
 *     def main(...): ...
 *     # ==== expected ====
 *     @T.prim_func
 *     def main(...): ...        <- the printed result
 *
 * The `# sch:` lines are schedule calls as Python (read by Trace::FromPython). For a positive
 * case the printed result must equal the expected text and be structurally equal to it, the
 * scheduled function must compute what the input computes (interpreter, random inputs), the
 * trace must survive a JSON round trip and replay to the same IR, and the printed result must
 * parse back to the same IR. A negative case has `# error: <kind>` (and optionally
 * `# error-message: <text the message contains>`) and no expected part: its last schedule
 * line must raise that error and leave the schedule unchanged.
 *
 * Run with UPDATE_GOLDEN=1 to rewrite the expected parts from the current output.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "minitvm/ir/structural.h"
#include "sched_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)

const char* kExpectedMarker = "# ==== expected ====";

std::string CaseDir() {
  if (const char* src = std::getenv("MINITVM_SOURCE_DIR")) {
    return std::string(src) + "/tests/stage3/text";
  }
#ifdef MINITVM_STAGE3_TEXT_DIR
  return MINITVM_STAGE3_TEXT_DIR;
#else
  return "tests/stage3/text";
#endif
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(CaseDir(), ec)) {
    if (e.path().extension() == ".tvms") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct Case {
  std::string input;
  std::string expected;
  std::string schedule;  // Python lines
  std::string error_kind;
  std::string error_message;
  std::string Text() const;
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  size_t e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Case ReadCase(const std::string& path) {
  std::string text = testing::ReadBytes(path);
  Case c;
  size_t mark = text.find(kExpectedMarker);
  c.input = text.substr(0, mark);
  if (mark != std::string::npos)
    c.expected = text.substr(mark + std::string(kExpectedMarker).size());
  std::istringstream is(c.input);
  std::string line;
  while (std::getline(is, line)) {
    auto take = [&](const std::string& prefix, std::string* out, bool append) {
      if (line.rfind(prefix, 0) != 0) return false;
      std::string v = Trim(line.substr(prefix.size()));
      *out = append ? *out + v + "\n" : v;
      return true;
    };
    take("# sch:", &c.schedule, true) || take("# error:", &c.error_kind, false) ||
        take("# error-message:", &c.error_message, false);
  }
  return c;
}

class TextCase : public ::testing::TestWithParam<std::string> {};

TEST_P(TextCase, Run) {
  std::string path = CaseDir() + "/" + GetParam() + ".tvms";
  Case c = ReadCase(path);
  ASSERT_FALSE(c.schedule.empty()) << path << ": no `# sch:` lines";
  IRModule mod = testing::ParseMod(c.input);
  Schedule sch = Schedule::Create(mod, /*debug_mask=*/1);
  PrimFunc original = testing::MainOf(sch);
  Trace trace = Trace::FromPython(c.schedule);

  if (!c.error_kind.empty()) {
    // Everything but the last line applies; the last line must fail and change nothing.
    Array<Instruction> prefix;
    for (size_t i = 0; i + 1 < trace->insts.size(); ++i) prefix.push_back(trace->insts[i]);
    Schedule expected_state = Schedule::Create(mod);
    Trace(prefix).ApplyToSchedule(expected_state);
    std::string kind, message;
    try {
      trace.ApplyToSchedule(sch);
      ADD_FAILURE() << path << ": the last schedule line did not fail";
    } catch (const Error& e) {
      kind = e.kind();
      message = e.what();
    }
    EXPECT_EQ(kind, c.error_kind) << message;
    EXPECT_NE(message.find(c.error_message), std::string::npos)
        << "the message does not contain \"" << c.error_message << "\":\n"
        << message;
    EXPECT_TRUE(StructuralEqual(sch->mod(), expected_state->mod()))
        << "the failed primitive changed the schedule";
    EXPECT_EQ(sch->trace()->insts.size(), prefix.size());
    if (std::getenv("MINITVM_SHOW_ERRORS")) std::cout << message << "\n";
    return;
  }

  trace.ApplyToSchedule(sch);
  PrimFunc result = testing::MainOf(sch);
  std::string printed = script::AsScript(result);
  if (std::getenv("UPDATE_GOLDEN")) {
    std::string input = c.input;
    while (!input.empty() && input.back() == '\n') input.pop_back();
    testing::WriteBytes(path, input + "\n" + kExpectedMarker + "\n" + printed +
                                  (printed.back() == '\n' ? "" : "\n"));
    return;
  }
  EXPECT_EQ(Trim(printed), Trim(c.expected)) << path;
  PrimFunc expected = Downcast<PrimFunc>(testing::ParseMod(c.expected)->Lookup("main"));
  EXPECT_TRUE(StructuralEqual(expected, result)) << StructuralDiff(expected, result);
  // print -> parse round trip of the result.
  PrimFunc reparsed = Downcast<PrimFunc>(testing::ParseMod(printed)->Lookup("main"));
  EXPECT_TRUE(StructuralEqual(reparsed, result)) << StructuralDiff(reparsed, result);
  // The result computes what the input computes.
  EquivalenceResult eq = CheckEquivalence(original, result, 7);
  if (eq.checked) EXPECT_TRUE(eq.equal) << eq.message;
  // The trace replays through JSON to the same IR.
  Trace back = Trace::FromJSON(sch->trace().AsJSON());
  Schedule replay = Schedule::Create(mod);
  back.ApplyToSchedule(replay);
  EXPECT_TRUE(StructuralEqual(replay->mod(), sch->mod()))
      << StructuralDiff(replay->mod(), sch->mod());
  EXPECT_EQ(back.Show(), sch->trace().Show());
}

INSTANTIATE_TEST_SUITE_P(Stage3, TextCase, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace minitvm
