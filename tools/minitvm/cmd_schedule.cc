/*!
 * \file tools/minitvm/cmd_schedule.cc
 * \brief `minitvm schedule FILE --trace=TRACE` (stage 3): apply a schedule trace to a TVMScript
 * file and show it step by step — for each primitive, the unified diff of the IR and a check on
 * random inputs (TIR interpreter) that the function still computes what the original did.
 *
 * TRACE is a file holding either the JSON form (`trace.as_json()`) or the Python form
 * (`trace.show()`, or any `sch.<primitive>(...)` lines). The exit status is 1 when a step
 * fails to apply or changes the results (the first such step is named), 0 otherwise.
 */
#include <iostream>

#include "driver.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/schedule/schedule.h"
#include "minitvm/tir/schedule/show_steps.h"

namespace minitvm {
namespace tools {
namespace {

tir::Trace ReadTrace(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') return tir::Trace::FromJSON(text);
  return tir::Trace::FromPython(text);
}

int RunSchedule(const CommandLine& line) {
  std::vector<std::string> args = line.args;
  std::string trace_path = line.Get("trace").value_or("");
  if (trace_path.empty() && line.Get("trace") && args.size() == 2) {
    trace_path = args.back();  // `--trace PATH` written with a space
    args.pop_back();
  }
  if (args.size() != 1 || trace_path.empty()) {
    std::cerr << "usage: minitvm schedule FILE --trace=TRACE [--func=main] [--seed=0] [--quiet]\n";
    return 2;
  }
  std::string func = line.Get("func").value_or("main");
  uint64_t seed = ParseUintOption("seed", line.Get("seed").value_or("0"));
  IRModule mod = script::ParseModule(ReadSource(args[0]), args[0] == "-" ? "<stdin>" : args[0]);
  tir::Trace trace = ReadTrace(ReadSource(trace_path));
  tir::ScheduleSteps steps = tir::ShowSteps(mod, trace, func, seed);
  if (!line.Get("quiet")) std::cout << steps.ToString();
  bool failed = !steps.steps.empty() && !steps.steps.back().error.empty();
  if (!failed && !steps.steps.empty()) {
    std::cout << "\nthe scheduled function:\n" << steps.steps.back().after;
  }
  return (failed || steps.first_bad_step > 0) ? 1 : 0;
}

const bool kRegistered = [] {
  Command cmd;
  cmd.name = "schedule";
  cmd.summary = "apply a schedule trace to a TVMScript file, step by step with checks";
  cmd.usage = [] {
    return std::string(
        "usage: minitvm schedule FILE --trace=TRACE [--func=main] [--seed=0] [--quiet]\n\n"
        "Parse FILE (TVMScript), replay TRACE on it one primitive at a time and print, for\n"
        "each step, the schedule call, the unified diff of the IR and whether the function\n"
        "still computes what the original did (TIR interpreter on random inputs from --seed).\n"
        "TRACE is the JSON of trace.as_json() or Python schedule calls as trace.show()\n"
        "prints them. Exit status 1 when a step fails or changes the results.\n");
  };
  cmd.run = RunSchedule;
  return RegisterCommand(cmd);
}();

}  // namespace
}  // namespace tools
}  // namespace minitvm
