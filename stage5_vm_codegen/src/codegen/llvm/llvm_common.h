/*!
 * \file llvm_common.h
 * \brief LLVM includes and the LLVM target description used by the stage-5 code generator.
 * Private to stage 5: no public header includes LLVM.
 */
#ifndef MINITVM_STAGE5_CODEGEN_LLVM_LLVM_COMMON_H_
#define MINITVM_STAGE5_CODEGEN_LLVM_LLVM_COMMON_H_

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

#include "minitvm/runtime/any.h"

namespace minitvm {
namespace codegen {

/*!
 * \brief What an "llvm" target asks for: triple, CPU, features and optimisation level.
 * Parsed from "llvm -mcpu=native -mattr=+avx2,-avx512f -mtriple=... -opt-level=3".
 */
struct LLVMTarget {
  std::string triple;
  /*! \brief The CPU name LLVM uses ("generic", "znver3", ...); "native" is resolved. */
  std::string cpu = "generic";
  /*! \brief Comma-separated "+feature"/"-feature" list. */
  std::string features;
  int opt_level = 3;
  /*! \brief The target as the user wrote it. */
  std::string source;
  /*! \brief True when code for this target runs on this machine (JIT-able). */
  bool is_host = true;
  /*! \brief True when the features include AVX-512F (512-bit vectors). */
  bool has_avx512 = false;
};

/*! \brief Initialise LLVM's native target, asm printer and parser (once). */
void InitializeLLVM();
/*! \brief Parse a target string; ValueError for anything that is not an llvm target. */
LLVMTarget ParseLLVMTarget(const std::string& text);
/*! \brief A target from a Target object or a string. */
LLVMTarget LLVMTargetFromAny(const runtime::Any& target);
/*! \brief The host CPU name (e.g. "znver3") and its feature list ("+avx2,+fma,..."). */
std::string HostCPUName();
std::string HostCPUFeatures();
/*! \brief A TargetMachine for `target`; position-independent code when `pic`. */
std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const LLVMTarget& target, bool pic);
/*! \brief Run LLVM's O`level` module pipeline, tuned for the target machine. */
void OptimizeModule(llvm::Module* module, llvm::TargetMachine* tm, int opt_level);

}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_STAGE5_CODEGEN_LLVM_LLVM_COMMON_H_
