/*!
 * \file viz/graph.cc
 * \brief The Relax graph visualizer's walk (stage 4): `BuildModel` turns the Relax functions of
 * a module into drawings — one node per value-producing expression, edges from each value to
 * its users labelled with the value's struct info. Variables are not nodes of their own: a use
 * of a bound variable is an edge from the node that computed it, so the drawing is the dataflow
 * graph. Calls of fused ("Primitive") functions are drawn inline inside a cluster.
 */
#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "minitvm/relax/expr.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/viz.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/function.h"
#include "viz/viz_util.h"

namespace minitvm {
namespace relax {
namespace viz {

namespace {

const char* const kKindNames[] = {"input",       "weight",          "constant",    "call_op",
                                  "call_tir",    "call_dps_packed", "call_packed", "call_func",
                                  "tuple",       "tuple_get_item",  "function",    "global_var",
                                  "extern_func", "literal",         "match_cast",  "if",
                                  "other"};
constexpr int kNumKinds = sizeof(kKindNames) / sizeof(kKindNames[0]);
static_assert(kNumKinds == static_cast<int>(NodeKind::kOther) + 1, "a name per kind");

/*! \brief An attribute value as short text: arrays as [a, b], strings bare, exprs as script. */
std::string AttrText(const Any& value) {
  if (value.is_null()) return "None";
  if (value.is_string()) return value.cast<std::string>();
  if (auto* arr = value.as<runtime::ArrayNode>()) {
    std::string out = "[";
    for (size_t i = 0; i < arr->data.size(); ++i) {
      out += (i ? ", " : "") + AttrText(arr->data[i]);
    }
    return out + "]";
  }
  if (value.as<Object>() && value.as<PrimExprNode>()) {
    script::ScriptOptions opts;
    opts.plain_literals = true;
    opts.print_header = false;
    return script::AsScript(value.cast<ObjectRef>(), opts);
  }
  return value.ToString();
}

/*! \brief Builds the graph of one function (and of the fused functions it calls, inline). */
class GraphBuilder : public ExprFunctor<std::string(const Expr&)> {
 public:
  GraphBuilder(const IRModule& mod, const VizOptions& options, VizModel* model, VizGraph* graph,
               int* counter)
      : mod_(mod), options_(options), model_(model), graph_(graph), counter_(counter) {}

  /*! \brief Draw `func` (named `name`): its parameters, its body, and the function node. */
  void DrawFunction(const std::string& name, const Function& func) {
    int64_t num_input = -1;
    if (auto n = func->attrs.Get(String("num_input"))) {
      if (n->is_int()) num_input = n->cast<int64_t>();
    }
    std::vector<std::string> param_names;
    for (size_t i = 0; i < func->params.size(); ++i) {
      Var p = func->params[i];
      std::string pname = p->name_hint;
      bool weight = options_.weights.count(pname) || (options_.weights.empty() && num_input >= 0 &&
                                                      static_cast<int64_t>(i) >= num_input);
      VizNode& node = NewNode(weight ? NodeKind::kWeight : NodeKind::kInput, "Var", pname);
      node.detail = CompactStructInfo(p->struct_info_);
      node.info.push_back({"param", (weight ? "weight #" : "input #") + std::to_string(i)});
      AddStructInfo(&node, p->struct_info_);
      var_nodes_[p.get()] = node.id;
      param_names.push_back(pname);
    }
    std::string result = VisitExpr(func->body);
    VizNode& fn = NewNode(NodeKind::kFunction, "Function", name);
    std::string params = std::to_string(func->params.size()) + " param";
    if (func->params.size() != 1) params += "s";
    fn.detail = params + " -> " + CompactStructInfo(func->ret_struct_info);
    std::string sig;
    for (size_t i = 0; i < param_names.size(); ++i) sig += (i ? ", " : "") + param_names[i];
    fn.info.push_back({"params", sig});
    AddStructInfo(&fn, func->ret_struct_info);
    for (const auto& [key, value] : func->attrs.items()) {
      fn.info.push_back({"attr " + std::string(key), AttrText(value)});
    }
    AddEdge(result, fn.id, func->body);
  }

  std::string VisitExpr(const Expr& e) override {
    auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second;
    std::string id = ExprFunctor::VisitExpr(e);
    memo_[e.get()] = id;
    return id;
  }

  std::string VisitExpr_(const VarNode* op) override { return VarUse(op); }
  std::string VisitExpr_(const DataflowVarNode* op) override { return VarUse(op); }

  std::string VisitExpr_(const ConstantNode* op) override {
    VizNode& node = NewNode(NodeKind::kConstant, "Constant", "const");
    const runtime::NDArray& data = op->data;
    std::string sinfo = CompactStructInfo(op->struct_info_);
    node.detail = sinfo;
    if (data.defined() && data.Shape().empty()) {
      node.detail = ScalarText(data) + "  " + sinfo;
    }
    AddStructInfo(&node, op->struct_info_);
    return node.id;
  }

  std::string VisitExpr_(const TupleNode* op) override {
    std::vector<std::string> inputs;
    for (const Expr& f : op->fields) inputs.push_back(VisitExpr(f));
    VizNode& node = NewNode(NodeKind::kTuple, "Tuple", "Tuple");
    node.detail = std::to_string(op->fields.size()) + " fields";
    AddStructInfo(&node, op->struct_info_);
    for (size_t i = 0; i < inputs.size(); ++i) AddEdge(inputs[i], node.id, op->fields[i]);
    return node.id;
  }

  std::string VisitExpr_(const TupleGetItemNode* op) override {
    std::string tuple = VisitExpr(op->tuple);
    VizNode& node =
        NewNode(NodeKind::kTupleGetItem, "TupleGetItem", "[" + std::to_string(op->index) + "]");
    AddStructInfo(&node, op->struct_info_);
    AddEdge(tuple, node.id, op->tuple);
    return node.id;
  }

  std::string VisitExpr_(const ShapeExprNode* op) override {
    return Literal("ShapeExpr", "shape", CompactStructInfo(op->struct_info_), op);
  }
  std::string VisitExpr_(const PrimValueNode* op) override {
    return Literal("PrimValue", "prim_value", AttrText(Any(op->value)), op);
  }
  std::string VisitExpr_(const StringImmNode* op) override {
    return Literal("StringImm", "\"" + std::string(op->value) + "\"", "", op);
  }
  std::string VisitExpr_(const DataTypeImmNode* op) override {
    return Literal("DataTypeImm", "dtype", runtime::DataTypeToString(op->value), op);
  }

  std::string VisitExpr_(const CallNode* op) override {
    if (auto* callee = op->op.as<OpNode>()) return DrawOpCall(op, callee->name);
    if (auto* gv = op->op.as<GlobalVarNode>()) {
      auto fn = mod_->functions.Get(GetRef<GlobalVar>(gv));
      if (fn && options_.expand_fused && IsPrimitive(*fn) && fn->as<FunctionNode>()) {
        return DrawFused(op, gv->name_hint, Downcast<Function>(*fn));
      }
      std::vector<std::string> inputs = VisitArgs(op->args);
      std::string callee = GlobalVarNodeFor(gv);
      VizNode& node = NewNode(NodeKind::kCallFunction, "Call", gv->name_hint);
      node.info.push_back({"callee", "@" + std::string(gv->name_hint)});
      FinishCall(&node, op, inputs, op->args);
      graph_->edges.push_back({callee, node.id, "callee"});
      return node.id;
    }
    if (auto* ext = op->op.as<ExternFuncNode>()) {
      std::vector<std::string> inputs = VisitArgs(op->args);
      VizNode& node = NewNode(NodeKind::kCallPacked, "Call", ext->global_symbol);
      node.info.push_back({"callee", "extern \"" + std::string(ext->global_symbol) + "\""});
      FinishCall(&node, op, inputs, op->args);
      return node.id;
    }
    // A call of a value (a variable holding a function, a nested function).
    std::string callee = VisitExpr(op->op);
    std::vector<std::string> inputs = VisitArgs(op->args);
    VizNode& node = NewNode(NodeKind::kCallFunction, "Call", "call");
    FinishCall(&node, op, inputs, op->args);
    graph_->edges.push_back({callee, node.id, "callee"});
    return node.id;
  }

  std::string VisitExpr_(const IfNode* op) override {
    std::string cond = VisitExpr(op->cond);
    std::string then_id = VisitExpr(op->true_branch);
    std::string else_id = VisitExpr(op->false_branch);
    VizNode& node = NewNode(NodeKind::kIf, "If", "if");
    AddStructInfo(&node, op->struct_info_);
    graph_->edges.push_back({cond, node.id, "cond"});
    graph_->edges.push_back({then_id, node.id, "then"});
    graph_->edges.push_back({else_id, node.id, "else"});
    return node.id;
  }

  std::string VisitExpr_(const SeqExprNode* op) override {
    for (const BindingBlock& block : op->blocks) {
      for (const Binding& b : block->bindings) {
        if (auto* vb = b.as<VarBindingNode>()) {
          bool fresh = !memo_.count(vb->value.get()) && !vb->value.as<VarNode>();
          std::string id = VisitExpr(vb->value);
          var_nodes_[vb->var.get()] = id;
          if (fresh) {
            if (VizNode* node = Find(id)) SetName(node, vb->var->name_hint);
          }
        } else if (auto* mc = b.as<MatchCastNode>()) {
          std::string value = VisitExpr(mc->value);
          VizNode& node = NewNode(NodeKind::kMatchCast, "MatchCast", "match_cast");
          node.detail = CompactStructInfo(mc->struct_info);
          node.info.push_back({"name", mc->var->name_hint});
          AddStructInfo(&node, mc->struct_info);
          AddEdge(value, node.id, mc->value);
          var_nodes_[mc->var.get()] = node.id;
        }
      }
    }
    return VisitExpr(op->body);
  }

  std::string VisitExpr_(const FunctionNode* op) override {
    VizNode& node = NewNode(NodeKind::kOther, "Function", "local function");
    node.detail = std::to_string(op->params.size()) + " params";
    AddStructInfo(&node, op->struct_info_);
    return node.id;
  }
  std::string VisitExpr_(const ExternFuncNode* op) override {
    VizNode& node = NewNode(NodeKind::kExternFunc, "ExternFunc", op->global_symbol);
    return node.id;
  }
  std::string VisitExpr_(const GlobalVarNode* op) override { return GlobalVarNodeFor(op); }
  std::string VisitExpr_(const OpNode* op) override {
    VizNode& node = NewNode(NodeKind::kOther, "Op", ShortOpName(op->name));
    return node.id;
  }

 private:
  static bool IsPrimitive(const BaseFunc& f) {
    auto v = f->attrs.Get(String("Primitive"));
    if (!v) return false;
    if (v->is_int() || v->is_bool()) return v->cast<int64_t>() != 0;
    return true;
  }

  /*! \brief The value of a 0-d array on the CPU ("" for other devices or dtypes). */
  static std::string ScalarText(const runtime::NDArray& data) {
    if (data.device().device_type != kDLCPU) return "";
    DataType t = data.dtype();
    std::ostringstream os;
    if (t == DataType::Float(32)) {
      os << *data.data_as<float>();
    } else if (t == DataType::Float(64)) {
      os << *data.data_as<double>();
    } else if (t == DataType::Int(32)) {
      os << *data.data_as<int32_t>();
    } else if (t == DataType::Int(64)) {
      os << *data.data_as<int64_t>();
    } else if (t == DataType::Bool()) {
      os << (*data.data_as<uint8_t>() ? "True" : "False");
    }
    return os.str();
  }

  VizNode& NewNode(NodeKind kind, const std::string& type_name, const std::string& label) {
    VizNode node;
    node.id = "n" + std::to_string((*counter_)++);
    node.kind = kind;
    node.type_name = type_name;
    node.label = label;
    node.cluster = cluster_;
    graph_->nodes.push_back(std::move(node));
    index_[graph_->nodes.back().id] = graph_->nodes.size() - 1;
    return graph_->nodes.back();
  }

  /*! \brief The variable the node's value is bound to (the outermost binding wins). */
  static void SetName(VizNode* node, const std::string& name) {
    for (auto& [key, value] : node->info) {
      if (key == "name") {
        value = name;
        return;
      }
    }
    node->info.insert(node->info.begin(), {"name", name});
  }

  VizNode* Find(const std::string& id) {
    auto it = index_.find(id);
    return it == index_.end() ? nullptr : &graph_->nodes[it->second];
  }

  void AddEdge(const std::string& from, const std::string& to, const Expr& value) {
    graph_->edges.push_back({from, to, CompactStructInfo(value->struct_info_)});
  }

  static void AddStructInfo(VizNode* node, const ObjectRef& info) {
    if (info.defined() && info.as<StructInfoNode>()) {
      node->info.push_back({"struct_info", StructInfoToString(Downcast<StructInfo>(info))});
    }
  }

  std::string VarUse(const VarNode* op) {
    auto it = var_nodes_.find(op);
    if (it != var_nodes_.end()) return it->second;
    // A variable defined nowhere we walked (a free variable): draw it as an input.
    VizNode& node = NewNode(NodeKind::kInput, "Var", op->name_hint);
    node.detail = CompactStructInfo(op->struct_info_);
    node.info.push_back({"param", "free variable"});
    AddStructInfo(&node, op->struct_info_);
    var_nodes_[op] = node.id;
    return node.id;
  }

  std::string Literal(const std::string& type_name, const std::string& label,
                      const std::string& detail, const ExprNode* op) {
    VizNode& node = NewNode(NodeKind::kLiteral, type_name, label);
    node.detail = detail;
    AddStructInfo(&node, op->struct_info_);
    return node.id;
  }

  std::string GlobalVarNodeFor(const GlobalVarNode* gv) {
    auto it = global_nodes_.find(gv->name_hint);
    if (it != global_nodes_.end()) return it->second;
    VizNode& node = NewNode(NodeKind::kGlobalVar, "GlobalVar", "@" + std::string(gv->name_hint));
    if (auto fn = mod_->functions.Get(GetRef<GlobalVar>(gv))) {
      node.detail = fn->as<FunctionNode>() ? "Relax function" : (*fn)->GetTypeKey();
      AddStructInfo(&node, (*fn)->struct_info_);
    }
    global_nodes_[gv->name_hint] = node.id;
    return node.id;
  }

  std::vector<std::string> VisitArgs(const Array<Expr>& args) {
    std::vector<std::string> ids;
    for (const Expr& a : args) ids.push_back(VisitExpr(a));
    return ids;
  }

  /*! \brief The inputs of a call_tir / call_dps_packed: the argument tuple's fields, flattened. */
  void FlattenArgs(const Expr& tuple, std::vector<Expr>* out) {
    if (auto* t = tuple.as<TupleNode>()) {
      for (const Expr& f : t->fields) out->push_back(f);
    } else {
      out->push_back(tuple);
    }
  }

  std::string DrawOpCall(const CallNode* op, const std::string& name) {
    std::vector<Expr> args;
    NodeKind kind = NodeKind::kCallOp;
    std::string label = ShortOpName(name);
    std::string type_name = "Call";
    bool tir = name == "relax.call_tir" || name == "relax.call_tir_inplace" ||
               name == "relax.call_tir_with_grad";
    bool dps = name == "relax.call_dps_packed";
    bool packed = name == "relax.call_pure_packed" || name == "relax.call_packed" ||
                  name == "relax.call_builtin_with_ctx";
    std::vector<std::pair<std::string, std::string>> info;
    if ((tir || dps) && !op->args.empty()) {
      kind = tir ? NodeKind::kCallTIR : NodeKind::kCallDPSPacked;
      type_name = ShortOpName(name);
      const Expr& callee = op->args[0];
      if (auto* gv = callee.as<GlobalVarNode>()) {
        label = gv->name_hint;
        if (auto fn = mod_->functions.Get(GetRef<GlobalVar>(gv))) {
          if (fn->as<tir::PrimFuncNode>() && !model_->prim_funcs.count(label)) {
            script::ScriptOptions opts;
            opts.print_header = false;
            // Printed alone under its GlobalVar's name (its global symbol names the function).
            tir::PrimFunc pf = Downcast<tir::PrimFunc>(*fn);
            model_->prim_funcs[label] =
                script::AsScript(WithAttr(pf, "global_symbol", label), opts);
          }
        }
        info.push_back({tir ? "prim_func" : "callee", label});
      } else if (auto* ext = callee.as<ExternFuncNode>()) {
        label = ext->global_symbol;
        info.push_back({"callee", "extern \"" + label + "\""});
      } else if (auto* s = callee.as<StringImmNode>()) {
        label = s->value;
        info.push_back({"callee", "extern \"" + label + "\""});
      }
      if (op->args.size() > 1) FlattenArgs(op->args[1], &args);
      for (size_t i = 2; i < op->args.size(); ++i) args.push_back(op->args[i]);
    } else if (packed && !op->args.empty()) {
      kind = NodeKind::kCallPacked;
      type_name = ShortOpName(name);
      const Expr& callee = op->args[0];
      if (auto* ext = callee.as<ExternFuncNode>()) label = ext->global_symbol;
      if (auto* s = callee.as<StringImmNode>()) label = s->value;
      info.push_back({"callee", "extern \"" + label + "\""});
      for (size_t i = 1; i < op->args.size(); ++i) args.push_back(op->args[i]);
    } else {
      for (const Expr& a : op->args) args.push_back(a);
      info.push_back({"op", name});
    }
    std::vector<std::string> inputs;
    for (const Expr& a : args) inputs.push_back(VisitExpr(a));
    VizNode& node = NewNode(kind, type_name, label);
    node.info.insert(node.info.end(), info.begin(), info.end());
    FinishCall(&node, op, inputs, Array<Expr>(args));
    return node.id;
  }

  /*! \brief Attributes, struct info and input edges of a call node. */
  void FinishCall(VizNode* node, const CallNode* op, const std::vector<std::string>& inputs,
                  const Array<Expr>& args) {
    std::vector<std::string> shown;
    for (const auto& [key, value] : op->attrs.items()) {
      std::string text = AttrText(value);
      node->info.push_back({"attr " + std::string(key), text});
      shown.push_back(std::string(key) + "=" + text);
    }
    for (const StructInfo& s : op->sinfo_args) node->info.push_back({"out", StructInfoToString(s)});
    AddStructInfo(node, op->struct_info_);
    node->detail = ShortAttrs(shown);
    std::string id = node->id;
    for (size_t i = 0; i < inputs.size(); ++i) AddEdge(inputs[i], id, args[i]);
  }

  /*! \brief A call of a fused function: its body drawn here, inside a cluster named after it. */
  std::string DrawFused(const CallNode* op, const std::string& name, const Function& fn) {
    std::vector<std::string> inputs = VisitArgs(op->args);
    VizCluster cluster;
    cluster.id = "c" + std::to_string((*counter_)++);
    cluster.label = name;
    graph_->clusters.push_back(cluster);
    // The callee's variables are its own: walk it with fresh tables, its params bound to the
    // call's arguments.
    auto saved_memo = std::move(memo_);
    auto saved_vars = std::move(var_nodes_);
    std::string saved_cluster = cluster_;
    memo_.clear();
    var_nodes_.clear();
    cluster_ = cluster.id;
    for (size_t i = 0; i < fn->params.size() && i < inputs.size(); ++i) {
      var_nodes_[fn->params[i].get()] = inputs[i];
    }
    std::string result = VisitExpr(fn->body);
    memo_ = std::move(saved_memo);
    var_nodes_ = std::move(saved_vars);
    cluster_ = saved_cluster;
    return result;
  }

  const IRModule& mod_;
  const VizOptions& options_;
  VizModel* model_;
  VizGraph* graph_;
  int* counter_;
  std::string cluster_;
  std::unordered_map<const Object*, std::string> memo_;
  std::unordered_map<const Object*, std::string> var_nodes_;
  std::unordered_map<std::string, std::string> global_nodes_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace

const char* NodeKindName(NodeKind kind) {
  int k = static_cast<int>(kind);
  return k >= 0 && k < kNumKinds ? kKindNames[k] : "other";
}

NodeKind NodeKindFromName(const std::string& name) {
  for (int k = 0; k < kNumKinds; ++k) {
    if (name == kKindNames[k]) return static_cast<NodeKind>(k);
  }
  std::string known;
  for (int k = 0; k < kNumKinds; ++k) known += std::string(k ? ", " : "") + kKindNames[k];
  MINITVM_THROW(ValueError) << "relax viz: unknown node kind \"" << name
                            << "\"; known kinds: " << known;
}

std::string CompactStructInfo(const ObjectRef& info) {
  if (!info.defined()) return "";
  if (auto* t = info.as<TensorStructInfoNode>()) {
    std::string dtype = t->IsUnknownDtype() ? "?" : runtime::DataTypeToString(t->dtype);
    if (auto shape = t->GetShape()) {
      std::string out = "(";
      for (size_t i = 0; i < shape->size(); ++i) {
        out += (i ? ", " : "") + AttrText(Any((*shape)[i]));
      }
      if (shape->size() == 1) out += ",";
      return out + ") " + dtype;
    }
    if (t->IsUnknownNdim()) return "Tensor " + dtype;
    return "Tensor(ndim=" + std::to_string(t->ndim) + ") " + dtype;
  }
  if (auto* t = info.as<TupleStructInfoNode>()) {
    std::string out = "Tuple(";
    for (size_t i = 0; i < t->fields.size(); ++i) {
      if (i == 3) {
        out += ", ...";
        break;
      }
      out += (i ? ", " : "") + CompactStructInfo(t->fields[i]);
    }
    return out + ")";
  }
  if (info.as<FuncStructInfoNode>()) return "Function";
  return StructInfoToString(Downcast<StructInfo>(info));
}

std::string ShortOpName(const std::string& name) {
  return name.rfind("relax.", 0) == 0 ? name.substr(6) : name;
}

std::string ShortAttrs(const std::vector<std::string>& attrs) {
  // At most three attributes on at most two lines of ~32 characters; the rest is on hover.
  std::string out, line;
  int lines = 0;
  for (size_t i = 0; i < attrs.size() && i < 3; ++i) {
    std::string a = attrs[i].size() > 32 ? attrs[i].substr(0, 30) + "…" : attrs[i];
    if (!line.empty() && line.size() + a.size() > 32) {
      out += (lines++ ? "\n" : "") + line;
      line.clear();
      if (lines == 2) break;
    }
    line += (line.empty() ? "" : " ") + a;
  }
  if (!line.empty() && lines < 2) out += (lines ? "\n" : "") + line;
  if (attrs.size() > 3) out += " …";
  return out;
}

VizModel BuildModel(const IRModule& mod, const VizOptions& options) {
  VizModel model;
  std::vector<std::pair<std::string, Function>> funcs;
  auto relax_function = [&](const std::string& name) -> Function {
    auto gv = mod->GetGlobalVar(name);
    if (!gv) {
      std::string names;
      for (const GlobalVar& g : mod->GetGlobalVars()) {
        names += (names.empty() ? "" : ", ") + std::string(g->name_hint);
      }
      MINITVM_THROW(ValueError) << "relax viz: the module has no function \"" << name
                                << "\"; it has: " << (names.empty() ? "(none)" : names);
    }
    BaseFunc f = mod->Lookup(*gv);
    if (!f.as<FunctionNode>()) {
      MINITVM_THROW(ValueError) << "relax viz: \"" << name << "\" is a " << f->GetTypeKey()
                                << ", not a Relax function; only Relax functions are drawn";
    }
    return Downcast<Function>(f);
  };
  if (!options.functions.empty()) {
    for (const std::string& name : options.functions) funcs.push_back({name, relax_function(name)});
  } else {
    for (const GlobalVar& gv : mod->GetGlobalVars()) {
      BaseFunc f = mod->Lookup(gv);
      auto* fn = f.as<FunctionNode>();
      if (!fn) continue;
      auto prim = f->attrs.Get(String("Primitive"));
      bool primitive = prim && !(prim->is_int() && prim->cast<int64_t>() == 0);
      if (primitive && options.expand_fused) continue;
      funcs.push_back({gv->name_hint, Downcast<Function>(f)});
    }
    std::stable_partition(funcs.begin(), funcs.end(),
                          [](const auto& p) { return p.first == "main"; });
  }
  int counter = 0;
  model.graphs.reserve(funcs.size());
  for (const auto& [name, func] : funcs) {
    model.graphs.push_back(VizGraph());
    model.graphs.back().name = name;
    GraphBuilder builder(mod, options, &model, &model.graphs.back(), &counter);
    builder.DrawFunction(name, func);
  }
  return model;
}

std::pair<size_t, size_t> CountNodesEdges(const VizModel& model) {
  size_t nodes = 0, edges = 0;
  for (const VizGraph& g : model.graphs) {
    nodes += g.nodes.size();
    edges += g.edges.size();
  }
  return {nodes, edges};
}

}  // namespace viz
}  // namespace relax
}  // namespace minitvm
