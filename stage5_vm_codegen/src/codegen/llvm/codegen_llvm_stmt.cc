/*!
 * \file codegen_llvm_stmt.cc
 * \brief CodeGenLLVM, part 2 (stage 5): statements — stores, loops, branches, lets,
 * asserts that report formatted errors, allocations (entry-block allocas or workspace).
 */
#include <llvm/IR/MDBuilder.h>

#include "../../tir/transform/ir_utils.h"
#include "codegen_llvm.h"
#include "minitvm/runtime_cpu/backend_api.h"
#include "minitvm/tir/allocate_const.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace codegen {

using namespace tir;  // NOLINT(build/namespaces)

namespace {
/*! \brief Allocations up to this size (bytes) live on the stack; larger ones on the heap. */
constexpr int64_t kMaxStackAllocBytes = 64 * 1024;

/*!
 * \brief The exact value of an integer expression of constants (+, *, casts), or nullopt when it
 * is not constant. `*overflow` is set when a step does not fit int64 or the dtype it is computed
 * in: the arithmetic folding leaves such products unfolded, and the generated code would wrap.
 */
std::optional<int64_t> FoldChecked(const PrimExpr& e, bool* overflow) {
  auto fits = [&](int64_t v, DataType t) {
    if (t.bits() < 64 &&
        (v < -(int64_t{1} << (t.bits() - 1)) || v > (int64_t{1} << (t.bits() - 1)) - 1)) {
      *overflow = true;
    }
    return v;
  };
  if (auto* imm = e.as<IntImmNode>()) return imm->value;
  if (auto* c = e.as<CastNode>()) {
    auto v = FoldChecked(c->value, overflow);
    return v ? std::optional<int64_t>(fits(*v, c->dtype)) : std::nullopt;
  }
  const PrimExpr *a = nullptr, *b = nullptr;
  bool mul = false;
  if (auto* m = e.as<MulNode>()) a = &m->a, b = &m->b, mul = true;
  if (auto* m = e.as<AddNode>()) a = &m->a, b = &m->b;
  if (a == nullptr) return std::nullopt;
  auto x = FoldChecked(*a, overflow), y = FoldChecked(*b, overflow);
  if (!x || !y) return std::nullopt;
  int64_t r = 0;
  if (mul ? __builtin_mul_overflow(*x, *y, &r) : __builtin_add_overflow(*x, *y, &r)) {
    *overflow = true;
    return 0;
  }
  return fits(r, e.dtype());
}
}  // namespace

llvm::BasicBlock* CodeGenLLVM::NewBlock(const std::string& name) {
  return llvm::BasicBlock::Create(*ctx_, name, function_);
}

llvm::AllocaInst* CodeGenLLVM::EntryAlloca(llvm::Type* type, uint64_t count, unsigned align,
                                           const std::string& name) {
  llvm::BasicBlock& entry = function_->getEntryBlock();
  llvm::IRBuilder<> b(&entry, entry.getFirstInsertionPt());
  // A fixed array type (not an array-size operand): SROA splits those into scalars.
  llvm::Type* t = count == 1 ? type : llvm::ArrayType::get(type, count);
  llvm::AllocaInst* a = b.CreateAlloca(t, nullptr, name);
  a->setAlignment(llvm::Align(align));
  return a;
}

void CodeGenLLVM::ReturnOnError(llvm::Value* code) {
  llvm::BasicBlock* fail = NewBlock("error");
  llvm::BasicBlock* ok = NewBlock("ok");
  llvm::Value* is_err = builder_->CreateICmpNE(code, builder_->getInt32(0));
  llvm::MDBuilder md(*ctx_);
  builder_->CreateCondBr(is_err, fail, ok, md.createBranchWeights(1, 1 << 20));
  builder_->SetInsertPoint(fail);
  builder_->CreateRet(code);
  builder_->SetInsertPoint(ok);
}

void CodeGenLLVM::VisitStmt_(const BufferStoreNode* op) {
  if (op->indices.size() != 1) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM: store to " << op->buffer->name << " has "
                                 << op->indices.size()
                                 << " indices; run FlattenBuffer (the default pipeline) first";
  }
  llvm::Value* value = VisitExpr(op->value);
  CreateStore(op->buffer, op->indices[0], value, op->value.dtype());
}

void CodeGenLLVM::CreateSerialLoop(const Var& loop_var, llvm::Value* begin, llvm::Value* end,
                                   const Stmt& body, llvm::MDNode* loop_md) {
  llvm::BasicBlock* pre = builder_->GetInsertBlock();
  llvm::BasicBlock* header = NewBlock("for_header_" + loop_var->name_hint.str());
  llvm::BasicBlock* body_bb = NewBlock("for_body_" + loop_var->name_hint.str());
  llvm::BasicBlock* latch = NewBlock("for_latch_" + loop_var->name_hint.str());
  llvm::BasicBlock* exit = NewBlock("for_end_" + loop_var->name_hint.str());
  builder_->CreateBr(header);
  builder_->SetInsertPoint(header);
  llvm::PHINode* phi = builder_->CreatePHI(begin->getType(), 2, loop_var->name_hint.str());
  phi->addIncoming(begin, pre);
  bool is_signed = loop_var.dtype().is_int();
  llvm::Value* cond =
      is_signed ? builder_->CreateICmpSLT(phi, end) : builder_->CreateICmpULT(phi, end);
  builder_->CreateCondBr(cond, body_bb, exit);
  builder_->SetInsertPoint(body_bb);
  var_map_[loop_var.get()] = phi;
  VisitStmt(body);
  builder_->CreateBr(latch);
  builder_->SetInsertPoint(latch);
  llvm::Value* one = llvm::ConstantInt::get(begin->getType(), 1);
  llvm::Value* next = is_signed ? builder_->CreateNSWAdd(phi, one) : builder_->CreateAdd(phi, one);
  llvm::Instruction* back = builder_->CreateBr(header);
  if (loop_md) back->setMetadata(llvm::LLVMContext::MD_loop, loop_md);
  phi->addIncoming(next, latch);
  builder_->SetInsertPoint(exit);
}

void CodeGenLLVM::VisitStmt_(const ForNode* op) {
  if (op->kind == ForKind::kParallel && parallel_depth_ == 0) {
    EmitParallelFor(op);
    return;
  }
  if (op->kind == ForKind::kThreadBinding) {
    MINITVM_THROW(ValueError) << "CodeGenLLVM: loop " << op->loop_var->name_hint
                              << " is bound to a GPU thread axis; build it for target \"cuda\"";
  }
  llvm::Value* begin = VisitExpr(op->min);
  llvm::Value* extent = VisitExpr(op->extent);
  bool is_signed = op->loop_var.dtype().is_int();
  llvm::Value* end =
      is_signed ? builder_->CreateNSWAdd(begin, extent) : builder_->CreateAdd(begin, extent);
  llvm::MDNode* md = nullptr;
  if (op->kind == ForKind::kUnrolled) {
    // An unroll loop UnrollLoop could not copy out (symbolic extent): ask LLVM.
    llvm::MDNode* self = llvm::MDNode::getTemporary(*ctx_, {}).release();
    llvm::Metadata* enable =
        llvm::MDNode::get(*ctx_, {llvm::MDString::get(*ctx_, "llvm.loop.unroll.enable")});
    md = llvm::MDNode::getDistinct(*ctx_, {self, enable});
    md->replaceOperandWith(0, md);
    llvm::MDNode::deleteTemporary(self);
  }
  CreateSerialLoop(op->loop_var, begin, end, op->body, md);
}

void CodeGenLLVM::VisitStmt_(const WhileNode* op) {
  llvm::BasicBlock* header = NewBlock("while_header");
  llvm::BasicBlock* body = NewBlock("while_body");
  llvm::BasicBlock* exit = NewBlock("while_end");
  builder_->CreateBr(header);
  builder_->SetInsertPoint(header);
  builder_->CreateCondBr(VisitExpr(op->condition), body, exit);
  builder_->SetInsertPoint(body);
  VisitStmt(op->body);
  builder_->CreateBr(header);
  builder_->SetInsertPoint(exit);
}

void CodeGenLLVM::VisitStmt_(const IfThenElseNode* op) {
  llvm::Value* cond = VisitExpr(op->condition);
  if (op->condition.dtype().lanes() > 1) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM: an if statement on a vector condition";
  }
  llvm::BasicBlock* then_bb = NewBlock("if_then");
  llvm::BasicBlock* end_bb = NewBlock("if_end");
  llvm::BasicBlock* else_bb = op->else_case.defined() ? NewBlock("if_else") : end_bb;
  builder_->CreateCondBr(cond, then_bb, else_bb);
  builder_->SetInsertPoint(then_bb);
  VisitStmt(op->then_case);
  builder_->CreateBr(end_bb);
  if (op->else_case.defined()) {
    builder_->SetInsertPoint(else_bb);
    VisitStmt(op->else_case);
    builder_->CreateBr(end_bb);
  }
  builder_->SetInsertPoint(end_bb);
}

void CodeGenLLVM::VisitStmt_(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}

void CodeGenLLVM::VisitStmt_(const EvaluateNode* op) {
  if (op->value.as<IntImmNode>() || op->value.as<FloatImmNode>()) return;
  VisitExpr(op->value);
}

void CodeGenLLVM::VisitStmt_(const LetStmtNode* op) {
  llvm::Value* v = VisitExpr(op->value);
  BindVar(op->var, v);
  VisitStmt(op->body);
}

void CodeGenLLVM::VisitStmt_(const AssertStmtNode* op) {
  if (IsConstTrue(op->condition)) {
    VisitStmt(op->body);
    return;
  }
  llvm::Value* cond = VisitExpr(op->condition);
  llvm::BasicBlock* fail = NewBlock("assert_fail");
  llvm::BasicBlock* ok = NewBlock("assert_ok");
  llvm::MDBuilder md(*ctx_);
  builder_->CreateCondBr(cond, ok, fail, md.createBranchWeights(1 << 20, 1));
  builder_->SetInsertPoint(fail);
  // Message: a string, or the format intrinsic with run-time values.
  std::string fmt;
  std::vector<PrimExpr> values;
  if (auto* s = op->message.as<StringImmNode>()) {
    fmt = s->value.str();
  } else if (auto* c = op->message.as<CallNode>(); c && c->op.str() == kFormatErrorOp) {
    fmt = c->args[0].as<StringImmNode>()->value.str();
    for (size_t i = 1; i < c->args.size(); ++i) values.push_back(c->args[i]);
  } else {
    fmt = "RuntimeError: assertion failed";
  }
  llvm::Value* array = llvm::ConstantPointerNull::get(builder_->getPtrTy());
  if (!values.empty()) {
    array = EntryAlloca(builder_->getInt64Ty(), values.size(), 8, "error_values");
    for (size_t i = 0; i < values.size(); ++i) {
      llvm::Value* v = Cast(values[i].dtype(), DataType::Int(64), VisitExpr(values[i]));
      builder_->CreateStore(
          v, builder_->CreateInBoundsGEP(builder_->getInt64Ty(), array, builder_->getInt64(i)));
    }
  }
  auto* fty = llvm::FunctionType::get(
      builder_->getVoidTy(), {builder_->getPtrTy(), builder_->getInt32Ty(), builder_->getPtrTy()},
      false);
  llvm::Value* fn =
      builder_->CreateLoad(builder_->getPtrTy(), HookPointer(runtime_cpu::kSetErrorSymbol));
  builder_->CreateCall(
      fty, fn, {StringConstant(fmt), builder_->getInt32(static_cast<int>(values.size())), array});
  builder_->CreateRet(builder_->getInt32(-1));
  builder_->SetInsertPoint(ok);
  VisitStmt(op->body);
}

void CodeGenLLVM::EmitConstAllocate(const AllocateNode* op, llvm::Type* elem) {
  // T.allocate_const: a private read-only global array holding the values. A store into it
  // would fault at run time, so it is refused here.
  const VarNode* var = op->buffer_var.get();
  PostOrderVisit(op->body, [&](const ObjectRef& n) {
    if (const auto* store = n.as<BufferStoreNode>()) {
      if (store->buffer->data.get() == var) {
        MINITVM_THROW(ValueError) << "allocate_const " << var->name_hint
                                  << " is read-only, but buffer " << store->buffer->name
                                  << " stores into it";
      }
    }
  });
  std::vector<llvm::Constant*> values;
  for (const PrimExpr& x : AllocateConstData(op)) {
    if (const auto* fi = x.as<FloatImmNode>()) {
      values.push_back(llvm::ConstantFP::get(elem, fi->value));
    } else {
      values.push_back(llvm::ConstantInt::get(elem, x.as<IntImmNode>()->value, true));
    }
  }
  auto* array_ty = llvm::ArrayType::get(elem, values.size());
  auto* global = new llvm::GlobalVariable(
      *module_, array_ty, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantArray::get(array_ty, values), "__const_" + var->name_hint.str());
  global->setAlignment(llvm::Align(64));
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  var_map_[var] = global;
  ptr_align_[var] = 64;
  VisitStmt(op->body);
}

void CodeGenLLVM::VisitStmt_(const AllocateNode* op) {
  PrimExpr size = ShapeProduct(op->extents);
  llvm::Type* elem = MemType(op->dtype);
  int64_t elem_bytes = static_cast<int64_t>(data_layout_->getTypeAllocSize(elem));
  // A constant size that overflows would wrap in the generated code: a tiny allocation written
  // far out of bounds. Refuse it here instead.
  bool overflow = false;
  std::optional<int64_t> count = FoldChecked(size, &overflow);
  int64_t total_bytes = 0;
  if (overflow ||
      (count && (*count < 0 || __builtin_mul_overflow(*count, elem_bytes, &total_bytes)))) {
    MINITVM_THROW(ValueError) << "allocation of " << op->buffer_var->name_hint << ": the size "
                              << runtime::Repr(size) << " (elements of " << op->dtype
                              << ") overflows its integer type"
                              << (size.dtype().bits() < 64 ? " (use int64 shapes)" : "");
  }
  if (!AllocateConstData(op).empty()) {
    EmitConstAllocate(op, elem);
    return;
  }
  std::string scope = op->scope.str();
  bool local = scope == "local" || scope.rfind("local.", 0) == 0;
  if (count && *count >= 0 && (local || *count * elem_bytes <= kMaxStackAllocBytes) &&
      *count * elem_bytes <= (int64_t(1) << 24)) {
    // A constant-size array in the entry block: SROA/mem2reg can promote it to registers.
    llvm::AllocaInst* a =
        EntryAlloca(elem, std::max<int64_t>(*count, 1), 64, op->buffer_var->name_hint.str());
    var_map_[op->buffer_var.get()] = a;
    ptr_align_[op->buffer_var.get()] = 64;
    VisitStmt(op->body);
    return;
  }
  // Large or dynamic: from the runtime workspace allocator, freed at the end of the scope.
  llvm::Value* nbytes = builder_->CreateMul(Cast(size.dtype(), DataType::Int(64), VisitExpr(size)),
                                            builder_->getInt64(elem_bytes));
  auto* alloc_ty = llvm::FunctionType::get(builder_->getPtrTy(),
                                           {builder_->getInt64Ty(), builder_->getInt32Ty()}, false);
  llvm::Value* alloc_fn =
      builder_->CreateLoad(builder_->getPtrTy(), HookPointer(runtime_cpu::kAllocWorkspaceSymbol));
  llvm::CallInst* ptr = builder_->CreateCall(alloc_ty, alloc_fn, {nbytes, builder_->getInt32(64)});
  ptr->setName(op->buffer_var->name_hint.str());
  // Out of memory is an error of the call, not a crash.
  llvm::BasicBlock* fail = NewBlock("alloc_fail");
  llvm::BasicBlock* ok = NewBlock("alloc_ok");
  builder_->CreateCondBr(builder_->CreateIsNull(ptr), fail, ok);
  builder_->SetInsertPoint(fail);
  {
    auto* fty = llvm::FunctionType::get(
        builder_->getVoidTy(), {builder_->getPtrTy(), builder_->getInt32Ty(), builder_->getPtrTy()},
        false);
    llvm::Value* fn =
        builder_->CreateLoad(builder_->getPtrTy(), HookPointer(runtime_cpu::kSetErrorSymbol));
    builder_->CreateCall(
        fty, fn,
        {StringConstant("RuntimeError: out of memory allocating " +
                        op->buffer_var->name_hint.str()),
         builder_->getInt32(0), llvm::ConstantPointerNull::get(builder_->getPtrTy())});
    builder_->CreateRet(builder_->getInt32(-1));
  }
  builder_->SetInsertPoint(ok);
  var_map_[op->buffer_var.get()] = ptr;
  ptr_align_[op->buffer_var.get()] = 64;
  VisitStmt(op->body);
  auto* free_ty = llvm::FunctionType::get(builder_->getInt32Ty(), {builder_->getPtrTy()}, false);
  llvm::Value* free_fn =
      builder_->CreateLoad(builder_->getPtrTy(), HookPointer(runtime_cpu::kFreeWorkspaceSymbol));
  builder_->CreateCall(free_ty, free_fn, {ptr});
}

void CodeGenLLVM::VisitStmt_(const DeclBufferNode* op) { VisitStmt(op->body); }

void CodeGenLLVM::VisitStmt_(const AttrStmtNode* op) {
  if (op->attr_key.str() == "compute_scope") {
    auto* name = op->value.as<StringImmNode>();
    std::string fname = name ? name->value.str() : function_name_ + "_compute_";
    llvm::Value* rc = OutlineAndCall(op->body, fname, {}, {});
    ReturnOnError(rc);
    return;
  }
  VisitStmt(op->body);
}

void CodeGenLLVM::VisitStmt_(const BlockNode* op) {
  MINITVM_THROW(InternalError) << "CodeGenLLVM: block \"" << op->name_hint
                               << "\" was not lowered; run the default TIR pipeline first";
}
void CodeGenLLVM::VisitStmt_(const BlockRealizeNode* op) {
  MINITVM_THROW(InternalError) << "CodeGenLLVM: block \"" << op->block->name_hint
                               << "\" was not lowered; run the default TIR pipeline first";
}

}  // namespace codegen
}  // namespace minitvm
