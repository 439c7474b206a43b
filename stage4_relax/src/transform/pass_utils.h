/*!
 * \file transform/pass_utils.h
 * \brief Helpers shared by the Relax passes of stage 4 (private to `src/transform`): purity of
 * a bound value, and a call rewriter that rebuilds binding blocks through a BlockBuilder so a
 * rewrite can emit helper bindings in front of the binding it replaces (LegalizeOps and
 * DecomposeOpsForInference are written on it).
 */
#ifndef MINITVM_RELAX_TRANSFORM_PASS_UTILS_H_
#define MINITVM_RELAX_TRANSFORM_PASS_UTILS_H_

#include <functional>
#include <optional>

#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"

namespace minitvm {
namespace relax {
namespace transform {

/*!
 * \brief Whether evaluating `value` has no visible side effect: leaves, tuples, calls of ops
 * whose FPurity is true and calls of pure functions. An `If` or a nested function is pure when
 * everything in it is.
 */
bool IsPureValue(const Expr& value);

/*!
 * \brief An integer attribute value (an int or an IntImm, as "num_input" may be stored), or
 * nullopt when `v` is neither.
 */
std::optional<int64_t> AttrAsInt(const Any& v);

/*! \brief Whether `e` is a call of the operator named `name`. */
bool IsOpCall(const Expr& e, const char* name);

/*!
 * \brief Rewrites calls of operators: `rewrite(bb, call)` returns the replacement of a
 * (normalised) call, or nullopt to keep it. Every binding block is rebuilt through `bb`, so the
 * rewrite may `bb.Emit` helper bindings. A binding whose value's struct info is no longer a
 * subtype of its variable's gets a fresh variable (later uses are remapped).
 */
class CallRewriter : public ExprMutator {
 public:
  using FRewrite = std::function<std::optional<Expr>(BlockBuilder, const Call&)>;
  CallRewriter(BlockBuilder bb, FRewrite rewrite)
      : bb_(std::move(bb)), rewrite_(std::move(rewrite)) {}

  Expr VisitExpr_(const CallNode* op) override;
  Array<Binding> VisitBinding(const Binding& binding) override;
  BindingBlock VisitBindingBlock(const BindingBlock& block) override;

 protected:
  BlockBuilder bb_;
  FRewrite rewrite_;
};

/*!
 * \brief Apply a CallRewriter to every Relax function of `mod` (or only `func_name` when set);
 * returns `mod` itself when nothing changed. New PrimFuncs the rewrite adds through the builder
 * join the module.
 */
IRModule RewriteCalls(const IRModule& mod, const CallRewriter::FRewrite& rewrite,
                      const std::optional<std::string>& func_name = std::nullopt);

}  // namespace transform
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_TRANSFORM_PASS_UTILS_H_
