/*!
 * \file main.cc
 * \brief A C++ program outside the minitvm tree that uses an installed minitvm through
 * `find_package(minitvm)` (any stage; the install test of tests/install drives it).
 *
 * With stage 5 it is the quick start's C++ deployment: compile a small Relax model from
 * TVMScript, export it as one shared library, then load that library through the runtime API
 * and run it in the VM:
 *
 *     Module ex = load_module("model.so");
 *     Module vm = ex["vm_load_executable"]();
 *     vm["vm_initialization"](kDLCPU, 0, kPooled);
 *     NDArray out = vm["main"](x, w);
 *
 * With stages 2-4 it builds a TIR PrimFunc for the interpreter (target "ref") and runs it; with
 * stage 1 alone it runs a lownumpy operator. Each result is checked against lownumpy, and the
 * program prints "OK: ..." and exits with 0 when all agree.
 *
 * Usage: consumer [work-folder]   (the exported model.so is written there; default ".")
 */
#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>

#include "minitvm/lownumpy/lownumpy.h"
#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"
#if CONSUMER_STAGE >= 2
#include "minitvm/driver/build.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/target/target.h"
#endif
#if CONSUMER_STAGE >= 5
#include "minitvm/relax_vm/build.h"
#endif

namespace lnp = minitvm::lownumpy;
using minitvm::runtime::Module;
using minitvm::runtime::NDArray;
using minitvm::runtime::Registry;

namespace {

/*! \brief Throws when `got` and `expected` differ by more than 1e-4 anywhere. */
void Check(const std::string& what, const NDArray& got, const NDArray& expected) {
  if (got.NumElements() != expected.NumElements()) {
    throw std::runtime_error(what + ": wrong number of elements");
  }
  double worst = 0;
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    worst =
        std::max(worst, std::abs(double(got.data_as<float>()[i]) - expected.data_as<float>()[i]));
  }
  std::cout << what << ": max |difference| to lownumpy " << (worst < 1e-4 ? "< 1e-4" : "TOO LARGE")
            << "\n";
  if (worst >= 1e-4) throw std::runtime_error(what + " differs from lownumpy");
}

#if CONSUMER_STAGE >= 5
const char* kModel = R"(
from minitvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), "float32"), w: R.Tensor((16, 8), "float32")) -> R.Tensor((4, 8), "float32"):
        with R.dataflow():
            gv = R.nn.relu(R.matmul(x, w))
            R.output(gv)
        return gv
)";

/*! \brief Compile and export the model, then deploy it with the runtime API alone. */
void RunDeployment(const std::string& work) {
  NDArray x = lnp::random_uniform({4, 16}, -1.0, 1.0, /*seed=*/1);
  NDArray w = lnp::random_uniform({16, 8}, -1.0, 1.0, /*seed=*/2);
  NDArray expected = lnp::relu(lnp::matmul(x, w));

  minitvm::IRModule mod = minitvm::script::ParseModule(kModel, "model.py");
  Module built = minitvm::relax_vm::Build(mod, minitvm::runtime::Any(std::string("llvm")));
  std::string path = work + "/model.so";
  minitvm::relax_vm::ExportLibrary(built, path);
  std::cout << "exported model.so\n";

  // The deployment snippet: load, make a VM, initialise it on cpu(0) (pooled allocator), run.
  Module ex = Registry::GetOrThrow("runtime.ModuleLoadFromFile")(path, "so").cast<Module>();
  Module vm = ex["vm_load_executable"]().cast<Module>();
  vm["vm_initialization"](static_cast<int64_t>(kDLCPU), int64_t{0}, int64_t{2});
  Check("VM main(x, w) from model.so", vm["main"](x, w).cast<NDArray>(), expected);
}
#endif

#if CONSUMER_STAGE >= 2
const char* kAdd = R"(
from minitvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = A[vi] + B[vi]
)";

/*! \brief Parse a PrimFunc and build it for `target` ("ref": the TIR interpreter). */
void RunTIRBuild(const std::string& target) {
  NDArray a = lnp::random_uniform({64}, 0.0, 1.0, /*seed=*/3);
  NDArray b = lnp::random_uniform({64}, 0.0, 1.0, /*seed=*/4);
  NDArray c = lnp::zeros({64});
  minitvm::tir::PrimFunc func = minitvm::script::ParsePrimFunc(kAdd, "add.py");
  Module lib = minitvm::driver::Build(func, minitvm::target::Target(target));
  lib["main"](a, b, c);
  Check("TIR build for " + target + ": add", c, lnp::add(a, b));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::string work = argc > 1 ? argv[1] : ".";
  try {
    std::cout << "minitvm consumer, stage " << CONSUMER_STAGE << "\n";
    NDArray a = lnp::arange(0, 6);
    Check("lownumpy add", lnp::add(a, a), lnp::multiply(a, lnp::full({6}, 2.0)));
#if CONSUMER_STAGE >= 2
    RunTIRBuild("ref");
#endif
#if CONSUMER_STAGE >= 5
    RunTIRBuild("llvm");
    RunDeployment(work);
#endif
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  std::cout << "OK: the installed minitvm works from another project\n";
  return 0;
}
