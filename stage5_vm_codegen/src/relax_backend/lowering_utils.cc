/*!
 * \file lowering_utils.cc
 * \brief Helpers of the Relax-to-VM lowering (stage 5), and the operator
 * `relax.call_builtin_with_ctx` the lowering emits for builtins that take the VM itself.
 */
#include "lowering_utils.h"

#include "minitvm/relax/analysis.h"
#include "minitvm/relax/op_attr.h"

namespace minitvm {
namespace relax_vm {
namespace detail {

using namespace relax;  // NOLINT(build/namespaces)

StructInfo VoidInfo() { return TupleStructInfo(Array<StructInfo>()); }

Call CallPacked(const std::string& name, Array<Expr> args, const StructInfo& ret) {
  ExternFunc f(name);
  Call call(f, args, {}, {ret});
  UpdateStructInfo(call, ret);
  return call;
}

Call CallBuiltinWithCtx(const std::string& name, Array<Expr> args, const StructInfo& ret) {
  Tuple tuple(args);
  Array<StructInfo> fields;
  for (const Expr& a : args) fields.push_back(GetStructInfo(a));
  UpdateStructInfo(tuple, TupleStructInfo(fields));
  Call call(Op::Get("relax.call_builtin_with_ctx"), {ExternFunc(name), tuple}, {}, {ret});
  UpdateStructInfo(call, ret);
  return call;
}

Var MakeVar(const std::string& name, const StructInfo& info) { return Var(name, info); }

Var Emit(std::vector<Binding>* out, const std::string& name, const Expr& value) {
  Var v(name, GetStructInfo(value));
  out->push_back(VarBinding(v, value));
  return v;
}

std::optional<std::vector<int64_t>> StaticShape(const Array<PrimExpr>& dims) {
  std::vector<int64_t> out;
  for (const PrimExpr& d : dims) {
    const auto* imm = d.as<IntImmNode>();
    if (!imm) return std::nullopt;
    out.push_back(imm->value);
  }
  return out;
}

int64_t NumBytes(const std::vector<int64_t>& shape, DataType dtype) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n * dtype.bytes();
}

StringImm DTypeString(DataType dtype) {
  StringImm s(DataTypeToString(dtype));
  UpdateStructInfo(s, ObjectStructInfo());
  return s;
}

PrimValue Int64Value(int64_t v) {
  PrimValue p(IntImm(DataType::Int(64), v));
  if (!p->struct_info_.defined()) UpdateStructInfo(p, PrimStructInfo(p->value));
  return p;
}

const CallNode* AsOpCall(const Expr& value, const char* name) {
  const auto* call = value.as<CallNode>();
  if (call && IsOp(call->op, name)) return call;
  return nullptr;
}

transform::Pass RelaxFunctionPass(
    const std::string& name,
    std::function<Function(const Function&, const std::string&)> frewrite) {
  return transform::CreateModulePass(
      [name, frewrite](IRModule mod, transform::PassContext) {
        bool changed = false;
        IRModule out = mod;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          BaseFunc f = mod->Lookup(gv);
          const auto* rf = f.as<FunctionNode>();
          if (!rf) continue;
          Function nf = frewrite(GetRef<Function>(rf), gv->name_hint.str());
          if (nf.same_as(f)) continue;
          if (!changed) out = IRModule(mod->functions, mod->attrs);
          changed = true;
          out.Add(gv, nf);
        }
        return changed ? out : mod;
      },
      0, name);
}

Expr BindingValue(const Binding& b) {
  if (const auto* vb = b.as<VarBindingNode>()) return vb->value;
  if (const auto* mc = b.as<MatchCastNode>()) return mc->value;
  MINITVM_THROW(InternalError) << "unknown binding kind " << b->GetTypeKey();
}

std::vector<Binding> TopLevelBindings(const Function& func) {
  std::vector<Binding> out;
  const auto* seq = func->body.as<SeqExprNode>();
  if (!seq) return out;
  for (const BindingBlock& block : seq->blocks) {
    for (const Binding& b : block->bindings) out.push_back(b);
  }
  return out;
}

AliasAnalysis::AliasAnalysis(const std::vector<Binding>& bindings,
                             const std::function<bool(const Binding&)>& is_root) {
  for (const Binding& b : bindings) {
    const VarNode* var = b->var.get();
    if (is_root(b)) {
      roots_[var] = {var};
      continue;
    }
    std::unordered_set<const VarNode*> roots = RootsOfExpr(BindingValue(b));
    if (!roots.empty()) roots_[var] = std::move(roots);
  }
}

const std::unordered_set<const VarNode*>& AliasAnalysis::Roots(const VarNode* var) const {
  auto it = roots_.find(var);
  return it == roots_.end() ? empty_ : it->second;
}

std::unordered_set<const VarNode*> AliasAnalysis::RootsOfExpr(const Expr& e) const {
  std::unordered_set<const VarNode*> out;
  if (const auto* v = e.as<VarNode>()) {
    const auto& r = Roots(v);
    out.insert(r.begin(), r.end());
    return out;
  }
  for (const Var& v : FreeVars(e)) {
    const auto& r = Roots(v.get());
    out.insert(r.begin(), r.end());
  }
  return out;
}

}  // namespace detail

namespace {

relax::StructInfo InferCallBuiltinWithCtx(const relax::Call& call) {
  if (call->args.size() != 2) {
    MINITVM_THROW(ValueError) << "relax.call_builtin_with_ctx takes 2 arguments (the builtin and "
                                 "a tuple of its arguments), but "
                              << call->args.size() << " were given";
  }
  if (!call->args[0].as<relax::ExternFuncNode>()) {
    MINITVM_THROW(TypeError) << "relax.call_builtin_with_ctx: argument func must be an "
                                "ExternFunc (the builtin's name), but is a "
                             << call->args[0]->GetTypeKey();
  }
  if (call->sinfo_args.size() == 1) return call->sinfo_args[0];
  return relax::ObjectStructInfo();
}

}  // namespace

MINITVM_REGISTER_OP("relax.call_builtin_with_ctx")
    .describe(
        "Call a VM builtin that takes the VM itself as its first argument (the lowered "
        "form of allocations and the shape heap).")
    .set_num_inputs(2)
    .add_argument("func", "ExternFunc", "The builtin.")
    .add_argument("args", "Tuple", "Its arguments (after the VM).")
    .set_attr(relax::kTAttrDefaults, Map<String, Any>())
    .set_attr(relax::kTOpPattern, static_cast<int>(relax::kOpaque))
    .set_attr(relax::kFPurity, false)
    .set_attr_typed(relax::kFInferStructInfo, [](relax::Call call) -> relax::StructInfo {
      return InferCallBuiltinWithCtx(call);
    });

}  // namespace relax_vm
}  // namespace minitvm
