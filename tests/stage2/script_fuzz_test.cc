/*!
 * \file script_fuzz_test.cc
 * \brief A deterministic mutation fuzz test of the TVMScript parser (stage 2): the IR text
 * cases are mutated at random (bytes deleted, inserted, duplicated; lines swapped, re-indented,
 * cut; tokens spliced in) and each mutant must either parse — and then round-trip through the
 * printer — or raise a ParseError. Anything else (another exception, a crash, a hang) fails.
 *
 * It runs 3000 mutants by default; `MINITVM_FUZZ_ITERS=200000 ./stage2_tests
 * --gtest_filter=ScriptFuzz*` runs longer, `MINITVM_FUZZ_SEED` picks another sequence. The
 * libFuzzer target in tests/fuzz/ does the same with coverage guidance (clang only).
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string_view>

#include "script_test_util.h"

namespace minitvm {
namespace {

// string_view, not const char*: one token is a NUL byte.
const std::string_view kTokens[] = {
    "T.",
    "T.block(\"b\")",
    "T.axis.spatial(",
    "T.grid(",
    "range(",
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    "\n",
    "    ",
    "\t",
    "=",
    "+",
    "//",
    "**",
    "-",
    "not ",
    " and ",
    "lambda",
    "for ",
    " in ",
    "with ",
    "if ",
    "else:",
    "T.float32(",
    "T.Buffer(",
    "\"",
    "'''",
    "#",
    "\\\n",
    "T.reads(",
    "T.init()",
    "1e309",
    "0x",
    "99999999999999999999",
    "T.int64(",
    "A[",
    "vi",
    "T.match_buffer(",
    "T.alloc_buffer(",
    "T.launch_thread(",
    "T.Let(",
    "T.Ramp(0, 1, ",
    "T.func_attr({",
    "@T.prim_func\n",
    "class ",
    "def ",
    "assert ",
    "*",
    "...",
    "None",
    "True",
    "数",
    "\xff",
    std::string_view("\0", 1),
    "T.decl_buffer((",
    "T.allocate([",
    "T.attr(",
    "T.where(",
    "T.remap(",
    "T.axis.remap(\"SR\", [",
    "T.Cast(",
    "T.call_extern(",
    "-> ",
};

std::string Mutate(const std::string& input, std::mt19937_64& rng) {
  std::string s = input;
  auto pick = [&](size_t n) { return n == 0 ? size_t(0) : static_cast<size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    size_t pos = pick(s.size() + 1);
    switch (rng() % 9) {
      case 0:  // delete a run of bytes
        s.erase(std::min(pos, s.size()), 1 + pick(8));
        break;
      case 1:  // insert a random byte
        s.insert(pos, 1, static_cast<char>(rng() % 256));
        break;
      case 2:  // insert a token
        s.insert(pos, kTokens[pick(sizeof(kTokens) / sizeof(kTokens[0]))]);
        break;
      case 3: {  // duplicate a slice
        size_t len = pick(40);
        s.insert(pos, s.substr(pick(s.size()), len));
        break;
      }
      case 4: {  // swap two lines
        auto lines = testing::Lines(s);
        if (lines.size() > 1) std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
        s.clear();
        for (auto& l : lines) s += l + "\n";
        break;
      }
      case 5: {  // re-indent a line
        auto lines = testing::Lines(s);
        if (!lines.empty()) {
          std::string& l = lines[pick(lines.size())];
          if (rng() % 2) {
            l.insert(0, std::string(pick(9), ' '));
          } else {
            l.erase(0, std::min(l.size(), pick(9)));
          }
        }
        s.clear();
        for (auto& l : lines) s += l + "\n";
        break;
      }
      case 6:  // truncate
        s.resize(std::min(s.size(), pos));
        break;
      case 7: {  // replace a digit or a name character
        if (!s.empty()) s[pick(s.size())] = "0123456789abcTvi_.,:()[] \n"[pick(26)];
        break;
      }
      default: {  // splice a line of another position
        auto lines = testing::Lines(s);
        if (!lines.empty()) {
          lines.insert(lines.begin() + static_cast<long>(pick(lines.size())),
                       lines[pick(lines.size())]);
        }
        s.clear();
        for (auto& l : lines) s += l + "\n";
        break;
      }
    }
  }
  return s;
}

/*! \brief The oracle: `input` parses and round-trips, or raises a ParseError. */
::testing::AssertionResult ParsesAndRoundTripsOrRaisesParseError(const std::string& input) {
  ObjectRef result;
  try {
    result = script::FromSource(input, "mutant.py");
  } catch (const Error& e) {
    if (e.kind() == "ParseError") return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << e.kind() << " instead of ParseError: " << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "std::exception: " << e.what();
  }
  std::string text;
  try {
    text = script::AsScript(result);
    std::string again = script::AsScript(script::FromSource(text, "printed.py"));
    if (again != text) {
      return ::testing::AssertionFailure() << "printing is not a fixed point:\n"
                                           << text << "\nthen:\n"
                                           << again;
    }
  } catch (const Error& e) {
    return ::testing::AssertionFailure()
           << "the printed text does not parse back: " << e.what() << "\n"
           << text;
  }
  return ::testing::AssertionSuccess();
}

TEST(ScriptFuzz, LibFuzzerFindingsStayFixed) {
  // Inputs on which the libFuzzer target (tests/fuzz/) once failed.
  std::filesystem::path dir =
      std::filesystem::path(testing::SourceDir()) / "tests/fuzz/regressions";
  int count = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    SCOPED_TRACE(entry.path().string());
    EXPECT_TRUE(ParsesAndRoundTripsOrRaisesParseError(testing::ReadBytes(entry.path().string())));
    ++count;
  }
  EXPECT_GE(count, 3);
}

TEST(ScriptFuzz, MutatedScriptsParseOrRaiseParseError) {
  std::vector<std::string> corpus;
  for (const std::string& path : testing::IRTextCases()) corpus.push_back(testing::ReadBytes(path));
  ASSERT_FALSE(corpus.empty());
  const char* iters_env = std::getenv("MINITVM_FUZZ_ITERS");
  const char* seed_env = std::getenv("MINITVM_FUZZ_SEED");
  long iters = iters_env ? std::atol(iters_env) : 3000;
  std::mt19937_64 rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 20240601u);
  int parsed = 0, rejected = 0;
  for (long it = 0; it < iters; ++it) {
    std::string input = Mutate(corpus[rng() % corpus.size()], rng);
    ObjectRef result;
    try {
      result = script::FromSource(input, "mutant.py");
    } catch (const Error& e) {
      if (e.kind() != "ParseError") {
        ADD_FAILURE() << "iteration " << it << ": " << e.kind()
                      << " instead of ParseError: " << e.what() << "\ninput:\n"
                      << input;
        if (::testing::Test::HasFailure() && ++rejected > 20) break;
      }
      ++rejected;
      continue;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "iteration " << it << ": std::exception " << e.what() << "\ninput:\n"
                    << input;
      continue;
    }
    ++parsed;
    // What parses must print, and the print must parse back to the same text.
    std::string text;
    try {
      text = script::AsScript(result);
      ObjectRef again = script::FromSource(text, "printed.py");
      EXPECT_EQ(script::AsScript(again), text) << "iteration " << it << "\ninput:\n" << input;
    } catch (const Error& e) {
      ADD_FAILURE() << "iteration " << it
                    << ": the printed mutant does not parse back: " << e.what() << "\ninput:\n"
                    << input << "\nprinted:\n"
                    << text;
    }
    if (::testing::Test::HasFailure()) break;
  }
  RecordProperty("parsed", parsed);
  RecordProperty("rejected", rejected);
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace minitvm
