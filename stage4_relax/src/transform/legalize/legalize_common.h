/*!
 * \file transform/legalize/legalize_common.h
 * \brief Helpers shared by the `FLegalize` functions of the Relax operators (stage 4): reading
 * a call's keyword attributes, its inferred output shape and dtype, and emitting a TE
 * computation as `R.call_tir` through `BlockBuilder::CallTE`.
 *
 * Every legalizer has the signature of the `FLegalize` attribute (op_attr.h):
 * `(BlockBuilder bb, Call call) -> Expr`, where `call` is normalised (leaf arguments, struct
 * info inferred). It returns the replacement (a `call_tir`, unbound); it may emit helper
 * bindings into `bb`'s current block first.
 */
#ifndef MINITVM_RELAX_TRANSFORM_LEGALIZE_LEGALIZE_COMMON_H_
#define MINITVM_RELAX_TRANSFORM_LEGALIZE_LEGALIZE_COMMON_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/te/operation.h"

namespace minitvm {
namespace relax {
namespace legalize {

using TEFunc = std::function<Array<te::Tensor>(const Array<te::Tensor>&)>;

/*! \brief The op's name, for messages ("relax.nn.conv2d"). */
std::string OpName(const Call& call);

/*! \brief The tensor struct info of argument `i`; ValueError naming the op when not a tensor. */
const TensorStructInfoNode* ArgTensor(const Call& call, size_t i);

/*! \brief The call's inferred output shape (a tensor result); ValueError when unknown. */
Array<PrimExpr> OutShape(const Call& call);
/*! \brief The call's inferred output dtype (a tensor result); ValueError when unknown. */
DataType OutDType(const Call& call);

/*! \brief Attribute readers; `fallback` when the attribute is absent or None. */
int64_t AttrInt(const Call& call, const std::string& key, int64_t fallback);
double AttrFloat(const Call& call, const std::string& key, double fallback);
bool AttrBool(const Call& call, const std::string& key, bool fallback);
std::string AttrStr(const Call& call, const std::string& key, const std::string& fallback);
/*! \brief An int list attribute (an int becomes a one-element list); nullopt when None. */
std::optional<std::vector<int64_t>> AttrInts(const Call& call, const std::string& key);
/*! \brief A dtype attribute; Void when None. */
DataType AttrDType(const Call& call, const std::string& key);

/*! \brief `bb.CallTE(f, args, name)`: the call_tir replacing `call`. */
Expr CallTE(BlockBuilder bb, const std::string& name, const Array<Expr>& args, const TEFunc& f);
/*! \brief As CallTE for a computation with one output. */
Expr CallTE1(BlockBuilder bb, const std::string& name, const Array<Expr>& args,
             const std::function<te::Tensor(const Array<te::Tensor>&)>& f);

/*! \brief Normalise a possibly negative axis against `ndim`; ValueError naming the op. */
int64_t NormAxis(const Call& call, int64_t axis, int64_t ndim);

}  // namespace legalize
}  // namespace relax
}  // namespace minitvm

/*! \brief `MINITVM_RELAX_LEGALIZE("relax.add") { ... return expr; });` sets the op's FLegalize. */
#define MINITVM_RELAX_LEGALIZE(OpName)        \
  MINITVM_REGISTER_OP(OpName).set_attr_typed(                          \
      ::minitvm::relax::kFLegalize,                                    \
      [](::minitvm::relax::BlockBuilder bb, ::minitvm::relax::Call call) -> ::minitvm::relax::Expr

#endif  // MINITVM_RELAX_TRANSFORM_LEGALIZE_LEGALIZE_COMMON_H_
