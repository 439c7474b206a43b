/*!
 * \file transform/decompose_ops.cc
 * \brief DecomposeOpsForInference (stage 4), TVM's
 * `relax.transform.DecomposeOpsForInference(func_name=None)`: `nn.batch_norm` becomes the
 * arithmetic of inference, `(x - moving_mean) / sqrt(moving_var + epsilon) * gamma + beta`, with
 * the per-channel vectors expanded to broadcast along `axis`; the call's tuple result is
 * `(out, moving_mean, moving_var)`. The `training` flag is ignored: this is the inference
 * form. `nn.layer_norm` stays (it has its own legalization).
 *
 * `DecomposeInferenceBatchNorm()` (minitvm, a step of the "default" pipeline) does the same to
 * the batch norms whose `training` attribute is False only.
 */
#include "minitvm/lownumpy/creation.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "transform/legalize/legalize_common.h"
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

std::optional<Expr> DecomposeBatchNorm(BlockBuilder bb, const Call& call, bool inference_only) {
  if (!IsOp(call->op, "relax.nn.batch_norm")) return std::nullopt;
  if (inference_only && legalize::AttrBool(call, "training", true)) return std::nullopt;
  const auto* x = GetStructInfoAs<TensorStructInfoNode>(call->args[0]);
  if (!x || x->IsUnknownNdim() || x->IsUnknownDtype()) return std::nullopt;
  int64_t ndim = x->ndim;
  int64_t axis = legalize::NormAxis(call, legalize::AttrInt(call, "axis", 1), ndim);
  double eps = legalize::AttrFloat(call, "epsilon", 1e-5);
  bool center = legalize::AttrBool(call, "center", true);
  bool scale = legalize::AttrBool(call, "scale", true);
  // A (C,) vector becomes (C, 1, ..., 1), which broadcasts against x along `axis`.
  auto expand = [&](const Expr& v) -> Expr {
    int64_t trailing = ndim - axis - 1;
    if (trailing == 0) return v;
    Array<Any> axes;
    for (int64_t i = 1; i <= trailing; ++i) axes.push_back(Any(i));
    return bb.Emit(op::expand_dims(v, Any(axes)));
  };
  const Expr& data = call->args[0];
  const Expr& mean = call->args[3];
  const Expr& var = call->args[4];
  Constant epsilon(lownumpy::full({}, eps, x->dtype));
  Expr out = bb.Emit(op::subtract(data, expand(mean)));
  Expr denom = bb.Emit(op::sqrt(bb.Emit(op::add(expand(var), epsilon))));
  out = bb.Emit(op::divide(out, denom));
  if (scale) out = bb.Emit(op::multiply(out, expand(call->args[1])));
  if (center) out = bb.Emit(op::add(out, expand(call->args[2])));
  if (GetStructInfoAs<TensorStructInfoNode>(call)) return out;
  return Tuple({out, mean, var});
}

}  // namespace

Pass DecomposeOpsForInference(std::optional<String> func_name) {
  return minitvm::transform::CreateModulePass(
      [func_name](IRModule mod, PassContext) {
        std::optional<std::string> name;
        if (func_name) name = std::string(*func_name);
        return RewriteCalls(
            mod, [](BlockBuilder bb, const Call& c) { return DecomposeBatchNorm(bb, c, false); },
            name);
      },
      0, "DecomposeOpsForInference");
}

static Pass DecomposeInferenceBatchNorm() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        return RewriteCalls(
            mod, [](BlockBuilder bb, const Call& c) { return DecomposeBatchNorm(bb, c, true); },
            std::nullopt);
      },
      0, "DecomposeInferenceBatchNorm");
}

// minitvm's "default" pipeline step: only batch norms in inference mode (training=False) are
// decomposed, so that their arithmetic fuses into the producing kernel; a training-mode batch
// norm keeps its own legalization (batch statistics).
MINITVM_REGISTER_GLOBAL("relax.transform.DecomposeInferenceBatchNorm").set_body_typed([]() {
  return DecomposeInferenceBatchNorm();
});

MINITVM_REGISTER_GLOBAL("relax.transform.DecomposeOpsForInference")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      std::optional<String> func_name;
      if (args.size() > 0 && !args[0].is_null()) func_name = args[0].cast<String>();
      *rv = DecomposeOpsForInference(func_name);
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
