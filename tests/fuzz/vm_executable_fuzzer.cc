/*!
 * \file vm_executable_fuzzer.cc
 * \brief libFuzzer target for the Relax VM executable loader (stage 5).
 *
 * Every input must either load — and then save to exactly the loaded bytes and load again — or
 * raise a ValueError. Any other exception, a crash, a sanitizer report or a hang is a finding.
 * The seed corpus is tests/fuzz/vm_executable_seeds/ (see tests/fuzz/CMakeLists.txt); its
 * quick replay is the gtest VMExecutableFuzz.SeedCorpusAndMutants (tests/stage5/hardening_test.cc).
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "minitvm/relax_vm/executable.h"

namespace {

[[noreturn]] void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "FINDING: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using minitvm::Error;
  using minitvm::relax_vm::ExecutableNode;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  std::string saved;
  try {
    saved = ExecutableNode::LoadFromBytes(bytes)->SaveToBytes();
  } catch (const Error& e) {
    if (e.kind() != "ValueError") Finding("an error that is not a ValueError", e.what());
    return 0;
  } catch (const std::exception& e) {
    Finding("a non-minitvm exception from the loader", e.what());
  }
  if (saved != bytes) Finding("save(load(x)) != x", "");
  try {
    (void)ExecutableNode::LoadFromBytes(saved)->AsText();
  } catch (const std::exception& e) {
    Finding("a saved executable does not load back or print", e.what());
  }
  return 0;
}
