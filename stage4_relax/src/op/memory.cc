/*!
 * \file memory.cc
 * \brief The explicit-memory Relax operators the VM lowering emits (stage 4):
 * `relax.builtin.alloc_tensor(shape, dtype, runtime_device_index, storage_scope)`,
 * `relax.memory.alloc_storage(size, virtual_device_index, storage_scope, dtype)`,
 * `relax.memory.alloc_tensor(storage, offset, shape, dtype)`, `relax.memory.kill_storage(s)`
 * and `relax.memory.kill_tensor(t)`.
 *
 * As in TVM every operand is a Relax value (ShapeExpr, DataTypeImm, PrimValue, StringImm) and
 * there are no keyword attributes. Allocations count as pure (allocating is not a visible
 * effect; an unused one may be removed); the two kills are impure so that dead-code
 * elimination keeps them.
 */
#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

DataType DTypeArg(const Call& call, int i) {
  if (auto* d = call->args[i].as<DataTypeImmNode>()) return d->value;
  MINITVM_THROW(TypeError) << OpName(call) << ": " << ArgName(call, i)
                           << " must be a DataTypeImm (R.dtype(\"float32\")), but is a "
                           << call->args[i]->GetTypeKey();
}

void RequireKind(const Call& call, int i, bool ok, const char* what) {
  if (!ok) {
    MINITVM_THROW(TypeError) << OpName(call) << ": " << ArgName(call, i) << " must be " << what
                             << ", but is a " << call->args[i]->GetTypeKey();
  }
}

StructInfo InferBuiltinAllocTensor(const Call& call) {
  CheckNumArgs(call, 4, 4);
  DataType dtype = DTypeArg(call, 1);
  RequireKind(call, 2, call->args[2].as<PrimValueNode>(), "a PrimValue");
  RequireKind(call, 3, call->args[3].as<StringImmNode>(), "a StringImm");
  return TensorOfShapeArg(call, 0, dtype);
}

StructInfo InferAllocStorage(const Call& call) {
  CheckNumArgs(call, 4, 4);
  int64_t ndim = kUnknownNDim;
  ShapeArgValues(call, 0, &ndim);
  RequireKind(call, 1, call->args[1].as<PrimValueNode>(), "a PrimValue");
  RequireKind(call, 2, call->args[2].as<StringImmNode>(), "a StringImm");
  DTypeArg(call, 3);
  return ObjectStructInfo();
}

StructInfo InferMemAllocTensor(const Call& call) {
  CheckNumArgs(call, 4, 4);
  RequireKind(call, 1, call->args[1].as<PrimValueNode>(), "a PrimValue");
  DataType dtype = DTypeArg(call, 3);
  return TensorOfShapeArg(call, 2, dtype);
}

StructInfo InferKill(const Call& call) {
  CheckNumArgs(call, 1, 1);
  return TupleStructInfo(Array<StructInfo>());
}

Expr DTypeOperand(const Any& v) {
  if (auto* e = v.as<ExprNode>()) return GetRef<Expr>(e);
  return DataTypeImm(v.cast<DataType>());
}
Expr IntOperand(const Any& v) {
  if (v.is_int()) return PrimValue(IntImm(DataType::Int(64), v.raw_int()));
  if (auto* p = v.as<PrimExprNode>()) return PrimValue(GetRef<PrimExpr>(p));
  return v.cast<Expr>();
}
Expr StrOperand(const Any& v) {
  if (v.is_string()) return StringImm(v.cast<std::string>());
  return v.cast<Expr>();
}

}  // namespace

MINITVM_REGISTER_OP("relax.builtin.alloc_tensor")
    .describe("Allocate a tensor of the given shape and dtype on a device.")
    .set_num_inputs(4)
    .add_argument("shape", "Shape", "The shape.")
    .add_argument("dtype", "DataTypeImm", "The dtype.")
    .add_argument("runtime_device_index", "PrimValue", "The device index (-1: the host).")
    .add_argument("storage_scope", "StringImm", "The storage scope (\"global\").")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, true, InferBuiltinAllocTensor);

MINITVM_REGISTER_OP("relax.memory.alloc_storage")
    .describe("Allocate a storage (raw memory) of the given size in bytes.")
    .set_num_inputs(4)
    .add_argument("size", "Shape", "The size (a 1-D shape, in bytes).")
    .add_argument("virtual_device_index", "PrimValue", "The device index (-1: the host).")
    .add_argument("storage_scope", "StringImm", "The storage scope (\"global\").")
    .add_argument("dtype", "DataTypeImm", "The dtype of the storage.")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, true, InferAllocStorage);

MINITVM_REGISTER_OP("relax.memory.alloc_tensor")
    .describe("A tensor of the given shape and dtype placed in a storage at an offset.")
    .set_num_inputs(4)
    .add_argument("storage", "Object", "The storage.")
    .add_argument("offset", "PrimValue", "The offset in bytes.")
    .add_argument("shape", "Shape", "The shape.")
    .add_argument("dtype", "DataTypeImm", "The dtype.")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, true, InferMemAllocTensor);

MINITVM_REGISTER_OP("relax.memory.kill_storage")
    .describe("Release a storage.")
    .set_num_inputs(1)
    .add_argument("storage", "Object", "The storage.")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, false, InferKill);

MINITVM_REGISTER_OP("relax.memory.kill_tensor")
    .describe("Release a tensor.")
    .set_num_inputs(1)
    .add_argument("tensor", "Tensor", "The tensor.")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, false, InferKill);

namespace op {
namespace builtin {
Call alloc_tensor(Any shape, Any dtype, Any runtime_device_index, Any storage_scope) {
  return MakeOpCall(
      "relax.builtin.alloc_tensor",
      {ShapeOperand(shape, "relax.builtin.alloc_tensor", "shape"), DTypeOperand(dtype),
       IntOperand(runtime_device_index), StrOperand(storage_scope)});
}
}  // namespace builtin
namespace memory {
Call alloc_storage(Any size, Any virtual_device_index, Any storage_scope, Any dtype) {
  return MakeOpCall(
      "relax.memory.alloc_storage",
      {ShapeOperand(size, "relax.memory.alloc_storage", "size"), IntOperand(virtual_device_index),
       StrOperand(storage_scope), DTypeOperand(dtype)});
}
Call alloc_tensor(Expr storage, Any offset, Any shape, Any dtype) {
  return MakeOpCall(
      "relax.memory.alloc_tensor",
      {storage, IntOperand(offset), ShapeOperand(shape, "relax.memory.alloc_tensor", "shape"),
       DTypeOperand(dtype)});
}
Call kill_storage(Expr storage) { return MakeOpCall("relax.memory.kill_storage", {storage}); }
Call kill_tensor(Expr tensor) { return MakeOpCall("relax.memory.kill_tensor", {tensor}); }
}  // namespace memory
}  // namespace op

MINITVM_REGISTER_GLOBAL("relax.op.builtin.alloc_tensor").set_body_typed(op::builtin::alloc_tensor);
MINITVM_REGISTER_GLOBAL("relax.op.memory.alloc_storage").set_body_typed(op::memory::alloc_storage);
MINITVM_REGISTER_GLOBAL("relax.op.memory.alloc_tensor").set_body_typed(op::memory::alloc_tensor);
MINITVM_REGISTER_GLOBAL("relax.op.memory.kill_storage").set_body_typed(op::memory::kill_storage);
MINITVM_REGISTER_GLOBAL("relax.op.memory.kill_tensor").set_body_typed(op::memory::kill_tensor);

}  // namespace relax
}  // namespace minitvm
