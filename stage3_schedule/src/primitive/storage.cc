/*!
 * \file primitive/storage.cc
 * \brief `set_scope` and `storage_align` (stage 3): where an intermediate buffer lives and how
 * its rows are padded.
 *
 * Both apply only to buffers allocated inside the function (a parameter's memory belongs to
 * the caller). storage_align records `buffer_dim_align` on the writing block — as in TVM, a flat
 * list of (buffer_index, axis, factor, offset) tuples — for lowering to pad the stride of `axis` to
 * `factor * k + offset` (the classic trick against shared-memory bank conflicts).
 */
#include "../instruction.h"
#include "../utils.h"

namespace minitvm {
namespace tir {
namespace {

using namespace sched;

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

/*! \brief set_scope: the `buffer_index`-th buffer the block writes lives in `scope`. */
Array<ObjectRef> SetScope(ScheduleNode* self, const BlockRV& block_rv, int64_t buffer_index,
                          const std::string& scope) {
  // Step 1: the block, the scope and the buffer (allocated in the function).
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  CheckStorageScope(scope);
  Buffer buf = BlockBuffer(block, buffer_index, /*write=*/true, "set_scope");
  CheckAllocated(index, block, buf, "set_scope");
  if (buf->scope.str() == scope) return {};
  // Step 2: the same buffer in the new scope, everywhere.
  Buffer now = buf;
  now.CopyOnWrite()->scope = scope;
  Stmt body = ReplaceBuffers(index.func()->body, {{buf.get(), now}});
  self->mutable_state()->Replace(func, WithBody(index.func(), body));
  return {};
}

/*! \brief storage_align: pad the stride of `axis` of a written buffer to `factor * k + offset`. */
Array<ObjectRef> StorageAlign(ScheduleNode* self, const BlockRV& block_rv, int64_t buffer_index,
                              int64_t axis, int64_t factor, int64_t offset) {
  // Step 1: the block, the buffer (allocated in the function), the axis and the factor.
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  const BlockNode* block = AsBlock(stmt);
  const int64_t given_axis = axis;
  Buffer buf = BlockBuffer(block, buffer_index, /*write=*/true, "storage_align");
  CheckAllocated(index, block, buf, "storage_align");
  int64_t ndim = static_cast<int64_t>(buf->shape.size());
  if (axis < 0) axis += ndim;
  if (axis < 0 || axis >= ndim || factor <= 0) {
    ScheduleError err("StorageAlignInvalidError",
                      "storage_align: axis " + std::to_string(given_axis) + " of a " +
                          std::to_string(ndim) + "-d buffer with factor " + std::to_string(factor));
    err.Check("the axis is a dimension of the buffer", axis >= 0 && axis < ndim)
        .Check("the factor is positive", factor > 0)
        .At(GetRef<ObjectRef>(block), "aligning " + buf->name.str());
    throw err;
  }
  // Step 2: buffer_dim_align, in TVM's form: a list of [buffer_index, axis, factor, offset],
  // one per aligned dimension; a new alignment of the same buffer and axis replaces the old.
  Array<Any> tuples;
  if (auto old = block->annotations.Get(String("buffer_dim_align"))) {
    auto valid = [](const Any& a) {
      auto arr = a.try_cast<Array<Any>>();
      if (!arr || arr->size() != 4) return false;
      for (const Any& x : *arr) {
        if (!x.try_cast<int64_t>()) return false;
      }
      return true;
    };
    auto arr = old->try_cast<Array<Any>>();
    bool ok = arr.has_value();
    for (size_t i = 0; ok && i < arr->size(); ++i) ok = valid((*arr)[i]);
    if (!ok) {
      ScheduleError err("StorageAlignInvalidAnnotationError",
                        "storage_align: the block's \"buffer_dim_align\" annotation is " +
                            old->ToString() +
                            ", not a list of (buffer_index, axis, factor, offset) tuples");
      err.At(GetRef<ObjectRef>(block), "this annotation");
      throw err;
    }
    tuples = *arr;
  }
  Array<Any> entry{Any(buffer_index), Any(axis), Any(factor), Any(offset)};
  bool replaced = false;
  for (size_t i = 0; i < tuples.size(); ++i) {
    Array<Any> t = tuples[i].cast<Array<Any>>();
    if (t[0].cast<int64_t>() == buffer_index && t[1].cast<int64_t>() == axis) {
      tuples.Set(i, Any(entry));
      replaced = true;
      break;
    }
  }
  if (!replaced) tuples.push_back(Any(entry));
  Array<Any> per_buffer = tuples;
  Block b = GetRef<Block>(block);
  b.CopyOnWrite()->annotations.Set(String("buffer_dim_align"), Any(per_buffer));
  self->mutable_state()->Replace(func, ReplaceInFunc(index.func(), {{block, b}}));
  return {};
}

}  // namespace

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("SetScope", "set_scope", {"block"},
                                               {"buffer_index", "storage_scope"}, SetScope));

MINITVM_REGISTER_INST_KIND(MakeInstructionKind("StorageAlign", "storage_align", {"block"},
                                               {"buffer_index", "axis", "factor", "offset"},
                                               StorageAlign));

}  // namespace tir
}  // namespace minitvm
