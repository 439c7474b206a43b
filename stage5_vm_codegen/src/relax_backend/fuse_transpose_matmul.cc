/*!
 * \file fuse_transpose_matmul.cc
 * \brief Stage 5: the Relax pass "relax.transform.FuseTransposeMatmul" (TVM has a pass of this
 * name): `matmul(x, permute_dims(w))` with 2-D operands — what `nn.Linear` emits — becomes one
 * `call_tir` of a kernel that reads `w` as it is, C[i, j] = sum_k x[i, k] * w[j, k], instead of
 * a transpose kernel writing w^T on every call followed by a matmul. The permute_dims binding is
 * left for DeadCodeElimination when nothing else uses it. The "default" pipeline runs this pass
 * before LegalizeOps; the CPU GEMM rule (cpu_gemm.h) then schedules the kernel as a dense (dot
 * products at batch 1, packed panels otherwise) with bias add / ReLU fused by FuseOps/FuseTIR.
 */
#include <unordered_map>

#include "../../../stage4_relax/src/transform/pass_utils.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

/*! \brief The 2-D static-shape float tensor info of `e`, or null. */
const TensorStructInfoNode* Matrix(const Expr& e) {
  const auto* t = GetStructInfoAs<TensorStructInfoNode>(e);
  if (!t || !t->dtype.is_float() || t->ndim != 2) return nullptr;
  const auto* shape = t->shape.as<ShapeExprNode>();
  if (!shape) return nullptr;
  return t;
}

/*! \brief Whether a permute_dims call swaps the two axes of a matrix (axes None or [1, 0]). */
bool IsMatrixTranspose(const CallNode* call) {
  auto axes = call->attrs.Get(String("axes"));
  if (!axes || axes->is_null()) return true;
  try {
    auto list = axes->cast<Array<Any>>();
    return list.size() == 2 && list[0].cast<int64_t>() == 1 && list[1].cast<int64_t>() == 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

/*! \brief The pass (see the file comment). */
minitvm::transform::Pass FuseTransposeMatmul() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, minitvm::transform::PassContext) {
        // Every variable's bound value, to find the permute_dims behind a matmul operand.
        std::unordered_map<const VarNode*, Expr> bound;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          const auto* f = mod->Lookup(gv).as<FunctionNode>();
          if (!f) continue;
          const auto* seq = f->body.as<SeqExprNode>();
          if (!seq) continue;
          for (const BindingBlock& block : seq->blocks) {
            for (const Binding& b : block->bindings) {
              if (const auto* vb = b.as<VarBindingNode>()) bound[vb->var.get()] = vb->value;
            }
          }
        }
        return RewriteCalls(
            mod, [&bound](BlockBuilder bb, const Call& call) -> std::optional<Expr> {
              if (!IsOpCall(call, "relax.matmul") || call->args.size() != 2) return std::nullopt;
              auto out_dtype = call->attrs.Get(String("out_dtype"));
              const auto* y = call->args[1].as<VarNode>();
              if (!y) return std::nullopt;
              auto it = bound.find(y);
              if (it == bound.end() || !IsOpCall(it->second, "relax.permute_dims"))
                return std::nullopt;
              const auto* perm = it->second.as<CallNode>();
              if (perm->args.size() != 1 || !IsMatrixTranspose(perm)) return std::nullopt;
              Expr x = call->args[0], w = perm->args[0];
              const TensorStructInfoNode* xs = Matrix(x);
              const TensorStructInfoNode* ws = Matrix(w);
              if (!xs || !ws || xs->dtype != ws->dtype) return std::nullopt;
              if (out_dtype && !out_dtype->is_null()) {
                // Only when out_dtype changes nothing.
                try {
                  DataType dt = out_dtype->cast<DataType>();
                  if (!dt.is_void() && dt != xs->dtype) return std::nullopt;
                } catch (const std::exception&) {
                  return std::nullopt;
                }
              }
              return bb.CallTE(
                  [](const Array<te::Tensor>& t) -> Array<te::Tensor> {
                    te::Tensor a = t[0], b = t[1];
                    tir::IterVar r =
                        te::reduce_axis(Range(IntImm(a->shape[1].dtype(), 0), a->shape[1]), "k");
                    return {te::compute(
                        Array<PrimExpr>{a->shape[0], b->shape[0]},
                        [&](tir::Var i, tir::Var j) {
                          return te::sum(a(i, r->var) * b(j, r->var), {r});
                        },
                        "NT_matmul")};
                  },
                  {x, w}, "NT_matmul");
            });
      },
      0, "FuseTransposeMatmul");
}

MINITVM_REGISTER_GLOBAL("relax.transform.FuseTransposeMatmul").set_body_typed([]() {
  return FuseTransposeMatmul();
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
