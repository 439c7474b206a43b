/*!
 * \file topi_util.h
 * \brief Helpers shared by the TOPI sources (stage 2): axis normalisation, constant
 * extraction with named errors, window/padding argument expansion and index simplification.
 */
#ifndef MINITVM_SRC_TOPI_TOPI_UTIL_H_
#define MINITVM_SRC_TOPI_TOPI_UTIL_H_

#include <array>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/arith/analyzer.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace topi {
namespace detail {

using te::Tensor;
using tir::Var;

/*! \brief "(2, n, 4)" */
inline std::string ShapeStr(const Array<PrimExpr>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    os << (i ? ", " : "");
    if (auto c = AsConstInt(shape[i])) {
      os << *c;
    } else if (auto* v = shape[i].as<tir::VarNode>()) {
      os << v->name_hint.str();
    } else {
      os << "?";
    }
  }
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

/*! \brief axis in [-ndim, ndim) → [0, ndim); ValueError naming the operator otherwise. */
inline int64_t NormalizeAxis(int64_t axis, int64_t ndim, const std::string& op) {
  if (axis < -ndim || axis >= ndim) {
    MINITVM_THROW(ValueError) << op << ": axis " << axis << " is out of range for a tensor of rank "
                              << ndim;
  }
  return axis < 0 ? axis + ndim : axis;
}

/*! \brief The constant value of e; ValueError "<op>: <what> must be a constant". */
inline int64_t GetConstInt(const PrimExpr& e, const std::string& op, const std::string& what) {
  auto v = AsConstInt(e);
  if (!v) MINITVM_THROW(ValueError) << op << ": " << what << " must be a constant";
  return *v;
}

/*! \brief Whether two extents are known to be equal (same constant or same variable). */
inline bool SameExtent(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  auto x = AsConstInt(a), y = AsConstInt(b);
  return x && y && *x == *y;
}

/*! \brief A window attribute of 1 or 2 values as (h, w). */
inline std::array<int64_t, 2> Pair(const std::vector<int64_t>& v, const std::string& op,
                                   const std::string& what) {
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1]};
  MINITVM_THROW(ValueError) << op << ": " << what << " takes 1 or 2 values, got " << v.size();
}

/*! \brief Padding of 1, 2 or 4 values as (top, left, bottom, right). */
inline std::array<int64_t, 4> Padding4(const std::vector<int64_t>& p, const std::string& op) {
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  if (p.size() == 4) return {p[0], p[1], p[2], p[3]};
  MINITVM_THROW(ValueError) << op << ": padding takes 1, 2 or 4 values, got " << p.size();
}

/*! \brief A constant of the dtype of `like`. */
inline PrimExpr IndexConst(const PrimExpr& like, int64_t v) {
  return tir::make_const(like.dtype(), static_cast<double>(v));
}

/*! \brief Simplify an index expression with the arithmetic analyzer. */
inline PrimExpr Simplify(const PrimExpr& e) {
  arith::Analyzer analyzer;
  return analyzer.Simplify(e);
}

/*! \brief The number of elements of a shape (an expression). */
inline PrimExpr Prod(const Array<PrimExpr>& shape, DataType t) {
  PrimExpr p = tir::make_const(t, 1);
  for (const PrimExpr& d : shape) p = p * tir::cast(t, d);
  return p;
}

/*! \brief The dtype of a tensor's index expressions (its first extent's, else int32). */
inline DataType IndexType(const Tensor& x) {
  return x->shape.empty() ? DataType::Int(32) : x->shape[0].dtype();
}

}  // namespace detail
}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_SRC_TOPI_TOPI_UTIL_H_
