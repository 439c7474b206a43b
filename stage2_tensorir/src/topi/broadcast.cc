/*!
 * \file broadcast.cc
 * \brief Binary operators with NumPy broadcasting and broadcast_to (stage 2).
 */
#include "minitvm/topi/broadcast.h"

#include <functional>

#include "topi_util.h"

namespace minitvm {
namespace topi {

using detail::SameExtent;
using detail::ShapeStr;
using tir::Var;

Array<PrimExpr> BroadcastShape(const Array<PrimExpr>& a, const Array<PrimExpr>& b,
                               const std::string& op) {
  size_t n = std::max(a.size(), b.size());
  Array<PrimExpr> out;
  for (size_t i = 0; i < n; ++i) {
    bool has_a = i + a.size() >= n, has_b = i + b.size() >= n;
    if (!has_a) {
      out.push_back(b[i + b.size() - n]);
      continue;
    }
    if (!has_b) {
      out.push_back(a[i + a.size() - n]);
      continue;
    }
    PrimExpr da = a[i + a.size() - n], db = b[i + b.size() - n];
    auto ca = AsConstInt(da), cb = AsConstInt(db);
    if (SameExtent(da, db)) {
      out.push_back(da);
    } else if (ca && *ca == 1) {
      out.push_back(db);
    } else if (cb && *cb == 1) {
      out.push_back(da);
    } else if (ca && cb) {
      MINITVM_THROW(ValueError) << op << ": shapes " << ShapeStr(a) << " and " << ShapeStr(b)
                                << " cannot be broadcast together";
    } else {
      out.push_back(ca ? da : db);  // symbolic against symbolic/constant: assumed equal
    }
  }
  return out;
}

namespace {

/*! \brief The index into `t` of output element `idx` of a broadcast of shape `out_shape`. */
Array<PrimExpr> BroadcastIndex(const Tensor& t, const Array<Var>& idx,
                               const Array<PrimExpr>& out_shape) {
  Array<PrimExpr> out;
  size_t offset = idx.size() - t->shape.size();
  for (size_t d = 0; d < t->shape.size(); ++d) {
    const PrimExpr& ext = t->shape[d];
    auto c = AsConstInt(ext);
    auto co = AsConstInt(out_shape[d + offset]);
    if (c && *c == 1 && !(co && *co == 1)) {
      out.push_back(tir::make_zero(ext.dtype()));
    } else {
      out.push_back(idx[d + offset]);
    }
  }
  return out;
}

using FBinary = std::function<PrimExpr(PrimExpr, PrimExpr)>;

Tensor Broadcast(const Tensor& a, const Tensor& b, const FBinary& f, const std::string& name,
                 const std::string& tag, const std::string& op) {
  Array<PrimExpr> shape = BroadcastShape(a->shape, b->shape, op);
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       return f(a(BroadcastIndex(a, i, shape)), b(BroadcastIndex(b, i, shape)));
                     }),
                     name, tag);
}

Tensor WithScalarRight(const Tensor& a, const PrimExpr& b, const FBinary& f,
                       const std::string& name, const std::string& tag) {
  return te::compute(a->shape, te::FCompute([&](const Array<Var>& i) { return f(a(i), b); }), name,
                     tag);
}

Tensor WithScalarLeft(const PrimExpr& a, const Tensor& b, const FBinary& f, const std::string& name,
                      const std::string& tag) {
  return te::compute(b->shape, te::FCompute([&](const Array<Var>& i) { return f(a, b(i)); }), name,
                     tag);
}

PrimExpr AsBool(const PrimExpr& e) {
  return e.dtype().is_bool() ? e : (e != tir::make_zero(e.dtype()));
}

}  // namespace

Tensor broadcast_to(const Tensor& x, const Array<PrimExpr>& shape, std::string name,
                    std::string tag) {
  if (shape.size() < x->shape.size()) {
    MINITVM_THROW(ValueError) << "broadcast_to: cannot broadcast " << ShapeStr(x->shape)
                              << " to the lower-rank shape " << ShapeStr(shape);
  }
  Array<PrimExpr> checked = BroadcastShape(x->shape, shape, "broadcast_to");
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!SameExtent(checked[i], shape[i]) && AsConstInt(checked[i]) && AsConstInt(shape[i])) {
      MINITVM_THROW(ValueError) << "broadcast_to: cannot broadcast " << ShapeStr(x->shape) << " to "
                                << ShapeStr(shape);
    }
  }
  return te::compute(
      shape, te::FCompute([&](const Array<Var>& i) { return x(BroadcastIndex(x, i, shape)); }),
      name, tag);
}

#define MINITVM_TOPI_DEFINE_BINARY(Name, Expr)                                         \
  Tensor Name(const Tensor& a, const Tensor& b, std::string name, std::string tag) {   \
    return Broadcast(                                                                  \
        a, b, [](PrimExpr x, PrimExpr y) { return Expr; }, name, tag, #Name);          \
  }                                                                                    \
  Tensor Name(const Tensor& a, const PrimExpr& b, std::string name, std::string tag) { \
    return WithScalarRight(                                                            \
        a, b, [](PrimExpr x, PrimExpr y) { return Expr; }, name, tag);                 \
  }                                                                                    \
  Tensor Name(const PrimExpr& a, const Tensor& b, std::string name, std::string tag) { \
    return WithScalarLeft(                                                             \
        a, b, [](PrimExpr x, PrimExpr y) { return Expr; }, name, tag);                 \
  }

MINITVM_TOPI_DEFINE_BINARY(add, x + y)
MINITVM_TOPI_DEFINE_BINARY(subtract, x - y)
MINITVM_TOPI_DEFINE_BINARY(multiply, x* y)
MINITVM_TOPI_DEFINE_BINARY(divide, x / y)
MINITVM_TOPI_DEFINE_BINARY(floor_divide, tir::floordiv(x, y))
MINITVM_TOPI_DEFINE_BINARY(mod, x % y)
MINITVM_TOPI_DEFINE_BINARY(floor_mod, tir::floormod(x, y))
MINITVM_TOPI_DEFINE_BINARY(power, tir::pow(x, y))
MINITVM_TOPI_DEFINE_BINARY(maximum, tir::max(x, y))
MINITVM_TOPI_DEFINE_BINARY(minimum, tir::min(x, y))
MINITVM_TOPI_DEFINE_BINARY(equal, x == y)
MINITVM_TOPI_DEFINE_BINARY(not_equal, x != y)
MINITVM_TOPI_DEFINE_BINARY(less, x < y)
MINITVM_TOPI_DEFINE_BINARY(less_equal, x <= y)
MINITVM_TOPI_DEFINE_BINARY(greater, x > y)
MINITVM_TOPI_DEFINE_BINARY(greater_equal, x >= y)
MINITVM_TOPI_DEFINE_BINARY(logical_and, AsBool(x) && AsBool(y))
MINITVM_TOPI_DEFINE_BINARY(logical_or, AsBool(x) || AsBool(y))
MINITVM_TOPI_DEFINE_BINARY(logical_xor, AsBool(x) != AsBool(y))
#undef MINITVM_TOPI_DEFINE_BINARY

}  // namespace topi
}  // namespace minitvm
