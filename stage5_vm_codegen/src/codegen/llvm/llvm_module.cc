/*!
 * \file llvm_module.cc
 * \brief The "llvm" runtime Module (stage 5): build (lower → CodeGenLLVM → O3 → ORC LLJIT),
 * function lookup through the JIT, sources for learners (LLVM IR, assembly, lowered TIR),
 * and export to a shared library (a PIC object linked with the C compiler driver, with -lmvec
 * when the code calls glibc's vector math library).
 */
#include <dlfcn.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "../shell_util.h"
#include "codegen_llvm.h"
#include "minitvm/codegen/llvm.h"
#include "minitvm/ir/transform.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/packed_call.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace codegen {

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

template <typename T>
T Unwrap(llvm::Expected<T> value, const std::string& what) {
  if (!value) {
    MINITVM_THROW(RuntimeError) << what << ": " << llvm::toString(value.takeError());
  }
  return std::move(*value);
}
void Check(llvm::Error err, const std::string& what) {
  if (err) MINITVM_THROW(RuntimeError) << what << ": " << llvm::toString(std::move(err));
}

std::string ToBitcode(const llvm::Module& m) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::WriteBitcodeToFile(m, os);
  os.flush();
  return out;
}

std::unique_ptr<llvm::Module> FromBitcode(const std::string& bc, llvm::LLVMContext* ctx) {
  auto buf =
      llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(bc.data(), bc.size()), "module", false);
  return Unwrap(llvm::parseBitcodeFile(buf->getMemBufferRef(), *ctx), "reading LLVM bitcode");
}

using shell::Quote;
using shell::RunCommand;

std::string Extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  return ext.empty() ? "" : ext.substr(1);
}

}  // namespace

/*! \brief A module compiled by LLVM: the JIT-compiled code and the bitcode it came from. */
class LLVMModuleNode : public runtime::ModuleNode {
 public:
  std::string kind() const override { return "llvm"; }
  std::vector<std::string> FunctionNames() const override { return names_; }

  std::optional<runtime::PackedFunc> GetFunction(const std::string& name) override {
    bool listed = false;
    for (const auto& n : names_) listed = listed || n == name;
    if (!listed) return std::nullopt;
    if (!jit_) {
      MINITVM_THROW(RuntimeError) << "the module was compiled for " << target_.triple
                                  << " (-mcpu=" << target_.cpu
                                  << ") and cannot run on this machine; export it";
    }
    MTVMBackendPackedCFunc fn = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = addrs_.find(name);
      if (it != addrs_.end()) {
        fn = it->second;
      } else {
        auto addr = jit_->lookup(name);
        if (!addr) {
          std::string why = llvm::toString(addr.takeError());
          ThrowUnresolved(name);  // the usual cause, named; else LLVM's own words
          MINITVM_THROW(RuntimeError) << "llvm: looking up " << name << ": " << why;
        }
        fn = addr->toPtr<MTVMBackendPackedCFunc>();
        addrs_[name] = fn;
      }
    }
    return runtime_cpu::WrapBackendFunction(fn, name, runtime::GetRef<runtime::Module>(this));
  }

  std::string GetSource(const std::string& format) override {
    if (format == "ll" || format == "" || format == "llvm") return IRText(bitcode_);
    if (format == "ll_unopt") return IRText(bitcode_unopt_);
    if (format == "asm" || format == "s") return EmitToString(llvm::CodeGenFileType::AssemblyFile);
    if (format == "tir") return runtime::Repr(lowered_);
    MINITVM_THROW(ValueError) << "an llvm module has no source in format \"" << format
                              << "\" (use \"ll\", \"ll_unopt\", \"asm\" or \"tir\")";
  }

  void SaveToFile(const std::string& path, const std::string& format) override {
    std::string fmt = format.empty() ? Extension(path) : format;
    if (fmt == "so" || fmt == "dylib" || fmt == "") {
      ExportSharedLibrary(path);
    } else if (fmt == "o" || fmt == "obj") {
      WriteFile(path, EmitToString(llvm::CodeGenFileType::ObjectFile, /*pic=*/true));
    } else if (fmt == "ll") {
      WriteFile(path, IRText(bitcode_));
    } else if (fmt == "bc") {
      WriteFile(path, bitcode_);
    } else if (fmt == "s" || fmt == "asm") {
      WriteFile(path, EmitToString(llvm::CodeGenFileType::AssemblyFile));
    } else {
      MINITVM_THROW(ValueError) << "cannot save an llvm module as \"" << fmt << "\" (" << path
                                << "); use .so, .o, .ll, .bc or .s";
    }
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string bitcode_;
  std::string bitcode_unopt_;
  LLVMTarget target_;
  std::vector<std::string> names_;
  // Functions the code calls but does not define (T.call_extern, libm, libmvec, ...).
  std::vector<std::string> externals_;

  /*! \brief ValueError naming the external functions no loaded library defines, if any. */
  void ThrowUnresolved(const std::string& name) const {
    std::string missing;
    for (const std::string& sym : externals_) {
      if (!dlsym(RTLD_DEFAULT, sym.c_str())) missing += (missing.empty() ? "" : ", ") + sym;
    }
    if (missing.empty()) return;
    MINITVM_THROW(ValueError) << "llvm: cannot link " << name << ": it calls " << missing
                              << ", which no library loaded in this process defines (an "
                                 "external call, e.g. T.call_extern, needs a symbol the "
                                 "process exports; load the library that defines it first)";
  }
  IRModule lowered_;
  BuildStats stats_;
  /*! \brief Whether the code calls glibc's libmvec (linked into exported libraries). */
  bool uses_libmvec_ = false;

 private:
  static std::string IRText(const std::string& bc) {
    llvm::LLVMContext ctx;
    auto m = FromBitcode(bc, &ctx);
    std::string out;
    llvm::raw_string_ostream os(out);
    m->print(os, nullptr);
    os.flush();
    return out;
  }

  std::string EmitToString(llvm::CodeGenFileType type, bool pic = false) {
    llvm::LLVMContext ctx;
    auto m = FromBitcode(bitcode_, &ctx);
    auto tm = CreateTargetMachine(target_, pic);
    m->setDataLayout(tm->createDataLayout());
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, type)) {
      MINITVM_THROW(RuntimeError) << "llvm: the target cannot emit this file type";
    }
    pm.run(*m);
    return std::string(buffer.data(), buffer.size());
  }

  static void WriteFile(const std::string& path, const std::string& data) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
      MINITVM_THROW(ValueError) << "cannot write " << path << ": " << std::strerror(errno);
    }
    bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok) MINITVM_THROW(ValueError) << "cannot write " << path << ": write failed";
  }

  void ExportSharedLibrary(const std::string& path) {
    // Everything happens in a private directory; the destination is written last, so a
    // failure leaves nothing behind.
    std::filesystem::path dest_dir = shell::DestinationDir(path);
    if (access(dest_dir.c_str(), W_OK) != 0) {
      MINITVM_THROW(ValueError) << "cannot write " << path << ": " << std::strerror(errno);
    }
    shell::TempDir tmp("minitvm-export");
    const std::filesystem::path& dir = tmp.path();
    std::string obj = (dir / "module.o").string();
    std::string lib = (dir / "module.so").string();
    WriteFile(obj, EmitToString(llvm::CodeGenFileType::ObjectFile, /*pic=*/true));
    std::string driver = shell::LinkerDriver();
    std::string output;
    // libmvec (vector exp, tanh, ...) comes before libm: it needs libm for its special cases.
    std::string libs = uses_libmvec_ ? " -lmvec -lm" : " -lm";
    int rc =
        RunCommand(Quote(driver) + " -shared -o " + Quote(lib) + " " + Quote(obj) + libs, &output);
    if (rc != 0) {
      MINITVM_THROW(RuntimeError) << "linking " << path << " with " << driver << " failed:\n"
                                  << output;
    }
    shell::CopyToDestination(lib, path);
  }

  std::mutex mu_;
  std::map<std::string, MTVMBackendPackedCFunc> addrs_;
};

namespace {

/*! \brief The first PrimFunc of `mod` not yet through the TIR pipeline (empty when none). */
std::string FirstUnlowered(const IRModule& mod) {
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto* f = mod->Lookup(gv).as<tir::PrimFuncNode>();
    if (f && !f->GetAttr<bool>(tir::transform::kPackedAPIAttr).value_or(false)) {
      return gv->name_hint.str();
    }
  }
  return "";
}

std::vector<std::string> SplitFeatures(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string f;
  while (std::getline(ss, f, ',')) {
    if (!f.empty()) out.push_back(f);
  }
  return out;
}

/*!
 * \brief Generate, optimise and JIT-compile a lowered module (every PrimFunc through the TIR
 * pipeline); `lower_seconds` is the time the caller spent lowering it (0 when it did not).
 */
runtime::Module Build(IRModule mod, const LLVMTarget& target, double lower_seconds) {
  std::string unlowered = FirstUnlowered(mod);
  if (!unlowered.empty()) {
    MINITVM_THROW(ValueError) << "target.build.llvm: function \"" << unlowered
                              << "\" has not been lowered (run the TIR pipeline first: "
                                 "minitvm.build(mod, target, pipeline=\"default\") does)";
  }
  auto node = runtime::make_object<LLVMModuleNode>();
  node->target_ = target;
  node->stats_.lower_seconds = lower_seconds;
  node->lowered_ = mod;

  auto t1 = Clock::now();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto tm = CreateTargetMachine(target, /*pic=*/false);
  CodeGenLLVM cg(ctx.get(), target, tm.get());
  cg.Init("minitvm_module");
  std::string entry;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto* f = mod->Lookup(gv).as<tir::PrimFuncNode>();
    if (!f) continue;  // Relax functions are the VM's business
    std::string name = f->GetAttr<std::string>("global_symbol").value_or(gv->name_hint.str());
    cg.AddFunction(name, runtime::GetRef<tir::PrimFunc>(f));
    if (entry.empty() || name == "main") entry = name;
  }
  if (cg.function_names().empty()) {
    MINITVM_THROW(ValueError) << "build: the module has no PrimFunc to compile";
  }
  node->names_ = cg.function_names();
  node->uses_libmvec_ = cg.uses_libmvec();
  node->entry_name = entry;
  std::unique_ptr<llvm::Module> module = cg.Finish(entry);
  node->bitcode_unopt_ = ToBitcode(*module);
  node->stats_.codegen_seconds = Seconds(t1);

  auto t2 = Clock::now();
  OptimizeModule(module.get(), tm.get(), target.opt_level);
  for (const llvm::Function& fn : *module) {
    if (fn.isDeclaration() && !fn.isIntrinsic() && !fn.use_empty()) {
      node->externals_.push_back(fn.getName().str());
    }
  }
  node->bitcode_ = ToBitcode(*module);
  node->stats_.optimize_seconds = Seconds(t2);

  if (target.is_host) {
    auto t3 = Clock::now();
    llvm::orc::JITTargetMachineBuilder jtmb((llvm::Triple(target.triple)));
    jtmb.setCPU(target.cpu);
    jtmb.addFeatures(SplitFeatures(target.features));
    jtmb.setCodeGenOptLevel(target.opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                                  : llvm::CodeGenOptLevel::Default);
    auto jit =
        Unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
               "creating the LLVM JIT");
    // Materialisation errors come back from lookup() (named by ThrowUnresolved); the session
    // need not also print them to stderr.
    jit->getExecutionSession().setErrorReporter(
        [](llvm::Error e) { llvm::consumeError(std::move(e)); });
    module->setDataLayout(jit->getDataLayout());
    Check(jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx))),
          "adding the module to the JIT");
    // Looking up the hooks compiles the module; then the hooks point at the runtime.
    llvm::orc::LLJIT* j = jit.get();
    runtime_cpu::InitModuleHooks([j](const std::string& sym) -> void* {
      auto addr = j->lookup(sym);
      if (!addr) {
        llvm::consumeError(addr.takeError());
        return nullptr;
      }
      return addr->toPtr<void*>();
    });
    node->jit_ = std::move(jit);
    node->stats_.jit_seconds = Seconds(t3);
  }
  return runtime::Module(std::move(node));
}

}  // namespace

runtime::Module BuildLLVM(IRModule mod, const std::string& target) {
  // The C++ shortcut of driver::Build(mod, target): step 1 lowers what is not lowered yet
  // with the default TIR pipeline, step 2 generates code.
  LLVMTarget t = ParseLLVMTarget(target);
  auto t0 = Clock::now();
  if (!FirstUnlowered(mod).empty()) mod = tir::transform::GetDefaultTIRPipeline()(mod);
  return Build(std::move(mod), t, Seconds(t0));
}

runtime::Module BuildLoweredLLVM(IRModule mod, const runtime::Any& target) {
  return Build(std::move(mod), LLVMTargetFromAny(target), 0);
}

std::string LLVMHostCPUName() { return HostCPUName(); }
std::string LLVMHostCPUFeatures() { return HostCPUFeatures(); }

BuildStats GetBuildStats(const runtime::Module& mod) {
  auto* node = mod.as<LLVMModuleNode>();
  if (!node) MINITVM_THROW(ValueError) << "build stats: not an llvm module (" << mod->kind() << ")";
  return node->stats_;
}

MINITVM_REGISTER_GLOBAL("target.build.llvm")
    .set_body([](runtime::PackedArgs args, runtime::Any* rv) {
      if (args.size() < 1 || args.size() > 2) {
        MINITVM_THROW(TypeError) << "target.build.llvm expects (IRModule, target)";
      }
      IRModule mod = args[0].cast<IRModule>();
      *rv = BuildLoweredLLVM(mod, args.size() > 1 ? args[1] : runtime::Any("llvm"));
    });
MINITVM_REGISTER_GLOBAL("codegen.llvm.BuildStats").set_body_typed([](runtime::Module mod) {
  BuildStats s = GetBuildStats(mod);
  Map<String, Any> out;
  out.Set("lower_seconds", s.lower_seconds);
  out.Set("codegen_seconds", s.codegen_seconds);
  out.Set("optimize_seconds", s.optimize_seconds);
  out.Set("jit_seconds", s.jit_seconds);
  out.Set("total_seconds",
          s.lower_seconds + s.codegen_seconds + s.optimize_seconds + s.jit_seconds);
  return out;
});
MINITVM_REGISTER_GLOBAL("runtime.ModuleExportLibrary")
    .set_body_typed([](runtime::Module mod, std::string path) {
      mod.mutable_node()->SaveToFile(path, "so");
    });

}  // namespace codegen
}  // namespace minitvm
