/*!
 * \file cuda_codegen_test.cc
 * \brief Stage 5 CUDA: Target("cuda") attributes, the GPU lowering passes, CodeGenCUDA through
 * NVRTC (PTX checked by ptxas for sm_80 and sm_90), the GPU-semantics checker against the TIR
 * interpreter on a kernel with a symbolic size, and the runtime's answer where there is no
 * driver. Nothing here needs a GPU.
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "minitvm/codegen/cuda.h"
#include "minitvm/driver/build.h"
#include "minitvm/runtime/device.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/transform/gpu.h"

namespace minitvm {
namespace {

using runtime::Any;
using runtime::NDArray;

const char* kScaleScript = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i_0 in T.thread_binding((n + 63) // 64, thread="blockIdx.x"):
            for i_1 in T.thread_binding(64, thread="threadIdx.x"):
                with T.block("B"):
                    vi = T.axis.spatial(n, i_0 * 64 + i_1)
                    T.where(i_0 * 64 + i_1 < n)
                    B[vi] = A[vi] * T.float32(2.0) + T.float32(1.0)
)";

bool CudaBuilt() { return codegen::NVRTCAvailable(); }

NDArray Filled(int64_t n, bool iota) {
  NDArray a = NDArray::Empty({n}, DataType::Float(32));
  for (int64_t i = 0; i < n; ++i) a.data_as<float>()[i] = iota ? static_cast<float>(i) * 0.5f : 0;
  return a;
}

TEST(CUDATarget, Defaults) {
  target::Target t("cuda");
  EXPECT_EQ(t->GetAttr<std::string>("arch"), "sm_80");
  EXPECT_EQ(t->GetAttr<int64_t>("max_threads_per_block"), 1024);
  EXPECT_EQ(t->GetAttr<int64_t>("max_shared_memory_per_block"), 49152);
  EXPECT_EQ(t->GetAttr<int64_t>("thread_warp_size"), 32);
  EXPECT_EQ(target::Target("cuda -arch=sm_90")->GetAttr<std::string>("arch"), "sm_90");
}

TEST(CUDACodegen, SymbolicKernelSourcePtxasAndChecker) {
  if (!CudaBuilt()) GTEST_SKIP() << "built without the CUDA toolkit";
  IRModule mod = script::ParseModule(kScaleScript);
  runtime::Module lib = driver::Build(mod, target::Target("cuda"));
  ASSERT_EQ(lib->kind(), "cuda_host");
  ASSERT_EQ(lib->imports.size(), 1u);
  std::string src = lib->imports[0].mutable_node()->GetSource("cu");
  EXPECT_NE(src.find("extern \"C\" __global__ void __launch_bounds__(64) main_kernel("),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("if (i_0 * 64 + i_1 < n)"), std::string::npos) << src;
  // ptxas for sm_80 and sm_90.
  const char* ptxas = "/usr/local/cuda/bin/ptxas";
  if (std::filesystem::exists(ptxas)) {
    auto path = std::filesystem::temp_directory_path() / "minitvm_cuda_codegen_test.ptx";
    std::ofstream(path) << lib->imports[0].mutable_node()->GetSource("ptx");
    for (const char* arch : {"sm_80", "sm_90"}) {
      std::string cmd =
          std::string(ptxas) + " -arch=" + arch + " " + path.string() + " -o /dev/null";
      EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    std::filesystem::remove(path);
  }
  // The checker runs the lowered kernel with SIMT semantics; the interpreter the original.
  for (int64_t n : {1, 64, 100}) {
    NDArray a = Filled(n, true), b = Filled(n, false), ref = Filled(n, false);
    tir::InterpreterModuleCreate(mod)["main"](a, ref);
    auto check = runtime::Registry::Get("gpu_check.Check");
    ASSERT_TRUE(check.has_value());
    int64_t launches = (*check)(mod, target::Target("cuda"), "main", a, b).cast<int64_t>();
    EXPECT_EQ(launches, 1);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(b.data_as<float>()[i], ref.data_as<float>()[i]);
  }
}

TEST(CUDALowering, VerifyGPUCodeNamesTheLimit) {
  IRModule mod = script::ParseModule(R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4096,), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(2048, thread="threadIdx.x"):
                A[bx * 2048 + tx] = T.float32(0)
)");
  auto errors = tir::VerifyGPUCodeErrors(Downcast<tir::PrimFunc>(mod->Lookup("main")),
                                         tir::GPULimits{1024, 49152});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("2048 threads per block"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("max_threads_per_block = 1024"), std::string::npos) << errors[0];
}

TEST(CUDARuntime, NoDriverIsReportedCleanly) {
  std::string why = (*runtime::Registry::Get("runtime.cuda.DriverError"))().cast<std::string>();
  runtime::Device dev{kDLCUDA, 0};
  if (why.empty()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(runtime::DeviceAPI::Get(dev)->Exists(dev));
  try {
    NDArray::Empty({4}, DataType::Float(32), dev);
    FAIL() << "allocation on cuda(0) without a driver succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace minitvm
