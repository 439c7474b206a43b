/*!
 * \file tools/minitvm/cmd_show.cc
 * \brief `minitvm show FILE`: parse a TVMScript file and print it back in the current format
 * (stage 2). With `--emit=LEVEL` the parsed module goes through that level first (`tir` is
 * the script as parsed; later stages add lowered forms). A parse error prints the diagnostic
 * and exits with status 1.
 */
#include <iostream>

#include "driver.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"

namespace minitvm {
namespace tools {
namespace {

int RunShow(const CommandLine& line) {
  if (line.args.size() != 1) {
    std::cerr << "usage: minitvm show [--emit=LEVEL] FILE   (FILE may be - for stdin)\n";
    return 2;
  }
  const std::string& path = line.args[0];
  std::string level = line.Get("emit").value_or("tir");
  auto emitter = Emitters().find(level);
  if (emitter == Emitters().end()) {
    std::cerr << "minitvm show: unknown emit level \"" << level << "\"; this build has:";
    for (const auto& [name, entry] : Emitters()) std::cerr << " " << name;
    std::cerr << "\n";
    return 2;
  }
  ObjectRef parsed = script::FromSource(ReadSource(path), path == "-" ? "<stdin>" : path);
  if (level == "tir") {
    // A lone PrimFunc prints as itself, not wrapped in a module.
    std::cout << script::AsScript(parsed);
    return 0;
  }
  IRModule mod = parsed.as<IRModuleNode>()
                     ? Downcast<IRModule>(parsed)
                     : IRModule::FromNamed({{"main", Downcast<BaseFunc>(parsed)}});
  std::cout << emitter->second.second(mod);
  return 0;
}

std::string ShowUsage() {
  std::string usage =
      "usage: minitvm show [--emit=LEVEL] FILE\n\n"
      "Parse FILE (TVMScript: an @I.ir_module class or a @T.prim_func function; - reads\n"
      "stdin) and print it in the current TVMScript format. Exit status 1 and a diagnostic\n"
      "on stderr when the script has an error.\n\nemit levels:\n";
  for (const auto& [name, entry] : Emitters()) usage += "  " + name + "  " + entry.first + "\n";
  return usage;
}

const bool kRegistered = [] {
  RegisterEmitter("tir", "the TensorIR module as parsed (default)",
                  [](const IRModule& mod) { return script::AsScript(mod); });
  Command show;
  show.name = "show";
  show.summary = "parse a TVMScript file and print it (--emit=LEVEL)";
  show.usage = ShowUsage;
  show.run = RunShow;
  return RegisterCommand(show);
}();

}  // namespace
}  // namespace tools
}  // namespace minitvm
