/*!
 * \file packed_call.cc
 * \brief Calling generated code (stage 5): the argument conversion around a generated packed
 * function, the runtime hooks of a module, the module description, and the "library" module
 * that loads a shared library written by export_library.
 */
#include "minitvm/runtime_cpu/packed_call.h"

#include <dlfcn.h>
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime_cpu {

using runtime::Any;
using runtime::NDArrayNode;
using runtime::PackedArgs;
using runtime::PackedFunc;

namespace {

/*! \brief Split "ValueError: message" into its kind and message; RuntimeError otherwise. */
[[noreturn]] void ThrowBackendError(const std::string& fname, const std::string& text) {
  size_t colon = text.find(": ");
  if (colon != std::string::npos && colon > 0 && text.find(' ') > colon - 1) {
    std::string kind = text.substr(0, colon);
    bool is_kind = !kind.empty() && std::isupper(static_cast<unsigned char>(kind[0]));
    for (char c : kind)
      is_kind = is_kind && (std::isalnum(static_cast<unsigned char>(c)) || c == '.');
    if (is_kind && kind.find("Error") != std::string::npos) {
      MINITVM_THROW_KIND(kind) << text.substr(colon + 2);
    }
  }
  MINITVM_THROW(RuntimeError) << fname << ": " << (text.empty() ? "generated code failed" : text);
}

}  // namespace

PackedFunc WrapBackendFunction(MTVMBackendPackedCFunc func, std::string name,
                               runtime::ObjectRef keep_alive) {
  std::string fname = name;
  return PackedFunc(
      [func, fname, keep_alive](PackedArgs args, Any* rv) {
        const int n = args.size();
        // Small fixed storage for the common case; no allocation per call.
        constexpr int kInline = 16;
        MTVMValue values_inline[kInline];
        int32_t codes_inline[kInline];
        DLTensor tensors_inline[kInline];
        std::vector<MTVMValue> values_heap;
        std::vector<int32_t> codes_heap;
        std::vector<DLTensor> tensors_heap;
        MTVMValue* values = values_inline;
        int32_t* codes = codes_inline;
        DLTensor* tensors = tensors_inline;
        if (n > kInline) {
          values_heap.resize(n), codes_heap.resize(n), tensors_heap.resize(n);
          values = values_heap.data(), codes = codes_heap.data(), tensors = tensors_heap.data();
        }
        static const uint32_t kNDArrayIndex = NDArrayNode::RuntimeTypeIndex();
        for (int i = 0; i < n; ++i) {
          const Any& a = args[i];
          values[i].v_int64 = 0;
          // Tensors are the common case: a type-index compare before Any::as's dynamic_cast.
          const runtime::Object* obj = a.as_object();
          const NDArrayNode* arr = obj != nullptr && obj->type_index() == kNDArrayIndex
                                       ? static_cast<const NDArrayNode*>(obj)
                                       : a.as<NDArrayNode>();
          if (arr != nullptr) {
            tensors[i] = const_cast<NDArrayNode*>(arr)->ToDLTensor();
            values[i].v_handle = &tensors[i];
            codes[i] = kMTVMArgDLTensor;
          } else if (a.is_int() || a.is_bool()) {
            values[i].v_int64 = a.raw_int();
            codes[i] = kMTVMArgInt;
          } else if (a.is_float()) {
            values[i].v_float64 = a.raw_float();
            codes[i] = kMTVMArgFloat;
          } else if (a.is_null()) {
            codes[i] = kMTVMArgNull;
          } else if (a.tag() == Any::kDataType) {
            codes[i] = kMTVMArgDataType;
          } else if (a.tag() == Any::kDevice) {
            codes[i] = kMTVMArgDevice;
          } else if (a.is_string()) {
            codes[i] = kMTVMArgStr;
          } else {
            values[i].v_handle = const_cast<runtime::Object*>(a.as_object());
            codes[i] = kMTVMArgObject;
          }
        }
        MTVMValue ret;
        int32_t ret_code = kMTVMArgNull;
        int32_t rc = func(values, codes, n, &ret, &ret_code, nullptr);
        if (rc != 0) ThrowBackendError(fname, MTVMBackendGetLastError());
        *rv = Any();
      },
      name);
}

void InitModuleHooks(const std::function<void*(const std::string&)>& lookup) {
  auto set = [&](const char* symbol, void* fn) {
    if (void* slot = lookup(symbol)) *static_cast<void**>(slot) = fn;
  };
  set(kParallelLaunchSymbol, reinterpret_cast<void*>(&MTVMBackendParallelLaunch));
  set(kAllocWorkspaceSymbol, reinterpret_cast<void*>(&MTVMBackendAllocWorkspace));
  set(kFreeWorkspaceSymbol, reinterpret_cast<void*>(&MTVMBackendFreeWorkspace));
  set(kSetErrorSymbol, reinterpret_cast<void*>(&MTVMBackendSetErrorFormatted));
}

namespace {
/*! \brief `s` with control characters and quotes written as \\xNN, for messages. */
std::string Printable(const std::string& s) {
  std::ostringstream os;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < ' ' || u == 0x7f || c == '"' || c == '\\') {
      os << "\\x" << std::hex << (u >> 4) << (u & 15) << std::dec;
    } else {
      os << c;
    }
  }
  return os.str();
}

void CheckDescribedName(const std::string& name, const char* what) {
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '=' || u <= ' ' || u == 0x7f) {
      std::ostringstream bad;
      if (u < ' ' || u == 0x7f) {
        bad << "control character 0x" << std::hex << int(u);
      } else {
        bad << "'" << c << "'";
      }
      MINITVM_THROW(ValueError) << "the " << what << " name \"" << Printable(name) << "\" contains "
                                << bad.str()
                                << ": a compiled function's name may not contain commas, '=', "
                                   "whitespace or control characters";
    }
  }
}
}  // namespace

std::string MakeModuleInfo(const std::string& entry, const std::vector<std::string>& functions) {
  CheckDescribedName(entry, "entry function");
  for (const std::string& f : functions) {
    if (f.empty()) MINITVM_THROW(ValueError) << "a compiled function has an empty name";
    CheckDescribedName(f, "function");
  }
  std::ostringstream os;
  os << kModuleInfoMagic << "\nentry=" << entry << "\nfunctions=";
  for (size_t i = 0; i < functions.size(); ++i) os << (i ? "," : "") << functions[i];
  os << "\n";
  return os.str();
}

ModuleInfo ParseModuleInfo(const std::string& text, const std::string& where) {
  std::istringstream is(text);
  std::string line;
  if (!std::getline(is, line) || line != kModuleInfoMagic) {
    MINITVM_THROW(ValueError) << where << " is not a minitvm module (bad module description)";
  }
  ModuleInfo info;
  while (std::getline(is, line)) {
    if (line.rfind("entry=", 0) == 0) {
      info.entry = line.substr(6);
    } else if (line.rfind("functions=", 0) == 0) {
      std::string list = line.substr(10), item;
      std::istringstream ls(list);
      while (std::getline(ls, item, ',')) {
        if (!item.empty()) info.functions.push_back(item);
      }
    }
  }
  return info;
}

// ---- loading shared libraries --------------------------------------------------------------

namespace {

constexpr char kChecksumMagic[] = "MTVMSUM1";
constexpr size_t kChecksumTrailerBytes = 24;

uint64_t Fnv1a64(const char* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

const char* MachineName(int machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_386:
      return "x86 (32-bit)";
    case EM_AARCH64:
      return "AArch64";
    case EM_ARM:
      return "ARM (32-bit)";
    case EM_RISCV:
      return "RISC-V";
    case EM_PPC64:
      return "PowerPC 64";
    case EM_S390:
      return "s390";
    default:
      return nullptr;
  }
}

/*! \brief The ELF machine of this process. */
constexpr int HostMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__powerpc64__)
  return EM_PPC64;
#else
  return EM_NONE;
#endif
}

std::string MachineString(int machine) {
  const char* n = MachineName(machine);
  return n ? std::string(n) + " (e_machine " + std::to_string(machine) + ")"
           : "e_machine " + std::to_string(machine);
}

/*! \brief Check that `bytes` is a complete 64-bit ELF shared object; ValueError otherwise. */
void ValidateElf(const std::string& path, const std::string& bytes) {
  auto fail = [&](const std::string& why) {
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": " << why;
  };
  if (bytes.size() < sizeof(Elf64_Ehdr)) {
    fail("the file is truncated (" + std::to_string(bytes.size()) + " bytes)");
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof(eh));
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) fail("not an ELF file (bad magic number)");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) fail("not a 64-bit ELF file");
  constexpr int kHostData = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (eh.e_ident[EI_DATA] != kHostData) {
    fail(std::string("the library is for a ") +
         (eh.e_ident[EI_DATA] == ELFDATA2MSB ? "big" : "little") +
         "-endian machine; this one is not");
  }
  if (HostMachine() != EM_NONE && eh.e_machine != HostMachine()) {
    fail("the library was built for another machine: " + MachineString(eh.e_machine) +
         ", but this process runs on " + MachineString(HostMachine()));
  }
  if (eh.e_type != ET_DYN)
    fail("not a shared library (ELF type " + std::to_string(eh.e_type) + ")");
  const uint64_t size = bytes.size();
  if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
      eh.e_phoff + uint64_t(eh.e_phnum) * eh.e_phentsize > size) {
    fail("the file is truncated or corrupted (program headers out of range)");
  }
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof(ph), sizeof(ph));
    if ((ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) && ph.p_offset + ph.p_filesz > size) {
      fail("the file is truncated or corrupted (segment " + std::to_string(i) + " ends at byte " +
           std::to_string(ph.p_offset + ph.p_filesz) + " of " + std::to_string(size) + ")");
    }
  }
  if (eh.e_shoff != 0) {
    if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shoff + uint64_t(eh.e_shnum) * eh.e_shentsize > size) {
      fail("the file is truncated or corrupted (section headers out of range)");
    }
    for (int i = 0; i < eh.e_shnum; ++i) {
      Elf64_Shdr sh;
      std::memcpy(&sh, bytes.data() + eh.e_shoff + i * sizeof(sh), sizeof(sh));
      if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL && sh.sh_offset + sh.sh_size > size) {
        fail("the file is truncated or corrupted (section " + std::to_string(i) + " out of range)");
      }
    }
  }
}

/*! \brief A module backed by a dlopen'ed shared library. */
class LibraryModuleNode : public runtime::ModuleNode {
 public:
  LibraryModuleNode(void* handle, std::string path, std::string bytes, ModuleInfo info)
      : handle_(handle), path_(std::move(path)), bytes_(std::move(bytes)), info_(std::move(info)) {
    entry_name = info_.entry;
  }
  ~LibraryModuleNode() override {
    if (handle_) dlclose(handle_);
  }
  std::string kind() const override { return "library"; }
  std::vector<std::string> FunctionNames() const override { return info_.functions; }
  std::optional<PackedFunc> GetFunction(const std::string& name) override {
    void* sym = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = symbols_.find(name);
      if (it != symbols_.end()) {
        sym = it->second;
      } else {
        bool listed = false;
        for (const auto& f : info_.functions) listed = listed || f == name;
        if (!listed) return std::nullopt;
        sym = dlsym(handle_, name.c_str());
        if (!sym) return std::nullopt;
        symbols_.emplace(name, sym);
      }
    }
    return WrapBackendFunction(reinterpret_cast<MTVMBackendPackedCFunc>(sym), name,
                               runtime::GetRef<runtime::Module>(this));
  }
  std::string GetSource(const std::string& format) override {
    MINITVM_THROW(ValueError) << "a library module (" << path_
                              << ") keeps no source; call get_source on the module that built it";
  }
  void SaveToFile(const std::string& path, const std::string& format) override {
    std::ofstream out(path, std::ios::binary);
    if (!out) {
      MINITVM_THROW(ValueError) << "cannot write " << path << ": " << std::strerror(errno);
    }
    out.write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    if (!out) MINITVM_THROW(ValueError) << "cannot write " << path << ": write failed";
  }

 private:
  void* handle_;
  std::string path_;
  std::string bytes_;
  ModuleInfo info_;
  std::mutex mu_;
  // Raw symbols, not wrappers: a wrapper holds the module alive and would form a cycle.
  std::map<std::string, void*> symbols_;
};

/*!
 * \brief The root module a library carries in kRootModuleSymbol (see packed_call.h), rebuilt by
 * the loader registered for its kind over `lib`. Every length is checked against the symbol's
 * size, so a corrupted blob is a ValueError.
 */
runtime::Module LoadRootModule(const void* root, const runtime::Module& lib,
                               const std::string& path) {
  auto fail = [&](const std::string& why) {
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": " << why;
  };
  Dl_info dl;
  void* entry = nullptr;
  if (!dladdr1(root, &dl, &entry, RTLD_DL_SYMENT) || !entry) {
    fail(std::string("the symbol ") + kRootModuleSymbol + " has no size");
  }
  const char* p = static_cast<const char*>(root);
  const uint64_t size = static_cast<const Elf64_Sym*>(entry)->st_size;
  uint64_t pos = 0;
  auto get_u64 = [&]() {
    if (size - pos < 8) fail("the embedded module is truncated");
    uint64_t v;
    std::memcpy(&v, p + pos, 8);
    pos += 8;
    return v;
  };
  if (size < 8 || std::memcmp(p, "MTVMROOT", 8) != 0) fail("the embedded module has a bad magic");
  pos = 8;
  uint64_t kind_len = get_u64();
  if (kind_len > size - pos) fail("the embedded module is truncated");
  std::string kind(p + pos, kind_len);
  pos += kind_len;
  uint64_t len = get_u64();
  if (len > size - pos) fail("the embedded module is truncated");
  std::string data(p + pos, len);
  auto loader = runtime::Registry::Get("runtime.module.loadbinary_" + kind);
  if (!loader) fail("no loader for the embedded module of kind \"" + kind + "\"");
  try {
    return (*loader)(runtime::String(std::move(data)), lib).cast<runtime::Module>();
  } catch (const Error& e) {
    MINITVM_THROW_KIND(e.kind()) << "cannot load module " << path << ": " << e.what();
  }
}

}  // namespace

std::string AppendLibraryChecksum(const std::string& library) {
  std::string out = library;
  auto put_u64 = [&](uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); };
  put_u64(library.size());
  put_u64(Fnv1a64(library.data(), library.size()));
  out.append(kChecksumMagic, 8);
  return out;
}

void VerifyLibraryChecksum(const std::string& path, const std::string& bytes) {
  const size_t n = bytes.size();
  if (n < kChecksumTrailerBytes || bytes.compare(n - 8, 8, kChecksumMagic, 8) != 0) return;
  uint64_t len, hash;
  std::memcpy(&len, bytes.data() + n - 24, 8);
  std::memcpy(&hash, bytes.data() + n - 16, 8);
  if (len != n - kChecksumTrailerBytes) {
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": the file was damaged after "
                              << "export (it holds " << n - kChecksumTrailerBytes
                              << " library bytes, the export wrote " << len << ")";
  }
  uint64_t actual = Fnv1a64(bytes.data(), len);
  if (actual != hash) {
    std::ostringstream os;
    os << std::hex << "checksum 0x" << actual << ", the export wrote 0x" << hash;
    MINITVM_THROW(ValueError) << "cannot load module " << path
                              << ": the file was damaged after export (" << os.str()
                              << "); export it again";
  }
}

uint64_t MaxLibraryBytes() {
  const char* v = std::getenv("MINITVM_MAX_LIBRARY_BYTES");
  if (v && *v) {
    char* end = nullptr;
    unsigned long long x = std::strtoull(v, &end, 10);
    if (end && *end == 0 && x > 0) return x;
  }
  return uint64_t(1) << 30;
}

runtime::Module LoadLibraryModule(const std::string& path) {
  // Only regular files of a bounded size are read: a named pipe would block, a device such as
  // /dev/zero never ends, a directory cannot be read. stat() does not open the file.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": "
                              << (errno == ENOENT ? "no such file" : std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a named pipe"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": it is " << what
                              << ", not a regular file";
  }
  const uint64_t limit = MaxLibraryBytes();
  if (static_cast<uint64_t>(st.st_size) > limit) {
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": the file has " << st.st_size
                              << " bytes, more than the limit of " << limit
                              << " (MINITVM_MAX_LIBRARY_BYTES)";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": " << std::strerror(errno);
  }
  std::string bytes;
  bytes.resize(static_cast<size_t>(st.st_size));
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  if (in.peek() != std::char_traits<char>::eof()) {
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": the file changed while read";
  }
  std::error_code ec;
  ValidateElf(path, bytes);
  VerifyLibraryChecksum(path, bytes);
  // dlopen a private copy: a library re-exported to the same path must not resolve to the
  // copy the process already mapped, and the copy can be removed once mapped.
  std::string tmp = (std::filesystem::temp_directory_path() / "minitvm-lib-XXXXXX.so").string();
  int fd = mkstemps(tmp.data(), 3);
  if (fd < 0) MINITVM_THROW(RuntimeError) << "cannot create a temporary file for " << path;
  bool written = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  if (!written) {
    std::filesystem::remove(tmp, ec);
    MINITVM_THROW(RuntimeError) << "cannot copy " << path << " to " << tmp;
  }
  void* handle = dlopen(tmp.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::filesystem::remove(tmp, ec);
  if (!handle) {
    const char* err = dlerror();
    std::string why = err ? err : "unknown error";
    if (size_t p = why.find(tmp); p != std::string::npos) why.replace(p, tmp.size(), path);
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": " << why;
  }
  auto* info_text = static_cast<const char*>(dlsym(handle, kModuleInfoSymbol));
  if (!info_text) {
    dlclose(handle);
    MINITVM_THROW(ValueError) << "cannot load module " << path << ": not a minitvm module (no "
                              << kModuleInfoSymbol << " symbol)";
  }
  ModuleInfo info;
  try {
    info = ParseModuleInfo(info_text, path);
  } catch (...) {
    dlclose(handle);
    throw;
  }
  InitModuleHooks([handle](const std::string& sym) { return dlsym(handle, sym.c_str()); });
  runtime::Module lib(
      runtime::make_object<LibraryModuleNode>(handle, path, std::move(bytes), std::move(info)));
  if (const void* root = dlsym(handle, kRootModuleSymbol)) return LoadRootModule(root, lib, path);
  return lib;
}

MINITVM_REGISTER_GLOBAL("runtime.ModuleLoadFromFile")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      if (args.size() < 1 || args.size() > 2) {
        MINITVM_THROW(TypeError) << "runtime.ModuleLoadFromFile expects (path, format=\"\")";
      }
      std::string path = args[0].cast<std::string>();
      std::string fmt = args.size() > 1 && !args[1].is_null() ? args[1].cast<std::string>() : "";
      if (!fmt.empty() && fmt != "so") {
        MINITVM_THROW(ValueError) << "cannot load " << path << ": unknown format \"" << fmt << "\"";
      }
      *rv = LoadLibraryModule(path);
    });

}  // namespace runtime_cpu
}  // namespace minitvm
