/*!
 * \file runtime_module_test.cc
 * \brief Tests of the runtime Module (stage 1) with a tiny module kind defined here: lookup
 * of its own functions, lookup through imports, the AttributeError for a missing function,
 * the default GetSource/SaveToFile errors, and the registered module functions.
 */
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "minitvm/runtime/module.h"
#include "minitvm/runtime/registry.h"
#include "minitvm_test_util.h"

using namespace minitvm::runtime;  // NOLINT

namespace {

/*! \brief A module whose functions are a fixed table of typed lambdas. */
class TableModuleNode : public ModuleNode {
 public:
  std::string kind() const override { return "table"; }
  std::optional<PackedFunc> GetFunction(const std::string& name) override {
    auto it = funcs.find(name);
    if (it == funcs.end()) return std::nullopt;
    return it->second;
  }
  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (const auto& kv : funcs) names.push_back(kv.first);
    return names;
  }
  std::map<std::string, PackedFunc> funcs;
  MINITVM_DECLARE_OBJECT_INFO(TableModuleNode, ModuleNode, "testing.TableModule");
};

Module MakeTableModule(std::map<std::string, PackedFunc> funcs) {
  auto n = make_object<TableModuleNode>();
  n->funcs = std::move(funcs);
  return Module(ObjectPtr<Object>(std::move(n)));
}

}  // namespace

TEST(Module, LookupAndImports) {
  Module lib = MakeTableModule({{"twice", PackedFunc::FromTyped([](int x) { return 2 * x; })}});
  Module main = MakeTableModule({{"main", PackedFunc::FromTyped([](int x) { return x + 1; })}});
  EXPECT_EQ(main["main"](1).cast<int>(), 2);
  EXPECT_FALSE(main.GetFunction("twice").has_value());
  main.Import(lib);
  EXPECT_EQ(main["twice"](4).cast<int>(), 8);  // found through the import
  EXPECT_FALSE(main.GetFunction("twice", /*query_imports=*/false).has_value());
  EXPECT_EQ(main->imports.size(), 1u);
  EXPECT_EQ(main->kind(), "table");
  EXPECT_EQ(main->GetTypeKey(), "testing.TableModule");
  EXPECT_EQ(main->entry_name, "main");
  EXPECT_EQ(main->FunctionNames(), (std::vector<std::string>{"main"}));
  EXPECT_MINITVM_ERROR(main["nope"], "AttributeError",
                       "module of kind table has no function \"nope\"");
  EXPECT_MINITVM_ERROR(Module().GetFunction("x"), "ValueError", "undefined module");
  EXPECT_MINITVM_ERROR(main.mutable_node()->GetSource("ll"), "ValueError",
                       "a table module has no source in format \"ll\"");
  EXPECT_MINITVM_ERROR(main.mutable_node()->SaveToFile("/tmp/x.so", "so"), "ValueError",
                       "cannot be saved");
}

TEST(Module, ImportCyclesAreRefused) {
  // A cycle made every lookup that misses recurse until the stack overflowed.
  Module a = MakeTableModule({});
  Module b = MakeTableModule({});
  EXPECT_MINITVM_ERROR(a.Import(a), "ValueError", "cycle of imports");
  a.Import(b);
  EXPECT_MINITVM_ERROR(b.Import(a), "ValueError", "cycle of imports");
  EXPECT_EQ(b->imports.size(), 0u);
  EXPECT_FALSE(a.GetFunction("nope").has_value());
}

TEST(Module, RegisteredModuleFunctions) {
  Module lib = MakeTableModule({{"f", PackedFunc::FromTyped([]() { return 7; })}});
  Module main = MakeTableModule({});
  Registry::GetOrThrow("runtime.ModuleImport")(main, lib);
  Any f = Registry::GetOrThrow("runtime.ModuleGetFunction")(main, "f", true);
  EXPECT_EQ(f.cast<PackedFunc>()().cast<int>(), 7);
  EXPECT_TRUE(Registry::GetOrThrow("runtime.ModuleGetFunction")(main, "f", false).is_null());
  EXPECT_EQ(Registry::GetOrThrow("runtime.ModuleKind")(main).cast<std::string>(), "table");
  auto imports = Registry::GetOrThrow("runtime.ModuleImports")(main).cast<Array<Module>>();
  ASSERT_EQ(imports.size(), 1u);
  EXPECT_TRUE(imports[0].same_as(lib));
  auto names = Registry::GetOrThrow("runtime.ModuleFunctionNames")(lib).cast<Array<String>>();
  EXPECT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "f");
}

TEST(Module, TimeEvaluator) {
  Module m = MakeTableModule({{"f", PackedFunc::FromTyped([](int x) { return x; })}});
  Any args[1] = {Any(1)};
  std::vector<double> t = TimeEvaluate(m["f"], PackedArgs(args, 1), CPU(), 3, 2, 0);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_GE(t[0], 0.0);
  EXPECT_MINITVM_ERROR(TimeEvaluate(m["f"], PackedArgs(args, 1), CPU(), 0, 1, 0), "ValueError",
                       "number and repeat must be >= 1");
}
