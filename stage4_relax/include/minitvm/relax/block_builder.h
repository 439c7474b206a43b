/*!
 * \file minitvm/relax/block_builder.h
 * \brief BlockBuilder (stage 4): builds Relax functions binding by binding, normalising every
 * expression on the way (its struct info inferred through the operator's `FInferStructInfo`,
 * nested calls bound to fresh variables) and collecting the module the functions go into.
 *
 * The C++ form of TVM's Python `relax.BlockBuilder`:
 * \code
 *   BlockBuilder bb;
 *   bb.BeginFunction("main", {x, w});
 *   bb.BeginDataflowBlock();
 *   Var lv = bb.Emit(relax::op::matmul(x, w));      // DataflowVar "lv"
 *   Var gv = bb.EmitOutput(relax::op::nn::relu(lv)); // Var "gv", visible after the block
 *   bb.EndBlock();
 *   bb.EmitFuncOutput(gv);
 *   IRModule mod = bb.Get();
 * \endcode
 * Misuse is a ValueError that says what was expected: `EmitOutput` outside a dataflow block, a
 * DataflowVar used after its block, a second function begun inside the first, an impure call
 * emitted inside a dataflow block.
 */
#ifndef MINITVM_RELAX_BLOCK_BUILDER_H_
#define MINITVM_RELAX_BLOCK_BUILDER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/relax/expr.h"
#include "minitvm/te/tensor.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax {

class BlockBuilderImpl;

/*! \brief The node behind a BlockBuilder handle (holds the mutable building state). */
class BlockBuilderNode : public Object {
 public:
  std::unique_ptr<BlockBuilderImpl> impl;
  ~BlockBuilderNode() override;
  MINITVM_DECLARE_OBJECT_INFO(BlockBuilderNode, Object, "relax.BlockBuilder");
};

/*! \brief Builds Relax functions into an IRModule. A handle: copies share one builder. */
class BlockBuilder : public ObjectRef {
 public:
  /*! \brief A builder over `mod` (an empty module by default). */
  explicit BlockBuilder(std::optional<IRModule> mod = std::nullopt);
  explicit BlockBuilder(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  const BlockBuilderNode* operator->() const {
    return static_cast<const BlockBuilderNode*>(data_.get());
  }
  using ContainerType = BlockBuilderNode;

  // ---- scopes ----
  /*! \brief Start function `name` with `params` (their struct info must be set). */
  void BeginFunction(const std::string& name, Array<Var> params, Map<String, Any> attrs = {},
                     bool is_pure = true);
  /*! \brief Finish the current function returning `output`; adds it to the module. */
  GlobalVar EmitFuncOutput(const Expr& output);
  void BeginDataflowBlock();
  void BeginBindingBlock();
  /*! \brief Close the current block (the function keeps it). */
  BindingBlock EndBlock();
  /*! \brief Whether the innermost open block is a dataflow block. */
  bool CurrentBlockIsDataflow() const;

  // ---- bindings ----
  /*! \brief Normalise `expr` and bind it to a new var (a DataflowVar in a dataflow block). */
  Var Emit(const Expr& expr, const std::string& name_hint = "");
  /*! \brief Emit a binding of a plain Var inside a dataflow block (visible after it). */
  Var EmitOutput(const Expr& expr, const std::string& name_hint = "");
  /*! \brief `var = R.match_cast(value, info)`. */
  Var EmitMatchCast(const Expr& value, const StructInfo& info, const std::string& name_hint = "");
  /*! \brief Emit an already-built binding (its var kind must suit the block). */
  void EmitNormalized(const Binding& binding);

  // ---- TE ----
  /*!
   * \brief `emit_te`: turn a tensor-expression computation into a PrimFunc (added to the
   * module under a fresh name based on `name_hint`) and emit `R.call_tir` to it. `args` are the
   * Relax arguments; `fte` receives one te placeholder per tensor argument (in order) and returns
   * the output tensor(s). Symbolic dimensions pass through as TIR variables.
   */
  Var EmitTE(const std::function<Array<te::Tensor>(const Array<te::Tensor>&)>& fte,
             const Array<Expr>& args, const std::string& name_hint);
  /*! \brief Like EmitTE, but return the `call_tir` call unbound (TVM's `call_te`). */
  Expr CallTE(const std::function<Array<te::Tensor>(const Array<te::Tensor>&)>& fte,
              const Array<Expr>& args, const std::string& name_hint);

  // ---- module ----
  /*! \brief Add `func` under a name made unique from `name_hint`; returns its GlobalVar. */
  GlobalVar AddFunction(const BaseFunc& func, const std::string& name_hint);
  /*! \brief Replace the function of `gv`. */
  void UpdateFunction(const GlobalVar& gv, const BaseFunc& func);
  /*! \brief The module built so far. */
  IRModule Get() const;

  // ---- normalisation ----
  /*!
   * \brief Fill in the struct info of `expr` and of everything inside it, in place of missing
   * info; calls' struct info comes from their op's FInferStructInfo (or the callee's
   * FuncStructInfo). Inference errors name the op and are re-thrown with the binding's name.
   */
  Expr Normalize(const Expr& expr);
  /*! \brief The struct info of `expr` after normalising it. */
  StructInfo InferStructInfo(const Expr& expr) { return GetStructInfo(Normalize(expr)); }
  /*! \brief The module a GlobalVar refers to (for callee lookup during inference). */
  std::optional<BaseFunc> LookupFunction(const GlobalVar& gv) const;
};

/*! \brief Normalise one expression without a module (calls of GlobalVars get opaque info). */
Expr Normalize(const Expr& expr);

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_BLOCK_BUILDER_H_
