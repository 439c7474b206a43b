/*!
 * \file manip.cc
 * \brief Shape manipulation of lownumpy (stage 1). Most operators here build a strided view
 * (of the input or of the output) and move the elements with `CopyElements`, the single
 * strided copy loop; none computes on the values, so every dtype works.
 */
#include "minitvm/lownumpy/manip.h"

#include <algorithm>
#include <cstring>

#include "./op_util.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

NDArray reshape(const NDArray& a, const Shape& newshape) {
  const std::string op = "reshape";
  CheckCPU(op, a);
  Shape shape = newshape;
  int64_t known = 1, infer = -1;
  // As NumPy: the product of the non-zero dimensions, in bytes, must fit an int64 even when a
  // zero dimension makes the array empty ((2**62, 2**62, 0) is refused, not an empty array).
  int64_t nonzero = 1, bytes = 0;
  bool overflow = false, has_zero = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) {
        MINITVM_THROW(ValueError) << op << ": only one dimension of " << ShapeToString(newshape)
                                  << " can be -1";
      }
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      MINITVM_THROW(ValueError) << op << ": negative dimension in " << ShapeToString(newshape);
    } else {
      if (shape[i] == 0) has_zero = true;
      if (shape[i] != 0) overflow = overflow || __builtin_mul_overflow(nonzero, shape[i], &nonzero);
    }
  }
  if (overflow) {
    MINITVM_THROW(ValueError) << op << ": cannot reshape an array of shape "
                              << ShapeToString(a.Shape()) << " into " << ShapeToString(newshape)
                              << ": the dimensions multiply to more than an int64 can count";
  }
  if (__builtin_mul_overflow(nonzero, static_cast<int64_t>(a.dtype().bytes()), &bytes)) {
    MINITVM_THROW(ValueError) << op << ": the shape " << ShapeToString(newshape)
                              << " is too big: its elements of " << a.dtype()
                              << " take more bytes than an int64 can count";
  }
  known = has_zero ? 0 : nonzero;  // the product of the given dimensions, now known to fit
  const int64_t size = a.NumElements();
  if (infer >= 0) {
    if (known == 0 || size % known != 0) {
      MINITVM_THROW(ValueError) << op << ": cannot reshape an array of shape "
                                << ShapeToString(a.Shape()) << " into " << ShapeToString(newshape);
    }
    shape[infer] = size / known;
  } else if (known != size) {
    MINITVM_THROW(ValueError) << op << ": cannot reshape an array of shape "
                              << ShapeToString(a.Shape()) << " (" << size << " elements) into "
                              << ShapeToString(newshape) << " (" << known << " elements)";
  }
  // Row-major order is kept: compact the input, then reinterpret the bytes.
  NDArray out = NDArray::Empty(shape, a.dtype());
  NDArray src = AsContiguous(a);
  std::memcpy(out.data(), src.data(), out.NBytes());
  return out;
}

NDArray permute_dims(const NDArray& a, const std::optional<Shape>& axes) {
  const std::string op = "permute_dims";
  CheckCPU(op, a);
  Shape perm;
  if (axes) {
    if (static_cast<int64_t>(axes->size()) != a.ndim()) {
      MINITVM_THROW(ValueError) << op << ": axes " << ShapeToString(*axes)
                                << " do not match an array of shape " << ShapeToString(a.Shape());
    }
    perm = NormalizeAxes(op, *axes, a.ndim());
  } else {
    for (int64_t d = a.ndim() - 1; d >= 0; --d) perm.push_back(d);
  }
  return CompactCopy(PermutedView(a, perm));
}

NDArray flatten(const NDArray& a, int64_t start_axis, int64_t end_axis) {
  const std::string op = "flatten";
  CheckCPU(op, a);
  if (a.ndim() == 0) return reshape(a, {1});
  int64_t s = NormalizeAxis(op, start_axis, a.ndim());
  int64_t e = NormalizeAxis(op, end_axis, a.ndim());
  if (s > e) {
    MINITVM_THROW(ValueError) << op << ": start_axis " << start_axis << " comes after end_axis "
                              << end_axis;
  }
  Shape shape(a.Shape().begin(), a.Shape().begin() + s);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= a.Shape()[d];
  shape.push_back(merged);
  shape.insert(shape.end(), a.Shape().begin() + e + 1, a.Shape().end());
  return reshape(a, shape);
}

NDArray concatenate(const std::vector<NDArray>& arrays, int64_t axis) {
  const std::string op = "concatenate";
  if (arrays.empty()) MINITVM_THROW(ValueError) << op << ": needs at least one array";
  const NDArray& first = arrays[0];
  CheckCPU(op, first);
  if (first.ndim() == 0) MINITVM_THROW(ValueError) << op << ": cannot join 0-d arrays";
  const int64_t ax = NormalizeAxis(op, axis, first.ndim());
  Shape out_shape = first.Shape();
  out_shape[ax] = 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const NDArray& a = arrays[i];
    CheckCPU(op, a);
    CheckSameDType(op, first, a);
    bool ok = a.ndim() == first.ndim();
    for (int64_t d = 0; ok && d < a.ndim(); ++d) ok = d == ax || a.Shape()[d] == first.Shape()[d];
    if (!ok) {
      MINITVM_THROW(ValueError) << op << ": array " << i << " has shape "
                                << ShapeToString(a.Shape()) << " but array 0 has shape "
                                << ShapeToString(first.Shape()) << "; they may differ only on axis "
                                << ax;
    }
    out_shape[ax] += a.Shape()[ax];
  }
  NDArray out = NDArray::Empty(out_shape, first.dtype());
  int64_t start = 0;
  for (const NDArray& a : arrays) {
    // The slab of `out` that `a` fills: out[..., start:start + len, ...].
    NDArray slab = out.CreateStridedView(a.Shape(), out->strides, start * out->strides[ax]);
    CopyElements(op, a, slab);
    start += a.Shape()[ax];
  }
  return out;
}

std::vector<NDArray> split(const NDArray& a, const Shape& indices, int64_t axis) {
  const std::string op = "split";
  CheckCPU(op, a);
  if (a.ndim() == 0) MINITVM_THROW(ValueError) << op << ": cannot split a 0-d array";
  const int64_t ax = NormalizeAxis(op, axis, a.ndim());
  const int64_t dim = a.Shape()[ax];
  // Part i is a[bound[i] : bound[i + 1]] along the axis, with Python's slice rules: negative
  // indices count from the end, indices are clipped to the axis, a reversed pair is empty.
  Shape bound{0};
  for (int64_t v : indices)
    bound.push_back(v < 0 ? std::max<int64_t>(v + dim, 0) : std::min(v, dim));
  bound.push_back(dim);
  std::vector<NDArray> parts;
  for (size_t i = 0; i + 1 < bound.size(); ++i) {
    const int64_t start = bound[i], stop = std::max(bound[i + 1], start);
    Shape shape = a.Shape();
    shape[ax] = stop - start;
    parts.push_back(CompactCopy(a.CreateStridedView(shape, a->strides, start * a->strides[ax])));
  }
  return parts;
}

std::vector<NDArray> split(const NDArray& a, int64_t sections, int64_t axis) {
  const std::string op = "split";
  CheckCPU(op, a);
  if (a.ndim() == 0) MINITVM_THROW(ValueError) << op << ": cannot split a 0-d array";
  const int64_t ax = NormalizeAxis(op, axis, a.ndim());
  const int64_t dim = a.Shape()[ax];
  if (sections <= 0 || dim % sections != 0) {
    MINITVM_THROW(ValueError) << op << ": axis " << axis << " of size " << dim
                              << " does not split into " << sections << " equal sections";
  }
  Shape indices;
  for (int64_t i = 1; i < sections; ++i) indices.push_back(i * (dim / sections));
  return split(a, indices, axis);
}

NDArray squeeze(const NDArray& a, const std::optional<Shape>& axes) {
  const std::string op = "squeeze";
  CheckCPU(op, a);
  std::vector<bool> drop(a.ndim(), false);
  if (axes) {
    for (int64_t ax : NormalizeAxes(op, *axes, a.ndim())) {
      if (a.Shape()[ax] != 1) {
        MINITVM_THROW(ValueError) << op << ": cannot remove axis " << ax << " of size "
                                  << a.Shape()[ax] << " from shape " << ShapeToString(a.Shape());
      }
      drop[ax] = true;
    }
  } else {
    for (int64_t d = 0; d < a.ndim(); ++d) drop[d] = a.Shape()[d] == 1;
  }
  Shape shape;
  for (int64_t d = 0; d < a.ndim(); ++d) {
    if (!drop[d]) shape.push_back(a.Shape()[d]);
  }
  return reshape(a, shape);
}

NDArray expand_dims(const NDArray& a, const Shape& axes) {
  const std::string op = "expand_dims";
  CheckCPU(op, a);
  const int64_t nd = a.ndim() + static_cast<int64_t>(axes.size());
  Shape new_axes = NormalizeAxes(op, axes, nd);
  Shape shape;
  int64_t next = 0;
  for (int64_t d = 0; d < nd; ++d) {
    bool inserted = std::find(new_axes.begin(), new_axes.end(), d) != new_axes.end();
    shape.push_back(inserted ? 1 : a.Shape()[next++]);
  }
  return reshape(a, shape);
}

NDArray broadcast_to(const NDArray& a, const Shape& shape) {
  const std::string op = "broadcast_to";
  CheckCPU(op, a);
  for (int64_t d : shape) {
    if (d < 0)
      MINITVM_THROW(ValueError) << op << ": negative dimension in " << ShapeToString(shape);
  }
  NDArray out = NDArray::Empty(shape, a.dtype());
  CopyElements(op, a, out);
  return out;
}

NDArray take(const NDArray& a_in, const NDArray& indices_in, std::optional<int64_t> axis,
             const std::string& mode) {
  const std::string op = "take";
  CheckCPU(op, a_in);
  CheckCPU(op, indices_in, "indices");
  if (mode != "raise" && mode != "wrap" && mode != "clip") {
    MINITVM_THROW(ValueError) << op << ": mode must be \"raise\", \"wrap\" or \"clip\" but got \""
                              << mode << "\"";
  }
  if (indices_in.dtype() != DataType::Int(32) && indices_in.dtype() != DataType::Int(64)) {
    MINITVM_THROW(ValueError) << op << ": indices must be int32 or int64 but are "
                              << indices_in.dtype();
  }
  NDArray a = axis ? AsContiguous(a_in) : reshape(a_in, {-1});
  const int64_t ax = axis ? NormalizeAxis(op, *axis, a.ndim()) : 0;
  if (a.ndim() == 0) MINITVM_THROW(ValueError) << op << ": cannot take from a 0-d array";
  const int64_t dim = a.Shape()[ax];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < ax; ++d) outer *= a.Shape()[d];
  for (int64_t d = ax + 1; d < a.ndim(); ++d) inner *= a.Shape()[d];
  // The indices, normalised to [0, dim) by the mode.
  NDArray idx64 = AsContiguous(indices_in);
  std::vector<int64_t> idx(idx64.NumElements());
  for (size_t i = 0; i < idx.size(); ++i) {
    int64_t v = indices_in.dtype() == DataType::Int(32) ? idx64.data_as<int32_t>()[i]
                                                        : idx64.data_as<int64_t>()[i];
    if (dim == 0) {
      MINITVM_THROW(ValueError) << op << ": cannot take index " << v << " from the empty axis "
                                << ax << " of shape " << ShapeToString(a_in.Shape());
    }
    if (mode == "wrap") {
      v = ((v % dim) + dim) % dim;
    } else if (mode == "clip") {
      v = std::clamp<int64_t>(v, 0, dim - 1);
    } else {
      if (v < -dim || v >= dim) {
        MINITVM_THROW(ValueError) << op << ": index " << v << " is out of bounds for axis " << ax
                                  << " of size " << dim;
      }
      if (v < 0) v += dim;
    }
    idx[i] = v;
  }
  Shape out_shape(a.Shape().begin(), a.Shape().begin() + ax);
  out_shape.insert(out_shape.end(), indices_in.Shape().begin(), indices_in.Shape().end());
  out_shape.insert(out_shape.end(), a.Shape().begin() + ax + 1, a.Shape().end());
  NDArray out = NDArray::Empty(out_shape, a.dtype());
  const size_t row_bytes = static_cast<size_t>(inner) * a.dtype().bytes();
  const auto* src = static_cast<const char*>(a.data());
  auto* dst = static_cast<char*>(out.data());
  const int64_t count = static_cast<int64_t>(idx.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < count; ++j) {
      std::memcpy(dst + (o * count + j) * row_bytes, src + (o * dim + idx[j]) * row_bytes,
                  row_bytes);
    }
  }
  return out;
}

NDArray pad(const NDArray& a, const Shape& pad_before, const Shape& pad_after, double pad_value,
            const std::string& mode) {
  const std::string op = "pad";
  CheckCPU(op, a);
  const int64_t nd = a.ndim();
  if (static_cast<int64_t>(pad_before.size()) != nd ||
      static_cast<int64_t>(pad_after.size()) != nd) {
    MINITVM_THROW(ValueError) << op << ": pad_before " << ShapeToString(pad_before)
                              << " and pad_after " << ShapeToString(pad_after) << " need " << nd
                              << " values each for shape " << ShapeToString(a.Shape());
  }
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    MINITVM_THROW(ValueError) << op << ": mode must be \"constant\", \"edge\" or \"reflect\" but "
                              << "got \"" << mode << "\"";
  }
  Shape out_shape(nd);
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t dim = a.Shape()[d], lo = pad_before[d], hi = pad_after[d];
    if (lo < 0 || hi < 0) {
      MINITVM_THROW(ValueError) << op << ": negative padding on axis " << d;
    }
    if (mode != "constant" && dim == 0 && lo + hi > 0) {
      MINITVM_THROW(ValueError) << op << ": cannot pad the empty axis " << d << " in " << mode
                                << " mode";
    }
    out_shape[d] = dim + lo + hi;
  }
  NDArray out = NDArray::Empty(out_shape, a.dtype());
  if (mode == "constant") {
    // Fill everything, then copy the input into the interior.
    Dispatch<kAllTypes>(op, a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T v = SaturateCast<T>(pad_value);
      T* po = out.data_as<T>();
      for (int64_t i = 0; i < out.NumElements(); ++i) po[i] = v;
    });
    int64_t offset = 0;
    for (int64_t d = 0; d < nd; ++d) offset += pad_before[d] * out->strides[d];
    CopyElements(op, a, out.CreateStridedView(a.Shape(), out->strides, offset));
    return out;
  }
  // edge / reflect: every output position reads one input position, found axis by axis.
  std::vector<std::vector<int64_t>> source(nd);
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t dim = a.Shape()[d];
    for (int64_t i = 0; i < out_shape[d]; ++i) {
      int64_t s = i - pad_before[d];
      if (mode == "edge") {
        s = std::clamp<int64_t>(s, 0, dim - 1);
      } else if (dim == 1) {
        s = 0;
      } else {
        // Reflecting about the first and the last element repeats with period 2 * (dim - 1):
        // 0 1 2 .. dim-1 dim-2 .. 1 | 0 1 2 ...
        const int64_t period = 2 * (dim - 1);
        s = ((s % period) + period) % period;
        if (s >= dim) s = period - s;
      }
      source[d].push_back(s * a->strides[d]);
    }
  }
  const size_t width = a.dtype().bytes();
  const auto* src = static_cast<const char*>(a.data());
  auto* dst = static_cast<char*>(out.data());
  Shape index(nd, 0);
  for (int64_t flat = 0; flat < out.NumElements(); ++flat) {
    int64_t offset = 0;
    for (int64_t d = 0; d < nd; ++d) offset += source[d][index[d]];
    std::memcpy(dst + flat * width, src + offset * width, width);
    for (int64_t d = nd - 1; d >= 0 && ++index[d] == out_shape[d]; --d) index[d] = 0;
  }
  return out;
}

MINITVM_REGISTER_GLOBAL("lownumpy.reshape")
    .set_body_typed([](NDArray a, runtime::Array<int64_t> s) { return reshape(a, ToShape(s)); });
MINITVM_REGISTER_GLOBAL("lownumpy.permute_dims")
    .set_body_typed([](NDArray a, std::optional<runtime::Array<int64_t>> axes) {
      return permute_dims(a, ToOptShape(axes));
    });
MINITVM_REGISTER_GLOBAL("lownumpy.flatten")
    .set_body_typed([](NDArray a, int64_t start, int64_t end) { return flatten(a, start, end); });
MINITVM_REGISTER_GLOBAL("lownumpy.concatenate")
    .set_body_typed([](runtime::Array<NDArray> arrays, int64_t axis) {
      return concatenate(arrays.to_vector(), axis);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.split")
    .set_body_typed([](NDArray a, runtime::Any indices_or_sections, int64_t axis) {
      std::vector<NDArray> parts;
      if (indices_or_sections.is_int()) {
        parts = split(a, indices_or_sections.cast<int64_t>(), axis);
      } else {
        parts = split(a, ToShape(indices_or_sections.cast<runtime::Array<int64_t>>()), axis);
      }
      return runtime::Array<NDArray>(parts);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.squeeze")
    .set_body_typed([](NDArray a, std::optional<runtime::Array<int64_t>> axes) {
      return squeeze(a, ToOptShape(axes));
    });
MINITVM_REGISTER_GLOBAL("lownumpy.expand_dims")
    .set_body_typed([](NDArray a, runtime::Array<int64_t> axes) {
      return expand_dims(a, ToShape(axes));
    });
MINITVM_REGISTER_GLOBAL("lownumpy.broadcast_to")
    .set_body_typed([](NDArray a, runtime::Array<int64_t> shape) {
      return broadcast_to(a, ToShape(shape));
    });
MINITVM_REGISTER_GLOBAL("lownumpy.take")
    .set_body_typed([](NDArray a, NDArray indices, std::optional<int64_t> axis, std::string mode) {
      return take(a, indices, axis, mode);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.pad")
    .set_body_typed([](NDArray a, runtime::Array<int64_t> before, runtime::Array<int64_t> after,
                       double value, std::string mode) {
      return pad(a, ToShape(before), ToShape(after), value, mode);
    });

}  // namespace lownumpy
}  // namespace minitvm
