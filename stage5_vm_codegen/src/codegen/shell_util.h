/*!
 * \file shell_util.h
 * \brief Shell helpers shared by the two library exporters (stage 5): the "llvm" module's
 * export_library and the Relax VM's export (relax_vm/build.cc) both link with the C compiler
 * driver through these.
 */
#ifndef MINITVM_SRC_CODEGEN_SHELL_UTIL_H_
#define MINITVM_SRC_CODEGEN_SHELL_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "minitvm/runtime/error.h"
#include "minitvm/runtime_cpu/packed_call.h"

#ifndef MINITVM_LINKER_DRIVER
#define MINITVM_LINKER_DRIVER "cc"
#endif

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

/*! \brief The C compiler driver that links shared libraries (the configured one, else "cc"). */
inline std::string LinkerDriver() {
  std::string driver = MINITVM_LINKER_DRIVER;
  if (access(driver.c_str(), X_OK) != 0) driver = "cc";
  return driver;
}

/*! \brief A private temporary directory (mkdtemp), removed with its contents when destroyed. */
class TempDir {
 public:
  /*! \brief Creates `<system temp>/<prefix>-XXXXXX`; RuntimeError when it cannot. */
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) MINITVM_THROW(RuntimeError) << "cannot create a temporary directory";
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code e;
    std::filesystem::remove_all(path_, e);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /*! \brief The directory. */
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/*!
 * \brief The directory a library is exported to (`path`'s parent); ValueError naming `path`
 * when it does not exist.
 */
inline std::filesystem::path DestinationDir(const std::string& path) {
  std::error_code ec;
  auto dest_dir = std::filesystem::absolute(path, ec).parent_path();
  if (!std::filesystem::is_directory(dest_dir, ec)) {
    MINITVM_THROW(ValueError) << "cannot write " << path << ": directory " << dest_dir.string()
                              << " does not exist";
  }
  return dest_dir;
}

/*!
 * \brief Copies the linked library `from` over `path` with the checksum trailer the loader
 * verifies (runtime_cpu::AppendLibraryChecksum); ValueError naming `path` when it cannot.
 */
inline void CopyToDestination(const std::string& from, const std::string& path) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in) MINITVM_THROW(ValueError) << "cannot read the linked library " << from;
  std::string out = runtime_cpu::AppendLibraryChecksum(bytes);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) MINITVM_THROW(ValueError) << "cannot write " << path << ": " << std::strerror(errno);
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  f.close();
  if (!f) MINITVM_THROW(ValueError) << "cannot write " << path << ": write failed";
}

}  // namespace shell
}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_SRC_CODEGEN_SHELL_UTIL_H_
