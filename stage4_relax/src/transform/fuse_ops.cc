/*!
 * \file transform/fuse_ops.cc
 * \brief FuseOps (stage 4), TVM's `relax.transform.FuseOps(fuse_opt_level)`: groups the bindings
 * of every dataflow block into fusion groups by their operator pattern kinds (op_attr.h) and the
 * post-dominator tree of the block's dataflow graph, and moves each group of two or more
 * bindings into a new Relax function marked `"Primitive": 1` (named after its ops,
 * `fused_matmul_add_relu`), called from where the group was. FuseTIR (fuse_tir.cc) then turns
 * each such function into one PrimFunc.
 *
 * The pattern of a binding: a `call_tir` has its PrimFunc's "op_pattern" attribute (set by
 * AnnotateTIROpPattern; opaque when absent), a call of a high-level operator its `TOpPattern`,
 * a TupleGetItem is injective, anything else (calls of functions, tuples, match_cast) opaque.
 *
 * The grouping rules are TVM's (docs/stage4_fusion.md explains them with an example): a node
 * joins the group of its immediate post-dominator when every path between them allows it —
 * out-ewise-fusable ops (matmul, conv2d) take following elementwise/broadcast ops, elementwise
 * and broadcast ops fuse into injective or reduction consumers, injective chains fuse together
 * (in a second phase, so out-ewise-fusable groups are formed first), reductions end a group and
 * opaque nodes never fuse. A value used outside its block (a non-DataflowVar) has no
 * post-dominator inside the block, so no group's intermediate value escapes.
 */
#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "block_builder/struct_info_utils.h"
#include "minitvm/ir/structural.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax {
namespace transform {

MINITVM_REGISTER_PASS_CONFIG_OPTION("relax.FuseOps.max_depth", "int");

namespace {

/*! \brief The most nodes one group may hold (TVM's default for "relax.FuseOps.max_depth"). */
constexpr int64_t kDefaultMaxFuseDepth = 256;

/*! \brief An int-valued attribute or op-attribute value (int64, bool or IntImm). */
std::optional<int64_t> AnyToInt(const Any& v) {
  if (v.is_int()) return v.cast<int64_t>();
  if (v.is_bool()) return v.cast<bool>() ? 1 : 0;
  if (auto imm = v.try_cast<IntImm>()) return (*imm)->value;
  return std::nullopt;
}

// ---- the dataflow graph of one block ----------------------------------------------------------

/*! \brief One binding of the block: its pattern and the bindings that use its value. */
struct GraphNode {
  OpPatternKind pattern = kOpaque;
  /*! \brief Its variable is visible after the block (not a DataflowVar). */
  bool extern_ref = false;
  /*! \brief (consumer binding, pattern of the edge = the consumer's pattern). */
  std::vector<std::pair<int, OpPatternKind>> outputs;
};

/*! \brief A node of the post-dominator tree. */
struct DomNode {
  int parent = -1;
  int depth = 1;
  /*! \brief The most general edge pattern on the paths to the parent. */
  OpPatternKind pattern = kOpaque;
};

/*! \brief A union-find set of nodes: a fusion group. */
struct Group {
  int parent = -1;
  OpPatternKind pattern = kOpaque;
  /*! \brief Holds an out-ewise-fusable node (at most one per group). */
  bool anchor = false;
  int num_nodes = 1;
};

/*!
 * \brief TVM's graph partitioner over one dataflow block: post-dominator tree, then the fusion
 * phases. Nodes are the bindings in order, which is a topological order of the graph.
 */
class GraphPartitioner {
 public:
  GraphPartitioner(std::vector<GraphNode> nodes, int64_t max_depth)
      : nodes_(std::move(nodes)), max_depth_(max_depth) {}

  /*! \brief The group (root node index) of every node. */
  std::vector<int> Partition(int64_t opt_level) {
    int n = static_cast<int>(nodes_.size());
    groups_.resize(n);
    for (int i = 0; i < n; ++i) {
      groups_[i].pattern = nodes_[i].pattern;
      groups_[i].anchor = nodes_[i].pattern == kOutEWiseFusable;
    }
    if (opt_level > 0) {
      BuildPostDominatorTree();
      RunFuse(/*phase=*/0);
      RunFuse(/*phase=*/1);
    }
    std::vector<int> out(n);
    for (int i = 0; i < n; ++i) out[i] = Root(i);
    return out;
  }

 private:
  int Root(int g) {
    while (groups_[g].parent >= 0) {
      if (groups_[groups_[g].parent].parent >= 0)
        groups_[g].parent = groups_[groups_[g].parent].parent;
      g = groups_[g].parent;
    }
    return g;
  }

  /*! \brief The lowest common post-dominator of `a` and `b`, widening `pattern` on the way. */
  int LeastCommonAncestor(int a, int b, OpPatternKind* pattern) {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      if (dom_[a].depth < dom_[b].depth) {
        *pattern = std::max(*pattern, dom_[b].pattern);
        b = dom_[b].parent;
      } else if (dom_[a].depth > dom_[b].depth) {
        *pattern = std::max(*pattern, dom_[a].pattern);
        a = dom_[a].parent;
      } else {
        *pattern = std::max({*pattern, dom_[a].pattern, dom_[b].pattern});
        a = dom_[a].parent;
        b = dom_[b].parent;
      }
    }
    return a;
  }

  void BuildPostDominatorTree() {
    int n = static_cast<int>(nodes_.size());
    dom_.assign(n, DomNode());
    // Consumers come after producers, so the tree is built from the last binding up.
    for (int i = n - 1; i >= 0; --i) {
      const GraphNode& node = nodes_[i];
      DomNode& d = dom_[i];
      if (node.extern_ref || node.outputs.empty()) {
        d.parent = -1;
        d.depth = 1;
        d.pattern = kOpaque;
        continue;
      }
      OpPatternKind pattern = kElemWise;
      int parent = node.outputs[0].first;
      for (const auto& [consumer, edge] : node.outputs) {
        pattern = std::max(pattern, edge);
        parent = LeastCommonAncestor(parent, consumer, &pattern);
        if (parent < 0) break;
      }
      d.parent = parent;
      d.depth = parent >= 0 ? dom_[parent].depth + 1 : 1;
      d.pattern = pattern;
    }
  }

  /*! \brief Whether every node on the paths from `src` to `sink` satisfies `fcond`. */
  template <typename F>
  bool CheckPath(int src, int sink, F fcond) {
    std::unordered_set<int> visited;
    std::function<bool(int)> check = [&](int node) {
      if (!visited.insert(node).second) return true;
      if (!fcond(groups_[Root(node)].pattern, node == sink)) return false;
      if (node == sink) return true;
      for (const auto& out : nodes_[node].outputs) {
        if (!check(out.first)) return false;
      }
      return true;
    };
    for (const auto& out : nodes_[src].outputs) {
      if (!check(out.first)) return false;
    }
    return true;
  }

  void MergeFromTo(int child, int parent) {
    child = Root(child);
    parent = Root(parent);
    if (child == parent) return;
    groups_[parent].num_nodes += groups_[child].num_nodes;
    groups_[child].parent = parent;
    if (groups_[child].anchor) {
      groups_[parent].anchor = true;
      groups_[parent].pattern = std::max(groups_[parent].pattern, groups_[child].pattern);
    }
  }

  /*! \brief Merge every node on the paths from `src` to `sink` into the sink's group. */
  void CommitFuse(int src, int sink) {
    int target = Root(sink);
    std::unordered_set<int> visited;
    std::function<void(int)> visit = [&](int node) {
      if (node == sink || !visited.insert(node).second) return;
      MergeFromTo(node, target);
      for (const auto& out : nodes_[node].outputs) visit(out.first);
    };
    visit(src);
  }

  /*! \brief How many nodes the sink's group would hold after fusing `src` into it. */
  int CountFused(int src, int sink) {
    std::unordered_set<int> roots{Root(sink)};
    std::unordered_set<int> visited;
    std::function<void(int)> visit = [&](int node) {
      if (node == sink || !visited.insert(node).second) return;
      roots.insert(Root(node));
      for (const auto& out : nodes_[node].outputs) visit(out.first);
    };
    visit(src);
    int count = 0;
    for (int r : roots) count += groups_[r].num_nodes;
    return count;
  }

  void RunFuse(int phase) {
    int n = static_cast<int>(nodes_.size());
    for (int i = 0; i < n; ++i) {
      const Group& group = groups_[Root(i)];
      if (group.pattern == kOpaque) continue;
      int dom_parent = dom_[i].parent;
      if (dom_parent < 0) continue;
      if (Root(i) == Root(dom_parent)) continue;
      if (groups_[Root(dom_parent)].pattern == kTuple) continue;
      if (CountFused(i, dom_parent) > max_depth_) continue;
      if (group.pattern == kOutEWiseFusable) {
        // matmul / conv2d: only in the first phase, and only when the way to the post-dominator
        // is elementwise and every op in between is at most broadcast.
        if (phase != 0) continue;
        if (dom_[i].pattern != kElemWise) continue;
        if (CheckPath(i, dom_parent, [](OpPatternKind k, bool) { return k <= kBroadcast; })) {
          CommitFuse(i, dom_parent);
        }
      } else if (group.pattern <= kBroadcast) {
        // Elementwise / broadcast ops fuse into an injective or reduction consumer; the sink may
        // already hold an out-ewise-fusable anchor.
        if (dom_[i].pattern > kInjective && dom_[i].pattern != kCommReduce) continue;
        auto fcond = [](OpPatternKind k, bool is_sink) {
          if (!is_sink) return k <= kInjective;
          return k <= kBroadcast || k == kCommReduce || k == kInjective || k == kOutEWiseFusable;
        };
        if (CheckPath(i, dom_parent, fcond)) CommitFuse(i, dom_parent);
      } else if (group.pattern == kInjective || group.pattern == kTuple) {
        // Injective chains wait for the second phase, so matmul/conv2d groups form first.
        if (phase != 1) continue;
        if (CheckPath(i, dom_parent, [](OpPatternKind k, bool) { return k <= kInjective; })) {
          CommitFuse(i, dom_parent);
        }
      }
      // kCommReduce: a reduction ends its group.
    }
  }

  std::vector<GraphNode> nodes_;
  int64_t max_depth_;
  std::vector<DomNode> dom_;
  std::vector<Group> groups_;
};

// ---- rewriting ----------------------------------------------------------------------------------

/*! \brief Whether `func` carries a nonzero "Primitive" attribute. */
bool IsPrimitive(const BaseFunc& func) {
  auto v = func->attrs.Get(String("Primitive"));
  if (!v) return false;
  auto i = AnyToInt(*v);
  return i && *i != 0;
}

/*! \brief Replaces variables and constants by the parameters of the new function. */
class ParamRemapper : public ExprMutator {
 public:
  void Map(const Var& from, const Var& to) { var_remap_[from.get()] = to; }
  void MapConstant(const ConstantNode* c, const Var& to) { consts_[c] = to; }
  Expr VisitExpr_(const ConstantNode* op) override {
    auto it = consts_.find(op);
    if (it != consts_.end()) return it->second;
    return ExprMutator::VisitExpr_(op);
  }

 private:
  std::unordered_map<const ConstantNode*, Var> consts_;
};

/*! \brief Gives a function its own copies of the symbolic shape variables it uses. */
class SymbolicVarRenewer : public ExprMutator {
 public:
  explicit SymbolicVarRenewer(Map<tir::Var, PrimExpr> vmap) : vmap_(std::move(vmap)) {}
  StructInfo VisitStructInfo(const StructInfo& info) override {
    return sinfo_util::Substitute(info, vmap_);
  }
  PrimExpr VisitPrimExpr(const PrimExpr& e) override {
    return sinfo_util::SubstitutePrim(e, vmap_);
  }

 private:
  Map<tir::Var, PrimExpr> vmap_;
};

/*! \brief The part of a callee's name a fused function's name takes (`relax.nn.relu` → relu). */
std::string NamePart(const CallNode* call) {
  if (IsOp(call->op, "relax.call_tir") && !call->args.empty()) {
    if (auto* gv = call->args[0].as<GlobalVarNode>()) return gv->name_hint;
  }
  if (auto* op = call->op.as<OpNode>()) {
    std::string name = op->name;
    auto dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
  }
  if (auto* gv = call->op.as<GlobalVarNode>()) {
    std::string name = gv->name_hint;
    if (name.rfind("fused_", 0) == 0) return name.substr(6);
    return name;
  }
  return "";
}

/*! \brief Fuses the dataflow blocks of one Relax function. */
class OperatorFuser : public ExprMutator {
 public:
  OperatorFuser(IRModule mod, BlockBuilder bb, int64_t opt_level, int64_t max_depth)
      : mod_(std::move(mod)), bb_(std::move(bb)), opt_level_(opt_level), max_depth_(max_depth) {}

  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    BindingBlock visited = ExprMutator::VisitBindingBlock(block);
    if (!visited.as<DataflowBlockNode>() || visited->bindings.size() < 2) return visited;
    return FuseBlock(visited);
  }

 private:
  OpPatternKind PatternOf(const Binding& binding) const {
    auto* vb = binding.as<VarBindingNode>();
    if (!vb) return kOpaque;
    if (vb->value.as<TupleGetItemNode>()) return kInjective;
    auto* call = vb->value.as<CallNode>();
    if (!call) return kOpaque;
    if (IsOp(call->op, "relax.call_tir")) {
      if (call->args.empty()) return kOpaque;
      auto* gv = call->args[0].as<GlobalVarNode>();
      if (!gv || !mod_->ContainGlobalVar(gv->name_hint)) return kOpaque;
      BaseFunc f = mod_->Lookup(gv->name_hint);
      if (!f.as<tir::PrimFuncNode>()) return kOpaque;
      auto v = f->attrs.Get(String("op_pattern"));
      if (!v) return kOpaque;
      auto k = AnyToInt(*v);
      return k ? static_cast<OpPatternKind>(*k) : kOpaque;
    }
    if (auto* op = call->op.as<OpNode>()) {
      Any v = GetRef<Op>(op).GetAttr(kTOpPattern);
      if (v.is_null()) return kOpaque;
      auto k = AnyToInt(v);
      return k ? static_cast<OpPatternKind>(*k) : kOpaque;
    }
    return kOpaque;
  }

  static Expr ValueOf(const Binding& b) {
    if (auto* vb = b.as<VarBindingNode>()) return vb->value;
    return Downcast<MatchCast>(b)->value;
  }

  /*! \brief What one materialised group turns into. */
  struct GroupInfo {
    std::vector<int> members;
    std::vector<Var> outputs;
    bool materialised = false;
    GlobalVar gv;
    Array<Expr> args;
  };

  /*!
   * \brief The pattern of the edge from `arg` into the binding `consumer` of pattern `pattern`:
   * a broadcast consumer reads an argument of its own output shape element by element, so that
   * edge is elementwise (TVM's rule; it lets `matmul -> add(bias) -> relu` fuse).
   */
  static OpPatternKind EdgePattern(OpPatternKind pattern, const Var& arg, const Binding& consumer) {
    if (pattern != kBroadcast) return pattern;
    const auto* in = GetStructInfoAs<TensorStructInfoNode>(arg);
    const auto* out = GetStructInfoAs<TensorStructInfoNode>(consumer->var);
    if (!in || !out) return pattern;
    auto in_shape = in->GetShape();
    auto out_shape = out->GetShape();
    if (in_shape && out_shape && StructuralEqual(*in_shape, *out_shape, /*map_free_vars=*/false)) {
      return kElemWise;
    }
    return pattern;
  }

  BindingBlock FuseBlock(const BindingBlock& block) {
    const Array<Binding>& bindings = block->bindings;
    int n = static_cast<int>(bindings.size());
    std::unordered_map<const VarNode*, int> def;
    for (int i = 0; i < n; ++i) def[bindings[i]->var.get()] = i;

    // The graph: an edge from each binding to every binding of this block that uses it.
    std::vector<GraphNode> nodes(n);
    std::vector<std::vector<int>> uses(n);
    for (int i = 0; i < n; ++i) {
      nodes[i].pattern = PatternOf(bindings[i]);
      nodes[i].extern_ref = !bindings[i]->var.as<DataflowVarNode>();
      for (const Var& v : FreeVars(ValueOf(bindings[i]))) {
        auto it = def.find(v.get());
        if (it == def.end()) continue;
        nodes[it->second].outputs.emplace_back(i, EdgePattern(nodes[i].pattern, v, bindings[i]));
        uses[i].push_back(it->second);
      }
    }
    std::vector<int> group_of = GraphPartitioner(nodes, max_depth_).Partition(opt_level_);

    // Collect the groups, in order of their first binding.
    std::unordered_map<int, int> group_index;
    std::vector<GroupInfo> groups;
    std::vector<int> unit(n);
    for (int i = 0; i < n; ++i) {
      auto [it, added] = group_index.emplace(group_of[i], static_cast<int>(groups.size()));
      if (added) groups.emplace_back();
      groups[it->second].members.push_back(i);
      unit[i] = it->second;
    }
    bool any = false;
    for (GroupInfo& g : groups) {
      if (g.members.size() < 2) continue;
      // Outputs: variables visible after the block or used by bindings of other groups.
      for (int m : g.members) {
        const Var& v = bindings[m]->var;
        bool out = !v.as<DataflowVarNode>();
        for (const auto& [consumer, edge] : nodes[m].outputs)
          out = out || unit[consumer] != unit[m];
        if (out) g.outputs.push_back(v);
      }
      g.materialised = !g.outputs.empty() && MakeFunction(bindings, &g);
      any = any || g.materialised;
    }
    if (!any) return block;

    // Emit in a topological order of the units (a group or one binding), keeping the original
    // order where possible: a group is emitted where its last binding was.
    std::vector<int> unit_of(n);
    std::vector<int> anchor;  // the position of each unit
    std::vector<int> group_unit(groups.size(), -1);
    std::vector<std::vector<int>> unit_members;
    for (int i = 0; i < n; ++i) {
      const GroupInfo& g = groups[unit[i]];
      if (g.materialised) {
        if (group_unit[unit[i]] < 0) {
          group_unit[unit[i]] = static_cast<int>(anchor.size());
          anchor.push_back(g.members.back());
          unit_members.emplace_back();
        }
        unit_of[i] = group_unit[unit[i]];
      } else {
        unit_of[i] = static_cast<int>(anchor.size());
        anchor.push_back(i);
        unit_members.emplace_back();
      }
      unit_members[unit_of[i]].push_back(i);
    }
    int units = static_cast<int>(anchor.size());
    std::vector<std::unordered_set<int>> succ(units);
    std::vector<int> indegree(units, 0);
    for (int i = 0; i < n; ++i) {
      for (int u : uses[i]) {
        int from = unit_of[u], to = unit_of[i];
        if (from != to && succ[from].insert(to).second) ++indegree[to];
      }
    }
    using Item = std::pair<int, int>;  // (anchor position, unit)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
    for (int u = 0; u < units; ++u) {
      if (indegree[u] == 0) ready.emplace(anchor[u], u);
    }
    Array<Binding> out;
    int emitted = 0;
    while (!ready.empty()) {
      int u = ready.top().second;
      ready.pop();
      ++emitted;
      int first = unit_members[u][0];
      const GroupInfo& g = groups[unit[first]];
      if (g.materialised) {
        EmitGroupCall(g, &out);
      } else {
        out.push_back(bindings[first]);
      }
      for (int s : succ[u]) {
        if (--indegree[s] == 0) ready.emplace(anchor[s], s);
      }
    }
    if (emitted != units) {
      MINITVM_THROW(InternalError) << "FuseOps: the fusion groups of a dataflow block depend on "
                                      "each other in a cycle";
    }
    return DataflowBlock(out);
  }

  /*! \brief Build the Primitive function of group `g`; false when it cannot be made. */
  bool MakeFunction(const Array<Binding>& bindings, GroupInfo* g) {
    std::unordered_set<const VarNode*> defined;
    for (int m : g->members) {
      if (!bindings[m].as<VarBindingNode>()) return false;
      defined.insert(bindings[m]->var.get());
    }
    // Parameters: what the group uses from outside, in order of first use; constants too.
    ParamRemapper remap;
    Array<Var> params;
    std::unordered_set<const Object*> seen;
    std::string name = "fused";
    int n_const = 0;
    for (int m : g->members) {
      Expr value = ValueOf(bindings[m]);
      if (auto* call = value.as<CallNode>()) {
        std::string part = NamePart(call);
        if (!part.empty()) name += "_" + part;
      }
      std::vector<Expr> leaves;
      std::function<void(const Expr&)> collect = [&](const Expr& e) {
        if (auto* t = e.as<TupleNode>()) {
          for (const Expr& f : t->fields) collect(f);
        } else if (e.as<VarNode>() || e.as<ConstantNode>()) {
          leaves.push_back(e);
        }
      };
      if (auto* call = value.as<CallNode>()) {
        for (const Expr& a : call->args) collect(a);
      } else if (auto* tgi = value.as<TupleGetItemNode>()) {
        collect(tgi->tuple);
      }
      for (const Var& v : FreeVars(value)) leaves.push_back(v);
      for (const Expr& leaf : leaves) {
        if (auto* v = leaf.as<VarNode>(); v && defined.count(v)) continue;
        if (!seen.insert(leaf.get()).second) continue;
        if (!leaf->struct_info_.defined()) return false;
        StructInfo info = GetStructInfo(leaf);
        if (auto* v = leaf.as<VarNode>()) {
          Var p(v->name_hint, info);
          remap.Map(GetRef<Var>(v), p);
          params.push_back(p);
          g->args.push_back(leaf);
        } else {
          Var p("param_" + std::to_string(n_const++), info);
          remap.MapConstant(leaf.as<ConstantNode>(), p);
          params.push_back(p);
          g->args.push_back(leaf);
        }
      }
    }

    // Bindings: outputs become plain Vars (returned), the others DataflowVars.
    std::unordered_set<const VarNode*> outputs;
    for (const Var& v : g->outputs) outputs.insert(v.get());
    Array<Binding> inner;
    std::unordered_map<const VarNode*, Var> inner_var;
    for (int m : g->members) {
      const Var& old = bindings[m]->var;
      Expr value = remap.VisitExpr(ValueOf(bindings[m]));
      StructInfo info = GetStructInfo(old);
      Var nv = outputs.count(old.get()) ? Var(old->name_hint, info)
                                        : Var(DataflowVar(old->name_hint, info));
      remap.Map(old, nv);
      inner_var[old.get()] = nv;
      inner.push_back(VarBinding(nv, value));
    }
    Array<StructInfo> out_infos;
    Array<Expr> out_vars;
    for (const Var& v : g->outputs) {
      out_vars.push_back(inner_var[v.get()]);
      out_infos.push_back(GetStructInfo(v));
    }
    Expr result = out_vars.size() == 1 ? out_vars[0] : Expr(Tuple(out_vars));
    StructInfo ret = out_infos.size() == 1 ? out_infos[0] : StructInfo(TupleStructInfo(out_infos));

    // Every symbolic variable the group uses must be defined by its parameters.
    std::unordered_set<const Object*> definable;
    for (const Var& p : params) {
      for (const tir::Var& tv : DefinableTIRVarsInStructInfo(GetStructInfo(p))) {
        definable.insert(tv.get());
      }
    }
    auto all_definable = [&](const StructInfo& info) {
      for (const tir::Var& tv : TIRVarsInStructInfo(info)) {
        if (!definable.count(tv.get())) return false;
      }
      return true;
    };
    for (const Binding& b : inner) {
      if (!all_definable(GetStructInfo(b->var))) return false;
      // Shapes and prim values inside the calls (`tir_vars`) too.
      if (auto* call = Downcast<VarBinding>(b)->value.as<CallNode>()) {
        for (const Expr& a : call->args) {
          if (a.as<ShapeExprNode>() || a.as<PrimValueNode>()) {
            if (!a->struct_info_.defined() || !all_definable(GetStructInfo(a))) return false;
          }
        }
      }
    }

    Expr body = Normalize(SeqExpr({DataflowBlock(inner)}, result));
    Map<String, Any> attrs;
    attrs.Set(String("Primitive"), Any(int64_t{1}));
    Function func(params, body, ret, /*is_pure=*/true, attrs);

    // The function gets its own copies of the symbolic variables.
    Map<tir::Var, PrimExpr> fresh;
    for (const Var& p : params) {
      for (const tir::Var& tv : DefinableTIRVarsInStructInfo(GetStructInfo(p))) {
        if (!fresh.count(tv)) fresh.Set(tv, tir::Var(tv->name_hint, tv->dtype));
      }
    }
    if (!fresh.empty()) {
      Expr renewed = SymbolicVarRenewer(fresh).VisitExpr(func);
      func = Downcast<Function>(renewed);
      if (!func->body->struct_info_.defined()) {
        func =
            Function(func->params, Normalize(func->body), func->ret_struct_info, true, func->attrs);
      }
    }
    g->gv = bb_.AddFunction(func, name);
    return true;
  }

  /*! \brief The binding(s) that call the function of group `g`. */
  void EmitGroupCall(const GroupInfo& g, Array<Binding>* out) {
    Call call(g.gv, g.args);
    if (g.outputs.size() == 1) {
      UpdateStructInfo(call, GetStructInfo(g.outputs[0]));
      out->push_back(VarBinding(g.outputs[0], call));
      return;
    }
    Array<StructInfo> infos;
    for (const Var& v : g.outputs) infos.push_back(GetStructInfo(v));
    TupleStructInfo info(infos);
    UpdateStructInfo(call, info);
    DataflowVar tuple_var("lv", info);
    out->push_back(VarBinding(tuple_var, call));
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      TupleGetItem item(tuple_var, static_cast<int64_t>(i));
      UpdateStructInfo(item, infos[i]);
      out->push_back(VarBinding(g.outputs[i], item));
    }
  }

  IRModule mod_;
  BlockBuilder bb_;
  int64_t opt_level_;
  int64_t max_depth_;
};

}  // namespace

Pass FuseOps(int64_t fuse_opt_level) {
  return minitvm::transform::CreateModulePass(
      [fuse_opt_level](IRModule mod, PassContext ctx) {
        if (fuse_opt_level < -1) {
          MINITVM_THROW(ValueError) << "FuseOps: fuse_opt_level must be -1 (use the PassContext's "
                                       "opt_level) or at least 0, got "
                                    << fuse_opt_level;
        }
        int64_t opt_level = fuse_opt_level == -1 ? ctx->opt_level : fuse_opt_level;
        if (opt_level <= 0) return mod;
        int64_t max_depth = kDefaultMaxFuseDepth;
        if (auto v = ctx->config.Get(String("relax.FuseOps.max_depth"))) {
          if (auto d = AnyToInt(*v)) max_depth = *d;
        }
        BlockBuilder bb(mod);
        std::vector<std::pair<GlobalVar, Function>> todo;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          BaseFunc f = mod->Lookup(gv);
          auto* fn = f.as<FunctionNode>();
          if (!fn || IsPrimitive(f)) continue;
          todo.emplace_back(gv, GetRef<Function>(fn));
        }
        bool changed = false;
        for (const auto& [gv, func] : todo) {
          OperatorFuser fuser(mod, bb, opt_level, max_depth);
          Expr out = fuser.VisitExpr(func);
          if (out.same_as(func)) continue;
          bb.UpdateFunction(gv, Downcast<Function>(out));
          changed = true;
        }
        return changed ? bb.Get() : mod;
      },
      0, "FuseOps");
}

MINITVM_REGISTER_GLOBAL("relax.transform.FuseOps").set_body_typed([](int64_t fuse_opt_level) {
  return FuseOps(fuse_opt_level);
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm
