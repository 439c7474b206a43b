/*!
 * \file transform.cc
 * \brief The pass infrastructure (stage 2): PassContext and its per-thread stack, running a
 * pass with its instruments, Sequential, module passes, the printing instruments and the
 * "transform.*" globals that Python uses.
 */
#include "minitvm/ir/transform.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "minitvm/ir/text_diff.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace transform {

using runtime::Registry;

PassInfo::PassInfo(int64_t opt_level, String name, Array<String> required) {
  auto n = make_object<PassInfoNode>();
  n->opt_level = opt_level;
  n->name = std::move(name);
  n->required = std::move(required);
  data_ = std::move(n);
}

PassInstrument::PassInstrument(String name, std::optional<PackedFunc> enter_pass_ctx,
                               std::optional<PackedFunc> exit_pass_ctx,
                               std::optional<PackedFunc> should_run,
                               std::optional<PackedFunc> run_before_pass,
                               std::optional<PackedFunc> run_after_pass) {
  auto n = make_object<PassInstrumentNode>();
  n->name = std::move(name);
  n->enter_pass_ctx = std::move(enter_pass_ctx);
  n->exit_pass_ctx = std::move(exit_pass_ctx);
  n->should_run = std::move(should_run);
  n->run_before_pass = std::move(run_before_pass);
  n->run_after_pass = std::move(run_after_pass);
  data_ = std::move(n);
}

// ---- PassContext -------------------------------------------------------------------------

namespace {
/*! \brief The entered contexts of this thread, innermost last. */
std::vector<PassContext>& ContextStack() {
  thread_local std::vector<PassContext> stack;
  return stack;
}
bool Contains(const Array<String>& names, const std::string& name) {
  for (const String& s : names) {
    if (s.str() == name) return true;
  }
  return false;
}
}  // namespace

// ---- config options ------------------------------------------------------------------------

namespace {
struct ConfigRegistry {
  std::mutex mutex;
  std::map<std::string, std::string> types;  // key -> "bool" / "int" / "float" / "str"
};
ConfigRegistry& Configs() {
  static ConfigRegistry* registry = new ConfigRegistry();  // never destroyed: used at exit
  return *registry;
}
bool HasType(const Any& v, const std::string& type) {
  if (type == "bool" || type == "int") return v.is_bool() || v.is_int();
  if (type == "float") return v.is_float() || v.is_int();
  return v.is_string();
}
}  // namespace

void RegisterConfigOption(const std::string& name, const std::string& type) {
  if (type != "bool" && type != "int" && type != "float" && type != "str") {
    MINITVM_THROW(ValueError) << "config option \"" << name << "\": the type must be bool, int, "
                              << "float or str, not \"" << type << "\"";
  }
  if (name.empty()) MINITVM_THROW(ValueError) << "a config option needs a name";
  ConfigRegistry& r = Configs();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto [it, fresh] = r.types.emplace(name, type);
  if (!fresh && it->second != type) {
    MINITVM_THROW(ValueError) << "config option \"" << name << "\" is already declared as "
                              << it->second << ", not " << type;
  }
}

std::vector<std::pair<std::string, std::string>> ListConfigOptions() {
  ConfigRegistry& r = Configs();
  std::lock_guard<std::mutex> lock(r.mutex);
  return {r.types.begin(), r.types.end()};
}

void CheckConfig(const Map<String, Any>& config) {
  if (config.empty()) return;
  std::vector<std::pair<std::string, std::string>> known = ListConfigOptions();
  for (const auto& item : config.items()) {
    const String& key = item.first;
    const Any& value = item.second;
    auto it = std::find_if(known.begin(), known.end(),
                           [&](const auto& kv) { return kv.first == key.str(); });
    if (it == known.end()) {
      std::ostringstream names;
      for (const auto& [k, t] : known)
        names << (names.tellp() > 0 ? ", " : "") << k << " (" << t << ")";
      MINITVM_THROW(ValueError) << "PassContext: unknown config key \"" << key.str()
                                << "\"; the known keys are: "
                                << (known.empty() ? std::string("none") : names.str())
                                << " (a pass declares its keys with RegisterConfigOption)";
    }
    if (!HasType(value, it->second)) {
      MINITVM_THROW(TypeError) << "PassContext: config \"" << key.str()
                               << "\" takes a value of type " << it->second << ", not "
                               << value.type_name();
    }
  }
}

PassContext PassContext::Create() { return PassContext(make_object<PassContextNode>()); }

PassContext PassContext::Current() {
  auto& stack = ContextStack();
  if (!stack.empty()) return stack.back();
  // A default context per thread, so that instruments never leak between threads.
  thread_local PassContext default_ctx = Create();
  return default_ctx;
}

void PassContext::EnterWithScope() const {
  CheckConfig(get()->config);
  for (const PassInstrument& pi : get()->instruments) {
    if (pi->enter_pass_ctx) (*pi->enter_pass_ctx)();
  }
  ContextStack().push_back(*this);
}

void PassContext::ExitWithScope() const {
  auto& stack = ContextStack();
  if (stack.empty() || !stack.back().same_as(*this)) {
    MINITVM_THROW(RuntimeError) << "PassContext: exiting a context that is not the current one";
  }
  stack.pop_back();
  for (const PassInstrument& pi : get()->instruments) {
    if (pi->exit_pass_ctx) (*pi->exit_pass_ctx)();
  }
}

bool PassContext::PassEnabled(const PassInfo& info) const {
  const std::string name = info->name.str();
  if (Contains(get()->disabled_pass, name)) return false;
  if (Contains(get()->required_pass, name)) return true;
  return info->opt_level <= get()->opt_level;
}

bool PassContext::InstrumentBeforePass(const IRModule& mod, const PassInfo& info) const {
  for (const PassInstrument& pi : get()->instruments) {
    if (pi->should_run && !(*pi->should_run)(mod, info).cast<bool>()) return false;
  }
  for (const PassInstrument& pi : get()->instruments) {
    if (pi->run_before_pass) (*pi->run_before_pass)(mod, info);
  }
  return true;
}

void PassContext::InstrumentAfterPass(const IRModule& mod, const PassInfo& info) const {
  for (const PassInstrument& pi : get()->instruments) {
    if (pi->run_after_pass) (*pi->run_after_pass)(mod, info);
  }
}

// ---- passes ------------------------------------------------------------------------------

IRModule Pass::operator()(IRModule mod) const { return (*this)(mod, PassContext::Current()); }

IRModule Pass::operator()(IRModule mod, const PassContext& ctx) const {
  if (!defined()) MINITVM_THROW(ValueError) << "calling an undefined Pass";
  if (!mod.defined()) {
    MINITVM_THROW(TypeError) << "pass " << info()->name << " runs on an IRModule, not None";
  }
  // A Sequential decides per nested pass; a leaf pass is checked here.
  bool is_sequential = get()->IsInstance<SequentialNode>();
  if (!is_sequential && !ctx.PassEnabled(info())) return mod;
  if (!ctx.InstrumentBeforePass(mod, info())) return mod;
  IRModule result = get()->Run(mod, ctx);
  ctx.InstrumentAfterPass(result, info());
  return result;
}

IRModule ModulePassNode::Run(IRModule mod, const PassContext& ctx) const { return func(mod, ctx); }

Sequential::Sequential(Array<Pass> passes, String name, int64_t opt_level) {
  for (size_t i = 0; i < passes.size(); ++i) {
    if (!passes[i].defined()) {
      MINITVM_THROW(TypeError) << "Sequential " << name << ": pass #" << i << " is None";
    }
  }
  auto n = make_object<SequentialNode>();
  n->info = PassInfo(opt_level, std::move(name));
  n->passes = std::move(passes);
  data_ = std::move(n);
}

IRModule SequentialNode::Run(IRModule mod, const PassContext& ctx) const {
  for (const Pass& pass : passes) {
    // A pass required by an enabled pass runs first (once per Sequential run).
    if (!ctx.PassEnabled(pass.info()) && !pass->IsInstance<SequentialNode>()) continue;
    for (const String& req : pass.info()->required) {
      std::optional<Pass> p = GetPassByName(req.str());
      if (!p) {
        MINITVM_THROW(ValueError) << "pass " << pass.info()->name << " requires the pass " << req
                                  << ", which is not registered (looked for tir.transform." << req
                                  << ", transform." << req << " and relax.transform." << req << ")";
      }
      mod = (*p)(mod, ctx);
    }
    mod = pass(mod, ctx);
  }
  return mod;
}

Pass CreateModulePass(std::function<IRModule(IRModule, PassContext)> func, int64_t opt_level,
                      String name, Array<String> required) {
  auto n = make_object<ModulePassNode>();
  n->info = PassInfo(opt_level, std::move(name), std::move(required));
  n->func = std::move(func);
  return Pass(std::move(n));
}

std::optional<Pass> GetPassByName(const std::string& name) {
  for (const char* prefix : {"tir.transform.", "transform.", "relax.transform."}) {
    if (auto f = Registry::Get(prefix + name)) {
      Any p = (*f)();
      if (auto pass = p.try_cast<Pass>()) return *pass;
    }
  }
  return std::nullopt;
}

// ---- printing instruments ----------------------------------------------------------------

std::string ModuleText(const IRModule& mod) { return runtime::Repr(mod); }

std::string LineDiff(const std::string& before, const std::string& after) {
  return UnifiedDiff(before, after);
}

PassInstrument PrintBeforeAfterInstrument() {
  PackedFunc before = PackedFunc::FromTyped([](IRModule mod, PassInfo info) {
    std::cout << "# Before " << info->name.str() << "\n" << ModuleText(mod) << "\n";
  });
  PackedFunc after = PackedFunc::FromTyped([](IRModule mod, PassInfo info) {
    std::cout << "# After " << info->name.str() << "\n" << ModuleText(mod) << "\n";
  });
  return PassInstrument("PrintBeforeAfter", std::nullopt, std::nullopt, std::nullopt, before,
                        after);
}

PassInstrument PrintDiffInstrument() {
  // The text before the pass is kept between the two hooks.
  auto last = std::make_shared<std::string>();
  PackedFunc before =
      PackedFunc::FromTyped([last](IRModule mod, PassInfo info) { *last = ModuleText(mod); });
  PackedFunc after = PackedFunc::FromTyped([last](IRModule mod, PassInfo info) {
    std::string diff = UnifiedDiff(*last, ModuleText(mod), "before " + info->name.str(),
                                   "after " + info->name.str());
    std::cout << "# " << info->name.str() << (diff.empty() ? ": no change\n" : "\n") << diff;
  });
  return PassInstrument("PrintDiff", std::nullopt, std::nullopt, std::nullopt, before, after);
}

// ---- globals -----------------------------------------------------------------------------

namespace {
std::optional<PackedFunc> OptFunc(const Any& a) {
  if (a.is_null()) return std::nullopt;
  return a.cast<PackedFunc>();
}
}  // namespace

MINITVM_REGISTER_GLOBAL("transform.PassInfo")
    .set_body_typed([](int64_t opt_level, String name, Array<String> required) {
      return PassInfo(opt_level, std::move(name), std::move(required));
    });
MINITVM_REGISTER_GLOBAL("transform.PassContext")
    .set_body_typed([](int64_t opt_level, Array<String> required, Array<String> disabled,
                       Map<String, Any> config, Array<PassInstrument> instruments) {
      PassContext ctx = PassContext::Create();
      ctx->opt_level = opt_level;
      ctx->required_pass = std::move(required);
      ctx->disabled_pass = std::move(disabled);
      CheckConfig(config);
      ctx->config = std::move(config);
      ctx->instruments = std::move(instruments);
      return ctx;
    });
MINITVM_REGISTER_GLOBAL("transform.RegisterConfigOption")
    .set_body_typed([](std::string name, std::string type) { RegisterConfigOption(name, type); });
MINITVM_REGISTER_GLOBAL("transform.ListConfigOptions").set_body_typed([]() {
  Map<String, String> out;
  for (const auto& [k, t] : ListConfigOptions()) out.Set(String(k), String(t));
  return out;
});
MINITVM_REGISTER_GLOBAL("transform.GetCurrentPassContext").set_body_typed([]() {
  return PassContext::Current();
});
MINITVM_REGISTER_GLOBAL("transform.EnterPassContext").set_body_typed([](PassContext ctx) {
  ctx.EnterWithScope();
});
MINITVM_REGISTER_GLOBAL("transform.ExitPassContext").set_body_typed([](PassContext ctx) {
  ctx.ExitWithScope();
});
MINITVM_REGISTER_GLOBAL("transform.PassContextSetInstruments")
    .set_body_typed([](PassContext ctx, Array<PassInstrument> instruments) {
      ctx->instruments = std::move(instruments);
    });
MINITVM_REGISTER_GLOBAL("transform.PassEnabled").set_body_typed([](PassContext ctx, Pass pass) {
  return ctx.PassEnabled(pass.info());
});
MINITVM_REGISTER_GLOBAL("transform.RunPass").set_body_typed([](Pass pass, IRModule mod) {
  return pass(mod);
});
MINITVM_REGISTER_GLOBAL("transform.Info").set_body_typed([](Pass pass) { return pass.info(); });
MINITVM_REGISTER_GLOBAL("transform.Sequential")
    .set_body_typed([](Array<Pass> passes, int64_t opt_level, String name) {
      return Sequential(std::move(passes), std::move(name), opt_level);
    });
MINITVM_REGISTER_GLOBAL("transform.SequentialPasses").set_body_typed([](Sequential seq) {
  return seq->passes;
});
// A module pass from a packed function (mod, ctx) -> mod, e.g. a Python-defined pass.
MINITVM_REGISTER_GLOBAL("transform.MakeModulePass")
    .set_body_typed([](PackedFunc f, int64_t opt_level, String name, Array<String> required) {
      return CreateModulePass(
          [f](IRModule mod, PassContext ctx) { return f(mod, ctx).cast<IRModule>(); }, opt_level,
          std::move(name), std::move(required));
    });
MINITVM_REGISTER_GLOBAL("transform.GetPass").set_body_typed([](std::string name) {
  auto p = GetPassByName(name);
  if (!p) MINITVM_THROW(ValueError) << "no pass named \"" << name << "\"";
  return *p;
});
MINITVM_REGISTER_GLOBAL("transform.PassInstrument").set_body([](runtime::PackedArgs args, Any* rv) {
  if (args.size() != 6) {
    MINITVM_THROW(TypeError) << "transform.PassInstrument expects 6 arguments (name, "
                                "enter, exit, should_run, before, after)";
  }
  *rv = PassInstrument(args[0].cast<String>(), OptFunc(args[1]), OptFunc(args[2]), OptFunc(args[3]),
                       OptFunc(args[4]), OptFunc(args[5]));
});
MINITVM_REGISTER_GLOBAL("transform.PrintBeforeAfter").set_body_typed([]() {
  return PrintBeforeAfterInstrument();
});
MINITVM_REGISTER_GLOBAL("transform.PrintDiff").set_body_typed([]() {
  return PrintDiffInstrument();
});
MINITVM_REGISTER_GLOBAL("transform.ModuleText").set_body_typed([](IRModule mod) {
  return ModuleText(mod);
});
MINITVM_REGISTER_GLOBAL("transform.LineDiff").set_body_typed([](std::string a, std::string b) {
  return LineDiff(a, b);
});

}  // namespace transform
}  // namespace minitvm
