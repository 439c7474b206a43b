/*!
 * \file transform/legalize/tensor_ops.cc
 * \brief `FLegalize` of the Relax tensor operators (stage 4): elementwise arithmetic and
 * comparisons, math functions, `where`, `astype`, `matmul`, shape manipulation, indexing,
 * reductions and creation — each lowered to a PrimFunc built with the stage-2 TE operator
 * library (`topi`) and called through `R.call_tir`. Where topi has no exact equivalent the
 * te.compute is written here (marked "here").
 *
 * Shapes come from the call's inferred struct info wherever the op is a pure re-indexing
 * (reshape, flatten, expand_dims, squeeze, broadcast_to), so a symbolic dimension stays the
 * same TIR variable the Relax program uses.
 */
#include "minitvm/te/reduce.h"
#include "minitvm/tir/op.h"
#include "minitvm/topi/topi.h"
#include "transform/legalize/legalize_common.h"

namespace minitvm {
namespace relax {
namespace legalize {
namespace {

using te::Tensor;
using TArr = Array<te::Tensor>;

// ---- binary -----------------------------------------------------------------------------------
#define MINITVM_LEGALIZE_BINARY(Name)                                     \
  MINITVM_RELAX_LEGALIZE("relax." #Name) {                                \
    return CallTE1(bb, #Name, {call->args[0], call->args[1]},             \
                   [](const TArr& t) { return topi::Name(t[0], t[1]); }); \
  });

MINITVM_LEGALIZE_BINARY(add)
MINITVM_LEGALIZE_BINARY(subtract)
MINITVM_LEGALIZE_BINARY(multiply)
// TIR's `/` truncates integers (C semantics), as the reference does.
MINITVM_LEGALIZE_BINARY(divide)
MINITVM_LEGALIZE_BINARY(floor_divide)
MINITVM_LEGALIZE_BINARY(maximum)
MINITVM_LEGALIZE_BINARY(minimum)
MINITVM_LEGALIZE_BINARY(equal)
MINITVM_LEGALIZE_BINARY(not_equal)
MINITVM_LEGALIZE_BINARY(less)
MINITVM_LEGALIZE_BINARY(less_equal)
MINITVM_LEGALIZE_BINARY(greater)
MINITVM_LEGALIZE_BINARY(greater_equal)
#undef MINITVM_LEGALIZE_BINARY

// Here: TIR's pow is a float intrinsic, so integer powers go through float64 and back.
MINITVM_RELAX_LEGALIZE("relax.power") {
  DataType dt = OutDType(call);
  return CallTE1(bb, "power", {call->args[0], call->args[1]}, [dt](const TArr& t) {
    if (dt.is_float()) return topi::power(t[0], t[1]);
    Array<PrimExpr> shape = topi::BroadcastShape(t[0]->shape, t[1]->shape, "power");
    Tensor a = topi::broadcast_to(t[0], shape), b = topi::broadcast_to(t[1], shape);
    return te::compute(shape, te::FCompute([&](const Array<tir::Var>& i) {
                         PrimExpr f64 = tir::pow(tir::cast(DataType::Float(64), a(i)),
                                                 tir::cast(DataType::Float(64), b(i)));
                         return tir::cast(dt, tir::round(f64));
                       }),
                       "T_power", topi::kBroadcast);
  });
});

MINITVM_RELAX_LEGALIZE("relax.where") {
  return CallTE1(bb, "where", {call->args[0], call->args[1], call->args[2]},
                 [](const TArr& t) { return topi::where(t[0], t[1], t[2]); });
});

// ---- unary ------------------------------------------------------------------------------------
#define MINITVM_LEGALIZE_UNARY(Name)                                                            \
  MINITVM_RELAX_LEGALIZE("relax." #Name) {                                                      \
    return CallTE1(bb, #Name, {call->args[0]}, [](const TArr& t) { return topi::Name(t[0]); }); \
  });

MINITVM_LEGALIZE_UNARY(exp)
MINITVM_LEGALIZE_UNARY(log)
MINITVM_LEGALIZE_UNARY(sqrt)
MINITVM_LEGALIZE_UNARY(rsqrt)
MINITVM_LEGALIZE_UNARY(tanh)
MINITVM_LEGALIZE_UNARY(sigmoid)
MINITVM_LEGALIZE_UNARY(erf)
MINITVM_LEGALIZE_UNARY(negative)
MINITVM_LEGALIZE_UNARY(abs)
#undef MINITVM_LEGALIZE_UNARY

MINITVM_RELAX_LEGALIZE("relax.astype") {
  DataType dt = OutDType(call);
  return CallTE1(bb, "cast", {call->args[0]}, [dt](const TArr& t) { return topi::cast(t[0], dt); });
});

// ---- matmul -----------------------------------------------------------------------------------
MINITVM_RELAX_LEGALIZE("relax.matmul") {
  DataType out_dtype = AttrDType(call, "out_dtype");
  return CallTE1(bb, "matmul", {call->args[0], call->args[1]}, [out_dtype](const TArr& t) {
    Tensor a = t[0], b = t[1];
    // As the reference: with out_dtype the operands are converted first.
    if (!out_dtype.is_void() && a->dtype != out_dtype) a = topi::cast(a, out_dtype);
    if (!out_dtype.is_void() && b->dtype != out_dtype) b = topi::cast(b, out_dtype);
    return topi::matmul(a, b, false, false, out_dtype);
  });
});

// ---- manipulation -----------------------------------------------------------------------------
MINITVM_RELAX_LEGALIZE("relax.permute_dims") {
  auto axes = AttrInts(call, "axes");
  return CallTE1(bb, "transpose", {call->args[0]},
                 [axes](const TArr& t) { return topi::transpose(t[0], axes); });
});

/*! \brief A legalizer that re-indexes its first argument to the call's inferred shape. */
Expr ReshapeTo(BlockBuilder bb, const Call& call, const std::string& name) {
  Array<PrimExpr> shape = OutShape(call);
  return CallTE1(bb, name, {call->args[0]},
                 [shape](const TArr& t) { return topi::reshape(t[0], shape); });
}

MINITVM_RELAX_LEGALIZE("relax.reshape") { return ReshapeTo(bb, call, "reshape"); });
MINITVM_RELAX_LEGALIZE("relax.flatten") { return ReshapeTo(bb, call, "reshape"); });
MINITVM_RELAX_LEGALIZE("relax.expand_dims") { return ReshapeTo(bb, call, "expand_dims"); });
MINITVM_RELAX_LEGALIZE("relax.squeeze") { return ReshapeTo(bb, call, "squeeze"); });

MINITVM_RELAX_LEGALIZE("relax.broadcast_to") {
  Array<PrimExpr> shape = OutShape(call);
  return CallTE1(bb, "broadcast_to", {call->args[0]},
                 [shape](const TArr& t) { return topi::broadcast_to(t[0], shape); });
});

/*! \brief The fields of a tuple-valued argument: its fields, or `x[i]` of a tuple variable. */
Array<Expr> TupleFields(const Call& call, const Expr& tuple) {
  if (const auto* t = tuple.as<TupleNode>()) return t->fields;
  const auto* info = GetStructInfoAs<TupleStructInfoNode>(tuple);
  if (!info) {
    MINITVM_THROW(ValueError) << "LegalizeOps: " << OpName(call)
                              << " expects a tuple of tensors, not "
                              << StructInfoToString(GetStructInfo(tuple));
  }
  Array<Expr> out;
  for (size_t i = 0; i < info->fields.size(); ++i) {
    out.push_back(TupleGetItem(tuple, static_cast<int64_t>(i)));
  }
  return out;
}

MINITVM_RELAX_LEGALIZE("relax.concat") {
  Array<Expr> fields = TupleFields(call, call->args[0]);
  std::optional<int64_t> axis;
  if (auto v = call->attrs.Get("axis"); v && !v->is_null()) axis = AttrInt(call, "axis", 0);
  return CallTE1(bb, "concatenate", fields, [axis](const TArr& t) {
    if (axis) return topi::concatenate(t, *axis);
    // axis None: the flattened tensors, joined.
    TArr flat;
    for (const Tensor& x : t) flat.push_back(topi::flatten(x));
    return topi::concatenate(flat, 0);
  });
});

MINITVM_RELAX_LEGALIZE("relax.split") {
  int64_t axis = AttrInt(call, "axis", 0);
  const auto* x = ArgTensor(call, 0);
  axis = NormAxis(call, axis, x->ndim);
  Any ios = call->attrs.Get("indices_or_sections").value_or(Any());
  bool sections = ios.is_int() || ios.as<IntImmNode>();
  auto parts = AttrInts(call, "indices_or_sections");
  if (!parts) MINITVM_THROW(ValueError) << "LegalizeOps: relax.split needs indices_or_sections";
  return CallTE(bb, "split", {call->args[0]}, [=](const TArr& t) {
    if (sections) return topi::split_sections(t[0], (*parts)[0], axis);
    return topi::split(t[0], *parts, axis);
  });
});

// Here: Python slicing per listed axis (negative positions from the end, clamped), any stride.
MINITVM_RELAX_LEGALIZE("relax.strided_slice") {
  const auto* x = ArgTensor(call, 0);
  auto in_shape = x->GetShape();
  auto axes = AttrInts(call, "axes").value_or(std::vector<int64_t>{});
  auto begin = AttrInts(call, "begin").value_or(std::vector<int64_t>{});
  auto end = AttrInts(call, "end").value_or(std::vector<int64_t>{});
  auto strides = AttrInts(call, "strides").value_or(std::vector<int64_t>(axes.size(), 1));
  if (begin.size() != axes.size() || end.size() != axes.size() || strides.size() != axes.size()) {
    MINITVM_THROW(ValueError) << "LegalizeOps: relax.strided_slice: axes, begin, end and strides "
                                 "must have the same length";
  }
  if (!in_shape) MINITVM_THROW(ValueError) << "LegalizeOps: relax.strided_slice: unknown shape";
  size_t n = in_shape->size();
  std::vector<int64_t> b(n, 0), s(n, 1);
  std::vector<bool> sliced(n, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t ax = NormAxis(call, axes[k], static_cast<int64_t>(n));
    auto len = AsConstInt((*in_shape)[ax]);
    int64_t st = strides[k];
    if (st == 0) MINITVM_THROW(ValueError) << "LegalizeOps: relax.strided_slice: stride 0";
    int64_t v = begin[k];
    if (!len) {
      // A symbolic extent: only slices that start at a non-negative begin work unclamped.
      if (v < 0 || st < 0) {
        MINITVM_THROW(ValueError)
            << "LegalizeOps: relax.strided_slice: axis " << ax
            << " has a symbolic extent; a negative begin or stride needs a static extent";
      }
    } else {
      if (v < 0) v += *len;
      v = st > 0 ? std::clamp<int64_t>(v, 0, *len) : std::clamp<int64_t>(v, -1, *len - 1);
    }
    b[ax] = v;
    s[ax] = st;
    sliced[ax] = true;
  }
  Array<PrimExpr> out_shape = OutShape(call);
  return CallTE1(bb, "strided_slice", {call->args[0]}, [=](const TArr& t) {
    return te::compute(
        out_shape, te::FCompute([&](const Array<tir::Var>& i) {
          Array<PrimExpr> idx;
          for (size_t d = 0; d < n; ++d) {
            if (!sliced[d]) {
              idx.push_back(i[d]);
            } else {
              idx.push_back(i[d] * IntImm(i[d].dtype(), s[d]) + IntImm(i[d].dtype(), b[d]));
            }
          }
          return t[0](idx);
        }),
        "T_strided_slice", topi::kInjective);
  });
});

MINITVM_RELAX_LEGALIZE("relax.take") {
  std::optional<int64_t> axis;
  if (auto v = call->attrs.Get("axis"); v && !v->is_null()) axis = AttrInt(call, "axis", 0);
  std::string mode = AttrStr(call, "mode", "fast");
  return CallTE1(bb, "take", {call->args[0], call->args[1]},
                 [=](const TArr& t) { return topi::take(t[0], t[1], axis, mode); });
});

// ---- reductions -------------------------------------------------------------------------------
#define MINITVM_LEGALIZE_REDUCE(Name)                                                \
  MINITVM_RELAX_LEGALIZE("relax." #Name) {                                           \
    auto axes = AttrInts(call, "axis");                                              \
    bool keepdims = AttrBool(call, "keepdims", false);                               \
    return CallTE1(bb, #Name, {call->args[0]},                                       \
                   [=](const TArr& t) { return topi::Name(t[0], axes, keepdims); }); \
  });

MINITVM_LEGALIZE_REDUCE(sum)
MINITVM_LEGALIZE_REDUCE(max)
MINITVM_LEGALIZE_REDUCE(min)
#undef MINITVM_LEGALIZE_REDUCE

// Here for integers: the sum in the input dtype divided (truncating) by the count, as the
// reference casts NumPy's float mean back.
MINITVM_RELAX_LEGALIZE("relax.mean") {
  auto axes = AttrInts(call, "axis");
  bool keepdims = AttrBool(call, "keepdims", false);
  return CallTE1(bb, "mean", {call->args[0]}, [=](const TArr& t) {
    if (t[0]->dtype.is_float()) return topi::mean(t[0], axes, keepdims);
    Tensor s = topi::sum(t[0], axes, keepdims);
    PrimExpr count = IntImm(t[0]->dtype, 1);
    size_t n = t[0]->shape.size();
    for (size_t d = 0; d < n; ++d) {
      bool reduced = !axes;
      if (axes) {
        for (int64_t a : *axes)
          reduced = reduced || (a < 0 ? a + static_cast<int64_t>(n) : a) == static_cast<int64_t>(d);
      }
      if (reduced) count = count * tir::cast(t[0]->dtype, t[0]->shape[d]);
    }
    return te::compute(s->shape, te::FCompute([&](const Array<tir::Var>& i) {
                         return tir::truncdiv(s(i), count);
                       }),
                       "T_divide", topi::kElementWise);
  });
});

#define MINITVM_LEGALIZE_ARG_REDUCE(Name)                                            \
  MINITVM_RELAX_LEGALIZE("relax." #Name) {                                           \
    std::optional<int64_t> axis;                                                     \
    if (auto ax = AttrInts(call, "axis")) axis = (*ax)[0];                           \
    bool keepdims = AttrBool(call, "keepdims", false);                               \
    return CallTE1(bb, #Name, {call->args[0]},                                       \
                   [=](const TArr& t) { return topi::Name(t[0], axis, keepdims); }); \
  });

MINITVM_LEGALIZE_ARG_REDUCE(argmax)
MINITVM_LEGALIZE_ARG_REDUCE(argmin)
#undef MINITVM_LEGALIZE_ARG_REDUCE

// ---- creation ---------------------------------------------------------------------------------
MINITVM_RELAX_LEGALIZE("relax.zeros") {
  Array<PrimExpr> shape = OutShape(call);
  DataType dt = OutDType(call);
  return CallTE1(bb, "zeros", {},
                 [=](const TArr&) { return topi::full(shape, dt, tir::make_zero(dt), "T_full"); });
});
MINITVM_RELAX_LEGALIZE("relax.ones") {
  Array<PrimExpr> shape = OutShape(call);
  DataType dt = OutDType(call);
  return CallTE1(bb, "ones", {}, [=](const TArr&) {
    return topi::full(shape, dt, tir::make_const(dt, 1), "T_full");
  });
});
// Here: the fill value is a 0-d tensor argument, read inside the computation.
MINITVM_RELAX_LEGALIZE("relax.full") {
  Array<PrimExpr> shape = OutShape(call);
  DataType dt = OutDType(call);
  return CallTE1(bb, "full", {call->args[1]}, [=](const TArr& t) {
    return te::compute(shape, te::FCompute([&](const Array<tir::Var>&) {
                         return tir::cast(dt, t[0](Array<PrimExpr>{}));
                       }),
                       "T_full", topi::kElementWise);
  });
});

}  // namespace
}  // namespace legalize
}  // namespace relax
}  // namespace minitvm
