/*!
 * \file interpreter_impl.h
 * \brief Internals of the TIR interpreter (stage 2): the run-time state, the compiled node
 * classes' bases, the numeric helpers (wrapping, rounding, float16) and the compiler that
 * turns a PrimFunc into a tree of nodes over pre-resolved slots.
 *
 * Values are untyped 64-bit cells: an expression of an integer or bool dtype produces an
 * int64 (already wrapped to its width), one of a float dtype a double (already rounded to its
 * precision). A node knows its dtype at compile time and its parent calls `I` or `F`
 * accordingly. Vector expressions are evaluated one lane at a time: every `I`/`F` takes the
 * lane, which Ramp, Broadcast, vector loads and vector variables use.
 */
#ifndef MINITVM_SRC_TIR_INTERPRETER_IMPL_H_
#define MINITVM_SRC_TIR_INTERPRETER_IMPL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace tir {
namespace interp {

/*! \brief One value: an int64 for integer/bool dtypes, a double for float dtypes. */
union Value {
  int64_t i;
  double f;
};

/*! \brief The most dimensions a buffer may have. */
constexpr int kMaxDims = 10;

/*! \brief The run-time state of one buffer: where it lives and how it is indexed. */
struct BufState {
  char* data = nullptr;
  int64_t elem_offset = 0;
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  /*! \brief Element offsets [mem_lo, mem_hi) that are inside the memory behind the buffer. */
  int64_t mem_lo = 0, mem_hi = 0;
  /*! \brief For local buffers under check_uninitialized: one flag per element (from mem_lo). */
  uint8_t* written = nullptr;
};

/*! \brief The memory a handle variable points at (a parameter's array or an allocation). */
struct HandleState {
  char* data = nullptr;
  int64_t bytes = 0;
  uint8_t* shadow = nullptr;  ///< per byte-element flags, sized by the allocating statement
  int shadow_elem_bytes = 1;
};

/*! \brief The state of one call. */
struct Ctx {
  Value* slots = nullptr;
  BufState* bufs = nullptr;
  HandleState* handles = nullptr;
  const Interpreter::Program* prog = nullptr;
};

/*! \brief Names in scope at a point of the program, for error messages. */
struct Scope {
  std::vector<std::pair<std::string, int>> vars;  ///< name, slot (int-valued variables)
  std::string block;                              ///< innermost block, or ""
};
using ScopePtr = std::shared_ptr<const Scope>;
/*! \brief "in block "B"; i = 3, v_i = 3" from the current values. */
std::string DescribeScope(const Scope& scope, const Ctx& c);

/*! \brief A compiled expression. */
struct ENode {
  DataType dtype;
  explicit ENode(DataType t) : dtype(t) {}
  virtual ~ENode() = default;
  /*! \brief The value of lane `lane` of an integer/bool expression. */
  virtual int64_t I(Ctx& c, int lane) const;
  /*! \brief The value of lane `lane` of a float expression. */
  virtual double F(Ctx& c, int lane) const;
};
using EPtr = std::unique_ptr<ENode>;

/*! \brief A compiled statement. */
struct SNode {
  virtual ~SNode() = default;
  virtual void Exec(Ctx& c) const = 0;
};
using SPtr = std::unique_ptr<SNode>;

// ---- numeric helpers -----------------------------------------------------------------------

/*! \brief Whether values of `t` are doubles (float, bfloat16) rather than int64. */
inline bool IsFloatType(DataType t) { return t.is_float() || t.is_bfloat16(); }

/*! \brief Wrap an int64 to the width and signedness of `t` (bool: 0 or 1). */
inline int64_t WrapInt(int64_t v, DataType t) {
  int bits = t.bits();
  if (bits >= 64) return v;
  if (bits == 32)
    return t.is_uint() ? static_cast<int64_t>(static_cast<uint32_t>(v))
                       : static_cast<int64_t>(static_cast<int32_t>(v));
  if (t.is_bool() || bits == 1) return v & 1;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t x = static_cast<uint64_t>(v) & mask;
  if (t.is_uint()) return static_cast<int64_t>(x);
  uint64_t sign = uint64_t(1) << (bits - 1);
  return static_cast<int64_t>((x ^ sign) - sign);
}

/*! \brief IEEE half → float. */
float HalfToFloat(uint16_t h);
/*! \brief float → IEEE half, round to nearest even. */
uint16_t FloatToHalf(float f);
/*! \brief bfloat16 → float. */
inline float BF16ToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
/*! \brief float → bfloat16, round to nearest even. */
inline uint16_t FloatToBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

/*! \brief Round a double to the precision of float dtype `t`. */
inline double RoundFloat(double v, DataType t) {
  switch (t.bits()) {
    case 32:
      return static_cast<double>(static_cast<float>(v));
    case 16:
      return t.is_bfloat16() ? BF16ToFloat(FloatToBF16(static_cast<float>(v)))
                             : HalfToFloat(FloatToHalf(static_cast<float>(v)));
    default:
      return v;
  }
}

/*! \brief C-style float → integer conversion of `v` to dtype `t` (see interpreter.h). */
int64_t FloatToInt(double v, DataType t);
/*! \brief Integer (stored as int64, raw bits for uint64) → double. */
inline double IntToDouble(int64_t v, DataType from) {
  if (from.is_uint() && from.bits() == 64) return static_cast<double>(static_cast<uint64_t>(v));
  return static_cast<double>(v);
}

/*! \brief The value of lane `lane` of `e` as a double whatever its dtype. */
inline double EvalAsDouble(const ENode* e, Ctx& c, int lane) {
  return IsFloatType(e->dtype) ? e->F(c, lane) : IntToDouble(e->I(c, lane), e->dtype);
}

/*! \brief Throw `kind` with the function name in front. */
[[noreturn]] void Fail(const Ctx& c, const char* kind, const std::string& message);

// ---- the compiler --------------------------------------------------------------------------

/*! \brief How to (re)compute the state of a buffer where it is defined. */
struct BufferDef {
  Buffer buffer;
  int index = -1;   ///< into Ctx::bufs
  int handle = -1;  ///< into Ctx::handles
  std::vector<EPtr> shape;
  std::vector<EPtr> strides;  ///< empty: compact
  EPtr elem_offset;
  bool local = false;
  /*! \brief Defined implicitly (a buffer over a handle with no definition of its own). */
  bool implicit = false;
};

/*! \brief Fill the BufState of `def` from its handle and its evaluated shape. */
void DefineBuffer(Ctx& c, const BufferDef& def);

class Compiler {
 public:
  Compiler(std::string name, InterpreterOptions options)
      : name_(std::move(name)), options_(options) {}

  // Variables.
  /*! \brief Give `v` a slot (of `lanes` cells) for the scope that defines it. */
  int DefineVar(const Var& v, int lanes = 1);
  /*! \brief The slot of a defined variable; ValueError when it is not defined. */
  int SlotOf(const VarNode* v) const;
  bool IsDefined(const VarNode* v) const { return var_slot_.count(v) != 0; }

  // Handles and buffers.
  int DefineHandle(const Var& v);
  /*! \brief The handle index of a handle variable, or -1. */
  int HandleOfVar(const VarNode* v) const;
  /*! \brief Make `v` another name of an existing handle. */
  void AliasHandle(const Var& v, int handle);
  /*! \brief The buffer index of `b`, creating an implicit definition over its handle. */
  int BufferIndexOf(const Buffer& b);
  /*! \brief Create the definition of `b` (explicitly defined here); returns its index. */
  BufferDef* DefineBufferHere(const Buffer& b, int handle, bool local);
  /*! \brief Take the implicit buffer definitions over `handle` created while compiling. */
  std::vector<const BufferDef*> TakeImplicit(int handle);

  // Scopes for messages.
  void PushScopeVar(const std::string& name, int slot);
  void PopScopeVar();
  void PushBlock(const std::string& name);
  void PopBlock();
  ScopePtr CurrentScope();

  EPtr Expr(const PrimExpr& e);
  SPtr Stmt(const tir::Stmt& s);

  const std::string& name() const { return name_; }
  const InterpreterOptions& options() const { return options_; }
  int num_slots() const { return num_slots_; }
  int num_handles() const { return num_handles_; }
  int num_buffers() const { return static_cast<int>(buffer_defs_.size()); }
  std::vector<std::unique_ptr<BufferDef>>& buffer_defs() { return buffer_defs_; }

  /*! \brief ValueError "<func>: <message>" at compile time. */
  [[noreturn]] void Error(const std::string& message) const;

 private:
  std::string name_;
  InterpreterOptions options_;
  std::unordered_map<const VarNode*, int> var_slot_;
  int num_slots_ = 0;
  std::unordered_map<const VarNode*, int> handle_of_;
  int num_handles_ = 0;
  std::unordered_map<const Object*, int> buffer_index_;
  std::vector<std::unique_ptr<BufferDef>> buffer_defs_;
  std::unordered_map<int, std::vector<const BufferDef*>> implicit_;
  std::vector<std::pair<std::string, int>> scope_vars_;
  std::vector<std::string> blocks_;
  ScopePtr cached_scope_;
};

/*! \brief Compile an expression (interpreter_expr.cc). */
EPtr CompileExpr(Compiler* cc, const PrimExpr& e);
/*! \brief Compile a statement (interpreter_stmt.cc). */
SPtr CompileStmt(Compiler* cc, const tir::Stmt& s);
/*! \brief Compile a load of `buffer[indices]` / build a store node (interpreter_expr.cc). */
EPtr CompileLoad(Compiler* cc, const BufferLoadNode* op);
SPtr CompileStore(Compiler* cc, const BufferStoreNode* op);

}  // namespace interp

/*! \brief The compiled program of a PrimFunc. */
struct Interpreter::Program {
  std::string name;
  InterpreterOptions options;
  /*! \brief One parameter: a buffer (with its definition) or a scalar (with its slot). */
  struct Param {
    std::string name;
    bool is_buffer = false;
    const interp::BufferDef* def = nullptr;
    int slot = -1;
    DataType dtype;
  };
  std::vector<Param> params;
  /*! \brief Shape/stride/offset variables bound from the arrays: slot per buffer dimension. */
  std::vector<const interp::BufferDef*> implicit_param_buffers;
  std::unique_ptr<interp::Compiler> compiler;  ///< owns the buffer definitions
  interp::SPtr body;
  int num_slots = 0, num_buffers = 0, num_handles = 0;
};

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_SRC_TIR_INTERPRETER_IMPL_H_
