/*!
 * \file transform/convert_to_dataflow.cc
 * \brief ConvertToDataflow (stage 4), TVM's `relax.transform.ConvertToDataflow(min_size=2)`:
 * inside the plain binding blocks of every Relax function, each run of at least `min_size`
 * consecutive pure bindings (no `If`, no impure call) becomes a dataflow block. A variable of
 * the run that nothing after the run uses becomes a DataflowVar; the others stay Vars (the
 * block's outputs).
 */
#include <unordered_set>

#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "transform/pass_utils.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

bool Dataflowable(const Binding& b) {
  Expr value;
  if (const auto* vb = b.as<VarBindingNode>()) value = vb->value;
  if (const auto* mc = b.as<MatchCastNode>()) value = mc->value;
  bool control = false;
  struct V : ExprVisitor {
    bool* found;
    void VisitExpr_(const IfNode*) override { *found = true; }
    void VisitExpr_(const SeqExprNode*) override { *found = true; }
    void VisitExpr_(const FunctionNode*) override { *found = true; }
  } v;
  v.found = &control;
  v.VisitExpr(value);
  return !control && IsPureValue(value);
}

class ConvertMutator : public ExprMutator {
 public:
  explicit ConvertMutator(int64_t min_size) : min_size_(min_size) {}

  Expr VisitExpr_(const SeqExprNode* op) override {
    Expr visited = ExprMutator::VisitExpr_(op);
    const auto* seq = visited.as<SeqExprNode>();
    // Split plain blocks into runs; remember which runs become dataflow blocks.
    struct Piece {
      std::vector<Binding> bindings;
      bool dataflow;
    };
    std::vector<Piece> pieces;
    bool any = false;
    for (const BindingBlock& block : seq->blocks) {
      if (block.as<DataflowBlockNode>()) {
        Piece p;
        for (const Binding& b : block->bindings) p.bindings.push_back(b);
        p.dataflow = true;
        pieces.push_back(p);
        continue;
      }
      std::vector<Binding> run, plain;
      auto flush_run = [&]() {
        if (static_cast<int64_t>(run.size()) >= min_size_) {
          if (!plain.empty()) pieces.push_back({plain, false});
          plain.clear();
          pieces.push_back({run, true});
          any = true;
        } else {
          plain.insert(plain.end(), run.begin(), run.end());
        }
        run.clear();
      };
      for (const Binding& b : block->bindings) {
        if (Dataflowable(b)) {
          run.push_back(b);
        } else {
          flush_run();
          plain.push_back(b);
        }
      }
      flush_run();
      if (!plain.empty()) pieces.push_back({plain, false});
    }
    if (!any) return visited;
    // Uses after each piece: walk backwards.
    std::vector<std::unordered_set<const VarNode*>> used_after(pieces.size());
    std::unordered_set<const VarNode*> used;
    for (const Var& v : FreeVars(seq->body)) used.insert(v.get());
    for (size_t i = pieces.size(); i-- > 0;) {
      used_after[i] = used;
      for (const Binding& b : pieces[i].bindings) {
        Expr value =
            b.as<VarBindingNode>() ? b.as<VarBindingNode>()->value : b.as<MatchCastNode>()->value;
        for (const Var& v : FreeVars(value)) used.insert(v.get());
      }
    }
    Array<BindingBlock> blocks;
    for (size_t i = 0; i < pieces.size(); ++i) {
      Array<Binding> out;
      for (const Binding& b : pieces[i].bindings) {
        Binding nb = Remap(b);
        if (pieces[i].dataflow && !nb->var.as<DataflowVarNode>() &&
            !used_after[i].count(b->var.get())) {
          Var dv = DataflowVar(nb->var->name_hint, nb->var->struct_info_.defined()
                                                       ? Downcast<StructInfo>(nb->var->struct_info_)
                                                       : StructInfo());
          remap_[b->var.get()] = dv;
          if (const auto* vb = nb.as<VarBindingNode>()) {
            nb = VarBinding(dv, vb->value);
          } else if (const auto* mc = nb.as<MatchCastNode>()) {
            nb = MatchCast(dv, mc->value, mc->struct_info);
          }
        }
        out.push_back(nb);
      }
      if (out.empty()) continue;
      blocks.push_back(pieces[i].dataflow ? BindingBlock(DataflowBlock(out)) : BindingBlock(out));
    }
    SeqExpr result(blocks, Substitute(seq->body));
    result->struct_info_ = seq->struct_info_;
    return result;
  }

 private:
  /*! \brief Replaces uses of the variables that became DataflowVars. */
  struct Substituter : ExprMutator {
    const std::unordered_map<const VarNode*, Var>* remap;
    Expr VisitExpr_(const VarNode* op) override {
      auto it = remap->find(op);
      return it == remap->end() ? GetRef<Expr>(op) : Expr(it->second);
    }
  };
  Expr Substitute(const Expr& e) {
    Substituter s;
    s.remap = &remap_;
    return s.VisitExpr(e);
  }
  Binding Remap(const Binding& b) {
    if (const auto* vb = b.as<VarBindingNode>()) {
      Expr v = Substitute(vb->value);
      if (v.same_as(vb->value)) return b;
      if (!v->struct_info_.defined()) v->struct_info_ = vb->value->struct_info_;
      return VarBinding(vb->var, v);
    }
    const auto* mc = b.as<MatchCastNode>();
    Expr v = Substitute(mc->value);
    if (v.same_as(mc->value)) return b;
    if (!v->struct_info_.defined()) v->struct_info_ = mc->value->struct_info_;
    return MatchCast(mc->var, v, mc->struct_info);
  }

  int64_t min_size_;
  std::unordered_map<const VarNode*, Var> remap_;
};

}  // namespace

Pass ConvertToDataflow(int64_t min_size) {
  return minitvm::transform::CreateModulePass(
      [min_size](IRModule mod, PassContext) {
        return MapRelaxFunctions(
            mod, [min_size](const Function& f) { return ConvertMutator(min_size).VisitExpr(f); });
      },
      0, "ConvertToDataflow");
}

MINITVM_REGISTER_GLOBAL("relax.transform.ConvertToDataflow")
    .set_body([](runtime::PackedArgs args, Any* rv) {
      int64_t min_size = 2;
      if (args.size() > 0 && !args[0].is_null()) min_size = args[0].cast<int64_t>();
      *rv = ConvertToDataflow(min_size);
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
