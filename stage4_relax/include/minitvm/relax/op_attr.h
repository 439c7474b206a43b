/*!
 * \file minitvm/relax/op_attr.h
 * \brief The attribute keys every Relax operator may carry in the op-attribute tables of
 * `ir/op.h` (stage 4), and the operator pattern kinds fusion reads.
 *
 * | key                | value (Any)                                   | set by            |
 * |--------------------|-----------------------------------------------|-------------------|
 * | `FInferStructInfo` | PackedFunc(Call) → StructInfo                 | the op's file     |
 * | `FPurity`          | bool: the op has no side effect               | the op's file     |
 * | `TOpPattern`       | int, an OpPatternKind                         | the op's file     |
 * | `FReference`       | PackedFunc(Call, Array<Any> args) → Any       | the interpreter   |
 * | `FLegalize`        | PackedFunc(BlockBuilder, Call) → Expr         | LegalizeOps       |
 * | `TAttrDefaults`    | Map<String, Any>: the keyword attributes, in  | the op's file     |
 * |                    | TVM's Python parameter order, with defaults   |                   |
 *
 * The tensor (Relax expression) arguments of an op are its `OpNode::arguments`; everything
 * else is a keyword attribute stored in `Call::attrs` under TVM's Python parameter name, in the
 * order of `TAttrDefaults`. That one convention serves the C++ constructors, the Python
 * `relax.op.*` functions, the printer (`R.nn.conv2d(x, w, strides=[1, 1], ...)`) and the parser.
 *
 * Inference functions throw `ValueError`/`TypeError` naming the op, the argument and both
 * shapes or dtypes; the BlockBuilder adds which binding was being normalised.
 */
#ifndef MINITVM_RELAX_OP_ATTR_H_
#define MINITVM_RELAX_OP_ATTR_H_

#include "minitvm/ir/op.h"
#include "minitvm/relax/expr.h"

namespace minitvm {
namespace relax {

constexpr const char* kFInferStructInfo = "FInferStructInfo";
constexpr const char* kFPurity = "FPurity";
constexpr const char* kTOpPattern = "TOpPattern";
constexpr const char* kFReference = "FReference";
constexpr const char* kFLegalize = "FLegalize";
constexpr const char* kTAttrDefaults = "TAttrDefaults";

/*! \brief TVM's operator pattern kinds (fusion groups ops by them); same numbers as TVM. */
enum OpPatternKind : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};

/*!
 * \brief A call of the op named `name` ("relax.nn.conv2d") with its Relax arguments and keyword
 * attributes: checks the argument count, refuses unknown attribute names (listing the known
 * ones), fills missing attributes from `TAttrDefaults` and orders them as declared. Struct info
 * is not inferred here (the BlockBuilder's Normalize does it).
 */
Call MakeOpCall(const std::string& name, Array<Expr> args, Map<String, Any> attrs = {},
                Array<StructInfo> sinfo_args = {});

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_OP_ATTR_H_
