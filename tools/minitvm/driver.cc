/*!
 * \file tools/minitvm/driver.cc
 * \brief `main` of the `minitvm` program (tools): finds the subcommand, splits `--options`
 * from arguments, runs it, and turns a minitvm::Error into a message and a non-zero status.
 */
#include "driver.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace minitvm {
namespace tools {
namespace {

std::map<std::string, Command>& Commands() {
  static std::map<std::string, Command> commands;
  return commands;
}

std::map<std::string, std::pair<std::string, std::function<std::string(const IRModule&)>>>&
MutableEmitters() {
  static std::map<std::string, std::pair<std::string, std::function<std::string(const IRModule&)>>>
      emitters;
  return emitters;
}

void PrintUsage(std::ostream& os) {
  os << "usage: minitvm <command> [options] [arguments]\n\ncommands:\n";
  for (const auto& [name, cmd] : Commands()) {
    os << "  " << name << std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') << cmd.summary
       << "\n";
  }
  os << "\nRun `minitvm <command> --help` for the options of a command.\n";
}

}  // namespace

std::optional<std::string> CommandLine::Get(const std::string& key) const {
  auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

bool RegisterCommand(Command command) {
  std::string name = command.name;
  Commands()[name] = std::move(command);
  return true;
}

bool RegisterEmitter(const std::string& level, const std::string& summary,
                     std::function<std::string(const IRModule&)> emit) {
  MutableEmitters()[level] = {summary, std::move(emit)};
  return true;
}

const std::map<std::string, std::pair<std::string, std::function<std::string(const IRModule&)>>>&
Emitters() {
  return MutableEmitters();
}

std::string ReadSource(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) MINITVM_THROW(ValueError) << "cannot read " << path;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace tools
}  // namespace minitvm

int main(int argc, char** argv) {
  using namespace minitvm::tools;  // NOLINT(build/namespaces)
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    PrintUsage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  auto it = Commands().find(args[0]);
  if (it == Commands().end()) {
    std::cerr << "minitvm: unknown command \"" << args[0] << "\"\n\n";
    PrintUsage(std::cerr);
    return 2;
  }
  const Command& cmd = it->second;
  CommandLine line;
  bool only_args = false;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!only_args && a == "--") {
      only_args = true;
    } else if (!only_args && a.size() > 2 && a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      line.options[a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
          eq == std::string::npos ? "" : a.substr(eq + 1);
    } else if (!only_args && (a == "-h")) {
      line.options["help"] = "";
    } else {
      line.args.push_back(a);
    }
  }
  if (line.Get("help")) {
    std::cout << (cmd.usage ? cmd.usage() : cmd.summary + "\n");
    return 0;
  }
  try {
    return cmd.run(line);
  } catch (const minitvm::Error& e) {
    // A ParseError already reads "error: ..." with its location; other kinds get a prefix.
    if (e.kind() == "ParseError") {
      std::cerr << e.what() << "\n";
    } else {
      std::cerr << "error: " << e.kind() << ": " << e.what() << "\n";
    }
    return 1;
  }
}
