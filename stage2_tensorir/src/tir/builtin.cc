/*!
 * \file builtin.cc
 * \brief The table of TIR intrinsics (stage 2): every `tir.*` name a `tir::Call` may use is
 * registered here as an operator with its arity and properties (see `tir/builtin.h`).
 *
 * The math intrinsics are one row each: name, reference implementation (whose arity gives the
 * number of inputs), whether VectorizeLoop may apply it lane-wise, its TVMScript spelling
 * (empty when TVMScript keeps it as `T.call_intrin`), and how the LLVM back end emits it (an
 * LLVM intrinsic, a libm/libmvec function, or neither when the back end lowers it itself, as
 * sigmoid and rsqrt). The interpreter, the printer and parser, the vectorizer and the code
 * generator read these attributes instead of keeping lists of their own, so adding a math
 * intrinsic is one row here.
 */
#include "minitvm/tir/builtin.h"

#include <cmath>
#include <mutex>
#include <unordered_map>

namespace minitvm {
namespace tir {

MathReference::MathReference(UnaryMathFn f) {
  auto n = make_object<MathReferenceNode>();
  n->unary = f;
  data_ = std::move(n);
}

MathReference::MathReference(BinaryMathFn f) {
  auto n = make_object<MathReferenceNode>();
  n->binary = f;
  data_ = std::move(n);
}

namespace {

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Rsqrt(double x) { return 1.0 / std::sqrt(x); }
double Exp10(double x) { return std::pow(10.0, x); }

/*! \brief One math intrinsic. Exactly one of `unary` and `binary` is set. */
struct MathIntrinsic {
  const char* name;     ///< without the "tir." prefix
  UnaryMathFn unary;    ///< reference implementation of a one-operand intrinsic
  BinaryMathFn binary;  ///< reference implementation of a two-operand intrinsic
  bool vectorizable;    ///< VectorizeLoop applies it lane-wise
  const char* script;   ///< `T.<script>` in TVMScript, or "" (kept as T.call_intrin)
  const char* llvm;     ///< LLVM intrinsic, or ""
  const char* libm;     ///< libm function (float32 adds "f"; libmvec has vector variants), or ""
};

constexpr bool kVec = true;
constexpr bool kNoVec = false;
constexpr UnaryMathFn kNoUnary = nullptr;
constexpr BinaryMathFn kNoBinary = nullptr;

// clang-format off
const MathIntrinsic kMathIntrinsics[] = {
  // name       unary reference                          binary     vectorize script     llvm              libm
  {"exp",       [](double x) { return std::exp(x); },   kNoBinary, kVec, "exp",     "llvm.exp",       "exp"},
  {"exp2",      [](double x) { return std::exp2(x); },  kNoBinary, kVec, "",        "llvm.exp2",      "exp2"},
  {"exp10",     &Exp10,                                  kNoBinary, kNoVec, "",       "",               ""},
  {"log",       [](double x) { return std::log(x); },   kNoBinary, kVec, "log",     "llvm.log",       "log"},
  {"log2",      [](double x) { return std::log2(x); },  kNoBinary, kVec, "",        "llvm.log2",      "log2"},
  {"log10",     [](double x) { return std::log10(x); }, kNoBinary, kVec, "",        "llvm.log10",     "log10"},
  {"log1p",     [](double x) { return std::log1p(x); }, kNoBinary, kNoVec, "",       "",               ""},
  {"sqrt",      [](double x) { return std::sqrt(x); },  kNoBinary, kVec, "sqrt",    "llvm.sqrt",      ""},
  {"rsqrt",     &Rsqrt,                                  kNoBinary, kVec, "rsqrt",   "",               ""},
  {"tanh",      [](double x) { return std::tanh(x); },  kNoBinary, kVec, "tanh",    "",               "tanh"},
  {"sigmoid",   &Sigmoid,                                kNoBinary, kVec, "sigmoid", "",               ""},
  {"erf",       [](double x) { return std::erf(x); },   kNoBinary, kVec, "erf",     "",               "erf"},
  {"fabs",      [](double x) { return std::fabs(x); },  kNoBinary, kVec, "fabs",    "llvm.fabs",      ""},
  {"floor",     [](double x) { return std::floor(x); }, kNoBinary, kVec, "floor",   "llvm.floor",     ""},
  {"ceil",      [](double x) { return std::ceil(x); },  kNoBinary, kVec, "ceil",    "llvm.ceil",      ""},
  {"trunc",     [](double x) { return std::trunc(x); }, kNoBinary, kVec, "",        "llvm.trunc",     ""},
  // Compiled code rounds halves to even (llvm.nearbyint); the reference rounds them away from 0.
  {"round",     [](double x) { return std::round(x); }, kNoBinary, kVec, "round",   "llvm.nearbyint", ""},
  {"nearbyint", [](double x) { return std::nearbyint(x); }, kNoBinary, kVec, "",    "llvm.nearbyint", ""},
  {"sin",       [](double x) { return std::sin(x); },   kNoBinary, kNoVec, "",       "",               ""},
  {"cos",       [](double x) { return std::cos(x); },   kNoBinary, kNoVec, "",       "",               ""},
  {"tan",       [](double x) { return std::tan(x); },   kNoBinary, kNoVec, "",       "",               ""},
  {"sinh",      [](double x) { return std::sinh(x); },  kNoBinary, kNoVec, "",       "",               ""},
  {"cosh",      [](double x) { return std::cosh(x); },  kNoBinary, kNoVec, "",       "",               ""},
  {"asin",      [](double x) { return std::asin(x); },  kNoBinary, kNoVec, "",       "",               ""},
  {"acos",      [](double x) { return std::acos(x); },  kNoBinary, kNoVec, "",       "",               ""},
  {"atan",      [](double x) { return std::atan(x); },  kNoBinary, kNoVec, "",       "",               ""},
  {"asinh",     [](double x) { return std::asinh(x); }, kNoBinary, kNoVec, "",       "",               ""},
  {"acosh",     [](double x) { return std::acosh(x); }, kNoBinary, kNoVec, "",       "",               ""},
  {"atanh",     [](double x) { return std::atanh(x); }, kNoBinary, kNoVec, "",       "",               ""},
  {"pow",       kNoUnary, [](double x, double y) { return std::pow(x, y); },       kVec, "pow", "llvm.pow", "pow"},
  {"atan2",     kNoUnary, [](double x, double y) { return std::atan2(x, y); },     kNoVec, "", "", ""},
  {"fmod",      kNoUnary, [](double x, double y) { return std::fmod(x, y); },      kNoVec, "", "", ""},
  {"hypot",     kNoUnary, [](double x, double y) { return std::hypot(x, y); },     kNoVec, "", "", ""},
  {"copysign",  kNoUnary, [](double x, double y) { return std::copysign(x, y); },  kNoVec, "", "", ""},
  {"nextafter", kNoUnary, [](double x, double y) { return std::nextafter(x, y); }, kNoVec, "", "", ""},
};
// clang-format on

/*!
 * \brief An intrinsic minitvm keeps in the IR without computing it: TVMScript parses and prints
 * it as `T.<name>(...)`, structural equality compares it, and the back end that owns it (a GPU
 * target, the packed-function lowering) gives it meaning. The interpreter refuses it.
 */
struct OpaqueIntrinsic {
  const char* name;      ///< without the "tir." prefix; also its TVMScript name
  int num_inputs;        ///< -1: any number
  const char* result;    ///< result dtype: a dtype, "argN" (of argument N) or "" (given)
  const char* location;  ///< where the script writes the dtype: "first", "last" or ""
  const char* target;    ///< where it runs (the interpreter's error names it), or ""
  const char* doc;
};

constexpr const char* kCUDA = "the CUDA back end (a GPU intrinsic)";
constexpr const char* kLowered = "lowered host code (the packed-function calling convention)";

// clang-format off
const OpaqueIntrinsic kOpaqueIntrinsics[] = {
  // name                       inputs result    dtype at  runs in  doc
  {"tvm_fill_fragment",         6,  "handle", "",      kCUDA,    "Fills a tensor-core fragment with a value."},
  {"tvm_load_matrix_sync",      8,  "handle", "",      kCUDA,    "Loads a tensor-core fragment from memory."},
  {"tvm_store_matrix_sync",     8,  "handle", "",      kCUDA,    "Stores a tensor-core fragment to memory."},
  {"tvm_mma_sync",              8,  "handle", "",      kCUDA,    "A tensor-core multiply-accumulate of fragments."},
  {"tvm_bmma_sync",             8,  "handle", "",      kCUDA,    "A binary tensor-core multiply-accumulate."},
  {"tvm_storage_sync",          -1, "int32",  "",      kCUDA,    "A barrier over a storage scope (\"shared\")."},
  {"tvm_warp_shuffle",          5,  "arg1",   "",      kCUDA,    "Reads a value of another lane of the warp."},
  {"tvm_warp_shuffle_up",       5,  "arg1",   "",      kCUDA,    "Reads the value of the lane `offset` below."},
  {"tvm_warp_shuffle_down",     5,  "arg1",   "",      kCUDA,    "Reads the value of the lane `offset` above."},
  {"tvm_warp_activemask",       0,  "uint32", "",      kCUDA,    "The mask of the active lanes of the warp."},
  {"tvm_thread_allreduce",      -1, "handle", "",      kCUDA,    "A reduction across the threads of a block."},
  {"tvm_access_ptr",            5,  "handle", "",      "",       "A pointer into a buffer's data: (type, data, offset, extent, rw_mask)."},
  {"address_of",                1,  "handle", "",      "",       "The address of a buffer element."},
  {"isnullptr",                 1,  "bool",   "",      "",       "Whether a handle is null."},
  {"popcount",                  1,  "arg0",   "",      "",       "The number of set bits of an integer."},
  {"clz",                       1,  "int32",  "",      "",       "The number of leading zero bits of an integer."},
  {"ret",                       1,  "arg0",   "",      kLowered, "Returns the value from the function."},
  {"type_annotation",           0,  "",       "first", "",       "A value that stands for its dtype (an argument of tvm_stack_make_array)."},
  {"tvm_tuple",                 -1, "handle", "",      "",       "A tuple of values (an argument of other intrinsics)."},
  {"tvm_struct_get",            3,  "",       "last",  kLowered, "Reads field `field` of element `index` of a runtime structure array."},
  {"tvm_struct_set",            4,  "int32",  "",      kLowered, "Writes field `field` of element `index` of a runtime structure array."},
  {"tvm_throw_last_error",      0,  "handle", "",      kLowered, "Returns the error the runtime last recorded."},
  {"tvm_stack_alloca",          2,  "handle", "",      kLowered, "Allocates runtime structures on the stack."},
  {"tvm_stack_make_shape",      -1, "handle", "",      kLowered, "A shape array on the stack."},
  {"tvm_stack_make_array",      6,  "handle", "",      kLowered, "A DLTensor on the stack."},
  {"tvm_check_return",          3,  "int32",  "",      kLowered, "Checks the return code of a nested call."},
  {"tvm_call_packed",           -1, "int32",  "",      kLowered, "A call of a packed function by name."},
  {"tvm_call_cpacked",          -1, "int32",  "",      kLowered, "A call of a C packed function by name."},
  {"tvm_call_packed_lowered",   -1, "int32",  "",      kLowered, "A lowered packed-function call."},
  {"tvm_call_cpacked_lowered",  -1, "int32",  "",      kLowered, "A lowered C packed-function call."},
  {"TVMBackendAllocWorkspace",  5,  "handle", "",      kLowered, "Allocates a workspace from the runtime."},
  {"TVMBackendFreeWorkspace",   3,  "int32",  "",      kLowered, "Frees a workspace of the runtime."},
  {"lookup_param",              1,  "handle", "",      kLowered, "A parameter linked into the module."},
  {"call_llvm_intrin",          -1, "",       "first", "",       "A call of the LLVM intrinsic named by the first argument."},
  {"call_llvm_pure_intrin",     -1, "",       "first", "",       "call_llvm_intrin of an intrinsic without side effects."},
  {"vscale",                    0,  "int32",  "",      "scalable-vector targets", "The multiple of a scalable vector's minimum length."},
  {"undef",                     0,  "int32",  "",      "",       "An undefined value."},
};
// clang-format on

/*!
 * \brief Registers the table: the rows of kMathIntrinsics, then the other intrinsics. Their
 * builders and the interpreter treat the others (control, hints, bits, calls) specially; the
 * table records their arity, and TVMScript spells all but call_pure_extern as T.<name>.
 */
void RegisterIntrinsics() {
  for (const MathIntrinsic& m : kMathIntrinsics) {
    std::string name = std::string("tir.") + m.name;
    OpRegEntry& e = OpRegEntry::RegisterOrGet(name);
    e.describe(std::string("The math function ") + m.name +
               " on float operands (integer operands are cast to float32 by the builder).");
    e.set_attr(attr::kFloatOnly, true);
    if (m.unary) {
      e.set_num_inputs(1).add_argument("x", "PrimExpr", "the operand");
      e.set_attr(attr::kReference, MathReference(m.unary));
    } else {
      e.set_num_inputs(2)
          .add_argument("a", "PrimExpr", "the first operand")
          .add_argument("b", "PrimExpr", "the second operand");
      e.set_attr(attr::kReference, MathReference(m.binary));
    }
    if (m.vectorizable) e.set_attr(attr::kVectorizable, true);
    if (*m.script) e.set_attr(attr::kScriptPrinterName, String(m.script));
    if (*m.llvm) e.set_attr(attr::kLLVMIntrinsic, String(m.llvm));
    if (*m.libm) e.set_attr(attr::kExternName, String(m.libm));
  }
  OpRegEntry::RegisterOrGet("tir.if_then_else")
      .describe("cond ? a : b, evaluating only the taken side.")
      .set_num_inputs(3)
      .set_attr(attr::kScriptPrinterName, String("if_then_else"));
  OpRegEntry::RegisterOrGet("tir.likely")
      .describe("A branch hint; its value is the condition.")
      .set_num_inputs(1)
      .set_attr(attr::kVectorizable, true)
      .set_attr(attr::kScriptPrinterName, String("likely"));
  OpRegEntry::RegisterOrGet("tir.assume")
      .describe("A promise that the condition holds; its value is true.")
      .set_num_inputs(1)
      .set_attr(attr::kScriptPrinterName, String("assume"));
  OpRegEntry::RegisterOrGet("tir.reinterpret")
      .describe("The operand's bits read as the call's dtype.")
      .set_num_inputs(1)
      .set_attr(attr::kScriptPrinterName, String("reinterpret"));
  OpRegEntry::RegisterOrGet("tir.isnan")
      .describe("Whether the float operand is NaN.")
      .set_num_inputs(1);
  OpRegEntry::RegisterOrGet("tir.isinf")
      .describe("Whether the float operand is infinite.")
      .set_num_inputs(1);
  OpRegEntry::RegisterOrGet("tir.isfinite")
      .describe("Whether the float operand is finite.")
      .set_num_inputs(1);
  // TVMScript spells the float predicates T.isnan(x), ... (a bool result).
  for (const char* p : {"isnan", "isinf", "isfinite"}) {
    OpRegEntry::RegisterOrGet(std::string("tir.") + p)
        .set_attr(attr::kScriptPrinterName, String(p))
        .set_attr(attr::kScriptResultDType, String("bool"));
  }
  OpRegEntry::RegisterOrGet("tir.bitwise_and")
      .describe("a & b on integers.")
      .set_num_inputs(2)
      .set_attr(attr::kScriptPrinterName, String("bitwise_and"));
  OpRegEntry::RegisterOrGet("tir.bitwise_or")
      .describe("a | b on integers.")
      .set_num_inputs(2)
      .set_attr(attr::kScriptPrinterName, String("bitwise_or"));
  OpRegEntry::RegisterOrGet("tir.bitwise_xor")
      .describe("a ^ b on integers.")
      .set_num_inputs(2)
      .set_attr(attr::kScriptPrinterName, String("bitwise_xor"));
  OpRegEntry::RegisterOrGet("tir.shift_left")
      .describe("a << b on integers.")
      .set_num_inputs(2)
      .set_attr(attr::kScriptPrinterName, String("shift_left"));
  OpRegEntry::RegisterOrGet("tir.shift_right")
      .describe("a >> b on integers.")
      .set_num_inputs(2)
      .set_attr(attr::kScriptPrinterName, String("shift_right"));
  OpRegEntry::RegisterOrGet("tir.bitwise_not")
      .describe("~a on integers.")
      .set_num_inputs(1)
      .set_attr(attr::kScriptPrinterName, String("bitwise_not"));
  OpRegEntry::RegisterOrGet("tir.call_extern")
      .describe("A call of the C function named by the first (string) argument.")
      .set_num_inputs(-1)
      .set_attr(attr::kScriptPrinterName, String("call_extern"));
  OpRegEntry::RegisterOrGet("tir.call_pure_extern")
      .describe("tir.call_extern of a function without side effects.")
      .set_num_inputs(-1);
  for (const OpaqueIntrinsic& o : kOpaqueIntrinsics) {
    OpRegEntry& e = OpRegEntry::RegisterOrGet(std::string("tir.") + o.name);
    e.describe(o.doc).set_num_inputs(o.num_inputs);
    e.set_attr(attr::kScriptPrinterName, String(o.name));
    e.set_attr(attr::kScriptResultDType, String(o.result));
    if (*o.location) e.set_attr(attr::kScriptDTypeLocation, String(o.location));
    if (*o.target) e.set_attr(attr::kTargetOnly, String(o.target));
  }
}

/*!
 * \brief Registers the table once. Called at library load and by every lookup below, so that a
 * lookup from another static initialiser does not depend on the order of initialisation.
 */
void EnsureRegistered() {
  static const bool registered = [] {
    RegisterIntrinsics();
    return true;
  }();
  (void)registered;
}

[[maybe_unused]] const bool kIntrinsicsRegistered = [] {
  EnsureRegistered();
  return true;
}();

}  // namespace

// ---- lookups -------------------------------------------------------------------------------

std::optional<Op> GetIntrinsic(const std::string& name) {
  EnsureRegistered();
  if (!Op::Has(name)) return std::nullopt;
  return Op::Get(name);
}

std::vector<Op> ListIntrinsics() {
  EnsureRegistered();
  std::vector<Op> ops;
  for (const std::string& name : Op::ListNames()) {
    if (name.rfind("tir.", 0) == 0) ops.push_back(Op::Get(name));
  }
  return ops;
}

const MathReferenceNode* GetMathReference(const Op& op) {
  runtime::Any v = op.GetAttr(attr::kReference);
  return v.as<MathReferenceNode>();
}

std::optional<Op> GetIntrinsicByScriptName(const std::string& script_name) {
  // Built once, after every library has registered its operators (at load time).
  static const std::unordered_map<std::string, Op>* table = [] {
    auto* t = new std::unordered_map<std::string, Op>();
    for (const Op& op : ListIntrinsics()) {
      std::string s = GetIntrinsicString(op, attr::kScriptPrinterName);
      if (!s.empty()) t->emplace(s, op);
    }
    return t;
  }();
  auto it = table->find(script_name);
  if (it == table->end()) return std::nullopt;
  return it->second;
}

std::string GetIntrinsicString(const Op& op, const char* key) {
  runtime::Any v = op.GetAttr(key);
  return v.is_null() ? std::string() : v.cast<String>().str();
}

bool GetIntrinsicFlag(const Op& op, const char* key) {
  runtime::Any v = op.GetAttr(key);
  return !v.is_null() && v.cast<bool>();
}

}  // namespace tir
}  // namespace minitvm
