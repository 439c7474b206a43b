/*!
 * \file tir_pipeline_test.cc
 * \brief Stage 5: every pass of the default TIR pipeline, one at a time, on a few workloads.
 * After each pass the printed module must match its golden file
 * (tests/stage5/golden/<workload>/<NN>_<pass>.tvms; the previous file is the "before"),
 * the printed text must parse back to a structurally equal module, and — until
 * MakePackedAPI changes the calling convention — the TIR interpreter must compute the same
 * outputs as on the unlowered module. UPDATE_GOLDEN=1 rewrites the golden files.
 */
#include <gtest/gtest.h>

#include <filesystem>
#include <iomanip>

#include "minitvm/ir/structural.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/transform/transform.h"
#include "stage5_test_util.h"
#include "stage5_workloads.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)

std::string GoldenPath(const std::string& workload, size_t index, const std::string& pass) {
  std::ostringstream os;
  os << MINITVM_STAGE5_GOLDEN_DIR << "/" << workload << "/" << std::setw(2) << std::setfill('0')
     << index << "_" << pass.substr(pass.find('.') + 1) << ".tvms";
  return os.str();
}

/*! \brief Run the interpreter on `mod["main"]` with copies of `inputs`; returns the arrays. */
std::vector<NDArray> Interpret(const IRModule& mod, const std::vector<NDArray>& inputs) {
  std::vector<NDArray> args;
  std::vector<Any> packed;
  for (const NDArray& a : inputs) {
    args.push_back(a.CopyTo(runtime::CPU()));
    packed.push_back(args.back());
  }
  tir::Interpreter interp(Downcast<PrimFunc>(mod->Lookup("main")));
  interp.Run(runtime::PackedArgs(packed.data(), static_cast<int>(packed.size())));
  return args;
}

void CheckPipeline(const std::string& workload, IRModule mod, const std::vector<NDArray>& inputs) {
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  std::vector<NDArray> expected = Interpret(mod, inputs);
  auto passes = tir::transform::GetDefaultTIRPipelinePasses();
  std::filesystem::create_directories(std::string(MINITVM_STAGE5_GOLDEN_DIR) + "/" + workload);
  {
    std::string path = GoldenPath(workload, 0, "input");
    std::string text = script::AsScript(mod);
    if (update) WriteBytes(path, text);
    EXPECT_EQ(ReadBytes(path), text) << "input of " << workload << " differs from " << path;
  }
  for (size_t i = 0; i < passes.size(); ++i) {
    std::string name = passes[i].info()->name.str();
    SCOPED_TRACE(workload + " after " + name);
    mod = passes[i](mod);
    std::string text = script::AsScript(mod);
    std::string path = GoldenPath(workload, i + 1, name);
    if (update) WriteBytes(path, text);
    EXPECT_EQ(ReadBytes(path), text)
        << "printed IR differs from " << path << " (UPDATE_GOLDEN=1 rewrites it)";
    // The text is a faithful form of the IR: it parses back to the same module.
    try {
      IRModule parsed = script::ParseModule(text);
      EXPECT_TRUE(StructuralEqual(parsed, mod))
          << "reparsed module differs: " << StructuralDiff(parsed, mod);
    } catch (const Error& e) {
      ADD_FAILURE() << "the printed IR does not parse: " << e.what();
    }
    // (The packed-API form takes the packed calling convention, which the interpreter does not.)
    if (name == "tir.MakePackedAPI") break;
    std::vector<NDArray> got = Interpret(mod, inputs);
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_LT(MaxAbsDiff(got[k], expected[k]), 1e-5) << "argument " << k;
    }
  }
}

TEST(TIRPipeline, VectorAddFromScript) {
  IRModule mod = script::ParseModule(kVectorAddScript);
  CheckPipeline("vector_add", ScheduleVectorAdd(mod),
                {RandomArray({64}, 1), RandomArray({64}, 2), Zeros({64})});
}

TEST(TIRPipeline, TiledGemm) {
  CheckPipeline("gemm_4x16", ScheduledGemm(64, 64, 64, GemmTile{4, 16, 4}),
                {RandomArray({64, 64}, 3), RandomArray({64, 64}, 4), Zeros({64, 64})});
}

TEST(TIRPipeline, PredicatedRowSum) {
  CheckPipeline("row_sum_predicated", ScheduledRowSum(10, 37, 8),
                {RandomArray({10, 37}, 5), Zeros({10})});
}

TEST(TIRPipeline, PassesRunOutOfOrderNameThePassToRunFirst) {
  namespace tt = tir::transform;
  IRModule mod = ScheduledRowSum(10, 37, 8);
  // A user error (ValueError), not a minitvm bug (InternalError).
  EXPECT_MINITVM_ERROR(tt::FlattenBuffer()(mod), "ValueError",
                       "block \"root\" remains: run LowerOpaqueBlock");
  EXPECT_MINITVM_ERROR(tt::LowerOpaqueBlock()(mod), "ValueError",
                       "still has iterators: run ConvertBlocksToOpaque first");
  IRModule opaque = tt::ConvertBlocksToOpaque()(mod);
  EXPECT_MINITVM_ERROR(tt::LowerOpaqueBlock()(opaque), "ValueError",
                       "has one: run LowerInitBlock first");
  // In order, they run.
  EXPECT_NO_THROW(tt::FlattenBuffer()(
      tt::LowerOpaqueBlock()(tt::ConvertBlocksToOpaque()(tt::LowerInitBlock()(mod)))));
}

TEST(TIRPipeline, TheConfigKeysOfThePassesAreDeclared) {
  auto options = minitvm::transform::ListConfigOptions();
  auto has = [&](const std::string& key, const std::string& type) {
    return std::find(options.begin(), options.end(), std::make_pair(key, type)) != options.end();
  };
  EXPECT_TRUE(has("tir.disable_vectorize", "bool"));
  EXPECT_TRUE(has("tir.UnrollLoop.auto_max_step", "int"));
  minitvm::transform::PassContext ctx = minitvm::transform::PassContext::Create();
  ctx->config.Set(String("tir.disable_vectorise"), Any(true));  // misspelt
  EXPECT_MINITVM_ERROR(ctx.EnterWithScope(), "ValueError",
                       "unknown config key \"tir.disable_vectorise\"");
}

}  // namespace
}  // namespace minitvm
