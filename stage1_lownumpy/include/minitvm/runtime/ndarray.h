/*!
 * \file minitvm/runtime/ndarray.h
 * \brief `NDArray` (stage 1): a reference-counted n-dimensional array with the DLPack layout —
 * shape, strides (in elements, compact by default), dtype, device, byte offset — on 64-byte
 * aligned storage; views, copies and zero-copy DLPack import/export.
 */
#ifndef MINITVM_RUNTIME_NDARRAY_H_
#define MINITVM_RUNTIME_NDARRAY_H_

#include <dlpack/dlpack.h>

#include <functional>
#include <string>
#include <vector>

#include "minitvm/runtime/data_type.h"
#include "minitvm/runtime/device.h"
#include "minitvm/runtime/object.h"

namespace minitvm {
namespace runtime {

/*!
 * \brief The node of an NDArray. Fields are public for reading; only NDArray's factories
 * create nodes. `data` points at the start of the storage; element 0 is at
 * `data + byte_offset`.
 */
class NDArrayNode : public Object {
 public:
  NDArrayNode() = default;
  NDArrayNode(const NDArrayNode&) = delete;
  ~NDArrayNode() override;

  void* data = nullptr;
  Device device{kDLCPU, 0};
  DataType dtype;
  std::vector<int64_t> shape;
  /*! \brief Strides in elements, one per dimension (always filled in). */
  std::vector<int64_t> strides;
  int64_t byte_offset = 0;
  /*! \brief Releases the storage; empty for views (they hold `base`). */
  std::function<void()> deleter;
  /*! \brief The array a view was made from, kept alive by the view. */
  ObjectRef base;

  /*! \brief A DLTensor that aliases this array (valid while the node lives). */
  DLTensor ToDLTensor();
  MINITVM_DECLARE_OBJECT_INFO(NDArrayNode, Object, "runtime.NDArray");
};

/*! \brief Handle to an n-dimensional array. */
class NDArray : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(NDArray, ObjectRef, NDArrayNode);

  /*! \brief Allocate an uninitialised compact array; ValueError for a negative dimension. */
  static NDArray Empty(const std::vector<int64_t>& shape, DataType dtype, Device dev = CPU());
  /*!
   * \brief Wrap a DLManagedTensor without copying; its deleter runs when the last handle
   * goes. ValueError (and the tensor is left unconsumed) when it is malformed.
   */
  static NDArray FromDLPack(DLManagedTensor* tensor);
  /*! \brief Export without copying; the array stays alive until the deleter runs. */
  DLManagedTensor* ToDLPack() const;

  /*!
   * \brief A view sharing storage: new shape and dtype over a compact array, starting at
   * element `elem_offset` of this array. ValueError when it does not fit.
   */
  NDArray CreateView(const std::vector<int64_t>& shape, DataType dtype,
                     int64_t elem_offset = 0) const;
  /*! \brief A strided view (any strides, in elements of `dtype`). */
  NDArray CreateStridedView(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                            int64_t elem_offset) const;

  /*! \brief Copy the contents of `other` in; ValueError on shape or dtype mismatch. */
  void CopyFrom(const NDArray& other) const;
  void CopyTo(const NDArray& other) const { other.CopyFrom(*this); }
  /*! \brief A compact copy on `dev`. */
  NDArray CopyTo(Device dev) const;
  /*! \brief Copy raw bytes in/out of a compact array; ValueError when sizes differ. */
  void CopyFromBytes(const void* bytes, size_t nbytes) const;
  void CopyToBytes(void* bytes, size_t nbytes) const;

  const std::vector<int64_t>& Shape() const { return get()->shape; }
  DataType dtype() const { return get()->dtype; }
  Device device() const { return get()->device; }
  int ndim() const { return static_cast<int>(get()->shape.size()); }
  int64_t NumElements() const;
  /*! \brief Bytes of the elements (not of the storage). */
  size_t NBytes() const { return static_cast<size_t>(NumElements()) * dtype().bytes(); }
  bool IsContiguous() const;
  /*! \brief Address of element 0. */
  void* data() const { return static_cast<char*>(get()->data) + get()->byte_offset; }
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data());
  }
  /*! \brief Element at a flat logical index (row-major over the shape), honouring strides. */
  int64_t ElementOffset(int64_t flat_index) const;
};

/*! \brief Strides (in elements) of a compact row-major array of this shape. */
std::vector<int64_t> CompactStrides(const std::vector<int64_t>& shape);
/*! \brief "(2, 3)" */
std::string ShapeToString(const std::vector<int64_t>& shape);

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_NDARRAY_H_
