/*!
 * \file runtime_ndarray_test.cc
 * \brief Tests of NDArray (stage 1): 64-byte alignment, compact strides, views that share
 * storage and keep their base alive, strided copies, the errors of bad shapes and copies, and
 * DLPack export/import round trips with deleters counted.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"
#include "minitvm_test_util.h"

using namespace minitvm::runtime;  // NOLINT
using minitvm::testing::MakeArray;
using minitvm::testing::ToVector;

namespace {
std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}
}  // namespace

TEST(NDArray, AllocationIsAlignedAndCompact) {
  for (const auto& shape :
       std::vector<std::vector<int64_t>>{{}, {0}, {1}, {3}, {2, 3}, {7, 5, 3}}) {
    for (const char* dtype : {"int8", "float32", "float64", "bool", "float16"}) {
      NDArray a = NDArray::Empty(shape, DataType(dtype));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kAllocAlignment, 0u)
          << ShapeToString(shape) << " " << dtype;
      EXPECT_TRUE(a.IsContiguous());
      EXPECT_EQ(a->strides, CompactStrides(shape));
      EXPECT_EQ(a.ndim(), static_cast<int>(shape.size()));
      EXPECT_EQ(a.device(), CPU());
    }
  }
  NDArray a = NDArray::Empty({2, 3, 4}, DataType::Float(32));
  EXPECT_EQ(a->strides, (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(a.NumElements(), 24);
  EXPECT_EQ(a.NBytes(), 96u);
  EXPECT_EQ(NDArray::Empty({}, DataType::Int(32)).NumElements(), 1);  // a scalar
  EXPECT_EQ(NDArray::Empty({4, 0}, DataType::Int(32)).NumElements(), 0);
  EXPECT_EQ(ShapeToString({2, 3}), "(2, 3)");
  EXPECT_EQ(ShapeToString({5}), "(5,)");
  EXPECT_EQ(ShapeToString({}), "()");
}

TEST(NDArray, BadShapesAndTypes) {
  EXPECT_MINITVM_ERROR(NDArray::Empty({2, -1}, DataType::Float(32)), "ValueError",
                       "negative dimension in shape (2, -1)");
  EXPECT_MINITVM_ERROR(NDArray::Empty({2}, DataType::Void()), "ValueError",
                       "cannot allocate elements of type void");
  EXPECT_MINITVM_ERROR(NDArray::Empty({2}, DataType::Float(32), CUDA(0)), "RuntimeError",
                       "no device API for cuda");
  EXPECT_MINITVM_ERROR(NDArray::Empty({2}, DataType::Float(32), Device{kDLCPU, -1}), "ValueError",
                       "device id -1 is negative");
  // Element counts and byte sizes that overflow are errors, not tiny allocations.
  const int64_t big = int64_t{1} << 40;
  EXPECT_MINITVM_ERROR(NDArray::Empty({big, big}, DataType::Float(32)), "ValueError",
                       "more elements than an int64 can count");
  EXPECT_MINITVM_ERROR(NDArray::Empty({int64_t{1} << 62, 8}, DataType::Float(64)), "ValueError",
                       "more elements than an int64 can count");
  EXPECT_MINITVM_ERROR(NDArray::Empty({int64_t{1} << 61}, DataType::Float(64)), "ValueError",
                       "do not fit in memory");
  // A zero dimension makes any shape empty.
  EXPECT_EQ(NDArray::Empty({big, big, 0}, DataType::Float(32)).NumElements(), 0);
}

TEST(NDArray, ViewsShareStorageAndKeepTheBaseAlive) {
  NDArray view;
  const void* storage = nullptr;
  {
    NDArray a = MakeArray<float>({2, 3}, DataType::Float(32), Iota(6));
    storage = a->data;
    view = a.CreateView({3}, DataType::Float(32), /*elem_offset=*/3);  // the second row
    EXPECT_EQ(a.use_count(), 2);                                       // the view holds its base
    a.data_as<float>()[4] = 40.0f;
  }
  EXPECT_EQ(view->data, storage);
  EXPECT_EQ(view->byte_offset, 12);
  EXPECT_EQ(ToVector<float>(view), (std::vector<float>{3, 40, 5}));

  // Reinterpreting the bytes with another dtype is a view too.
  NDArray bytes = MakeArray<int32_t>({2}, DataType::Int(32), {1, 2});
  NDArray as_u8 = bytes.CreateView({8}, DataType::UInt(8));
  EXPECT_EQ(ToVector<uint8_t>(as_u8)[4], 2);

  NDArray small = NDArray::Empty({4}, DataType::Float(32));
  EXPECT_MINITVM_ERROR(small.CreateView({5}, DataType::Float(32)), "ValueError",
                       "needs 20 bytes but the array of shape (4,) has 16");
  EXPECT_MINITVM_ERROR(small.CreateView({1}, DataType::Float(32), -1), "ValueError",
                       "at element -1");
  EXPECT_MINITVM_ERROR(small.CreateView({-1}, DataType::Float(32)), "ValueError",
                       "negative dimension");
  EXPECT_MINITVM_ERROR(small.CreateStridedView({2, 2}, {1}, 0), "ValueError", "differ in rank");
}

TEST(NDArray, StridedViewsAndCopies) {
  NDArray a = MakeArray<float>({2, 3}, DataType::Float(32), Iota(6));
  // The transpose as a strided view: shape (3, 2), strides (1, 3).
  NDArray t = a.CreateStridedView({3, 2}, {1, 3}, 0);
  EXPECT_FALSE(t.IsContiguous());
  EXPECT_EQ(ToVector<float>(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  NDArray compact = t.CopyTo(CPU());
  EXPECT_TRUE(compact.IsContiguous());
  EXPECT_EQ(ToVector<float>(compact), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_NE(compact->data, a->data);

  // A 2x2 window of a 4x4 array, copied both ways.
  NDArray big = MakeArray<float>({4, 4}, DataType::Float(32), Iota(16));
  NDArray window = big.CreateStridedView({2, 2}, {4, 1}, /*elem_offset=*/5);
  EXPECT_EQ(ToVector<float>(window), (std::vector<float>{5, 6, 9, 10}));
  NDArray ones = MakeArray<float>({2, 2}, DataType::Float(32), {-1, -2, -3, -4});
  window.CopyFrom(ones);  // writes through the window
  EXPECT_EQ(ToVector<float>(big)[5], -1);
  EXPECT_EQ(ToVector<float>(big)[10], -4);
  EXPECT_EQ(ToVector<float>(big)[7], 7);  // outside the window: untouched
  // Dimensions of extent 1 do not break contiguity, whatever their stride.
  EXPECT_TRUE(big.CreateStridedView({1, 4}, {99, 1}, 4).IsContiguous());
}

TEST(NDArray, CopyErrorsNameBothSides) {
  NDArray a = NDArray::Empty({2, 3}, DataType::Float(32));
  NDArray b = NDArray::Empty({3, 2}, DataType::Float(32));
  NDArray c = NDArray::Empty({2, 3}, DataType::Int(32));
  EXPECT_MINITVM_ERROR(a.CopyFrom(b), "ValueError",
                       "copy: source has shape (3, 2) and float32 but the destination has shape "
                       "(2, 3) and float32");
  EXPECT_MINITVM_ERROR(a.CopyFrom(c), "ValueError", "int32 but the destination");
  std::vector<float> buf(5);
  EXPECT_MINITVM_ERROR(a.CopyFromBytes(buf.data(), 20), "ValueError",
                       "got 20 bytes but the array of shape (2, 3) and float32 holds 24");
  EXPECT_MINITVM_ERROR(a.CopyToBytes(buf.data(), 20), "ValueError", "holds 24");
  NDArray t = a.CreateStridedView({3, 2}, {1, 3}, 0);
  std::vector<float> six(6);
  EXPECT_MINITVM_ERROR(t.CopyToBytes(six.data(), 24), "ValueError", "not contiguous");
  EXPECT_MINITVM_ERROR(t.CreateView({6}, DataType::Float(32)), "ValueError", "not contiguous");
}

TEST(NDArray, RegisteredFunctions) {
  Array<int64_t> shape{2, 5};
  NDArray a = Registry::GetOrThrow("runtime.NDArrayEmpty")(shape, "int16", CPU()).cast<NDArray>();
  EXPECT_EQ(a.Shape(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(Registry::GetOrThrow("runtime.NDArrayDType")(a).cast<std::string>(), "int16");
  EXPECT_EQ(Registry::GetOrThrow("runtime.NDArrayStrides")(a).cast<Array<int64_t>>()[0], 5);
  EXPECT_MINITVM_ERROR(Registry::GetOrThrow("runtime.NDArrayEmpty")(shape, "int3", CPU()),
                       "ValueError", "unknown dtype \"int3\"");
  EXPECT_MINITVM_ERROR(Registry::GetOrThrow("runtime.NDArrayShape")(1), "TypeError",
                       "runtime.NDArrayShape: argument 0: expected runtime.NDArray but got int");
}

namespace {
/*! \brief A producer-owned tensor whose deleter counts its calls. */
struct CountedTensor {
  std::vector<float> storage;
  std::vector<int64_t> shape;
  DLManagedTensor managed{};
  int* deleted;
};

DLManagedTensor* MakeCounted(std::vector<int64_t> shape, int* deleted) {
  auto* ctx = new CountedTensor();
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  ctx->storage.resize(n);
  std::iota(ctx->storage.begin(), ctx->storage.end(), 0.0f);
  ctx->shape = std::move(shape);
  ctx->deleted = deleted;
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = ctx->storage.data();
  t.device = CPU();
  t.ndim = static_cast<int32_t>(ctx->shape.size());
  t.dtype = DataType::Float(32);
  t.shape = ctx->shape.data();
  t.strides = nullptr;  // compact
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) {
    auto* c = static_cast<CountedTensor*>(self->manager_ctx);
    ++*c->deleted;
    delete c;
  };
  return &ctx->managed;
}
}  // namespace

TEST(DLPack, ImportIsZeroCopyAndRunsTheDeleterOnce) {
  int deleted = 0;
  DLManagedTensor* tensor = MakeCounted({2, 3}, &deleted);
  void* data = tensor->dl_tensor.data;
  {
    NDArray a = NDArray::FromDLPack(tensor);
    EXPECT_EQ(a->data, data);
    EXPECT_EQ(a.Shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a->strides, (std::vector<int64_t>{3, 1}));  // filled in for strides == NULL
    EXPECT_EQ(ToVector<float>(a)[5], 5.0f);
    NDArray b = a;
    NDArray view = a.CreateView({3}, DataType::Float(32), 3);
    a = NDArray();
    b = NDArray();
    EXPECT_EQ(deleted, 0);  // the view still holds the storage
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, MalformedImportsAreRejectedAndNotConsumed) {
  int deleted = 0;
  DLManagedTensor* tensor = MakeCounted({2}, &deleted);
  tensor->dl_tensor.ndim = -1;
  EXPECT_MINITVM_ERROR(NDArray::FromDLPack(tensor), "ValueError", "bad ndim -1");
  tensor->dl_tensor.ndim = 1;
  int64_t bad_shape = -2;
  int64_t* good_shape = tensor->dl_tensor.shape;
  tensor->dl_tensor.shape = &bad_shape;
  EXPECT_MINITVM_ERROR(NDArray::FromDLPack(tensor), "ValueError", "negative dimension");
  tensor->dl_tensor.shape = nullptr;
  EXPECT_MINITVM_ERROR(NDArray::FromDLPack(tensor), "ValueError", "null shape");
  tensor->dl_tensor.shape = good_shape;
  void* data = tensor->dl_tensor.data;
  tensor->dl_tensor.data = nullptr;
  EXPECT_MINITVM_ERROR(NDArray::FromDLPack(tensor), "ValueError", "null data pointer");
  tensor->dl_tensor.data = data;
  EXPECT_MINITVM_ERROR(NDArray::FromDLPack(nullptr), "ValueError", "null DLManagedTensor");
  EXPECT_EQ(deleted, 0);  // a rejected tensor still belongs to the caller
  tensor->deleter(tensor);
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, ExportKeepsTheArrayAliveUntilTheDeleter) {
  NDArray a = MakeArray<float>({2, 3}, DataType::Float(32), Iota(6));
  NDArray t = a.CreateStridedView({3, 2}, {1, 3}, 0);
  DLManagedTensor* out = t.ToDLPack();
  EXPECT_EQ(t.use_count(), 2);
  const DLTensor& dl = out->dl_tensor;
  EXPECT_EQ(dl.data, a->data);
  EXPECT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.shape[0], 3);
  EXPECT_EQ(dl.strides[0], 1);
  EXPECT_EQ(dl.strides[1], 3);
  EXPECT_EQ(DataType(dl.dtype), DataType::Float(32));
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  out->deleter(out);
  EXPECT_EQ(t.use_count(), 1);
}

TEST(DLPack, RoundTripSharesMemory) {
  NDArray a = MakeArray<float>({4}, DataType::Float(32), Iota(4));
  {
    NDArray b = NDArray::FromDLPack(a.ToDLPack());
    EXPECT_EQ(b.data(), a.data());
    EXPECT_EQ(a.use_count(), 2);  // the exported tensor holds a
    b.data_as<float>()[0] = 100.0f;
    EXPECT_EQ(a.data_as<float>()[0], 100.0f);
  }
  EXPECT_EQ(a.use_count(), 1);  // b's death ran the export deleter
  // With a byte offset: a view exported and imported keeps pointing at the same element.
  NDArray view = a.CreateView({2}, DataType::Float(32), 2);
  NDArray back = NDArray::FromDLPack(view.ToDLPack());
  EXPECT_EQ(back.data(), view.data());
  EXPECT_EQ(ToVector<float>(back), (std::vector<float>{2, 3}));
}
