/*!
 * \file minitvm/ir/global_info.h
 * \brief Global infos (stage 2): module-level objects the IR refers to. `VDevice` is a virtual
 * device — a target, a device id and a memory scope — that a Relax `TensorStructInfo` may name
 * as the place its tensor lives (`R.Tensor((2, 3), "float32", vdevice)`).
 *
 * minitvm records and compares virtual devices as TVM does (struct info inference carries them
 * from inputs to outputs, IsBaseOf compares them), but only the CPU executes: code generation
 * and the VM place every tensor on the one device they are given.
 */
#ifndef MINITVM_IR_GLOBAL_INFO_H_
#define MINITVM_IR_GLOBAL_INFO_H_

#include <string>

#include "minitvm/ir/expr.h"
#include "minitvm/target/target.h"

namespace minitvm {

/*! \brief Base of the objects a module keeps beside its functions (`tvm.ir.GlobalInfo`). */
class GlobalInfoNode : public Object {
 public:
  MINITVM_DECLARE_OBJECT_INFO(GlobalInfoNode, Object, "ir.GlobalInfo");
};
/*! \brief Handle to a global info. */
class GlobalInfo : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(GlobalInfo, ObjectRef, GlobalInfoNode);
};

/*! \brief A virtual device: where a tensor lives (`tvm.ir.VDevice`). */
class VDeviceNode : public GlobalInfoNode {
 public:
  /*! \brief How code for the device is compiled; undefined for an unspecified device. */
  target::Target target;
  /*! \brief Tells apart devices of one target (two GPUs). */
  int64_t vdevice_id = 0;
  /*! \brief The memory scope ("global"). */
  std::string memory_scope = "global";
  void VisitAttrs(runtime::AttrVisitor* v) override {
    v->Visit("target", &target);
    v->Visit("vdevice_id", &vdevice_id);
    v->Visit("memory_scope", &memory_scope);
  }
  MINITVM_DECLARE_OBJECT_INFO(VDeviceNode, GlobalInfoNode, "ir.VDevice");
};
/*! \brief Handle to a virtual device. */
class VDevice : public GlobalInfo {
 public:
  VDevice(target::Target target, int64_t vdevice_id, std::string memory_scope);
  MINITVM_DEFINE_OBJECT_REF_METHODS(VDevice, GlobalInfo, VDeviceNode);
};

/*!
 * \brief Whether two (possibly undefined) virtual devices are the same device: both undefined,
 * or equal targets (by their canonical strings), ids and memory scopes.
 */
bool VDeviceEqual(const VDevice& a, const VDevice& b);
/*! \brief "llvm:0:global"-style text for messages ("None" when undefined). */
std::string VDeviceToString(const VDevice& vdevice);

/*!
 * \brief The name TVMScript gives a virtual device in `R.Tensor(..., vdevice="llvm:0")`: its
 * target kind and an index. TVM's index counts the module's `vdevice` global infos of that kind;
 * minitvm modules keep no global infos, so the index is the device's `vdevice_id`.
 */
std::string VDeviceScriptName(const VDevice& vdevice);

/*! \brief A global info with no fields (`tvm.ir.DummyGlobalInfo`), for tests. */
class DummyGlobalInfoNode : public GlobalInfoNode {
 public:
  void VisitAttrs(runtime::AttrVisitor* v) override {}
  MINITVM_DECLARE_OBJECT_INFO(DummyGlobalInfoNode, GlobalInfoNode, "ir.DummyGlobalInfo");
};
class DummyGlobalInfo : public GlobalInfo {
 public:
  DummyGlobalInfo();
  MINITVM_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(DummyGlobalInfo, GlobalInfo, DummyGlobalInfoNode);
};

}  // namespace minitvm

#endif  // MINITVM_IR_GLOBAL_INFO_H_
