/*!
 * \file op_common.h
 * \brief Helpers shared by the Relax operator files (stage 4): reading a call's arguments as
 * tensors with errors that name the op and the argument, reading keyword attributes, printing
 * shapes for messages, axis normalisation, numpy broadcasting of symbolic shapes, and the
 * registration helpers every op file uses.
 */
#ifndef MINITVM_SRC_OP_OP_COMMON_H_
#define MINITVM_SRC_OP_OP_COMMON_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/arith/analyzer.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace relax {
namespace op_detail {

using runtime::ArrayNode;

// ---- messages --------------------------------------------------------------------------------

/*! \brief The op's name for messages ("relax.add"), or "call" for a non-op callee. */
std::string OpName(const Call& call);
/*! \brief The documented name of argument i ("x1"), or "argument i". */
std::string ArgName(const Call& call, int i);
/*! \brief "(2, n, 4)": a shape for messages. */
std::string ShapeStr(const Array<PrimExpr>& shape);
/*! \brief One dimension for messages ("4", "n", "n * 2"). */
std::string DimStr(const PrimExpr& dim);
/*! \brief "(2, 3)" or "of unknown shape" / "of rank 2": a tensor's shape for messages. */
std::string TensorShapeStr(const TensorStructInfoNode* t);

// ---- arguments -------------------------------------------------------------------------------

/*! \brief Argument i's struct info; InternalError when it has none (the call is unnormalised). */
StructInfo ArgInfo(const Call& call, int i);
/*! \brief Argument i as a tensor; TypeError naming the op and argument when it is not one. */
const TensorStructInfoNode* TensorArg(const Call& call, int i);
/*! \brief Checks the number of arguments (for variadic ops). */
void CheckNumArgs(const Call& call, size_t lo, size_t hi);
/*! \brief The dimensions of argument i when known. */
inline std::optional<Array<PrimExpr>> ShapeOf(const TensorStructInfoNode* t) {
  return t->GetShape();
}
/*! \brief The values of a shape argument (a ShapeExpr or an expression of shape struct info). */
std::optional<Array<PrimExpr>> ShapeArgValues(const Call& call, int i, int64_t* ndim);

// ---- attributes ------------------------------------------------------------------------------

Any AttrOf(const Call& call, const std::string& key);
int64_t IntAttr(const Call& call, const std::string& key);
std::optional<int64_t> OptIntAttr(const Call& call, const std::string& key);
bool BoolAttr(const Call& call, const std::string& key);
double FloatAttr(const Call& call, const std::string& key);
std::string StrAttr(const Call& call, const std::string& key);
std::optional<std::string> OptStrAttr(const Call& call, const std::string& key);
/*! \brief An int or a list of ints as a vector; nullopt for None. */
std::optional<std::vector<int64_t>> OptIntListAttr(const Call& call, const std::string& key);
std::vector<int64_t> IntListAttr(const Call& call, const std::string& key);
/*! \brief A dtype attribute; Void for None, "" or "void". */
DataType DTypeAttr(const Call& call, const std::string& key);

// ---- shapes ----------------------------------------------------------------------------------

/*! \brief An int64 dimension constant. */
inline PrimExpr Int64(int64_t v) { return IntImm(DataType::Int(64), v); }
/*! \brief A dimension as int64 and simplified. */
PrimExpr NormDim(const PrimExpr& d);
/*! \brief axis in [-ndim, ndim) → [0, ndim); ValueError naming the op and argument otherwise. */
int64_t NormalizeAxis(const Call& call, int64_t axis, int64_t ndim, const std::string& what);
/*! \brief Normalised, checked for duplicates. */
std::vector<int64_t> NormalizeAxes(const Call& call, const std::vector<int64_t>& axes, int64_t ndim,
                                   const std::string& what);
/*! \brief Whether two dimensions are provably equal. */
bool ProveEqual(const PrimExpr& a, const PrimExpr& b);
/*! \brief Whether two dimensions are provably different. */
bool ProveNotEqual(const PrimExpr& a, const PrimExpr& b);
/*!
 * \brief numpy broadcasting of two shapes; ValueError naming both arguments when two static
 * dimensions differ and neither is 1; nullopt when a symbolic pair cannot be decided.
 */
std::optional<Array<PrimExpr>> BroadcastShapes(const Call& call, const Array<PrimExpr>& a,
                                               const std::string& a_name, const Array<PrimExpr>& b,
                                               const std::string& b_name);
/*!
 * \brief A shape operand from a constructor's argument: a shape-valued Expr as is, a list of
 * dimensions (ints, PrimExprs) as a ShapeExpr of int64 dims; TypeError naming `op` otherwise.
 */
Expr ShapeOperand(const Any& v, const std::string& op, const std::string& what);
/*! \brief A tensor struct info from known dimensions (as a ShapeExpr). */
StructInfo TensorFromShape(const Array<PrimExpr>& shape, DataType dtype);
/*!
 * \brief The result when the values of shape argument i are unknown: a tensor of that shape
 * when the argument is a variable, else of rank ndim.
 */
StructInfo TensorOfUnknownShapeArg(const Call& call, int i, DataType dtype, int64_t ndim);
/*! \brief A tensor of dtype whose shape is shape argument i (ShapeArgValues). */
StructInfo TensorOfShapeArg(const Call& call, int i, DataType dtype);
/*! \brief The product of the dimensions. */
PrimExpr ShapeProduct(const Array<PrimExpr>& shape);

/*! \brief Both dtypes must agree when known: TypeError naming both arguments otherwise. */
DataType UnifyDType(const Call& call, DataType a, const std::string& a_name, DataType b,
                    const std::string& b_name);
/*! \brief TypeError unless the dtype is unknown or floating point. */
void RequireFloat(const Call& call, int i, DataType dtype);

// ---- registration ----------------------------------------------------------------------------

/*! \brief Attribute normaliser run by MakeOpCall after the defaults are filled in. */
using FNormalizeAttrs = std::function<Map<String, Any>(const Array<Expr>&, Map<String, Any>)>;
/*! \brief Registers the normaliser of `op_name` (e.g. conv2d: strides 1 → [1, 1]). */
bool RegisterAttrNormalizer(const std::string& op_name, FNormalizeAttrs f);
/*! \brief The attribute map type of TAttrDefaults. */
using AttrMap = Map<String, Any>;
/*! \brief A list attribute value: Array of int64. */
Array<Any> IntList(const std::vector<int64_t>& v);
/*! \brief An int-or-list attribute value expanded to n values (1 → [1, 1]). */
Any ExpandIntList(const Any& v, size_t n, const std::string& op, const std::string& key,
                  const std::vector<size_t>& allowed);

/*!
 * \brief The result of an op's inference placed on its inputs' virtual device: the tensors in
 * `result` that name no device take the one the tensor arguments (and tensors in tuple
 * arguments) are on; ValueError naming both arguments when two are on different devices.
 * Every op registered with MINITVM_RELAX_OP_INFER goes through it, as TVM's ops each do.
 */
StructInfo WithArgVDevice(const Call& call, StructInfo result);

/*! \brief A typed FInferStructInfo. */
using FInfer = StructInfo (*)(const Call&);

}  // namespace op_detail

/*! \brief Common registration prefix of a Relax op. */
#define MINITVM_RELAX_OP_INFER(F)                                                   \
  set_attr_typed(::minitvm::relax::kFInferStructInfo, [](Call call) -> StructInfo { \
    return ::minitvm::relax::op_detail::WithArgVDevice(call, F(call));              \
  })

/*!
 * \brief The attributes every Relax op registers: its fusion pattern (an OpPatternKind), its
 * purity and its struct info inference `Infer(call)`. Use as `.MINITVM_RELAX_OP_TRAITS(...)`.
 */
#define MINITVM_RELAX_OP_TRAITS(Pattern, Pure, Infer)                \
  set_attr(::minitvm::relax::kTOpPattern, static_cast<int>(Pattern)) \
      .set_attr(::minitvm::relax::kFPurity, Pure)                    \
      .MINITVM_RELAX_OP_INFER(Infer)

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_SRC_OP_OP_COMMON_H_
