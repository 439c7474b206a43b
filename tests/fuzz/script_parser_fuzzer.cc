/*!
 * \file script_parser_fuzzer.cc
 * \brief libFuzzer target for the TVMScript parser (stage 2).
 *
 * Every input must either parse — and then print, parse back and print to the same text — or
 * raise a ParseError. Any other exception, a crash, a sanitizer report or a hang is a finding.
 * Build and run instructions: docs/tvmscript.md ("Fuzzing the parser").
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"

namespace {

[[noreturn]] void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "FINDING: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using minitvm::Error;
  std::string text(reinterpret_cast<const char*>(data), size);
  minitvm::runtime::ObjectRef parsed;
  try {
    parsed = minitvm::script::FromSource(text, "fuzz.py");
  } catch (const Error& e) {
    if (e.kind() != "ParseError")
      Finding("an error that is not a ParseError", e.kind() + ": " + e.what());
    return 0;
  } catch (const std::exception& e) {
    Finding("a non-minitvm exception from the parser", e.what());
  }
  std::string printed;
  try {
    printed = minitvm::script::AsScript(parsed);
  } catch (const std::exception& e) {
    Finding("printing a parsed script failed", e.what());
  }
  try {
    minitvm::runtime::ObjectRef again = minitvm::script::FromSource(printed, "printed.py");
    if (minitvm::script::AsScript(again) != printed)
      Finding("print(parse(print(x))) != print(x)", printed);
  } catch (const std::exception& e) {
    Finding("the printed script does not parse back", std::string(e.what()) + "\n" + printed);
  }
  return 0;
}
