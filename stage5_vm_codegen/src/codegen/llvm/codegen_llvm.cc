/*!
 * \file codegen_llvm.cc
 * \brief CodeGenLLVM, part 1 (stage 5): types, constants, casts and every TIR expression —
 * arithmetic with TIR's integer semantics (truncating Div/Mod, flooring FloorDiv/FloorMod),
 * vector Ramp/Broadcast, buffer loads (one vector load for a contiguous Ramp index, lane by
 * lane otherwise), and intrinsic calls mapped to LLVM intrinsics, libm, or — for vectors of
 * exp, log, tanh, erf, ... — glibc's libmvec.
 */
#include "codegen_llvm.h"

#include <dlfcn.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/TargetParser/Triple.h>

#include <cstdlib>
#include <map>
#include <numeric>

#include "../../tir/transform/ir_utils.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace codegen {

using namespace tir;  // NOLINT(build/namespaces): the IR vocabulary

namespace {

/*!
 * \brief glibc's libmvec, loaded once into the process with RTLD_GLOBAL so that the JIT's
 * process-symbol search finds its functions; nullptr when it cannot be loaded (not glibc).
 */
void* LibmvecHandle() {
  static void* const handle = dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
  return handle;
}

/*! \brief Whether MINITVM_LLVM_VECMATH=0 asks for the old lane-by-lane libm calls. */
bool VectorMathDisabled() {
  const char* v = std::getenv("MINITVM_LLVM_VECMATH");
  return v && std::string(v) == "0";
}

}  // namespace

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext* ctx, const LLVMTarget& target, llvm::TargetMachine* tm)
    : ctx_(ctx), target_(target), tm_(tm) {}

CodeGenLLVM::~CodeGenLLVM() = default;

void CodeGenLLVM::Init(const std::string& module_name) {
  module_ = std::make_unique<llvm::Module>(module_name, *ctx_);
  module_->setTargetTriple(target_.triple);
  module_->setDataLayout(tm_->createDataLayout());
  data_layout_ = &module_->getDataLayout();
  builder_ = std::make_unique<llvm::IRBuilder<>>(*ctx_);
  // Vector math through libmvec: the x86 vector function ABI variants the target CPU can run,
  // widest first. 'e' (AVX-512, zmm), 'd' (AVX2, ymm), 'c' (AVX, ymm), 'b' (SSE2, xmm).
  vector_isas_.clear();
  uses_libmvec_ = false;
  llvm::Triple triple(target_.triple);
  if (triple.getArch() == llvm::Triple::x86_64 && triple.isOSLinux() && triple.isGNUEnvironment() &&
      !VectorMathDisabled() && LibmvecHandle()) {
    const llvm::MCSubtargetInfo* sti = tm_->getMCSubtargetInfo();
    if (sti->checkFeatures("+avx512f")) vector_isas_.push_back({'e', 512});
    if (sti->checkFeatures("+avx2")) {
      vector_isas_.push_back({'d', 256});
    } else if (sti->checkFeatures("+avx")) {
      vector_isas_.push_back({'c', 256});
    }
    vector_isas_.push_back({'b', 128});
  }
  // Allow a*b+c to become one fused multiply-add, as C compilers do by default; nothing
  // else of fast-math (no reassociation, NaNs and infinities keep their meaning).
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);
  builder_->setFastMathFlags(fmf);
  // DLTensor {data, {device_type, device_id}, ndim, {code, bits, lanes}, shape, strides,
  // byte_offset}
  auto* i8 = llvm::Type::getInt8Ty(*ctx_);
  auto* i16 = llvm::Type::getInt16Ty(*ctx_);
  auto* i32 = llvm::Type::getInt32Ty(*ctx_);
  auto* i64 = llvm::Type::getInt64Ty(*ctx_);
  auto* ptr = llvm::PointerType::getUnqual(*ctx_);
  dltensor_type_ =
      llvm::StructType::create(*ctx_,
                               {ptr, llvm::StructType::get(*ctx_, {i32, i32}), i32,
                                llvm::StructType::get(*ctx_, {i8, i8, i16}), ptr, ptr, i64},
                               "DLTensor");
}

// ---- types and values --------------------------------------------------------------------

llvm::Type* CodeGenLLVM::LLVMType(DataType t) const {
  llvm::Type* elem = nullptr;
  if (t.is_handle()) {
    elem = llvm::PointerType::getUnqual(*ctx_);
  } else if (t.is_void()) {
    return llvm::Type::getVoidTy(*ctx_);
  } else if (t.is_float()) {
    switch (t.bits()) {
      case 16:
        elem = llvm::Type::getHalfTy(*ctx_);
        break;
      case 32:
        elem = llvm::Type::getFloatTy(*ctx_);
        break;
      case 64:
        elem = llvm::Type::getDoubleTy(*ctx_);
        break;
      default:
        MINITVM_THROW(ValueError) << "CodeGenLLVM: unsupported float type " << t;
    }
  } else if (t.is_int() || t.is_uint() || t.is_bfloat16()) {
    elem = llvm::Type::getIntNTy(*ctx_, t.bits());
  } else {
    MINITVM_THROW(ValueError) << "CodeGenLLVM: unsupported type " << t;
  }
  if (t.lanes() > 1) return llvm::FixedVectorType::get(elem, t.lanes());
  return elem;
}

llvm::Type* CodeGenLLVM::MemType(DataType t) const {
  if (t.is_bool()) return LLVMType(DataType::Int(8, t.lanes()));
  return LLVMType(t);
}

llvm::Value* CodeGenLLVM::ConstInt(DataType t, int64_t v) {
  return llvm::ConstantInt::getSigned(LLVMType(t), v);
}

llvm::Value* CodeGenLLVM::Splat(llvm::Value* scalar, int lanes) {
  if (lanes <= 1) return scalar;
  return builder_->CreateVectorSplat(lanes, scalar);
}

llvm::Value* CodeGenLLVM::GetVar(const VarNode* v) {
  auto it = var_map_.find(v);
  if (it == var_map_.end()) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM: variable " << v->name_hint
                                 << " is used but not defined in " << function_name_;
  }
  return it->second;
}

void CodeGenLLVM::BindVar(const Var& var, llvm::Value* value) {
  if (!value->hasName() && !llvm::isa<llvm::Constant>(value)) value->setName(var->name_hint.str());
  var_map_[var.get()] = value;
}

llvm::Value* CodeGenLLVM::Cast(DataType from, DataType to, llvm::Value* v) {
  if (from == to) return v;
  llvm::Type* target = LLVMType(to);
  if (from.lanes() == 1 && to.lanes() > 1) {
    v = Cast(from, to.element_of(), v);
    return Splat(v, to.lanes());
  }
  if (to.is_bool()) {
    if (from.is_float())
      return builder_->CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    if (from.is_handle()) return builder_->CreateIsNotNull(v);
    return builder_->CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (from.is_handle() && to.is_handle()) return v;
  if (from.is_handle()) return builder_->CreatePtrToInt(v, target);
  if (to.is_handle()) return builder_->CreateIntToPtr(v, target);
  bool from_int = from.is_int() || from.is_uint();
  bool to_int = to.is_int() || to.is_uint();
  if (from_int && to_int) return builder_->CreateIntCast(v, target, from.is_int());
  if (from_int && to.is_float()) {
    return from.is_int() ? builder_->CreateSIToFP(v, target) : builder_->CreateUIToFP(v, target);
  }
  if (from.is_float() && to_int) {
    return to.is_int() ? builder_->CreateFPToSI(v, target) : builder_->CreateFPToUI(v, target);
  }
  if (from.is_float() && to.is_float()) return builder_->CreateFPCast(v, target);
  MINITVM_THROW(ValueError) << "CodeGenLLVM: cannot cast " << from << " to " << to;
}

// ---- leaves ------------------------------------------------------------------------------

llvm::Value* CodeGenLLVM::VisitExpr_(const VarNode* op) { return GetVar(op); }
llvm::Value* CodeGenLLVM::VisitExpr_(const SizeVarNode* op) { return GetVar(op); }

llvm::Value* CodeGenLLVM::VisitExpr_(const IntImmNode* op) {
  if (op->dtype.is_bool()) return llvm::ConstantInt::get(LLVMType(op->dtype), op->value != 0);
  return ConstInt(op->dtype, op->value);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const FloatImmNode* op) {
  return llvm::ConstantFP::get(LLVMType(op->dtype), op->value);
}

llvm::Value* CodeGenLLVM::StringConstant(const std::string& s) {
  auto it = string_constants_.find(s);
  if (it != string_constants_.end()) return it->second;
  llvm::Constant* data = llvm::ConstantDataArray::getString(*ctx_, s, true);
  auto* gv = new llvm::GlobalVariable(*module_, data->getType(), true,
                                      llvm::GlobalValue::PrivateLinkage, data, ".str");
  gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  gv->setAlignment(llvm::Align(1));
  string_constants_[s] = gv;
  return gv;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const StringImmNode* op) {
  return StringConstant(op->value.str());
}

llvm::Value* CodeGenLLVM::VisitExpr_(const CastNode* op) {
  return Cast(op->value.dtype(), op->dtype, VisitExpr(op->value));
}

// ---- arithmetic --------------------------------------------------------------------------

namespace {
bool IsSigned(DataType t) { return t.is_int(); }
}  // namespace

llvm::Value* CodeGenLLVM::VisitExpr_(const AddNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (op->dtype.is_float()) return builder_->CreateFAdd(a, b);
  return IsSigned(op->dtype) ? builder_->CreateNSWAdd(a, b) : builder_->CreateAdd(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const SubNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (op->dtype.is_float()) return builder_->CreateFSub(a, b);
  return IsSigned(op->dtype) ? builder_->CreateNSWSub(a, b) : builder_->CreateSub(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const MulNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (op->dtype.is_float()) return builder_->CreateFMul(a, b);
  return IsSigned(op->dtype) ? builder_->CreateNSWMul(a, b) : builder_->CreateMul(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const DivNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (op->dtype.is_float()) return builder_->CreateFDiv(a, b);
  return IsSigned(op->dtype) ? builder_->CreateSDiv(a, b) : builder_->CreateUDiv(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const ModNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (op->dtype.is_float()) return builder_->CreateFRem(a, b);
  return IsSigned(op->dtype) ? builder_->CreateSRem(a, b) : builder_->CreateURem(a, b);
}

llvm::Value* CodeGenLLVM::CreateFloorDiv(DataType t, llvm::Value* a, llvm::Value* b) {
  if (t.is_float()) {
    return CreateMath("tir.floor", t, {builder_->CreateFDiv(a, b)});
  }
  if (t.is_uint()) return builder_->CreateUDiv(a, b);
  // q = a / b (truncating); subtract 1 when the remainder is non-zero and the signs differ.
  llvm::Value* q = builder_->CreateSDiv(a, b);
  llvm::Value* r = builder_->CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* fix = builder_->CreateAnd(
      builder_->CreateICmpNE(r, zero),
      builder_->CreateICmpNE(builder_->CreateICmpSLT(r, zero), builder_->CreateICmpSLT(b, zero)));
  return builder_->CreateSub(q, builder_->CreateZExt(fix, a->getType()));
}

llvm::Value* CodeGenLLVM::CreateFloorMod(DataType t, llvm::Value* a, llvm::Value* b) {
  if (t.is_float()) {
    llvm::Value* q = CreateMath("tir.floor", t, {builder_->CreateFDiv(a, b)});
    return builder_->CreateFSub(a, builder_->CreateFMul(q, b));
  }
  if (t.is_uint()) return builder_->CreateURem(a, b);
  llvm::Value* r = builder_->CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* fix = builder_->CreateAnd(
      builder_->CreateICmpNE(r, zero),
      builder_->CreateICmpNE(builder_->CreateICmpSLT(r, zero), builder_->CreateICmpSLT(b, zero)));
  return builder_->CreateSelect(fix, builder_->CreateAdd(r, b), r);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const FloorDivNode* op) {
  return CreateFloorDiv(op->dtype, VisitExpr(op->a), VisitExpr(op->b));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const FloorModNode* op) {
  return CreateFloorMod(op->dtype, VisitExpr(op->a), VisitExpr(op->b));
}

llvm::Value* CodeGenLLVM::VisitExpr_(const MinNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  llvm::Value* lt = op->dtype.is_float()  ? builder_->CreateFCmpOLT(a, b)
                    : IsSigned(op->dtype) ? builder_->CreateICmpSLT(a, b)
                                          : builder_->CreateICmpULT(a, b);
  return builder_->CreateSelect(lt, a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const MaxNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  llvm::Value* gt = op->dtype.is_float()  ? builder_->CreateFCmpOGT(a, b)
                    : IsSigned(op->dtype) ? builder_->CreateICmpSGT(a, b)
                                          : builder_->CreateICmpUGT(a, b);
  return builder_->CreateSelect(gt, a, b);
}

llvm::Value* CodeGenLLVM::CreateCompare(DataType t, llvm::CmpInst::Predicate is,
                                        llvm::CmpInst::Predicate iu, llvm::CmpInst::Predicate fp,
                                        llvm::Value* a, llvm::Value* b) {
  if (t.is_float()) return builder_->CreateFCmp(fp, a, b);
  if (t.is_handle()) return builder_->CreateICmp(iu, a, b);
  return builder_->CreateICmp(t.is_int() ? is : iu, a, b);
}

#define MINITVM_CMP(Node, IS, IU, FP)                                                            \
  llvm::Value* CodeGenLLVM::VisitExpr_(const Node* op) {                                         \
    return CreateCompare(op->a.dtype(), llvm::CmpInst::IS, llvm::CmpInst::IU, llvm::CmpInst::FP, \
                         VisitExpr(op->a), VisitExpr(op->b));                                    \
  }
MINITVM_CMP(EQNode, ICMP_EQ, ICMP_EQ, FCMP_OEQ)
MINITVM_CMP(NENode, ICMP_NE, ICMP_NE, FCMP_UNE)
MINITVM_CMP(LTNode, ICMP_SLT, ICMP_ULT, FCMP_OLT)
MINITVM_CMP(LENode, ICMP_SLE, ICMP_ULE, FCMP_OLE)
MINITVM_CMP(GTNode, ICMP_SGT, ICMP_UGT, FCMP_OGT)
MINITVM_CMP(GENode, ICMP_SGE, ICMP_UGE, FCMP_OGE)
#undef MINITVM_CMP

llvm::Value* CodeGenLLVM::VisitExpr_(const AndNode* op) {
  return builder_->CreateAnd(VisitExpr(op->a), VisitExpr(op->b));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const OrNode* op) {
  return builder_->CreateOr(VisitExpr(op->a), VisitExpr(op->b));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const NotNode* op) {
  return builder_->CreateNot(VisitExpr(op->a));
}

llvm::Value* CodeGenLLVM::VisitExpr_(const SelectNode* op) {
  llvm::Value* c = VisitExpr(op->condition);
  llvm::Value* t = VisitExpr(op->true_value);
  llvm::Value* f = VisitExpr(op->false_value);
  return builder_->CreateSelect(c, t, f);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const RampNode* op) {
  llvm::Value* base = VisitExpr(op->base);
  llvm::Value* stride = VisitExpr(op->stride);
  DataType t = op->base.dtype();
  std::vector<llvm::Constant*> offsets;
  auto* st = llvm::cast<llvm::IntegerType>(base->getType());
  for (int64_t i = 0; i < op->lanes; ++i) offsets.push_back(llvm::ConstantInt::get(st, i));
  llvm::Value* lane = llvm::ConstantVector::get(offsets);
  llvm::Value* vstride = Splat(stride, static_cast<int>(op->lanes));
  llvm::Value* vbase = Splat(base, static_cast<int>(op->lanes));
  llvm::Value* step =
      t.is_int() ? builder_->CreateNSWMul(lane, vstride) : builder_->CreateMul(lane, vstride);
  return t.is_int() ? builder_->CreateNSWAdd(vbase, step) : builder_->CreateAdd(vbase, step);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const BroadcastNode* op) {
  return Splat(VisitExpr(op->value), static_cast<int>(op->lanes));
}

llvm::Value* CodeGenLLVM::VisitExpr_(const LetNode* op) {
  BindVar(op->var, VisitExpr(op->value));
  return VisitExpr(op->body);
}

// ---- memory ------------------------------------------------------------------------------

namespace {
/*! \brief The largest integer every value of `e` is known to be a multiple of (0: any). */
int64_t KnownMultiple(const PrimExpr& e) {
  if (auto* imm = e.as<IntImmNode>()) return imm->value < 0 ? -imm->value : imm->value;
  if (auto* m = e.as<MulNode>()) {
    int64_t a = KnownMultiple(m->a), b = KnownMultiple(m->b);
    if (a == 0 || b == 0) return 0;
    if (a > (int64_t(1) << 30) || b > (int64_t(1) << 30)) return int64_t(1) << 30;
    return a * b;
  }
  if (auto* a = e.as<AddNode>()) return std::gcd(KnownMultiple(a->a), KnownMultiple(a->b));
  if (auto* s = e.as<SubNode>()) return std::gcd(KnownMultiple(s->a), KnownMultiple(s->b));
  if (auto* r = e.as<RampNode>()) return KnownMultiple(r->base);
  if (auto* c = e.as<CastNode>()) return KnownMultiple(c->value);
  return 1;
}
}  // namespace

int64_t CodeGenLLVM::AccessAlignment(const Buffer& buffer, const PrimExpr& index, int lanes) {
  int64_t elem = std::max(1, buffer->dtype.element_of().bytes());
  if (buffer->dtype.is_bool()) elem = 1;
  int64_t base = elem;
  auto it = ptr_align_.find(buffer->data.get());
  if (it != ptr_align_.end()) base = std::max(base, it->second);
  int64_t mult = KnownMultiple(index);
  int64_t offset_align = mult == 0 ? base : (mult * elem) & -(mult * elem);  // lowest set bit
  int64_t align = std::min(base, offset_align);
  // No point in claiming more than the access size.
  int64_t access = elem * lanes;
  int64_t access_pow2 = 1;
  while (access_pow2 * 2 <= access) access_pow2 *= 2;
  return std::max<int64_t>(elem, std::min(align, std::max(access_pow2, elem)));
}

llvm::Value* CodeGenLLVM::ElementPtr(const Buffer& buffer, llvm::Value* index) {
  llvm::Value* base = GetVar(buffer->data.get());
  llvm::Type* elem = MemType(buffer->dtype);
  return builder_->CreateInBoundsGEP(elem, base, index);
}

llvm::Value* CodeGenLLVM::CreateLoad(const Buffer& buffer, const PrimExpr& index, DataType dtype) {
  DataType elem_t = buffer->dtype;
  llvm::Type* mem_elem = MemType(elem_t);
  int lanes = dtype.lanes() / std::max(1, elem_t.lanes());
  if (index.dtype().lanes() == 1) {
    llvm::Value* ptr = ElementPtr(buffer, VisitExpr(index));
    unsigned align = static_cast<unsigned>(AccessAlignment(buffer, index, 1));
    llvm::Value* v = builder_->CreateAlignedLoad(mem_elem, ptr, llvm::Align(align));
    if (elem_t.is_bool()) v = builder_->CreateTrunc(v, LLVMType(elem_t));
    return v;
  }
  auto* ramp = index.as<RampNode>();
  if (ramp && AsConstInt(ramp->stride) == std::optional<int64_t>(1) && elem_t.lanes() == 1) {
    // Contiguous: one vector load.
    llvm::Value* ptr = ElementPtr(buffer, VisitExpr(ramp->base));
    llvm::Type* vec = llvm::FixedVectorType::get(mem_elem, lanes);
    unsigned align = static_cast<unsigned>(AccessAlignment(buffer, index, lanes));
    llvm::Value* v = builder_->CreateAlignedLoad(vec, ptr, llvm::Align(align));
    if (elem_t.is_bool()) v = builder_->CreateTrunc(v, LLVMType(dtype));
    return v;
  }
  // Any other vector index: lane by lane.
  llvm::Value* idx = VisitExpr(index);
  llvm::Value* result = llvm::UndefValue::get(LLVMType(dtype));
  unsigned align = static_cast<unsigned>(std::max(1, elem_t.bytes()));
  for (int l = 0; l < lanes; ++l) {
    llvm::Value* i = builder_->CreateExtractElement(idx, builder_->getInt32(l));
    llvm::Value* v =
        builder_->CreateAlignedLoad(mem_elem, ElementPtr(buffer, i), llvm::Align(align));
    if (elem_t.is_bool()) v = builder_->CreateTrunc(v, LLVMType(elem_t));
    result = builder_->CreateInsertElement(result, v, builder_->getInt32(l));
  }
  return result;
}

void CodeGenLLVM::CreateStore(const Buffer& buffer, const PrimExpr& index, llvm::Value* value,
                              DataType dtype) {
  DataType elem_t = buffer->dtype;
  llvm::Type* mem_elem = MemType(elem_t);
  int lanes = dtype.lanes() / std::max(1, elem_t.lanes());
  if (elem_t.is_bool()) value = builder_->CreateZExt(value, MemType(dtype));
  if (index.dtype().lanes() == 1) {
    llvm::Value* ptr = ElementPtr(buffer, VisitExpr(index));
    unsigned align = static_cast<unsigned>(AccessAlignment(buffer, index, 1));
    builder_->CreateAlignedStore(value, ptr, llvm::Align(align));
    return;
  }
  auto* ramp = index.as<RampNode>();
  if (ramp && AsConstInt(ramp->stride) == std::optional<int64_t>(1) && elem_t.lanes() == 1) {
    llvm::Value* ptr = ElementPtr(buffer, VisitExpr(ramp->base));
    unsigned align = static_cast<unsigned>(AccessAlignment(buffer, index, lanes));
    builder_->CreateAlignedStore(value, ptr, llvm::Align(align));
    return;
  }
  unsigned align = static_cast<unsigned>(std::max(1, elem_t.bytes()));
  if (ramp && AsConstInt(ramp->stride) && elem_t.lanes() == 1) {
    // A constant stride (a transposed store): each lane at a constant offset from one address,
    // instead of taking a vector of indices apart lane by lane (about 2x fewer instructions).
    llvm::Value* ptr = ElementPtr(buffer, VisitExpr(ramp->base));
    int64_t stride = *AsConstInt(ramp->stride);
    for (int l = 0; l < lanes; ++l) {
      llvm::Value* at = builder_->CreateInBoundsGEP(mem_elem, ptr, builder_->getInt64(l * stride));
      llvm::Value* v = builder_->CreateExtractElement(value, builder_->getInt32(l));
      builder_->CreateAlignedStore(v, at, llvm::Align(align));
    }
    return;
  }
  llvm::Value* idx = VisitExpr(index);
  for (int l = 0; l < lanes; ++l) {
    llvm::Value* i = builder_->CreateExtractElement(idx, builder_->getInt32(l));
    llvm::Value* v = builder_->CreateExtractElement(value, builder_->getInt32(l));
    builder_->CreateAlignedStore(v, ElementPtr(buffer, i), llvm::Align(align));
  }
  (void)mem_elem;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const BufferLoadNode* op) {
  if (op->indices.size() != 1) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM: access to " << op->buffer->name << " has "
                                 << op->indices.size()
                                 << " indices; run FlattenBuffer (the default pipeline) first";
  }
  return CreateLoad(op->buffer, op->indices[0], op->dtype);
}

// ---- calls -------------------------------------------------------------------------------

llvm::Value* CodeGenLLVM::CallLibm(const std::string& name, DataType t,
                                   const std::vector<llvm::Value*>& args) {
  DataType elem = t.element_of();
  std::string fname = elem.bits() == 64 ? name : name + "f";
  llvm::Type* ft = LLVMType(elem.bits() == 64 ? elem : DataType::Float(32));
  std::vector<llvm::Type*> params(args.size(), ft);
  llvm::FunctionCallee callee =
      module_->getOrInsertFunction(fname, llvm::FunctionType::get(ft, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setOnlyAccessesInaccessibleMemory();
  }
  auto scalar_call = [&](std::vector<llvm::Value*> a) {
    for (auto& x : a) {
      if (elem.bits() == 16) x = builder_->CreateFPExt(x, ft);
    }
    llvm::Value* r = builder_->CreateCall(callee, a);
    if (elem.bits() == 16) r = builder_->CreateFPTrunc(r, LLVMType(elem));
    return r;
  };
  if (t.lanes() == 1) return scalar_call(args);
  llvm::Value* result = llvm::UndefValue::get(LLVMType(t));
  for (int l = 0; l < t.lanes(); ++l) {
    std::vector<llvm::Value*> a;
    for (llvm::Value* x : args)
      a.push_back(builder_->CreateExtractElement(x, builder_->getInt32(l)));
    result = builder_->CreateInsertElement(result, scalar_call(a), builder_->getInt32(l));
  }
  return result;
}

llvm::Value* CodeGenLLVM::CallVectorLibm(const std::string& name, DataType t,
                                         const std::vector<llvm::Value*>& xs) {
  // The widths (in lanes) libmvec offers this target for `name`, e.g. {8: "_ZGVdN8v_expf",
  // 4: "_ZGVbN4v_expf"} for float32 on AVX2 ("vv" for the two vector arguments of pow). Only
  // symbols this process's libmvec has: glibc before 2.35 has exp and log but no tanh or erf.
  int bits = t.bits();
  std::string suffix = std::string(xs.size(), 'v') + "_" + name + (bits == 32 ? "f" : "");
  std::map<int, std::string> variants;
  for (const auto& [isa, vector_bits] : vector_isas_) {
    int width = vector_bits / bits;
    std::string symbol = "_ZGV" + std::string(1, isa) + "N" + std::to_string(width) + suffix;
    if (!variants.count(width) && dlsym(LibmvecHandle(), symbol.c_str())) {
      variants[width] = symbol;
    }
  }
  if (variants.empty()) return nullptr;
  uses_libmvec_ = true;
  int lanes = t.lanes();
  llvm::Type* elem_type = LLVMType(t.element_of());
  auto call_variant = [&](int width, const std::vector<llvm::Value*>& vs) {
    llvm::Type* vt = llvm::FixedVectorType::get(elem_type, width);
    std::vector<llvm::Type*> params(vs.size(), vt);
    llvm::FunctionCallee callee =
        module_->getOrInsertFunction(variants[width], llvm::FunctionType::get(vt, params, false));
    if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
      fn->setDoesNotThrow();
      fn->setOnlyAccessesInaccessibleMemory();
    }
    return builder_->CreateCall(callee, vs);
  };
  // Cut the vectors into pieces: the widest variant while it fits, then the narrowest one
  // that covers the rest, padded with 1.0 (no special case in any of the functions, pow(1, 1)
  // included); a single remaining lane calls libm.
  if (variants.count(lanes)) return call_variant(lanes, xs);
  llvm::Type* vector_type = xs[0]->getType();
  llvm::Value* result = llvm::PoisonValue::get(vector_type);
  llvm::Value* pad = llvm::ConstantFP::get(vector_type, 1.0);
  int widest = variants.rbegin()->first;
  for (int pos = 0; pos < lanes;) {
    int rest = lanes - pos;
    int width = rest >= widest ? widest : variants.lower_bound(rest)->first;
    int count = std::min(width, rest);
    llvm::Value* piece;
    if (count == 1) {
      std::vector<llvm::Value*> lane;
      for (llvm::Value* x : xs) {
        lane.push_back(builder_->CreateExtractElement(x, builder_->getInt32(pos)));
      }
      llvm::Value* r = CallLibm(name, t.element_of(), lane);
      piece = builder_->CreateInsertElement(llvm::PoisonValue::get(vector_type), r,
                                            builder_->getInt32(0));
    } else {
      // Lanes pos .. pos+count-1 of each argument, then padding.
      std::vector<int> take(width);
      for (int i = 0; i < width; ++i) take[i] = i < count ? pos + i : lanes;
      std::vector<llvm::Value*> parts;
      for (llvm::Value* x : xs) parts.push_back(builder_->CreateShuffleVector(x, pad, take));
      piece = call_variant(width, parts);
      // Back to `lanes` lanes so that it can be shuffled into the result.
      std::vector<int> widen(lanes);
      for (int i = 0; i < lanes; ++i) widen[i] = i < width ? i : -1;
      piece = builder_->CreateShuffleVector(piece, widen);
    }
    std::vector<int> merge(lanes);
    for (int i = 0; i < lanes; ++i) {
      merge[i] = i >= pos && i < pos + count ? lanes + (i - pos) : i;
    }
    result = builder_->CreateShuffleVector(result, piece, merge);
    pos += count;
  }
  return result;
}

llvm::Value* CodeGenLLVM::CreateMath(const std::string& op, DataType t,
                                     const std::vector<llvm::Value*>& args) {
  // How to emit `op` comes from the intrinsic table (tir/builtin.h): "TExternName" is the libm
  // function (libmvec has vector variants of each), "TLLVMIntrinsic" the LLVM intrinsic.
  std::optional<Op> intrinsic = tir::GetIntrinsic(op);
  std::string libm = intrinsic ? tir::GetIntrinsicString(*intrinsic, tir::attr::kExternName) : "";
  std::string llvm_name =
      intrinsic ? tir::GetIntrinsicString(*intrinsic, tir::attr::kLLVMIntrinsic) : "";
  llvm::Intrinsic::ID llvm_id = llvm_name.empty() ? llvm::Intrinsic::not_intrinsic
                                                  : llvm::Function::lookupIntrinsicID(llvm_name);
  if (!llvm_name.empty() && llvm_id == llvm::Intrinsic::not_intrinsic) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM: " << op << " names the LLVM intrinsic "
                                 << llvm_name << ", which this LLVM does not have";
  }
  if (!t.is_float()) {
    MINITVM_THROW(TypeError) << "CodeGenLLVM: " << op << " needs a float argument, got " << t;
  }
  // A vector: one libmvec call per 4/8/16 lanes instead of one libm call per lane (LLVM
  // scalarises llvm.exp.v8f32 into eight expf calls). float16 is computed in float32.
  if (!libm.empty() && t.lanes() > 1 && !vector_isas_.empty()) {
    bool half = t.bits() == 16;
    DataType ct = half ? DataType::Float(32, t.lanes()) : t;
    std::vector<llvm::Value*> xs = args;
    if (half) {
      for (auto& x : xs) x = builder_->CreateFPExt(x, LLVMType(ct));
    }
    if (llvm::Value* r = CallVectorLibm(libm, ct, xs)) {
      return half ? builder_->CreateFPTrunc(r, LLVMType(t)) : r;
    }
  }
  if (llvm_id != llvm::Intrinsic::not_intrinsic) {
    std::vector<llvm::Value*> a = args;
    bool half = t.bits() == 16 && llvm_id != llvm::Intrinsic::fabs;
    DataType ct = half ? DataType::Float(32, t.lanes()) : t;
    if (half) {
      for (auto& x : a) x = builder_->CreateFPExt(x, LLVMType(ct));
    }
    llvm::Function* f = llvm::Intrinsic::getDeclaration(module_.get(), llvm_id, {LLVMType(ct)});
    llvm::Value* r = builder_->CreateCall(f, a);
    return half ? builder_->CreateFPTrunc(r, LLVMType(t)) : r;
  }
  if (!libm.empty()) return CallLibm(libm, t, args);
  if (op == "tir.sigmoid") {
    if (t.bits() == 16) {  // all in float32, rounded once
      DataType ct = DataType::Float(32, t.lanes());
      llvm::Value* r = CreateMath(op, ct, {builder_->CreateFPExt(args[0], LLVMType(ct))});
      return builder_->CreateFPTrunc(r, LLVMType(t));
    }
    // e = exp(-|x|) never overflows: sigmoid(x) = 1 / (1 + e) for x >= 0 and e / (1 + e) for
    // x < 0, which keeps the tiny (even denormal) results for x < -88 where 1 / (1 + exp(-x))
    // gives 0. NaN stays NaN (e is NaN).
    llvm::Value* x = args[0];
    llvm::Value* one = llvm::ConstantFP::get(LLVMType(t), 1.0);
    llvm::Value* zero = llvm::ConstantFP::get(LLVMType(t), 0.0);
    llvm::Value* e =
        CreateMath("tir.exp", t, {builder_->CreateFNeg(CreateMath("tir.fabs", t, {x}))});
    llvm::Value* num = builder_->CreateSelect(builder_->CreateFCmpOLT(x, zero), e, one);
    return builder_->CreateFDiv(num, builder_->CreateFAdd(one, e));
  }
  if (op == "tir.rsqrt") {
    llvm::Value* one = llvm::ConstantFP::get(LLVMType(t), 1.0);
    return builder_->CreateFDiv(one, CreateMath("tir.sqrt", t, args));
  }
  MINITVM_THROW(ValueError) << "CodeGenLLVM: unsupported intrinsic " << op;
}

llvm::Value* CodeGenLLVM::CreateStructGet(const CallNode* op) {
  llvm::Value* handle = VisitExpr(op->args[0]);
  int64_t index = *AsConstInt(op->args[1]);
  int kind = static_cast<int>(*AsConstInt(op->args[2]));
  llvm::Type* rt = LLVMType(op->dtype);
  auto* i32 = builder_->getInt32Ty();
  if (kind == kPackedArgValue) {
    llvm::Value* ptr =
        builder_->CreateInBoundsGEP(builder_->getInt64Ty(), handle, builder_->getInt64(index));
    return builder_->CreateAlignedLoad(rt, ptr, llvm::Align(8));
  }
  if (kind == kPackedArgTypeCode) {
    llvm::Value* ptr = builder_->CreateInBoundsGEP(i32, handle, builder_->getInt64(index));
    return builder_->CreateAlignedLoad(rt, ptr, llvm::Align(4));
  }
  llvm::Value* tensor =
      builder_->CreateInBoundsGEP(dltensor_type_, handle, builder_->getInt64(index));
  if (kind == kArrAddr) return tensor;
  std::vector<llvm::Value*> path = {builder_->getInt32(0)};
  switch (kind) {
    case kArrData:
      path.push_back(builder_->getInt32(0));
      break;
    case kArrDeviceType:
      path.push_back(builder_->getInt32(1)), path.push_back(builder_->getInt32(0));
      break;
    case kArrDeviceId:
      path.push_back(builder_->getInt32(1)), path.push_back(builder_->getInt32(1));
      break;
    case kArrNDim:
      path.push_back(builder_->getInt32(2));
      break;
    case kArrTypeCode:
      path.push_back(builder_->getInt32(3)), path.push_back(builder_->getInt32(0));
      break;
    case kArrTypeBits:
      path.push_back(builder_->getInt32(3)), path.push_back(builder_->getInt32(1));
      break;
    case kArrTypeLanes:
      path.push_back(builder_->getInt32(3)), path.push_back(builder_->getInt32(2));
      break;
    case kArrShape:
      path.push_back(builder_->getInt32(4));
      break;
    case kArrStrides:
      path.push_back(builder_->getInt32(5));
      break;
    case kArrByteOffset:
      path.push_back(builder_->getInt32(6));
      break;
    default:
      MINITVM_THROW(InternalError) << "tvm_struct_get: unknown field " << kind;
  }
  llvm::Value* field = builder_->CreateInBoundsGEP(dltensor_type_, tensor, path);
  llvm::Type* ft = llvm::GetElementPtrInst::getIndexedType(dltensor_type_, path);
  llvm::Value* v = builder_->CreateLoad(ft, field);
  if (ft != rt) v = builder_->CreateIntCast(v, rt, false);
  return v;
}

llvm::Value* CodeGenLLVM::CreateIfThenElseExpr(const CallNode* op) {
  llvm::Value* cond = VisitExpr(op->args[0]);
  if (op->args[0].dtype().lanes() > 1) {
    return builder_->CreateSelect(cond, VisitExpr(op->args[1]), VisitExpr(op->args[2]));
  }
  // Scalar: only the taken side runs (it may load out of bounds otherwise).
  llvm::BasicBlock* then_bb = NewBlock("if_then");
  llvm::BasicBlock* else_bb = NewBlock("if_else");
  llvm::BasicBlock* end_bb = NewBlock("if_end");
  builder_->CreateCondBr(cond, then_bb, else_bb);
  builder_->SetInsertPoint(then_bb);
  llvm::Value* t = VisitExpr(op->args[1]);
  then_bb = builder_->GetInsertBlock();
  builder_->CreateBr(end_bb);
  builder_->SetInsertPoint(else_bb);
  llvm::Value* f = VisitExpr(op->args[2]);
  else_bb = builder_->GetInsertBlock();
  builder_->CreateBr(end_bb);
  builder_->SetInsertPoint(end_bb);
  llvm::PHINode* phi = builder_->CreatePHI(t->getType(), 2);
  phi->addIncoming(t, then_bb);
  phi->addIncoming(f, else_bb);
  return phi;
}

llvm::Value* CodeGenLLVM::CreateCallExtern(const CallNode* op) {
  auto* name = op->args[0].as<StringImmNode>();
  if (!name)
    MINITVM_THROW(ValueError) << "call_extern: the first argument must be the function name";
  std::vector<llvm::Type*> types;
  std::vector<llvm::Value*> args;
  for (size_t i = 1; i < op->args.size(); ++i) {
    if (op->args[i].dtype().lanes() > 1) {
      MINITVM_THROW(ValueError) << "call_extern " << name->value
                                << ": vector arguments are not supported";
    }
    args.push_back(VisitExpr(op->args[i]));
    types.push_back(args.back()->getType());
  }
  llvm::FunctionCallee callee = module_->getOrInsertFunction(
      name->value.str(), llvm::FunctionType::get(LLVMType(op->dtype), types, false));
  return builder_->CreateCall(callee, args);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const CallNode* op) {
  const std::string& name = op->op.str();
  if (name == "tir.tvm_struct_get") return CreateStructGet(op);
  if (name == "tir.if_then_else") return CreateIfThenElseExpr(op);
  if (name == "tir.likely") return VisitExpr(op->args[0]);
  if (name == "tir.assume") {
    // A promise the optimiser may use: llvm.assume(cond); the expression's value is true.
    llvm::Value* cond = VisitExpr(op->args[0]);
    if (cond->getType()->isIntegerTy(1)) {
      builder_->CreateCall(llvm::Intrinsic::getDeclaration(module_.get(), llvm::Intrinsic::assume),
                           {cond});
    }
    return builder_->getTrue();
  }
  if (name == "tir.isnullptr") return builder_->CreateIsNull(VisitExpr(op->args[0]));
  if (name == "tir.minitvm.ptr_add_bytes") {
    return builder_->CreateGEP(builder_->getInt8Ty(), VisitExpr(op->args[0]),
                               VisitExpr(op->args[1]));
  }
  if (name == "tir.minitvm.ptr_to_int") {
    return builder_->CreatePtrToInt(VisitExpr(op->args[0]), LLVMType(op->dtype));
  }
  if (name == "tir.reinterpret") {
    return builder_->CreateBitCast(VisitExpr(op->args[0]), LLVMType(op->dtype));
  }
  if (name == "tir.call_extern") return CreateCallExtern(op);
  if (name == kFormatErrorOp) {
    MINITVM_THROW(InternalError) << "CodeGenLLVM: " << name << " outside an assert message";
  }
  std::vector<llvm::Value*> args;
  for (const PrimExpr& a : op->args) args.push_back(VisitExpr(a));
  return CreateMath(name, op->dtype, args);
}

}  // namespace codegen
}  // namespace minitvm
