/*!
 * \file shell_util.h
 * \brief Shell helpers shared by the two library exporters (stage 5): the "llvm" module's
 * export_library and the Relax VM's export (relax_vm/build.cc) both link with the C compiler
 * driver through these.
 */
#ifndef MINITVM_SRC_CODEGEN_SHELL_UTIL_H_
#define MINITVM_SRC_CODEGEN_SHELL_UTIL_H_

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace minitvm {
namespace codegen {
namespace shell {

/*! \brief Runs a shell command (stderr joined to stdout); its exit status, -1 when it died. */
inline int RunCommand(const std::string& cmd, std::string* output) {
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[512];
  while (fgets(buf, sizeof(buf), pipe)) *output += buf;
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*! \brief s as one single-quoted shell word. */
inline std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace shell
}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_SRC_CODEGEN_SHELL_UTIL_H_
