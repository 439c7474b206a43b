/*!
 * \file manipulate.cc
 * \brief The Relax operators that move data without arithmetic (stage 4): `permute_dims`,
 * `reshape`, `flatten`, `concat`, `split`, `expand_dims`, `squeeze`, `strided_slice`, `take`,
 * `broadcast_to`.
 *
 * Shape operands (`reshape`, `broadcast_to`) are Relax arguments of shape struct info, as in
 * TVM; everything else is a keyword attribute. `strided_slice` keeps axes/begin/end/strides as
 * int attributes (TVM passes tuples of PrimValues) and follows numpy slicing: negative indices
 * count from the end, out-of-range ones clamp, strides may be negative.
 */
#include <set>

#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

StructInfo UnknownShape(const TensorStructInfoNode* x, int64_t ndim) {
  return TensorStructInfo(x->dtype, ndim);
}

// ---- permute_dims ---------------------------------------------------------------------------

StructInfo InferPermuteDims(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  auto axes = OptIntListAttr(call, "axes");
  if (x->IsUnknownNdim()) {
    return UnknownShape(x, axes ? static_cast<int64_t>(axes->size()) : kUnknownNDim);
  }
  std::vector<int64_t> perm;
  if (axes) {
    if (static_cast<int64_t>(axes->size()) != x->ndim) {
      MINITVM_THROW(ValueError) << "relax.permute_dims: axes has " << axes->size()
                                << " entries, but x " << TensorShapeStr(x) << " has rank "
                                << x->ndim;
    }
    perm = NormalizeAxes(call, *axes, x->ndim, "axis");
  } else {
    for (int64_t i = x->ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  auto shape = x->GetShape();
  if (!shape) return UnknownShape(x, x->ndim);
  std::vector<PrimExpr> out;
  for (int64_t a : perm) out.push_back((*shape)[a]);
  return TensorFromShape(Array<PrimExpr>(out), x->dtype);
}

// ---- reshape ---------------------------------------------------------------------------------

StructInfo InferReshape(const Call& call) {
  CheckNumArgs(call, 2, 2);
  auto* x = TensorArg(call, 0);
  int64_t ndim = kUnknownNDim;
  auto target = ShapeArgValues(call, 1, &ndim);
  if (!target) return TensorOfUnknownShapeArg(call, 1, x->dtype, ndim);
  int infer_at = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    auto c = AsConstInt((*target)[i]);
    if (!c || *c >= 0) continue;
    if (*c != -1) {
      MINITVM_THROW(ValueError) << "relax.reshape: the new shape " << ShapeStr(*target)
                                << " has a negative dimension " << *c << " (only -1 is allowed)";
    }
    if (infer_at >= 0) {
      MINITVM_THROW(ValueError) << "relax.reshape: the new shape " << ShapeStr(*target)
                                << " has more than one -1";
    }
    infer_at = static_cast<int>(i);
  }
  auto xs = x->GetShape();
  if (!xs) {
    if (infer_at < 0) return TensorFromShape(*target, x->dtype);
    return UnknownShape(x, ndim);
  }
  PrimExpr total = ShapeProduct(*xs);
  std::vector<PrimExpr> dims = target->to_vector();
  if (infer_at >= 0) {
    PrimExpr known = Int64(1);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int>(i) != infer_at) known = known * NormDim(dims[i]);
    }
    known = NormDim(known);
    auto ct = AsConstInt(total), ck = AsConstInt(known);
    if (ct && ck) {
      if (*ck == 0 || *ct % *ck != 0) {
        MINITVM_THROW(ValueError) << "relax.reshape: cannot reshape x of shape " << ShapeStr(*xs)
                                  << " (" << *ct << " elements) to " << ShapeStr(*target) << ": "
                                  << *ct << " is not a multiple of " << *ck;
      }
      dims[infer_at] = Int64(*ct / *ck);
    } else {
      dims[infer_at] = NormDim(tir::floordiv(total, known));
    }
  }
  Array<PrimExpr> new_shape(dims);
  PrimExpr count = ShapeProduct(new_shape);
  if (ProveNotEqual(total, count)) {
    MINITVM_THROW(ValueError) << "relax.reshape: cannot reshape x of shape " << ShapeStr(*xs)
                              << " (" << DimStr(total) << " elements) to " << ShapeStr(*target)
                              << " (" << DimStr(count) << " elements)";
  }
  if (infer_at < 0 && call->args[1]->IsInstance<VarNode>()) {
    return TensorStructInfo(call->args[1], x->dtype);
  }
  return TensorFromShape(new_shape, x->dtype);
}

// ---- flatten ---------------------------------------------------------------------------------

StructInfo InferFlatten(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  auto shape = x->GetShape();
  if (!shape) return UnknownShape(x, 1);
  return TensorFromShape({ShapeProduct(*shape)}, x->dtype);
}

// ---- concat ----------------------------------------------------------------------------------

StructInfo InferConcat(const Call& call) {
  CheckNumArgs(call, 1, 1);
  StructInfo info = ArgInfo(call, 0);
  auto* tup = info.as<TupleStructInfoNode>();
  if (!tup) {
    MINITVM_THROW(TypeError) << "relax.concat: tensors must be a tuple of tensors, but got "
                             << StructInfoToString(info);
  }
  if (tup->fields.empty()) {
    MINITVM_THROW(ValueError) << "relax.concat: tensors is empty (nothing to concatenate)";
  }
  std::vector<const TensorStructInfoNode*> ts;
  for (size_t i = 0; i < tup->fields.size(); ++i) {
    StructInfo f = tup->fields[i];
    auto* t = f.as<TensorStructInfoNode>();
    if (!t) {
      MINITVM_THROW(TypeError) << "relax.concat: tensors[" << i << "] must be a tensor, but got "
                               << StructInfoToString(f);
    }
    ts.push_back(t);
  }
  DataType dtype = ts[0]->dtype;
  for (size_t i = 1; i < ts.size(); ++i) {
    dtype = UnifyDType(call, ts[0]->dtype, "tensors[0]", ts[i]->dtype,
                       "tensors[" + std::to_string(i) + "]");
  }
  auto axis = OptIntAttr(call, "axis");
  if (!axis) {  // flattened, then joined
    PrimExpr total = Int64(0);
    for (auto* t : ts) {
      auto s = t->GetShape();
      if (!s) return TensorStructInfo(dtype, 1);
      total = total + ShapeProduct(*s);
    }
    return TensorFromShape({NormDim(total)}, dtype);
  }
  int64_t ndim = kUnknownNDim;
  size_t first = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i]->IsUnknownNdim()) continue;
    if (ndim == kUnknownNDim) {
      ndim = ts[i]->ndim;
      first = i;
    } else if (ts[i]->ndim != ndim) {
      MINITVM_THROW(ValueError) << "relax.concat: tensors[" << first << "] has rank " << ndim
                                << " but tensors[" << i << "] has rank " << ts[i]->ndim;
    }
  }
  if (ndim == kUnknownNDim) return TensorStructInfo(dtype, kUnknownNDim);
  if (ndim == 0) MINITVM_THROW(ValueError) << "relax.concat: cannot concatenate scalars (rank 0)";
  int64_t ax = NormalizeAxis(call, *axis, ndim, "axis");
  std::vector<Array<PrimExpr>> shapes;
  for (auto* t : ts) {
    auto s = t->GetShape();
    if (!s) return TensorStructInfo(dtype, ndim);
    shapes.push_back(*s);
  }
  std::vector<PrimExpr> out = shapes[0].to_vector();
  PrimExpr along = Int64(0);
  bool known = true;
  for (size_t i = 0; i < shapes.size(); ++i) {
    along = along + NormDim(shapes[i][ax]);
    for (int64_t d = 0; d < ndim; ++d) {
      if (d == ax || i == 0) continue;
      if (ProveNotEqual(shapes[0][d], shapes[i][d])) {
        MINITVM_THROW(ValueError) << "relax.concat: tensors[0] " << ShapeStr(shapes[0])
                                  << " and tensors[" << i << "] " << ShapeStr(shapes[i])
                                  << " differ at dimension " << d << " (" << DimStr(shapes[0][d])
                                  << " vs " << DimStr(shapes[i][d])
                                  << "), which is not the concatenation axis " << ax;
      }
      if (!ProveEqual(shapes[0][d], shapes[i][d])) known = false;
    }
  }
  if (!known) return TensorStructInfo(dtype, ndim);
  out[ax] = NormDim(along);
  return TensorFromShape(Array<PrimExpr>(out), dtype);
}

// ---- split -----------------------------------------------------------------------------------

StructInfo InferSplit(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  Any ios = AttrOf(call, "indices_or_sections");
  int64_t axis = IntAttr(call, "axis");
  std::optional<int64_t> sections;
  std::vector<int64_t> indices;
  if (ios.is_null()) {
    MINITVM_THROW(ValueError) << "relax.split: indices_or_sections is required";
  } else if (ios.as<ArrayNode>()) {
    indices = IntListAttr(call, "indices_or_sections");
  } else {
    sections = IntAttr(call, "indices_or_sections");
    if (*sections <= 0) {
      MINITVM_THROW(ValueError) << "relax.split: the number of sections must be positive, got "
                                << *sections;
    }
  }
  size_t n_out = sections ? static_cast<size_t>(*sections) : indices.size() + 1;
  auto all = [&](const StructInfo& s) {
    return TupleStructInfo(Array<StructInfo>(std::vector<StructInfo>(n_out, s)));
  };
  if (x->IsUnknownNdim()) return all(TensorStructInfo(x->dtype, kUnknownNDim));
  int64_t ax = NormalizeAxis(call, axis, x->ndim, "axis");
  auto shape = x->GetShape();
  if (!shape) return all(TensorStructInfo(x->dtype, x->ndim));
  PrimExpr dim = NormDim((*shape)[ax]);
  auto cdim = AsConstInt(dim);
  std::vector<PrimExpr> lengths;
  if (sections) {
    // TVM's rule: ceil(dim / sections) each, the last one takes what is left.
    PrimExpr piece = NormDim(tir::floordiv(dim + Int64(*sections - 1), Int64(*sections)));
    for (int64_t i = 0; i < *sections; ++i) {
      lengths.push_back(i + 1 < *sections ? piece : NormDim(dim - piece * Int64(*sections - 1)));
    }
  } else {
    PrimExpr prev = Int64(0);
    for (size_t i = 0; i <= indices.size(); ++i) {
      PrimExpr bound;
      if (i == indices.size()) {
        bound = dim;
      } else if (cdim) {
        int64_t v = indices[i] < 0 ? indices[i] + *cdim : indices[i];
        bound = Int64(std::min(std::max<int64_t>(v, 0), *cdim));
      } else {
        if (indices[i] < 0) {
          MINITVM_THROW(ValueError)
              << "relax.split: a negative split index (" << indices[i]
              << ") needs a static dimension, but dimension " << ax << " of x is " << DimStr(dim);
        }
        bound = tir::min(Int64(indices[i]), dim);
      }
      lengths.push_back(NormDim(tir::max(bound - prev, Int64(0))));
      prev = tir::max(prev, bound);
    }
  }
  Array<StructInfo> fields;
  for (const PrimExpr& len : lengths) {
    std::vector<PrimExpr> out = shape->to_vector();
    out[ax] = len;
    fields.push_back(TensorFromShape(Array<PrimExpr>(out), x->dtype));
  }
  return TupleStructInfo(fields);
}

// ---- expand_dims / squeeze -------------------------------------------------------------------

StructInfo InferExpandDims(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  std::vector<int64_t> axes = IntListAttr(call, "axis");
  if (x->IsUnknownNdim()) return UnknownShape(x, kUnknownNDim);
  int64_t out_ndim = x->ndim + static_cast<int64_t>(axes.size());
  std::vector<int64_t> norm = NormalizeAxes(call, axes, out_ndim, "axis");
  std::set<int64_t> at(norm.begin(), norm.end());
  auto shape = x->GetShape();
  if (!shape) return UnknownShape(x, out_ndim);
  std::vector<PrimExpr> out;
  int64_t src = 0;
  for (int64_t d = 0; d < out_ndim; ++d) out.push_back(at.count(d) ? Int64(1) : (*shape)[src++]);
  return TensorFromShape(Array<PrimExpr>(out), x->dtype);
}

StructInfo InferSqueeze(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  auto axes = OptIntListAttr(call, "axis");
  if (x->IsUnknownNdim()) return UnknownShape(x, kUnknownNDim);
  auto shape = x->GetShape();
  if (!axes) {
    if (!shape) return UnknownShape(x, kUnknownNDim);
    std::vector<PrimExpr> out;
    for (const PrimExpr& d : *shape) {
      auto c = AsConstInt(d);
      if (!c) return UnknownShape(x, kUnknownNDim);  // n might be 1: the rank is not known
      if (*c != 1) out.push_back(d);
    }
    return TensorFromShape(Array<PrimExpr>(out), x->dtype);
  }
  std::vector<int64_t> norm = NormalizeAxes(call, *axes, x->ndim, "axis");
  std::set<int64_t> drop(norm.begin(), norm.end());
  int64_t out_ndim = x->ndim - static_cast<int64_t>(drop.size());
  if (!shape) return UnknownShape(x, out_ndim);
  std::vector<PrimExpr> out;
  for (int64_t d = 0; d < x->ndim; ++d) {
    PrimExpr dim = (*shape)[d];
    if (!drop.count(d)) {
      out.push_back(dim);
      continue;
    }
    auto c = AsConstInt(dim);
    if (c && *c != 1) {
      MINITVM_THROW(ValueError) << "relax.squeeze: dimension " << d << " of x " << ShapeStr(*shape)
                                << " is " << *c << ", not 1, so it cannot be squeezed";
    }
  }
  return TensorFromShape(Array<PrimExpr>(out), x->dtype);
}

// ---- strided_slice ---------------------------------------------------------------------------

/*! \brief The length of x[begin:end:stride] along a dimension of extent n (numpy's rule). */
PrimExpr SliceLength(int64_t begin, int64_t end, int64_t stride, const PrimExpr& n,
                     bool assume_inbound) {
  if (auto cn = AsConstInt(n)) {
    int64_t len = *cn, b, e;
    if (stride > 0) {
      b = begin < 0 ? std::max<int64_t>(begin + len, 0) : std::min(begin, len);
      e = end < 0 ? std::max<int64_t>(end + len, 0) : std::min(end, len);
      return Int64(std::max<int64_t>(0, (e - b + stride - 1) / stride));
    }
    b = begin < 0 ? std::max<int64_t>(begin + len, -1) : std::min(begin, len - 1);
    e = end < 0 ? std::max<int64_t>(end + len, -1) : std::min(end, len - 1);
    return Int64(std::max<int64_t>(0, (b - e + (-stride) - 1) / (-stride)));
  }
  PrimExpr nn = NormDim(n);
  auto at = [&](int64_t v, int64_t lo_off) -> PrimExpr {
    PrimExpr raw = v < 0 ? nn + Int64(v) : PrimExpr(Int64(v));
    if (assume_inbound) return raw;
    PrimExpr hi = lo_off == 0 ? nn : nn - Int64(1);
    return v < 0 ? tir::max(raw, Int64(-lo_off)) : tir::min(raw, hi);
  };
  if (stride > 0) {
    PrimExpr b = at(begin, 0), e = at(end, 0);
    return NormDim(tir::max(tir::floordiv(e - b + Int64(stride - 1), Int64(stride)), Int64(0)));
  }
  PrimExpr b = at(begin, 1), e = at(end, 1);
  return NormDim(tir::max(tir::floordiv(b - e + Int64(-stride - 1), Int64(-stride)), Int64(0)));
}

StructInfo InferStridedSlice(const Call& call) {
  CheckNumArgs(call, 1, 1);
  auto* x = TensorArg(call, 0);
  std::vector<int64_t> axes = IntListAttr(call, "axes");
  std::vector<int64_t> begin = IntListAttr(call, "begin");
  std::vector<int64_t> end = IntListAttr(call, "end");
  auto strides = OptIntListAttr(call, "strides");
  bool inbound = BoolAttr(call, "assume_inbound");
  std::vector<int64_t> st = strides ? *strides : std::vector<int64_t>(axes.size(), 1);
  if (begin.size() != axes.size() || end.size() != axes.size() || st.size() != axes.size()) {
    MINITVM_THROW(ValueError) << "relax.strided_slice: axes, begin, end and strides must have "
                                 "the same length, but have "
                              << axes.size() << ", " << begin.size() << ", " << end.size()
                              << " and " << st.size();
  }
  for (int64_t s : st) {
    if (s == 0) MINITVM_THROW(ValueError) << "relax.strided_slice: a stride is 0";
  }
  if (x->IsUnknownNdim()) return UnknownShape(x, kUnknownNDim);
  std::vector<int64_t> norm = NormalizeAxes(call, axes, x->ndim, "axis");
  auto shape = x->GetShape();
  if (!shape) return UnknownShape(x, x->ndim);
  std::vector<PrimExpr> out = shape->to_vector();
  for (size_t i = 0; i < norm.size(); ++i) {
    out[norm[i]] = SliceLength(begin[i], end[i], st[i], out[norm[i]], inbound);
  }
  return TensorFromShape(Array<PrimExpr>(out), x->dtype);
}

// ---- take ------------------------------------------------------------------------------------

StructInfo InferTake(const Call& call) {
  CheckNumArgs(call, 2, 2);
  auto* x = TensorArg(call, 0);
  auto* idx = TensorArg(call, 1);
  if (!idx->IsUnknownDtype() && !idx->dtype.is_int() && !idx->dtype.is_uint()) {
    MINITVM_THROW(TypeError) << "relax.take: indices must have an integer dtype, but has "
                             << idx->dtype;
  }
  std::string mode = StrAttr(call, "mode");
  if (mode != "fast" && mode != "nan" && mode != "wrap" && mode != "clip") {
    MINITVM_THROW(ValueError) << "relax.take: mode must be \"fast\", \"nan\", \"wrap\" or "
                                 "\"clip\", but is \""
                              << mode << "\"";
  }
  auto axis = OptIntAttr(call, "axis");
  if (!axis) {
    if (!x->IsUnknownNdim() && x->ndim != 1) {
      MINITVM_THROW(ValueError) << "relax.take: x must be 1-D when axis is None, but x "
                                << TensorShapeStr(x) << " has rank " << x->ndim;
    }
    if (idx->shape.defined()) return TensorStructInfo(idx->shape, x->dtype);
    return TensorStructInfo(x->dtype, idx->ndim);
  }
  if (x->IsUnknownNdim() || idx->IsUnknownNdim()) return UnknownShape(x, kUnknownNDim);
  int64_t ax = NormalizeAxis(call, *axis, x->ndim, "axis");
  int64_t out_ndim = x->ndim - 1 + idx->ndim;
  auto xs = x->GetShape(), is = idx->GetShape();
  if (!xs || !is) return UnknownShape(x, out_ndim);
  std::vector<PrimExpr> out;
  for (int64_t d = 0; d < ax; ++d) out.push_back((*xs)[d]);
  for (const PrimExpr& d : *is) out.push_back(d);
  for (int64_t d = ax + 1; d < x->ndim; ++d) out.push_back((*xs)[d]);
  return TensorFromShape(Array<PrimExpr>(out), x->dtype);
}

// ---- broadcast_to ----------------------------------------------------------------------------

StructInfo InferBroadcastTo(const Call& call) {
  CheckNumArgs(call, 2, 2);
  auto* x = TensorArg(call, 0);
  int64_t ndim = kUnknownNDim;
  auto target = ShapeArgValues(call, 1, &ndim);
  if (!target) return TensorOfUnknownShapeArg(call, 1, x->dtype, ndim);
  auto xs = x->GetShape();
  if (xs) {
    int64_t nx = static_cast<int64_t>(xs->size()), nt = static_cast<int64_t>(target->size());
    if (nx > nt) {
      MINITVM_THROW(ValueError) << "relax.broadcast_to: x " << ShapeStr(*xs)
                                << " has more dimensions than the target shape "
                                << ShapeStr(*target);
    }
    for (int64_t k = 0; k < nx; ++k) {
      PrimExpr xd = (*xs)[nx - 1 - k], td = (*target)[nt - 1 - k];
      auto cx = AsConstInt(xd);
      if ((cx && *cx == 1) || !ProveNotEqual(xd, td)) continue;
      MINITVM_THROW(ValueError) << "relax.broadcast_to: cannot broadcast x " << ShapeStr(*xs)
                                << " to " << ShapeStr(*target) << ": dimension " << (nt - 1 - k)
                                << " is " << DimStr(xd) << ", not 1 or " << DimStr(td);
    }
  } else if (!x->IsUnknownNdim() && x->ndim > ndim) {
    MINITVM_THROW(ValueError) << "relax.broadcast_to: x has rank " << x->ndim
                              << ", more than the target shape " << ShapeStr(*target);
  }
  return TensorFromShape(*target, x->dtype);
}

// ---- attribute normalisers -------------------------------------------------------------------

/*! \brief An int attribute becomes a one-element list (axis=1 → axis=[1]). */
Map<String, Any> ListifyKeys(Map<String, Any> attrs, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto v = attrs.Get(k);
    if (v && (v->is_int() || v->as<IntImmNode>())) attrs.Set(k, Array<Any>{*v});
  }
  return attrs;
}

[[maybe_unused]] const bool kNormalizers = [] {
  RegisterAttrNormalizer("relax.expand_dims", [](const Array<Expr>&, Map<String, Any> a) {
    return ListifyKeys(a, {"axis"});
  });
  RegisterAttrNormalizer("relax.squeeze", [](const Array<Expr>&, Map<String, Any> a) {
    return ListifyKeys(a, {"axis"});
  });
  RegisterAttrNormalizer("relax.strided_slice", [](const Array<Expr>&, Map<String, Any> a) {
    return ListifyKeys(a, {"axes", "begin", "end", "strides"});
  });
  return true;
}();

}  // namespace

#define MINITVM_RELAX_MANIP_OP(Name, Pattern, Infer) \
  MINITVM_REGISTER_OP("relax." #Name).MINITVM_RELAX_OP_TRAITS(Pattern, true, Infer)

MINITVM_RELAX_MANIP_OP(permute_dims, kInjective, InferPermuteDims)
    .describe("x with its axes permuted (reversed when axes is None).")
    .set_num_inputs(1)
    .add_argument("x", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"axes", Any()}});

MINITVM_RELAX_MANIP_OP(reshape, kInjective, InferReshape)
    .describe("x with a new shape of the same number of elements (-1: inferred).")
    .set_num_inputs(2)
    .add_argument("x", "Tensor", "The input tensor.")
    .add_argument("shape", "Shape", "The new shape.")
    .set_attr(kTAttrDefaults, AttrMap());

MINITVM_RELAX_MANIP_OP(flatten, kInjective, InferFlatten)
    .describe("x as a 1-D tensor.")
    .set_num_inputs(1)
    .add_argument("x", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap());

MINITVM_RELAX_MANIP_OP(concat, kInjective, InferConcat)
    .describe("The tensors joined along axis (flattened first when axis is None).")
    .set_num_inputs(1)
    .add_argument("tensors", "Tuple", "The tensors to join.")
    .set_attr(kTAttrDefaults, AttrMap{{"axis", Any(int64_t{0})}});

MINITVM_RELAX_MANIP_OP(split, kInjective, InferSplit)
    .describe("x cut along axis into equal sections or at the given indices (a tuple).")
    .set_num_inputs(1)
    .add_argument("x", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"indices_or_sections", Any()}, {"axis", Any(int64_t{0})}});

MINITVM_RELAX_MANIP_OP(expand_dims, kBroadcast, InferExpandDims)
    .describe("x with new axes of extent 1 at the given positions of the result.")
    .set_num_inputs(1)
    .add_argument("x", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"axis", Any()}});

MINITVM_RELAX_MANIP_OP(squeeze, kInjective, InferSqueeze)
    .describe("x without the given axes of extent 1 (all of them when axis is None).")
    .set_num_inputs(1)
    .add_argument("x", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"axis", Any()}});

MINITVM_RELAX_MANIP_OP(strided_slice, kInjective, InferStridedSlice)
    .describe("x[begin:end:strides] along the given axes (numpy slicing).")
    .set_num_inputs(1)
    .add_argument("x", "Tensor", "The input tensor.")
    .set_attr(kTAttrDefaults, AttrMap{{"axes", Any()},
                                      {"begin", Any()},
                                      {"end", Any()},
                                      {"strides", Any()},
                                      {"assume_inbound", Any(false)}});

MINITVM_RELAX_MANIP_OP(take, kInjective, InferTake)
    .describe("Elements of x at indices along axis (numpy.take; axis None needs a 1-D x).")
    .set_num_inputs(2)
    .add_argument("x", "Tensor", "The source tensor.")
    .add_argument("indices", "Tensor", "The indices (an integer tensor).")
    .set_attr(kTAttrDefaults, AttrMap{{"axis", Any()}, {"mode", Any(String("fast"))}});

MINITVM_RELAX_MANIP_OP(broadcast_to, kBroadcast, InferBroadcastTo)
    .describe("x broadcast to shape (numpy broadcasting).")
    .set_num_inputs(2)
    .add_argument("x", "Tensor", "The input tensor.")
    .add_argument("shape", "Shape", "The target shape.")
    .set_attr(kTAttrDefaults, AttrMap());

namespace op {

Call permute_dims(Expr x, Any axes) {
  return MakeOpCall("relax.permute_dims", {x}, {{"axes", axes}});
}

Call reshape(Expr x, Any shape) {
  Expr s = ShapeOperand(shape, "relax.reshape", "shape");
  Call call = MakeOpCall("relax.reshape", {x, s});
  // Resolve a -1 now when x's shape is known, so the call carries the real shape (as TVM).
  auto* se = s.as<ShapeExprNode>();
  bool has_neg = false;
  if (se) {
    for (const PrimExpr& d : se->values) {
      auto c = AsConstInt(d);
      has_neg = has_neg || (c && *c == -1);
    }
  }
  if (has_neg && x.defined() && x->struct_info_.defined()) {
    StructInfo out = InferReshape(call);
    if (auto* t = out.as<TensorStructInfoNode>()) {
      if (auto dims = t->GetShape()) call = MakeOpCall("relax.reshape", {x, ShapeExpr(*dims)});
    }
  }
  return call;
}

Call flatten(Expr x) { return MakeOpCall("relax.flatten", {x}); }

Call concat(Any tensors, Any axis) {
  Expr t;
  if (tensors.as<ArrayNode>()) {
    t = Tuple(tensors.cast<Array<Expr>>());
  } else {
    t = tensors.cast<Expr>();
  }
  return MakeOpCall("relax.concat", {t}, {{"axis", axis}});
}

Call split(Expr x, Any indices_or_sections, int64_t axis) {
  return MakeOpCall("relax.split", {x},
                    {{"indices_or_sections", indices_or_sections}, {"axis", axis}});
}

Call expand_dims(Expr x, Any axis) {
  return MakeOpCall("relax.expand_dims", {x}, {{"axis", axis}});
}

Call squeeze(Expr x, Any axis) { return MakeOpCall("relax.squeeze", {x}, {{"axis", axis}}); }

Call strided_slice(Expr x, Any axes, Any begin, Any end, Any strides, bool assume_inbound) {
  return MakeOpCall("relax.strided_slice", {x},
                    {{"axes", axes},
                     {"begin", begin},
                     {"end", end},
                     {"strides", strides},
                     {"assume_inbound", assume_inbound}});
}

Call take(Expr x, Expr indices, Any axis, std::string mode) {
  return MakeOpCall("relax.take", {x, indices}, {{"axis", axis}, {"mode", String(mode)}});
}

Call broadcast_to(Expr x, Any shape) {
  return MakeOpCall("relax.broadcast_to", {x, ShapeOperand(shape, "relax.broadcast_to", "shape")});
}

}  // namespace op

MINITVM_REGISTER_GLOBAL("relax.op.permute_dims").set_body_typed(op::permute_dims);
MINITVM_REGISTER_GLOBAL("relax.op.reshape").set_body_typed(op::reshape);
MINITVM_REGISTER_GLOBAL("relax.op.flatten").set_body_typed(op::flatten);
MINITVM_REGISTER_GLOBAL("relax.op.concat").set_body_typed(op::concat);
MINITVM_REGISTER_GLOBAL("relax.op.split").set_body_typed(op::split);
MINITVM_REGISTER_GLOBAL("relax.op.expand_dims").set_body_typed(op::expand_dims);
MINITVM_REGISTER_GLOBAL("relax.op.squeeze").set_body_typed(op::squeeze);
MINITVM_REGISTER_GLOBAL("relax.op.strided_slice").set_body_typed(op::strided_slice);
MINITVM_REGISTER_GLOBAL("relax.op.take").set_body_typed(op::take);
MINITVM_REGISTER_GLOBAL("relax.op.broadcast_to").set_body_typed(op::broadcast_to);

}  // namespace relax
}  // namespace minitvm
