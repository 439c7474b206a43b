/*!
 * \file codegen_vm.cc
 * \brief VM code generation (stage 5): a lowered Relax module → the bytecode executable
 * (codegen_vm.h). One pass over each function's bindings: every bound variable gets a
 * register, every call one `Call` instruction, leaves (constants, static shapes, strings,
 * dtypes, ints) become constant-pool or immediate arguments, and `If` becomes
 * read_if_cond / If / Goto. Also the global "relax.VMCodeGen".
 */
#include "minitvm/relax_vm/codegen_vm.h"

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

using namespace relax;  // NOLINT(build/namespaces)

namespace {

/*! \brief The variables a function reads (to give unread results no register). */
class UseCollector : public ExprVisitor {
 public:
  void VisitExpr_(const VarNode* op) override { used.insert(op); }
  std::unordered_set<const VarNode*> used;
};

class CodeGenerator {
 public:
  explicit CodeGenerator(IRModule mod) : mod_(std::move(mod)) {
    exec_ = runtime::make_object<ExecutableNode>();
  }

  runtime::ObjectPtr<ExecutableNode> Run() {
    std::vector<std::pair<GlobalVar, Function>> funcs;
    for (const GlobalVar& gv : mod_->GetGlobalVars()) {
      const auto* f = mod_->Lookup(gv).as<FunctionNode>();
      if (!f) continue;
      Function func = GetRef<Function>(f);
      VMFuncInfo info;
      info.kind = VMFuncInfo::Kind::kVMFunc;
      info.name = gv->name_hint.str();
      if (auto sym = func->GetAttr<String>("global_symbol")) info.name = sym->str();
      info.num_args = static_cast<int64_t>(func->params.size());
      for (const Var& p : func->params) info.param_names.push_back(p->name_hint.str());
      if (exec_->func_map.count(info.name)) {
        MINITVM_THROW(ValueError) << "CodeGenVM: two functions of the module are named "
                                  << info.name;
      }
      int64_t idx = static_cast<int64_t>(exec_->func_table.size());
      exec_->func_map[info.name] = idx;
      exec_->func_table.push_back(info);
      relax_index_[gv->name_hint.str()] = idx;
      funcs.emplace_back(gv, func);
    }
    for (const auto& [gv, func] : funcs) GenFunction(gv, func);
    return exec_;
  }

 private:
  // ---- functions ----

  void GenFunction(const GlobalVar& gv, const Function& func) {
    func_name_ = gv->name_hint.str();
    regs_.clear();
    num_regs_ = 0;
    UseCollector uses;
    uses.VisitExpr(func->body);
    used_ = std::move(uses.used);
    for (const Var& p : func->params) regs_[p.get()] = num_regs_++;
    int64_t idx = relax_index_.at(func_name_);
    int64_t start = static_cast<int64_t>(exec_->instructions.size());
    InstrArg ret = VisitExpr(func->body);
    RegName result = AsRegister(ret);
    Emit(Instruction::Ret(result));
    VMFuncInfo& info = exec_->func_table[idx];
    info.start_instr = start;
    info.end_instr = static_cast<int64_t>(exec_->instructions.size());
    info.register_file_size = num_regs_;
  }

  // ---- helpers ----

  int64_t Emit(Instruction instr) {
    exec_->instructions.push_back(std::move(instr));
    return static_cast<int64_t>(exec_->instructions.size()) - 1;
  }
  RegName NewReg() { return num_regs_++; }
  int64_t Packed(const std::string& name) { return exec_->GetOrAddPackedFunc(name); }

  /*! \brief The argument as a register, copying a constant / immediate into a new one. */
  RegName AsRegister(const InstrArg& arg) {
    if (arg.kind == InstrArg::Kind::kRegister) return arg.value;
    RegName r = NewReg();
    Emit(Instruction::Call(Packed("vm.builtin.copy"), {arg}, r));
    return r;
  }

  [[noreturn]] void Fail(const std::string& what) {
    MINITVM_THROW(ValueError) << "CodeGenVM: in function " << func_name_
                              << (binding_.empty() ? "" : ", binding " + binding_) << ": " << what;
  }

  int64_t AddConstant(const Any& value) {
    exec_->constants.push_back(value);
    return static_cast<int64_t>(exec_->constants.size()) - 1;
  }
  int64_t NDArrayConst(const NDArray& arr) {
    auto it = ndarray_consts_.find(arr.get());
    if (it != ndarray_consts_.end()) return it->second;
    int64_t i = AddConstant(Any(arr));
    ndarray_consts_[arr.get()] = i;
    return i;
  }
  int64_t KeyedConst(const std::string& key, const Any& value) {
    auto it = keyed_consts_.find(key);
    if (it != keyed_consts_.end()) return it->second;
    int64_t i = AddConstant(value);
    keyed_consts_[key] = i;
    return i;
  }

  /*! \brief The function-table index of a callee given as a GlobalVar. */
  int64_t GlobalFuncIndex(const GlobalVarNode* g) {
    auto it = relax_index_.find(g->name_hint.str());
    if (it != relax_index_.end()) return it->second;
    auto gv = mod_->GetGlobalVar(g->name_hint);
    if (!gv) Fail("the function " + g->name_hint.str() + " is not in the module");
    BaseFunc f = mod_->Lookup(*gv);
    std::string symbol = g->name_hint.str();
    if (auto sym = f->GetAttr<String>("global_symbol")) symbol = sym->str();
    return Packed(symbol);
  }

  // ---- expressions ----

  InstrArg VisitExpr(const Expr& e) {
    if (const auto* v = e.as<VarNode>()) {
      auto it = regs_.find(v);
      if (it == regs_.end()) Fail("the variable " + v->name_hint.str() + " has no value here");
      return InstrArg::Register(it->second);
    }
    if (const auto* c = e.as<ConstantNode>()) return InstrArg::ConstIdx(NDArrayConst(c->data));
    if (const auto* s = e.as<ShapeExprNode>()) {
      std::vector<int64_t> dims;
      std::string key = "shape:";
      for (const PrimExpr& d : s->values) {
        const auto* imm = d.as<IntImmNode>();
        if (!imm) {
          Fail(
              "the shape has a symbolic dimension; run VMShapeLower (relax.vm_lowering_pipeline) "
              "first");
        }
        dims.push_back(imm->value);
        key += std::to_string(imm->value) + ",";
      }
      return InstrArg::ConstIdx(KeyedConst(key, Any(ShapeTuple(dims))));
    }
    if (const auto* p = e.as<PrimValueNode>()) {
      if (const auto* imm = p->value.as<IntImmNode>()) return InstrArg::Immediate(imm->value);
      if (const auto* f = p->value.as<FloatImmNode>()) {
        return InstrArg::ConstIdx(AddConstant(Any(f->value)));
      }
      Fail("a symbolic PrimValue; run VMShapeLower (relax.vm_lowering_pipeline) first");
    }
    if (const auto* s = e.as<StringImmNode>()) {
      return InstrArg::ConstIdx(KeyedConst("str:" + s->value.str(), Any(s->value)));
    }
    if (const auto* d = e.as<DataTypeImmNode>()) {
      return InstrArg::ConstIdx(KeyedConst("dtype:" + DataTypeToString(d->value), Any(d->value)));
    }
    if (const auto* g = e.as<GlobalVarNode>()) return InstrArg::FuncIdx(GlobalFuncIndex(g));
    if (const auto* x = e.as<ExternFuncNode>()) {
      return InstrArg::FuncIdx(Packed(x->global_symbol.str()));
    }
    if (const auto* t = e.as<TupleNode>()) {
      std::vector<InstrArg> args;
      for (const Expr& f : t->fields) args.push_back(VisitExpr(f));
      RegName r = NewReg();
      Emit(Instruction::Call(Packed("vm.builtin.make_tuple"), args, r));
      return InstrArg::Register(r);
    }
    if (const auto* g = e.as<TupleGetItemNode>()) {
      InstrArg t = VisitExpr(g->tuple);
      RegName r = NewReg();
      Emit(Instruction::Call(Packed("vm.builtin.tuple_getitem"), {t, InstrArg::Immediate(g->index)},
                             r));
      return InstrArg::Register(r);
    }
    if (const auto* c = e.as<CallNode>()) {
      RegName r = NewReg();
      EmitCall(c, r);
      return InstrArg::Register(r);
    }
    if (const auto* i = e.as<IfNode>()) {
      RegName r = NewReg();
      EmitIf(i, r);
      return InstrArg::Register(r);
    }
    if (const auto* s = e.as<SeqExprNode>()) {
      for (const BindingBlock& block : s->blocks) {
        for (const Binding& b : block->bindings) EmitBinding(b);
      }
      return VisitExpr(s->body);
    }
    Fail(std::string("cannot generate code for a ") + e->GetTypeKey());
  }

  void EmitBinding(const Binding& b) {
    binding_ = b->var->name_hint.str();
    const VarNode* var = b->var.get();
    if (const auto* mc = b.as<MatchCastNode>()) {
      // The checks were emitted before it by VMShapeLower: the value passes through.
      InstrArg v = VisitExpr(mc->value);
      RegName r = NewReg();
      Emit(Instruction::Call(Packed("vm.builtin.copy"), {v}, r));
      regs_[var] = r;
      return;
    }
    const Expr& value = Downcast<VarBinding>(b)->value;
    if (const auto* call = value.as<CallNode>()) {
      RegName dst = used_.count(var) ? NewReg() : Instruction::kVoidRegister;
      EmitCall(call, dst);
      regs_[var] = dst;
    } else if (const auto* i = value.as<IfNode>()) {
      RegName dst = NewReg();
      EmitIf(i, dst);
      regs_[var] = dst;
    } else if (value.as<TupleNode>() || value.as<TupleGetItemNode>()) {
      regs_[var] = VisitExpr(value).value;
    } else {
      // `y = x`, `y = R.const(...)`, `y = R.shape([2, 3])`: a copy into y's own register (so
      // that killing x later does not clear y).
      InstrArg v = VisitExpr(value);
      RegName r = NewReg();
      Emit(Instruction::Call(Packed("vm.builtin.copy"), {v}, r));
      regs_[var] = r;
    }
    binding_.clear();
  }

  void EmitCall(const CallNode* call, RegName dst) {
    std::vector<InstrArg> args;
    if (const auto* op = call->op.as<OpNode>()) {
      const std::string name = op->name.str();
      if (name == "relax.memory.kill_tensor" || name == "relax.memory.kill_storage") {
        // Drop the register's reference: the memory goes back when nothing else holds it.
        const auto* v = call->args.size() == 1 ? call->args[0].as<VarNode>() : nullptr;
        if (!v) Fail(name + " takes one variable");
        auto it = regs_.find(v);
        if (it == regs_.end() || it->second < 0) return;
        Emit(Instruction::Call(Packed("vm.builtin.null_value"), {}, it->second));
        return;
      }
      if (name == "relax.call_builtin_with_ctx") {
        const auto* f = call->args.size() == 2 ? call->args[0].as<ExternFuncNode>() : nullptr;
        const auto* t = call->args.size() == 2 ? call->args[1].as<TupleNode>() : nullptr;
        if (!f || !t) Fail("R.call_builtin_with_ctx takes an ExternFunc and a tuple");
        args.push_back(InstrArg::Register(Instruction::kVMRegister));
        for (const Expr& a : t->fields) args.push_back(VisitExpr(a));
        Emit(Instruction::Call(Packed(f->global_symbol.str()), args, dst));
        return;
      }
      if (name == "relax.call_pure_packed" && !call->args.empty()) {
        const auto* f = call->args[0].as<ExternFuncNode>();
        if (!f) Fail("R.call_pure_packed needs an ExternFunc callee");
        for (size_t i = 1; i < call->args.size(); ++i) args.push_back(VisitExpr(call->args[i]));
        Emit(Instruction::Call(Packed(f->global_symbol.str()), args, dst));
        return;
      }
      Fail("the operator " + name +
           " has no VM code; run LegalizeOps and relax.vm_lowering_pipeline() first");
    }
    int64_t func_idx = 0;
    if (const auto* g = call->op.as<GlobalVarNode>()) {
      func_idx = GlobalFuncIndex(g);
    } else if (const auto* x = call->op.as<ExternFuncNode>()) {
      func_idx = Packed(x->global_symbol.str());
    } else {
      Fail(std::string("calls of a ") + call->op->GetTypeKey() +
           " (closures) are not supported by the VM");
    }
    for (const Expr& a : call->args) args.push_back(VisitExpr(a));
    Emit(Instruction::Call(func_idx, args, dst));
  }

  void EmitIf(const IfNode* node, RegName dst) {
    InstrArg cond = VisitExpr(node->cond);
    RegName c = NewReg();
    Emit(Instruction::Call(Packed("vm.builtin.read_if_cond"), {cond}, c));
    int64_t if_pc = Emit(Instruction::If(c, 0));
    std::string binding = binding_;
    InstrArg t = VisitExpr(node->true_branch);
    Emit(Instruction::Call(Packed("vm.builtin.copy"), {t}, dst));
    int64_t goto_pc = Emit(Instruction::Goto(0));
    int64_t false_start = static_cast<int64_t>(exec_->instructions.size());
    exec_->instructions[if_pc].false_offset = false_start - if_pc;
    InstrArg f = VisitExpr(node->false_branch);
    Emit(Instruction::Call(Packed("vm.builtin.copy"), {f}, dst));
    int64_t end = static_cast<int64_t>(exec_->instructions.size());
    exec_->instructions[goto_pc].pc_offset = end - goto_pc;
    binding_ = binding;
  }

  IRModule mod_;
  runtime::ObjectPtr<ExecutableNode> exec_;
  std::unordered_map<std::string, int64_t> relax_index_;
  std::string func_name_;
  std::string binding_;
  std::unordered_map<const VarNode*, RegName> regs_;
  std::unordered_set<const VarNode*> used_;
  int64_t num_regs_ = 0;
  std::unordered_map<const Object*, int64_t> ndarray_consts_;
  std::unordered_map<std::string, int64_t> keyed_consts_;
};

}  // namespace

runtime::ObjectPtr<ExecutableNode> CodeGenVM(const IRModule& lowered) {
  return CodeGenerator(lowered).Run();
}

MINITVM_REGISTER_GLOBAL("relax.VMCodeGen").set_body_typed([](IRModule mod) {
  return runtime::Module(CodeGenVM(mod));
});

}  // namespace relax_vm
}  // namespace minitvm
