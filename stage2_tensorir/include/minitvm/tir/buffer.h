/*!
 * \file minitvm/tir/buffer.h
 * \brief `Buffer` and `BufferRegion` (stage 2): a typed, shaped view of memory that TIR loads
 * from and stores to, and a rectangular region of one.
 */
#ifndef MINITVM_TIR_BUFFER_H_
#define MINITVM_TIR_BUFFER_H_

#include <string>

#include "minitvm/tir/var.h"

namespace minitvm {
namespace tir {

/*!
 * \brief A buffer: name, element dtype, shape, optional strides (empty = compact), element
 * offset, storage scope ("global", "shared", "local") and the handle variable `data` that
 * points at its memory.
 */
class BufferNode : public Object {
 public:
  /*! \brief The handle variable that points at the buffer's memory. */
  Var data;
  /*! \brief Element dtype. */
  DataType dtype;
  /*! \brief Extent of each dimension. */
  Array<PrimExpr> shape;
  /*! \brief Stride of each dimension in elements; empty for a compact row-major buffer. */
  Array<PrimExpr> strides;
  /*! \brief Offset of the first element from `data`, in elements. */
  PrimExpr elem_offset;
  /*! \brief Name used by the printer and in messages. */
  String name;
  /*! \brief Storage scope: "global", "shared", "local", ... */
  String scope = "global";
  /*! \brief Alignment of `data` in bytes that the code may assume. */
  int64_t data_alignment = 64;
  /*! \brief `elem_offset` is a multiple of this (1: any offset). */
  int64_t offset_factor = 1;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("data", &data);
    v->Visit("dtype", &dtype);
    v->Visit("shape", &shape);
    v->Visit("strides", &strides);
    v->Visit("elem_offset", &elem_offset);
    v->Visit("name", &name);
    v->Visit("scope", &scope);
    v->Visit("data_alignment", &data_alignment);
    v->Visit("offset_factor", &offset_factor);
  }
  /*! \brief Number of dimensions. */
  size_t ndim() const { return shape.size(); }
  MINITVM_DECLARE_OBJECT_INFO(BufferNode, Object, "tir.Buffer");
};

class Buffer : public ObjectRef {
 public:
  Buffer(Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides,
         PrimExpr elem_offset, String name, String scope = "global", int64_t data_alignment = 64,
         int64_t offset_factor = 1);
  /*! \brief Load `buffer[indices]` (a BufferLoad). */
  PrimExpr operator()(Array<PrimExpr> indices) const;
  MINITVM_DEFINE_OBJECT_REF_METHODS(Buffer, ObjectRef, BufferNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(BufferNode);
};

/*!
 * \brief A compact buffer with a fresh data variable, like `tvm.tir.decl_buffer`.
 * `elem_offset` defaults to 0.
 */
Buffer decl_buffer(Array<PrimExpr> shape, DataType dtype = DataType::Float(32),
                   String name = "buffer", String scope = "global");

/*! \brief A region of a buffer: one Range per dimension. */
class BufferRegionNode : public Object {
 public:
  /*! \brief The buffer accessed. */
  Buffer buffer;
  /*! \brief One Range per dimension. */
  Array<Range> region;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("buffer", &buffer);
    v->Visit("region", &region);
  }
  MINITVM_DECLARE_OBJECT_INFO(BufferRegionNode, Object, "tir.BufferRegion");
};
class BufferRegion : public ObjectRef {
 public:
  BufferRegion(Buffer buffer, Array<Range> region);
  /*! \brief The whole buffer. */
  static BufferRegion FullRegion(Buffer buffer);
  MINITVM_DEFINE_OBJECT_REF_METHODS(BufferRegion, ObjectRef, BufferRegionNode);
};

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_BUFFER_H_
