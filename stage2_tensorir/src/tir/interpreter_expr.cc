/*!
 * \file interpreter_expr.cc
 * \brief The TIR interpreter's expressions (stage 2): numeric helpers, the compiled node
 * classes for every expression kind and intrinsic, bounds-checked loads and stores, and the
 * compilation of a PrimExpr into those nodes.
 */
#include <functional>
#include <sstream>

#include "interpreter_impl.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/expr_functor.h"

namespace minitvm {
namespace tir {
namespace interp {

// ---- helpers -------------------------------------------------------------------------------

int64_t ENode::I(Ctx& c, int lane) const {
  Fail(c, "InternalError",
       "integer value requested from a " + DataTypeToString(dtype) + " expression");
}
double ENode::F(Ctx& c, int lane) const {
  Fail(c, "InternalError",
       "float value requested from a " + DataTypeToString(dtype) + " expression");
}

void Fail(const Ctx& c, const char* kind, const std::string& message) {
  std::string fname = c.prog ? c.prog->name : std::string("interpreter");
  MINITVM_THROW_KIND(kind) << fname << ": " << message;
}

std::string DescribeScope(const Scope& scope, const Ctx& c) {
  std::ostringstream os;
  if (!scope.block.empty()) os << "in block \"" << scope.block << "\"";
  if (!scope.vars.empty()) {
    os << (scope.block.empty() ? "" : "; ");
    for (size_t i = 0; i < scope.vars.size(); ++i) {
      os << (i ? ", " : "") << scope.vars[i].first << " = " << c.slots[scope.vars[i].second].i;
    }
  }
  return os.str();
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 0x1F) {
    bits = sign | 0x7F800000 | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t abs = bits & 0x7FFFFFFF;
  if (abs >= 0x7F800000) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0));
  }
  if (abs >= 0x477FF000) return static_cast<uint16_t>(sign | 0x7C00);  // rounds to inf
  if (abs < 0x38800000) {                                              // subnormal or zero
    if (abs < 0x33000000) return static_cast<uint16_t>(sign);
    uint32_t e = abs >> 23;
    uint32_t mant = (abs & 0x7FFFFF) | 0x800000;
    uint32_t shift = 126 - e;  // 14 + (113 - e)
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  uint32_t rem = abs & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

int64_t FloatToInt(double v, DataType t) {
  if (t.is_bool()) return v != 0.0;
  if (std::isnan(v)) return 0;
  double tv = std::trunc(v);
  if (t.is_uint() && t.bits() == 64) {
    if (tv <= 0) return 0;
    if (tv >= 18446744073709551615.0) return -1;  // all bits set
    return static_cast<int64_t>(static_cast<uint64_t>(tv));
  }
  if (tv >= 9223372036854775807.0) return WrapInt(std::numeric_limits<int64_t>::max(), t);
  if (tv <= -9223372036854775808.0) return WrapInt(std::numeric_limits<int64_t>::min(), t);
  return WrapInt(static_cast<int64_t>(tv), t);
}

namespace {

bool IsU64(DataType t) { return t.is_uint() && t.bits() == 64; }

/*! \brief The raw bits of a value of dtype `t` (for reinterpret). */
uint64_t EncodeBits(Value v, DataType t) {
  if (IsFloatType(t)) {
    if (t.bits() == 64) {
      uint64_t b;
      std::memcpy(&b, &v.f, 8);
      return b;
    }
    if (t.bits() == 32) {
      float f = static_cast<float>(v.f);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    return t.is_bfloat16() ? FloatToBF16(static_cast<float>(v.f))
                           : FloatToHalf(static_cast<float>(v.f));
  }
  uint64_t b = static_cast<uint64_t>(v.i);
  return t.bits() >= 64 ? b : (b & ((uint64_t(1) << t.bits()) - 1));
}

Value DecodeBits(uint64_t b, DataType t) {
  Value v;
  if (IsFloatType(t)) {
    if (t.bits() == 64) {
      std::memcpy(&v.f, &b, 8);
    } else if (t.bits() == 32) {
      uint32_t b32 = static_cast<uint32_t>(b);
      float f;
      std::memcpy(&f, &b32, 4);
      v.f = f;
    } else {
      v.f = t.is_bfloat16() ? BF16ToFloat(static_cast<uint16_t>(b))
                            : HalfToFloat(static_cast<uint16_t>(b));
    }
    return v;
  }
  v.i = WrapInt(static_cast<int64_t>(b), t);
  return v;
}

// ---- leaves --------------------------------------------------------------------------------

struct ConstI final : ENode {
  int64_t v;
  ConstI(DataType t, int64_t x) : ENode(t), v(x) {}
  int64_t I(Ctx&, int) const override { return v; }
};
struct ConstF final : ENode {
  double v;
  ConstF(DataType t, double x) : ENode(t), v(RoundFloat(x, t)) {}
  double F(Ctx&, int) const override { return v; }
};
struct VarI final : ENode {
  int slot;
  VarI(DataType t, int s) : ENode(t), slot(s) {}
  int64_t I(Ctx& c, int) const override { return c.slots[slot].i; }
};
struct VarF final : ENode {
  int slot;
  VarF(DataType t, int s) : ENode(t), slot(s) {}
  double F(Ctx& c, int) const override { return c.slots[slot].f; }
};
struct VecVar final : ENode {
  int slot;
  VecVar(DataType t, int s) : ENode(t), slot(s) {}
  int64_t I(Ctx& c, int lane) const override { return c.slots[slot + lane].i; }
  double F(Ctx& c, int lane) const override { return c.slots[slot + lane].f; }
};

// ---- arithmetic ----------------------------------------------------------------------------

enum class Bin { kAdd, kSub, kMul, kDiv, kMod, kFloorDiv, kFloorMod, kMin, kMax };

const char* BinName(Bin op) {
  switch (op) {
    case Bin::kDiv:
      return "/";
    case Bin::kMod:
      return "%";
    case Bin::kFloorDiv:
      return "//";
    case Bin::kFloorMod:
      return "floormod";
    default:
      return "?";
  }
}

template <Bin op>
struct IntBin final : ENode {
  EPtr a, b;
  bool u64;
  IntBin(DataType t, EPtr x, EPtr y) : ENode(t), a(std::move(x)), b(std::move(y)), u64(IsU64(t)) {}
  int64_t I(Ctx& c, int lane) const override {
    int64_t x = a->I(c, lane), y = b->I(c, lane);
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    if constexpr (op == Bin::kAdd) {
      return WrapInt(static_cast<int64_t>(ux + uy), dtype);
    } else if constexpr (op == Bin::kSub) {
      return WrapInt(static_cast<int64_t>(ux - uy), dtype);
    } else if constexpr (op == Bin::kMul) {
      return WrapInt(static_cast<int64_t>(ux * uy), dtype);
    } else if constexpr (op == Bin::kMin) {
      return u64 ? (ux < uy ? x : y) : (x < y ? x : y);
    } else if constexpr (op == Bin::kMax) {
      return u64 ? (ux > uy ? x : y) : (x > y ? x : y);
    } else {
      if (y == 0) {
        Fail(c, "RuntimeError",
             std::string("integer division by zero (") + std::to_string(x) + " " + BinName(op) +
                 " 0)");
      }
      if (u64) {
        if constexpr (op == Bin::kDiv || op == Bin::kFloorDiv) {
          return static_cast<int64_t>(ux / uy);
        } else {
          return static_cast<int64_t>(ux % uy);
        }
      }
      if (y == -1) {  // avoid INT64_MIN / -1
        if constexpr (op == Bin::kDiv || op == Bin::kFloorDiv) {
          return WrapInt(static_cast<int64_t>(uint64_t(0) - ux), dtype);
        } else {
          return 0;
        }
      }
      int64_t q = x / y, r = x % y;
      if constexpr (op == Bin::kDiv) {
        return WrapInt(q, dtype);
      } else if constexpr (op == Bin::kMod) {
        return r;
      } else if constexpr (op == Bin::kFloorDiv) {
        if (r != 0 && ((r < 0) != (y < 0))) --q;
        return WrapInt(q, dtype);
      } else {
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return r;
      }
    }
  }
};

template <Bin op>
struct FloatBin final : ENode {
  EPtr a, b;
  FloatBin(DataType t, EPtr x, EPtr y) : ENode(t), a(std::move(x)), b(std::move(y)) {}
  double F(Ctx& c, int lane) const override {
    double x = a->F(c, lane), y = b->F(c, lane);
    double r;
    if constexpr (op == Bin::kAdd) {
      r = x + y;
    } else if constexpr (op == Bin::kSub) {
      r = x - y;
    } else if constexpr (op == Bin::kMul) {
      r = x * y;
    } else if constexpr (op == Bin::kDiv) {
      r = x / y;
    } else if constexpr (op == Bin::kMod) {
      r = std::fmod(x, y);
    } else if constexpr (op == Bin::kFloorDiv) {
      r = std::floor(x / y);
    } else if constexpr (op == Bin::kFloorMod) {
      r = x - std::floor(x / y) * y;
    } else if constexpr (op == Bin::kMin) {
      r = x < y ? x : y;
    } else {
      r = x > y ? x : y;
    }
    return RoundFloat(r, dtype);
  }
};

/*! \brief Float32 add/sub/mul: the hot case, without the generic rounding switch. */
template <Bin op>
struct Float32Bin final : ENode {
  EPtr a, b;
  Float32Bin(DataType t, EPtr x, EPtr y) : ENode(t), a(std::move(x)), b(std::move(y)) {}
  double F(Ctx& c, int lane) const override {
    float x = static_cast<float>(a->F(c, lane)), y = static_cast<float>(b->F(c, lane));
    if constexpr (op == Bin::kAdd) {
      return x + y;
    } else if constexpr (op == Bin::kSub) {
      return x - y;
    } else {
      return x * y;
    }
  }
};

/*! \brief Float32 add/sub/mul with a constant right operand (`x + 1.0`, `x * 2.0`). */
template <Bin op>
struct Float32BinConst final : ENode {
  EPtr a;
  float k;
  Float32BinConst(DataType t, EPtr x, float y) : ENode(t), a(std::move(x)), k(y) {}
  double F(Ctx& c, int lane) const override {
    float x = static_cast<float>(a->F(c, lane));
    if constexpr (op == Bin::kAdd) {
      return x + k;
    } else if constexpr (op == Bin::kSub) {
      return x - k;
    } else {
      return x * k;
    }
  }
};

template <Bin op>
EPtr MakeBin(DataType t, EPtr a, EPtr b) {
  if (IsFloatType(t)) {
    if constexpr (op == Bin::kAdd || op == Bin::kSub || op == Bin::kMul) {
      if (t.is_float() && t.bits() == 32 && t.lanes() == 1) {
        if (auto* k = dynamic_cast<const ConstF*>(b.get())) {
          return std::make_unique<Float32BinConst<op>>(t, std::move(a), static_cast<float>(k->v));
        }
        return std::make_unique<Float32Bin<op>>(t, std::move(a), std::move(b));
      }
    }
    return std::make_unique<FloatBin<op>>(t, std::move(a), std::move(b));
  }
  return std::make_unique<IntBin<op>>(t, std::move(a), std::move(b));
}

// ---- comparisons and logic -----------------------------------------------------------------

enum class Cmp { kEQ, kNE, kLT, kLE, kGT, kGE };

template <Cmp op, typename T>
inline bool Compare(T x, T y) {
  if constexpr (op == Cmp::kEQ) return x == y;
  if constexpr (op == Cmp::kNE) return x != y;
  if constexpr (op == Cmp::kLT) return x < y;
  if constexpr (op == Cmp::kLE) return x <= y;
  if constexpr (op == Cmp::kGT) return x > y;
  return x >= y;
}

template <Cmp op>
struct CmpNode final : ENode {
  EPtr a, b;
  int kind;  // 0 signed int, 1 uint64, 2 float
  CmpNode(DataType t, EPtr x, EPtr y) : ENode(t), a(std::move(x)), b(std::move(y)) {
    DataType at = a->dtype;
    kind = IsFloatType(at) ? 2 : (IsU64(at) ? 1 : 0);
  }
  int64_t I(Ctx& c, int lane) const override {
    if (kind == 2) return Compare<op>(a->F(c, lane), b->F(c, lane));
    int64_t x = a->I(c, lane), y = b->I(c, lane);
    if (kind == 1) return Compare<op>(static_cast<uint64_t>(x), static_cast<uint64_t>(y));
    return Compare<op>(x, y);
  }
};

struct AndE final : ENode {
  EPtr a, b;
  AndE(DataType t, EPtr x, EPtr y) : ENode(t), a(std::move(x)), b(std::move(y)) {}
  int64_t I(Ctx& c, int lane) const override { return a->I(c, lane) && b->I(c, lane); }
};
struct OrE final : ENode {
  EPtr a, b;
  OrE(DataType t, EPtr x, EPtr y) : ENode(t), a(std::move(x)), b(std::move(y)) {}
  int64_t I(Ctx& c, int lane) const override { return a->I(c, lane) || b->I(c, lane); }
};
struct NotNodeE final : ENode {
  EPtr a;
  NotNodeE(DataType t, EPtr x) : ENode(t), a(std::move(x)) {}
  int64_t I(Ctx& c, int lane) const override { return !a->I(c, lane); }
};

/*! \brief Select / if_then_else: only the chosen operand is evaluated. */
struct SelectNodeE final : ENode {
  EPtr cond, t, f;
  SelectNodeE(DataType dt, EPtr c, EPtr x, EPtr y)
      : ENode(dt), cond(std::move(c)), t(std::move(x)), f(std::move(y)) {}
  int64_t I(Ctx& c, int lane) const override {
    return cond->I(c, lane) ? t->I(c, lane) : f->I(c, lane);
  }
  double F(Ctx& c, int lane) const override {
    return cond->I(c, lane) ? t->F(c, lane) : f->F(c, lane);
  }
};

// ---- casts, vectors, let -------------------------------------------------------------------

struct CastNodeE final : ENode {
  EPtr v;
  CastNodeE(DataType t, EPtr x) : ENode(t), v(std::move(x)) {}
  int64_t I(Ctx& c, int lane) const override {
    if (IsFloatType(v->dtype)) return FloatToInt(v->F(c, lane), dtype);
    int64_t x = v->I(c, lane);
    if (dtype.is_bool()) return x != 0;
    return WrapInt(x, dtype);
  }
  double F(Ctx& c, int lane) const override {
    if (IsFloatType(v->dtype)) return RoundFloat(v->F(c, lane), dtype);
    return RoundFloat(IntToDouble(v->I(c, lane), v->dtype), dtype);
  }
};

struct RampNodeE final : ENode {
  EPtr base, stride;
  RampNodeE(DataType t, EPtr b, EPtr s) : ENode(t), base(std::move(b)), stride(std::move(s)) {}
  int64_t I(Ctx& c, int lane) const override {
    uint64_t b = static_cast<uint64_t>(base->I(c, 0));
    uint64_t s = static_cast<uint64_t>(stride->I(c, 0));
    return WrapInt(static_cast<int64_t>(b + s * static_cast<uint64_t>(lane)), dtype.element_of());
  }
  double F(Ctx& c, int lane) const override {
    return RoundFloat(base->F(c, 0) + stride->F(c, 0) * lane, dtype);
  }
};

struct BroadcastNodeE final : ENode {
  EPtr v;
  BroadcastNodeE(DataType t, EPtr x) : ENode(t), v(std::move(x)) {}
  int64_t I(Ctx& c, int) const override { return v->I(c, 0); }
  double F(Ctx& c, int) const override { return v->F(c, 0); }
};

struct LetNodeE final : ENode {
  int slot;
  bool vec, value_float;
  EPtr value, body;
  LetNodeE(DataType t, int s, bool v, EPtr val, EPtr b)
      : ENode(t),
        slot(s),
        vec(v),
        value_float(IsFloatType(val->dtype)),
        value(std::move(val)),
        body(std::move(b)) {}
  void Bind(Ctx& c, int lane) const {
    Value& cell = c.slots[slot + (vec ? lane : 0)];
    if (value_float) {
      cell.f = value->F(c, lane);
    } else {
      cell.i = value->I(c, lane);
    }
  }
  int64_t I(Ctx& c, int lane) const override {
    Bind(c, lane);
    return body->I(c, lane);
  }
  double F(Ctx& c, int lane) const override {
    Bind(c, lane);
    return body->F(c, lane);
  }
};

// ---- intrinsics ----------------------------------------------------------------------------

// Math intrinsics call the scalar reference of their "FReference" attribute (tir/builtin.h).
using UnaryFn = UnaryMathFn;
using BinaryFn = BinaryMathFn;

struct UnaryMath final : ENode {
  UnaryFn fn;
  EPtr a;
  UnaryMath(DataType t, UnaryFn f, EPtr x) : ENode(t), fn(f), a(std::move(x)) {}
  double F(Ctx& c, int lane) const override {
    return RoundFloat(fn(EvalAsDouble(a.get(), c, lane)), dtype);
  }
  int64_t I(Ctx& c, int lane) const override {
    return FloatToInt(fn(EvalAsDouble(a.get(), c, lane)), dtype);
  }
};

struct BinaryMath final : ENode {
  BinaryFn fn;
  EPtr a, b;
  BinaryMath(DataType t, BinaryFn f, EPtr x, EPtr y)
      : ENode(t), fn(f), a(std::move(x)), b(std::move(y)) {}
  double F(Ctx& c, int lane) const override {
    return RoundFloat(fn(EvalAsDouble(a.get(), c, lane), EvalAsDouble(b.get(), c, lane)), dtype);
  }
  int64_t I(Ctx& c, int lane) const override {
    return FloatToInt(fn(EvalAsDouble(a.get(), c, lane), EvalAsDouble(b.get(), c, lane)), dtype);
  }
};

enum class FPred { kIsNan, kIsInf, kIsFinite };
struct FloatPredicate final : ENode {
  FPred kind;
  EPtr a;
  FloatPredicate(DataType t, FPred k, EPtr x) : ENode(t), kind(k), a(std::move(x)) {}
  int64_t I(Ctx& c, int lane) const override {
    double x = EvalAsDouble(a.get(), c, lane);
    switch (kind) {
      case FPred::kIsNan:
        return std::isnan(x);
      case FPred::kIsInf:
        return std::isinf(x);
      default:
        return std::isfinite(x);
    }
  }
};

enum class BitOp { kAnd, kOr, kXor, kShl, kShr };
struct BitwiseNode final : ENode {
  BitOp op;
  EPtr a, b;
  BitwiseNode(DataType t, BitOp o, EPtr x, EPtr y)
      : ENode(t), op(o), a(std::move(x)), b(std::move(y)) {}
  int64_t I(Ctx& c, int lane) const override {
    int64_t x = a->I(c, lane), y = b->I(c, lane);
    uint64_t ux = static_cast<uint64_t>(x);
    switch (op) {
      case BitOp::kAnd:
        return WrapInt(x & y, dtype);
      case BitOp::kOr:
        return WrapInt(x | y, dtype);
      case BitOp::kXor:
        return WrapInt(x ^ y, dtype);
      case BitOp::kShl:
        if (y < 0 || y >= 64) return 0;
        return WrapInt(static_cast<int64_t>(ux << y), dtype);
      default:
        if (y < 0 || y >= 64) return (dtype.is_uint() || x >= 0) ? 0 : -1;
        if (dtype.is_uint()) return static_cast<int64_t>(ux >> y);
        return x >> y;
    }
  }
};
struct BitNotNode final : ENode {
  EPtr a;
  BitNotNode(DataType t, EPtr x) : ENode(t), a(std::move(x)) {}
  int64_t I(Ctx& c, int lane) const override { return WrapInt(~a->I(c, lane), dtype); }
};

struct ReinterpretNode final : ENode {
  EPtr a;
  ReinterpretNode(DataType t, EPtr x) : ENode(t), a(std::move(x)) {}
  Value Get(Ctx& c, int lane) const {
    Value v;
    if (IsFloatType(a->dtype)) {
      v.f = a->F(c, lane);
    } else {
      v.i = a->I(c, lane);
    }
    return DecodeBits(EncodeBits(v, a->dtype.element_of()), dtype.element_of());
  }
  int64_t I(Ctx& c, int lane) const override { return Get(c, lane).i; }
  double F(Ctx& c, int lane) const override { return Get(c, lane).f; }
};

/*! \brief call_extern: a registered global function called with scalar arguments. */
struct ExternCall final : ENode {
  runtime::PackedFunc func;
  std::string fname;
  std::vector<EPtr> args;
  ExternCall(DataType t, runtime::PackedFunc f, std::string n)
      : ENode(t), func(std::move(f)), fname(std::move(n)) {}
  Any Call(Ctx& c, int lane) const {
    std::vector<Any> values;
    for (const EPtr& a : args) {
      if (IsFloatType(a->dtype)) {
        values.emplace_back(a->F(c, lane));
      } else if (a->dtype.is_bool()) {
        values.emplace_back(a->I(c, lane) != 0);
      } else {
        values.emplace_back(a->I(c, lane));
      }
    }
    Any rv;
    func.CallPacked(runtime::PackedArgs(values.data(), static_cast<int>(values.size())), &rv);
    return rv;
  }
  int64_t I(Ctx& c, int lane) const override {
    Any rv = Call(c, lane);
    if (rv.is_null() && dtype.is_void()) return 0;
    if (rv.is_float()) return FloatToInt(rv.raw_float(), dtype);
    if (!(rv.is_int() || rv.is_bool())) {
      Fail(c, "TypeError",
           "extern function " + fname + " returned " + rv.type_name() + ", expected " +
               DataTypeToString(dtype));
    }
    return WrapInt(rv.raw_int(), dtype);
  }
  double F(Ctx& c, int lane) const override {
    Any rv = Call(c, lane);
    if (rv.is_float()) return RoundFloat(rv.raw_float(), dtype);
    if (rv.is_int() || rv.is_bool()) return RoundFloat(static_cast<double>(rv.raw_int()), dtype);
    Fail(c, "TypeError",
         "extern function " + fname + " returned " + rv.type_name() + ", expected " +
             DataTypeToString(dtype));
  }
};

// ---- loads and stores ----------------------------------------------------------------------

/*! \brief The address computation and checks shared by loads and stores. */
struct Access {
  int buf = -1;
  std::vector<EPtr> idx;
  /*! \brief Per index: the slot of a plain scalar variable (read directly), or -1. */
  std::vector<int> idx_slot;
  ScopePtr scope;
  std::string buffer_name;
  bool vector = false;

  __attribute__((always_inline)) int64_t Offset(Ctx& c, const BufState& b, int lane) const {
    int64_t off = b.elem_offset;
    const size_t n = idx.size();
    for (size_t d = 0; d < n; ++d) {
      int slot = idx_slot[d];
      int64_t v = slot >= 0 ? c.slots[slot].i : idx[d]->I(c, lane);
      if (static_cast<uint64_t>(v) >= static_cast<uint64_t>(b.shape[d])) OutOfBounds(c, b, lane);
      off += v * b.strides[d];
    }
    if (off < b.mem_lo || off >= b.mem_hi) OutOfMemory(c, b, lane, off);
    return off;
  }

  std::string IndexString(Ctx& c, int lane) const {
    std::ostringstream os;
    os << "(";
    for (size_t d = 0; d < idx.size(); ++d) os << (d ? ", " : "") << idx[d]->I(c, lane);
    os << (idx.size() == 1 ? ",)" : ")");
    return os.str();
  }
  std::string ShapeString(const BufState& b) const {
    std::ostringstream os;
    os << "(";
    for (int d = 0; d < b.ndim; ++d) os << (d ? ", " : "") << b.shape[d];
    os << (b.ndim == 1 ? ",)" : ")");
    return os.str();
  }
  std::string Where(Ctx& c, int lane) const {
    std::string s = DescribeScope(*scope, c);
    if (vector) s += (s.empty() ? "" : "; ") + std::string("vector lane ") + std::to_string(lane);
    return s.empty() ? "" : " (" + s + ")";
  }
  [[noreturn]] void OutOfBounds(Ctx& c, const BufState& b, int lane) const {
    Fail(c, "IndexError",
         "buffer " + buffer_name + ": index " + IndexString(c, lane) +
             " is out of bounds for shape " + ShapeString(b) + Where(c, lane));
  }
  [[noreturn]] void OutOfMemory(Ctx& c, const BufState& b, int lane, int64_t off) const {
    Fail(c, "IndexError",
         "buffer " + buffer_name + ": index " + IndexString(c, lane) + " reaches element " +
             std::to_string(off) + ", outside the memory behind the buffer (elements [" +
             std::to_string(b.mem_lo) + ", " + std::to_string(b.mem_hi) + "))" + Where(c, lane));
  }
  [[noreturn]] void Uninitialized(Ctx& c, int lane) const {
    Fail(c, "RuntimeError",
         "buffer " + buffer_name + ": element " + IndexString(c, lane) +
             " is read before it is written" + Where(c, lane));
  }
};

// Storage kinds: how an element of each dtype is read into and written from a Value.
struct SF32 {
  using T = float;
  static constexpr bool kFloat = true;
  static double Get(T v) { return v; }
  static T Put(double v) { return static_cast<float>(v); }
};
struct SF64 {
  using T = double;
  static constexpr bool kFloat = true;
  static double Get(T v) { return v; }
  static T Put(double v) { return v; }
};
struct SF16 {
  using T = uint16_t;
  static constexpr bool kFloat = true;
  static double Get(T v) { return HalfToFloat(v); }
  static T Put(double v) { return FloatToHalf(static_cast<float>(v)); }
};
struct SBF16 {
  using T = uint16_t;
  static constexpr bool kFloat = true;
  static double Get(T v) { return BF16ToFloat(v); }
  static T Put(double v) { return FloatToBF16(static_cast<float>(v)); }
};
template <typename CT>
struct SInt {
  using T = CT;
  static constexpr bool kFloat = false;
  static int64_t Get(T v) { return static_cast<int64_t>(v); }
  static T Put(int64_t v) { return static_cast<T>(v); }
};
struct SBool {
  using T = uint8_t;
  static constexpr bool kFloat = false;
  static int64_t Get(T v) { return v != 0; }
  static T Put(int64_t v) { return v != 0; }
};

template <class S>
struct LoadNodeE final : ENode {
  Access acc;
  LoadNodeE(DataType t, Access a) : ENode(t), acc(std::move(a)) {}
  typename S::T Read(Ctx& c, int lane) const {
    const BufState& b = c.bufs[acc.buf];
    int64_t off = acc.Offset(c, b, lane);
    if (b.written && !b.written[off - b.mem_lo]) acc.Uninitialized(c, lane);
    return reinterpret_cast<const typename S::T*>(b.data)[off];
  }
  int64_t I(Ctx& c, int lane) const override {
    if constexpr (S::kFloat) {
      return ENode::I(c, lane);
    } else {
      return S::Get(Read(c, lane));
    }
  }
  double F(Ctx& c, int lane) const override {
    if constexpr (S::kFloat) {
      return S::Get(Read(c, lane));
    } else {
      return ENode::F(c, lane);
    }
  }
};

template <class S>
struct StoreNodeS final : SNode {
  Access acc;
  EPtr value;
  int lanes;
  StoreNodeS(Access a, EPtr v, int l) : acc(std::move(a)), value(std::move(v)), lanes(l) {}
  void Write(Ctx& c, int lane, Value v) const {
    const BufState& b = c.bufs[acc.buf];
    int64_t off = acc.Offset(c, b, lane);
    auto* p = reinterpret_cast<typename S::T*>(b.data) + off;
    if constexpr (S::kFloat) {
      *p = S::Put(v.f);
    } else {
      *p = S::Put(v.i);
    }
    if (b.written) b.written[off - b.mem_lo] = 1;
  }
  Value Get(Ctx& c, int lane) const {
    Value v;
    if constexpr (S::kFloat) {
      v.f = value->F(c, lane);
    } else {
      v.i = value->I(c, lane);
    }
    return v;
  }
  void Exec(Ctx& c) const override {
    if (lanes == 1) {
      Write(c, 0, Get(c, 0));
      return;
    }
    // A vector store reads every lane's value before writing any.
    std::vector<Value> vals(lanes);
    for (int l = 0; l < lanes; ++l) vals[l] = Get(c, l);
    for (int l = 0; l < lanes; ++l) Write(c, l, vals[l]);
  }
};

template <template <class> class Node, typename... Args>
auto MakeByStorage(DataType t, const std::string& name, Args&&... args) {
  using Base = std::conditional_t<std::is_base_of_v<ENode, Node<SF32>>, ENode, SNode>;
  std::unique_ptr<Base> out;
  if (t.is_float()) {
    if (t.bits() == 32) out = std::make_unique<Node<SF32>>(std::forward<Args>(args)...);
    if (t.bits() == 64) out = std::make_unique<Node<SF64>>(std::forward<Args>(args)...);
    if (t.bits() == 16) out = std::make_unique<Node<SF16>>(std::forward<Args>(args)...);
  } else if (t.is_bfloat16()) {
    out = std::make_unique<Node<SBF16>>(std::forward<Args>(args)...);
  } else if (t.is_bool()) {
    out = std::make_unique<Node<SBool>>(std::forward<Args>(args)...);
  } else if (t.is_int()) {
    if (t.bits() == 8) out = std::make_unique<Node<SInt<int8_t>>>(std::forward<Args>(args)...);
    if (t.bits() == 16) out = std::make_unique<Node<SInt<int16_t>>>(std::forward<Args>(args)...);
    if (t.bits() == 32) out = std::make_unique<Node<SInt<int32_t>>>(std::forward<Args>(args)...);
    if (t.bits() == 64) out = std::make_unique<Node<SInt<int64_t>>>(std::forward<Args>(args)...);
  } else if (t.is_uint()) {
    if (t.bits() == 8) out = std::make_unique<Node<SInt<uint8_t>>>(std::forward<Args>(args)...);
    if (t.bits() == 16) out = std::make_unique<Node<SInt<uint16_t>>>(std::forward<Args>(args)...);
    if (t.bits() == 32) out = std::make_unique<Node<SInt<uint32_t>>>(std::forward<Args>(args)...);
    if (t.bits() == 64) out = std::make_unique<Node<SInt<uint64_t>>>(std::forward<Args>(args)...);
  }
  if (!out) {
    MINITVM_THROW(ValueError) << "the interpreter cannot access buffer " << name << " of dtype "
                              << t;
  }
  return out;
}

Access MakeAccess(Compiler* cc, const Buffer& buffer, const Array<PrimExpr>& indices) {
  Access acc;
  acc.buf = cc->BufferIndexOf(buffer);
  acc.buffer_name = buffer->name.str();
  for (const PrimExpr& i : indices) {
    acc.idx.push_back(cc->Expr(i));
    const VarNode* v = i.as<VarNode>();
    acc.idx_slot.push_back(v && v->dtype.lanes() == 1 ? cc->SlotOf(v) : -1);
    if (i.dtype().lanes() > 1) acc.vector = true;
  }
  acc.scope = cc->CurrentScope();
  return acc;
}

// ---- compilation ---------------------------------------------------------------------------

class ExprCompiler : public ExprFunctor<EPtr(const PrimExpr&)> {
 public:
  explicit ExprCompiler(Compiler* cc) : cc_(cc) {}

  EPtr VisitExpr_(const VarNode* op) override {
    if (op->dtype.is_handle()) {
      cc_->Error("the handle variable " + op->name_hint.str() +
                 " is used as a value; the interpreter only accesses memory through buffers");
    }
    int slot = cc_->SlotOf(op);
    if (op->dtype.lanes() > 1) return std::make_unique<VecVar>(op->dtype, slot);
    if (IsFloatType(op->dtype)) return std::make_unique<VarF>(op->dtype, slot);
    return std::make_unique<VarI>(op->dtype, slot);
  }
  EPtr VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }
  EPtr VisitExpr_(const IntImmNode* op) override {
    return std::make_unique<ConstI>(op->dtype, op->value);
  }
  EPtr VisitExpr_(const FloatImmNode* op) override {
    return std::make_unique<ConstF>(op->dtype, op->value);
  }
  EPtr VisitExpr_(const StringImmNode* op) override {
    cc_->Error("the string \"" + op->value.str() + "\" is used as a value");
  }
  EPtr VisitExpr_(const CastNode* op) override {
    return std::make_unique<CastNodeE>(op->dtype, Sub(op->value));
  }
#define MINITVM_BIN(Node, Kind)                              \
  EPtr VisitExpr_(const Node* op) override {                 \
    return MakeBin<Kind>(op->dtype, Sub(op->a), Sub(op->b)); \
  }
  MINITVM_BIN(AddNode, Bin::kAdd)
  MINITVM_BIN(SubNode, Bin::kSub)
  MINITVM_BIN(MulNode, Bin::kMul)
  MINITVM_BIN(DivNode, Bin::kDiv)
  MINITVM_BIN(ModNode, Bin::kMod)
  MINITVM_BIN(FloorDivNode, Bin::kFloorDiv)
  MINITVM_BIN(FloorModNode, Bin::kFloorMod)
  MINITVM_BIN(MinNode, Bin::kMin)
  MINITVM_BIN(MaxNode, Bin::kMax)
#undef MINITVM_BIN
#define MINITVM_CMP(Node, Kind)                                                \
  EPtr VisitExpr_(const Node* op) override {                                   \
    return std::make_unique<CmpNode<Kind>>(op->dtype, Sub(op->a), Sub(op->b)); \
  }
  MINITVM_CMP(EQNode, Cmp::kEQ)
  MINITVM_CMP(NENode, Cmp::kNE)
  MINITVM_CMP(LTNode, Cmp::kLT)
  MINITVM_CMP(LENode, Cmp::kLE)
  MINITVM_CMP(GTNode, Cmp::kGT)
  MINITVM_CMP(GENode, Cmp::kGE)
#undef MINITVM_CMP
  EPtr VisitExpr_(const AndNode* op) override {
    return std::make_unique<AndE>(op->dtype, Sub(op->a), Sub(op->b));
  }
  EPtr VisitExpr_(const OrNode* op) override {
    return std::make_unique<OrE>(op->dtype, Sub(op->a), Sub(op->b));
  }
  EPtr VisitExpr_(const NotNode* op) override {
    return std::make_unique<NotNodeE>(op->dtype, Sub(op->a));
  }
  EPtr VisitExpr_(const SelectNode* op) override {
    return std::make_unique<SelectNodeE>(op->dtype, Sub(op->condition), Sub(op->true_value),
                                         Sub(op->false_value));
  }
  EPtr VisitExpr_(const BufferLoadNode* op) override { return CompileLoad(cc_, op); }
  EPtr VisitExpr_(const RampNode* op) override {
    return std::make_unique<RampNodeE>(op->dtype, Sub(op->base), Sub(op->stride));
  }
  EPtr VisitExpr_(const BroadcastNode* op) override {
    return std::make_unique<BroadcastNodeE>(op->dtype, Sub(op->value));
  }
  EPtr VisitExpr_(const LetNode* op) override {
    EPtr value = Sub(op->value);
    int lanes = op->var.dtype().lanes();
    int slot = cc_->DefineVar(op->var, lanes);
    EPtr body = Sub(op->body);
    return std::make_unique<LetNodeE>(op->dtype, slot, lanes > 1, std::move(value),
                                      std::move(body));
  }
  EPtr VisitExpr_(const CallNode* op) override {
    const std::string& name = op->op.str();
    auto nargs = [&](size_t n) {
      if (op->args.size() != n) {
        cc_->Error("intrinsic " + name + " takes " + std::to_string(n) + " argument(s), got " +
                   std::to_string(op->args.size()));
      }
    };
    std::optional<Op> intrinsic = GetIntrinsic(name);
    if (const MathReferenceNode* ref = intrinsic ? GetMathReference(*intrinsic) : nullptr) {
      if (ref->unary) {
        nargs(1);
        return std::make_unique<UnaryMath>(op->dtype, ref->unary, Sub(op->args[0]));
      }
      nargs(2);
      return std::make_unique<BinaryMath>(op->dtype, ref->binary, Sub(op->args[0]),
                                          Sub(op->args[1]));
    }
    if (name == "tir.if_then_else") {
      nargs(3);
      return std::make_unique<SelectNodeE>(op->dtype, Sub(op->args[0]), Sub(op->args[1]),
                                           Sub(op->args[2]));
    }
    if (name == "tir.likely" || name == "tir.assume") {
      // Hints to the optimiser; their value is the condition.
      nargs(1);
      return Sub(op->args[0]);
    }
    if (name == "tir.reinterpret") {
      nargs(1);
      return std::make_unique<ReinterpretNode>(op->dtype, Sub(op->args[0]));
    }
    if (name == "tir.isnan" || name == "tir.isinf" || name == "tir.isfinite") {
      nargs(1);
      FPred k = name == "tir.isnan" ? FPred::kIsNan
                                    : (name == "tir.isinf" ? FPred::kIsInf : FPred::kIsFinite);
      return std::make_unique<FloatPredicate>(op->dtype, k, Sub(op->args[0]));
    }
    static const std::unordered_map<std::string, BitOp> bit_ops = {
        {"tir.bitwise_and", BitOp::kAnd},
        {"tir.bitwise_or", BitOp::kOr},
        {"tir.bitwise_xor", BitOp::kXor},
        {"tir.shift_left", BitOp::kShl},
        {"tir.shift_right", BitOp::kShr}};
    if (auto it = bit_ops.find(name); it != bit_ops.end()) {
      nargs(2);
      return std::make_unique<BitwiseNode>(op->dtype, it->second, Sub(op->args[0]),
                                           Sub(op->args[1]));
    }
    if (name == "tir.bitwise_not") {
      nargs(1);
      return std::make_unique<BitNotNode>(op->dtype, Sub(op->args[0]));
    }
    if (name == "tir.call_extern" || name == "tir.call_pure_extern") {
      if (op->args.empty() || !op->args[0].as<StringImmNode>()) {
        cc_->Error(name + ": the first argument must be the function name (a string)");
      }
      std::string fname = op->args[0].as<StringImmNode>()->value.str();
      auto f = runtime::Registry::Get(fname);
      if (!f) {
        cc_->Error("extern function " + fname +
                   " is not registered as a global function, so the interpreter cannot call it");
      }
      auto node = std::make_unique<ExternCall>(op->dtype, *f, fname);
      for (size_t i = 1; i < op->args.size(); ++i) node->args.push_back(Sub(op->args[i]));
      return node;
    }
    if (std::string where = intrinsic ? GetIntrinsicString(*intrinsic, tir::attr::kTargetOnly) : "";
        !where.empty()) {
      cc_->Error("the interpreter does not support the intrinsic " + name + ": it runs only in " +
                 where);
    }
    cc_->Error("the interpreter does not support the intrinsic " + name);
  }
  EPtr VisitExprDefault_(const Object* op) override {
    cc_->Error("the interpreter cannot evaluate a " + op->GetTypeKey() + " node");
  }

 private:
  EPtr Sub(const PrimExpr& e) { return cc_->Expr(e); }
  Compiler* cc_;
};

}  // namespace

EPtr CompileLoad(Compiler* cc, const BufferLoadNode* op) {
  Access acc = MakeAccess(cc, op->buffer, op->indices);
  return MakeByStorage<LoadNodeE>(op->buffer->dtype, op->buffer->name.str(), op->dtype,
                                  std::move(acc));
}

SPtr CompileStore(Compiler* cc, const BufferStoreNode* op) {
  EPtr value = cc->Expr(op->value);
  Access acc = MakeAccess(cc, op->buffer, op->indices);
  int lanes = std::max(op->value.dtype().lanes(), 1);
  for (const PrimExpr& i : op->indices) lanes = std::max(lanes, i.dtype().lanes());
  return MakeByStorage<StoreNodeS>(op->buffer->dtype, op->buffer->name.str(), std::move(acc),
                                   std::move(value), lanes);
}

EPtr CompileExpr(Compiler* cc, const PrimExpr& e) {
  if (!e.defined()) cc->Error("undefined expression");
  ExprCompiler compiler(cc);
  try {
    return compiler.VisitExpr(e);
  } catch (const Error& err) {
    // Nodes outside TIR proper (a te Reduce, a Relax expression) have no dispatch entry.
    if (err.kind() != "InternalError" ||
        std::string(err.what()).find("no dispatch entry") == std::string::npos) {
      throw;
    }
    cc->Error("the interpreter cannot evaluate a " + e->GetTypeKey() +
              " node (a te reduction must go through te.create_prim_func first)");
  }
}

}  // namespace interp
}  // namespace tir
}  // namespace minitvm
