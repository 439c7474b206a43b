/*!
 * \file transform.cc
 * \brief Shape manipulation operators (stage 2): reshape, transpose, flatten, concatenate,
 * split, squeeze, expand_dims, take, where, pad, strided_slice.
 */
#include "minitvm/topi/transform.h"

#include <algorithm>
#include <numeric>

#include "minitvm/topi/broadcast.h"
#include "topi_util.h"

namespace minitvm {
namespace topi {

using detail::GetConstInt;
using detail::IndexConst;
using detail::NormalizeAxis;
using detail::ShapeStr;
using detail::Simplify;
using tir::Var;

namespace {

/*! \brief Row-major flat index of `idx` in `shape`, in dtype t. */
PrimExpr Ravel(const Array<PrimExpr>& idx, const Array<PrimExpr>& shape, DataType t) {
  PrimExpr flat = tir::make_zero(t);
  for (size_t d = 0; d < shape.size(); ++d) {
    flat = flat * tir::cast(t, shape[d]) + tir::cast(t, idx[d]);
  }
  return flat;
}

/*! \brief The multi-index of flat index `flat` in `shape`. */
Array<PrimExpr> Unravel(const PrimExpr& flat, const Array<PrimExpr>& shape) {
  std::vector<PrimExpr> out(shape.size());
  PrimExpr rest = flat;
  for (size_t k = shape.size(); k-- > 0;) {
    PrimExpr ext = tir::cast(flat.dtype(), shape[k]);
    if (k == 0) {
      out[k] = rest;
    } else {
      out[k] = tir::floormod(rest, ext);
      rest = tir::floordiv(rest, ext);
    }
  }
  Array<PrimExpr> result;
  for (size_t k = 0; k < shape.size(); ++k) {
    result.push_back(Simplify(tir::cast(shape[k].dtype(), out[k])));
  }
  return result;
}

DataType IndexTypeOf(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  for (const auto& s : {a, b}) {
    for (const PrimExpr& d : s) {
      if (d.dtype().bits() == 64) return DataType::Int(64);
    }
  }
  return DataType::Int(32);
}

}  // namespace

Tensor reshape(const Tensor& x, const Array<PrimExpr>& newshape, std::string name,
               std::string tag) {
  // Infer a -1 entry.
  int infer = -1;
  for (size_t i = 0; i < newshape.size(); ++i) {
    auto c = AsConstInt(newshape[i]);
    if (c && *c == -1) {
      if (infer >= 0) MINITVM_THROW(ValueError) << "reshape: only one dimension may be -1";
      infer = static_cast<int>(i);
    } else if (c && *c < -1) {
      MINITVM_THROW(ValueError) << "reshape: invalid dimension " << *c;
    }
  }
  Array<PrimExpr> target = newshape;
  auto total = [](const Array<PrimExpr>& s) -> std::optional<int64_t> {
    int64_t p = 1;
    for (const PrimExpr& d : s) {
      auto c = AsConstInt(d);
      if (!c) return std::nullopt;
      p *= *c;
    }
    return p;
  };
  auto in_total = total(x->shape);
  if (infer >= 0) {
    Array<PrimExpr> rest;
    for (size_t i = 0; i < newshape.size(); ++i) {
      if (static_cast<int>(i) != infer) rest.push_back(newshape[i]);
    }
    auto rest_total = total(rest);
    if (!in_total || !rest_total) {
      MINITVM_THROW(ValueError) << "reshape: -1 needs constant shapes";
    }
    if (*rest_total == 0 || *in_total % *rest_total != 0) {
      MINITVM_THROW(ValueError) << "reshape: cannot reshape " << ShapeStr(x->shape) << " into "
                                << ShapeStr(newshape);
    }
    target.Set(infer, PrimExpr(*in_total / *rest_total));
  }
  auto out_total = total(target);
  if (in_total && out_total && *in_total != *out_total) {
    MINITVM_THROW(ValueError) << "reshape: cannot reshape " << ShapeStr(x->shape) << " ("
                              << *in_total << " elements) into " << ShapeStr(target) << " ("
                              << *out_total << " elements)";
  }
  DataType t = IndexTypeOf(x->shape, target);
  return te::compute(target, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> idx(i.begin(), i.end());
                       return x(Unravel(Ravel(idx, target, t), x->shape));
                     }),
                     name, tag);
}

Tensor transpose(const Tensor& x, std::optional<std::vector<int64_t>> axes, std::string name,
                 std::string tag) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  std::vector<int64_t> perm(n);
  if (axes) {
    if (static_cast<int64_t>(axes->size()) != n) {
      MINITVM_THROW(ValueError) << "transpose: " << axes->size() << " axes for a tensor of rank "
                                << n;
    }
    std::vector<bool> seen(n, false);
    for (int64_t k = 0; k < n; ++k) {
      perm[k] = NormalizeAxis((*axes)[k], n, "transpose");
      if (seen[perm[k]]) MINITVM_THROW(ValueError) << "transpose: axis " << perm[k] << " repeated";
      seen[perm[k]] = true;
    }
  } else {
    for (int64_t k = 0; k < n; ++k) perm[k] = n - 1 - k;
  }
  Array<PrimExpr> shape;
  for (int64_t k = 0; k < n; ++k) shape.push_back(x->shape[perm[k]]);
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       std::vector<PrimExpr> idx(n);
                       for (int64_t k = 0; k < n; ++k) idx[perm[k]] = i[k];
                       return x(Array<PrimExpr>(idx));
                     }),
                     name, tag);
}

Tensor flatten(const Tensor& x, int64_t start_axis, int64_t end_axis, std::string name,
               std::string tag) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  if (n == 0) return reshape(x, {PrimExpr(1)}, name, tag);
  int64_t s = NormalizeAxis(start_axis, n, "flatten");
  int64_t e = NormalizeAxis(end_axis, n, "flatten");
  if (s > e) {
    MINITVM_THROW(ValueError) << "flatten: start_axis " << start_axis << " comes after end_axis "
                              << end_axis;
  }
  Array<PrimExpr> shape;
  for (int64_t k = 0; k < s; ++k) shape.push_back(x->shape[k]);
  PrimExpr merged = x->shape[s];
  for (int64_t k = s + 1; k <= e; ++k) merged = merged * x->shape[k];
  shape.push_back(merged);
  for (int64_t k = e + 1; k < n; ++k) shape.push_back(x->shape[k]);
  return reshape(x, shape, name, tag);
}

Tensor concatenate(const Array<Tensor>& xs, int64_t axis, std::string name, std::string tag) {
  if (xs.empty()) MINITVM_THROW(ValueError) << "concatenate: no tensors";
  const Tensor first = xs[0];
  int64_t n = static_cast<int64_t>(first->shape.size());
  if (n == 0) MINITVM_THROW(ValueError) << "concatenate: zero-rank tensors cannot be joined";
  axis = NormalizeAxis(axis, n, "concatenate");
  std::vector<PrimExpr> offsets;
  PrimExpr total = tir::make_zero(first->shape[axis].dtype());
  for (size_t k = 0; k < xs.size(); ++k) {
    const Tensor t = xs[k];
    if (static_cast<int64_t>(t->shape.size()) != n || t->dtype != first->dtype) {
      MINITVM_THROW(ValueError) << "concatenate: tensor " << k << " has shape "
                                << ShapeStr(t->shape) << " and dtype " << t->dtype
                                << ", unlike tensor 0 " << ShapeStr(first->shape) << " "
                                << first->dtype;
    }
    for (int64_t d = 0; d < n; ++d) {
      if (d == axis) continue;
      auto a = AsConstInt(t->shape[d]), b = AsConstInt(first->shape[d]);
      if (a && b && *a != *b) {
        MINITVM_THROW(ValueError) << "concatenate: tensor " << k << " of shape "
                                  << ShapeStr(t->shape) << " does not match "
                                  << ShapeStr(first->shape) << " outside axis " << axis;
      }
    }
    offsets.push_back(total);
    total = total + tir::cast(total.dtype(), t->shape[axis]);
  }
  Array<PrimExpr> shape = first->shape;
  shape.Set(axis, total);
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       auto load = [&](size_t k) {
                         Array<PrimExpr> idx(i.begin(), i.end());
                         idx.Set(axis, i[axis] - tir::cast(i[axis].dtype(), offsets[k]));
                         return xs[k](idx);
                       };
                       PrimExpr result = load(xs.size() - 1);
                       for (size_t k = xs.size() - 1; k-- > 0;) {
                         PrimExpr end = tir::cast(i[axis].dtype(), offsets[k + 1]);
                         result = tir::if_then_else(i[axis] < end, load(k), result);
                       }
                       return result;
                     }),
                     name, tag);
}

namespace {
Tensor Slice(const Tensor& x, int64_t axis, const PrimExpr& begin, const PrimExpr& extent,
             const std::string& name, const std::string& tag) {
  Array<PrimExpr> shape = x->shape;
  shape.Set(axis, extent);
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> idx(i.begin(), i.end());
                       idx.Set(axis, i[axis] + tir::cast(i[axis].dtype(), begin));
                       return x(idx);
                     }),
                     name, tag);
}
}  // namespace

Array<Tensor> split_sections(const Tensor& x, int64_t sections, int64_t axis, std::string name,
                             std::string tag) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  axis = NormalizeAxis(axis, n, "split");
  int64_t len = GetConstInt(x->shape[axis], "split", "the split axis");
  if (sections <= 0 || len % sections != 0) {
    MINITVM_THROW(ValueError) << "split: axis " << axis << " of extent " << len
                              << " cannot be split into " << sections << " equal sections";
  }
  std::vector<int64_t> indices;
  for (int64_t s = 1; s < sections; ++s) indices.push_back(s * (len / sections));
  return split(x, indices, axis, name, tag);
}

Array<Tensor> split(const Tensor& x, const std::vector<int64_t>& indices, int64_t axis,
                    std::string name, std::string tag) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  axis = NormalizeAxis(axis, n, "split");
  int64_t len = GetConstInt(x->shape[axis], "split", "the split axis");
  Array<Tensor> out;
  int64_t prev = 0;
  for (size_t k = 0; k <= indices.size(); ++k) {
    int64_t stop = k < indices.size() ? indices[k] : len;
    if (stop < 0) stop += len;  // NumPy: negative split points count from the end
    int64_t b = std::clamp<int64_t>(prev, 0, len);
    int64_t e = std::clamp<int64_t>(stop, b, len);
    out.push_back(Slice(x, axis, IndexConst(x->shape[axis], b), IndexConst(x->shape[axis], e - b),
                        name, tag));
    prev = stop;
  }
  return out;
}

Tensor squeeze(const Tensor& x, std::optional<std::vector<int64_t>> axes, std::string name,
               std::string tag) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  std::vector<bool> drop(n, false);
  if (axes) {
    for (int64_t a : *axes) {
      int64_t k = NormalizeAxis(a, n, "squeeze");
      auto c = AsConstInt(x->shape[k]);
      if (!c || *c != 1) {
        MINITVM_THROW(ValueError) << "squeeze: axis " << a << " of shape " << ShapeStr(x->shape)
                                  << " does not have extent 1";
      }
      drop[k] = true;
    }
  } else {
    for (int64_t k = 0; k < n; ++k) {
      auto c = AsConstInt(x->shape[k]);
      drop[k] = c && *c == 1;
    }
  }
  Array<PrimExpr> shape;
  for (int64_t k = 0; k < n; ++k) {
    if (!drop[k]) shape.push_back(x->shape[k]);
  }
  return te::compute(
      shape, te::FCompute([&](const Array<Var>& i) {
        Array<PrimExpr> idx;
        size_t j = 0;
        for (int64_t k = 0; k < n; ++k) {
          idx.push_back(drop[k] ? tir::make_zero(x->shape[k].dtype()) : PrimExpr(i[j++]));
        }
        return x(idx);
      }),
      name, tag);
}

Tensor expand_dims(const Tensor& x, const std::vector<int64_t>& axes, std::string name,
                   std::string tag) {
  int64_t out_rank = static_cast<int64_t>(x->shape.size() + axes.size());
  std::vector<bool> inserted(out_rank, false);
  for (int64_t a : axes) {
    int64_t k = NormalizeAxis(a, out_rank, "expand_dims");
    if (inserted[k]) MINITVM_THROW(ValueError) << "expand_dims: axis " << a << " repeated";
    inserted[k] = true;
  }
  DataType t = x->shape.empty() ? DataType::Int(32) : x->shape[0].dtype();
  Array<PrimExpr> shape;
  size_t j = 0;
  for (int64_t k = 0; k < out_rank; ++k) {
    shape.push_back(inserted[k] ? tir::make_const(t, 1) : x->shape[j++]);
  }
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> idx;
                       for (int64_t k = 0; k < out_rank; ++k) {
                         if (!inserted[k]) idx.push_back(i[k]);
                       }
                       return x(idx);
                     }),
                     name, tag);
}

Tensor expand_dims(const Tensor& x, int64_t axis, int64_t num_newaxis, std::string name,
                   std::string tag) {
  int64_t n = static_cast<int64_t>(x->shape.size());
  if (axis < -n - 1 || axis > n) {
    MINITVM_THROW(ValueError) << "expand_dims: axis " << axis << " out of range for rank " << n;
  }
  // TVM: "expand_dims only accepts `num_newaxis >= 0`". The upper bound keeps a typo from
  // building a tensor of millions of dimensions.
  if (num_newaxis < 0 || num_newaxis > 1024) {
    MINITVM_THROW(ValueError) << "expand_dims: num_newaxis must be in [0, 1024], got "
                              << num_newaxis;
  }
  if (axis < 0) axis += n + 1;
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < num_newaxis; ++k) axes.push_back(axis + k);
  return expand_dims(x, axes, name, tag);
}

namespace {
PrimExpr AdjustIndex(PrimExpr idx, const PrimExpr& extent, const std::string& mode) {
  DataType t = extent.dtype();
  idx = tir::cast(t, idx);
  PrimExpr zero = tir::make_zero(t), one = tir::make_const(t, 1);
  if (mode == "clip") return tir::max(tir::min(idx, extent - one), zero);
  if (mode == "wrap") return tir::floormod(idx, extent);
  if (mode == "raise") return tir::Select(idx < zero, idx + extent, idx);
  if (mode == "fast") return idx;
  MINITVM_THROW(ValueError) << "take: unknown mode \"" << mode
                            << "\" (use clip, wrap, raise or fast)";
}
}  // namespace

Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis, std::string mode,
            std::string name, std::string tag) {
  if (!(indices->dtype.is_int() || indices->dtype.is_uint())) {
    MINITVM_THROW(ValueError) << "take: indices must be integers, got " << indices->dtype;
  }
  AdjustIndex(PrimExpr(0), PrimExpr(1), mode);  // validates the mode
  if (!axis) {
    DataType t = DataType::Int(64);
    PrimExpr size = detail::Prod(x->shape, t);
    return te::compute(indices->shape, te::FCompute([&](const Array<Var>& i) {
                         PrimExpr flat = AdjustIndex(indices(i), size, mode);
                         return x(Unravel(flat, x->shape));
                       }),
                       name, tag);
  }
  int64_t n = static_cast<int64_t>(x->shape.size());
  int64_t a = NormalizeAxis(*axis, n, "take");
  Array<PrimExpr> shape;
  for (int64_t k = 0; k < a; ++k) shape.push_back(x->shape[k]);
  for (const PrimExpr& d : indices->shape) shape.push_back(d);
  for (int64_t k = a + 1; k < n; ++k) shape.push_back(x->shape[k]);
  size_t ni = indices->shape.size();
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> iidx;
                       for (size_t k = 0; k < ni; ++k) iidx.push_back(i[a + k]);
                       Array<PrimExpr> idx;
                       for (int64_t k = 0; k < a; ++k) idx.push_back(i[k]);
                       idx.push_back(AdjustIndex(indices(iidx), x->shape[a], mode));
                       for (int64_t k = a + 1; k < n; ++k) idx.push_back(i[k - 1 + ni]);
                       return x(idx);
                     }),
                     name, tag);
}

Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y, std::string name,
             std::string tag) {
  Array<PrimExpr> shape =
      BroadcastShape(BroadcastShape(cond->shape, x->shape, "where"), y->shape, "where");
  auto index = [&](const Tensor& t, const Array<Var>& i) {
    Array<PrimExpr> out;
    size_t offset = i.size() - t->shape.size();
    for (size_t d = 0; d < t->shape.size(); ++d) {
      auto c = AsConstInt(t->shape[d]);
      auto co = AsConstInt(shape[d + offset]);
      out.push_back(c && *c == 1 && !(co && *co == 1) ? tir::make_zero(t->shape[d].dtype())
                                                      : PrimExpr(i[d + offset]));
    }
    return out;
  };
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       PrimExpr c = cond(index(cond, i));
                       if (!c.dtype().is_bool()) c = c != tir::make_zero(c.dtype());
                       return tir::select(c, x(index(x, i)), y(index(y, i)));
                     }),
                     name, tag);
}

Tensor pad(const Tensor& x, const Array<PrimExpr>& pad_before, Array<PrimExpr> pad_after,
           PrimExpr pad_value, std::string name, std::string pad_mode, std::string tag) {
  size_t n = x->shape.size();
  if (pad_before.size() > n) {
    MINITVM_THROW(ValueError) << "pad: " << pad_before.size() << " pad values for a tensor of rank "
                              << n;
  }
  if (pad_after.empty()) pad_after = pad_before;
  if (pad_after.size() != pad_before.size()) {
    MINITVM_THROW(ValueError) << "pad: pad_before and pad_after have different lengths";
  }
  if (pad_mode != "constant" && pad_mode != "edge" && pad_mode != "reflect") {
    MINITVM_THROW(ValueError) << "pad: unknown mode \"" << pad_mode
                              << "\" (use constant, edge or reflect)";
  }
  std::vector<PrimExpr> before(n), after(n);
  for (size_t d = 0; d < n; ++d) {
    DataType t = x->shape[d].dtype();
    before[d] = d < pad_before.size() ? tir::cast(t, pad_before[d]) : tir::make_zero(t);
    after[d] = d < pad_after.size() ? tir::cast(t, pad_after[d]) : tir::make_zero(t);
    for (const PrimExpr& p : {before[d], after[d]}) {
      if (auto c = AsConstInt(p); c && *c < 0) {
        MINITVM_THROW(ValueError) << "pad: negative padding " << *c;
      }
    }
    if (pad_mode == "reflect") {
      auto b = AsConstInt(before[d]), a = AsConstInt(after[d]), e = AsConstInt(x->shape[d]);
      if (b && a && e && (*b >= *e || *a >= *e) && (*b > 0 || *a > 0)) {
        MINITVM_THROW(ValueError) << "pad: reflect padding must be smaller than the axis (" << *e
                                  << ") in dimension " << d;
      }
    }
  }
  Array<PrimExpr> shape;
  for (size_t d = 0; d < n; ++d) shape.push_back(Simplify(x->shape[d] + before[d] + after[d]));
  PrimExpr value = pad_value.defined() ? tir::cast(x->dtype, pad_value) : tir::make_zero(x->dtype);
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> idx;
                       PrimExpr cond;
                       for (size_t d = 0; d < n; ++d) {
                         auto b = AsConstInt(before[d]), a = AsConstInt(after[d]);
                         bool padded = !(b && *b == 0 && a && *a == 0);
                         PrimExpr j = Simplify(i[d] - before[d]);
                         if (!padded) {
                           idx.push_back(i[d]);
                           continue;
                         }
                         PrimExpr ext = x->shape[d];
                         PrimExpr zero = tir::make_zero(ext.dtype()),
                                  one = tir::make_const(ext.dtype(), 1);
                         if (pad_mode == "constant") {
                           PrimExpr in = i[d] >= before[d] && i[d] < before[d] + ext;
                           cond = cond.defined() ? (cond && in) : in;
                           idx.push_back(j);
                         } else if (pad_mode == "edge") {
                           idx.push_back(tir::max(tir::min(j, ext - one), zero));
                         } else {
                           PrimExpr neg = tir::Select(j < zero, -j, j);
                           idx.push_back(tir::Select(neg >= ext, ext * 2 - 2 - neg, neg));
                         }
                       }
                       if (!cond.defined()) return x(idx);
                       return tir::if_then_else(cond, x(idx), value);
                     }),
                     name, tag);
}

Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                     std::string name, std::string tag) {
  size_t n = x->shape.size();
  if (begin.size() > n || end.size() != begin.size() ||
      (!strides.empty() && strides.size() != begin.size())) {
    MINITVM_THROW(ValueError) << "strided_slice: begin, end and strides must have one entry per "
                                 "sliced axis";
  }
  std::vector<int64_t> b(n, 0), s(n, 1), ext(n);
  Array<PrimExpr> shape;
  for (size_t d = 0; d < n; ++d) {
    if (d >= begin.size()) {
      shape.push_back(x->shape[d]);
      continue;
    }
    int64_t len = GetConstInt(x->shape[d], "strided_slice", "a sliced extent");
    int64_t st = strides.empty() ? 1 : strides[d];
    if (st == 0) MINITVM_THROW(ValueError) << "strided_slice: stride must not be zero";
    auto norm = [&](int64_t v, bool is_end) {
      if (v < 0) v += len;
      if (st > 0) return std::clamp<int64_t>(v, 0, len);
      return std::clamp<int64_t>(v, -1, len - 1);
    };
    int64_t lo = norm(begin[d], false), hi = norm(end[d], true);
    int64_t count = st > 0 ? std::max<int64_t>(0, (hi - lo + st - 1) / st)
                           : std::max<int64_t>(0, (lo - hi + (-st) - 1) / (-st));
    b[d] = lo;
    s[d] = st;
    shape.push_back(IndexConst(x->shape[d], count));
  }
  return te::compute(shape, te::FCompute([&](const Array<Var>& i) {
                       Array<PrimExpr> idx;
                       for (size_t d = 0; d < n; ++d) {
                         if (d >= begin.size()) {
                           idx.push_back(i[d]);
                         } else {
                           idx.push_back(i[d] * IndexConst(i[d], s[d]) + IndexConst(i[d], b[d]));
                         }
                       }
                       return x(idx);
                     }),
                     name, tag);
}

}  // namespace topi
}  // namespace minitvm
