/*!
 * \file minitvm/runtime_cpu/packed_call.h
 * \brief Calling generated CPU code from the runtime (stage 5): wrapping a generated packed
 * function as a `PackedFunc`, filling in a module's runtime hooks, and loading a shared
 * library written by `export_library` as a runtime Module (kind "library").
 */
#ifndef MINITVM_RUNTIME_CPU_PACKED_CALL_H_
#define MINITVM_RUNTIME_CPU_PACKED_CALL_H_

#include <functional>
#include <string>
#include <vector>

#include "minitvm/runtime/module.h"
#include "minitvm/runtime_cpu/backend_api.h"

namespace minitvm {
namespace runtime_cpu {

/*!
 * \brief A PackedFunc that converts its arguments (NDArray → DLTensor*, int, float, None) and
 * calls `func`. A non-zero return becomes an Error whose kind is the message's prefix
 * ("ValueError: ..."). `keep_alive` holds whatever owns the code (the module).
 */
runtime::PackedFunc WrapBackendFunction(MTVMBackendPackedCFunc func, std::string name,
                                        runtime::ObjectRef keep_alive);

/*!
 * \brief Fill the runtime hooks of a generated module. `lookup(symbol)` returns the address of
 * a data symbol of the module or nullptr; each hook variable found is set to its service.
 */
void InitModuleHooks(const std::function<void*(const std::string&)>& lookup);

/*! \brief Parsed form of the module description string (kModuleInfoSymbol). */
struct ModuleInfo {
  std::string entry;
  std::vector<std::string> functions;
};
/*! \brief Parse a description; ValueError when it is not one. */
ModuleInfo ParseModuleInfo(const std::string& text, const std::string& where);
/*!
 * \brief Build the description of a module. ValueError when a name could not be read back as
 * itself (empty, or with a comma, '=', whitespace or a control character: no name can add
 * entries to the description).
 */
std::string MakeModuleInfo(const std::string& entry, const std::vector<std::string>& functions);

/*!
 * \brief The bytes of a library file with the trailer the loader verifies appended:
 * u64 length of `library` | u64 FNV-1a hash of `library` | "MTVMSUM1" (24 bytes). The dynamic
 * loader ignores bytes past the ELF contents, so the file stays an ordinary shared library.
 */
std::string AppendLibraryChecksum(const std::string& library);
/*!
 * \brief Check the trailer of a library file's `bytes`, if it has one: ValueError naming `path`
 * when the length or the hash do not match (the file was damaged after export).
 */
void VerifyLibraryChecksum(const std::string& path, const std::string& bytes);
/*! \brief The largest library file LoadLibraryModule reads (MINITVM_MAX_LIBRARY_BYTES, 1 GiB). */
uint64_t MaxLibraryBytes();

/*!
 * \brief Data symbol of a library that carries a serialised root module besides its kernels
 * (the Relax VM executable of `export_library`): "MTVMROOT" | u64 kind length | kind |
 * u64 length | bytes. LoadLibraryModule hands the bytes and the library module to the global
 * "runtime.module.loadbinary_<kind>" and returns what it makes.
 */
constexpr const char* kRootModuleSymbol = "__mtvm_root_module";

/*!
 * \brief Load a shared library written by export_library. ValueError with the path and the
 * reason for a missing, truncated or corrupted file or one that is not a minitvm module.
 * A library with a root module (kRootModuleSymbol) loads as that module, the library its import.
 */
runtime::Module LoadLibraryModule(const std::string& path);

}  // namespace runtime_cpu
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_CPU_PACKED_CALL_H_
