/*!
 * \file transform/fuse_tir.cc
 * \brief FuseTIR (stage 4), TVM's `relax.transform.FuseTIR()`: every Relax function marked
 * "Primitive" (what FuseOps makes) whose body is a chain of `call_tir`s becomes one PrimFunc of
 * the same name, and each call of it becomes one `call_tir`.
 *
 * The fused PrimFunc takes one buffer per Relax parameter (handle `p_<name>`, buffer `<name>`,
 * shape from the parameter's struct info), then one per result (`p_output0`, ...; the buffer
 * keeps the callee's name for it). Each callee is inlined into the root block in order, with its
 * own variables, loops and blocks copied fresh: its parameter buffers become the buffers of the
 * arguments, its symbolic shape variables the dimensions of those buffers (and its scalar
 * parameters the call's `tir_vars`), intermediate results become root `alloc_buffer`s named
 * `<name>_intermediate`, and block names are made unique (`T_add`, `T_add1`). A Primitive function
 * that is not such a chain (a high-level op, a constant argument, a match_cast) is left as it is.
 */
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

/*! \brief Whether `func` carries a nonzero "Primitive" attribute. */
bool IsPrimitiveFunc(const BaseFunc& func) {
  auto v = func->attrs.Get(String("Primitive"));
  if (!v) return false;
  if (v->is_int()) return v->cast<int64_t>() != 0;
  if (v->is_bool()) return v->cast<bool>();
  if (auto imm = v->try_cast<IntImm>()) return (*imm)->value != 0;
  return false;
}

/*!
 * \brief Copies a callee's body into the fused function: every variable it defines (loops, block
 * iterators, lets, buffers it allocates) gets a fresh copy, its parameter buffers and symbolic
 * variables become what the caller maps them to.
 */
class CalleeInliner : public tir::StmtExprMutator {
 public:
  void MapVar(const tir::Var& from, const PrimExpr& to) { vars_[from.get()] = to; }
  void MapBuffer(const tir::Buffer& from, const tir::Buffer& to) { bufs_[from.get()] = to; }
  bool HasVar(const tir::Var& v) const { return vars_.count(v.get()) != 0; }

  using tir::StmtExprMutator::VisitExpr;
  using tir::StmtExprMutator::VisitStmt;

  PrimExpr VisitExpr_(const tir::VarNode* op) override {
    auto it = vars_.find(op);
    if (it != vars_.end()) return it->second;
    return GetRef<PrimExpr>(op);
  }

  tir::Buffer VisitBuffer(const tir::Buffer& buffer) override {
    auto it = bufs_.find(buffer.get());
    if (it != bufs_.end()) return it->second;
    // A buffer the callee defines itself: a fresh copy with the shapes mapped.
    tir::Var data = buffer->data.copy_with_name(buffer->data->name_hint);
    vars_[buffer->data.get()] = data;
    Array<PrimExpr> shape, strides;
    for (const PrimExpr& e : buffer->shape) shape.push_back(VisitExpr(e));
    for (const PrimExpr& e : buffer->strides) strides.push_back(VisitExpr(e));
    PrimExpr offset = buffer->elem_offset.defined() ? VisitExpr(buffer->elem_offset) : PrimExpr();
    tir::Buffer copy(data, buffer->dtype, shape, strides, offset, buffer->name, buffer->scope,
                     buffer->data_alignment, buffer->offset_factor);
    bufs_[buffer.get()] = copy;
    return copy;
  }

  tir::Stmt VisitStmt_(const tir::ForNode* op) override {
    tir::Var v = Fresh(op->loop_var);
    PrimExpr min = VisitExpr(op->min);
    PrimExpr extent = VisitExpr(op->extent);
    tir::Stmt body = VisitStmt(op->body);
    return tir::For(v, min, extent, op->kind, body, op->thread_binding, op->annotations);
  }

  tir::Stmt VisitStmt_(const tir::LetStmtNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    tir::Var v = Fresh(op->var);
    return tir::LetStmt(v, value, VisitStmt(op->body));
  }

  tir::Stmt VisitStmt_(const tir::AllocateNode* op) override {
    tir::Var v = Fresh(op->buffer_var);
    Array<PrimExpr> extents;
    for (const PrimExpr& e : op->extents) extents.push_back(VisitExpr(e));
    return tir::Allocate(v, op->dtype, extents, VisitExpr(op->condition), VisitStmt(op->body),
                         op->scope, op->annotations);
  }

  tir::Stmt VisitStmt_(const tir::DeclBufferNode* op) override {
    tir::Buffer b = VisitBuffer(op->buffer);
    return tir::DeclBuffer(b, VisitStmt(op->body));
  }

  tir::Stmt VisitStmt_(const tir::BlockNode* op) override {
    Array<tir::IterVar> iter_vars;
    for (const tir::IterVar& iv : op->iter_vars) {
      Range dom(VisitExpr(iv->dom->min), VisitExpr(iv->dom->extent));
      iter_vars.push_back(tir::IterVar(dom, Fresh(iv->var), iv->iter_type, iv->thread_tag));
    }
    Array<tir::Buffer> allocs;
    for (const tir::Buffer& b : op->alloc_buffers) allocs.push_back(VisitBuffer(b));
    Array<tir::MatchBufferRegion> matches;
    for (const tir::MatchBufferRegion& m : op->match_buffers) {
      tir::BufferRegion src = VisitBufferRegion(m->source);
      matches.push_back(tir::MatchBufferRegion(VisitBuffer(m->buffer), src));
    }
    Array<tir::BufferRegion> reads, writes;
    for (const tir::BufferRegion& r : op->reads) reads.push_back(VisitBufferRegion(r));
    for (const tir::BufferRegion& r : op->writes) writes.push_back(VisitBufferRegion(r));
    tir::Stmt init = op->init.defined() ? VisitStmt(op->init) : tir::Stmt();
    tir::Stmt body = VisitStmt(op->body);
    return tir::Block(iter_vars, reads, writes, op->name_hint, body, init, allocs, matches,
                      op->annotations);
  }

 private:
  tir::Var Fresh(const tir::Var& v) {
    tir::Var copy = v.copy_with_name(v->name_hint);
    vars_[v.get()] = copy;
    return copy;
  }

  std::unordered_map<const Object*, PrimExpr> vars_;
  std::unordered_map<const Object*, tir::Buffer> bufs_;
};

/*! \brief Makes block names unique (TVM's scheme: `T_add`, `T_add1`, `T_add2`, ...). */
class BlockNameDeduplicator : public tir::StmtMutator {
 public:
  tir::Stmt VisitStmt_(const tir::BlockNode* op) override {
    tir::Stmt s = tir::StmtMutator::VisitStmt_(op);
    std::string name = Unique(op->name_hint);
    if (name == op->name_hint) return s;
    tir::Block b = Downcast<tir::Block>(s);
    b.CopyOnWrite()->name_hint = name;
    return b;
  }

 private:
  std::string Unique(const std::string& name) {
    if (used_.insert(name).second) return name;
    size_t base_len = name.size();
    while (base_len > 0 && std::isdigit(static_cast<unsigned char>(name[base_len - 1]))) {
      --base_len;
    }
    std::string base = name.substr(0, base_len);
    int64_t k = base_len < name.size() && name.size() - base_len < 18
                    ? std::stoll(name.substr(base_len))
                    : 0;
    for (;;) {
      std::string candidate = base + std::to_string(++k);
      if (used_.insert(candidate).second) return candidate;
    }
  }
  std::unordered_set<std::string> used_;
};

/*! \brief A name not in `used` (adding `_1`, `_2`, ... to `name`), recorded in `used`. */
std::string UniqueName(const std::string& name, std::unordered_set<std::string>* used) {
  if (used->insert(name).second) return name;
  for (int k = 1;; ++k) {
    std::string candidate = name + "_" + std::to_string(k);
    if (used->insert(candidate).second) return candidate;
  }
}

/*!
 * \brief Builds the one PrimFunc of a Primitive function; `ok` is false (and the function is left
 * alone) when the body is not a chain of call_tirs it can fuse.
 */
class FusedTIRConstructor {
 public:
  explicit FusedTIRConstructor(IRModule mod) : mod_(std::move(mod)) {}

  std::optional<tir::PrimFunc> Build(const Function& func) {
    // Parameters: one buffer per tensor parameter, with fresh copies of the symbolic variables.
    std::vector<const TensorStructInfoNode*> param_infos;
    for (const Var& p : func->params) {
      auto* t = GetStructInfoAs<TensorStructInfoNode>(p);
      if (!t || t->IsUnknownDtype() || !t->GetShape()) return std::nullopt;
      AddSymbolicVars(GetStructInfo(p));
      param_infos.push_back(t);
    }
    for (size_t i = 0; i < func->params.size(); ++i) {
      const Var& p = func->params[i];
      std::string name = UniqueName(p->name_hint, &names_);
      tir::Buffer buf =
          tir::decl_buffer(MapShape(*param_infos[i]->GetShape()), param_infos[i]->dtype, name);
      tir::Var handle("p_" + name, DataType::Handle());
      params_.push_back(handle);
      buffer_map_.Set(handle, buf);
      param_buffers_.insert(buf.get());
      expr_buffers_[p.get()] = {buf};
    }

    // The bindings.
    auto* seq = func->body.as<SeqExprNode>();
    if (!seq) return std::nullopt;
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block->bindings) {
        auto* vb = b.as<VarBindingNode>();
        if (!vb) return std::nullopt;
        std::vector<tir::Buffer> bufs;
        if (auto* call = vb->value.as<CallNode>()) {
          if (!InlineCall(call, &bufs)) return std::nullopt;
        } else if (auto* tgi = vb->value.as<TupleGetItemNode>()) {
          auto* v = tgi->tuple.as<VarNode>();
          if (!v || !expr_buffers_.count(v)) return std::nullopt;
          const auto& whole = expr_buffers_[v];
          if (tgi->index < 0 || tgi->index >= static_cast<int64_t>(whole.size())) {
            return std::nullopt;
          }
          bufs.push_back(whole[tgi->index]);
        } else if (auto* v = vb->value.as<VarNode>()) {
          if (!expr_buffers_.count(v)) return std::nullopt;
          bufs = expr_buffers_[v];
        } else {
          return std::nullopt;
        }
        expr_buffers_[vb->var.get()] = bufs;
      }
    }

    // The results: each an intermediate of its own.
    std::vector<tir::Buffer> outputs;
    std::vector<Expr> results;
    if (auto* t = seq->body.as<TupleNode>()) {
      for (const Expr& f : t->fields) results.push_back(f);
    } else {
      results.push_back(seq->body);
    }
    std::unordered_set<const Object*> out_set;
    for (const Expr& r : results) {
      auto* v = r.as<VarNode>();
      if (!v || !expr_buffers_.count(v)) return std::nullopt;
      for (const tir::Buffer& b : expr_buffers_[v]) {
        if (param_buffers_.count(b.get()) || !out_set.insert(b.get()).second) return std::nullopt;
        outputs.push_back(b);
      }
    }

    // Results keep the callee's name for them; the other intermediates are allocated in the
    // root block as `<name>_intermediate`.
    std::unordered_map<const Object*, tir::Buffer> rename;
    auto renamed = [&](const tir::Buffer& b, const std::string& name) {
      tir::Buffer copy = b;
      copy.CopyOnWrite()->name = UniqueName(name, &names_);
      rename[b.get()] = copy;
      return copy;
    };
    for (size_t i = 0; i < outputs.size(); ++i) {
      tir::Var handle("p_output" + std::to_string(i), DataType::Handle());
      params_.push_back(handle);
      buffer_map_.Set(handle, renamed(outputs[i], outputs[i]->name));
    }
    Array<tir::Buffer> allocs;
    for (const tir::Buffer& b : intermediates_) {
      if (!out_set.count(b.get()))
        allocs.push_back(renamed(b, std::string(b->name) + "_intermediate"));
    }
    for (const tir::Buffer& b : callee_allocs_) allocs.push_back(b);

    // Every symbolic variable must be defined by a dimension of some parameter buffer.
    std::unordered_set<const Object*> defined;
    for (const auto& [handle, buf] : buffer_map_.items()) {
      for (const PrimExpr& d : buf->shape) {
        if (d.as<tir::VarNode>()) defined.insert(d.get());
      }
    }
    for (const auto& [from, to] : sym_.items()) {
      if (!defined.count(to.get())) return std::nullopt;
    }

    tir::Stmt body = tir::SeqStmt::Flatten(bodies_);
    body = CalleeRenamer(rename).VisitStmt(body);
    body = BlockNameDeduplicator()(body);
    tir::Block root({}, {}, {}, "root", body, tir::Stmt(), allocs);
    tir::Stmt realize = tir::BlockRealize({}, tir::const_true(), root);
    Map<String, Any> attrs;
    attrs.Set(String("tir.noalias"), Any(true));
    return tir::PrimFunc(params_, realize, buffer_map_, attrs);
  }

 private:
  /*! \brief Swaps buffers (the renamed intermediates) everywhere they are used. */
  class CalleeRenamer : public tir::StmtExprMutator {
   public:
    explicit CalleeRenamer(std::unordered_map<const Object*, tir::Buffer> m) : m_(std::move(m)) {}
    tir::Buffer VisitBuffer(const tir::Buffer& b) override {
      auto it = m_.find(b.get());
      return it == m_.end() ? b : it->second;
    }

   private:
    std::unordered_map<const Object*, tir::Buffer> m_;
  };

  /*! \brief Give every symbolic variable of `info` not seen yet its fused-function copy. */
  void AddSymbolicVars(const StructInfo& info) {
    for (const tir::Var& v : TIRVarsInStructInfo(info)) {
      if (!sym_.count(v)) sym_.Set(v, tir::Var(v->name_hint, v->dtype));
    }
  }

  Array<PrimExpr> MapShape(const Array<PrimExpr>& shape) {
    Array<PrimExpr> out;
    for (const PrimExpr& d : shape) out.push_back(tir::Substitute(d, sym_));
    return out;
  }

  /*! \brief The (shape, dtype) of each tensor in a call_tir's output struct info. */
  static bool OutputInfos(const StructInfo& info, std::vector<const TensorStructInfoNode*>* out) {
    if (auto* t = info.as<TensorStructInfoNode>()) {
      if (t->IsUnknownDtype() || !t->GetShape()) return false;
      out->push_back(t);
      return true;
    }
    if (auto* tup = info.as<TupleStructInfoNode>()) {
      for (const StructInfo& f : tup->fields) {
        if (!OutputInfos(f, out)) return false;
      }
      return true;
    }
    return false;
  }

  bool InlineCall(const CallNode* call, std::vector<tir::Buffer>* outs) {
    if (!IsOp(call->op, "relax.call_tir") || call->args.size() < 2) return false;
    auto* gv = call->args[0].as<GlobalVarNode>();
    if (!gv || !mod_->ContainGlobalVar(gv->name_hint)) return false;
    auto* callee = mod_->Lookup(gv->name_hint).as<tir::PrimFuncNode>();
    if (!callee || call->sinfo_args.empty()) return false;

    // Arguments: each a tensor variable with one buffer.
    std::vector<tir::Buffer> in_bufs;
    std::vector<Expr> args;
    if (auto* t = call->args[1].as<TupleNode>()) {
      for (const Expr& f : t->fields) args.push_back(f);
    } else {
      args.push_back(call->args[1]);
    }
    for (const Expr& a : args) {
      auto* v = a.as<VarNode>();
      if (!v || !expr_buffers_.count(v) || expr_buffers_[v].size() != 1) return false;
      in_bufs.push_back(expr_buffers_[v][0]);
    }
    std::vector<const TensorStructInfoNode*> out_infos;
    if (!OutputInfos(call->sinfo_args[0], &out_infos)) return false;
    AddSymbolicVars(call->sinfo_args[0]);
    Array<PrimExpr> tir_vars;
    if (call->args.size() > 2) {
      auto* shape = call->args[2].as<ShapeExprNode>();
      if (!shape) return false;
      tir_vars = shape->values;
      AddSymbolicVars(ShapeStructInfo(tir_vars));
    }

    // The callee's parameters: inputs, outputs, then scalars.
    size_t n_in = in_bufs.size(), n_out = out_infos.size();
    if (callee->params.size() != n_in + n_out + tir_vars.size()) return false;
    CalleeInliner inliner;
    std::vector<tir::Buffer> out_bufs;
    for (size_t i = 0; i < n_out; ++i) {
      const tir::Var& p = callee->params[n_in + i];
      auto b = callee->buffer_map.Get(p);
      std::string base = b ? std::string((*b)->name) : "out";
      // Named when the function is finished (outputs keep the name, others get a suffix).
      tir::Buffer buf =
          tir::decl_buffer(MapShape(*out_infos[i]->GetShape()), out_infos[i]->dtype, base);
      out_bufs.push_back(buf);
      intermediates_.push_back(buf);
    }
    for (size_t i = 0; i < n_in + n_out; ++i) {
      const tir::Var& p = callee->params[i];
      auto b = callee->buffer_map.Get(p);
      if (!b) return false;
      const tir::Buffer& actual = i < n_in ? in_bufs[i] : out_bufs[i - n_in];
      if ((*b)->shape.size() != actual->shape.size() || (*b)->dtype != actual->dtype) return false;
      // Symbolic dimensions of the callee take the actual dimensions.
      for (size_t d = 0; d < (*b)->shape.size(); ++d) {
        if (auto* v = (*b)->shape[d].as<tir::VarNode>()) {
          if (!inliner.HasVar(GetRef<tir::Var>(v))) {
            inliner.MapVar(GetRef<tir::Var>(v), actual->shape[d]);
          }
        }
      }
      if (auto* v = (*b)->elem_offset.as<tir::VarNode>()) {
        inliner.MapVar(GetRef<tir::Var>(v), IntImm(v->dtype, 0));
      }
      inliner.MapVar(p, actual->data);
      inliner.MapVar((*b)->data, actual->data);
      inliner.MapBuffer(*b, actual);
    }
    for (size_t i = 0; i < tir_vars.size(); ++i) {
      const tir::Var& p = callee->params[n_in + n_out + i];
      PrimExpr value = tir::Substitute(tir_vars[i], sym_);
      if (value.dtype() != p->dtype) value = tir::cast(p->dtype, value);
      inliner.MapVar(p, value);
    }

    // The body: the root block's contents (its allocations join the fused root block).
    tir::Stmt body = callee->body;
    if (auto* realize = body.as<tir::BlockRealizeNode>()) {
      const tir::Block& root = realize->block;
      if (root->iter_vars.empty() && !root->init.defined() && root->match_buffers.empty()) {
        for (const tir::Buffer& b : root->alloc_buffers) {
          tir::Buffer copy = inliner.VisitBuffer(b);
          copy.CopyOnWrite()->name = UniqueName(b->name, &names_);
          inliner.MapBuffer(b, copy);
          callee_allocs_.push_back(copy);
        }
        body = root->body;
      }
    }
    bodies_.push_back(inliner.VisitStmt(body));
    *outs = out_bufs;
    return true;
  }

  IRModule mod_;
  /*! \brief Relax symbolic variable → the fused function's copy. */
  Map<tir::Var, PrimExpr> sym_;
  std::unordered_set<std::string> names_;
  Array<tir::Var> params_;
  Map<tir::Var, tir::Buffer> buffer_map_;
  std::unordered_set<const Object*> param_buffers_;
  std::unordered_map<const VarNode*, std::vector<tir::Buffer>> expr_buffers_;
  std::vector<tir::Buffer> intermediates_;
  Array<tir::Buffer> callee_allocs_;
  Array<tir::Stmt> bodies_;
};

/*! \brief Replaces calls of fused Primitive functions by call_tir of their PrimFuncs. */
class FusedCallRewriter : public ExprMutator {
 public:
  explicit FusedCallRewriter(std::unordered_map<const Object*, GlobalVar> fused)
      : fused_(std::move(fused)) {}

  Expr VisitExpr_(const CallNode* op) override {
    Expr visited = ExprMutator::VisitExpr_(op);
    auto* call = visited.as<CallNode>();
    auto it = fused_.find(call->op.get());
    if (it == fused_.end()) return visited;
    StructInfo out = GetStructInfo(GetRef<Expr>(op));
    Any out_sinfo;
    if (auto* t = out.as<TupleStructInfoNode>()) {
      out_sinfo = Array<StructInfo>(t->fields);
    } else {
      out_sinfo = out;
    }
    Tuple args(call->args);
    Array<StructInfo> arg_infos;
    for (const Expr& a : call->args) arg_infos.push_back(GetStructInfo(a));
    UpdateStructInfo(args, TupleStructInfo(arg_infos));
    Call rewritten(Op::Get("relax.call_tir"), {it->second, args}, {}, {out});
    UpdateStructInfo(rewritten, out);
    return rewritten;
  }

 private:
  std::unordered_map<const Object*, GlobalVar> fused_;
};

/*! \brief The names of the functions `func` refers to. */
void CalleeNames(const Function& func, std::unordered_set<std::string>* names) {
  class Collector : public ExprVisitor {
   public:
    explicit Collector(std::unordered_set<std::string>* n) : names_(n) {}
    void VisitExpr_(const GlobalVarNode* op) override { names_->insert(op->name_hint); }

   private:
    std::unordered_set<std::string>* names_;
  };
  Collector(names).VisitExpr(func);
}

/*! \brief GlobalVars (by name) that some Relax function of `mod` refers to. */
std::unordered_set<std::string> ReferencedNames(const IRModule& mod) {
  std::unordered_set<std::string> names;
  for (const auto& [gv, f] : mod->functions.items()) {
    if (auto* fn = f.as<FunctionNode>()) CalleeNames(GetRef<Function>(fn), &names);
  }
  return names;
}

}  // namespace

Pass FuseTIR() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        // Step 1: one PrimFunc per fusable Primitive function.
        std::unordered_map<const Object*, GlobalVar> fused;
        std::vector<std::pair<GlobalVar, tir::PrimFunc>> made;
        std::unordered_set<std::string> callees;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          BaseFunc f = mod->Lookup(gv);
          auto* fn = f.as<FunctionNode>();
          if (!fn || !IsPrimitiveFunc(f)) continue;
          auto prim = FusedTIRConstructor(mod).Build(GetRef<Function>(fn));
          if (!prim) continue;
          GlobalVar new_gv(gv->name_hint);
          new_gv->struct_info_ = FuncStructInfo::OpaqueFunc(ObjectStructInfo(), false);
          fused[gv.get()] = new_gv;
          made.emplace_back(gv, *prim);
          CalleeNames(GetRef<Function>(fn), &callees);
        }
        if (made.empty()) return mod;

        // Step 2: calls of them become call_tir; the Primitive functions give way to the
        // PrimFuncs of the same names.
        FusedCallRewriter rewriter(fused);
        Map<GlobalVar, BaseFunc> functions;
        std::unordered_set<const Object*> replaced;
        for (const auto& [old_gv, prim] : made) replaced.insert(old_gv.get());
        for (const auto& [gv, f] : mod->functions.items()) {
          if (replaced.count(gv.get())) continue;
          auto* fn = f.as<FunctionNode>();
          if (!fn) {
            functions.Set(gv, f);
            continue;
          }
          Expr out = rewriter.VisitExpr(GetRef<Function>(fn));
          functions.Set(gv, Downcast<BaseFunc>(out));
        }
        for (const auto& [old_gv, prim] : made) functions.Set(fused[old_gv.get()], prim);
        IRModule result(functions, mod->attrs);

        // Step 3: drop the PrimFuncs that only the fused functions called.
        std::unordered_set<std::string> used = ReferencedNames(result);
        for (const std::string& name : callees) {
          auto gv = result->GetGlobalVar(name);
          if (!gv || used.count(name)) continue;
          if (result->Lookup(*gv).as<tir::PrimFuncNode>()) result.Remove(*gv);
        }
        return result;
      },
      0, "FuseTIR");
}

MINITVM_REGISTER_GLOBAL("relax.transform.FuseTIR").set_body_typed([]() { return FuseTIR(); });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
