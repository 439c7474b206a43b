/*!
 * \file hardening_test.cc
 * \brief Stage 5 hardening (issue 16): the checked build mode ("tir.instrument_bound_checkers")
 * against the interpreter, the unroll cap, the checksum of exported libraries, special files,
 * names in the module description, the int32 range of scalar arguments, and quick corpus runs
 * of the fuzz targets of the VM executable loader and the Relax parser.
 */
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <random>

#include "minitvm/codegen/llvm.h"
#include "minitvm/ir/transform.h"
#include "minitvm/relax_vm/executable.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/packed_call.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/transform/transform.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using ::minitvm::transform::PassContext;

constexpr const char* kGatherScript = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), idx: T.Buffer((4,), "int32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[idx[vi]]
)";

constexpr const char* kDivScript = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "int32"), D: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = T.floordiv(A[vi], D[vi])
)";

constexpr const char* kScaleScript = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32"), n: T.int32):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.spatial(4, i)
                A[vi] = A[vi] * T.Cast("float32", n)
)";

runtime::Module BuildWith(const char* script, Map<String, Any> config) {
  PassContext ctx = PassContext::Create();
  ctx->config = config;
  PassContext::Scope scope(ctx);
  return codegen::BuildLLVM(script::ParseModule(script), "llvm");
}

Map<String, Any> Checked() {
  Map<String, Any> c;
  c.Set(String("tir.instrument_bound_checkers"), Any(true));
  return c;
}

NDArray Ints(std::vector<int32_t> v) {
  return MakeArray<int32_t>({static_cast<int64_t>(v.size())}, DataType::Int(32), v);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind() + ": " + e.what();
  }
  return "";
}

TEST(CheckedBuild, OutOfBoundsGatherMatchesTheInterpreter) {
  runtime::Module fn = BuildWith(kGatherScript, Checked());
  runtime::Module interp_mod = tir::InterpreterModuleCreate(script::ParseModule(kGatherScript));
  std::mt19937 rng(7);
  NDArray a = RandomArray({8}, 3);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int32_t> idx(4);
    for (auto& v : idx) v = static_cast<int32_t>(rng() % 14) - 3;
    NDArray b1 = Zeros({4}), b2 = Zeros({4});
    std::string compiled = ErrorOf([&] { fn["main"](a, Ints(idx), b1); });
    std::string interp = ErrorOf([&] { interp_mod["main"](a, Ints(idx), b2); });
    // Same verdict; the same words for the buffer, the index and the shape.
    ASSERT_EQ(compiled.empty(), interp.empty()) << compiled << " vs " << interp;
    if (compiled.empty()) {
      for (int i = 0; i < 4; ++i) EXPECT_EQ(b1.data_as<float>()[i], b2.data_as<float>()[i]);
      continue;
    }
    int32_t bad = 0;
    for (int32_t v : idx) {
      if (v < 0 || v >= 8) {
        bad = v;
        break;
      }
    }
    std::string expect =
        "buffer A: index (" + std::to_string(bad) + ",) is out of bounds for " + "shape (8,)";
    EXPECT_NE(compiled.find("IndexError: " + expect), std::string::npos) << compiled;
    EXPECT_NE(interp.find(expect), std::string::npos) << interp;
  }
}

TEST(CheckedBuild, DivisionByZeroAndOverflowAreErrors) {
  runtime::Module fn = BuildWith(kDivScript, Checked());
  NDArray b = Zeros({4}, DataType::Int(32));
  fn["main"](Ints({7, -7, 3, 4}), Ints({2, 2, -3, 4}), b);
  EXPECT_EQ(b.data_as<int32_t>()[1], -4);  // floor division
  EXPECT_EQ(b.data_as<int32_t>()[2], -1);
  EXPECT_MINITVM_ERROR(fn["main"](Ints({1, 2, 3, 4}), Ints({1, 0, 1, 1}), b), "RuntimeError",
                       "integer division by zero (2 // 0) in main");
  EXPECT_MINITVM_ERROR(fn["main"](Ints({INT32_MIN, 2, 3, 4}), Ints({-1, 1, 1, 1}), b),
                       "RuntimeError", "integer overflow: -2147483648 // -1 does not fit int32");
}

TEST(CheckedBuild, OffByDefault) {
  IRModule mod = script::ParseModule(kDivScript);
  std::string lowered = script::AsScript(tir::transform::GetDefaultTIRPipeline()(mod));
  EXPECT_EQ(lowered.find("division by zero"), std::string::npos);
  PassContext ctx = PassContext::Create();
  ctx->config = Checked();
  PassContext::Scope scope(ctx);
  EXPECT_NE(script::AsScript(tir::transform::GetDefaultTIRPipeline()(mod)).find("division by zero"),
            std::string::npos);
}

TEST(UnrollCap, LargeExplicitUnrollIsRefused) {
  std::string script = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((65536,), "float32")):
        for i in T.unroll(65536):
            with T.block("b"):
                vi = T.axis.spatial(65536, i)
                A[vi] = T.float32(1)
)";
  EXPECT_MINITVM_ERROR(BuildWith(script.c_str(), {}), "ValueError",
                       "exceeds the limit \"tir.UnrollLoop.explicit_max_extent\" = 4096");
}

TEST(LibraryFile, DamageAfterExportIsRefusedBeforeDlopen) {
  TempDir dir;
  std::string path = dir.File("lib.so");
  BuildWith(kGatherScript, {}).mutable_node()->SaveToFile(path, "");
  std::string good = ReadBytes(path);
  ASSERT_GT(good.size(), 100u);
  EXPECT_EQ(good.substr(good.size() - 8), "MTVMSUM1");
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    std::string bad = good;
    size_t pos = 64 + rng() % (good.size() - 64 - 24);
    bad[pos] = static_cast<char>(bad[pos] ^ (1 + rng() % 255));
    WriteBytes(path, bad);
    EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(path), "ValueError",
                         "damaged after export");
  }
  WriteBytes(path, good);
  EXPECT_NO_THROW(runtime_cpu::LoadLibraryModule(path));
}

TEST(LibraryFile, SpecialFilesAndForeignMachines) {
  TempDir dir;
  std::string fifo = dir.File("pipe.so");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(fifo), "ValueError", "a named pipe");
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule("/dev/zero"), "ValueError",
                       "a character device");
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(dir.File("")), "ValueError", "a directory");
  std::string path = dir.File("lib.so");
  BuildWith(kGatherScript, {}).mutable_node()->SaveToFile(path, "");
  std::string other = ReadBytes(path);
  other[18] = static_cast<char>(183);  // e_machine = EM_AARCH64
  other[19] = 0;
  WriteBytes(path, other);
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(path), "ValueError",
                       "built for another machine: AArch64");
}

TEST(ModuleInfo, NamesCannotInjectEntries) {
  EXPECT_MINITVM_ERROR(runtime_cpu::MakeModuleInfo("main", {"main\nfunctions=evil"}), "ValueError",
                       "control character 0xa");
  EXPECT_MINITVM_ERROR(runtime_cpu::MakeModuleInfo("main", {"a,b"}), "ValueError", "','");
  EXPECT_MINITVM_ERROR(runtime_cpu::MakeModuleInfo("x=y", {"main"}), "ValueError", "'='");
  auto info =
      runtime_cpu::ParseModuleInfo(runtime_cpu::MakeModuleInfo("main", {"main", "f_2"}), "test");
  EXPECT_EQ(info.functions, (std::vector<std::string>{"main", "f_2"}));
}

TEST(CallingConvention, Int32ScalarOutOfRange) {
  runtime::Module fn = BuildWith(kScaleScript, {});
  NDArray a = MakeArray<float>({4}, F32(), {1, 1, 1, 1});
  fn["main"](a, 2);
  EXPECT_EQ(a.data_as<float>()[0], 2.0f);
  EXPECT_MINITVM_ERROR(fn["main"](a, int64_t(1) << 40), "ValueError",
                       "argument n (argument #1): value 1099511627776 out of range for int32");
  EXPECT_MINITVM_ERROR(fn["main"](a, -(int64_t(1) << 31) - 1), "ValueError",
                       "out of range for int32");
  EXPECT_EQ(a.data_as<float>()[0], 2.0f);  // nothing written
}

/*! \brief The loader's contract: load and save to the same bytes, or a ValueError. */
void CheckLoaderContract(const std::string& bytes, int* loaded) {
  std::string saved;
  try {
    saved = relax_vm::ExecutableNode::LoadFromBytes(bytes)->SaveToBytes();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError") << e.what();
    return;
  }
  ++*loaded;
  EXPECT_EQ(saved, bytes);
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  int n = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < n && !s.empty(); ++k) {
    size_t pos = rng() % s.size();
    switch (rng() % 4) {
      case 0:
        s[pos] = static_cast<char>(s[pos] ^ (1 << (rng() % 8)));
        break;
      case 1:
        s.erase(pos, 1 + rng() % 8);
        break;
      case 2:
        s.insert(pos, std::string(1 + rng() % 4, static_cast<char>(rng())));
        break;
      default:
        s.resize(pos);
        break;
    }
  }
  return s;
}

std::string SeedDir(const char* name) {
  const char* root = std::getenv("MINITVM_SOURCE_DIR");
  std::filesystem::path base = root && *root
                                   ? std::filesystem::path(root)
                                   : std::filesystem::path(__FILE__).parent_path() / ".." / "..";
  return (base / "tests/fuzz" / name).string();
}

TEST(VMExecutableFuzz, SeedCorpusAndMutants) {
  std::vector<std::string> seeds;
  for (const auto& e : std::filesystem::directory_iterator(SeedDir("vm_executable_seeds"))) {
    seeds.push_back(ReadBytes(e.path().string()));
  }
  ASSERT_GE(seeds.size(), 3u);
  int loaded = 0;
  for (const std::string& s : seeds) CheckLoaderContract(s, &loaded);
  EXPECT_EQ(loaded, static_cast<int>(seeds.size()));  // every seed is a valid executable
  std::mt19937_64 rng(20261125);
  for (int it = 0; it < 2000; ++it)
    CheckLoaderContract(Mutate(seeds[it % seeds.size()], rng), &loaded);
}

TEST(RelaxParserFuzz, SeedCorpusAndMutants) {
  std::vector<std::string> seeds;
  for (const auto& e : std::filesystem::directory_iterator(SeedDir("relax_seeds"))) {
    seeds.push_back(ReadBytes(e.path().string()));
  }
  ASSERT_GE(seeds.size(), 3u);
  std::mt19937_64 rng(99);
  int parsed = 0;
  for (int it = 0; it < 600; ++it) {
    std::string text =
        it < static_cast<int>(seeds.size()) ? seeds[it] : Mutate(seeds[it % seeds.size()], rng);
    ObjectRef result;
    try {
      result = script::FromSource(text, "mutant.py");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), "ParseError") << e.what() << "\n" << text;
      continue;
    }
    ++parsed;
    std::string printed = script::AsScript(result);
    EXPECT_EQ(script::AsScript(script::FromSource(printed, "printed.py")), printed) << text;
  }
  EXPECT_GE(parsed, static_cast<int>(seeds.size()));
}

}  // namespace
}  // namespace minitvm
