/*!
 * \file codegen_llvm_runtime_test.cc
 * \brief Stage 5: calling compiled code — argument checks with named errors (nothing written
 * on error), export to a shared library and loading it back, corrupted and truncated
 * libraries, sources for learners, the thread pool and time_evaluator.
 */
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "minitvm/codegen/llvm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/packed_call.h"
#include "minitvm/runtime_cpu/thread_pool.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/tir/transform/transform.h"
#include "stage5_test_util.h"
#include "stage5_workloads.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)

runtime::Module BuildVectorAdd() {
  static runtime::Module mod =
      codegen::BuildLLVM(ScheduleVectorAdd(script::ParseModule(kVectorAddScript)), "llvm");
  return mod;
}

TEST(CodeGenLLVMRuntime, CourseVectorAddFromScript) {
  runtime::Module mod = BuildVectorAdd();
  std::vector<float> av(64), bv(64, 1.0f);
  for (int i = 0; i < 64; ++i) av[i] = static_cast<float>(i);
  NDArray a = MakeArray<float>({64}, F32(), av), b = MakeArray<float>({64}, F32(), bv);
  NDArray c = Zeros({64});
  mod["main"](a, b, c);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(c.data_as<float>()[i], i + 1.0f);
}

TEST(CodeGenLLVMRuntime, BadArgumentsRaiseNamedErrorsAndWriteNothing) {
  runtime::PackedFunc f = BuildVectorAdd()["main"];
  NDArray a = RandomArray({64}, 1), b = RandomArray({64}, 2);
  NDArray c = Zeros({64});
  auto untouched = [&] {
    for (int i = 0; i < 64; ++i) {
      if (c.data_as<float>()[i] != 0.0f) return false;
    }
    return true;
  };
  EXPECT_MINITVM_ERROR(f(a, b), "TypeError", "main expects 3 arguments but 2 were given");
  EXPECT_MINITVM_ERROR(f(a, b, c, c), "TypeError", "main expects 3 arguments but 4 were given");
  EXPECT_MINITVM_ERROR(f(a), "TypeError", "main expects 3 arguments but 1 was given");
  EXPECT_MINITVM_ERROR(f(), "TypeError", "main expects 3 arguments but 0 were given");
  EXPECT_MINITVM_ERROR(f(a, 1, c), "TypeError",
                       "argument B (argument #1) must be an NDArray but got int");
  EXPECT_MINITVM_ERROR(f(a, b, "x"), "TypeError",
                       "argument C (argument #2) must be an NDArray but got str");
  EXPECT_MINITVM_ERROR(f(RandomArray({7}, 3), b, c), "ValueError",
                       "A.shape[0] is 7 but main expects 64");
  EXPECT_MINITVM_ERROR(f(a, b, Zeros({8, 8})), "ValueError", "C.ndim is 2 but main expects 1");
  EXPECT_MINITVM_ERROR(f(a, b, Zeros({64}, DataType::Float(64))), "TypeError",
                       "C.dtype is float64 but main expects float32");
  EXPECT_MINITVM_ERROR(f(a, b, Zeros({64}, DataType::Int(32))), "TypeError",
                       "C.dtype is int32 but main expects float32");
  // A view that starts one element in is not 64-byte aligned.
  NDArray big = Zeros({65});
  EXPECT_MINITVM_ERROR(f(big.CreateView({64}, F32(), 1), b, c), "ValueError",
                       "A.data is not aligned to 64 bytes (byte_offset 4)");
  // A strided view is not compact.
  NDArray wide = Zeros({128});
  EXPECT_MINITVM_ERROR(f(wide.CreateStridedView({64}, {2}, 0), b, c), "ValueError",
                       "A is not a compact row-major array");
  EXPECT_TRUE(untouched()) << "a failed call wrote to its output";
  f(a, b, c);
  EXPECT_FALSE(untouched());
}

TEST(CodeGenLLVMRuntime, SymbolicShapes) {
  // n is bound from A's shape; B must agree.
  IRModule mod = script::ParseModule(R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.block("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] * T.float32(2.0)
)");
  runtime::Module m = codegen::BuildLLVM(mod, "llvm");
  NDArray a = RandomArray({37}, 1), b = Zeros({37});
  m["main"](a, b);
  for (int i = 0; i < 37; ++i) EXPECT_EQ(b.data_as<float>()[i], 2 * a.data_as<float>()[i]);
  EXPECT_MINITVM_ERROR(m["main"](a, Zeros({36})), "ValueError",
                       "B.shape[0] is 36 but main expects 37");
}

TEST(CodeGenLLVMRuntime, ExportAndLoadSharedLibrary) {
  TempDir dir;
  runtime::Module mod = BuildVectorAdd();
  std::string path = dir.File("vector_add.so");
  mod.mutable_node()->SaveToFile(path, "");
  runtime::Module loaded = runtime_cpu::LoadLibraryModule(path);
  EXPECT_EQ(loaded->kind(), "library");
  EXPECT_EQ(loaded->entry_name, "main");
  EXPECT_EQ(loaded->FunctionNames(), std::vector<std::string>{"main"});
  NDArray a = RandomArray({64}, 1), b = RandomArray({64}, 2), c = Zeros({64});
  loaded["main"](a, b, c);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(c.data_as<float>()[i], a.data_as<float>()[i] + b.data_as<float>()[i]);
  // The loaded library checks its arguments too.
  EXPECT_MINITVM_ERROR(loaded["main"](RandomArray({7}, 3), b, c), "ValueError",
                       "A.shape[0] is 7 but main expects 64");
  // Through the registered loader, as Python's load_module calls it.
  runtime::Module again =
      runtime::Registry::GetOrThrow("runtime.ModuleLoadFromFile")(path, "").cast<runtime::Module>();
  EXPECT_TRUE(again.GetFunction("main").has_value());
  // Other formats for learners.
  for (const char* ext : {"o", "ll", "bc", "s"}) {
    std::string p = dir.File(std::string("vector_add.") + ext);
    mod.mutable_node()->SaveToFile(p, "");
    EXPECT_GT(std::filesystem::file_size(p), 0u) << p;
  }
}

TEST(CodeGenLLVMRuntime, ExportToUnwritablePathFails) {
  runtime::Module mod = BuildVectorAdd();
  EXPECT_MINITVM_ERROR(mod.mutable_node()->SaveToFile("/nonexistent-dir/x.so", ""), "ValueError",
                       "cannot write /nonexistent-dir/x.so");
  EXPECT_MINITVM_ERROR(mod.mutable_node()->SaveToFile("/proc/x.so", ""), "ValueError",
                       "cannot write /proc/x.so");
  EXPECT_MINITVM_ERROR(mod.mutable_node()->SaveToFile("x.weird", ""), "ValueError",
                       "cannot save an llvm module");
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir/x.so"));
}

TEST(CodeGenLLVMRuntime, LoadingBadFilesFails) {
  TempDir dir;
  std::string good = dir.File("good.so");
  BuildVectorAdd().mutable_node()->SaveToFile(good, "");
  std::string bytes = ReadBytes(good);
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(dir.File("missing.so")), "ValueError",
                       "no such file");
  std::string truncated = dir.File("truncated.so");
  WriteBytes(truncated, bytes.substr(0, bytes.size() / 2));
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(truncated), "ValueError", "truncated");
  std::string tiny = dir.File("tiny.so");
  WriteBytes(tiny, bytes.substr(0, 10));
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(tiny), "ValueError", "truncated");
  std::string garbage = dir.File("garbage.so");
  std::string g = bytes;
  for (size_t i = 0; i < 16; ++i) g[i] = static_cast<char>(0x5a);
  WriteBytes(garbage, g);
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(garbage), "ValueError", "not an ELF file");
  std::string text = dir.File("text.so");
  WriteBytes(text, std::string(200, 'x'));
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(text), "ValueError", "not an ELF file");
  // A valid shared library that is not a minitvm module.
  std::string libm;
  for (const char* p : {"/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6"}) {
    if (std::filesystem::exists(p)) libm = p;
  }
  if (!libm.empty()) {
    EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(libm), "ValueError",
                         "not a minitvm module");
  }
}

TEST(CodeGenLLVMRuntime, Sources) {
  runtime::Module mod = BuildVectorAdd();
  std::string ll = mod.mutable_node()->GetSource("ll");
  EXPECT_NE(ll.find("define"), std::string::npos);
  EXPECT_NE(ll.find("@main("), std::string::npos);
  std::string unopt = mod.mutable_node()->GetSource("ll_unopt");
  EXPECT_NE(unopt.find("main_compute_"), std::string::npos);
  EXPECT_NE(unopt.find("noalias"), std::string::npos);
  std::string asm_text = mod.mutable_node()->GetSource("asm");
  EXPECT_NE(asm_text.find("main:"), std::string::npos);
  EXPECT_NE(mod.mutable_node()->GetSource("tir").find("compute_scope"), std::string::npos);
  EXPECT_MINITVM_ERROR(mod.mutable_node()->GetSource("cu"), "ValueError", "no source in format");
}

TEST(CodeGenLLVMRuntime, TargetsAndHostCPU) {
  std::string cpu =
      runtime::Registry::GetOrThrow("target.llvm.ResolveHostCPU")().cast<std::string>();
  EXPECT_FALSE(cpu.empty());
  EXPECT_EQ(cpu, codegen::LLVMHostCPUName());
  EXPECT_MINITVM_ERROR(codegen::BuildLLVM(ModuleOf(MakeVectorAdd(8)), "cuda"), "ValueError",
                       "not an llvm target");
  EXPECT_MINITVM_ERROR(codegen::BuildLLVM(ModuleOf(MakeVectorAdd(8)), "llvm -bogus=1"),
                       "ValueError", "unknown option \"-bogus=1\"");
  // -mattr adds features; generic code still runs.
  runtime::Module m =
      codegen::BuildLLVM(ModuleOf(MakeVectorAdd(8)), "llvm -mcpu=generic -mattr=+sse4.1");
  NDArray a = RandomArray({8}, 1), b = RandomArray({8}, 2), c = Zeros({8});
  m["main"](a, b, c);
  EXPECT_EQ(c.data_as<float>()[3], a.data_as<float>()[3] + b.data_as<float>()[3]);
  // Through the driver's global with a Target object's string: the driver runs the default
  // TIR pipeline, then hands the lowered module to "target.build.llvm".
  runtime::Module m2 = runtime::Registry::GetOrThrow("driver.build")(ModuleOf(MakeVectorAdd(8)),
                                                                     "llvm -mcpu=native", "main")
                           .cast<runtime::Module>();
  EXPECT_EQ(m2->kind(), "llvm");
  // The backend itself does not lower: an unlowered module is refused, a lowered one built.
  runtime::PackedFunc backend = runtime::Registry::GetOrThrow("target.build.llvm");
  EXPECT_MINITVM_ERROR(backend(ModuleOf(MakeVectorAdd(8)), "llvm"), "ValueError",
                       "has not been lowered");
  IRModule lowered = tir::transform::GetDefaultTIRPipeline()(ModuleOf(MakeVectorAdd(8)));
  EXPECT_EQ(backend(lowered, "llvm").cast<runtime::Module>()->kind(), "llvm");
}

TEST(CodeGenLLVMRuntime, ThreadPoolRunsEveryTaskOnce) {
  auto* pool = runtime_cpu::ThreadPool::Global();
  int saved = pool->num_threads();
  for (int threads : {1, 2, 3}) {
    pool->SetNumThreads(threads);
    EXPECT_EQ(pool->num_threads(), threads);
    for (int round = 0; round < 50; ++round) {
      std::vector<std::atomic<int>> hits(7);
      int rc = pool->Launch(
          [&](int t, int n) {
            EXPECT_EQ(n, 7);
            hits[t]++;
            return 0;
          },
          7);
      EXPECT_EQ(rc, 0);
      for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    }
    EXPECT_EQ(pool->Launch([](int t, int) { return t == 1 ? 5 : 0; }, 3), 5);
  }
  pool->SetNumThreads(saved);
}

TEST(CodeGenLLVMRuntime, ParallelGemmAnyThreadCountAndTimeEvaluator) {
  runtime::Module mod =
      codegen::BuildLLVM(ScheduledGemm(128, 64, 96, GemmTile{4, 16, 8}), "llvm -mcpu=native");
  NDArray a = RandomArray({128, 96}, 1), b = RandomArray({96, 64}, 2);
  NDArray ref = RefMatmul(a, b);
  auto* pool = runtime_cpu::ThreadPool::Global();
  int saved = pool->num_threads();
  for (int threads : {1, 2, 4}) {
    pool->SetNumThreads(threads);
    NDArray c = Zeros({128, 64});
    mod["main"](a, b, c);
    EXPECT_LT(MaxAbsDiff(c, ref), 1e-4) << threads << " threads";
  }
  pool->SetNumThreads(saved);
  NDArray c = Zeros({128, 64});
  auto evaluator =
      runtime::Registry::GetOrThrow("runtime.TimeEvaluator")(mod, "main", runtime::CPU(), 3, 2, 0)
          .cast<runtime::PackedFunc>();
  auto times = evaluator(a, b, c).cast<Array<double>>();
  ASSERT_EQ(times.size(), 2u);
  EXPECT_GT(times[0], 0.0);
  auto stats =
      runtime::Registry::GetOrThrow("codegen.llvm.BuildStats")(mod).cast<Map<String, Any>>();
  EXPECT_LT(stats["total_seconds"].cast<double>(), 5.0);
}

TEST(CodeGenLLVMRuntime, ParallelCodeWorksInAForkedChild) {
  // A child of fork() has none of the parent's pool threads; the pool starts new ones
  // instead of waiting forever for the old ones.
  runtime::Module mod =
      codegen::BuildLLVM(ScheduledGemm(128, 64, 96, GemmTile{4, 16, 8}), "llvm -mcpu=native");
  auto* pool = runtime_cpu::ThreadPool::Global();
  int saved = pool->num_threads();
  pool->SetNumThreads(2);
  NDArray a = RandomArray({128, 96}, 1), b = RandomArray({96, 64}, 2), c = Zeros({128, 64});
  mod["main"](a, b, c);  // the parent's workers are running now
  pid_t pid = fork();
  if (pid == 0) {
    alarm(30);  // a hang fails the test instead of blocking it
    NDArray c2 = Zeros({128, 64});
    mod["main"](a, b, c2);
    _exit(MaxAbsDiff(c2, RefMatmul(a, b)) < 1e-4 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  pool->SetNumThreads(saved);
}

}  // namespace
}  // namespace minitvm
