/*!
 * \file transform/split_layout_rewrite_preproc.cc
 * \brief SplitLayoutRewritePreproc (stage 4), TVM's `relax.transform.SplitLayoutRewritePreproc()`:
 * a PrimFunc whose root block has top-level statements made only of blocks annotated
 * "meta_schedule.layout_rewrite_preproc" (the weight packing a CPU schedule rule puts there
 * for a layout-free parameter, see AttachAttrLayoutFreeBuffers) is split in two:
 *   - `<name>_weight_prepack(w..., packed...)`: those statements alone. Each annotated block
 *     reads one parameter buffer (the weight) and writes one buffer the root block allocated
 *     (the packed weight), which becomes an output parameter;
 *   - `<name>_prepacked(...)`: the rest, with each weight parameter replaced, at its position,
 *     by the packed buffer (no longer allocated inside).
 * Every `call_tir` of the old PrimFunc becomes a `call_tir` of the prepack function on the
 * weight arguments followed by a `call_tir` of the compute function on the packed results.
 * When the weight is a constant, FoldConstant then evaluates the prepack call at compile time
 * and DeadCodeElimination drops the original weight. The annotation is removed from the moved
 * blocks; "layout_free_buffers" from both functions. A top-level statement that mixes annotated
 * and other blocks, or an annotated block reading or writing more than one buffer, is an
 * InternalError naming the function and the block (TVM checks the same). DeadCodeElimination runs
 * afterwards, as in TVM.
 */
#include <algorithm>
#include <unordered_map>

#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

constexpr const char* kPreprocAttr = "meta_schedule.layout_rewrite_preproc";

/*! \brief Whether an annotation value says "yes" (true, a non-zero integer or IntImm). */
bool IsTrueValue(const Any& v) {
  if (v.is_null()) return false;
  if (const auto* imm = v.as<IntImmNode>()) return imm->value != 0;
  try {
    return v.cast<int64_t>() != 0;
  } catch (const std::exception&) {
  }
  try {
    return v.cast<bool>();
  } catch (const std::exception&) {
  }
  return false;
}

bool IsPreprocBlock(const tir::BlockNode* b) {
  auto v = b->annotations.Get(String(kPreprocAttr));
  return v && IsTrueValue(*v);
}

/*! \brief One moved block's buffers: the parameter at `index` (pre) and what it becomes (post). */
struct RewriteInfo {
  size_t index;
  tir::Buffer pre;
  tir::Buffer post;
};

/*! \brief A PrimFunc split into its layout-rewrite preprocessing and the compute that follows. */
struct SplitFunc {
  tir::PrimFunc preproc;
  tir::PrimFunc compute;
  std::vector<RewriteInfo> infos;  //!< by parameter index
};

/*! \brief Removes the preprocessing annotation from the blocks it visits. */
class DropPreprocAnnotation : public tir::StmtMutator {
 public:
  tir::Stmt VisitStmt_(const tir::BlockNode* op) override {
    tir::Stmt s = tir::StmtMutator::VisitStmt_(op);
    auto block = Downcast<tir::Block>(s);
    if (!block->annotations.Get(String(kPreprocAttr))) return block;
    Map<String, Any> anns;
    for (const auto& [k, v] : block->annotations.items()) {
      if (k != kPreprocAttr) anns.Set(k, v);
    }
    block.CopyOnWrite()->annotations = anns;
    return block;
  }
};

/*! \brief `attrs` without "layout_free_buffers", with `suffix` added to "global_symbol". */
Map<String, Any> SplitAttrs(const Map<String, Any>& attrs, const std::string& suffix) {
  Map<String, Any> out;
  for (const auto& [k, v] : attrs.items()) {
    if (k == "layout_free_buffers") continue;
    if (k == "global_symbol") {
      out.Set(k, Any(String(v.cast<std::string>() + suffix)));
    } else {
      out.Set(k, v);
    }
  }
  return out;
}

/*! \brief The split of `f` (named `name` in messages), or nullopt when it has nothing to move. */
std::optional<SplitFunc> SplitPrimFunc(const tir::PrimFunc& f, const std::string& name) {
  bool any = false;
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<tir::BlockNode>(); b && IsPreprocBlock(b)) any = true;
  });
  if (!any) return std::nullopt;
  const auto* root = f->body.as<tir::BlockRealizeNode>();
  if (!root) {
    MINITVM_THROW(InternalError) << "SplitLayoutRewritePreproc: PrimFunc " << name
                                 << " has layout-rewrite blocks but no root block";
  }
  std::vector<tir::Stmt> stmts;
  if (const auto* seq = root->block->body.as<tir::SeqStmtNode>()) {
    for (const tir::Stmt& s : seq->seq) stmts.push_back(s);
  } else {
    stmts.push_back(root->block->body);
  }
  std::vector<tir::Stmt> pre_stmts, compute_stmts;
  std::vector<RewriteInfo> infos;
  for (const tir::Stmt& s : stmts) {
    std::vector<const tir::BlockNode*> blocks;
    tir::PostOrderVisit(s, [&](const ObjectRef& n) {
      if (const auto* b = n.as<tir::BlockNode>()) blocks.push_back(b);
    });
    size_t marked = std::count_if(blocks.begin(), blocks.end(), IsPreprocBlock);
    if (marked == 0) {
      compute_stmts.push_back(s);
      continue;
    }
    for (const tir::BlockNode* b : blocks) {
      if (!IsPreprocBlock(b)) {
        MINITVM_THROW(InternalError)
            << "SplitLayoutRewritePreproc: in PrimFunc " << name << ", block " << b->name_hint
            << " shares a top-level statement with a layout-rewrite block; the preprocessing "
               "must be a loop nest of its own";
      }
      if (b->reads.size() != 1 || b->writes.size() != 1 || !b->alloc_buffers.empty() ||
          !b->match_buffers.empty()) {
        MINITVM_THROW(InternalError)
            << "SplitLayoutRewritePreproc: in PrimFunc " << name << ", layout-rewrite block "
            << b->name_hint << " must read one buffer and write one (it reads " << b->reads.size()
            << ", writes " << b->writes.size() << ", allocates " << b->alloc_buffers.size() << ")";
      }
      tir::Buffer pre = b->reads[0]->buffer, post = b->writes[0]->buffer;
      std::optional<size_t> index;
      for (size_t i = 0; i < f->params.size(); ++i) {
        auto pb = f->buffer_map.Get(f->params[i]);
        if (pb && pb->same_as(pre)) index = i;
      }
      bool allocated = false;
      for (const tir::Buffer& a : root->block->alloc_buffers) allocated |= a.same_as(post);
      if (!index || !allocated) {
        MINITVM_THROW(InternalError)
            << "SplitLayoutRewritePreproc: in PrimFunc " << name << ", layout-rewrite block "
            << b->name_hint << " must read a parameter (" << pre->name << ": "
            << (index ? "yes" : "no") << ") and write a buffer of the root block (" << post->name
            << ": " << (allocated ? "yes" : "no") << ")";
      }
      auto same = std::find_if(infos.begin(), infos.end(),
                               [&](const RewriteInfo& r) { return r.post.same_as(post); });
      if (same == infos.end()) {
        infos.push_back({*index, pre, post});
      } else if (same->index != *index) {
        MINITVM_THROW(InternalError)
            << "SplitLayoutRewritePreproc: in PrimFunc " << name << ", buffer " << post->name
            << " is written from two parameters";
      }
    }
    pre_stmts.push_back(DropPreprocAnnotation()(s));
  }
  if (compute_stmts.empty()) {
    MINITVM_THROW(InternalError) << "SplitLayoutRewritePreproc: PrimFunc " << name
                                 << " is nothing but layout-rewrite preprocessing";
  }
  std::sort(infos.begin(), infos.end(),
            [](const RewriteInfo& a, const RewriteInfo& b) { return a.index < b.index; });
  for (size_t i = 1; i < infos.size(); ++i) {
    if (infos[i].index == infos[i - 1].index) {
      MINITVM_THROW(InternalError)
          << "SplitLayoutRewritePreproc: in PrimFunc " << name << ", parameter "
          << infos[i].pre->name << " is rewritten into two layouts";
    }
  }
  auto seq = [](const std::vector<tir::Stmt>& v) {
    return v.size() == 1 ? v[0] : tir::SeqStmt(Array<tir::Stmt>(v.begin(), v.end()));
  };
  auto root_of = [&](const tir::Stmt& body, Array<tir::Buffer> allocs) {
    return tir::BlockRealize({}, tir::const_true(),
                             tir::Block({}, {}, {}, "root", body, tir::Stmt(), allocs));
  };
  SplitFunc out;
  out.infos = infos;
  {
    Array<tir::Var> params;
    Map<tir::Var, tir::Buffer> bmap;
    for (bool post : {false, true}) {
      for (const RewriteInfo& r : infos) {
        const tir::Buffer& b = post ? r.post : r.pre;
        tir::Var v("var_" + std::string(b->name), DataType::Handle());
        params.push_back(v);
        bmap.Set(v, b);
      }
    }
    out.preproc = tir::PrimFunc(params, root_of(seq(pre_stmts), {}), bmap,
                                SplitAttrs(f->attrs, "_weight_prepack"));
  }
  {
    Array<tir::Var> params = f->params;
    Map<tir::Var, tir::Buffer> bmap = f->buffer_map;
    for (const RewriteInfo& r : infos) {
      tir::Var v("var_" + std::string(r.post->name), DataType::Handle());
      bmap.erase(params[r.index]);
      params.Set(r.index, v);
      bmap.Set(v, r.post);
    }
    Array<tir::Buffer> allocs;
    for (const tir::Buffer& a : root->block->alloc_buffers) {
      if (std::none_of(infos.begin(), infos.end(),
                       [&](const RewriteInfo& r) { return r.post.same_as(a); })) {
        allocs.push_back(a);
      }
    }
    out.compute = tir::PrimFunc(params, root_of(seq(compute_stmts), allocs), bmap,
                                SplitAttrs(f->attrs, "_prepacked"), f->ret_type);
  }
  return out;
}

/*! \brief R.Tensor(shape, dtype) of a buffer with a static shape. */
StructInfo BufferInfo(const tir::Buffer& b, const std::string& func) {
  Array<PrimExpr> dims;
  for (const PrimExpr& d : b->shape) {
    if (!d.as<IntImmNode>()) {
      MINITVM_THROW(ValueError) << "SplitLayoutRewritePreproc: the rewritten buffer " << b->name
                                << " of PrimFunc " << func << " has a dynamic shape";
    }
    dims.push_back(IntImm(DataType::Int(64), Downcast<IntImm>(d)->value));
  }
  return TensorStructInfo(ShapeExpr(dims), b->dtype);
}

IRModule Split(const IRModule& mod) {
  std::unordered_map<std::string, SplitFunc> splits;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (const auto* f = mod->Lookup(gv).as<tir::PrimFuncNode>()) {
      if (auto s = SplitPrimFunc(GetRef<tir::PrimFunc>(f), gv->name_hint)) {
        splits.emplace(gv->name_hint, *s);
      }
    }
  }
  if (splits.empty()) return mod;
  std::unordered_map<std::string, std::pair<GlobalVar, GlobalVar>> added;
  return RewriteCalls(mod, [&](BlockBuilder bb, const Call& call) -> std::optional<Expr> {
    if (!IsOp(call->op, "relax.call_tir") || call->args.size() < 2) return std::nullopt;
    const auto* gv = call->args[0].as<GlobalVarNode>();
    const auto* tuple = call->args[1].as<TupleNode>();
    if (!gv || !tuple) return std::nullopt;
    auto it = splits.find(gv->name_hint);
    if (it == splits.end()) return std::nullopt;
    const SplitFunc& s = it->second;
    auto ait = added.find(gv->name_hint);
    if (ait == added.end()) {
      GlobalVar pre = bb.AddFunction(s.preproc, std::string(gv->name_hint) + "_weight_prepack");
      GlobalVar comp = bb.AddFunction(s.compute, std::string(gv->name_hint) + "_prepacked");
      ait = added.emplace(gv->name_hint, std::make_pair(pre, comp)).first;
    }
    Array<Expr> pre_args;
    Array<StructInfo> pre_infos;
    for (const RewriteInfo& r : s.infos) {
      if (r.index >= tuple->fields.size()) {
        MINITVM_THROW(ValueError) << "SplitLayoutRewritePreproc: call_tir of " << gv->name_hint
                                  << " passes " << tuple->fields.size()
                                  << " arguments, but parameter " << r.index
                                  << " is a rewritten weight";
      }
      pre_args.push_back(tuple->fields[r.index]);
      pre_infos.push_back(BufferInfo(r.post, gv->name_hint));
    }
    StructInfo out_info = pre_infos.size() == 1 ? pre_infos[0] : TupleStructInfo(pre_infos);
    Var packed = bb.Emit(
        Call(Op::Get("relax.call_tir"), {ait->second.first, Tuple(pre_args)}, {}, {out_info}),
        "packed");
    Array<Expr> fields = tuple->fields;
    for (size_t i = 0; i < s.infos.size(); ++i) {
      Expr v = s.infos.size() == 1 ? Expr(packed) : Expr(TupleGetItem(packed, i));
      fields.Set(s.infos[i].index, v);
    }
    Array<Expr> args = call->args;
    args.Set(0, ait->second.second);
    args.Set(1, Tuple(fields));
    return Call(call->op, args, call->attrs, call->sinfo_args);
  });
}

}  // namespace

Pass SplitLayoutRewritePreproc() {
  Pass split = minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) { return Split(mod); }, 0, "_SplitLayoutRewritePreproc");
  // The PrimFuncs that were split go.
  return minitvm::transform::Sequential({split, DeadCodeElimination()},
                                        "SplitLayoutRewritePreproc");
}

MINITVM_REGISTER_GLOBAL("relax.transform.SplitLayoutRewritePreproc").set_body_typed([]() {
  return SplitLayoutRewritePreproc();
});

/*!
 * \brief The compute part of a PrimFunc's split, under the PrimFunc's own attributes (less
 * "layout_free_buffers"): the layout-rewrite blocks are gone and the rewritten buffers are
 * parameters in place of the weights. `f` itself when it has no such block. This is what TVM's
 * `tir.transform.RemoveWeightLayoutRewriteBlock` gives its builder, so that a candidate is timed
 * without the packing that runs at compile time (minitvm.tir.transform wraps it as that pass).
 */
MINITVM_REGISTER_GLOBAL("tir.transform.RemoveWeightLayoutRewriteBlockFunc")
    .set_body_typed([](tir::PrimFunc f) {
      auto split = SplitPrimFunc(f, "RemoveWeightLayoutRewriteBlock");
      if (!split) return f;
      tir::PrimFunc out = split->compute;
      Map<String, Any> attrs;
      for (const auto& [k, v] : f->attrs.items()) {
        if (k != "layout_free_buffers") attrs.Set(k, v);
      }
      out.CopyOnWrite()->attrs = attrs;
      return out;
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
