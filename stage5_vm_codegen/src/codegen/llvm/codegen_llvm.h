/*!
 * \file codegen_llvm.h
 * \brief CodeGenLLVM (stage 5): translates lowered TIR (after the default pipeline, including
 * MakePackedAPI) into an LLVM module for the CPU.
 *
 * The shape of the generated code, for a PrimFunc `main`:
 *  - `i32 main(args, type_codes, num_args, ret, ret_code, resource)`: the packed entry. It
 *    runs the argument checks and calls
 *  - `i32 main_compute_(ptr noalias align 64 A, ...)`: the original body, outlined from the
 *    "compute_scope" attribute, with one parameter per variable it uses; buffer pointers are
 *    `noalias` when the function has "tir.noalias", so LLVM may keep values in registers
 *    across stores.
 *  - each parallel loop becomes `i32 main_compute__par<k>(task, ntask, closure)` which loads
 *    the captured values and calls `main_compute__par<k>_body(ptr noalias ..., begin, end)`;
 *    the thread pool runs one task per thread. Accumulators stay inside the body function,
 *    never in the closure.
 *  - vector expressions (Ramp/Broadcast lanes) become LLVM vector instructions; a contiguous
 *    Ramp index is one vector load/store; any other vector index is done lane by lane (never
 *    a gather).
 *  - vector exp, log, tanh, erf (and so sigmoid), exp2, log2, log10 call glibc's libmvec
 *    (`_ZGVdN8v_expf` for float32x8 on AVX2, ...) instead of libm once per lane.
 *  - small constant-size allocations are `alloca`s in the entry block (SROA/mem2reg promote
 *    them to registers once their indices are constants); large or dynamic ones come from
 *    the runtime workspace allocator.
 * Runtime services are reached through the module's hook variables (backend_api.h).
 */
#ifndef MINITVM_STAGE5_CODEGEN_LLVM_CODEGEN_LLVM_H_
#define MINITVM_STAGE5_CODEGEN_LLVM_CODEGEN_LLVM_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "llvm_common.h"
#include "minitvm/ir/module.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace codegen {

using tir::Buffer;
using tir::PrimFunc;
using tir::Stmt;
using tir::Var;

/*! \brief Generates one LLVM module from the PrimFuncs of an IRModule. */
class CodeGenLLVM : public tir::ExprFunctor<llvm::Value*(const PrimExpr&)>,
                    public tir::StmtFunctor<void(const Stmt&)> {
 public:
  CodeGenLLVM(llvm::LLVMContext* ctx, const LLVMTarget& target, llvm::TargetMachine* tm);
  ~CodeGenLLVM() override;
  /*! \brief Start a module. */
  void Init(const std::string& module_name);
  /*! \brief Add a lowered PrimFunc (packed API) under its global symbol. */
  void AddFunction(const std::string& name, const PrimFunc& func);
  /*! \brief Emit the module description and hooks, verify; returns the module. */
  std::unique_ptr<llvm::Module> Finish(const std::string& entry);
  /*! \brief Names of the packed functions added so far. */
  const std::vector<std::string>& function_names() const { return function_names_; }
  /*! \brief Whether the module calls glibc's libmvec (a shared library must link -lmvec). */
  bool uses_libmvec() const { return uses_libmvec_; }

  // ---- expressions (codegen_llvm.cc) ----
  using tir::ExprFunctor<llvm::Value*(const PrimExpr&)>::VisitExpr;
  llvm::Value* VisitExpr_(const tir::VarNode* op) override;
  llvm::Value* VisitExpr_(const tir::SizeVarNode* op) override;
  llvm::Value* VisitExpr_(const IntImmNode* op) override;
  llvm::Value* VisitExpr_(const FloatImmNode* op) override;
  llvm::Value* VisitExpr_(const tir::StringImmNode* op) override;
  llvm::Value* VisitExpr_(const tir::CastNode* op) override;
  llvm::Value* VisitExpr_(const tir::AddNode* op) override;
  llvm::Value* VisitExpr_(const tir::SubNode* op) override;
  llvm::Value* VisitExpr_(const tir::MulNode* op) override;
  llvm::Value* VisitExpr_(const tir::DivNode* op) override;
  llvm::Value* VisitExpr_(const tir::ModNode* op) override;
  llvm::Value* VisitExpr_(const tir::FloorDivNode* op) override;
  llvm::Value* VisitExpr_(const tir::FloorModNode* op) override;
  llvm::Value* VisitExpr_(const tir::MinNode* op) override;
  llvm::Value* VisitExpr_(const tir::MaxNode* op) override;
  llvm::Value* VisitExpr_(const tir::EQNode* op) override;
  llvm::Value* VisitExpr_(const tir::NENode* op) override;
  llvm::Value* VisitExpr_(const tir::LTNode* op) override;
  llvm::Value* VisitExpr_(const tir::LENode* op) override;
  llvm::Value* VisitExpr_(const tir::GTNode* op) override;
  llvm::Value* VisitExpr_(const tir::GENode* op) override;
  llvm::Value* VisitExpr_(const tir::AndNode* op) override;
  llvm::Value* VisitExpr_(const tir::OrNode* op) override;
  llvm::Value* VisitExpr_(const tir::NotNode* op) override;
  llvm::Value* VisitExpr_(const tir::SelectNode* op) override;
  llvm::Value* VisitExpr_(const tir::BufferLoadNode* op) override;
  llvm::Value* VisitExpr_(const tir::RampNode* op) override;
  llvm::Value* VisitExpr_(const tir::BroadcastNode* op) override;
  llvm::Value* VisitExpr_(const tir::LetNode* op) override;
  llvm::Value* VisitExpr_(const tir::CallNode* op) override;

  // ---- statements (codegen_llvm_stmt.cc) ----
  using tir::StmtFunctor<void(const Stmt&)>::VisitStmt;
  void VisitStmt_(const tir::BufferStoreNode* op) override;
  void VisitStmt_(const tir::ForNode* op) override;
  void VisitStmt_(const tir::WhileNode* op) override;
  void VisitStmt_(const tir::IfThenElseNode* op) override;
  void VisitStmt_(const tir::SeqStmtNode* op) override;
  void VisitStmt_(const tir::EvaluateNode* op) override;
  void VisitStmt_(const tir::LetStmtNode* op) override;
  void VisitStmt_(const tir::AssertStmtNode* op) override;
  void VisitStmt_(const tir::AllocateNode* op) override;
  /*! \brief A T.allocate_const as a private constant global array. */
  void EmitConstAllocate(const tir::AllocateNode* op, llvm::Type* elem);
  void VisitStmt_(const tir::DeclBufferNode* op) override;
  void VisitStmt_(const tir::AttrStmtNode* op) override;
  void VisitStmt_(const tir::BlockNode* op) override;
  void VisitStmt_(const tir::BlockRealizeNode* op) override;

 private:
  friend class FunctionScope;
  // types and values
  llvm::Type* LLVMType(DataType t) const;
  /*! \brief The in-memory type of an element (bool is stored as i8). */
  llvm::Type* MemType(DataType t) const;
  llvm::Value* Cast(DataType from, DataType to, llvm::Value* v);
  llvm::Value* Splat(llvm::Value* scalar, int lanes);
  llvm::Value* ConstInt(DataType t, int64_t v);
  llvm::Value* GetVar(const tir::VarNode* v);
  void BindVar(const Var& var, llvm::Value* value);
  /*! \brief Known alignment in bytes of `buffer.data + index` elements. */
  int64_t AccessAlignment(const Buffer& buffer, const PrimExpr& index, int lanes);
  llvm::Value* ElementPtr(const Buffer& buffer, llvm::Value* index);
  llvm::Value* CreateLoad(const Buffer& buffer, const PrimExpr& index, DataType dtype);
  void CreateStore(const Buffer& buffer, const PrimExpr& index, llvm::Value* value, DataType dtype);
  // arithmetic helpers
  llvm::Value* CreateFloorDiv(DataType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* CreateFloorMod(DataType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* CreateCompare(DataType t, llvm::CmpInst::Predicate ipred_signed,
                             llvm::CmpInst::Predicate ipred_unsigned,
                             llvm::CmpInst::Predicate fpred, llvm::Value* a, llvm::Value* b);
  llvm::Value* CreateMath(const std::string& op, DataType t, const std::vector<llvm::Value*>& args);
  llvm::Value* CallLibm(const std::string& name, DataType t, const std::vector<llvm::Value*>& args);
  /*!
   * \brief `name` (a libm name such as "exp", or "pow" of two vectors) on every lane of the
   * float32/float64 vectors `xs` through libmvec's vector variants, or nullptr when the
   * target has none for it.
   */
  llvm::Value* CallVectorLibm(const std::string& name, DataType t,
                              const std::vector<llvm::Value*>& xs);
  llvm::Value* CreateStructGet(const tir::CallNode* op);
  llvm::Value* CreateIfThenElseExpr(const tir::CallNode* op);
  llvm::Value* CreateCallExtern(const tir::CallNode* op);
  // control flow helpers
  llvm::BasicBlock* NewBlock(const std::string& name);
  void CreateSerialLoop(const Var& loop_var, llvm::Value* begin, llvm::Value* end, const Stmt& body,
                        llvm::MDNode* loop_md);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, uint64_t count, unsigned align,
                                const std::string& name);
  llvm::Value* StringConstant(const std::string& s);
  /*! \brief Return `code` from the current function when it is non-zero. */
  void ReturnOnError(llvm::Value* code);
  // functions (codegen_llvm_func.cc)
  llvm::Function* DeclareHookCallee(const char* symbol, llvm::FunctionType* type,
                                    llvm::Value** callee);
  llvm::Value* HookPointer(const char* symbol);
  /*! \brief Outline `body` as an internal function of `params` (+ `extra`); returns the call. */
  llvm::Value* OutlineAndCall(const Stmt& body, const std::string& name,
                              const std::vector<Var>& extra_params,
                              const std::vector<llvm::Value*>& extra_args);
  llvm::Function* CreateOutlinedFunction(const Stmt& body, const std::string& name,
                                         const std::vector<Var>& params);
  void EmitParallelFor(const tir::ForNode* op);
  void SetFunctionAttributes(llvm::Function* fn);
  void FinalizeVectorWidthAttributes();

  llvm::LLVMContext* ctx_;
  LLVMTarget target_;
  llvm::TargetMachine* tm_;
  std::unique_ptr<llvm::Module> module_;
  std::unique_ptr<llvm::IRBuilder<>> builder_;
  const llvm::DataLayout* data_layout_ = nullptr;
  llvm::Function* function_ = nullptr;
  std::string function_name_;
  std::unordered_map<const tir::VarNode*, llvm::Value*> var_map_;
  /*! \brief Known alignment (bytes) of pointer variables. */
  std::unordered_map<const tir::VarNode*, int64_t> ptr_align_;
  /*! \brief Whether buffer pointers of the current PrimFunc may be marked noalias. */
  bool noalias_ = false;
  /*! \brief Depth of parallel loops being generated (nested ones run serially). */
  int parallel_depth_ = 0;
  int outline_counter_ = 0;
  std::vector<std::string> function_names_;
  std::unordered_map<std::string, llvm::Value*> string_constants_;
  llvm::StructType* dltensor_type_ = nullptr;
  /*!
   * \brief The x86 vector-function-ABI ISAs whose libmvec variants the target can call, widest
   * first: (mangling letter, vector bits), e.g. {('d', 256), ('b', 128)} for AVX2. Empty when
   * vector math goes lane by lane (not x86-64 glibc, no libmvec, MINITVM_LLVM_VECMATH=0).
   */
  std::vector<std::pair<char, int>> vector_isas_;
  bool uses_libmvec_ = false;
};

}  // namespace codegen
}  // namespace minitvm

#endif  // MINITVM_STAGE5_CODEGEN_LLVM_CODEGEN_LLVM_H_
