/*!
 * \file minitvm/tir/builtin.h
 * \brief The TIR intrinsics as registered operators (stage 2): one table of `tir.*` names and
 * their properties, which the builders, the interpreter, the TVMScript printer and parser, the
 * vectorizer and the LLVM code generator all read.
 *
 * A `tir::Call` names its callee by string ("tir.exp"); the operator of that name in the
 * registry of `ir/op.h` carries the callee's properties as attributes, the same mechanism the
 * Relax operators use:
 *
 * | attribute              | type             | meaning                                        |
 * |------------------------|------------------|------------------------------------------------|
 * | num_inputs (op field)  | int              | the number of arguments                        |
 * | "TFloatOnly"           | bool             | computes on floats; integer operands are cast  |
 * | "TVectorizable"        | bool             | VectorizeLoop may apply it lane-wise           |
 * | "FReference"           | MathReference    | the scalar double-precision reference          |
 * | "TScriptPrinterName"   | String           | TVMScript spells it `T.<name>(...)`            |
 * | "TLLVMIntrinsic"       | String           | the LLVM intrinsic, e.g. "llvm.exp"            |
 * | "TExternName"          | String           | the libm (and libmvec) function, e.g. "exp"    |
 * | "TScriptResultDType"   | String           | an opaque intrinsic's result dtype when the    |
 * |                        |                  | script gives none: a dtype ("handle"), "argN"  |
 * |                        |                  | (the dtype of argument N) or "" (explicit)     |
 * | "TScriptDtypePrintLocation" | String      | "first"/"last": where TVMScript writes the     |
 * |                        |                  | dtype among the arguments (else not written)   |
 * | "TTargetOnly"          | String           | where an opaque intrinsic runs ("the CUDA      |
 * |                        |                  | back end"): the interpreter refuses it         |
 *
 * Adding a math intrinsic is one row in `src/tir/builtin.cc`.
 */
#ifndef MINITVM_TIR_BUILTIN_H_
#define MINITVM_TIR_BUILTIN_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/op.h"

namespace minitvm {
namespace tir {

/*! \brief The attribute keys of the intrinsic table. */
namespace attr {
constexpr const char* kFloatOnly = "TFloatOnly";
constexpr const char* kVectorizable = "TVectorizable";
constexpr const char* kReference = "FReference";
constexpr const char* kScriptPrinterName = "TScriptPrinterName";
constexpr const char* kLLVMIntrinsic = "TLLVMIntrinsic";
constexpr const char* kExternName = "TExternName";
constexpr const char* kScriptResultDType = "TScriptResultDType";
constexpr const char* kScriptDTypeLocation = "TScriptDtypePrintLocation";
constexpr const char* kTargetOnly = "TTargetOnly";
}  // namespace attr

/*! \brief A one-operand scalar reference implementation (computed in double). */
using UnaryMathFn = double (*)(double);
/*! \brief A two-operand scalar reference implementation (computed in double). */
using BinaryMathFn = double (*)(double, double);

/*!
 * \brief The "FReference" attribute of a math intrinsic: plain function pointers, so that the
 * interpreter calls them per element without going through a PackedFunc.
 */
class MathReferenceNode : public runtime::Object {
 public:
  /*! \brief Set for one-operand intrinsics. */
  UnaryMathFn unary = nullptr;
  /*! \brief Set for two-operand intrinsics. */
  BinaryMathFn binary = nullptr;
  MINITVM_DECLARE_OBJECT_INFO(MathReferenceNode, runtime::Object, "tir.MathReference");
};

/*! \brief Handle to a MathReferenceNode. */
class MathReference : public runtime::ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(MathReference, runtime::ObjectRef, MathReferenceNode);
  explicit MathReference(UnaryMathFn f);
  explicit MathReference(BinaryMathFn f);
};

/*! \brief The registered intrinsic `name` ("tir.exp"), or nullopt for an unregistered name. */
std::optional<Op> GetIntrinsic(const std::string& name);

/*! \brief Every registered intrinsic (the operators named "tir.*"), sorted by name. */
std::vector<Op> ListIntrinsics();

/*! \brief The scalar reference implementation of `op`, or null when it has none. */
const MathReferenceNode* GetMathReference(const Op& op);

/*!
 * \brief The intrinsic TVMScript spells `T.<script_name>` (e.g. "exp" gives "tir.exp"), or
 * nullopt when no registered intrinsic has that "TScriptPrinterName".
 */
std::optional<Op> GetIntrinsicByScriptName(const std::string& script_name);

/*! \brief A string attribute of `op`, or "" when it is not set. */
std::string GetIntrinsicString(const Op& op, const char* key);

/*! \brief A bool attribute of `op`, or false when it is not set. */
bool GetIntrinsicFlag(const Op& op, const char* key);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_BUILTIN_H_
