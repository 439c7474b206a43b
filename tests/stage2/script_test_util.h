/*!
 * \file script_test_util.h
 * \brief Helpers for the TVMScript tests (stage 2): the source folder, the IR text cases, the
 * message of a ParseError, and the print/parse round trip.
 */
#ifndef MINITVM_TESTS_STAGE2_SCRIPT_TEST_UTIL_H_
#define MINITVM_TESTS_STAGE2_SCRIPT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/ir/structural.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace testing {

/*!
 * \brief The repository root: $MINITVM_SOURCE_DIR (CTest sets it), else found from this
 * header's own path (tests/stage2/script_test_util.h), so the test binary also runs by hand.
 */
inline std::string SourceDir() {
  const char* dir = std::getenv("MINITVM_SOURCE_DIR");
  if (dir && *dir) return dir;
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().string();
}

/*! \brief The IR text cases: the paths of tests/stage2/ir_text/ *.tvms, sorted. */
inline std::vector<std::string> IRTextCases() {
  std::vector<std::string> cases;
  std::filesystem::path dir = std::filesystem::path(SourceDir()) / "tests/stage2/ir_text";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".tvms") cases.push_back(entry.path().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

/*! \brief The lines of a text. */
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) lines.push_back(line);
  return lines;
}

/*!
 * \brief The message of the ParseError that parsing `text` raises; records a failure (and
 * returns "") when it parses or raises another kind of error.
 */
inline std::string ParseErrorOf(const std::string& text, const std::string& file = "kernel.py",
                                int line_offset = 0) {
  try {
    script::FromSource(text, file, line_offset);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ParseError") << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected a ParseError for:\n" << text;
  return "";
}

/*!
 * \brief Print `node`, parse the text, print again: the two texts must be equal and the parsed
 * IR structurally equal to `node` (free variables mapped). Returns the text.
 */
inline std::string CheckRoundTrip(const ObjectRef& node) {
  std::string text = script::AsScript(node);
  ObjectRef parsed;
  try {
    parsed = script::FromSource(text, "printed.py");
  } catch (const Error& e) {
    ADD_FAILURE() << "the printed text does not parse:\n" << text << "\n" << e.what();
    return text;
  }
  EXPECT_EQ(script::AsScript(parsed), text);
  if (!StructuralEqual(node, parsed, /*map_free_vars=*/true)) {
    ADD_FAILURE() << "parse(print(x)) is not structurally equal to x:\n"
                  << StructuralDiff(node, parsed, true) << "\n"
                  << text;
  }
  return text;
}

}  // namespace testing
}  // namespace minitvm

#endif  // MINITVM_TESTS_STAGE2_SCRIPT_TEST_UTIL_H_
