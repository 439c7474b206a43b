/*!
 * \file minitvm/runtime/device.h
 * \brief `Device` and the device API (stage 1): where memory lives and how to allocate,
 * free and copy it. The CPU API is implemented here; stage 5 registers the CUDA one.
 */
#ifndef MINITVM_RUNTIME_DEVICE_H_
#define MINITVM_RUNTIME_DEVICE_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <ostream>
#include <string>

namespace minitvm {
namespace runtime {

/*! \brief A device: a type (cpu, cuda) and an id. Same layout as DLDevice. */
using Device = DLDevice;

inline Device CPU(int id = 0) { return Device{kDLCPU, id}; }
inline Device CUDA(int id = 0) { return Device{kDLCUDA, id}; }
/*! \brief "cpu", "cuda". */
std::string DeviceTypeName(int device_type);
/*! \brief The device type for "cpu"/"llvm"/"cuda"/"gpu"; ValueError for others. */
int DeviceTypeFromName(const std::string& name);

/*!
 * \brief The operations a device provides. One instance per device type, looked up through
 * `DeviceAPI::Get`; stage 5 registers CUDA's under the global name "device_api.cuda".
 */
class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  /*! \brief Whether the device exists (e.g. a GPU is present). */
  virtual bool Exists(Device dev) = 0;
  /*! \brief Allocate `nbytes` with at least `alignment` bytes alignment. */
  virtual void* Alloc(Device dev, size_t nbytes, size_t alignment) = 0;
  virtual void Free(Device dev, void* ptr) = 0;
  /*! \brief Copy bytes; either side may be on the host (kDLCPU) or on `dev`. */
  virtual void Copy(const void* from, Device from_dev, void* to, Device to_dev, size_t nbytes) = 0;
  virtual void Synchronize(Device dev) = 0;
  /*! \brief The API for a device type; RuntimeError when none is available. */
  static DeviceAPI* Get(Device dev, bool allow_missing = false);
  /*! \brief Install the API of a device type (stage 5 does this for CUDA). */
  static void Register(int device_type, DeviceAPI* api);
};

/*! \brief Alignment of every NDArray allocation, in bytes. */
constexpr size_t kAllocAlignment = 64;

}  // namespace runtime
}  // namespace minitvm

// Device is DLPack's DLDevice, a type of the global namespace, so its operators live there too:
// argument-dependent lookup then finds them from any namespace (GoogleTest's EXPECT_EQ,
// MINITVM_THROW's message stream), not only from code inside minitvm::runtime.
/*! \brief Devices are equal when type and id are. */
inline bool operator==(const DLDevice& a, const DLDevice& b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}
inline bool operator!=(const DLDevice& a, const DLDevice& b) { return !(a == b); }
/*! \brief Prints "cpu(0)", "cuda(1)". */
inline std::ostream& operator<<(std::ostream& os, const DLDevice& d) {
  return os << ::minitvm::runtime::DeviceTypeName(d.device_type) << "(" << d.device_id << ")";
}

#endif  // MINITVM_RUNTIME_DEVICE_H_
