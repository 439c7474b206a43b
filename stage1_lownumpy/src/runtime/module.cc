/*!
 * \file module.cc
 * \brief Runtime Module lookup, imports and the time evaluator (stage 1).
 */
#include "minitvm/runtime/module.h"

#include <algorithm>
#include <chrono>

#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime {

std::string ModuleNode::GetSource(const std::string& format) {
  MINITVM_THROW(ValueError) << "a " << kind() << " module has no source in format \"" << format
                            << "\"";
}

void ModuleNode::SaveToFile(const std::string& path, const std::string& format) {
  MINITVM_THROW(ValueError) << "a " << kind() << " module cannot be saved (to " << path << ")";
}

std::optional<PackedFunc> Module::GetFunction(const std::string& name, bool query_imports) const {
  if (!defined()) MINITVM_THROW(ValueError) << "GetFunction on an undefined module";
  if (auto f = mutable_node()->GetFunction(name)) return f;
  if (query_imports) {
    for (const Module& m : get()->imports) {
      if (auto f = m.GetFunction(name, true)) return f;
    }
  }
  return std::nullopt;
}

PackedFunc Module::operator[](const std::string& name) const {
  auto f = GetFunction(name);
  if (!f) {
    MINITVM_THROW(AttributeError) << "module of kind " << get()->kind() << " has no function \""
                                  << name << "\"";
  }
  return *f;
}

namespace {
/*! \brief True when `target` is `from` or is reachable from it through imports. */
bool Reaches(const ModuleNode* from, const ModuleNode* target) {
  if (from == target) return true;
  for (const Module& m : from->imports) {
    if (Reaches(m.get(), target)) return true;
  }
  return false;
}
}  // namespace

void Module::Import(const Module& other) const {
  if (!other.defined()) MINITVM_THROW(TypeError) << "import_module: expected a Module, not None";
  // A cycle would make every function lookup that misses recurse forever.
  if (Reaches(other.get(), get())) {
    MINITVM_THROW(ValueError) << "import_module: importing this module of kind " << other->kind()
                              << " would make a cycle of imports";
  }
  mutable_node()->imports.push_back(other);
}

std::vector<double> TimeEvaluate(const PackedFunc& func, PackedArgs args, Device dev, int number,
                                 int repeat, int min_repeat_ms) {
  using Clock = std::chrono::steady_clock;
  if (number < 1 || repeat < 1) {
    MINITVM_THROW(ValueError) << "time_evaluator: number and repeat must be >= 1 (got number="
                              << number << ", repeat=" << repeat << ")";
  }
  Any rv;
  func.CallPacked(args, &rv);  // warm up
  std::vector<double> results;
  for (int r = 0; r < repeat; ++r) {
    double seconds = 0;
    int n = number;
    while (true) {
      auto start = Clock::now();
      for (int i = 0; i < n; ++i) func.CallPacked(args, &rv);
      if (auto* api = DeviceAPI::Get(dev, true)) api->Synchronize(dev);
      seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (seconds * 1000 >= min_repeat_ms || min_repeat_ms <= 0) break;
      n = std::max(n * 2, static_cast<int>(n * (min_repeat_ms / std::max(seconds * 1000, 1e-3))));
    }
    results.push_back(seconds / n);
  }
  return results;
}

MINITVM_REGISTER_GLOBAL("runtime.ModuleGetFunction")
    .set_body_typed([](Module mod, std::string name, bool query_imports) -> Any {
      auto f = mod.GetFunction(name, query_imports);
      if (!f) return Any();
      return *f;
    });
MINITVM_REGISTER_GLOBAL("runtime.ModuleImport").set_body_typed([](Module mod, Module other) {
  mod.Import(other);
});
MINITVM_REGISTER_GLOBAL("runtime.ModuleImports").set_body_typed([](Module mod) {
  return Array<Module>(mod->imports);
});
MINITVM_REGISTER_GLOBAL("runtime.ModuleKind").set_body_typed([](Module mod) {
  return mod->kind();
});
MINITVM_REGISTER_GLOBAL("runtime.ModuleEntryName").set_body_typed([](Module mod) {
  return mod->entry_name;
});
MINITVM_REGISTER_GLOBAL("runtime.ModuleFunctionNames").set_body_typed([](Module mod) {
  auto names = mod->FunctionNames();
  return Array<String>(std::vector<String>(names.begin(), names.end()));
});
MINITVM_REGISTER_GLOBAL("runtime.ModuleGetSource").set_body_typed([](Module mod, std::string fmt) {
  return mod.mutable_node()->GetSource(fmt);
});
MINITVM_REGISTER_GLOBAL("runtime.ModuleSaveToFile")
    .set_body_typed([](Module mod, std::string path, std::string fmt) {
      mod.mutable_node()->SaveToFile(path, fmt);
    });
// Returns a PackedFunc that, called with the function's arguments, returns the per-repeat
// seconds as an Array<float>.
MINITVM_REGISTER_GLOBAL("runtime.TimeEvaluator")
    .set_body_typed([](Module mod, std::string name, Device dev, int number, int repeat,
                       int min_repeat_ms) {
      PackedFunc f = mod[name];
      return PackedFunc(
          [=](PackedArgs args, Any* rv) {
            std::vector<double> t = TimeEvaluate(f, args, dev, number, repeat, min_repeat_ms);
            *rv = Array<double>(t);
          },
          "time_evaluator(" + name + ")");
    });

}  // namespace runtime
}  // namespace minitvm
