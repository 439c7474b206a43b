/*!
 * \file scripts/lsan_unset_preload.c
 * \brief Leak check helper (issue 16): preloaded after liblsan by scripts/sanitize_test.sh
 *        --leaks; removes LD_PRELOAD from the environment of every process except those
 *        that lead to minitvm code.
 *
 * The dynamic loader has already read LD_PRELOAD when this constructor runs, so the process
 * itself stays under LeakSanitizer; the variable only decides about the programs it starts.
 * It is kept in ctest, cmake (`cmake -P` test scripts), env, timeout, the Python interpreter
 * and the programs under $MINITVM_LSAN_KEEP_DIR (the build folder: test programs, the minitvm
 * CLI), so each of them passes LeakSanitizer on. Everything else starts its children without
 * it: the compiler driver (as and ld when a library is exported) and shells (the script
 * /usr/bin/chromium-headless-shell that the visualizer test runs). Under liblsan with
 * exitcode=0, GNU as 2.40 and Chromium crash, and their leaks are not minitvm's. A Python
 * started through a shell (popen) is therefore not checked.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passes_it_on(const char* path, const char* base) {
  static const char* const kNames[] = {"ctest", "cmake", "env", "timeout"};
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    if (strcmp(base, kNames[i]) == 0) return 1;
  }
  if (strncmp(base, "python", 6) == 0) return 1;
  const char* keep = getenv("MINITVM_LSAN_KEEP_DIR");
  return keep && *keep && strncmp(path, keep, strlen(keep)) == 0;
}

__attribute__((constructor)) static void minitvm_lsan_unset_preload(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return;
  exe[n] = '\0';
  const char* base = strrchr(exe, '/');
  if (!passes_it_on(exe, base ? base + 1 : exe)) unsetenv("LD_PRELOAD");
}
