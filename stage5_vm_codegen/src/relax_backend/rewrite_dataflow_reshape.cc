/*!
 * \file rewrite_dataflow_reshape.cc
 * \brief RewriteDataflowReshape (stage 5 lowering of Relax for the VM; TVM's
 * `relax.transform.RewriteDataflowReshape()`): LegalizeOps turns `R.reshape` into a kernel that
 * copies every element; a reshape of a contiguous tensor needs no copy. This pass finds, inside
 * dataflow blocks, the `call_tir`s of kernels that only reshape — one block whose body is
 * `out[i...] = in[j...]` with the row-major offsets of both sides provably equal — and turns them
 * back into `R.reshape(in, shape)`, which LowerRuntimeBuiltin makes a call of
 * `vm.builtin.reshape`: a view of the same memory.
 *
 * Only bindings of DataflowVars are rewritten (a dataflow block's outputs may leave the
 * function; a view must not). The memory planner and KillAfterLastUse treat a view as referring
 * to its input (their alias analysis), so the input's storage stays alive while the view is
 * used. A kernel that reads several tensors (FuseTIR may pass a tuple's fields) is rewritten
 * when exactly one of them is read, as TVM does.
 */
#include "lowering_utils.h"
#include "minitvm/arith/analyzer.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax_vm {

using namespace relax;  // NOLINT(build/namespaces)

namespace {

/*! \brief The row-major offset of `indices` into `buffer`. */
PrimExpr Offset(const tir::Buffer& buffer, const Array<PrimExpr>& indices) {
  PrimExpr off = IntImm(DataType::Int(64), 0);
  for (size_t i = 0; i < indices.size(); ++i) {
    off = off * tir::cast(DataType::Int(64), buffer->shape[i]) +
          tir::cast(DataType::Int(64), indices[i]);
  }
  return off;
}

/*!
 * \brief The parameter index of the tensor a reshape kernel reads, or -1 when `func` is not a
 * reshape: its body must be loops around one block (iterators all spatial) that stores, into the
 * function's last buffer, a load of another parameter buffer at the same row-major offset.
 */
int ReshapeSource(const tir::PrimFunc& func) {
  tir::Stmt s = func->body;
  // The root block, then the loop nest.
  if (const auto* r = s.as<tir::BlockRealizeNode>(); r && r->block->iter_vars.empty()) {
    s = r->block->body;
  }
  while (const auto* loop = s.as<tir::ForNode>()) s = loop->body;
  const auto* realize = s.as<tir::BlockRealizeNode>();
  if (!realize) return -1;
  const tir::Block& block = realize->block;
  if (block->init.defined() || !block->alloc_buffers.empty() || block->match_buffers.size())
    return -1;
  const auto* store = block->body.as<tir::BufferStoreNode>();
  if (!store) return -1;
  const auto* load = store->value.as<tir::BufferLoadNode>();
  if (!load || load->buffer.same_as(store->buffer)) return -1;
  if (load->buffer->dtype != store->buffer->dtype) return -1;
  if (func->params.empty()) return -1;
  auto out = func->buffer_map.Get(func->params.back());
  if (!out || !out->same_as(store->buffer)) return -1;
  int source = -1;
  for (size_t i = 0; i + 1 < func->params.size(); ++i) {
    auto b = func->buffer_map.Get(func->params[i]);
    if (b && b->same_as(load->buffer)) source = static_cast<int>(i);
  }
  if (source < 0) return -1;
  arith::Analyzer ana;
  for (const tir::IterVar& iv : block->iter_vars) {
    if (iv->iter_type != tir::IterVarType::kDataPar) return -1;
    ana.Bind(iv->var, iv->dom);
  }
  if (!ana.CanProveEqual(Offset(store->buffer, store->indices),
                         Offset(load->buffer, load->indices))) {
    return -1;
  }
  return source;
}

/*! \brief Whether `var` occurs in `stmt`. */
bool Reads(const tir::Stmt& stmt, const tir::Var& var) {
  bool found = false;
  tir::PostOrderVisit(stmt, [&](const ObjectRef& n) {
    if (n.get() == var.get()) found = true;
  });
  return found;
}

/*! \brief `R.reshape(in, shape)` for a binding `v = call_tir(reshape_kernel, ...)`, or null. */
std::optional<Expr> AsReshape(const IRModule& mod, const Var& var, const Expr& value) {
  if (!var.as<DataflowVarNode>()) return std::nullopt;
  const CallNode* call = detail::AsOpCall(value, "relax.call_tir");
  if (!call || call->args.size() != 2) return std::nullopt;
  const auto* gv = call->args[0].as<GlobalVarNode>();
  const auto* args = call->args[1].as<TupleNode>();
  if (!gv || !args) return std::nullopt;
  auto found = mod->functions.Get(GetRef<GlobalVar>(gv));
  const auto* prim = found ? found->as<tir::PrimFuncNode>() : nullptr;
  if (!prim || prim->params.size() != args->fields.size() + 1) return std::nullopt;
  tir::PrimFunc func = GetRef<tir::PrimFunc>(prim);
  int source = ReshapeSource(func);
  if (source < 0) return std::nullopt;
  // Exactly one tensor argument is read (the others, if any, are unused fields of a tuple).
  for (size_t i = 0; i < args->fields.size(); ++i) {
    if (static_cast<int>(i) == source) continue;
    auto b = func->buffer_map.Get(func->params[i]);
    if (!b || Reads(func->body, (*b)->data)) return std::nullopt;
  }
  const Expr& in = args->fields[source];
  const auto* in_info = GetStructInfoAs<TensorStructInfoNode>(in);
  const auto* out_info = GetStructInfoAs<TensorStructInfoNode>(var);
  if (!in_info || !out_info || in_info->IsUnknownDtype() || in_info->dtype != out_info->dtype ||
      !out_info->shape.defined()) {
    return std::nullopt;
  }
  return BlockBuilder().Normalize(op::reshape(in, out_info->shape));
}

Function Rewrite(const IRModule& mod, const Function& func) {
  const auto* seq = func->body.as<SeqExprNode>();
  if (!seq) return func;
  bool changed = false;
  Array<BindingBlock> blocks;
  for (const BindingBlock& block : seq->blocks) {
    if (!block.as<DataflowBlockNode>()) {
      blocks.push_back(block);
      continue;
    }
    Array<Binding> bindings;
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      std::optional<Expr> reshape = vb ? AsReshape(mod, vb->var, vb->value) : std::nullopt;
      if (!reshape) {
        bindings.push_back(b);
        continue;
      }
      bindings.push_back(VarBinding(vb->var, *reshape));
      changed = true;
    }
    blocks.push_back(DataflowBlock(bindings));
  }
  if (!changed) return func;
  Function out = func;
  out.CopyOnWrite()->body = SeqExpr(blocks, seq->body);
  return out;
}

}  // namespace

Pass RewriteDataflowReshape() {
  return transform::CreateModulePass(
      [](IRModule mod, transform::PassContext ctx) {
        return detail::RelaxFunctionPass(
            "RewriteDataflowReshape",
            [&mod](const Function& f, const std::string&) { return Rewrite(mod, f); })(mod);
      },
      0, "RewriteDataflowReshape");
}

MINITVM_REGISTER_GLOBAL("relax.transform.RewriteDataflowReshape").set_body_typed([]() {
  return RewriteDataflowReshape();
});

}  // namespace relax_vm
}  // namespace minitvm
