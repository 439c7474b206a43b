/*!
 * \file op.cc
 * \brief Expression building with TVM's dtype promotion and integer constant folding, and
 * the math intrinsics (stage 2).
 */
#include "minitvm/tir/op.h"

#include <cmath>
#include <limits>
#include <optional>

#include "minitvm/ir/op.h"

namespace minitvm {
namespace tir {
namespace {

bool IsImm(const PrimExpr& e) { return e.as<IntImmNode>() || e.as<FloatImmNode>(); }

void CheckOperand(const PrimExpr& e, const char* op) {
  if (!e.defined()) MINITVM_THROW(ValueError) << "operator " << op << ": undefined operand";
  if (e.dtype().is_handle() || e.dtype().is_void()) {
    MINITVM_THROW(ValueError) << "operator " << op << ": operand of type " << e.dtype()
                              << " is not a number";
  }
}

/*! \brief Convert an immediate to `t` without building a Cast node. */
PrimExpr ConvertImm(const PrimExpr& imm, DataType t) {
  if (auto* i = imm.as<IntImmNode>()) return make_const(t, static_cast<double>(i->value));
  if (auto* f = imm.as<FloatImmNode>()) return make_const(t, f->value);
  return cast(t, imm);
}

/*!
 * \brief Bring a and b to one dtype (TVM's BinaryOpMatchTypes): lanes broadcast, immediates
 * adapt, ints widen, int meets float as float, bool meets int as int.
 */
void MatchTypes(PrimExpr& a, PrimExpr& b, const char* op) {
  CheckOperand(a, op);
  CheckOperand(b, op);
  DataType ta = a.dtype(), tb = b.dtype();
  if (ta == tb) return;
  if (ta.lanes() != tb.lanes()) {
    if (ta.lanes() == 1) {
      a = Broadcast(a, tb.lanes());
    } else if (tb.lanes() == 1) {
      b = Broadcast(b, ta.lanes());
    } else {
      MINITVM_THROW(ValueError) << "operator " << op << ": vector lanes differ: " << ta << " vs "
                                << tb;
    }
    ta = a.dtype();
    tb = b.dtype();
    if (ta == tb) return;
  }
  auto to = [](PrimExpr& e, DataType t) {
    if (IsImm(e) && t.is_scalar()) {
      e = ConvertImm(e, t);
    } else {
      e = cast(t, e);
    }
  };
  bool fa = ta.is_float() || ta.is_bfloat16(), fb = tb.is_float() || tb.is_bfloat16();
  if (fa && !fb) {
    to(b, ta);
  } else if (fb && !fa) {
    to(a, tb);
  } else if (IsImm(b) && !IsImm(a)) {
    to(b, ta);
  } else if (IsImm(a) && !IsImm(b)) {
    to(a, tb);
  } else if (ta.is_bool() && !tb.is_bool()) {
    to(a, tb);
  } else if (tb.is_bool() && !ta.is_bool()) {
    to(b, ta);
  } else if (fa && fb) {
    if (ta.bits() >= tb.bits())
      to(b, ta);
    else
      to(a, tb);
  } else if ((ta.is_int() || ta.is_uint()) && (tb.is_int() || tb.is_uint())) {
    int bits = std::max(ta.bits(), tb.bits());
    DataType t = (ta.is_uint() && tb.is_uint()) ? DataType::UInt(bits, ta.lanes())
                                                : DataType::Int(bits, ta.lanes());
    if (ta != t) to(a, t);
    if (tb != t) to(b, t);
  } else {
    MINITVM_THROW(ValueError) << "operator " << op << ": incompatible operand types " << ta
                              << " and " << tb;
  }
}

std::optional<int64_t> ConstInt(const PrimExpr& e) { return AsConstInt(e); }
std::optional<double> ConstFloat(const PrimExpr& e) {
  if (auto* f = e.as<FloatImmNode>()) return f->value;
  return std::nullopt;
}

/*!
 * \brief Fold an integer constant result, or nullopt when it overflows or does not fit the
 * dtype (the caller then builds the node instead of folding).
 */
std::optional<PrimExpr> FoldInt(DataType t, bool overflow, int64_t value) {
  if (overflow || !t.is_scalar()) return std::nullopt;
  if (t.is_int() && t.bits() < 64) {
    int64_t lo = -(int64_t(1) << (t.bits() - 1)), hi = (int64_t(1) << (t.bits() - 1)) - 1;
    if (value < lo || value > hi) return std::nullopt;
  } else if (t.is_uint() && (value < 0 || (t.bits() < 64 && value >= (int64_t(1) << t.bits())))) {
    return std::nullopt;
  } else if (!(t.is_int() || t.is_uint())) {
    return std::nullopt;
  }
  return IntImm(t, value);
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorModInt(int64_t a, int64_t b) {
  // Without the multiplication of FloorDivInt(a, b) * b, which overflows for b = INT64_MIN.
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
/*! \brief Whether x / y and x % y can be folded: INT64_MIN / -1 overflows (and traps). */
bool CanFoldDiv(std::optional<int64_t> x, std::optional<int64_t> y) {
  return x && y && !(*x == std::numeric_limits<int64_t>::min() && *y == -1);
}

void CheckIntDivisor(const PrimExpr& b, const char* op) {
  if (auto v = ConstInt(b); v && *v == 0) {
    MINITVM_THROW(ValueError) << "operator " << op << ": division by zero";
  }
}

}  // namespace

PrimExpr make_const(DataType t, double value) {
  if (t.lanes() > 1) return Broadcast(make_const(t.element_of(), value), t.lanes());
  if (t.is_bool()) return IntImm(t, value != 0);
  if (t.is_int() || t.is_uint()) {
    // Converting a double outside int64's range (or NaN) to int64 is undefined behaviour.
    if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) {
      MINITVM_THROW(ValueError) << "make_const: " << value << " does not fit " << t;
    }
    return IntImm(t, static_cast<int64_t>(value));
  }
  if (t.is_float() || t.is_bfloat16()) return FloatImm(t, value);
  MINITVM_THROW(ValueError) << "make_const: no constants of type " << t;
}
PrimExpr make_zero(DataType t) { return make_const(t, 0); }
PrimExpr const_true() { return IntImm(DataType::Bool(), 1); }

PrimExpr min_value(DataType t) {
  if (t.is_int())
    return IntImm(
        t, t.bits() == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (t.bits() - 1)));
  if (t.is_uint()) return IntImm(t, 0);
  if (t.is_float()) {
    if (t.bits() == 64) return FloatImm(t, std::numeric_limits<double>::lowest());
    if (t.bits() == 16) return FloatImm(t, -65504.0);
    return FloatImm(t, std::numeric_limits<float>::lowest());
  }
  MINITVM_THROW(ValueError) << "min_value: no minimum for " << t;
}
PrimExpr max_value(DataType t) {
  if (t.is_int())
    return IntImm(t, t.bits() == 64 ? std::numeric_limits<int64_t>::max()
                                    : (int64_t(1) << (t.bits() - 1)) - 1);
  if (t.is_uint()) {
    return IntImm(
        t, t.bits() >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << t.bits()) - 1);
  }
  if (t.is_float()) {
    if (t.bits() == 64) return FloatImm(t, std::numeric_limits<double>::max());
    if (t.bits() == 16) return FloatImm(t, 65504.0);
    return FloatImm(t, std::numeric_limits<float>::max());
  }
  MINITVM_THROW(ValueError) << "max_value: no maximum for " << t;
}

PrimExpr cast(DataType t, PrimExpr value) {
  if (!value.defined()) MINITVM_THROW(ValueError) << "cast: undefined value";
  if (value.dtype() == t) return value;
  if (t.lanes() != value.dtype().lanes()) {
    if (value.dtype().lanes() == 1) return Broadcast(cast(t.element_of(), value), t.lanes());
    MINITVM_THROW(ValueError) << "cast: cannot cast " << value.dtype() << " to " << t;
  }
  if (t.is_scalar() && IsImm(value)) {
    if (auto i = ConstInt(value)) {
      if (t.is_float() || t.is_int() || t.is_bool() || (t.is_uint() && *i >= 0)) {
        return make_const(t, static_cast<double>(*i));
      }
    }
    if (auto f = ConstFloat(value); f && (t.is_float())) return make_const(t, *f);
  }
  return Cast(t, value);
}

PrimExpr select(PrimExpr c, PrimExpr t, PrimExpr f) {
  MatchTypes(t, f, "select");
  if (auto v = ConstInt(c)) return *v ? t : f;
  return Select(c, t, f);
}
PrimExpr if_then_else(PrimExpr c, PrimExpr t, PrimExpr f) {
  MatchTypes(t, f, "if_then_else");
  if (!c.defined() || !c.dtype().is_bool()) {
    MINITVM_THROW(ValueError) << "if_then_else: condition must be bool";
  }
  if (auto v = ConstInt(c)) return *v ? t : f;
  return Call(t.dtype(), "tir.if_then_else", {c, t, f});
}
PrimExpr likely(PrimExpr c) { return Call(c.dtype(), "tir.likely", {c}); }

PrimExpr floordiv(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "floordiv");
  if (a.dtype().is_int() || a.dtype().is_uint()) {
    CheckIntDivisor(b, "floordiv");
    auto x = ConstInt(a), y = ConstInt(b);
    if (CanFoldDiv(x, y)) return IntImm(a.dtype(), FloorDivInt(*x, *y));
    if (y && *y == 1) return a;
    return FloorDiv(a, b);
  }
  return floor(Div(a, b));
}
PrimExpr floormod(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "floormod");
  if (a.dtype().is_int() || a.dtype().is_uint()) {
    CheckIntDivisor(b, "floormod");
    auto x = ConstInt(a), y = ConstInt(b);
    if (CanFoldDiv(x, y)) return IntImm(a.dtype(), FloorModInt(*x, *y));
    if (y && *y == 1) return make_zero(a.dtype());
  }
  return FloorMod(a, b);
}
PrimExpr truncdiv(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "truncdiv");
  CheckIntDivisor(b, "truncdiv");
  auto x = ConstInt(a), y = ConstInt(b);
  if (CanFoldDiv(x, y)) return IntImm(a.dtype(), *x / *y);
  return Div(a, b);
}
PrimExpr truncmod(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "truncmod");
  CheckIntDivisor(b, "truncmod");
  auto x = ConstInt(a), y = ConstInt(b);
  if (CanFoldDiv(x, y)) return IntImm(a.dtype(), *x % *y);
  return Mod(a, b);
}
PrimExpr min(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "min");
  auto x = ConstInt(a), y = ConstInt(b);
  if (x && y) return IntImm(a.dtype(), std::min(*x, *y));
  return Min(a, b);
}
PrimExpr max(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "max");
  auto x = ConstInt(a), y = ConstInt(b);
  if (x && y) return IntImm(a.dtype(), std::max(*x, *y));
  return Max(a, b);
}

PrimExpr CallFloatIntrinsic(const std::string& op, Array<PrimExpr> args) {
  std::string short_name = op.rfind("tir.", 0) == 0 ? op.substr(4) : op;
  const char* name = short_name.c_str();
  if (args.size() == 2) {
    PrimExpr x = args[0], y = args[1];
    MatchTypes(x, y, name);
    if (!x.dtype().is_float()) {
      x = cast(DataType::Float(32, x.dtype().lanes()), x);
      y = cast(DataType::Float(32, y.dtype().lanes()), y);
    }
    return Call(x.dtype(), op, {x, y});
  }
  if (args.size() != 1) {
    MINITVM_THROW(ValueError) << "operator " << short_name << " takes 1 or 2 operands, got "
                              << args.size();
  }
  PrimExpr x = args[0];
  CheckOperand(x, name);
  if (!(x.dtype().is_float())) x = cast(DataType::Float(32, x.dtype().lanes()), x);
  return Call(x.dtype(), op, {x});
}

PrimExpr exp(PrimExpr x) { return CallFloatIntrinsic("tir.exp", {x}); }
PrimExpr log(PrimExpr x) { return CallFloatIntrinsic("tir.log", {x}); }
PrimExpr sqrt(PrimExpr x) { return CallFloatIntrinsic("tir.sqrt", {x}); }
PrimExpr rsqrt(PrimExpr x) { return CallFloatIntrinsic("tir.rsqrt", {x}); }
PrimExpr tanh(PrimExpr x) { return CallFloatIntrinsic("tir.tanh", {x}); }
PrimExpr sigmoid(PrimExpr x) { return CallFloatIntrinsic("tir.sigmoid", {x}); }
PrimExpr erf(PrimExpr x) { return CallFloatIntrinsic("tir.erf", {x}); }
PrimExpr fabs(PrimExpr x) { return CallFloatIntrinsic("tir.fabs", {x}); }
PrimExpr floor(PrimExpr x) { return CallFloatIntrinsic("tir.floor", {x}); }
PrimExpr ceil(PrimExpr x) { return CallFloatIntrinsic("tir.ceil", {x}); }
PrimExpr round(PrimExpr x) { return CallFloatIntrinsic("tir.round", {x}); }
PrimExpr abs(PrimExpr x) {
  CheckOperand(x, "abs");
  if (x.dtype().is_float()) return fabs(x);
  if (x.dtype().is_uint()) return x;
  if (auto v = ConstInt(x)) return IntImm(x.dtype(), *v < 0 ? -*v : *v);
  return Select(x >= make_zero(x.dtype()), x, -x);
}
PrimExpr pow(PrimExpr x, PrimExpr y) { return CallFloatIntrinsic("tir.pow", {x, y}); }
PrimExpr reinterpret(DataType t, PrimExpr x) {
  CheckOperand(x, "reinterpret");
  if (t.bits() * t.lanes() != x.dtype().bits() * x.dtype().lanes()) {
    MINITVM_THROW(ValueError) << "reinterpret: " << x.dtype() << " and " << t
                              << " have different sizes";
  }
  return Call(t, "tir.reinterpret", {x});
}
PrimExpr call_extern(DataType t, String name, Array<PrimExpr> args) {
  Array<PrimExpr> all{StringImm(name)};
  for (const PrimExpr& a : args) all.push_back(a);
  return Call(t, "tir.call_extern", all);
}

bool IsKnownIntrinsic(const std::string& op) { return op.rfind("tir.", 0) == 0 && Op::Has(op); }

}  // namespace tir

using tir::MatchTypes;

PrimExpr operator+(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "+");
  auto x = tir::ConstInt(a), y = tir::ConstInt(b);
  if (x && y) {
    int64_t r;
    bool ov = __builtin_add_overflow(*x, *y, &r);
    if (auto f = tir::FoldInt(a.dtype(), ov, r)) return *f;
  }
  if (y && *y == 0) return a;
  if (x && *x == 0) return b;
  return tir::Add(a, b);
}
PrimExpr operator-(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "-");
  auto x = tir::ConstInt(a), y = tir::ConstInt(b);
  if (x && y) {
    int64_t r;
    bool ov = __builtin_sub_overflow(*x, *y, &r);
    if (auto f = tir::FoldInt(a.dtype(), ov, r)) return *f;
  }
  if (y && *y == 0) return a;
  return tir::Sub(a, b);
}
PrimExpr operator-(PrimExpr a) {
  tir::CheckOperand(a, "-");
  if (auto x = tir::ConstInt(a)) {
    if (auto f = tir::FoldInt(a.dtype(), *x == std::numeric_limits<int64_t>::min(), -*x)) return *f;
  }
  if (auto f = tir::ConstFloat(a)) return FloatImm(a.dtype(), -*f);
  return tir::make_zero(a.dtype()) - a;
}
PrimExpr operator*(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "*");
  auto x = tir::ConstInt(a), y = tir::ConstInt(b);
  if (x && y) {
    int64_t r;
    bool ov = __builtin_mul_overflow(*x, *y, &r);
    if (auto f = tir::FoldInt(a.dtype(), ov, r)) return *f;
  }
  if (y && *y == 1) return a;
  if (x && *x == 1) return b;
  if ((x && *x == 0) || (y && *y == 0)) return tir::make_zero(a.dtype());
  return tir::Mul(a, b);
}
PrimExpr operator/(PrimExpr a, PrimExpr b) {
  MatchTypes(a, b, "/");
  if (a.dtype().is_int() || a.dtype().is_uint()) return tir::truncdiv(a, b);
  return tir::Div(a, b);
}
PrimExpr operator%(PrimExpr a, PrimExpr b) { return tir::truncmod(a, b); }

#define MINITVM_CMP_OP(Op, Node, Fold)                          \
  PrimExpr operator Op(PrimExpr a, PrimExpr b) {                \
    MatchTypes(a, b, #Op);                                      \
    auto x = tir::ConstInt(a), y = tir::ConstInt(b);            \
    if (x && y) return IntImm(DataType::Bool(), (*x Fold * y)); \
    return tir::Node(a, b);                                     \
  }
MINITVM_CMP_OP(==, EQ, ==)
MINITVM_CMP_OP(!=, NE, !=)
MINITVM_CMP_OP(<, LT, <)
MINITVM_CMP_OP(<=, LE, <=)
MINITVM_CMP_OP(>, GT, >)
MINITVM_CMP_OP(>=, GE, >=)
#undef MINITVM_CMP_OP

PrimExpr operator&&(PrimExpr a, PrimExpr b) {
  tir::CheckOperand(a, "&&");
  tir::CheckOperand(b, "&&");
  auto x = tir::ConstInt(a), y = tir::ConstInt(b);
  if (x) return *x ? b : a;
  if (y) return *y ? a : b;
  return tir::And(a, b);
}
PrimExpr operator||(PrimExpr a, PrimExpr b) {
  tir::CheckOperand(a, "||");
  tir::CheckOperand(b, "||");
  auto x = tir::ConstInt(a), y = tir::ConstInt(b);
  if (x) return *x ? a : b;
  if (y) return *y ? b : a;
  return tir::Or(a, b);
}
PrimExpr operator!(PrimExpr a) {
  tir::CheckOperand(a, "!");
  if (auto x = tir::ConstInt(a)) return IntImm(DataType::Bool(), !*x);
  return tir::Not(a);
}

}  // namespace minitvm
