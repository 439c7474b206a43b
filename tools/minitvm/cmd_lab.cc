/*!
 * \file tools/minitvm/cmd_lab.cc
 * \brief `minitvm lab check NN FILE`: grade a course lab solution (the labs follow stages 1-4).
 *
 * The graders are Python (python/minitvm/labs/): they run the learner's Python code against
 * the reference of the stage below, in child processes with time limits. This command runs
 * `python3 -m minitvm.labs ...` with the package of this source tree on PYTHONPATH and this
 * build as MINITVM_BUILD_DIR (unless the environment sets them), and returns its status:
 * 0 when every case passes, 1 when some fail, 2 for a usage error.
 */
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "driver.h"

#ifndef MINITVM_LAB_PYTHON
#define MINITVM_LAB_PYTHON "/usr/bin/python3"
#endif
#ifndef MINITVM_LAB_PYTHONPATH
#define MINITVM_LAB_PYTHONPATH ""
#endif
#ifndef MINITVM_LAB_BUILD_DIR
#define MINITVM_LAB_BUILD_DIR ""
#endif

namespace minitvm {
namespace tools {
namespace {

std::string LabUsage() {
  return "usage: minitvm lab check NN FILE [--seed=S] [--cases=N] [--timeout=SECONDS]\n"
         "       minitvm lab list\n\n"
         "Grade FILE, a solution of course lab NN (tutorials/labs/NN_*/): the learner's code\n"
         "runs on generated cases (the seed is printed) and is compared with the reference of\n"
         "the stage below; each case reports ok, the first mismatch, or the exception with the\n"
         "line of FILE. Exit status 0 when every case passes, 1 otherwise.\n";
}

int RunLab(const CommandLine& line) {
  bool is_check = line.args.size() == 3 && line.args[0] == "check";
  bool is_list = line.args.size() == 1 && line.args[0] == "list";
  if (!is_check && !is_list) {
    std::cerr << LabUsage();
    return 2;
  }
  std::vector<std::string> argv = {MINITVM_LAB_PYTHON, "-m", "minitvm.labs"};
  argv.insert(argv.end(), line.args.begin(), line.args.end());
  for (const auto& [key, value] : line.options) argv.push_back("--" + key + "=" + value);

  // The package of this source tree first on the path; the environment's entries after it.
  std::string pythonpath = MINITVM_LAB_PYTHONPATH;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) {
    pythonpath = pythonpath.empty() ? old : pythonpath + ":" + old;
  }
  if (!pythonpath.empty()) ::setenv("PYTHONPATH", pythonpath.c_str(), 1);
  if (std::strlen(MINITVM_LAB_BUILD_DIR) > 0) {
    ::setenv("MINITVM_BUILD_DIR", MINITVM_LAB_BUILD_DIR, /*overwrite=*/0);
  }
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::cout.flush();
  ::execv(cargv[0], cargv.data());
  std::cerr << "minitvm lab: cannot run " << argv[0] << ": " << std::strerror(errno) << "\n";
  return 1;
}

const bool kRegistered = [] {
  Command lab;
  lab.name = "lab";
  lab.summary = "grade a course lab solution (lab check NN FILE, lab list)";
  lab.usage = LabUsage;
  lab.run = RunLab;
  return RegisterCommand(lab);
}();

}  // namespace
}  // namespace tools
}  // namespace minitvm
