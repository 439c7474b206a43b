/*!
 * \file create_prim_func.cc
 * \brief Tensor expressions → a block-based PrimFunc (stage 2), as TVM's
 * `te.create_prim_func`: one loop nest and one block per compute, intermediates allocated by
 * the root block.
 */
#include "minitvm/te/create_prim_func.h"

#include <unordered_map>
#include <unordered_set>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/analysis/block_access.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace te {

using namespace tir;  // NOLINT(build/namespaces): this file builds TIR throughout

namespace {

/*! \brief Key of a tensor: its operation and output index. */
struct TensorKey {
  const Object* op;
  int64_t index;
  bool operator==(const TensorKey& o) const { return op == o.op && index == o.index; }
};
struct TensorKeyHash {
  size_t operator()(const TensorKey& k) const {
    return std::hash<const void*>()(k.op) * 31 + static_cast<size_t>(k.index);
  }
};
TensorKey KeyOf(const Tensor& t) { return {t->op.get(), t->value_index}; }

/*!
 * \brief Rewrites a TE body into TIR: axis variables become block variables and loads of
 * TensorBuffers become loads of the PrimFunc's buffers.
 */
class BodyRewriter : public ExprMutator {
 public:
  BodyRewriter(const std::unordered_map<const VarNode*, PrimExpr>& vmap,
               const std::unordered_map<TensorKey, Buffer, TensorKeyHash>& buffers)
      : vmap_(vmap), buffers_(buffers) {}

  using ExprMutator::VisitExpr_;
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? GetRef<PrimExpr>(op) : it->second;
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }
  Buffer VisitBuffer(const Buffer& buffer) override {
    if (auto* tb = buffer.as<TensorBufferNode>()) {
      auto it = buffers_.find({tb->op.get(), tb->value_index});
      if (it == buffers_.end()) {
        MINITVM_THROW(InternalError) << "create_prim_func: no buffer for tensor " << tb->name;
      }
      return it->second;
    }
    return buffer;
  }

 private:
  const std::unordered_map<const VarNode*, PrimExpr>& vmap_;
  const std::unordered_map<TensorKey, Buffer, TensorKeyHash>& buffers_;
};

/*! \brief Generates the loop nest and block of one compute. */
Stmt GenerateCompute(const ComputeOpNode* op, const std::string& block_name,
                     const std::vector<Buffer>& outputs,
                     const std::unordered_map<TensorKey, Buffer, TensorKeyHash>& buffers) {
  // Block iterators (v_-prefixed) and loop variables (named after the axes).
  Array<IterVar> block_iters;
  std::vector<Var> loop_vars;
  std::vector<Range> loop_doms;
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  auto add_axis = [&](const IterVar& iv) {
    std::string name = iv->var->name_hint.str();
    Var loop_var(name, iv->var.dtype());
    Var block_var("v_" + name, iv->var.dtype());
    block_iters.push_back(IterVar(iv->dom, block_var, iv->iter_type));
    loop_vars.push_back(loop_var);
    loop_doms.push_back(iv->dom);
    vmap[iv->var.get()] = block_var;
  };
  for (const IterVar& iv : op->axis) add_axis(iv);
  for (const IterVar& iv : op->reduce_axis) add_axis(iv);

  BodyRewriter rewriter(vmap, buffers);
  Array<PrimExpr> out_index;
  for (size_t i = 0; i < op->axis.size(); ++i) out_index.push_back(block_iters[i]->var);

  Stmt body, init;
  if (auto* reduce = op->body[0].as<ReduceNode>()) {
    size_t n = op->body.size();
    Array<PrimExpr> lhs, rhs, inits;
    for (size_t k = 0; k < n; ++k) {
      lhs.push_back(BufferLoad(outputs[k], out_index));
      rhs.push_back(rewriter(reduce->source[k]));
      inits.push_back(reduce->init.empty() ? reduce->combiner->identity_element[k]
                                           : rewriter(reduce->init[k]));
    }
    Array<PrimExpr> combined = reduce->combiner.Combine(lhs, rhs);
    Array<Stmt> init_stores, stores;
    for (size_t k = 0; k < n; ++k)
      init_stores.push_back(BufferStore(outputs[k], inits[k], out_index));
    init = SeqStmt::Flatten(init_stores);
    if (n == 1) {
      body = BufferStore(outputs[0], combined[0], out_index);
    } else {
      // Every new value depends on all old ones: compute them first, then store.
      std::vector<Var> tmps;
      for (size_t k = 0; k < n; ++k) {
        tmps.push_back(Var("v_" + outputs[k]->name.str(), combined[k].dtype()));
        stores.push_back(BufferStore(outputs[k], tmps[k], out_index));
      }
      body = SeqStmt::Flatten(stores);
      for (size_t k = n; k-- > 0;) body = LetStmt(tmps[k], combined[k], body);
    }
    PrimExpr cond = rewriter(reduce->condition);
    if (!(AsConstInt(cond) && *AsConstInt(cond) == 1)) body = IfThenElse(cond, body);
  } else {
    Array<Stmt> stores;
    for (size_t k = 0; k < op->body.size(); ++k) {
      stores.push_back(BufferStore(outputs[k], rewriter(op->body[k]), out_index));
    }
    body = SeqStmt::Flatten(stores);
  }

  Block proto(block_iters, {}, {}, block_name, body, init);
  BlockAccessRegion access = GetBlockAccessRegion(proto);
  Block block(block_iters, access.reads, access.writes, block_name, body, init, {}, {}, op->attrs);
  Array<PrimExpr> values;
  for (const Var& v : loop_vars) values.push_back(v);
  Stmt nest = BlockRealize(values, const_true(), block);
  for (size_t i = loop_vars.size(); i-- > 0;) {
    nest = For(loop_vars[i], loop_doms[i]->min, loop_doms[i]->extent, ForKind::kSerial, nest);
  }
  return nest;
}

/*!
 * \brief Unique names, as TVM gives them: the first use keeps the name, later ones get
 * "_1", "_2", ... (several computes of a TOPI composite may share a name).
 */
class NameTable {
 public:
  std::string Unique(const std::string& name) {
    if (used_.insert(name).second) return name;
    for (int i = 1;; ++i) {
      std::string candidate = name + "_" + std::to_string(i);
      if (used_.insert(candidate).second) return candidate;
    }
  }

 private:
  std::unordered_set<std::string> used_;
};

}  // namespace

PrimFunc CreatePrimFuncFromArgs(const Array<ObjectRef>& args) {
  NameTable buffer_names, block_names;
  block_names.Unique("root");
  std::vector<Tensor> tensors;
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  std::unordered_map<TensorKey, Buffer, TensorKeyHash> buffers;
  for (const ObjectRef& a : args) {
    if (auto* t = a.as<TensorNode>()) {
      Tensor tensor = GetRef<Tensor>(t);
      if (buffers.count(KeyOf(tensor))) {
        MINITVM_THROW(ValueError) << "create_prim_func: tensor " << tensor.name()
                                  << " is listed twice";
      }
      std::string name = buffer_names.Unique(tensor.name());
      Buffer buf = decl_buffer(tensor->shape, tensor->dtype, name);
      Var param("var_" + name, DataType::Handle());
      params.push_back(param);
      buffer_map.Set(param, buf);
      buffers[KeyOf(tensor)] = buf;
      tensors.push_back(tensor);
    } else if (auto* v = a.as<VarNode>()) {
      params.push_back(GetRef<Var>(v));
    } else {
      MINITVM_THROW(TypeError) << "create_prim_func: arguments must be tensors or variables, got "
                               << (a.defined() ? a->GetTypeKey() : std::string("None"));
    }
  }

  Array<Buffer> intermediates;
  Array<Stmt> nests;
  for (const Operation& op : PostOrderOps(tensors)) {
    if (op.as<PlaceholderOpNode>()) {
      if (!buffers.count({op.get(), 0})) {
        MINITVM_THROW(ValueError) << "create_prim_func: placeholder " << op->name
                                  << " is read by the computation but is not in the argument "
                                     "list";
      }
      continue;
    }
    auto* compute = op.as<ComputeOpNode>();
    if (!compute) {
      MINITVM_THROW(ValueError) << "create_prim_func: unsupported operation " << op->GetTypeKey();
    }
    std::vector<Buffer> outputs;
    for (int i = 0; i < compute->num_outputs(); ++i) {
      Tensor t = op.output(i);
      auto it = buffers.find(KeyOf(t));
      if (it == buffers.end()) {
        Buffer buf = decl_buffer(t->shape, t->dtype, buffer_names.Unique(t.name()));
        buffers[KeyOf(t)] = buf;
        intermediates.push_back(buf);
        outputs.push_back(buf);
      } else {
        outputs.push_back(it->second);
      }
    }
    nests.push_back(
        GenerateCompute(compute, block_names.Unique(compute->name.str()), outputs, buffers));
  }
  if (nests.empty()) {
    MINITVM_THROW(ValueError) << "create_prim_func: nothing to compute (only placeholders given)";
  }
  Block root({}, {}, {}, "root", SeqStmt::Flatten(nests), Stmt(), intermediates);
  Stmt body = BlockRealize({}, const_true(), root);
  Map<String, Any> attrs;
  attrs.Set(String("tir.noalias"), Any(true));
  return PrimFunc(params, body, buffer_map, attrs);
}

PrimFunc CreatePrimFunc(const Array<Tensor>& arg_list) {
  Array<ObjectRef> args;
  for (const Tensor& t : arg_list) args.push_back(t);
  return CreatePrimFuncFromArgs(args);
}

MINITVM_REGISTER_GLOBAL("te.CreatePrimFunc").set_body_typed([](Array<ObjectRef> args) {
  return CreatePrimFuncFromArgs(args);
});

}  // namespace te
}  // namespace minitvm
