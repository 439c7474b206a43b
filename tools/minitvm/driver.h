/*!
 * \file tools/minitvm/driver.h
 * \brief The `minitvm` command-line driver (tools): a table of subcommands (`show` now; `run`,
 * `build`, `schedule`, `bench` from later stages) and of emit levels (`--emit=tir` now; later
 * stages add `lowered`, `llvm`, `vm`), each registered by the file that implements it.
 *
 * A subcommand is a function from its arguments to an exit status: 0 for success, 1 when the
 * input is at fault (the diagnostic goes to stderr), 2 for a usage error.
 */
#ifndef MINITVM_TOOLS_MINITVM_DRIVER_H_
#define MINITVM_TOOLS_MINITVM_DRIVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/module.h"

namespace minitvm {
namespace tools {

/*! \brief The command line after the subcommand name: `--key=value` options and arguments. */
struct CommandLine {
  std::map<std::string, std::string> options;
  std::vector<std::string> args;
  /*! \brief Option `key` (`--key=value`, or "" for a bare `--key`), or nullopt. */
  std::optional<std::string> Get(const std::string& key) const;
};

/*! \brief A subcommand: its name, a one-line summary, its usage text and its body. */
struct Command {
  std::string name;
  std::string summary;
  /*! \brief The text of `minitvm <name> --help` (a function: it may list registered levels). */
  std::function<std::string()> usage;
  std::function<int(const CommandLine&)> run;
};

/*! \brief Register a subcommand (done at load time by the file that implements it). */
bool RegisterCommand(Command command);

/*!
 * \brief An emit level of `--emit=LEVEL`: turns the parsed module into the text to print.
 * "tir" prints the module as TVMScript; later stages register their lowering levels.
 */
bool RegisterEmitter(const std::string& level, const std::string& summary,
                     std::function<std::string(const IRModule&)> emit);

/*! \brief The registered emit levels: level → (summary, function). */
const std::map<std::string, std::pair<std::string, std::function<std::string(const IRModule&)>>>&
Emitters();

/*!
 * \brief Read a file, or stdin for "-"; ValueError naming the file when it cannot be read.
 * Only regular files are read (not directories, FIFOs or devices such as /dev/zero), and at
 * most kMaxInputBytes of them (stdin too).
 */
std::string ReadSource(const std::string& path);
/*! \brief The most bytes ReadSource reads (64 MiB). */
constexpr size_t kMaxInputBytes = size_t{64} << 20;
/*! \brief `--name=text` as an unsigned integer; ValueError naming the option otherwise. */
uint64_t ParseUintOption(const std::string& name, const std::string& text);

}  // namespace tools
}  // namespace minitvm

#endif  // MINITVM_TOOLS_MINITVM_DRIVER_H_
