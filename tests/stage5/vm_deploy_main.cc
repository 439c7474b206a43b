/*!
 * \file vm_deploy_main.cc
 * \brief Deploying a compiled Relax model from C++ (stage 5): load the shared library that
 * `ex.export_library("model.so")` wrote, make a VM from its executable, initialise it and run
 * a function — the C++ snippet of the quick start, with nothing but the runtime API:
 *
 *     Module ex = load_module("model.so");
 *     Module vm = ex["vm_load_executable"]();
 *     vm["vm_initialization"](kDLCPU, 0, kPooled);
 *     NDArray out = vm["main"](data, weight, ...);
 *
 * Usage: vm_deploy_main model.so function out.npy [in0.npy in1.npy ...]
 * The inputs are .npy files; the result (a tensor, or the first field of a tuple) is written to
 * out.npy, and its shape and first values are printed.
 *
 * Only stage-1 runtime headers are included. The loader of shared libraries and the VM are
 * in the stage-5 library (libminitvm_vm_codegen), which the program links; they are reached
 * through the global registry ("runtime.ModuleLoadFromFile") and the module functions.
 */
#include <cstdio>
#include <iostream>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/npy.h"
#include "minitvm/runtime/registry.h"

using minitvm::runtime::Any;
using minitvm::runtime::Array;
using minitvm::runtime::Module;
using minitvm::runtime::NDArray;
using minitvm::runtime::PackedArgs;
using minitvm::runtime::Registry;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: " << argv[0] << " model.so function out.npy [in0.npy ...]\n";
    return 2;
  }
  try {
    // 1. Load the library: it comes back as the VM executable, the kernels its import.
    Module ex = Registry::GetOrThrow("runtime.ModuleLoadFromFile")(std::string(argv[1]), "so")
                    .cast<Module>();
    // 2. A VM over the executable, on cpu(0) with the pooled allocator (2).
    Module vm = ex["vm_load_executable"]().cast<Module>();
    vm["vm_initialization"](static_cast<int64_t>(kDLCPU), int64_t{0}, int64_t{2});
    // 3. Call the function with the inputs.
    std::vector<Any> inputs;
    for (int i = 4; i < argc; ++i) inputs.emplace_back(minitvm::runtime::LoadNpy(argv[i]));
    Any rv;
    vm[argv[2]].CallPacked(PackedArgs(inputs.data(), static_cast<int>(inputs.size())), &rv);
    NDArray out;
    if (auto* t = rv.as<minitvm::runtime::ArrayNode>()) {
      out = t->data.at(0).cast<NDArray>();
    } else {
      out = rv.cast<NDArray>();
    }
    minitvm::runtime::SaveNpy(argv[3], out);
    std::cout << "output shape " << minitvm::runtime::ShapeToString(out.Shape()) << " "
              << out.dtype() << "\n";
    if (out.dtype() == minitvm::runtime::DataType::Float(32) && out.IsContiguous()) {
      std::cout << "first values:";
      for (int64_t i = 0; i < std::min<int64_t>(out.NumElements(), 5); ++i) {
        std::cout << " " << out.data_as<float>()[i];
      }
      std::cout << "\n";
    }
    std::cout << "OK: ran " << argv[2] << " of " << argv[1] << " in the VM\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
