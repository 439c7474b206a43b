/*!
 * \file llvm_target.cc
 * \brief LLVM targets (stage 5): parsing "llvm -mcpu=... -mattr=..." targets, resolving the
 * host CPU ("native" → e.g. "znver5") and its features, making TargetMachines, and running
 * LLVM's optimisation pipeline with the target's cost model.
 */
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>
#include <sstream>

#include "llvm_common.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace codegen {

void InitializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::string HostCPUName() { return llvm::sys::getHostCPUName().str(); }

std::string HostCPUFeatures() {
  std::vector<std::string> feats;
  for (const auto& kv : llvm::sys::getHostCPUFeatures()) {
    feats.push_back((kv.getValue() ? "+" : "-") + kv.getKey().str());
  }
  std::sort(feats.begin(), feats.end());
  std::string out;
  for (const auto& f : feats) out += (out.empty() ? "" : ",") + f;
  return out;
}

namespace {
bool HasFeature(const std::string& features, const std::string& name) {
  // The last mention wins, as in LLVM.
  bool on = false;
  std::stringstream ss(features);
  std::string f;
  while (std::getline(ss, f, ',')) {
    if (f.size() > 1 && f.substr(1) == name) on = f[0] == '+';
  }
  return on;
}
bool IsInformational(const std::string& word) {
  for (const char* key : {"-keys", "-device", "-tag", "-model", "-num-cores", "-vector-width",
                          "-libs", "-fast-math", "-link-params", "-mabi"}) {
    std::string k(key);
    if (word == k || word.rfind(k + "=", 0) == 0) return true;
  }
  return false;
}
}  // namespace

LLVMTarget ParseLLVMTarget(const std::string& text) {
  InitializeLLVM();
  LLVMTarget t;
  t.source = text;
  std::istringstream is(text);
  std::string word;
  is >> word;
  if (word != "llvm") {
    MINITVM_THROW(ValueError) << "not an llvm target: \"" << text << "\"";
  }
  std::string mattr;
  while (is >> word) {
    auto value_of = [&](const std::string& key) -> std::optional<std::string> {
      if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
      return std::nullopt;
    };
    if (auto v = value_of("-mcpu")) {
      t.cpu = *v;
    } else if (auto v = value_of("-mattr")) {
      mattr = *v;
    } else if (auto v = value_of("-mtriple")) {
      t.triple = *v;
    } else if (auto v = value_of("-opt-level")) {
      if (v->size() != 1 || (*v)[0] < '0' || (*v)[0] > '3') {
        MINITVM_THROW(ValueError) << "llvm target \"" << text << "\": -opt-level must be 0, 1, 2 "
                                  << "or 3, not \"" << *v << "\"";
      }
      t.opt_level = (*v)[0] - '0';
    } else if (IsInformational(word)) {
      // Options other parts of minitvm read (the thread pool decides the number of cores).
    } else {
      MINITVM_THROW(ValueError) << "llvm target \"" << text << "\": unknown option \"" << word
                                << "\" (known: -mcpu=, -mattr=, -mtriple=, -opt-level=)";
    }
  }
  std::string host_triple = llvm::sys::getProcessTriple();
  if (t.triple.empty()) t.triple = host_triple;
  t.is_host = llvm::Triple(t.triple).getArch() == llvm::Triple(host_triple).getArch();
  // The host CPU (named or "native") gets the host's exact features: a virtual machine may
  // hide some that the CPU model has.
  if (t.cpu == "native" || (t.is_host && t.cpu == HostCPUName())) {
    t.cpu = HostCPUName();
    t.features = HostCPUFeatures();
  }
  if (!mattr.empty()) t.features += (t.features.empty() ? "" : ",") + mattr;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  if (!target) {
    MINITVM_THROW(ValueError) << "llvm target \"" << text << "\": " << error;
  }
  // LLVM aborts the process on some CPU names it does not know (and only warns on unknown
  // features), so both are checked against the target's tables first.
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(t.triple, "", ""));
  if (sti && !t.cpu.empty() && !sti->isCPUStringValid(t.cpu)) {
    MINITVM_THROW(ValueError) << "llvm target \"" << text << "\": unknown -mcpu=" << t.cpu
                              << " for " << t.triple << " (-mcpu=native picks the host CPU)";
  }
  if (sti && !mattr.empty()) {
    std::stringstream ss(mattr);
    std::string f;
    while (std::getline(ss, f, ',')) {
      bool known = false;
      if (f.size() > 1 && (f[0] == '+' || f[0] == '-')) {
        for (const auto& kv : sti->getAllProcessorFeatures()) {
          if (f.compare(1, std::string::npos, kv.Key) == 0) known = true;
        }
      }
      if (!known) {
        MINITVM_THROW(ValueError) << "llvm target \"" << text << "\": -mattr entry \"" << f
                                  << "\" is not +feature or -feature with a feature " << t.triple
                                  << " knows";
      }
    }
  }
  t.has_avx512 = HasFeature(t.features, "avx512f");
  if (t.has_avx512) {
    // Scheduled code vectorizes explicitly; keep LLVM from turning strided accesses in
    // the remaining scalar loops into gathers and scatters.
    t.features += ",+prefer-no-gather,+prefer-no-scatter";
  }
  return t;
}

LLVMTarget LLVMTargetFromAny(const runtime::Any& target) {
  if (target.is_null()) return ParseLLVMTarget("llvm");
  if (target.is_string()) return ParseLLVMTarget(target.cast<std::string>());
  // A Target object: its string form is the canonical description.
  if (auto f = runtime::Registry::Get("target.TargetStr")) {
    return ParseLLVMTarget((*f)(target).cast<std::string>());
  }
  if (const runtime::Object* obj = target.as_object()) {
    try {
      runtime::Any s = runtime::GetField(obj, "str");
      if (s.is_string()) return ParseLLVMTarget(s.cast<std::string>());
    } catch (const Error&) {
    }
  }
  MINITVM_THROW(TypeError) << "expected a target (a string such as \"llvm\" or a Target) but got "
                           << target.type_name();
}

std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const LLVMTarget& t, bool pic) {
  InitializeLLVM();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  if (!target) MINITVM_THROW(ValueError) << "llvm target " << t.triple << ": " << error;
  llvm::TargetOptions options;
  auto level = t.opt_level >= 3   ? llvm::CodeGenOptLevel::Aggressive
               : t.opt_level == 2 ? llvm::CodeGenOptLevel::Default
               : t.opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                  : llvm::CodeGenOptLevel::None;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      t.triple, t.cpu, t.features, options,
      pic ? std::optional<llvm::Reloc::Model>(llvm::Reloc::PIC_) : std::nullopt, std::nullopt,
      level));
  if (!tm) MINITVM_THROW(ValueError) << "llvm: cannot create a target machine for " << t.source;
  return tm;
}

void OptimizeModule(llvm::Module* module, llvm::TargetMachine* tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = opt_level >= 2;
  pto.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder pb(tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level >= 3   ? llvm::OptimizationLevel::O3
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                                   : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(*module, mam);
}

// The host CPU as LLVM names it ("znver5"); Target("llvm -mcpu=native") resolves through it.
MINITVM_REGISTER_GLOBAL("target.llvm.ResolveHostCPU")
    .set_body([](runtime::PackedArgs args, runtime::Any* rv) { *rv = HostCPUName(); });
MINITVM_REGISTER_GLOBAL("target.llvm.HostCPUFeatures")
    .set_body([](runtime::PackedArgs args, runtime::Any* rv) { *rv = HostCPUFeatures(); });
MINITVM_REGISTER_GLOBAL("target.llvm.ParseTarget").set_body_typed([](std::string text) {
  LLVMTarget t = ParseLLVMTarget(text);
  runtime::Map<runtime::String, runtime::Any> out;
  out.Set("triple", t.triple);
  out.Set("mcpu", t.cpu);
  out.Set("mattr", t.features);
  out.Set("opt_level", t.opt_level);
  out.Set("has_avx512", t.has_avx512);
  return out;
});

}  // namespace codegen
}  // namespace minitvm
