/*!
 * \file expr.cc
 * \brief Constructors of the shared expression nodes: immediates and Range (stage 2).
 */
#include "minitvm/ir/expr.h"

#include <cmath>
#include <limits>

namespace minitvm {

PrimExpr::PrimExpr(int value) : PrimExpr(IntImm(DataType::Int(32), value)) {}
PrimExpr::PrimExpr(int64_t value)
    : PrimExpr(IntImm(value >= std::numeric_limits<int32_t>::min() &&
                              value <= std::numeric_limits<int32_t>::max()
                          ? DataType::Int(32)
                          : DataType::Int(64),
                      value)) {}
PrimExpr::PrimExpr(float value) : PrimExpr(FloatImm(DataType::Float(32), value)) {}
PrimExpr::PrimExpr(double value) : PrimExpr(FloatImm(DataType::Float(32), value)) {}

IntImm::IntImm(DataType dtype, int64_t value) {
  if (!dtype.is_scalar()) MINITVM_THROW(ValueError) << "IntImm: dtype " << dtype << " is a vector";
  if (!(dtype.is_int() || dtype.is_uint())) {
    MINITVM_THROW(ValueError) << "IntImm: dtype must be int, uint or bool, got " << dtype;
  }
  if (dtype.is_bool()) {
    if (value != 0 && value != 1) MINITVM_THROW(ValueError) << "IntImm: bool value " << value;
  } else if (dtype.is_uint()) {
    if (value < 0)
      MINITVM_THROW(ValueError) << "IntImm: negative value " << value << " for " << dtype;
    if (dtype.bits() < 64 && value >= (int64_t(1) << dtype.bits())) {
      MINITVM_THROW(ValueError) << "IntImm: value " << value << " does not fit " << dtype;
    }
  } else if (dtype.bits() < 64) {
    int64_t lo = -(int64_t(1) << (dtype.bits() - 1));
    int64_t hi = (int64_t(1) << (dtype.bits() - 1)) - 1;
    if (value < lo || value > hi) {
      MINITVM_THROW(ValueError) << "IntImm: value " << value << " does not fit " << dtype;
    }
  }
  auto n = make_object<IntImmNode>();
  n->dtype = dtype;
  n->value = value;
  data_ = std::move(n);
}

FloatImm::FloatImm(DataType dtype, double value) {
  if (!(dtype.is_float() || dtype.is_bfloat16()) || !dtype.is_scalar()) {
    MINITVM_THROW(ValueError) << "FloatImm: dtype must be a scalar float, got " << dtype;
  }
  if (std::isfinite(value)) {
    // A finite value must stay finite once rounded to the dtype (TVM checks the same range);
    // an infinity has to be asked for explicitly. The limits are the midpoints between the
    // largest finite value and the next power of two: anything from there on rounds to inf.
    double limit = std::numeric_limits<double>::infinity();
    double largest = 0;
    if (dtype.is_bfloat16()) {
      limit = std::ldexp(1.0, 128) - std::ldexp(1.0, 119);
      largest = std::ldexp(1.0, 128) - std::ldexp(1.0, 120);
    } else if (dtype.bits() == 32) {
      limit = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
      largest = std::numeric_limits<float>::max();
    } else if (dtype.bits() == 16) {
      limit = 65520.0;
      largest = 65504.0;
    }
    if (std::fabs(value) >= limit) {
      MINITVM_THROW(ValueError) << "FloatImm: value " << value << " does not fit " << dtype
                                << " (largest finite value " << largest
                                << "); pass inf explicitly for an infinity";
    }
  }
  auto n = make_object<FloatImmNode>();
  n->dtype = dtype;
  n->value = dtype.bits() == 32 && std::isfinite(value)
                 ? static_cast<double>(static_cast<float>(value))
                 : value;
  data_ = std::move(n);
}

Range::Range(PrimExpr min, PrimExpr extent) {
  if (!min.defined() || !extent.defined()) MINITVM_THROW(ValueError) << "Range: undefined bound";
  // Ranges count loop iterations and buffer elements: their bounds are integers.
  for (const auto& [field, e] : {std::pair<const char*, const PrimExpr&>{"min", min},
                                 std::pair<const char*, const PrimExpr&>{"extent", extent}}) {
    DataType t = e.dtype();
    if (!(t.is_int() || t.is_uint()) || t.is_bool()) {
      if (auto* f = e.as<FloatImmNode>()) {
        MINITVM_THROW(ValueError) << "Range: " << field << " must be an integer, got the " << t
                                  << " value " << f->value;
      }
      MINITVM_THROW(ValueError) << "Range: " << field << " must be an integer, got a " << t
                                << " expression";
    }
  }
  auto n = make_object<RangeNode>();
  n->min = std::move(min);
  n->extent = std::move(extent);
  data_ = std::move(n);
}

namespace runtime {
PrimExpr AnyConverter<PrimExpr>::Convert(const Any& a) {
  if (a.is_bool()) return IntImm(DataType::Bool(), a.raw_int());
  if (a.is_int()) return PrimExpr(a.raw_int());
  if (a.is_float()) return PrimExpr(a.raw_float());
  if (a.is_null()) return PrimExpr();
  if (auto* e = a.as<PrimExprNode>()) return GetRef<PrimExpr>(e);
  a.ThrowTypeMismatch("PrimExpr");
}
}  // namespace runtime

}  // namespace minitvm
