/*!
 * \file codegen_llvm_func.cc
 * \brief CodeGenLLVM, part 3 (stage 5): functions — the packed entry of each PrimFunc, the
 * outlined compute function with `noalias` buffer pointers, parallel loops as a closure plus
 * a task function launched on the thread pool, the runtime hook variables and the module
 * description that loaders read.
 */
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <unordered_set>

#include "../../tir/transform/ir_utils.h"
#include "codegen_llvm.h"
#include "minitvm/runtime_cpu/backend_api.h"
#include "minitvm/runtime_cpu/packed_call.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace codegen {

using namespace tir;  // NOLINT(build/namespaces)

namespace {
/*! \brief The data variables of the buffers a statement loads from or stores to. */
std::unordered_set<const VarNode*> AccessedDataVars(const Stmt& s) {
  std::unordered_set<const VarNode*> vars;
  PostOrderVisit(s, [&](const ObjectRef& n) {
    if (auto* load = n.as<BufferLoadNode>()) vars.insert(load->buffer->data.get());
    if (auto* store = n.as<BufferStoreNode>()) vars.insert(store->buffer->data.get());
  });
  return vars;
}

/*! \brief Alignments MakePackedAPI asserted: `floormod(ptr_to_int(v), A) == 0`. */
void CollectAssertedAlignment(const Stmt& body, std::unordered_map<const VarNode*, int64_t>* out) {
  PostOrderVisit(body, [&](const ObjectRef& n) {
    auto* a = n.as<AssertStmtNode>();
    if (!a) return;
    auto* eq = a->condition.as<EQNode>();
    if (!eq || !IsConstFalse(eq->b)) return;
    auto* mod = eq->a.as<FloorModNode>();
    if (!mod) return;
    auto* call = mod->a.as<CallNode>();
    auto align = AsConstInt(mod->b);
    if (!call || call->op.str() != "tir.minitvm.ptr_to_int" || !align) return;
    if (auto* v = call->args[0].as<VarNode>()) (*out)[v] = *align;
  });
}
}  // namespace

void CodeGenLLVM::SetFunctionAttributes(llvm::Function* fn) {
  fn->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) fn->addFnAttr("target-features", target_.features);
  fn->setDoesNotThrow();
  fn->addFnAttr(llvm::Attribute::NoUnwind);
}

llvm::Value* CodeGenLLVM::HookPointer(const char* symbol) {
  if (llvm::GlobalVariable* gv = module_->getNamedGlobal(symbol)) return gv;
  auto* ptr = builder_->getPtrTy();
  auto* gv = new llvm::GlobalVariable(*module_, ptr, false, llvm::GlobalValue::ExternalLinkage,
                                      llvm::ConstantPointerNull::get(ptr), symbol);
  gv->setAlignment(llvm::Align(8));
  gv->setVisibility(llvm::GlobalValue::DefaultVisibility);
  return gv;
}

void CodeGenLLVM::AddFunction(const std::string& name, const PrimFunc& func) {
  if (!func->GetAttr<bool>(tir::transform::kPackedAPIAttr).value_or(false)) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM: " << name
                                 << " does not use the packed calling convention; run "
                                    "MakePackedAPI (the default TIR pipeline) first";
  }
  noalias_ = func->GetAttr<bool>("tir.noalias").value_or(false);
  var_map_.clear();
  ptr_align_.clear();
  CollectAssertedAlignment(func->body, &ptr_align_);
  std::vector<llvm::Type*> types;
  for (const Var& p : func->params) types.push_back(LLVMType(p.dtype()));
  auto* fty = llvm::FunctionType::get(builder_->getInt32Ty(), types, false);
  if (module_->getFunction(name)) {
    MINITVM_THROW(ValueError) << "CodeGenLLVM: two functions are named \"" << name << "\"";
  }
  llvm::Function* fn =
      llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, module_.get());
  fn->setVisibility(llvm::GlobalValue::DefaultVisibility);
  SetFunctionAttributes(fn);
  function_ = fn;
  function_name_ = name;
  for (size_t i = 0; i < func->params.size(); ++i) {
    llvm::Argument* arg = fn->getArg(static_cast<unsigned>(i));
    arg->setName(func->params[i]->name_hint.str());
    var_map_[func->params[i].get()] = arg;
  }
  builder_->SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "entry", fn));
  VisitStmt(func->body);
  builder_->CreateRet(builder_->getInt32(0));
  function_names_.push_back(name);
  function_ = nullptr;
}

llvm::Function* CodeGenLLVM::CreateOutlinedFunction(const Stmt& body, const std::string& name,
                                                    const std::vector<Var>& params) {
  std::vector<llvm::Type*> types;
  for (const Var& p : params) types.push_back(LLVMType(p.dtype()));
  auto* fty = llvm::FunctionType::get(builder_->getInt32Ty(), types, false);
  llvm::Function* fn =
      llvm::Function::Create(fty, llvm::Function::InternalLinkage, name, module_.get());
  SetFunctionAttributes(fn);
  std::unordered_set<const VarNode*> data_vars = AccessedDataVars(body);
  for (size_t i = 0; i < params.size(); ++i) {
    llvm::Argument* arg = fn->getArg(static_cast<unsigned>(i));
    arg->setName(params[i]->name_hint.str());
    if (!params[i].dtype().is_handle() || !data_vars.count(params[i].get())) continue;
    if (noalias_) arg->addAttr(llvm::Attribute::NoAlias);
    arg->addAttr(llvm::Attribute::NoCapture);
    auto it = ptr_align_.find(params[i].get());
    if (it != ptr_align_.end() && it->second > 1) {
      arg->addAttr(llvm::Attribute::getWithAlignment(*ctx_, llvm::Align(it->second)));
    }
  }
  // Generate the body in the new function, then come back.
  llvm::Function* saved_fn = function_;
  auto saved_map = std::move(var_map_);
  llvm::IRBuilderBase::InsertPoint saved_ip = builder_->saveIP();
  function_ = fn;
  var_map_.clear();
  for (size_t i = 0; i < params.size(); ++i)
    var_map_[params[i].get()] = fn->getArg(static_cast<unsigned>(i));
  builder_->SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "entry", fn));
  VisitStmt(body);
  builder_->CreateRet(builder_->getInt32(0));
  function_ = saved_fn;
  var_map_ = std::move(saved_map);
  builder_->restoreIP(saved_ip);
  return fn;
}

llvm::Value* CodeGenLLVM::OutlineAndCall(const Stmt& body, const std::string& name,
                                         const std::vector<Var>& extra_params,
                                         const std::vector<llvm::Value*>& extra_args) {
  std::vector<Var> params = UndefinedVars(body, extra_params);
  std::vector<llvm::Value*> args;
  for (const Var& v : params) args.push_back(GetVar(v.get()));
  for (size_t i = 0; i < extra_params.size(); ++i) {
    params.push_back(extra_params[i]);
    args.push_back(extra_args[i]);
  }
  llvm::Function* fn = CreateOutlinedFunction(body, name, params);
  return builder_->CreateCall(fn, args);
}

void CodeGenLLVM::EmitParallelFor(const ForNode* op) {
  DataType it = op->loop_var.dtype();
  std::string base = function_name_ + "_par" + std::to_string(outline_counter_++);
  Var begin_var(op->loop_var->name_hint.str() + "_begin", it);
  Var end_var(op->loop_var->name_hint.str() + "_end", it);
  Stmt loop = For(op->loop_var, begin_var, end_var - begin_var, ForKind::kSerial, op->body);
  std::vector<Var> captured = UndefinedVars(loop, {begin_var, end_var});

  // The closure: captured values, then the loop's min and extent as i64.
  std::vector<llvm::Type*> field_types;
  for (const Var& v : captured) field_types.push_back(LLVMType(v.dtype()));
  field_types.push_back(builder_->getInt64Ty());
  field_types.push_back(builder_->getInt64Ty());
  llvm::StructType* closure_ty = llvm::StructType::create(*ctx_, field_types, base + "_closure");
  llvm::AllocaInst* closure = EntryAlloca(closure_ty, 1, 8, base + "_closure");
  for (size_t i = 0; i < captured.size(); ++i) {
    builder_->CreateStore(GetVar(captured[i].get()),
                          builder_->CreateStructGEP(closure_ty, closure, i));
  }
  llvm::Value* min = Cast(op->min.dtype(), DataType::Int(64), VisitExpr(op->min));
  llvm::Value* extent = Cast(op->extent.dtype(), DataType::Int(64), VisitExpr(op->extent));
  builder_->CreateStore(min, builder_->CreateStructGEP(closure_ty, closure, captured.size()));
  builder_->CreateStore(extent,
                        builder_->CreateStructGEP(closure_ty, closure, captured.size() + 1));

  // The body function: noalias buffer pointers, loops over [begin, end).
  std::vector<Var> params = captured;
  params.push_back(begin_var);
  params.push_back(end_var);
  ++parallel_depth_;
  llvm::Function* body_fn = CreateOutlinedFunction(loop, base + "_body", params);
  --parallel_depth_;

  // The task function: i32 (task_id, num_task, closure).
  auto* i32 = builder_->getInt32Ty();
  auto* i64 = builder_->getInt64Ty();
  auto* ptr = builder_->getPtrTy();
  auto* lambda_ty = llvm::FunctionType::get(i32, {i32, i32, ptr}, false);
  llvm::Function* lambda =
      llvm::Function::Create(lambda_ty, llvm::Function::InternalLinkage, base, module_.get());
  SetFunctionAttributes(lambda);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(*ctx_, "entry", lambda));
    llvm::Value* task = b.CreateSExt(lambda->getArg(0), i64);
    llvm::Value* ntask = b.CreateSExt(lambda->getArg(1), i64);
    llvm::Value* cdata = lambda->getArg(2);
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < captured.size(); ++i) {
      args.push_back(b.CreateLoad(field_types[i], b.CreateStructGEP(closure_ty, cdata, i),
                                  captured[i]->name_hint.str()));
    }
    llvm::Value* lo = b.CreateLoad(i64, b.CreateStructGEP(closure_ty, cdata, captured.size()));
    llvm::Value* ext = b.CreateLoad(i64, b.CreateStructGEP(closure_ty, cdata, captured.size() + 1));
    // Task t runs [lo + t*ext/n, lo + (t+1)*ext/n): sizes differ by at most one iteration
    // (ceil-sized chunks would leave 9 iterations on 8 tasks as 2,2,2,2,1,0,0,0). The runtime
    // usually makes several tasks per thread (MTVMBackendParallelLaunch) and hands them out
    // dynamically, so a thread that is slow or preempted gives its remaining tasks away.
    llvm::Value* start = b.CreateAdd(lo, b.CreateSDiv(b.CreateMul(task, ext), ntask));
    llvm::Value* stop =
        b.CreateAdd(lo, b.CreateSDiv(b.CreateMul(b.CreateAdd(task, b.getInt64(1)), ext), ntask));
    llvm::BasicBlock* run = llvm::BasicBlock::Create(*ctx_, "run", lambda);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(*ctx_, "done", lambda);
    b.CreateCondBr(b.CreateICmpSLT(start, stop), run, done);
    b.SetInsertPoint(run);
    llvm::Type* itype = LLVMType(it);
    args.push_back(b.CreateIntCast(start, itype, true));
    args.push_back(b.CreateIntCast(stop, itype, true));
    b.CreateRet(b.CreateCall(body_fn, args));
    b.SetInsertPoint(done);
    b.CreateRet(b.getInt32(0));
  }

  // Launch on the pool and propagate a failure.
  auto* launch_ty = llvm::FunctionType::get(i32, {ptr, ptr, i32}, false);
  llvm::Value* launch = builder_->CreateLoad(ptr, HookPointer(runtime_cpu::kParallelLaunchSymbol));
  llvm::Value* rc =
      builder_->CreateCall(launch_ty, launch, {lambda, closure, builder_->getInt32(0)});
  ReturnOnError(rc);
}

void CodeGenLLVM::FinalizeVectorWidthAttributes() {
  for (llvm::Function& fn : *module_) {
    if (fn.isDeclaration()) continue;
    uint64_t widest = 0;
    for (llvm::BasicBlock& bb : fn) {
      for (llvm::Instruction& inst : bb) {
        if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(inst.getType())) {
          widest = std::max<uint64_t>(widest, vt->getPrimitiveSizeInBits().getFixedValue());
        }
      }
    }
    // Tell the backend that the vector widths the schedule asked for are meant (on AVX-512
    // targets that prefer 256-bit vectors it would otherwise split 512-bit operations).
    if (widest > 128)
      fn.addFnAttr("min-legal-vector-width", std::to_string(std::min<uint64_t>(widest, 512)));
  }
}

std::unique_ptr<llvm::Module> CodeGenLLVM::Finish(const std::string& entry) {
  for (const char* hook : {runtime_cpu::kParallelLaunchSymbol, runtime_cpu::kAllocWorkspaceSymbol,
                           runtime_cpu::kFreeWorkspaceSymbol, runtime_cpu::kSetErrorSymbol}) {
    HookPointer(hook);
  }
  std::string info = runtime_cpu::MakeModuleInfo(entry, function_names_);
  llvm::Constant* data = llvm::ConstantDataArray::getString(*ctx_, info, true);
  auto* gv =
      new llvm::GlobalVariable(*module_, data->getType(), true, llvm::GlobalValue::ExternalLinkage,
                               data, runtime_cpu::kModuleInfoSymbol);
  gv->setVisibility(llvm::GlobalValue::DefaultVisibility);
  FinalizeVectorWidthAttributes();
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*module_, &os)) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM produced an invalid LLVM module: " << os.str();
  }
  return std::move(module_);
}

}  // namespace codegen
}  // namespace minitvm
