/*!
 * \file minitvm/ir/module.h
 * \brief `IRModule` (stage 2): the unit every pass and build takes — a map from GlobalVar to
 * function (TIR PrimFuncs now, Relax functions from stage 4) plus module attributes.
 */
#ifndef MINITVM_IR_MODULE_H_
#define MINITVM_IR_MODULE_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/function.h"

namespace minitvm {

/*! \brief The node of an IRModule. Functions keep insertion order for printing. */
class IRModuleNode : public Object {
 public:
  /*! \brief The functions, by global variable. */
  Map<GlobalVar, BaseFunc> functions;
  /*! \brief Module attributes. */
  Map<String, Any> attrs;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("functions", &functions);
    v->Visit("attrs", &attrs);
  }
  /*! \brief The GlobalVar named `name`, or nullopt. */
  std::optional<GlobalVar> GetGlobalVar(const std::string& name) const;
  /*! \brief The function named `name`; ValueError listing the names when absent. */
  BaseFunc Lookup(const std::string& name) const;
  BaseFunc Lookup(const GlobalVar& gv) const;
  bool ContainGlobalVar(const std::string& name) const { return GetGlobalVar(name).has_value(); }
  std::vector<GlobalVar> GetGlobalVars() const;
  MINITVM_DECLARE_OBJECT_INFO(IRModuleNode, Object, "ir.IRModule");
};

class IRModule : public ObjectRef {
 public:
  /*! \brief A module from functions (keyed by GlobalVar). */
  explicit IRModule(Map<GlobalVar, BaseFunc> functions, Map<String, Any> attrs = {});
  /*! \brief A module from name → function, like `tvm.IRModule({"main": f})`. */
  static IRModule FromNamed(const std::vector<std::pair<std::string, BaseFunc>>& funcs);
  /*! \brief Add or replace the function with this GlobalVar's name (copy-on-write). */
  void Add(const GlobalVar& gv, const BaseFunc& func, bool allow_replace = true);
  void Remove(const GlobalVar& gv);
  BaseFunc operator[](const std::string& name) const { return get()->Lookup(name); }
  /*! \brief An empty module. (Use `IRModule(nullptr)`-free code: handles are never null.) */
  IRModule() : IRModule(Map<GlobalVar, BaseFunc>()) {}
  explicit IRModule(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  const IRModuleNode* operator->() const { return static_cast<const IRModuleNode*>(data_.get()); }
  const IRModuleNode* get() const { return operator->(); }
  using ContainerType = IRModuleNode;
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(IRModuleNode);
};

}  // namespace minitvm

#endif  // MINITVM_IR_MODULE_H_
