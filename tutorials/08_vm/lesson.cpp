/*!
 * \file lesson.cpp
 * \brief Lesson 8 (C++): compile a Relax module for the VM, inspect the bytecode, save and load
 * it, profile it, and deploy it as one shared library run through the runtime API (stage 5).
 */
// Lesson 8 (C++): the Relax VM from C++
// ======================================
//
// lesson.py compiled the quick start's MLP from Python. The compiler and the VM are C++; this
// lesson drives them directly:
//
//   1. parse the MLP (high-level Relax operators) from TVMScript;
//   2. `relax_vm::Build(mod, "llvm")`: the "zero" pipeline (legalize, fuse), lowering for the
//      VM, bytecode generation, LLVM for the kernels — an executable module;
//   3. its bytecode (`as_text`) and statistics;
//   4. a VM over it: `vm_load_executable`, `vm_initialization`, then call `main`, checked
//      against lownumpy's MLP; the per-kernel profile;
//   5. the bytecode alone saved to bytes and loaded back (a corrupted copy is refused);
//   6. deployment: `ExportLibrary` writes one shared library; loading it through the runtime
//      registry gives the executable back, and the VM runs it — the quick start's C++ snippet.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "minitvm/lownumpy/lownumpy.h"
#include "minitvm/relax_vm/build.h"
#include "minitvm/relax_vm/vm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/tir_parser.h"

using minitvm::Error;
using minitvm::IRModule;
using minitvm::runtime::Any;
using minitvm::runtime::Module;
using minitvm::runtime::NDArray;
using minitvm::runtime::Registry;
namespace lnp = minitvm::lownumpy;

namespace {
double MaxAbsDiff(const NDArray& a, const NDArray& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    worst = std::max(worst, std::abs(double(a.data_as<float>()[i]) - b.data_as<float>()[i]));
  }
  return worst;
}

void Check(const char* what, const NDArray& got, const NDArray& expected) {
  double d = MaxAbsDiff(got, expected);
  std::cout << what << ": max |difference| to lownumpy " << (d < 1e-4 ? "< 1e-4" : "TOO LARGE")
            << "\n";
  if (d >= 1e-4) throw std::runtime_error(std::string(what) + " differs from the reference");
}

/*! \brief The first lines of `text` (bytecode listings are long). */
std::string Head(const std::string& text, int lines) {
  size_t pos = 0;
  for (int i = 0; i < lines && pos != std::string::npos; ++i) {
    pos = text.find('\n', pos == 0 ? 0 : pos + 1);
  }
  return pos == std::string::npos ? text : text.substr(0, pos) + "\n    ...";
}
}  // namespace

// The course MLP with the weights as parameters, in high-level operators.
static const char* kMLP = R"(
from minitvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((1, 10), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, R.permute_dims(w0))
            lv1 = R.nn.relu(R.add(lv0, b0))
            gv = R.add(R.matmul(lv1, R.permute_dims(w1)), b1)
            R.output(gv)
        return gv
)";

int main() {
  try {
    lnp::Params params = lnp::MLPInitParams(784, 128, 10, /*seed=*/0);
    NDArray data = lnp::random_uniform({1, 784}, 0.0, 1.0, /*seed=*/1);
    NDArray reference = lnp::MLP(data, params);

    // -------------------------------------------------------------------------------------
    // 1-2. Parse and compile.
    // -------------------------------------------------------------------------------------
    IRModule mod = minitvm::script::ParseModule(kMLP, "mlp.py");
    Module ex = minitvm::relax_vm::Build(mod, Any(std::string("llvm")), Any(std::string("zero")));
    std::cout << "compiled: a " << ex->kind() << " importing a " << ex->imports.at(0)->kind()
              << " kernel library\n";

    // -------------------------------------------------------------------------------------
    // 3. What the VM will run.
    // -------------------------------------------------------------------------------------
    std::cout << Head(ex["as_text"]().cast<std::string>(), 12) << "\n";

    // -------------------------------------------------------------------------------------
    // 4. Run it. The VM is itself a runtime module; its functions are the Relax functions.
    // -------------------------------------------------------------------------------------
    Module vm = ex["vm_load_executable"]().cast<Module>();
    vm["vm_initialization"](static_cast<int64_t>(kDLCPU), int64_t{0}, int64_t{2});
    NDArray out =
        vm["main"](data, params["w0"], params["b0"], params["w1"], params["b1"]).cast<NDArray>();
    Check("VM result", out, reference);
    // The profile: one row per kernel (times vary, so only the kernel names are printed here).
    std::string profile =
        vm["profile"]("main", data, params["w0"], params["b0"], params["w1"], params["b1"])
            .cast<std::string>();
    std::cerr << profile;
    std::cout << "profiled kernels include fused_matmul_add_relu: "
              << (profile.find("fused_matmul_add_relu") != std::string::npos ? "yes" : "no")
              << "\n";

    // -------------------------------------------------------------------------------------
    // 5. The bytecode alone, as bytes: loaded back it runs the same; one flipped byte is caught
    //    by the checksum.
    // -------------------------------------------------------------------------------------
    std::string bytes = minitvm::relax_vm::GetExecutable(ex, "lesson")->SaveToBytes();
    Module reloaded = minitvm::relax_vm::ExecutableFromBytes(bytes, ex->imports.at(0));
    Module vm1 = reloaded["vm_load_executable"]().cast<Module>();
    vm1["vm_initialization"](static_cast<int64_t>(kDLCPU), int64_t{0}, int64_t{2});
    Check("reloaded bytecode",
          vm1["main"](data, params["w0"], params["b0"], params["w1"], params["b1"]).cast<NDArray>(),
          reference);
    std::cout << "saved executable: starts with \"" << bytes.substr(0, 8) << "\"\n";
    std::string corrupted = bytes;
    corrupted[bytes.size() / 2] ^= 0x40;
    try {
      minitvm::relax_vm::ExecutableFromBytes(corrupted, ex->imports.at(0));
      std::cout << "a corrupted executable was accepted!\n";
      return 1;
    } catch (const Error& e) {
      std::cout << "corrupted copy refused: " << e.kind() << "\n";
    }

    // -------------------------------------------------------------------------------------
    // 6. Deploy: one shared library, loaded back through the runtime API only.
    // -------------------------------------------------------------------------------------
    std::string path = "mlp_deploy.so";
    minitvm::relax_vm::ExportLibrary(ex, path);
    Module loaded = Registry::GetOrThrow("runtime.ModuleLoadFromFile")(path, "so").cast<Module>();
    Module vm2 = loaded["vm_load_executable"]().cast<Module>();
    vm2["vm_initialization"](static_cast<int64_t>(kDLCPU), int64_t{0}, int64_t{2});
    NDArray out2 =
        vm2["main"](data, params["w0"], params["b0"], params["w1"], params["b1"]).cast<NDArray>();
    Check("loaded library", out2, reference);
    std::remove(path.c_str());

    // A wrong argument is refused before any kernel runs, naming the parameter.
    try {
      vm2["main"](lnp::random_uniform({2, 784}, 0.0, 1.0, 2), params["w0"], params["b0"],
                  params["w1"], params["b1"]);
      std::cout << "a wrong shape was accepted!\n";
      return 1;
    } catch (const Error& e) {
      std::cout << e.kind() << ": " << e.what() << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "FAILED: " << e.what() << "\n";
    return 1;
  }
  std::cout << "OK: the MLP compiled by relax_vm::Build and run in the VM (directly and from an "
               "exported library) equals lownumpy's MLP\n";
  return 0;
}
