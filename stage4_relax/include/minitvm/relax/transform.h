/*!
 * \file minitvm/relax/transform.h
 * \brief The Relax passes (stage 4), TVM's `relax.transform.*`: each function returns a
 * `transform::Pass` (ir/transform.h) over the whole module, reachable from Python as the global
 * "relax.transform.<Name>".
 */
#ifndef MINITVM_RELAX_TRANSFORM_H_
#define MINITVM_RELAX_TRANSFORM_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/transform.h"
#include "minitvm/relax/expr.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax {
namespace transform {

using minitvm::transform::Pass;
using minitvm::transform::PassContext;

/*!
 * \brief Bind parameters of function `func_name` to constant arrays (the weights): each bound
 * parameter is replaced by a `Constant` and removed from the signature. Keys are parameter
 * names (String) or the parameter `Var`s themselves. Symbolic shape variables of the function
 * take the arrays' dimensions everywhere (struct info, shapes). ValueError when a name is not
 * a parameter (listing the parameters), when an array's shape or dtype contradicts the
 * parameter's annotation (naming the parameter and both), or when the module has no function
 * `func_name`.
 */
Pass BindParams(String func_name, Map<Any, NDArray> params);

/*! \brief BindParams on one function (what the pass applies); `func_name` is for messages. */
Function BindParamsToFunction(const Function& func, const std::string& func_name,
                              const Map<Any, NDArray>& params);

/*!
 * \brief LegalizeOps: every call of a Relax operator becomes `R.call_tir` of a PrimFunc built by
 * the operator's `FLegalize` attribute (or by `customize_legalize_map[name]`, a
 * PackedFunc(BlockBuilder, Call) -> Expr, which wins). `call_tir`, `call_dps_packed`,
 * `call_pure_packed` and the `builtin.*` / `memory.*` ops stay. ValueError listing every other
 * operator of the module that has no legalization.
 */
Pass LegalizeOps(Map<String, runtime::PackedFunc> customize_legalize_map = {});

/*! \brief Whether LegalizeOps keeps calls of the operator `name` as they are (call_tir, ...). */
bool LegalizeKeepsOp(const std::string& name);

/*!
 * \brief Group the bindings of every dataflow block by operator pattern (TVM's FuseOps): each
 * group of two or more bindings (a matmul/conv2d with the elementwise ops after it, an injective
 * chain, ...) becomes a new Relax function with attribute "Primitive" = 1, named after its ops
 * (`fused_matmul_add_relu`), called where the group was. `call_tir`s take the pattern from their
 * PrimFunc's "op_pattern" attribute, high-level op calls from `TOpPattern`. `fuse_opt_level` 0
 * fuses nothing; -1 takes the PassContext's opt_level. See docs/stage4_fusion.md.
 */
Pass FuseOps(int64_t fuse_opt_level = -1);

/*!
 * \brief Turn every "Primitive" Relax function whose body is a chain of `call_tir`s into one
 * PrimFunc (TVM's FuseTIR): the callees' bodies inlined into one root block, intermediate
 * results as `alloc_buffer`s, symbolic shape variables unified; calls of the function become one
 * `call_tir`, and Primitive functions and PrimFuncs nothing calls any more are removed.
 */
Pass FuseTIR();

/*!
 * \brief AnnotateTIROpPattern: set the "op_pattern" attribute (an OpPatternKind) of every
 * PrimFunc that has none, from the access patterns of its blocks (see the source for the rules).
 */
Pass AnnotateTIROpPattern();
/*! \brief The OpPatternKind AnnotateTIROpPattern gives `func`. */
int64_t AnalyzeOpPatternKind(const tir::PrimFunc& func);

/*!
 * \brief FoldConstant: evaluate, with the reference interpreter, every pure call whose
 * arguments are all constants (operators and call_tir alike) and use the result as a constant.
 */
Pass FoldConstant();

/*!
 * \brief DeadCodeElimination: drop the functions not reachable from the entry functions (those
 * with "global_symbol", plus `entry_functions`; all are kept when there is no entry) and the
 * bindings of pure values that nothing uses.
 */
Pass DeadCodeElimination(Array<String> entry_functions = {});

/*! \brief CanonicalizeBindings: remove `y = x` bindings and trivial match_casts (uses of y use x).
 */
Pass CanonicalizeBindings();

/*! \brief ConvertToDataflow: runs of >= min_size pure bindings become dataflow blocks. */
Pass ConvertToDataflow(int64_t min_size = 2);

/*! \brief ToNonDataflow: dataflow blocks become binding blocks, DataflowVars become Vars. */
Pass ToNonDataflow();

/*!
 * \brief DecomposeOpsForInference: nn.batch_norm becomes inference arithmetic (in `func_name`
 * only when given); layer_norm stays.
 */
Pass DecomposeOpsForInference(std::optional<String> func_name = std::nullopt);

/*!
 * \brief FoldBatchnormToConv2D: `batch_norm(conv2d(x, W), constants)[0]` becomes
 * `conv2d(x, W * s) + (beta - mean * s)`, s = gamma / sqrt(var + eps), for a constant W (NCHW /
 * OIHW); FoldConstant then folds the new kernel and bias.
 */
Pass FoldBatchnormToConv2D();

/*! \brief AttachGlobalSymbol: functions without "global_symbol" get their name as one. */
Pass AttachGlobalSymbol();

/*!
 * \brief AttachAttrLayoutFreeBuffers: the PrimFunc parameters that receive constants are listed
 * in the PrimFunc's "layout_free_buffers" attribute (a PrimFunc called with different sets is
 * copied per set). With `mark_num_input` (TVM's behaviour, the Python pass) the parameters of a
 * Relax function from its "num_input" on (the weights, for LiftTransformParams) count as layout
 * free too; tvm.compile's "default" build marks constants only.
 */
Pass AttachAttrLayoutFreeBuffers(bool mark_num_input = true);

/*!
 * \brief SplitLayoutRewritePreproc: the blocks annotated "meta_schedule.layout_rewrite_preproc"
 * move into a PrimFunc `<name>_weight_prepack` that the Relax function calls on the weight; the
 * rest (`<name>_prepacked`) takes the rewritten weight in its place. FoldConstant then folds the
 * preprocessing of constant weights.
 */
Pass SplitLayoutRewritePreproc();

/*!
 * \brief LiftTransformParams: for every Relax function with the integer attribute "num_input"
 * (parameters from it on are weights), the dataflow bindings computable from the weights alone
 * move into a function `<name>_transform_params(model_params: tuple of the weights)` returning
 * the tuple (weights still used as they are, in parameter order; then the lifted values used, in
 * binding order); the function then takes its inputs followed by those values. With
 * `shared_transform` the one such function (or the one in `function_names`) gets
 * "transform_params" instead; ValueError for several. ValueError when "num_input" is not an
 * integer in 0..(number of parameters), naming the function and both values.
 */
Pass LiftTransformParams(bool shared_transform = false, Array<String> function_names = {});

}  // namespace transform

/*!
 * \brief The pipeline `name` as one Sequential pass: "zero" (LegalizeOps, AnnotateTIROpPattern,
 * FoldConstant, FuseOps, FuseTIR) or "default" ("zero" with DeadCodeElimination after
 * FoldConstant and at the end). Passes are
 * looked up by registered name when the pipeline is built; one not compiled in is left out.
 * ValueError naming the known pipelines for any other name.
 */
transform::Pass GetPipeline(const std::string& name);
/*! \brief The names GetPipeline knows, sorted. */
std::vector<std::string> PipelineNames();

}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_TRANSFORM_H_
