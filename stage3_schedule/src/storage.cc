/*!
 * \file storage.cc
 * \brief `set_scope` and `storage_align` (stage 3): where an intermediate buffer lives and how
 * its rows are padded.
 *
 * Both apply only to buffers allocated inside the function (a parameter's memory belongs to
 * the caller). storage_align records `buffer_dim_align` on the writing block — a list per
 * written buffer of `[axis, factor, offset]` — for lowering to pad the stride of `axis` to
 * `factor * k + offset` (the classic trick against shared-memory bank conflicts).
 */
#include "instruction.h"
#include "utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

Buffer WrittenBuffer(const BlockNode* block, int64_t i, const std::string& primitive) {
  if (i < 0 || i >= static_cast<int64_t>(block->writes.size())) {
    ScheduleError err("IndexOutOfRangeError",
                      primitive + ": block " + BlockName(block) + " writes " +
                          std::to_string(block->writes.size()) + " buffer(s); index " +
                          std::to_string(i) + " is out of range");
    err.Check("the buffer index is within the block's writes", false)
        .At(GetRef<ObjectRef>(block), "writes " + std::to_string(block->writes.size()));
    throw err;
  }
  return block->writes[i]->buffer;
}

void CheckAllocated(const FuncIndex& index, const BlockNode* block, const Buffer& buf,
                    const std::string& primitive) {
  if (AllocatingBlock(index, buf.get()) != nullptr) return;
  ScheduleError err("NotAllocatedBufferError",
                    primitive + " applies to buffers allocated in the function, but " +
                        buf->name.str() + " is a function parameter");
  err.Subject("block " + BlockName(block))
      .Check("the buffer is allocated by a block (T.alloc_buffer)", false)
      .At(GetRef<ObjectRef>(block), "writes the parameter " + buf->name.str());
  throw err;
}

Array<ObjectRef> ApplySetScope(ScheduleNode* self, const Array<Any>& inputs,
                               const Array<Any>& attrs) {
  auto [func, stmt] = self->Resolve(inputs[0].cast<ObjectRef>());
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  std::string scope = attrs[1].cast<std::string>();
  CheckStorageScope(scope);
  Buffer buf = WrittenBuffer(block, attrs[0].cast<int64_t>(), "set_scope");
  CheckAllocated(index, block, buf, "set_scope");
  if (buf->scope.str() == scope) return {};
  Buffer now = buf;
  now.CopyOnWrite()->scope = scope;
  Stmt body = ReplaceBuffers(index.func()->body, {{buf.get(), now}});
  self->mutable_state()->Replace(func, WithBody(index.func(), body));
  return {};
}

Array<ObjectRef> ApplyStorageAlign(ScheduleNode* self, const Array<Any>& inputs,
                                   const Array<Any>& attrs) {
  auto [func, stmt] = self->Resolve(inputs[0].cast<ObjectRef>());
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  int64_t buffer_index = attrs[0].cast<int64_t>();
  int64_t axis = attrs[1].cast<int64_t>();
  int64_t factor = attrs[2].cast<int64_t>();
  int64_t offset = attrs[3].cast<int64_t>();
  Buffer buf = WrittenBuffer(block, buffer_index, "storage_align");
  CheckAllocated(index, block, buf, "storage_align");
  int64_t ndim = static_cast<int64_t>(buf->shape.size());
  if (axis < 0) axis += ndim;
  if (axis < 0 || axis >= ndim || factor <= 0) {
    ScheduleError err("StorageAlignInvalidError",
                      "storage_align: axis " + std::to_string(attrs[1].cast<int64_t>()) + " of a " +
                          std::to_string(ndim) + "-d buffer with factor " + std::to_string(factor));
    err.Check("the axis is a dimension of the buffer", axis >= 0 && axis < ndim)
        .Check("the factor is positive", factor > 0)
        .At(GetRef<ObjectRef>(block), "aligning " + buf->name.str());
    throw err;
  }
  // buffer_dim_align: for each written buffer, a list of [axis, factor, offset].
  Array<Any> per_buffer;
  if (auto old = block->annotations.Get(String("buffer_dim_align"))) {
    per_buffer = old->cast<Array<Any>>();
  }
  while (static_cast<int64_t>(per_buffer.size()) < static_cast<int64_t>(block->writes.size())) {
    per_buffer.push_back(Array<Any>());
  }
  Array<Any> entries;
  for (const Any& e : per_buffer[buffer_index].cast<Array<Any>>()) {
    if (e.cast<Array<Any>>()[0].cast<int64_t>() != axis) entries.push_back(e);
  }
  entries.push_back(Array<Any>{Any(axis), Any(factor), Any(offset)});
  per_buffer.Set(buffer_index, Any(entries));
  Block b = GetRef<Block>(block);
  b.CopyOnWrite()->annotations.Set(String("buffer_dim_align"), Any(per_buffer));
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{block, b}}));
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND([] {
  InstructionKindInfo k;
  k.name = "SetScope";
  k.method = "set_scope";
  k.input_names = {"block"};
  k.attr_names = {"buffer_index", "storage_scope"};
  k.apply = ApplySetScope;
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  InstructionKindInfo k;
  k.name = "StorageAlign";
  k.method = "storage_align";
  k.input_names = {"block"};
  k.attr_names = {"buffer_index", "axis", "factor", "offset"};
  k.apply = ApplyStorageAlign;
  return k;
}());

}  // namespace tir
}  // namespace minitvm
