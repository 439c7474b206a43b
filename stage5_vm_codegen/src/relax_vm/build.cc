/*!
 * \file build.cc
 * \brief `relax.build` / `tvm.compile` for modules with Relax functions (stage 5): the Relax
 * pipeline, the VM lowering, the TIR build of the PrimFuncs (the kernel library), VM code
 * generation, and `export_library` of the result as one shared library. See build.h.
 */
#include "minitvm/relax_vm/build.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "../codegen/shell_util.h"
#include "minitvm/driver/build.h"
#include "minitvm/relax/expr.h"
#include "minitvm/relax/transform.h"
#include "minitvm/relax_vm/codegen_vm.h"
#include "minitvm/relax_vm/default_schedule.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/relax_vm/vm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/packed_call.h"
#include "minitvm/target/target.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

using runtime::Any;
using runtime::Module;
using target::Target;
using transform::Pass;

namespace {

Target ToTarget(const Any& target) {
  if (target.is_null()) return Target("llvm");
  if (target.is_string()) return Target(target.cast<std::string>());
  return target.cast<Target>();
}

/*! \brief The Relax pipeline `p` names (undefined Pass: none). */
Pass GetRelaxPipeline(const Any& p) {
  if (p.is_null()) return Pass();
  if (auto* pass = p.as<transform::PassNode>()) return runtime::GetRef<Pass>(pass);
  if (!p.is_string()) {
    MINITVM_THROW(TypeError) << "relax.build: relax_pipeline must be a Pass, a pipeline name or "
                                "None, not "
                             << p.type_name();
  }
  std::string name = p.cast<std::string>();
  if (auto get = runtime::Registry::Get("relax.get_pipeline")) {
    return (*get)(name).cast<Pass>();
  }
  if (name == "zero" || name == "default") return relax::transform::LegalizeOps();
  MINITVM_THROW(ValueError) << "relax.build: unknown Relax pipeline \"" << name
                            << "\" (known: \"zero\", \"default\"; or pass a Pass, or None)";
}

bool HasRelaxFunction(const IRModule& mod) {
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (mod->Lookup(gv).as<relax::FunctionNode>()) return true;
  }
  return false;
}

}  // namespace

Module Build(IRModule mod, const Any& target, const Any& relax_pipeline, const Any& tir_pipeline) {
  Target t = ToTarget(target);
  if (Pass p = GetRelaxPipeline(relax_pipeline); p.defined()) mod = p(mod);
  // The "default" pipeline schedules the PrimFuncs for CPU targets (parallel, vectorized).
  // Weights bound as constants are packed at compile time (TVM's cpu_weight_prepack): the
  // kernels' parameters that receive constants are marked layout free, the GEMM and conv2d
  // rules mark their packing of such a weight as layout-rewrite preprocessing, that is split
  // into a PrimFunc of its own called on the constant, and FoldConstant runs it here; the
  // original weight is then dead. Weights passed as arguments keep the packing in the kernel
  // (constants only are marked: packing them once is LiftTransformParams' job, run by
  // relax.pipeline.static_shape_tuning_pipeline(cpu_weight_prepack=True)). PrimFuncs already
  // scheduled (tir.is_scheduled, e.g. by that pipeline) are left as they are by the rule.
  if (relax_pipeline.is_string() && relax_pipeline.cast<std::string>() == "default" &&
      t->kind->name == "llvm") {
    mod = relax::transform::AttachAttrLayoutFreeBuffers(/*mark_num_input=*/false)(mod);
    mod = DefaultCPUSchedule(t)(mod);
    IRModule split = relax::transform::SplitLayoutRewritePreproc()(mod);
    if (!split.same_as(mod)) {
      mod = relax::transform::DeadCodeElimination()(relax::transform::FoldConstant()(split));
    }
  }
  // GPU kernels need their loops bound to blocks and threads, whatever the pipeline.
  if (t->kind->name == "cuda") mod = DefaultGPUSchedule(t)(mod);
  mod = LoweringPipeline()(mod);
  // The kernels: every PrimFunc through the target's TIR build.
  Map<GlobalVar, BaseFunc> prim_funcs;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    if (f.as<tir::PrimFuncNode>()) prim_funcs.Set(gv, f);
  }
  std::optional<Module> kernels;
  if (prim_funcs.size() > 0) {
    kernels = driver::Build(IRModule(prim_funcs, mod->attrs), t, tir_pipeline);
  }
  if (!HasRelaxFunction(mod)) {
    MINITVM_THROW(ValueError) << "relax.build: the module has no Relax function (build a module "
                                 "of PrimFuncs with tvm.build)";
  }
  Module exec(CodeGenVM(mod));
  if (kernels) exec.Import(*kernels);
  return exec;
}

// ---- export ----------------------------------------------------------------------------------

namespace {

using ::minitvm::codegen::shell::Quote;
using ::minitvm::codegen::shell::RunCommand;

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) MINITVM_THROW(ValueError) << "cannot write " << path;
}

/*! \brief A C string literal for the assembler (.ascii). */
std::string AsmString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

}  // namespace

void ExportLibrary(const Module& mod, const std::string& path) {
  auto exec = GetExecutable(mod, "export_library");
  codegen::shell::DestinationDir(path);
  std::optional<Module> kernels;
  for (const Module& m : exec->imports) {
    if (kernels) {
      MINITVM_THROW(ValueError) << "export_library: the executable imports " << exec->imports.size()
                                << " modules; only one kernel library can be exported";
    }
    kernels = m;
  }
  if (kernels && (*kernels)->kind() != "llvm") {
    MINITVM_THROW(ValueError) << "export_library: the kernel library is a module of kind \""
                              << (*kernels)->kind()
                              << "\", which cannot be linked into a shared library (compile "
                                 "for an llvm target)";
  }
  codegen::shell::TempDir tmp("minitvm-vmexport");
  const std::filesystem::path& dir = tmp.path();

  std::string inputs;
  if (kernels) {
    std::string obj = (dir / "kernels.o").string();
    kernels->mutable_node()->SaveToFile(obj, "o");
    inputs += " " + Quote(obj);
  }
  // The executable's bytes, framed with their module kind, in a data symbol.
  std::string bytes = exec->SaveToBytes();
  std::string kind = exec->kind();
  std::string blob = "MTVMROOT";
  auto put_u64 = [&blob](uint64_t v) {
    char b[8];
    std::memcpy(b, &v, 8);
    blob.append(b, 8);
  };
  put_u64(kind.size());
  blob += kind;
  put_u64(bytes.size());
  blob += bytes;
  std::string bin = (dir / "root.bin").string();
  WriteFile(bin, blob);
  std::string sym = runtime_cpu::kRootModuleSymbol;
  std::string s;
  s += "  .section .rodata." + sym + ",\"a\",@progbits\n";
  s += "  .globl " + sym + "\n  .type " + sym + ", @object\n  .p2align 6\n";
  s += sym + ":\n  .incbin " + AsmString(bin) + "\n";
  s += "  .size " + sym + ", .-" + sym + "\n";
  if (!kernels) {
    // No kernels, so no module description from LLVM: the loader needs one.
    std::string info_sym = runtime_cpu::kModuleInfoSymbol;
    s += "  .section .rodata\n  .globl " + info_sym + "\n  .type " + info_sym + ", @object\n";
    s += info_sym + ":\n  .asciz " + AsmString(runtime_cpu::MakeModuleInfo("", {})) + "\n";
    s += "  .size " + info_sym + ", .-" + info_sym + "\n";
  }
  s += "  .section .note.GNU-stack,\"\",@progbits\n";
  std::string asm_file = (dir / "root.S").string();
  WriteFile(asm_file, s);
  inputs += " " + Quote(asm_file);

  std::string driver = codegen::shell::LinkerDriver();
  std::string lib = (dir / "model.so").string();
  std::string cmd = Quote(driver) + " -shared -o " + Quote(lib) + inputs;
  std::string output;
  // libmvec (the vector math the kernels may call) first; without it when it is absent.
  if (RunCommand(cmd + " -lmvec -lm", &output) != 0) {
    std::string output2;
    if (RunCommand(cmd + " -lm", &output2) != 0) {
      MINITVM_THROW(RuntimeError) << "linking " << path << " with " << driver << " failed:\n"
                                  << output << output2;
    }
  }
  codegen::shell::CopyToDestination(lib, path);
}

// relax.build(mod, target, relax_pipeline="default", tir_pipeline="default",
//             exec_mode="bytecode"): what minitvm.compile calls for Relax modules.
MINITVM_REGISTER_GLOBAL("relax.build").set_body([](runtime::PackedArgs args, Any* rv) {
  if (args.size() < 1 || args.size() > 5) {
    MINITVM_THROW(TypeError) << "relax.build expects (mod, target, relax_pipeline, tir_pipeline, "
                                "exec_mode), got "
                             << args.size() << " arguments";
  }
  IRModule mod = args[0].cast<IRModule>();
  Any target = args.size() > 1 ? args[1] : Any();
  Any relax_pipeline = args.size() > 2 ? args[2] : Any("default");
  Any tir_pipeline = args.size() > 3 ? args[3] : Any("default");
  if (args.size() > 4 && !args[4].is_null()) {
    std::string mode = args[4].cast<std::string>();
    if (mode != "bytecode") {
      MINITVM_THROW(ValueError) << "relax.build: exec_mode \"" << mode
                                << "\" is not supported (only \"bytecode\")";
    }
  }
  *rv = Build(mod, target, relax_pipeline, tir_pipeline);
});
MINITVM_REGISTER_GLOBAL("relax_vm.ExportLibrary").set_body_typed([](Module exec, std::string path) {
  ExportLibrary(exec, path);
});

}  // namespace relax_vm
}  // namespace minitvm
