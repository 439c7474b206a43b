/*!
 * \file device_api.cc
 * \brief The CPU device API and the table of device APIs (stage 1).
 */
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "minitvm/runtime/device.h"
#include "minitvm/runtime/error.h"

namespace minitvm {
namespace runtime {
namespace {

/*! \brief Host memory: aligned_alloc and memcpy. */
class CPUDeviceAPI : public DeviceAPI {
 public:
  bool Exists(Device) override { return true; }
  void* Alloc(Device, size_t nbytes, size_t alignment) override {
    size_t size = (nbytes + alignment - 1) / alignment * alignment;
    if (size == 0) size = alignment;
    void* ptr = std::aligned_alloc(alignment, size);
    if (!ptr) MINITVM_THROW(RuntimeError) << "out of memory allocating " << nbytes << " bytes";
    return ptr;
  }
  void Free(Device, void* ptr) override { std::free(ptr); }
  void Copy(const void* from, Device, void* to, Device, size_t nbytes) override {
    if (nbytes) std::memcpy(to, from, nbytes);
  }
  void Synchronize(Device) override {}
};

struct ApiTable {
  std::mutex mutex;
  std::unordered_map<int, DeviceAPI*> apis;
};
ApiTable& Apis() {
  static ApiTable* table = [] {
    auto* t = new ApiTable();
    t->apis[kDLCPU] = new CPUDeviceAPI();
    return t;
  }();
  return *table;
}

}  // namespace

DeviceAPI* DeviceAPI::Get(Device dev, bool allow_missing) {
  ApiTable& t = Apis();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.apis.find(dev.device_type);
  if (it != t.apis.end()) return it->second;
  if (allow_missing) return nullptr;
  MINITVM_THROW(RuntimeError) << "no device API for " << DeviceTypeName(dev.device_type)
                              << " (is minitvm built with support for it?)";
}

void DeviceAPI::Register(int device_type, DeviceAPI* api) {
  ApiTable& t = Apis();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.apis[device_type] = api;
}

}  // namespace runtime
}  // namespace minitvm
