/*!
 * \file tools/minitvm/driver.cc
 * \brief `main` of the `minitvm` program (tools): finds the subcommand, splits `--options`
 * from arguments, runs it, and turns a minitvm::Error into a message and a non-zero status.
 */
#include "driver.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
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
  std::string text;
  if (path == "-") {
    char buf[65536];
    while (std::cin.read(buf, sizeof(buf)) || std::cin.gcount() > 0) {
      text.append(buf, static_cast<size_t>(std::cin.gcount()));
      if (text.size() > kMaxInputBytes) {
        MINITVM_THROW(ValueError) << "<stdin>: input larger than " << (kMaxInputBytes >> 20)
                                  << " MiB";
      }
    }
    return text;
  }
  // stat first: opening a FIFO would block, and /dev/zero never ends.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    MINITVM_THROW(ValueError) << "cannot read " << path << ": " << std::strerror(errno);
  }
  if (S_ISDIR(st.st_mode)) MINITVM_THROW(ValueError) << "cannot read " << path << ": a directory";
  if (!S_ISREG(st.st_mode)) {
    MINITVM_THROW(ValueError) << "cannot read " << path
                              << ": not a regular file (a FIFO, socket or device)";
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxInputBytes) {
    MINITVM_THROW(ValueError) << "cannot read " << path << ": " << st.st_size
                              << " bytes, more than the limit of " << (kMaxInputBytes >> 20)
                              << " MiB";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) MINITVM_THROW(ValueError) << "cannot read " << path;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

uint64_t ParseUintOption(const std::string& name, const std::string& text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    MINITVM_THROW(ValueError) << "--" << name << "=" << text
                              << ": expected an unsigned integer (0 to 18446744073709551615)";
  }
  return value;
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
  // Every command runs inside this one try: whatever it throws becomes a message and status 1.
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
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory in minitvm " << args[0] << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: minitvm " << args[0] << ": " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "error: minitvm " << args[0] << ": unknown exception\n";
    return 1;
  }
}
