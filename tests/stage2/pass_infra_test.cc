/*!
 * \file pass_infra_test.cc
 * \brief The pass infrastructure from C++ (stage 2): module passes, Sequential, PassContext
 * settings (opt_level, required and disabled passes, config), nested contexts, required
 * passes, and instruments written in C++ (the Python side is tests/python/test_transform.py).
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "minitvm/ir/text_diff.h"
#include "minitvm/ir/transform.h"
#include "minitvm/runtime/error.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace {

using runtime::PackedFunc;
using runtime::Registry;
using transform::CreateModulePass;
using transform::Pass;
using transform::PassContext;
using transform::PassInfo;
using transform::PassInstrument;
using transform::Sequential;

IRModule SmallModule() {
  return script::ParseModule(R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)
)");
}

/*! \brief A pass that appends its name to the module attribute "trail". */
Pass Mark(const std::string& name, int64_t opt_level = 0, Array<String> required = {}) {
  return CreateModulePass(
      [name](IRModule mod, PassContext) {
        std::string trail;
        if (auto t = mod->attrs.Get(String("trail"))) trail = t->cast<String>().str();
        IRModule out = mod;
        out.CopyOnWrite()->attrs.Set(String("trail"), String(trail + name + ";"));
        return out;
      },
      opt_level, name, std::move(required));
}

std::string Trail(const IRModule& mod) {
  auto t = mod->attrs.Get(String("trail"));
  return t ? t->cast<String>().str() : "";
}

TEST(PassInfra, SequentialRunsInOrderAndKeepsTheInputUnchanged) {
  IRModule mod = SmallModule();
  IRModule out = Sequential({Mark("a"), Mark("b"), Mark("c")})(mod);
  EXPECT_EQ(Trail(out), "a;b;c;");
  EXPECT_EQ(Trail(mod), "");  // passes copy on write
}

TEST(PassInfra, OptLevelRequiredAndDisabledPasses) {
  IRModule mod = SmallModule();
  Sequential seq({Mark("cheap", 1), Mark("costly", 3), Mark("always", 0)});
  PassContext ctx = PassContext::Create();
  ctx->opt_level = 2;
  EXPECT_EQ(Trail(seq(mod, ctx)), "cheap;always;");
  ctx->required_pass.push_back(String("costly"));
  EXPECT_EQ(Trail(seq(mod, ctx)), "cheap;costly;always;");
  ctx->disabled_pass.push_back(String("always"));
  EXPECT_EQ(Trail(seq(mod, ctx)), "cheap;costly;");
  // A leaf pass checks the context itself too.
  EXPECT_EQ(Trail(Mark("costly2", 3)(mod, ctx)), "");
}

TEST(PassInfra, NestedContextsAndConfig) {
  transform::RegisterConfigOption("demo.level", "int");  // a context refuses undeclared keys
  PassContext outer = PassContext::Create();
  outer->config.Set(String("demo.level"), Any(int64_t{7}));
  PassContext inner = PassContext::Create();
  {
    PassContext::Scope a(outer);
    EXPECT_TRUE(PassContext::Current().same_as(outer));
    EXPECT_EQ(PassContext::Current().GetConfig<int64_t>("demo.level", 0), 7);
    {
      PassContext::Scope b(inner);
      EXPECT_TRUE(PassContext::Current().same_as(inner));
      EXPECT_EQ(PassContext::Current().GetConfig<int64_t>("demo.level", -1), -1);
    }
    EXPECT_TRUE(PassContext::Current().same_as(outer));
  }
  EXPECT_FALSE(PassContext::Current().same_as(outer));
  // Leaving a context that is not the current one is an error, and changes nothing.
  inner.EnterWithScope();
  EXPECT_THROW(outer.ExitWithScope(), Error);
  EXPECT_TRUE(PassContext::Current().same_as(inner));
  inner.ExitWithScope();
}

TEST(PassInfra, RequiredPassesRunFirst) {
  // A registered pass, found by name as a requirement.
  Registry::Register("transform.pass_infra_test.Prepare", /*override=*/true).set_body_typed([]() {
    return Mark("prepare");
  });
  IRModule out = Sequential({Mark("main", 0, {"pass_infra_test.Prepare"})})(SmallModule());
  EXPECT_EQ(Trail(out), "prepare;main;");
  // A requirement that names no registered pass is an error, not a silent skip.
  try {
    Sequential({Mark("main", 0, {"pass_infra_test.Missing"})})(SmallModule());
    ADD_FAILURE() << "expected a ValueError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_NE(std::string(e.what()).find("requires the pass pass_infra_test.Missing"),
              std::string::npos)
        << e.what();
  }
  Pass prepare = transform::GetPassByName("pass_infra_test.Prepare").value();
  EXPECT_EQ(Trail(prepare(SmallModule())), "prepare;");
}

TEST(PassInfra, InstrumentsSeeEveryPassAndCanSkipOne) {
  std::vector<std::string> log;
  auto before = PackedFunc::FromTyped(
      [&](IRModule, PassInfo info) { log.push_back("before " + info->name.str()); });
  auto after = PackedFunc::FromTyped([&](IRModule mod, PassInfo info) {
    log.push_back("after " + info->name.str() + " -> " + Trail(mod));
  });
  auto should_run =
      PackedFunc::FromTyped([](IRModule, PassInfo info) { return info->name.str() != "skipped"; });
  auto enter = PackedFunc::FromTyped([&]() { log.push_back("enter"); });
  auto exit = PackedFunc::FromTyped([&]() { log.push_back("exit"); });
  PassContext ctx = PassContext::Create();
  ctx->instruments.push_back(PassInstrument("recorder", enter, exit, should_run, before, after));
  IRModule out;
  {
    PassContext::Scope scope(ctx);
    out = Sequential({Mark("a"), Mark("skipped"), Mark("b")}, "seq")(SmallModule());
  }
  EXPECT_EQ(Trail(out), "a;b;");
  std::vector<std::string> expected = {
      "enter",    "before seq",      "before a",          "after a -> a;",
      "before b", "after b -> a;b;", "after seq -> a;b;", "exit"};
  EXPECT_EQ(log, expected);
}

TEST(PassInfra, PrintingInstrumentsAndLineDiff) {
  EXPECT_EQ(transform::LineDiff("a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(transform::LineDiff("a\nb\nc\n", "a\nB\nc\n"),
            "--- before\n+++ after\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  // Far-apart changes make separate hunks; ranges are written as diff -u writes them.
  std::string many;
  for (int i = 0; i < 20; ++i) many += std::to_string(i) + "\n";
  std::string changed = many;
  changed.replace(0, 2, "X\n");                     // line 1
  changed.replace(changed.find("15\n"), 3, "Y\n");  // line 16
  EXPECT_EQ(UnifiedDiff(many, changed, "a", "b"),
            "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-0\n+X\n 1\n 2\n 3\n"
            "@@ -13,7 +13,7 @@\n 12\n 13\n 14\n-15\n+Y\n 16\n 17\n 18\n");
  EXPECT_EQ(UnifiedDiff("", "x\n"), "--- before\n+++ after\n@@ -0,0 +1 @@\n+x\n");
  EXPECT_NE(transform::ModuleText(SmallModule()).find("def main"), std::string::npos);
  EXPECT_EQ(transform::PrintDiffInstrument()->name.str().empty(), false);
  EXPECT_EQ(transform::PrintBeforeAfterInstrument()->name.str().empty(), false);
}

TEST(PassInfra, AnErrorInsideAPassLeavesTheInputAndTheContextStackIntact) {
  IRModule mod = SmallModule();
  Pass bad = CreateModulePass(
      [](IRModule, PassContext) -> IRModule { MINITVM_THROW(ValueError) << "bad pass"; }, 0, "bad");
  PassContext ctx = PassContext::Create();
  {
    PassContext::Scope scope(ctx);
    EXPECT_THROW(Sequential({Mark("a"), bad})(mod), Error);
    EXPECT_TRUE(PassContext::Current().same_as(ctx));
  }
  EXPECT_EQ(Trail(mod), "");
}

TEST(PassInfra, ConfigKeysMustBeDeclaredWithTheirType) {
  transform::RegisterConfigOption("demo.limit", "int");
  transform::RegisterConfigOption("demo.limit", "int");  // again with the same type: no-op
  EXPECT_MINITVM_ERROR(transform::RegisterConfigOption("demo.limit", "bool"), "ValueError",
                       "already declared as int");
  EXPECT_MINITVM_ERROR(transform::RegisterConfigOption("demo.x", "list"), "ValueError",
                       "bool, int, float or str");
  auto options = transform::ListConfigOptions();
  EXPECT_NE(std::find(options.begin(), options.end(),
                      std::make_pair(std::string("demo.limit"), std::string("int"))),
            options.end());

  Map<String, Any> config;
  config.Set(String("demo.limit"), Any(int64_t{3}));
  transform::CheckConfig(config);
  config.Set(String("unknown.key"), Any(int64_t{1}));
  EXPECT_MINITVM_ERROR(transform::CheckConfig(config), "ValueError",
                       "unknown config key \"unknown.key\"; the known keys are: ");
  EXPECT_MINITVM_ERROR(transform::CheckConfig(config), "ValueError", "demo.limit (int)");
  // A context with an undeclared key cannot be entered, and the stack stays as it was.
  PassContext ctx = PassContext::Create();
  ctx->config = config;
  EXPECT_MINITVM_ERROR(ctx.EnterWithScope(), "ValueError", "unknown.key");
  EXPECT_FALSE(PassContext::Current().same_as(ctx));
  // A value of the wrong type.
  Map<String, Any> typed;
  typed.Set(String("demo.limit"), Any(String("many")));
  EXPECT_MINITVM_ERROR(transform::CheckConfig(typed), "TypeError",
                       "config \"demo.limit\" takes a value of type int, not str");
  // From Python's side (the "transform.PassContext" global) the same check runs.
  std::optional<PackedFunc> make = Registry::Get("transform.PassContext");
  ASSERT_TRUE(make.has_value());
  EXPECT_MINITVM_ERROR(
      (*make)(int64_t{2}, Array<String>(), Array<String>(), config, Array<PassInstrument>()),
      "ValueError", "unknown.key");
}

TEST(PassInfra, UndefinedModulesAndPassesAreRefused) {
  // A pass called on an undefined module (None from Python; `IRModule()` is an empty module)
  // names the pass.
  IRModule none{ObjectPtr<Object>()};
  ASSERT_FALSE(none.defined());
  EXPECT_MINITVM_ERROR(Mark("m")(none), "TypeError", "pass m runs on an IRModule, not None");
  EXPECT_MINITVM_ERROR(Mark("m")(none, PassContext::Create()), "TypeError", "not None");
  EXPECT_MINITVM_ERROR(Sequential({Mark("a")}, "seq")(none), "TypeError", "seq");
  EXPECT_EQ(Trail(Mark("m")(IRModule())), "m;");  // an empty module is a module
  // A Sequential with an undefined pass names its position.
  EXPECT_MINITVM_ERROR(Sequential({Mark("a"), Pass()}, "seq"), "TypeError",
                       "Sequential seq: pass #1 is None");
  EXPECT_MINITVM_ERROR(Pass()(SmallModule()), "ValueError", "undefined Pass");
}

}  // namespace
}  // namespace minitvm
