/*!
 * \file transform/fold_batchnorm_to_conv2d.cc
 * \brief FoldBatchnormToConv2D (stage 4), TVM's `relax.transform.FoldBatchnormToConv2D()`: a
 * batch norm whose input is a 2-D convolution by a constant kernel, and whose four vectors are
 * constants, is folded into the convolution:
 *
 *     s = gamma / sqrt(moving_var + epsilon)               (one factor per output channel)
 *     bn(conv2d(x, W))[0]  ==  conv2d(x, W * s[:, None, None, None]) + (beta - moving_mean * s)
 *
 * The pass emits that arithmetic as Relax ops on the constants; FoldConstant then turns it into
 * one new kernel and one bias vector, so the batch norm costs nothing at run time (the bias add
 * fuses into the convolution's kernel). The rewritten batch norm call becomes the tuple
 * `(folded output, moving_mean, moving_var)`, as DecomposeOpsForInference builds it, so
 * `bn[0]` reads the folded output once CanonicalizeBindings has run.
 *
 * Folded only when it is exact algebra: NCHW data, OIHW kernel, the batch norm on axis 1, the
 * convolution's result used by nothing but this batch norm (else the convolution would run
 * twice), static float tensors of one dtype. `center=False` / `scale=False` use beta = 0 /
 * gamma = 1. TVM folds whatever the `training` flag says (the pass is for inference);
 * `FoldInferenceBatchnormToConv2D()` (minitvm, a step of the "default" pipeline) folds only the
 * batch norms whose `training` is False, as DecomposeInferenceBatchNorm decomposes only those.
 */
#include <unordered_map>

#include "minitvm/lownumpy/creation.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "transform/legalize/legalize_common.h"
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

/*! \brief Every variable's bound value and how many times each variable is used. */
struct Bindings {
  std::unordered_map<const VarNode*, Expr> value;
  std::unordered_map<const VarNode*, int> uses;
};

/*! \brief Counts the uses of variables (not their definitions). */
class UseCounter : public ExprVisitor {
 public:
  explicit UseCounter(std::unordered_map<const VarNode*, int>* uses) : uses_(uses) {}
  void VisitExpr_(const VarNode* op) override { ++(*uses_)[op]; }

 private:
  std::unordered_map<const VarNode*, int>* uses_;
};

Bindings CollectBindings(const IRModule& mod) {
  Bindings out;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    const auto* f = mod->Lookup(gv).as<FunctionNode>();
    if (!f) continue;
    UseCounter(&out.uses).VisitExpr(f->body);
    const auto* seq = f->body.as<SeqExprNode>();
    if (!seq) continue;
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block->bindings) {
        if (const auto* vb = b.as<VarBindingNode>()) out.value[vb->var.get()] = vb->value;
      }
    }
  }
  return out;
}

/*! \brief The static float tensor info of `e` with `ndim` dimensions, or null. */
const TensorStructInfoNode* StaticFloat(const Expr& e, int64_t ndim) {
  const auto* t = GetStructInfoAs<TensorStructInfoNode>(e);
  if (!t || t->IsUnknownDtype() || !t->dtype.is_float() || t->ndim != ndim) return nullptr;
  if (!t->shape.as<ShapeExprNode>()) return nullptr;
  return t;
}

/*! \brief `e` itself when it is a constant, or the constant a variable is bound to. */
std::optional<Expr> AsConstant(const Expr& e, const Bindings& bound) {
  if (e.as<ConstantNode>()) return e;
  if (const auto* v = e.as<VarNode>()) {
    auto it = bound.value.find(v);
    if (it != bound.value.end() && it->second.as<ConstantNode>()) return it->second;
  }
  return std::nullopt;
}

std::optional<Expr> Fold(BlockBuilder bb, const Call& bn, const Bindings& bound,
                         bool inference_only) {
  if (!IsOpCall(bn, "relax.nn.batch_norm") || bn->args.size() != 5) return std::nullopt;
  if (inference_only && legalize::AttrBool(bn, "training", true)) return std::nullopt;
  const auto* conv_var = bn->args[0].as<VarNode>();
  if (!conv_var) return std::nullopt;
  auto it = bound.value.find(conv_var);
  if (it == bound.value.end() || !IsOpCall(it->second, "relax.nn.conv2d")) return std::nullopt;
  auto uses = bound.uses.find(conv_var);
  if (uses == bound.uses.end() || uses->second != 1) return std::nullopt;
  Call conv = runtime::Downcast<Call>(it->second);
  if (conv->args.size() != 2) return std::nullopt;
  if (legalize::AttrStr(conv, "data_layout", "NCHW") != "NCHW" ||
      legalize::AttrStr(conv, "kernel_layout", "OIHW") != "OIHW" ||
      legalize::AttrStr(conv, "out_layout", "NCHW") != "NCHW") {
    return std::nullopt;
  }
  auto out_dtype = conv->attrs.Get(String("out_dtype"));
  const TensorStructInfoNode* y = StaticFloat(conv, 4);
  const TensorStructInfoNode* w = StaticFloat(conv->args[1], 4);
  if (!y || !w || y->dtype != w->dtype) return std::nullopt;
  if (out_dtype && !out_dtype->is_null() && out_dtype->cast<DataType>() != y->dtype &&
      !out_dtype->cast<DataType>().is_void()) {
    return std::nullopt;
  }
  if (legalize::NormAxis(bn, legalize::AttrInt(bn, "axis", 1), 4) != 1) return std::nullopt;
  std::optional<Expr> kernel = AsConstant(conv->args[1], bound);
  std::vector<Expr> vec;  // gamma, beta, mean, var
  for (int i = 1; i < 5; ++i) {
    std::optional<Expr> c = AsConstant(bn->args[i], bound);
    const TensorStructInfoNode* t = c ? StaticFloat(*c, 1) : nullptr;
    if (!t || t->dtype != y->dtype) return std::nullopt;
    vec.push_back(*c);
  }
  if (!kernel) return std::nullopt;
  const auto* out_channels = w->shape.as<ShapeExprNode>()->values[0].as<IntImmNode>();
  if (!out_channels) return std::nullopt;
  int64_t channels = out_channels->value;
  DataType dt = y->dtype;
  auto scalar = [&](double v) { return Constant(lownumpy::full({}, v, dt)); };
  Expr scale = bb.Emit(op::divide(
      legalize::AttrBool(bn, "scale", true) ? vec[0] : Expr(scalar(1.0)),
      bb.Emit(
          op::sqrt(bb.Emit(op::add(vec[3], scalar(legalize::AttrFloat(bn, "epsilon", 1e-5))))))));
  Expr shift =
      bb.Emit(op::subtract(legalize::AttrBool(bn, "center", true) ? vec[1] : Expr(scalar(0.0)),
                           bb.Emit(op::multiply(vec[2], scale))));
  Expr folded_kernel = bb.Emit(op::multiply(
      *kernel, bb.Emit(op::reshape(scale, Array<Any>{Any(channels), Any(int64_t{1}),
                                                     Any(int64_t{1}), Any(int64_t{1})}))));
  Expr folded_conv = bb.Emit(Call(conv->op, {conv->args[0], folded_kernel}, conv->attrs));
  Expr out = bb.Emit(op::add(
      folded_conv, bb.Emit(op::reshape(shift, Array<Any>{Any(int64_t{1}), Any(channels),
                                                         Any(int64_t{1}), Any(int64_t{1})}))));
  return Tuple({out, bn->args[3], bn->args[4]});
}

Pass MakePass(bool inference_only, const char* name) {
  return minitvm::transform::CreateModulePass(
      [inference_only](IRModule mod, PassContext) {
        Bindings bound = CollectBindings(mod);
        return RewriteCalls(mod, [&bound, inference_only](BlockBuilder bb, const Call& c) {
          return Fold(bb, c, bound, inference_only);
        });
      },
      0, name);
}

}  // namespace

Pass FoldBatchnormToConv2D() { return MakePass(false, "FoldBatchnormToConv2D"); }

MINITVM_REGISTER_GLOBAL("relax.transform.FoldBatchnormToConv2D").set_body_typed([]() {
  return FoldBatchnormToConv2D();
});

// minitvm's "default" pipeline step: only batch norms in inference mode (training=False).
MINITVM_REGISTER_GLOBAL("relax.transform.FoldInferenceBatchnormToConv2D").set_body_typed([]() {
  return MakePass(true, "FoldInferenceBatchnormToConv2D");
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
