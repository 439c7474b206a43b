/*!
 * \file minitvm/tir/schedule/tensor_intrin.h
 * \brief Tensor intrinsics (stage 3): a named pair of PrimFuncs — a *description* of a small
 * computation (e.g. a 16-element dot product) and an *implementation* of it — that
 * `tensorize` swaps in for a matching part of a schedule.
 *
 * Both functions take the same buffers in the same order. The description's body is a loop
 * nest around one block; tensorize matches it against the scheduled subtree (loop extents,
 * block iterators, the body up to renaming, buffer accesses up to a constant offset per
 * tile) and replaces the subtree by the implementation's body, with its buffers mapped onto
 * the tile of the real buffers.
 *
 * minitvm ships one CPU example, "dot_16_f32": `C[0] += A[k] * B[k]` for k < 16, implemented
 * as an unrolled loop; its TVMScript text is `Dot16DescScript()` / `Dot16ImplScript()`.
 */
#ifndef MINITVM_TIR_SCHEDULE_TENSOR_INTRIN_H_
#define MINITVM_TIR_SCHEDULE_TENSOR_INTRIN_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/tir/function.h"

namespace minitvm {
namespace tir {

/*! \brief The node of a TensorIntrin. */
class TensorIntrinNode : public Object {
 public:
  PrimFunc desc;
  PrimFunc impl;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("desc", &desc);
    v->Visit("impl", &impl);
  }
  MINITVM_DECLARE_OBJECT_INFO(TensorIntrinNode, Object, "tir.TensorIntrin");
};

/*! \brief A description/implementation pair. */
class TensorIntrin : public ObjectRef {
 public:
  /*! \brief ValueError when the two functions do not take the same buffers. */
  TensorIntrin(PrimFunc desc, PrimFunc impl);
  /*! \brief Register under `name` (ValueError when taken, unless override_existing). */
  static void Register(const std::string& name, const TensorIntrin& intrin,
                       bool override_existing = false);
  /*! \brief The intrinsic `name`; ValueError listing the registered ones when unknown. */
  static TensorIntrin Get(const std::string& name);
  /*! \brief The intrinsic `name`, or nullopt. */
  static std::optional<TensorIntrin> TryGet(const std::string& name);
  /*! \brief The registered names. */
  static std::vector<std::string> ListNames();
  MINITVM_DEFINE_OBJECT_REF_METHODS(TensorIntrin, ObjectRef, TensorIntrinNode);
};

/*! \brief TVMScript of the description of "dot_16_f32". */
std::string Dot16DescScript();
/*! \brief TVMScript of the implementation of "dot_16_f32". */
std::string Dot16ImplScript();
/*! \brief Register the shipped intrinsics ("dot_16_f32") by parsing their TVMScript. Idempotent. */
void RegisterBuiltinTensorIntrins();

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_SCHEDULE_TENSOR_INTRIN_H_
