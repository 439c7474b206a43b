/*!
 * \file block_builder/block_builder.cc
 * \brief The BlockBuilder of stage 4 (block_builder.h): the scopes (function, dataflow and
 * binding blocks), the bindings, the normaliser that fills in struct info bottom-up and binds
 * nested calls to fresh variables (A-normal form), `emit_te`, and the module being built.
 */
#include "minitvm/relax/block_builder.h"

#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "block_builder/struct_info_utils.h"
#include "minitvm/ir/structural.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/expr_functor.h"

namespace minitvm {
namespace relax {

using runtime::PackedFunc;

// ---- the building state ---------------------------------------------------------------------

/*! \brief The state behind a BlockBuilder. */
class BlockBuilderImpl {
 public:
  explicit BlockBuilderImpl(IRModule mod) : mod_(std::move(mod)) {}

  /*! \brief One open binding block. */
  struct BlockFrame {
    bool is_dataflow = false;
    std::vector<Binding> bindings;
    /*! \brief The DataflowVars bound in this block (usable only inside it). */
    std::unordered_set<const VarNode*> dataflow_vars;
  };
  /*! \brief The function being built. */
  struct FunctionFrame {
    std::string name;
    std::optional<Array<Var>> params;  // nullopt: given to EmitFuncOutput
    Map<String, Any> attrs;
    bool is_pure = true;
    std::vector<BindingBlock> blocks;
  };

  // ---- names ----
  std::string FreshName(const std::string& hint) {
    auto it = name_counter_.find(hint);
    if (it == name_counter_.end()) {
      name_counter_[hint] = 0;
      return hint;
    }
    std::string name;
    do {
      name = hint + std::to_string(++name_counter_[hint]);
    } while (name_counter_.count(name));
    name_counter_[name] = 0;
    return name;
  }
  /*! \brief The name FreshName(hint) would give now (for messages about a binding to come). */
  std::string PeekName(const std::string& hint) const {
    auto it = name_counter_.find(hint);
    if (it == name_counter_.end()) return hint;
    int64_t c = it->second;
    std::string name;
    do {
      name = hint + std::to_string(++c);
    } while (name_counter_.count(name));
    return name;
  }
  std::string UniqueFunctionName(const std::string& hint) {
    std::string base = hint.empty() ? "func" : hint;
    if (!mod_->ContainGlobalVar(base)) return base;
    for (int64_t i = 1;; ++i) {
      std::string name = base + std::to_string(i);
      if (!mod_->ContainGlobalVar(name)) return name;
    }
  }

  // ---- scopes ----
  void BeginFunction(const std::string& name, std::optional<Array<Var>> params,
                     Map<String, Any> attrs, bool is_pure) {
    if (func_) {
      MINITVM_THROW(ValueError) << "BlockBuilder: cannot begin function \"" << name
                                << "\" inside function \"" << func_->name
                                << "\": functions do not nest; finish \"" << func_->name
                                << "\" with EmitFuncOutput first";
    }
    if (!blocks_.empty()) {
      MINITVM_THROW(ValueError) << "BlockBuilder: cannot begin function \"" << name
                                << "\" while a binding block is open; end the block first";
    }
    if (params) CheckParams(name, *params);
    FunctionFrame f;
    f.name = name;
    f.params = std::move(params);
    f.attrs = std::move(attrs);
    f.is_pure = is_pure;
    func_ = std::move(f);
  }

  void CheckParams(const std::string& fname, const Array<Var>& params) {
    std::unordered_set<const VarNode*> seen;
    for (const Var& p : params) {
      if (!p.defined()) {
        MINITVM_THROW(ValueError) << "BlockBuilder: function \"" << fname
                                  << "\" has an undefined parameter";
      }
      if (!p->struct_info_.defined()) {
        MINITVM_THROW(ValueError) << "BlockBuilder: parameter \"" << p->name_hint
                                  << "\" of function \"" << fname
                                  << "\" has no struct info; create it with one, e.g. "
                                     "relax.Var(\""
                                  << p->name_hint << "\", R.Tensor((n, 4), \"float32\"))";
      }
      if (!seen.insert(p.get()).second) {
        MINITVM_THROW(ValueError) << "BlockBuilder: parameter \"" << p->name_hint
                                  << "\" appears twice in the parameters of function \"" << fname
                                  << "\"";
      }
    }
  }

  void BeginBlock(bool is_dataflow) {
    if (is_dataflow && !blocks_.empty() && blocks_.back().is_dataflow) {
      MINITVM_THROW(ValueError) << "BlockBuilder: cannot begin a dataflow block inside another "
                                   "dataflow block; end the open one first";
    }
    // An open (implicit) binding block of the function ends where a new block begins.
    if (func_ && !blocks_.empty()) CloseBlockIntoFunction();
    BlockFrame frame;
    frame.is_dataflow = is_dataflow;
    blocks_.push_back(std::move(frame));
  }

  BindingBlock EndBlock() {
    if (blocks_.empty()) {
      MINITVM_THROW(ValueError) << "BlockBuilder: EndBlock called but no block is open";
    }
    BindingBlock block = PopBlock();
    if (func_ && !block->bindings.empty()) func_->blocks.push_back(block);
    return block;
  }

  BindingBlock PopBlock() {
    BlockFrame frame = std::move(blocks_.back());
    blocks_.pop_back();
    Array<Binding> bindings(frame.bindings);
    return frame.is_dataflow ? BindingBlock(DataflowBlock(bindings)) : BindingBlock(bindings);
  }

  void CloseBlockIntoFunction() {
    BindingBlock block = PopBlock();
    if (!block->bindings.empty()) func_->blocks.push_back(block);
  }

  bool CurrentBlockIsDataflow() const { return !blocks_.empty() && blocks_.back().is_dataflow; }

  /*! \brief The block bindings go to; inside a function an implicit binding block is opened. */
  BlockFrame* FrameForEmit(const char* what) {
    if (blocks_.empty()) {
      if (!func_) {
        MINITVM_THROW(ValueError) << "BlockBuilder." << what
                                  << ": no function or binding block is open; call it inside "
                                     "bb.function(...) (or BeginBindingBlock first)";
      }
      blocks_.push_back(BlockFrame());
    }
    return &blocks_.back();
  }

  // ---- bindings ----
  Var Emit(const Expr& expr, std::optional<bool> dataflow_var, const std::string& name_hint,
           const char* what);
  Var EmitMatchCast(const Expr& value, const StructInfo& info, const std::string& name_hint);
  void EmitNormalized(const Binding& binding);
  GlobalVar EmitFuncOutput(const Expr& output, std::optional<Array<Var>> params);
  void AbortFunction() {
    func_.reset();
    blocks_.clear();
  }

  /*! \brief Bind a normalised value in the innermost frame (the normaliser's nested calls). */
  Var EmitInternal(const Expr& value, const std::string& name_hint = "") {
    BlockFrame& frame = blocks_.back();
    bool df = frame.is_dataflow;
    std::string name = FreshName(name_hint.empty() ? (df ? "lv" : "gv") : name_hint);
    StructInfo info = GetStructInfo(value);
    Var var = df ? Var(DataflowVar(name, info)) : Var(name, info);
    if (df) CheckPure(value, name);
    blocks_.back().bindings.push_back(VarBinding(var, value));
    if (df) blocks_.back().dataflow_vars.insert(var.get());
    return var;
  }

  // ---- checks ----
  /*! \brief ValueError when `value` is an impure call (inside a dataflow block). */
  void CheckPure(const Expr& value, const std::string& var_name) {
    std::string callee;
    if (!IsImpureCall(value, &callee)) return;
    MINITVM_THROW(ValueError) << "BlockBuilder: the binding of \"" << var_name << "\" calls "
                              << callee
                              << ", which is impure (has side effects), inside a dataflow "
                                 "block; emit it in a binding block outside the dataflow block";
  }
  bool IsImpureCall(const Expr& value, std::string* callee);

  /*!
   * \brief ValueError when `value` uses a DataflowVar that the innermost open dataflow block
   * did not bind (one of a closed block, or any DataflowVar outside a dataflow block).
   */
  void CheckDataflowVarUses(const Expr& value, const char* what, const std::string& target) {
    const BlockFrame* frame = blocks_.empty() ? nullptr : &blocks_.back();
    for (const Var& v : FreeVars(value)) {
      if (!v.as<DataflowVarNode>()) continue;
      if (frame && frame->is_dataflow && frame->dataflow_vars.count(v.get())) continue;
      MINITVM_THROW(ValueError)
          << "BlockBuilder." << what << ": DataflowVar \"" << v->name_hint << "\" is used in "
          << target << " outside the dataflow block that binds it; a DataflowVar is visible only "
          << "inside its block (emit it with EmitOutput / R.output to use it after the block)";
    }
  }

  // ---- module ----
  GlobalVar AddFunction(const BaseFunc& func, const std::string& name_hint, bool dedup) {
    if (dedup) {
      for (const GlobalVar& gv : mod_->GetGlobalVars()) {
        BaseFunc existing = mod_->Lookup(gv);
        if (existing.get()->GetTypeKey() == func.get()->GetTypeKey() &&
            StructuralEqual(existing, func)) {
          return gv;
        }
      }
    }
    GlobalVar gv(UniqueFunctionName(name_hint));
    SetGlobalVarInfo(gv, func);
    mod_.Add(gv, func);
    return gv;
  }
  void UpdateFunction(const GlobalVar& gv, const BaseFunc& func) {
    if (!mod_->ContainGlobalVar(gv->name_hint)) {
      MINITVM_THROW(ValueError) << "BlockBuilder.UpdateFunction: the module has no function \""
                                << gv->name_hint << "\"";
    }
    gv->struct_info_ = ObjectRef();
    SetGlobalVarInfo(gv, func);
    mod_.Add(gv, func);
  }
  static void SetGlobalVarInfo(const GlobalVar& gv, const BaseFunc& func) {
    if (func->struct_info_.defined() && func->struct_info_.as<FuncStructInfoNode>()) {
      gv->struct_info_ = func->struct_info_;
    } else {
      // A PrimFunc (or an extern function): callable, but its signature is not Relax's.
      gv->struct_info_ = FuncStructInfo::OpaqueFunc(ObjectStructInfo(), /*purity=*/false);
    }
  }
  std::optional<BaseFunc> LookupFunction(const GlobalVar& gv) const {
    for (const GlobalVar& g : mod_->GetGlobalVars()) {
      if (g.same_as(gv)) return mod_->Lookup(g);
    }
    if (auto g = mod_->GetGlobalVar(gv->name_hint)) return mod_->Lookup(*g);
    return std::nullopt;
  }

  // ---- TE ----
  std::pair<Array<Expr>, Array<te::Tensor>> TEPlaceholders(const Array<Expr>& args);
  Call CallTEFromResult(const Array<Expr>& args, const Array<te::Tensor>& placeholders,
                        const Array<te::Tensor>& outputs, const Array<PrimExpr>& extra_prims,
                        const std::string& name_hint);

  Expr Normalize(const Expr& expr);

  IRModule mod_;
  std::optional<FunctionFrame> func_;
  std::vector<BlockFrame> blocks_;

 private:
  std::unordered_map<std::string, int64_t> name_counter_;
};

BlockBuilderNode::~BlockBuilderNode() = default;

// ---- normalisation --------------------------------------------------------------------------

namespace {

/*! \brief The name of a callee for messages. */
std::string CalleeName(const Expr& op) {
  if (const auto* o = op.as<OpNode>()) return "operator " + std::string(o->name);
  if (const auto* g = op.as<GlobalVarNode>())
    return "function \"" + std::string(g->name_hint) + "\"";
  if (const auto* e = op.as<ExternFuncNode>()) {
    return "extern function \"" + std::string(e->global_symbol) + "\"";
  }
  if (const auto* v = op.as<VarNode>()) return "function \"" + std::string(v->name_hint) + "\"";
  return "a function";
}

/*! \brief Drop from `info` the shape variables bound inside a SeqExpr (they are out of scope). */
StructInfo EraseLocalShapeVars(const StructInfo& info,
                               const std::unordered_set<const VarNode*>& local) {
  if (const auto* t = info.as<TensorStructInfoNode>()) {
    const auto* v = t->shape.defined() ? t->shape.as<VarNode>() : nullptr;
    if (!v || !local.count(v)) return info;
    if (auto shape = t->GetShape()) return TensorStructInfo(ShapeExpr(*shape), t->dtype);
    return TensorStructInfo(t->dtype, t->ndim);
  }
  if (const auto* tup = info.as<TupleStructInfoNode>()) {
    bool changed = false;
    Array<StructInfo> fields;
    for (const StructInfo& f : tup->fields) {
      StructInfo nf = EraseLocalShapeVars(f, local);
      changed = changed || !nf.same_as(f);
      fields.push_back(nf);
    }
    return changed ? StructInfo(TupleStructInfo(fields)) : info;
  }
  return info;
}

}  // namespace

/*!
 * \brief Fills in struct info bottom-up. Subtrees that already have it are returned as they
 * are; nested non-leaf arguments are bound to fresh variables in the innermost open block.
 */
class Normalizer : public ExprFunctor<Expr(const Expr&)> {
 public:
  explicit Normalizer(BlockBuilderImpl* bb) : bb_(bb) {}

  /*! \brief How deep an expression may nest: normalising recurses, so deeper nesting is a
   * clear error instead of a stack overflow (bind intermediate results to variables). */
  static constexpr int kMaxDepth = 2000;

  Expr VisitExpr(const Expr& e) override {
    if (depth_ >= kMaxDepth) {
      MINITVM_THROW(ValueError) << "BlockBuilder: the expression is nested more than " << kMaxDepth
                                << " levels deep; bind intermediate results with bb.emit";
    }
    struct Guard {
      int* d;
      ~Guard() { --*d; }
    } guard{&++depth_};
    return ExprFunctor<Expr(const Expr&)>::VisitExpr(e);
  }

  /*! \brief Normalise `e` and, inside a block, bind it when it is not a leaf or tuple. */
  Expr NormalizeArgument(const Expr& e) {
    Expr post = VisitExpr(e);
    if (!bb_->blocks_.empty() && !sinfo_util::IsLeafOrTuple(post)) return bb_->EmitInternal(post);
    return post;
  }

  Expr VisitExpr_(const VarNode* op) final {
    if (!op->struct_info_.defined()) {
      MINITVM_THROW(ValueError) << "variable \"" << op->name_hint
                                << "\" has no struct info (a parameter needs an annotation, a "
                                   "binding gets its value's)";
    }
    return GetRef<Expr>(op);
  }
  Expr VisitExpr_(const ConstantNode* op) final {
    if (!op->struct_info_.defined()) {
      Array<PrimExpr> shape;
      for (int64_t d : op->data.Shape()) shape.push_back(IntImm(DataType::Int(64), d));
      UpdateStructInfo(GetRef<Expr>(op), TensorStructInfo(ShapeExpr(shape), op->data.dtype()));
    }
    return GetRef<Expr>(op);
  }
  Expr VisitExpr_(const ShapeExprNode* op) final {
    return Leaf(op, [&] { return ShapeStructInfo(op->values); });
  }
  Expr VisitExpr_(const PrimValueNode* op) final {
    return Leaf(op, [&] { return PrimStructInfo(op->value); });
  }
  Expr VisitExpr_(const StringImmNode* op) final {
    return Leaf(op, [] { return ObjectStructInfo(); });
  }
  Expr VisitExpr_(const DataTypeImmNode* op) final {
    return Leaf(op, [] { return ObjectStructInfo(); });
  }
  Expr VisitExpr_(const ExternFuncNode* op) final {
    return Leaf(op, [] { return FuncStructInfo::OpaqueFunc(); });
  }
  Expr VisitExpr_(const OpNode* op) final {
    return Leaf(op, [] { return ObjectStructInfo(); });
  }
  Expr VisitExpr_(const GlobalVarNode* op) final {
    GlobalVar gv = GetRef<GlobalVar>(op);
    if (!op->struct_info_.defined()) {
      if (auto f = bb_->LookupFunction(gv)) BlockBuilderImpl::SetGlobalVarInfo(gv, *f);
    }
    return gv;
  }

  Expr VisitExpr_(const TupleNode* op) final {
    bool changed = false;
    Array<Expr> fields;
    for (const Expr& f : op->fields) {
      Expr nf = NormalizeArgument(f);
      changed = changed || !nf.same_as(f);
      fields.push_back(nf);
    }
    Tuple t = changed ? Tuple(fields) : GetRef<Tuple>(op);
    if (!t->struct_info_.defined()) {
      Array<StructInfo> infos;
      for (const Expr& f : fields) infos.push_back(GetStructInfo(f));
      UpdateStructInfo(t, TupleStructInfo(infos));
    }
    return t;
  }

  Expr VisitExpr_(const TupleGetItemNode* op) final {
    Expr tuple = NormalizeArgument(op->tuple);
    TupleGetItem item =
        tuple.same_as(op->tuple) ? GetRef<TupleGetItem>(op) : TupleGetItem(tuple, op->index);
    if (item->struct_info_.defined()) return item;
    StructInfo info = GetStructInfo(tuple);
    if (const auto* t = info.as<TupleStructInfoNode>()) {
      if (op->index < 0 || op->index >= static_cast<int64_t>(t->fields.size())) {
        MINITVM_THROW(IndexError) << "TupleGetItem: index " << op->index
                                  << " is out of range for a tuple of " << t->fields.size()
                                  << " field(s) (" << StructInfoToString(info) << ")";
      }
      UpdateStructInfo(item, t->fields[op->index]);
    } else if (info.as<ObjectStructInfoNode>()) {
      UpdateStructInfo(item, ObjectStructInfo());
    } else {
      MINITVM_THROW(TypeError) << "TupleGetItem: the value indexed is not a tuple but "
                               << StructInfoToString(info);
    }
    return item;
  }

  Expr VisitExpr_(const CallNode* op) final {
    Expr callee = op->op.as<FunctionNode>() ? NormalizeArgument(op->op) : VisitExpr(op->op);
    bool changed = !callee.same_as(op->op);
    Array<Expr> args;
    for (const Expr& a : op->args) {
      Expr na = NormalizeArgument(a);
      changed = changed || !na.same_as(a);
      args.push_back(na);
    }
    Call call = changed ? Call(callee, args, op->attrs, op->sinfo_args) : GetRef<Call>(op);
    if (!call->struct_info_.defined()) UpdateStructInfo(call, InferCall(call));
    return call;
  }

  Expr VisitExpr_(const IfNode* op) final {
    Expr cond = NormalizeArgument(op->cond);
    Expr t = NormalizeBranch(op->true_branch);
    Expr f = NormalizeBranch(op->false_branch);
    bool changed =
        !cond.same_as(op->cond) || !t.same_as(op->true_branch) || !f.same_as(op->false_branch);
    If node = changed ? If(cond, t, f) : GetRef<If>(op);
    if (!node->struct_info_.defined()) {
      UpdateStructInfo(node, StructInfoLCA(GetStructInfo(t), GetStructInfo(f)));
    }
    return node;
  }

  Expr VisitExpr_(const SeqExprNode* op) final {
    bool changed = false;
    Array<BindingBlock> blocks;
    std::unordered_set<const VarNode*> local;
    for (const BindingBlock& block : op->blocks) {
      BindingBlock nb = VisitBlock(block);
      changed = changed || !nb.same_as(block);
      for (const Binding& b : nb->bindings) local.insert(b->var.get());
      if (nb->bindings.empty()) {
        changed = true;
      } else {
        blocks.push_back(nb);
      }
    }
    // A non-leaf body is bound in a block of its own (of the enclosing block's kind), as TVM's
    // normaliser does; adjacent blocks of one kind are then merged.
    BlockBuilderImpl::BlockFrame tail_frame;
    tail_frame.is_dataflow = bb_->CurrentBlockIsDataflow();
    bb_->blocks_.push_back(std::move(tail_frame));
    Expr body;
    try {
      body = NormalizeArgument(op->body);
    } catch (...) {
      bb_->blocks_.pop_back();
      throw;
    }
    BindingBlock tail = bb_->PopBlock();
    if (!tail->bindings.empty()) {
      for (const Binding& b : tail->bindings) local.insert(b->var.get());
      blocks.push_back(tail);
      changed = true;
    }
    changed = changed || !body.same_as(op->body);
    if (MergeAdjacentBlocks(&blocks)) changed = true;
    SeqExpr seq = changed ? SeqExpr(blocks, body) : GetRef<SeqExpr>(op);
    if (!seq->struct_info_.defined()) {
      UpdateStructInfo(seq, EraseLocalShapeVars(GetStructInfo(body), local));
    }
    return seq;
  }

  Expr VisitExpr_(const FunctionNode* op) final {
    for (const Var& p : op->params) {
      if (!p->struct_info_.defined()) {
        MINITVM_THROW(ValueError) << "function parameter \"" << p->name_hint
                                  << "\" has no struct info";
      }
    }
    // The body is a scope of its own: nothing in it is bound in the caller's blocks.
    std::vector<BlockBuilderImpl::BlockFrame> saved;
    std::swap(saved, bb_->blocks_);
    Expr body;
    try {
      body = NormalizeBranch(op->body);
    } catch (...) {
      std::swap(saved, bb_->blocks_);
      throw;
    }
    std::swap(saved, bb_->blocks_);
    if (body.same_as(op->body) && op->struct_info_.defined()) return GetRef<Expr>(op);
    Function f = body.same_as(op->body)
                     ? GetRef<Function>(op)
                     : Function(op->params, body, op->ret_struct_info, op->is_pure, op->attrs);
    if (!f->struct_info_.defined()) {
      Array<StructInfo> params;
      for (const Var& p : f->params) params.push_back(GetStructInfo(p));
      StructInfo ret = f->ret_struct_info.defined() ? f->ret_struct_info : GetStructInfo(body);
      UpdateStructInfo(f, FuncStructInfo(params, ret, f->is_pure));
    }
    return f;
  }

 private:
  template <typename TNode, typename F>
  Expr Leaf(const TNode* op, F make_info) {
    Expr e = GetRef<Expr>(op);
    if (!op->struct_info_.defined()) UpdateStructInfo(e, make_info());
    return e;
  }

  /*! \brief Merge neighbouring blocks of the same kind; true when any were merged. */
  static bool MergeAdjacentBlocks(Array<BindingBlock>* blocks) {
    Array<BindingBlock> out;
    bool merged = false;
    for (const BindingBlock& block : *blocks) {
      bool df = block.as<DataflowBlockNode>() != nullptr;
      if (!out.empty() && (out[out.size() - 1].as<DataflowBlockNode>() != nullptr) == df) {
        std::vector<Binding> bindings = out[out.size() - 1]->bindings.to_vector();
        for (const Binding& b : block->bindings) bindings.push_back(b);
        Array<Binding> all(bindings);
        out.Set(out.size() - 1, df ? BindingBlock(DataflowBlock(all)) : BindingBlock(all));
        merged = true;
      } else {
        out.push_back(block);
      }
    }
    if (merged) *blocks = out;
    return merged;
  }

  /*! \brief A branch or function body: always a SeqExpr, normalised in a scope of its own. */
  Expr NormalizeBranch(const Expr& e) {
    if (e.as<SeqExprNode>()) return VisitExpr(e);
    return VisitExpr(SeqExpr({}, e));
  }

  BindingBlock VisitBlock(const BindingBlock& block) {
    BlockBuilderImpl::BlockFrame frame;
    frame.is_dataflow = block.as<DataflowBlockNode>() != nullptr;
    bb_->blocks_.push_back(std::move(frame));
    bool changed = false;
    try {
      for (const Binding& b : block->bindings) {
        size_t before = bb_->blocks_.back().bindings.size();
        Binding nb = VisitBinding(b);
        changed = changed || !nb.same_as(b) || bb_->blocks_.back().bindings.size() != before;
        bb_->blocks_.back().bindings.push_back(nb);
      }
    } catch (...) {
      bb_->blocks_.pop_back();
      throw;
    }
    BindingBlock out = bb_->PopBlock();
    return changed ? out : block;
  }

  Binding VisitBinding(const Binding& b) {
    if (const auto* vb = b.as<VarBindingNode>()) {
      Expr value = VisitExpr(vb->value);
      if (!vb->var->struct_info_.defined()) vb->var->struct_info_ = GetStructInfo(value);
      return value.same_as(vb->value) ? b : Binding(VarBinding(vb->var, value));
    }
    if (const auto* mc = b.as<MatchCastNode>()) {
      Expr value = NormalizeArgument(mc->value);
      if (!mc->var->struct_info_.defined()) mc->var->struct_info_ = mc->struct_info;
      return value.same_as(mc->value) ? b : Binding(MatchCast(mc->var, value, mc->struct_info));
    }
    MINITVM_THROW(InternalError) << "unknown binding kind " << b->GetTypeKey();
  }

  StructInfo CalleeInfo(const Expr& callee) {
    if (const auto* g = callee.as<GlobalVarNode>()) {
      if (g->struct_info_.defined()) return Downcast<StructInfo>(g->struct_info_);
      // A function the builder does not know: callable with anything, returning anything.
      return FuncStructInfo::OpaqueFunc(ObjectStructInfo(), /*purity=*/true);
    }
    return GetStructInfo(callee);
  }

  StructInfo InferCall(const Call& call) {
    if (const auto* o = call->op.as<OpNode>()) {
      Op op = GetRef<Op>(o);
      OpAttrMap<PackedFunc> finfer(kFInferStructInfo);
      if (!finfer.count(op)) {
        MINITVM_THROW(ValueError) << "operator " << o->name
                                  << " has no FInferStructInfo: its result's struct info cannot "
                                     "be inferred";
      }
      Any r = finfer[op](call);
      if (r.is_null()) {
        MINITVM_THROW(InternalError) << "FInferStructInfo of " << o->name << " returned None";
      }
      return r.cast<StructInfo>();
    }
    StructInfo info = CalleeInfo(call->op);
    const auto* f = info.as<FuncStructInfoNode>();
    if (!f) {
      MINITVM_THROW(TypeError) << "cannot call " << CalleeName(call->op) << ": its struct info is "
                               << StructInfoToString(info) << ", not a function";
    }
    if (f->IsOpaque()) {
      if (!call->sinfo_args.empty()) return call->sinfo_args[0];
      return f->ret;
    }
    if (f->params.size() != call->args.size()) {
      MINITVM_THROW(ValueError) << "call of " << CalleeName(call->op) << ": it takes "
                                << f->params.size() << " argument(s) but " << call->args.size()
                                << " were given";
    }
    // Symbolic dimensions of the callee's parameters take the arguments' values.
    Map<tir::Var, PrimExpr> bindings;
    for (size_t i = 0; i < f->params.size(); ++i) {
      sinfo_util::BindSymbolicVars(f->params[i], GetStructInfo(call->args[i]), &bindings);
    }
    for (size_t i = 0; i < f->params.size(); ++i) {
      StructInfo param = sinfo_util::Substitute(f->params[i], bindings);
      StructInfo arg = GetStructInfo(call->args[i]);
      if (!MayBeBaseOf(param, arg)) {
        MINITVM_THROW(ValueError) << "call of " << CalleeName(call->op) << ": argument " << i
                                  << " has struct info " << StructInfoToString(arg)
                                  << ", which does not match the parameter's "
                                  << StructInfoToString(param);
      }
    }
    return sinfo_util::Substitute(f->ret, bindings);
  }

  int depth_ = 0;
  BlockBuilderImpl* bb_;
};

Expr BlockBuilderImpl::Normalize(const Expr& expr) {
  if (!expr.defined()) MINITVM_THROW(ValueError) << "BlockBuilder.Normalize: no expression";
  if (expr.as<PrimExprNode>()) {
    MINITVM_THROW(TypeError) << "BlockBuilder: a " << expr->GetTypeKey()
                             << " is a TIR expression, not a Relax one; wrap it in "
                                "relax.PrimValue (R.prim_value)";
  }
  Normalizer n(this);
  return n.VisitExpr(expr);
}

bool BlockBuilderImpl::IsImpureCall(const Expr& value, std::string* callee) {
  const auto* call = value.as<CallNode>();
  if (!call) return false;
  if (const auto* o = call->op.as<OpNode>()) {
    OpAttrMap<bool> fpurity(kFPurity);
    Op op = GetRef<Op>(o);
    if (fpurity.count(op) && !fpurity[op]) {
      *callee = CalleeName(call->op);
      return true;
    }
    return false;
  }
  StructInfo info;
  if (call->op->struct_info_.defined()) info = Downcast<StructInfo>(call->op->struct_info_);
  if (const auto* f = info.defined() ? info.as<FuncStructInfoNode>() : nullptr) {
    if (!f->purity) {
      *callee = CalleeName(call->op);
      return true;
    }
  }
  return false;
}

// ---- bindings -------------------------------------------------------------------------------

namespace {
[[noreturn]] void RethrowWithBinding(const Error& e, const std::string& name) {
  throw Error(e.kind(),
              std::string(e.what()) + " (while normalising the binding of \"" + name + "\")");
}
}  // namespace

Var BlockBuilderImpl::Emit(const Expr& expr, std::optional<bool> dataflow_var,
                           const std::string& name_hint, const char* what) {
  if (!expr.defined()) MINITVM_THROW(ValueError) << "BlockBuilder." << what << ": no expression";
  BlockFrame* frame = FrameForEmit(what);
  bool df_block = frame->is_dataflow;
  bool df = dataflow_var.value_or(df_block);
  std::string hint = name_hint.empty() ? (df ? "lv" : "gv") : name_hint;
  Expr value;
  try {
    value = Normalize(expr);
  } catch (const Error& e) {
    RethrowWithBinding(e, PeekName(hint));
  }
  std::string name = FreshName(hint);
  if (df_block) CheckPure(value, name);
  CheckDataflowVarUses(value, what, "the binding of \"" + name + "\"");
  StructInfo info = GetStructInfo(value);
  Var var = df ? Var(DataflowVar(name, info)) : Var(name, info);
  blocks_.back().bindings.push_back(VarBinding(var, value));
  if (df) blocks_.back().dataflow_vars.insert(var.get());
  return var;
}

Var BlockBuilderImpl::EmitMatchCast(const Expr& value, const StructInfo& info,
                                    const std::string& name_hint) {
  if (!info.defined()) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitMatchCast: no struct info to match against";
  }
  if (!value.defined()) MINITVM_THROW(ValueError) << "BlockBuilder.EmitMatchCast: no value";
  BlockFrame* frame = FrameForEmit("EmitMatchCast");
  bool df = frame->is_dataflow;
  std::string hint = name_hint.empty() ? (df ? "lv" : "gv") : name_hint;
  Expr v;
  try {
    Normalizer n(this);
    v = n.NormalizeArgument(value);
  } catch (const Error& e) {
    RethrowWithBinding(e, PeekName(hint));
  }
  std::string name = FreshName(hint);
  CheckDataflowVarUses(v, "EmitMatchCast", "the match_cast of \"" + name + "\"");
  Var var = df ? Var(DataflowVar(name, info)) : Var(name, info);
  blocks_.back().bindings.push_back(MatchCast(var, v, info));
  if (df) blocks_.back().dataflow_vars.insert(var.get());
  return var;
}

void BlockBuilderImpl::EmitNormalized(const Binding& binding) {
  if (!binding.defined()) MINITVM_THROW(ValueError) << "BlockBuilder.EmitNormalized: no binding";
  BlockFrame* frame = FrameForEmit("EmitNormalized");
  const Var& var = binding->var;
  if (var.as<DataflowVarNode>() && !frame->is_dataflow) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitNormalized: DataflowVar \"" << var->name_hint
                              << "\" cannot be bound outside a dataflow block";
  }
  Expr value;
  if (const auto* vb = binding.as<VarBindingNode>()) value = vb->value;
  if (const auto* mc = binding.as<MatchCastNode>()) value = mc->value;
  if (!var->struct_info_.defined() || !value.defined() || !value->struct_info_.defined()) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitNormalized: the binding of \"" << var->name_hint
                              << "\" is not normalised (its variable or value has no struct "
                                 "info); use Emit";
  }
  if (frame->is_dataflow) CheckPure(value, var->name_hint);
  CheckDataflowVarUses(value, "EmitNormalized",
                       "the binding of \"" + std::string(var->name_hint) + "\"");
  frame->bindings.push_back(binding);
  if (var.as<DataflowVarNode>()) frame->dataflow_vars.insert(var.get());
}

GlobalVar BlockBuilderImpl::EmitFuncOutput(const Expr& output, std::optional<Array<Var>> params) {
  if (!func_) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitFuncOutput: no function is being built; call "
                                 "BeginFunction (bb.function(...)) first";
  }
  if (CurrentBlockIsDataflow()) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitFuncOutput: function \"" << func_->name
                              << "\" still has an open dataflow block; end it (leave the "
                                 "`with bb.dataflow()` scope, or EndBlock) before emitting the "
                                 "function's output";
  }
  if (params) {
    if (func_->params) {
      MINITVM_THROW(ValueError) << "BlockBuilder.EmitFuncOutput: the parameters of function \""
                                << func_->name << "\" were already given to BeginFunction";
    }
    CheckParams(func_->name, *params);
    func_->params = *params;
  }
  if (!func_->params) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitFuncOutput: function \"" << func_->name
                              << "\" has no parameters; pass them to bb.function(...) or to "
                                 "emit_func_output(output, params=...)";
  }
  if (!output.defined()) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitFuncOutput: function \"" << func_->name
                              << "\" has no output";
  }
  while (!blocks_.empty()) CloseBlockIntoFunction();
  CheckDataflowVarUses(output, "EmitFuncOutput", "the output of function \"" + func_->name + "\"");
  FunctionFrame f = std::move(*func_);
  func_.reset();
  Expr body;
  try {
    body = Normalize(SeqExpr(Array<BindingBlock>(f.blocks), output));
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(e.what()) + " (while normalising the output of function \"" +
                              f.name + "\")");
  }
  Function fn(*f.params, body, StructInfo(), f.is_pure, f.attrs);
  return AddFunction(fn, f.name, /*dedup=*/false);
}

// ---- TE -------------------------------------------------------------------------------------

std::pair<Array<Expr>, Array<te::Tensor>> BlockBuilderImpl::TEPlaceholders(
    const Array<Expr>& args) {
  Array<Expr> normalized;
  Array<te::Tensor> tensors;
  Normalizer n(this);
  for (size_t i = 0; i < args.size(); ++i) {
    Expr arg = n.NormalizeArgument(args[i]);
    const auto* t = GetStructInfoAs<TensorStructInfoNode>(arg);
    std::optional<Array<PrimExpr>> shape;
    if (t) shape = t->GetShape();
    if (!t || !shape || t->IsUnknownDtype()) {
      MINITVM_THROW(ValueError) << "emit_te: argument " << i << " must be a tensor of known "
                                << "shape and dtype, not "
                                << StructInfoToString(GetStructInfo(arg));
    }
    std::string name;
    if (const auto* v = arg.as<VarNode>()) {
      name = v->name_hint;
    } else if (tensors.size() < 26) {
      name = std::string(1, static_cast<char>('A' + tensors.size()));
    } else {
      name = "tensor_input_" + std::to_string(tensors.size());
    }
    tensors.push_back(te::placeholder(*shape, t->dtype, name));
    normalized.push_back(arg);
  }
  return {normalized, tensors};
}

namespace {
void CollectVars(const PrimExpr& e, std::vector<tir::Var>* out,
                 std::unordered_set<const Object*>* seen) {
  tir::PostOrderVisit(e, [&](const ObjectRef& n) {
    if (const auto* v = n.as<tir::VarNode>()) {
      if (seen->insert(v).second) out->push_back(GetRef<tir::Var>(v));
    }
  });
}
}  // namespace

Call BlockBuilderImpl::CallTEFromResult(const Array<Expr>& args,
                                        const Array<te::Tensor>& placeholders,
                                        const Array<te::Tensor>& outputs,
                                        const Array<PrimExpr>& extra_prims,
                                        const std::string& name_hint) {
  if (outputs.empty()) {
    MINITVM_THROW(ValueError) << "emit_te: the TE function returned no tensor";
  }
  // Symbolic variables that are a whole dimension of an input are defined by its buffer; any
  // other one the computation uses becomes a scalar parameter (call_tir's tir_vars).
  std::unordered_set<const Object*> bound;
  for (const te::Tensor& t : placeholders) {
    for (const PrimExpr& d : t->shape) {
      if (const auto* v = d.as<tir::VarNode>()) bound.insert(v);
    }
  }
  std::vector<tir::Var> used;
  std::unordered_set<const Object*> seen;
  for (const te::Tensor& t : placeholders) {
    for (const PrimExpr& d : t->shape) CollectVars(d, &used, &seen);
  }
  for (const te::Tensor& t : outputs) {
    for (const PrimExpr& d : t->shape) CollectVars(d, &used, &seen);
  }
  for (const PrimExpr& e : extra_prims) CollectVars(e, &used, &seen);
  Array<PrimExpr> tir_vars;
  Array<ObjectRef> cpf_args;
  // Parameter order as call_tir passes them (and TVM orders them): inputs, outputs, tir_vars.
  for (const te::Tensor& t : placeholders) cpf_args.push_back(t);
  for (const te::Tensor& t : outputs) cpf_args.push_back(t);
  for (const tir::Var& v : used) {
    if (!bound.count(v.get())) {
      tir_vars.push_back(v);
      cpf_args.push_back(v);
    }
  }
  tir::PrimFunc prim = te::CreatePrimFuncFromArgs(cpf_args);
  GlobalVar gv = AddFunction(prim, name_hint.empty() ? "te_func" : name_hint, /*dedup=*/true);

  Array<StructInfo> outs;
  for (const te::Tensor& t : outputs) {
    outs.push_back(TensorStructInfo(ShapeExpr(t->shape), t->dtype));
  }
  StructInfo out_sinfo = outs.size() == 1 ? outs[0] : StructInfo(TupleStructInfo(outs));
  return op::call_tir(gv, Any(Tuple(args)), Any(out_sinfo),
                      tir_vars.empty() ? Any() : Any(ShapeExpr(tir_vars)));
}

// ---- the handle -----------------------------------------------------------------------------

BlockBuilder::BlockBuilder(std::optional<IRModule> mod) {
  auto n = make_object<BlockBuilderNode>();
  n->impl = std::make_unique<BlockBuilderImpl>(mod ? *mod : IRModule());
  data_ = std::move(n);
}

namespace {
BlockBuilderImpl* Impl(const BlockBuilder& bb) { return bb->impl.get(); }
}  // namespace

void BlockBuilder::BeginFunction(const std::string& name, Array<Var> params, Map<String, Any> attrs,
                                 bool is_pure) {
  Impl(*this)->BeginFunction(name, params, attrs, is_pure);
}
GlobalVar BlockBuilder::EmitFuncOutput(const Expr& output) {
  return Impl(*this)->EmitFuncOutput(output, std::nullopt);
}
void BlockBuilder::BeginDataflowBlock() { Impl(*this)->BeginBlock(true); }
void BlockBuilder::BeginBindingBlock() { Impl(*this)->BeginBlock(false); }
BindingBlock BlockBuilder::EndBlock() { return Impl(*this)->EndBlock(); }
bool BlockBuilder::CurrentBlockIsDataflow() const { return Impl(*this)->CurrentBlockIsDataflow(); }

Var BlockBuilder::Emit(const Expr& expr, const std::string& name_hint) {
  return Impl(*this)->Emit(expr, std::nullopt, name_hint, "Emit");
}
Var BlockBuilder::EmitOutput(const Expr& expr, const std::string& name_hint) {
  if (!Impl(*this)->CurrentBlockIsDataflow()) {
    MINITVM_THROW(ValueError) << "BlockBuilder.EmitOutput: only a dataflow block has outputs; "
                                 "call it inside `with bb.dataflow()` (BeginDataflowBlock), or use "
                                 "Emit";
  }
  return Impl(*this)->Emit(expr, false, name_hint, "EmitOutput");
}
Var BlockBuilder::EmitMatchCast(const Expr& value, const StructInfo& info,
                                const std::string& name_hint) {
  return Impl(*this)->EmitMatchCast(value, info, name_hint);
}
void BlockBuilder::EmitNormalized(const Binding& binding) { Impl(*this)->EmitNormalized(binding); }

Var BlockBuilder::EmitTE(const std::function<Array<te::Tensor>(const Array<te::Tensor>&)>& fte,
                         const Array<Expr>& args, const std::string& name_hint) {
  return Emit(CallTE(fte, args, name_hint));
}
Expr BlockBuilder::CallTE(const std::function<Array<te::Tensor>(const Array<te::Tensor>&)>& fte,
                          const Array<Expr>& args, const std::string& name_hint) {
  auto [normalized, placeholders] = Impl(*this)->TEPlaceholders(args);
  Array<te::Tensor> outs = fte(placeholders);
  return Impl(*this)->CallTEFromResult(normalized, placeholders, outs, {}, name_hint);
}

GlobalVar BlockBuilder::AddFunction(const BaseFunc& func, const std::string& name_hint) {
  if (!func.defined()) MINITVM_THROW(ValueError) << "BlockBuilder.AddFunction: no function";
  return Impl(*this)->AddFunction(func, name_hint, /*dedup=*/true);
}
void BlockBuilder::UpdateFunction(const GlobalVar& gv, const BaseFunc& func) {
  if (!gv.defined() || !func.defined()) {
    MINITVM_THROW(ValueError) << "BlockBuilder.UpdateFunction: the GlobalVar and the function "
                                 "must both be given";
  }
  Impl(*this)->UpdateFunction(gv, func);
}
IRModule BlockBuilder::Get() const { return Impl(*this)->mod_; }
Expr BlockBuilder::Normalize(const Expr& expr) { return Impl(*this)->Normalize(expr); }
std::optional<BaseFunc> BlockBuilder::LookupFunction(const GlobalVar& gv) const {
  if (!gv.defined()) MINITVM_THROW(ValueError) << "BlockBuilder.LookupFunction: no GlobalVar";
  return Impl(*this)->LookupFunction(gv);
}

Expr Normalize(const Expr& expr) { return BlockBuilder().Normalize(expr); }

// ---- FFI ------------------------------------------------------------------------------------

namespace {
std::optional<Array<Var>> OptParams(const Any& a) {
  if (a.is_null()) return std::nullopt;
  if (auto v = a.try_cast<Var>()) return Array<Var>{*v};
  return a.cast<Array<Var>>();
}
}  // namespace

MINITVM_REGISTER_GLOBAL("relax.BlockBuilderCreate").set_body_typed([](std::optional<IRModule> m) {
  return BlockBuilder(m);
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderBeginFunction")
    .set_body_typed([](BlockBuilder bb, std::string name, Any params,
                       std::optional<Map<String, Any>> attrs, bool is_pure) {
      Impl(bb)->BeginFunction(name, OptParams(params), attrs.value_or(Map<String, Any>()), is_pure);
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderEmitFuncOutput")
    .set_body_typed([](BlockBuilder bb, Expr output, Any params) {
      return Impl(bb)->EmitFuncOutput(output, OptParams(params));
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderAbortFunction").set_body_typed([](BlockBuilder bb) {
  Impl(bb)->AbortFunction();
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderInFunction").set_body_typed([](BlockBuilder bb) {
  return Impl(bb)->func_.has_value();
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderBeginDataflowBlock").set_body_typed([](BlockBuilder bb) {
  bb.BeginDataflowBlock();
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderBeginBindingBlock").set_body_typed([](BlockBuilder bb) {
  bb.BeginBindingBlock();
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderEndBlock").set_body_typed([](BlockBuilder bb) {
  return bb.EndBlock();
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderCurrentBlockIsDataFlow")
    .set_body_typed([](BlockBuilder bb) { return bb.CurrentBlockIsDataflow(); });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderEmit")
    .set_body_typed([](BlockBuilder bb, Expr expr, std::string name_hint) {
      return bb.Emit(expr, name_hint);
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderEmitOutput")
    .set_body_typed([](BlockBuilder bb, Expr expr, std::string name_hint) {
      return bb.EmitOutput(expr, name_hint);
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderEmitMatchCast")
    .set_body_typed([](BlockBuilder bb, Expr value, StructInfo info, std::string name_hint) {
      return bb.EmitMatchCast(value, info, name_hint);
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderEmitNormalized")
    .set_body_typed([](BlockBuilder bb, Binding binding) { bb.EmitNormalized(binding); });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderNormalize").set_body_typed([](BlockBuilder bb, Expr e) {
  return bb.Normalize(e);
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderGetContextIRModule").set_body_typed([](BlockBuilder bb) {
  return bb.Get();
});
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderAddFunction")
    .set_body_typed([](BlockBuilder bb, BaseFunc func, std::string name) {
      return bb.AddFunction(func, name);
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderUpdateFunction")
    .set_body_typed([](BlockBuilder bb, GlobalVar gv, BaseFunc func) {
      bb.UpdateFunction(gv, func);
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderLookupFunction")
    .set_body_typed([](BlockBuilder bb, GlobalVar gv) -> Any {
      if (auto f = bb.LookupFunction(gv)) return *f;
      return Any();
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderGetUniqueName")
    .set_body_typed([](BlockBuilder bb, std::string hint) { return Impl(bb)->FreshName(hint); });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderTEPlaceholders")
    .set_body_typed([](BlockBuilder bb, Array<Expr> args) {
      auto [normalized, tensors] = Impl(bb)->TEPlaceholders(args);
      return Array<Any>{Any(normalized), Any(tensors)};
    });
MINITVM_REGISTER_GLOBAL("relax.BlockBuilderEmitTEResult")
    .set_body_typed([](BlockBuilder bb, Array<Expr> args, Array<te::Tensor> placeholders,
                       Array<te::Tensor> outputs, Array<PrimExpr> extra_prims,
                       std::string name_hint) {
      return Impl(bb)->CallTEFromResult(args, placeholders, outputs, extra_prims, name_hint);
    });
MINITVM_REGISTER_GLOBAL("relax.Normalize").set_body_typed([](Expr e) { return Normalize(e); });

}  // namespace relax
}  // namespace minitvm
