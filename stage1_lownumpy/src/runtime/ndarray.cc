/*!
 * \file ndarray.cc
 * \brief NDArray allocation, views, copies and DLPack exchange (stage 1).
 */
#include "minitvm/runtime/ndarray.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime {

NDArrayNode::~NDArrayNode() {
  if (deleter) deleter();
}

DLTensor NDArrayNode::ToDLTensor() {
  DLTensor t;
  t.data = data;
  t.device = device;
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = shape.data();
  t.strides = strides.data();
  t.byte_offset = static_cast<uint64_t>(byte_offset);
  return t;
}

std::vector<int64_t> CompactStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) os << ", ";
    os << shape[i];
  }
  if (shape.size() == 1) os << ",";
  os << ")";
  return os.str();
}

namespace {
int64_t Product(const std::vector<int64_t>& shape) {
  // Zero first: (2**40, 2**40, 0) is an empty array, not an overflow. CheckShape has made
  // sure that a shape without zeros has a count that fits.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
/*! \brief Dimensions are non-negative and the element count fits an int64 (no overflow). */
void CheckShape(const std::vector<int64_t>& shape, const char* what) {
  int64_t count = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (d < 0) {
      MINITVM_THROW(ValueError) << what << ": negative dimension in shape " << ShapeToString(shape);
    }
    overflow = overflow || __builtin_mul_overflow(count, d, &count);
  }
  // (A zero dimension makes the array empty whatever the others are.)
  bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  if (overflow && !empty) {
    MINITVM_THROW(ValueError) << what << ": shape " << ShapeToString(shape)
                              << " has more elements than an int64 can count";
  }
}
}  // namespace

NDArray NDArray::Empty(const std::vector<int64_t>& shape, DataType dtype, Device dev) {
  CheckShape(shape, "NDArray.Empty");
  if (dtype.is_void() || dtype.bits() == 0) {
    MINITVM_THROW(ValueError) << "NDArray.Empty: cannot allocate elements of type " << dtype;
  }
  if (dev.device_id < 0) {
    MINITVM_THROW(ValueError) << "NDArray.Empty: device id " << dev.device_id
                              << " is negative (devices are numbered from 0)";
  }
  DeviceAPI* api = DeviceAPI::Get(dev);
  auto n = make_object<NDArrayNode>();
  n->shape = shape;
  n->strides = CompactStrides(shape);
  n->dtype = dtype;
  n->device = dev;
  size_t nbytes = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(Product(shape)),
                             static_cast<size_t>(dtype.bytes()), &nbytes)) {
    MINITVM_THROW(ValueError) << "NDArray.Empty: " << ShapeToString(shape) << " elements of "
                              << dtype << " do not fit in memory";
  }
  n->data = api->Alloc(dev, nbytes, kAllocAlignment);
  void* ptr = n->data;
  n->deleter = [api, dev, ptr]() { api->Free(dev, ptr); };
  return NDArray(ObjectPtr<Object>(std::move(n)));
}

int64_t NDArray::NumElements() const { return Product(get()->shape); }

bool NDArray::IsContiguous() const {
  const auto& n = *get();
  int64_t expected = 1;
  for (size_t i = n.shape.size(); i-- > 0;) {
    if (n.shape[i] == 1) continue;
    if (n.strides[i] != expected) return false;
    expected *= n.shape[i];
  }
  return true;
}

int64_t NDArray::ElementOffset(int64_t flat) const {
  const auto& n = *get();
  int64_t offset = 0;
  for (size_t i = n.shape.size(); i-- > 0;) {
    int64_t dim = n.shape[i];
    if (dim == 0) return 0;
    offset += (flat % dim) * n.strides[i];
    flat /= dim;
  }
  return offset;
}

NDArray NDArray::CreateStridedView(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& strides, int64_t elem_offset) const {
  CheckShape(shape, "NDArray.CreateView");
  if (shape.size() != strides.size()) {
    MINITVM_THROW(ValueError) << "CreateView: shape " << ShapeToString(shape) << " and strides "
                              << ShapeToString(strides) << " differ in rank";
  }
  auto n = make_object<NDArrayNode>();
  n->data = get()->data;
  n->device = get()->device;
  n->dtype = get()->dtype;
  n->shape = shape;
  n->strides = strides;
  n->byte_offset = get()->byte_offset + elem_offset * get()->dtype.bytes();
  n->base = *this;
  return NDArray(ObjectPtr<Object>(std::move(n)));
}

NDArray NDArray::CreateView(const std::vector<int64_t>& shape, DataType dtype,
                            int64_t elem_offset) const {
  CheckShape(shape, "NDArray.CreateView");
  if (!IsContiguous()) {
    MINITVM_THROW(ValueError) << "CreateView: the array of shape " << ShapeToString(Shape())
                              << " is not contiguous";
  }
  int64_t have = static_cast<int64_t>(NBytes());
  int64_t need = (elem_offset * this->dtype().bytes()) + Product(shape) * dtype.bytes();
  if (elem_offset < 0 || need > have) {
    MINITVM_THROW(ValueError) << "CreateView: a view of shape " << ShapeToString(shape) << " and "
                              << dtype << " at element " << elem_offset << " needs " << need
                              << " bytes but the array of shape " << ShapeToString(Shape())
                              << " has " << have;
  }
  auto n = make_object<NDArrayNode>();
  n->data = get()->data;
  n->device = get()->device;
  n->dtype = dtype;
  n->shape = shape;
  n->strides = CompactStrides(shape);
  n->byte_offset = get()->byte_offset + elem_offset * this->dtype().bytes();
  n->base = *this;
  return NDArray(ObjectPtr<Object>(std::move(n)));
}

void NDArray::CopyFrom(const NDArray& other) const {
  if (Shape() != other.Shape() || dtype() != other.dtype()) {
    MINITVM_THROW(ValueError) << "copy: source has shape " << ShapeToString(other.Shape())
                              << " and " << other.dtype() << " but the destination has shape "
                              << ShapeToString(Shape()) << " and " << dtype();
  }
  Device host = CPU();
  bool src_cpu = other.device().device_type == kDLCPU;
  bool dst_cpu = device().device_type == kDLCPU;
  if (IsContiguous() && other.IsContiguous()) {
    Device api_dev = dst_cpu ? other.device() : device();
    DeviceAPI::Get(api_dev)->Copy(other.data(), src_cpu ? host : other.device(), data(),
                                  dst_cpu ? host : device(), NBytes());
    return;
  }
  if (!src_cpu || !dst_cpu) {
    // Non-contiguous device copies go through compact host buffers.
    NDArray src = other.IsContiguous() ? other : other.CopyTo(other.device());
    NDArray tmp = NDArray::Empty(Shape(), dtype(), device());
    tmp.CopyFrom(src);
    CopyFrom(tmp);
    return;
  }
  int64_t n = NumElements();
  int bytes = dtype().bytes();
  auto* dst = static_cast<char*>(data());
  auto* src = static_cast<const char*>(other.data());
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + ElementOffset(i) * bytes, src + other.ElementOffset(i) * bytes, bytes);
  }
}

NDArray NDArray::CopyTo(Device dev) const {
  NDArray out = NDArray::Empty(Shape(), dtype(), dev);
  if (device().device_type == kDLCPU || IsContiguous()) {
    out.CopyFrom(*this);
  } else {
    MINITVM_THROW(ValueError) << "CopyTo: non-contiguous device arrays are not supported";
  }
  return out;
}

void NDArray::CopyFromBytes(const void* bytes, size_t nbytes) const {
  if (nbytes != NBytes()) {
    MINITVM_THROW(ValueError) << "CopyFromBytes: got " << nbytes << " bytes but the array of shape "
                              << ShapeToString(Shape()) << " and " << dtype() << " holds "
                              << NBytes();
  }
  if (!IsContiguous()) MINITVM_THROW(ValueError) << "CopyFromBytes: array is not contiguous";
  DeviceAPI::Get(device())->Copy(bytes, CPU(), data(), device(), nbytes);
}

void NDArray::CopyToBytes(void* bytes, size_t nbytes) const {
  if (nbytes != NBytes()) {
    MINITVM_THROW(ValueError) << "CopyToBytes: asked for " << nbytes
                              << " bytes but the array of shape " << ShapeToString(Shape())
                              << " and " << dtype() << " holds " << NBytes();
  }
  if (!IsContiguous()) MINITVM_THROW(ValueError) << "CopyToBytes: array is not contiguous";
  DeviceAPI::Get(device())->Copy(data(), device(), bytes, CPU(), nbytes);
}

NDArray NDArray::FromDLPack(DLManagedTensor* tensor) {
  if (tensor == nullptr) MINITVM_THROW(ValueError) << "from_dlpack: null DLManagedTensor";
  const DLTensor& t = tensor->dl_tensor;
  if (t.ndim < 0 || t.ndim > 64) {
    MINITVM_THROW(ValueError) << "from_dlpack: bad ndim " << t.ndim;
  }
  if (t.ndim > 0 && t.shape == nullptr) MINITVM_THROW(ValueError) << "from_dlpack: null shape";
  if (t.dtype.lanes == 0 || t.dtype.bits == 0) {
    MINITVM_THROW(ValueError) << "from_dlpack: the tensor's dtype has " << int(t.dtype.lanes)
                              << " lanes and " << int(t.dtype.bits) << " bits (type code "
                              << int(t.dtype.code) << "); lanes and bits must be at least 1";
  }
  if (t.data == nullptr && t.ndim > 0) {
    int64_t count = 1;
    for (int i = 0; i < t.ndim; ++i) count *= t.shape[i];
    if (count != 0) MINITVM_THROW(ValueError) << "from_dlpack: null data pointer";
  }
  auto n = make_object<NDArrayNode>();
  n->data = t.data;
  n->device = t.device;
  n->dtype = DataType(t.dtype);
  n->shape.assign(t.shape, t.shape + t.ndim);
  CheckShape(n->shape, "from_dlpack");
  if (t.strides) {
    n->strides.assign(t.strides, t.strides + t.ndim);
  } else {
    n->strides = CompactStrides(n->shape);
  }
  n->byte_offset = static_cast<int64_t>(t.byte_offset);
  n->deleter = [tensor]() {
    if (tensor->deleter) tensor->deleter(tensor);
  };
  return NDArray(ObjectPtr<Object>(std::move(n)));
}

namespace {
/*! \brief What an exported DLManagedTensor owns: a handle keeping the array alive. */
struct ExportContext {
  NDArray array;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor tensor;
};
}  // namespace

DLManagedTensor* NDArray::ToDLPack() const {
  auto* ctx = new ExportContext();
  ctx->array = *this;
  ctx->shape = Shape();
  ctx->strides = get()->strides;
  DLTensor& t = ctx->tensor.dl_tensor;
  t.data = get()->data;
  t.device = device();
  t.ndim = ndim();
  t.dtype = dtype();
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = static_cast<uint64_t>(get()->byte_offset);
  ctx->tensor.manager_ctx = ctx;
  ctx->tensor.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
  };
  return &ctx->tensor;
}

MINITVM_REGISTER_GLOBAL("runtime.NDArrayEmpty")
    .set_body_typed([](Array<int64_t> shape, DataType dtype, Device dev) {
      return NDArray::Empty(shape.to_vector(), dtype, dev);
    });
MINITVM_REGISTER_GLOBAL("runtime.NDArrayShape").set_body_typed([](NDArray a) {
  return Array<int64_t>(a.Shape());
});
MINITVM_REGISTER_GLOBAL("runtime.NDArrayStrides").set_body_typed([](NDArray a) {
  return Array<int64_t>(a->strides);
});
MINITVM_REGISTER_GLOBAL("runtime.NDArrayDType").set_body_typed([](NDArray a) {
  return DataTypeToString(a.dtype());
});
MINITVM_REGISTER_GLOBAL("runtime.NDArrayDevice").set_body_typed([](NDArray a) {
  return a.device();
});
MINITVM_REGISTER_GLOBAL("runtime.NDArrayCopyFromTo").set_body_typed([](NDArray from, NDArray to) {
  to.CopyFrom(from);
});
MINITVM_REGISTER_GLOBAL("runtime.NDArrayCopyToDevice").set_body_typed([](NDArray a, Device d) {
  return a.CopyTo(d);
});
MINITVM_REGISTER_GLOBAL("runtime.NDArrayCreateView")
    .set_body_typed([](NDArray a, Array<int64_t> shape, DataType dtype, int64_t offset) {
      return a.CreateView(shape.to_vector(), dtype, offset);
    });
MINITVM_REGISTER_GLOBAL("runtime.NDArrayIsContiguous").set_body_typed([](NDArray a) {
  return a.IsContiguous();
});
MINITVM_REGISTER_GLOBAL("runtime.DeviceExists").set_body_typed([](Device d) {
  DeviceAPI* api = DeviceAPI::Get(d, true);
  return api != nullptr && api->Exists(d);
});

}  // namespace runtime
}  // namespace minitvm
