/*!
 * \file minitvm/ir/transform.h
 * \brief The pass infrastructure (stage 2; the TIR lowering of stage 5 and the Relax passes
 * of stage 4 are built on it): a `Pass` is a named `IRModule → IRModule` function with an
 * optimisation level; `Sequential` runs a list of passes; a `PassContext`
 * holds the settings a pipeline runs under (opt_level, required/disabled passes, config) and
 * the instruments that can watch (print, diff, time) the module before and after each pass.
 *
 * Usage, as in TVM:
 * \code
 *   PassContext ctx = PassContext::Create();
 *   ctx->opt_level = 3;
 *   ctx->instruments.push_back(PrintBeforeAfterInstrument());
 *   PassContext::Scope scope(ctx);
 *   IRModule lowered = Sequential({LowerInitBlock(), FlattenBuffer()})(mod);
 * \endcode
 * Every class here is reachable from Python through the "transform.*" globals.
 */
#ifndef MINITVM_IR_TRANSFORM_H_
#define MINITVM_IR_TRANSFORM_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/packed_func.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace transform {

using runtime::PackedFunc;

/*! \brief Metadata of a pass: name, optimisation level and the passes it requires. */
class PassInfoNode : public Object {
 public:
  /*! \brief The pass's name ("tir.FlattenBuffer"). */
  String name;
  /*! \brief The pass runs when the context's opt_level is at least this. */
  int64_t opt_level = 0;
  /*! \brief Passes this one needs to have run before it. */
  Array<String> required;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("name", &name);
    v->Visit("opt_level", &opt_level);
    v->Visit("required", &required);
  }
  MINITVM_DECLARE_OBJECT_INFO(PassInfoNode, Object, "transform.PassInfo");
};
/*! \brief Handle to PassInfoNode. */
class PassInfo : public ObjectRef {
 public:
  PassInfo(int64_t opt_level, String name, Array<String> required = {});
  MINITVM_DEFINE_OBJECT_REF_METHODS(PassInfo, ObjectRef, PassInfoNode);
};

/*!
 * \brief Watches passes run. Each hook is an optional PackedFunc so that Python callables can
 * be instruments too; `should_run(mod, info) -> bool`, `run_before_pass(mod, info)`,
 * `run_after_pass(mod, info)`, `enter_pass_ctx()`, `exit_pass_ctx()`.
 */
class PassInstrumentNode : public Object {
 public:
  /*! \brief The instrument's name. */
  String name;
  /*! \brief Called when a PassContext holding it is entered. */
  std::optional<PackedFunc> enter_pass_ctx;
  /*! \brief Called when it is left. */
  std::optional<PackedFunc> exit_pass_ctx;
  /*! \brief (mod, info) -> bool: false skips the pass. */
  std::optional<PackedFunc> should_run;
  /*! \brief (mod, info): called before each pass. */
  std::optional<PackedFunc> run_before_pass;
  /*! \brief (mod, info): called after each pass. */
  std::optional<PackedFunc> run_after_pass;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("name", &name); }
  MINITVM_DECLARE_OBJECT_INFO(PassInstrumentNode, Object, "transform.PassInstrument");
};
/*! \brief Handle to PassInstrumentNode. */
class PassInstrument : public ObjectRef {
 public:
  /*! \brief An instrument from hooks; any may be nullopt. */
  PassInstrument(String name, std::optional<PackedFunc> enter_pass_ctx,
                 std::optional<PackedFunc> exit_pass_ctx, std::optional<PackedFunc> should_run,
                 std::optional<PackedFunc> run_before_pass,
                 std::optional<PackedFunc> run_after_pass);
  MINITVM_DEFINE_OBJECT_REF_METHODS(PassInstrument, ObjectRef, PassInstrumentNode);
};

/*!
 * \brief Declare a PassContext config key and the type of its value: "bool", "int", "float" or
 * "str" (TVM's TVM_REGISTER_PASS_CONFIG_OPTION). A PassContext refuses keys nobody declared, so
 * a misspelt option is an error and not silently ignored. The pass that reads a key declares
 * it, in its own source file; declaring a key again with the same type does nothing, with
 * another type is a ValueError. Thread-safe.
 */
void RegisterConfigOption(const std::string& name, const std::string& type);
/*!
 * \brief Declare a config key at load time, in the file of the pass that reads it:
 * `MINITVM_REGISTER_PASS_CONFIG_OPTION("tir.disable_vectorize", "bool");`
 */
#define MINITVM_REGISTER_PASS_CONFIG_OPTION(name, type)                               \
  [[maybe_unused]] static const bool MINITVM_STR_CONCAT(_minitvm_cfg_, __COUNTER__) = \
      (::minitvm::transform::RegisterConfigOption(name, type), true)
/*! \brief The declared config keys and their types, sorted by key. */
std::vector<std::pair<std::string, std::string>> ListConfigOptions();
/*!
 * \brief ValueError naming the key and listing the declared ones when a key of `config` was
 * not declared; TypeError when a value does not have its key's type.
 */
void CheckConfig(const Map<String, Any>& config);

/*! \brief The settings passes run under, and the instruments that watch them. */
class PassContextNode : public Object {
 public:
  /*! \brief Passes whose opt_level is above this are skipped (unless required). */
  int64_t opt_level = 2;
  /*! \brief Passes run whatever their level. */
  Array<String> required_pass;
  /*! \brief Passes never run. */
  Array<String> disabled_pass;
  /*!
   * \brief Options read by passes, e.g. "tir.disable_vectorize": true; every key must be
   * declared with RegisterConfigOption (checked when the context is made from Python and when
   * it is entered).
   */
  Map<String, Any> config;
  /*! \brief Instruments called around each pass. */
  Array<PassInstrument> instruments;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("opt_level", &opt_level);
    v->Visit("required_pass", &required_pass);
    v->Visit("disabled_pass", &disabled_pass);
    v->Visit("config", &config);
    v->Visit("instruments", &instruments);
  }
  MINITVM_DECLARE_OBJECT_INFO(PassContextNode, Object, "transform.PassContext");
};

/*! \brief Handle to PassContextNode; contexts nest (`Scope`), `Current()` is the innermost. */
class PassContext : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(PassContext, ObjectRef, PassContextNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(PassContextNode);
  /*! \brief Contexts are configured in place before they are entered, as in TVM. */
  PassContextNode* operator->() { return static_cast<PassContextNode*>(data_.get()); }

  /*! \brief A fresh context with the defaults (opt_level 2). */
  static PassContext Create();
  /*! \brief The innermost entered context on this thread, or a default one. */
  static PassContext Current();
  /*!
   * \brief Make this the current context (runs the instruments' enter hooks); CheckConfig
   * first.
   */
  void EnterWithScope() const;
  /*! \brief Leave; RuntimeError when this is not the current context. */
  void ExitWithScope() const;
  /*! \brief True when the pass runs under this context (level, required, disabled). */
  bool PassEnabled(const PassInfo& info) const;
  /*! \brief A config value converted to T, or `fallback` when absent. */
  template <typename T>
  T GetConfig(const std::string& key, T fallback) const {
    if (auto v = get()->config.Get(String(key))) return v->cast<T>();
    return fallback;
  }
  /*! \brief Instrument hooks; false from InstrumentBeforePass means "skip this pass". */
  bool InstrumentBeforePass(const IRModule& mod, const PassInfo& info) const;
  void InstrumentAfterPass(const IRModule& mod, const PassInfo& info) const;

  class Scope;
};

/*! \brief RAII: enter a context for the lifetime of the object. */
class PassContext::Scope {
 public:
  explicit Scope(PassContext ctx) : ctx_(std::move(ctx)) { ctx_.EnterWithScope(); }
  ~Scope() noexcept(false) { ctx_.ExitWithScope(); }
  Scope(const Scope&) = delete;

 private:
  /*! \brief The context this scope made current. */
  PassContext ctx_;
};

/*! \brief A pass: metadata plus the function that transforms a module. */
class PassNode : public Object {
 public:
  /*! \brief Name, opt_level and required passes. */
  PassInfo info;
  /*! \brief Transform without instruments or enabling checks (Pass::operator() adds them). */
  virtual IRModule Run(IRModule mod, const PassContext& ctx) const = 0;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("info", &info); }
  MINITVM_DECLARE_OBJECT_INFO(PassNode, Object, "transform.Pass");
};

/*! \brief Handle to a pass; call it on a module. */
class Pass : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(Pass, ObjectRef, PassNode);
  /*! \brief Run under the current PassContext. */
  IRModule operator()(IRModule mod) const;
  /*!
   * \brief Run under `ctx`: skipped when the context disables it, instruments are called
   * before and after.
   */
  IRModule operator()(IRModule mod, const PassContext& ctx) const;
  const PassInfo& info() const { return get()->info; }
};

/*! \brief A pass made from a function over the whole module. */
class ModulePassNode : public PassNode {
 public:
  std::function<IRModule(IRModule, PassContext)> func;
  IRModule Run(IRModule mod, const PassContext& ctx) const override;
  MINITVM_DECLARE_OBJECT_INFO(ModulePassNode, PassNode, "transform.ModulePass");
};

/*! \brief Runs passes in order; each nested pass is checked against the context itself. */
class SequentialNode : public PassNode {
 public:
  /*! \brief The passes, run in order. */
  Array<Pass> passes;
  IRModule Run(IRModule mod, const PassContext& ctx) const override;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("info", &info);
    v->Visit("passes", &passes);
  }
  MINITVM_DECLARE_OBJECT_INFO(SequentialNode, PassNode, "transform.Sequential");
};
/*! \brief Handle to SequentialNode. */
class Sequential : public Pass {
 public:
  explicit Sequential(Array<Pass> passes, String name = "sequential", int64_t opt_level = 0);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Sequential, Pass, SequentialNode);
};

/*! \brief A module-level pass from a C++ function. */
Pass CreateModulePass(std::function<IRModule(IRModule, PassContext)> func, int64_t opt_level,
                      String name, Array<String> required = {});

/*! \brief The registered pass named `name` (the global "transform.pass.<name>"). */
std::optional<Pass> GetPassByName(const std::string& name);

/*! \brief An instrument that prints the module before and after every pass. */
PassInstrument PrintBeforeAfterInstrument();
/*! \brief An instrument that prints a line diff of the module across every pass. */
PassInstrument PrintDiffInstrument();
/*! \brief The text of a module as instruments print it (TVMScript when available). */
std::string ModuleText(const IRModule& mod);
/*! \brief UnifiedDiff(before, after) (text_diff.h): `diff -u` form; empty when equal. */
std::string LineDiff(const std::string& before, const std::string& after);

}  // namespace transform
}  // namespace minitvm

#endif  // MINITVM_IR_TRANSFORM_H_
