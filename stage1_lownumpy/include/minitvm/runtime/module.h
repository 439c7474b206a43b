/*!
 * \file minitvm/runtime/module.h
 * \brief Runtime `Module` (stage 1): a collection of compiled functions found by name, with
 * imported modules. The TIR interpreter (stage 2), the LLVM JIT and shared libraries
 * (stage 5) are modules.
 */
#ifndef MINITVM_RUNTIME_MODULE_H_
#define MINITVM_RUNTIME_MODULE_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/runtime/packed_func.h"

namespace minitvm {
namespace runtime {

class Module;

/*! \brief The node of a Module; each kind of module subclasses it. */
class ModuleNode : public Object {
 public:
  /*! \brief The kind of module: "ref", "llvm", "library", "cuda". */
  virtual std::string kind() const = 0;
  /*! \brief A function defined by this module itself, or nullopt. */
  virtual std::optional<PackedFunc> GetFunction(const std::string& name) = 0;
  /*! \brief Names of the functions this module defines. */
  virtual std::vector<std::string> FunctionNames() const { return {}; }
  /*! \brief Source text in a format ("ll", "asm", "tir", "cu", ""); ValueError if unknown. */
  virtual std::string GetSource(const std::string& format);
  /*! \brief Write the module to a file (e.g. a shared library); ValueError if unsupported. */
  virtual void SaveToFile(const std::string& path, const std::string& format);

  std::vector<Module> imports;
  /*! \brief The function `mod(...)` calls. */
  std::string entry_name = "main";
  MINITVM_DECLARE_OBJECT_INFO(ModuleNode, Object, "runtime.Module");
};

/*! \brief Handle to a runtime module. */
class Module : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(Module, ObjectRef, ModuleNode);
  /*! \brief Look up a function here, then in the imports; nullopt when absent. */
  std::optional<PackedFunc> GetFunction(const std::string& name, bool query_imports = true) const;
  /*! \brief Like GetFunction, but AttributeError naming the function when missing. */
  PackedFunc operator[](const std::string& name) const;
  void Import(const Module& other) const;
  ModuleNode* mutable_node() const { return static_cast<ModuleNode*>(get_mutable()); }
};

/*!
 * \brief Time `func` like TVM's time_evaluator: `repeat` measurements, each the mean of
 * `number` calls (grown until one measurement lasts `min_repeat_ms`). Seconds per call.
 */
std::vector<double> TimeEvaluate(const PackedFunc& func, PackedArgs args, Device dev, int number,
                                 int repeat, int min_repeat_ms);

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_MODULE_H_
