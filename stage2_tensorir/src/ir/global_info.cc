/*!
 * \file global_info.cc
 * \brief `VDevice` and `DummyGlobalInfo` of `ir/global_info.h` (stage 2) and their global
 * functions "ir.VDevice", "ir.DummyGlobalInfo" (`tvm.ir.VDevice(target, vdevice_id,
 * memory_scope)` from Python).
 */
#include "minitvm/ir/global_info.h"

#include <sstream>

#include "minitvm/runtime/registry.h"

namespace minitvm {

using runtime::Any;

VDevice::VDevice(target::Target target, int64_t vdevice_id, std::string memory_scope) {
  if (vdevice_id < 0) {
    MINITVM_THROW(ValueError) << "VDevice: vdevice_id must be >= 0, got " << vdevice_id;
  }
  auto n = make_object<VDeviceNode>();
  n->target = std::move(target);
  n->vdevice_id = vdevice_id;
  n->memory_scope = std::move(memory_scope);
  data_ = std::move(n);
}

bool VDeviceEqual(const VDevice& a, const VDevice& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->target.defined() != b->target.defined()) return false;
  if (a->target.defined() && a->target.str() != b->target.str()) return false;
  return a->vdevice_id == b->vdevice_id && a->memory_scope == b->memory_scope;
}

std::string VDeviceToString(const VDevice& vdevice) {
  if (!vdevice.defined()) return "None";
  std::ostringstream os;
  os << "VDevice(" << (vdevice->target.defined() ? vdevice->target.str() : "None") << ", "
     << vdevice->vdevice_id << ", \"" << vdevice->memory_scope << "\")";
  return os.str();
}

std::string VDeviceScriptName(const VDevice& vdevice) {
  if (!vdevice.defined() || !vdevice->target.defined()) return "";
  return std::string(vdevice->target->kind->name) + ":" + std::to_string(vdevice->vdevice_id);
}

DummyGlobalInfo::DummyGlobalInfo() : GlobalInfo(make_object<DummyGlobalInfoNode>()) {}

MINITVM_REGISTER_GLOBAL("ir.VDevice")
    .set_body_typed([](Any target, int64_t vdevice_id, std::string memory_scope) {
      target::Target t;
      if (target.is_string()) {
        t = target::Target(target.cast<std::string>());
      } else if (auto* tn = target.as<target::TargetNode>()) {
        t = runtime::GetRef<target::Target>(tn);
      } else if (!target.is_null()) {
        MINITVM_THROW(TypeError) << "VDevice: target must be a Target, a string or None, got "
                                 << target.type_name();
      }
      return VDevice(t, vdevice_id, memory_scope);
    });
MINITVM_REGISTER_GLOBAL("ir.DummyGlobalInfo").set_body_typed([]() { return DummyGlobalInfo(); });
MINITVM_REGISTER_GLOBAL("ir.VDeviceEqual").set_body_typed([](Any a, Any b) {
  return VDeviceEqual(a.is_null() ? VDevice() : a.cast<VDevice>(),
                      b.is_null() ? VDevice() : b.cast<VDevice>());
});

}  // namespace minitvm
