/*!
 * \file interpreter/reference_tensor_ops.cc
 * \brief `FReference` of the Relax tensor operators (stage 4): elementwise arithmetic,
 * comparisons, math functions, `where`, `matmul`, shape manipulation, indexing, reductions
 * and creation — each the stage-1 lownumpy op it corresponds to, or a composition of lownumpy
 * ops where lownumpy has no single equivalent (marked "composed").
 *
 * An `FReference` receives the call (for its keyword attributes) and the evaluated arguments
 * and returns the value. Parameters that TVM passes sometimes as attributes, sometimes as
 * Relax arguments (`reshape`'s shape, `full`'s fill value) are read from either (see Param).
 */
#include <limits>
#include <type_traits>

#include "interpreter/value_util.h"
#include "minitvm/lownumpy/creation.h"
#include "minitvm/lownumpy/elementwise.h"
#include "minitvm/lownumpy/iteration.h"
#include "minitvm/lownumpy/linalg.h"
#include "minitvm/lownumpy/manip.h"
#include "minitvm/lownumpy/reduce.h"
#include "minitvm/relax/op_attr.h"

namespace minitvm {
namespace relax {
namespace interp {
namespace {

namespace ln = lownumpy;
using Args = Array<Any>;

NDArray T(const Call& c, const Args& a, int i) { return TensorArg(c, a, i); }

/*! \brief The optional axis list of a reduction or squeeze (`axis`: None, int or list). */
std::optional<Shape> OptAxes(const Any& v, const std::string& what) {
  if (v.is_null()) return std::nullopt;
  return ToInts(v, what);
}

/*! \brief Integer results of lownumpy that Relax keeps in the input dtype (sum, divide...). */
NDArray KeepDType(const NDArray& out, DataType dtype) {
  return out.dtype() == dtype ? out : ln::cast(out, dtype);
}

#define MINITVM_RELAX_REF(OpName) \
  MINITVM_REGISTER_OP(OpName).set_attr_typed(kFReference, [](const Call& c, const Args& a) -> Any

// ---- binary arithmetic and comparisons --------------------------------------------------------
#define MINITVM_RELAX_REF_BINARY(OpName, LnFunc) \
  MINITVM_RELAX_REF(OpName) { return ln::LnFunc(T(c, a, 0), T(c, a, 1)); });

MINITVM_RELAX_REF_BINARY("relax.add", add)
MINITVM_RELAX_REF_BINARY("relax.subtract", subtract)
MINITVM_RELAX_REF_BINARY("relax.multiply", multiply)
MINITVM_RELAX_REF_BINARY("relax.power", power)
MINITVM_RELAX_REF_BINARY("relax.maximum", maximum)
MINITVM_RELAX_REF_BINARY("relax.minimum", minimum)
MINITVM_RELAX_REF_BINARY("relax.equal", equal)
MINITVM_RELAX_REF_BINARY("relax.not_equal", not_equal)
MINITVM_RELAX_REF_BINARY("relax.less", less)
MINITVM_RELAX_REF_BINARY("relax.less_equal", less_equal)
MINITVM_RELAX_REF_BINARY("relax.greater", greater)
MINITVM_RELAX_REF_BINARY("relax.greater_equal", greater_equal)
/*!
 * \brief The reference refuses what integer division leaves undefined (a zero divisor, and
 * the minimum value divided by -1), as the TIR interpreter does, instead of returning garbage.
 */
template <typename E>
void CheckIntDivision(const NDArray& x, const NDArray& y) {
  NDArray cx = ln::AsContiguous(x), cy = ln::AsContiguous(y);
  const E* xs = cx.data_as<E>();
  const E* ys = cy.data_as<E>();
  int64_t nx = cx.NumElements(), ny = cy.NumElements();
  for (int64_t i = 0; i < ny; ++i) {
    if (ys[i] == 0) MINITVM_THROW(ValueError) << "integer division by zero";
  }
  if constexpr (std::is_signed_v<E>) {
    // (exact for equal shapes and a scalar divisor; other broadcasts check every pair)
    bool has_min = false, has_m1 = false;
    for (int64_t i = 0; i < nx; ++i) has_min = has_min || xs[i] == std::numeric_limits<E>::min();
    for (int64_t i = 0; i < ny; ++i) has_m1 = has_m1 || ys[i] == E(-1);
    if (has_min && has_m1 && (nx == ny || ny == 1)) {
      for (int64_t i = 0; i < nx; ++i) {
        if (xs[i] == std::numeric_limits<E>::min() && ys[ny == 1 ? 0 : i] == E(-1)) {
          MINITVM_THROW(ValueError)
              << "integer overflow: " << int64_t(xs[i]) << " / -1 does not fit in " << x.dtype();
        }
      }
    } else if (has_min && has_m1) {
      MINITVM_THROW(ValueError) << "integer overflow: the minimum " << x.dtype()
                                << " divided by -1 does not fit in " << x.dtype();
    }
  }
}

void CheckDivision(const NDArray& x, const NDArray& y) {
  DataType t = y.dtype();
  if (!(t.is_int() || t.is_uint()) || t.is_bool() || x.dtype() != t) return;
  if (t.is_int()) {
    switch (t.bits()) {
      case 8:
        return CheckIntDivision<int8_t>(x, y);
      case 16:
        return CheckIntDivision<int16_t>(x, y);
      case 32:
        return CheckIntDivision<int32_t>(x, y);
      case 64:
        return CheckIntDivision<int64_t>(x, y);
    }
  } else {
    switch (t.bits()) {
      case 8:
        return CheckIntDivision<uint8_t>(x, y);
      case 16:
        return CheckIntDivision<uint16_t>(x, y);
      case 32:
        return CheckIntDivision<uint32_t>(x, y);
      case 64:
        return CheckIntDivision<uint64_t>(x, y);
    }
  }
}

MINITVM_RELAX_REF("relax.floor_divide") {
  NDArray x = T(c, a, 0), y = T(c, a, 1);
  CheckDivision(x, y);
  return ln::floor_divide(x, y);
});

// Composed: Relax divides integers in their own dtype (truncating, as TIR's Div); lownumpy's
// true division gives float64, which the cast truncates toward zero.
MINITVM_RELAX_REF("relax.divide") {
  NDArray x = T(c, a, 0), y = T(c, a, 1);
  CheckDivision(x, y);
  return KeepDType(ln::divide(x, y), x.dtype());
});

MINITVM_RELAX_REF("relax.where") { return ln::where(T(c, a, 0), T(c, a, 1), T(c, a, 2)); });

// ---- unary ------------------------------------------------------------------------------------
#define MINITVM_RELAX_REF_UNARY(OpName, LnFunc) \
  MINITVM_RELAX_REF(OpName) { return ln::LnFunc(T(c, a, 0)); });

MINITVM_RELAX_REF_UNARY("relax.exp", exp)
MINITVM_RELAX_REF_UNARY("relax.log", log)
MINITVM_RELAX_REF_UNARY("relax.sqrt", sqrt)
MINITVM_RELAX_REF_UNARY("relax.rsqrt", rsqrt)
MINITVM_RELAX_REF_UNARY("relax.tanh", tanh)
MINITVM_RELAX_REF_UNARY("relax.sigmoid", sigmoid)
MINITVM_RELAX_REF_UNARY("relax.negative", negative)
MINITVM_RELAX_REF_UNARY("relax.abs", abs)
MINITVM_RELAX_REF_UNARY("relax.erf", erf)
MINITVM_RELAX_REF_UNARY("relax.nn.relu", relu)

MINITVM_RELAX_REF("relax.nn.gelu") { return ln::gelu(T(c, a, 0), "none"); });
// Composed: silu(x) = x * sigmoid(x).
MINITVM_RELAX_REF("relax.nn.silu") {
  NDArray x = T(c, a, 0);
  return ln::multiply(x, ln::sigmoid(x));
});

MINITVM_RELAX_REF("relax.astype") {
  auto dtype = ToDType(Param(c, a, "dtype", 1), "relax.astype: dtype");
  if (!dtype) MINITVM_THROW(ValueError) << "relax.astype: dtype is required";
  return ln::cast(T(c, a, 0), *dtype);
});

// ---- matmul -----------------------------------------------------------------------------------
// With out_dtype the operands are converted first, so the product accumulates in out_dtype.
MINITVM_RELAX_REF("relax.matmul") {
  NDArray x = T(c, a, 0), y = T(c, a, 1);
  if (auto dt = ToDType(Param(c, a, "out_dtype"), "relax.matmul: out_dtype")) {
    x = KeepDType(x, *dt);
    y = KeepDType(y, *dt);
  }
  return ln::matmul(x, y);
});

// ---- shape manipulation -----------------------------------------------------------------------
MINITVM_RELAX_REF("relax.permute_dims") {
  return ln::permute_dims(T(c, a, 0), OptAxes(Param(c, a, "axes", 1), "relax.permute_dims: axes"));
});

MINITVM_RELAX_REF("relax.reshape") {
  return ln::reshape(T(c, a, 0), ToInts(Param(c, a, "shape", 1), "relax.reshape: shape"));
});

// Relax's flatten makes a 1-D tensor (start/end attributes honoured when an op version has them).
MINITVM_RELAX_REF("relax.flatten") {
  Any s = Param(c, a, "start_dim"), e = Param(c, a, "end_dim");
  return ln::flatten(T(c, a, 0), s.is_null() ? 0 : ToInt(s, "relax.flatten: start_dim"),
                     e.is_null() ? -1 : ToInt(e, "relax.flatten: end_dim"));
});

MINITVM_RELAX_REF("relax.concat") {
  Any tensors = a.size() ? a[0] : Any();
  auto* arr = tensors.as<runtime::ArrayNode>();
  if (!arr) {
    MINITVM_THROW(TypeError) << "relax.concat: expects a tuple of tensors but got "
                             << DescribeValue(tensors);
  }
  std::vector<NDArray> parts;
  for (size_t i = 0; i < arr->data.size(); ++i) {
    parts.push_back(TensorArg(c, Args(arr->data), static_cast<int>(i)));
  }
  Any axis = Param(c, a, "axis", 1);
  return ln::concatenate(parts, axis.is_null() ? 0 : ToInt(axis, "relax.concat: axis"));
});

MINITVM_RELAX_REF("relax.split") {
  NDArray x = T(c, a, 0);
  Any ios = Param(c, a, "indices_or_sections", 1);
  Any ax = Param(c, a, "axis", 2);
  int64_t axis = ax.is_null() ? 0 : ToInt(ax, "relax.split: axis");
  std::vector<NDArray> parts;
  if (ios.is_int() || ios.as<IntImmNode>()) {
    parts = ln::split(x, ToInt(ios, "relax.split: indices_or_sections"), axis);
  } else {
    parts = ln::split(x, ToInts(ios, "relax.split: indices_or_sections"), axis);
  }
  Args out;
  for (const NDArray& p : parts) out.push_back(p);
  return out;
});

MINITVM_RELAX_REF("relax.expand_dims") {
  return ln::expand_dims(T(c, a, 0), ToInts(Param(c, a, "axis", 1), "relax.expand_dims: axis"));
});

MINITVM_RELAX_REF("relax.squeeze") {
  return ln::squeeze(T(c, a, 0), OptAxes(Param(c, a, "axis", 1), "relax.squeeze: axis"));
});

MINITVM_RELAX_REF("relax.broadcast_to") {
  return ln::broadcast_to(T(c, a, 0), ToInts(Param(c, a, "shape", 1), "relax.broadcast_to: shape"));
});

// Composed: strided_slice gathers, axis by axis, the indices range(begin, end, stride) (Python's
// slice rules: negative positions count from the end, out-of-range ones clip) with `take`.
MINITVM_RELAX_REF("relax.strided_slice") {
  NDArray x = T(c, a, 0);
  Shape axes = ToInts(Param(c, a, "axes", 1), "relax.strided_slice: axes");
  Shape begin = ToInts(Param(c, a, "begin", 2), "relax.strided_slice: begin");
  Shape end = ToInts(Param(c, a, "end", 3), "relax.strided_slice: end");
  Any st = Param(c, a, "strides", 4);
  Shape strides = st.is_null() ? Shape(axes.size(), 1) : ToInts(st, "relax.strided_slice: strides");
  if (begin.size() != axes.size() || end.size() != axes.size() || strides.size() != axes.size()) {
    MINITVM_THROW(ValueError) << "relax.strided_slice: axes " << runtime::ShapeToString(axes)
                              << ", begin " << runtime::ShapeToString(begin) << ", end "
                              << runtime::ShapeToString(end) << " and strides "
                              << runtime::ShapeToString(strides) << " must have the same length";
  }
  NDArray out = ln::reshape(x, x.Shape());  // a fresh array even when no axis is sliced
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t ax = axes[i] < 0 ? axes[i] + x.ndim() : axes[i];
    if (ax < 0 || ax >= x.ndim()) {
      MINITVM_THROW(ValueError) << "relax.strided_slice: axis " << axes[i]
                                << " is out of range for a tensor of rank " << x.ndim();
    }
    int64_t n = x.Shape()[ax], s = strides[i];
    if (s == 0) MINITVM_THROW(ValueError) << "relax.strided_slice: stride 0 on axis " << axes[i];
    auto clamp = [&](int64_t v) {
      if (v < 0) v += n;
      if (s > 0) return std::min(std::max<int64_t>(v, 0), n);
      return std::min(std::max<int64_t>(v, -1), n - 1);
    };
    int64_t b = clamp(begin[i]), e = clamp(end[i]);
    NDArray idx = ln::arange(static_cast<double>(b), static_cast<double>(e), static_cast<double>(s),
                             DataType::Int(64));
    out = ln::take(out, idx, ax, "raise");
  }
  return out;
});

// TVM's mode "fast" assumes in-range indices; the reference checks them ("raise").
MINITVM_RELAX_REF("relax.take") {
  Any ax = Param(c, a, "axis", 2);
  Any md = Param(c, a, "mode", 3);
  std::string mode = md.is_null() ? "fast" : ToStr(md, "relax.take: mode");
  if (mode == "fast") mode = "raise";
  std::optional<int64_t> axis;
  if (!ax.is_null()) axis = ToInt(ax, "relax.take: axis");
  return ln::take(T(c, a, 0), T(c, a, 1), axis, mode);
});

// ---- reductions -------------------------------------------------------------------------------
// lownumpy follows NumPy's dtype rules (integer sums give int64, integer means float64); Relax
// keeps the input dtype, so those results are cast back (composed).
#define MINITVM_RELAX_REF_REDUCE(OpName, LnFunc)                                      \
  MINITVM_RELAX_REF(OpName) {                                                         \
    NDArray x = T(c, a, 0);                                                           \
    Any kd = Param(c, a, "keepdims", 2);                                              \
    NDArray out = ln::LnFunc(x, OptAxes(Param(c, a, "axis", 1), OpName ": axis"),     \
                             kd.is_null() ? false : ToBool(kd, OpName ": keepdims")); \
    return KeepDType(out, x.dtype());                                                 \
  });

MINITVM_RELAX_REF_REDUCE("relax.sum", sum)
MINITVM_RELAX_REF_REDUCE("relax.mean", mean)
MINITVM_RELAX_REF_REDUCE("relax.max", max)
MINITVM_RELAX_REF_REDUCE("relax.min", min)

#define MINITVM_RELAX_REF_ARG(OpName, LnFunc)                                                    \
  MINITVM_RELAX_REF(OpName) {                                                                    \
    Any ax = Param(c, a, "axis", 1), kd = Param(c, a, "keepdims", 2);                            \
    std::optional<int64_t> axis;                                                                 \
    if (!ax.is_null()) axis = ToInt(ax, OpName ": axis");                                        \
    return ln::LnFunc(T(c, a, 0), axis, kd.is_null() ? false : ToBool(kd, OpName ": keepdims")); \
  });

MINITVM_RELAX_REF_ARG("relax.argmax", argmax)
MINITVM_RELAX_REF_ARG("relax.argmin", argmin)

// ---- creation ---------------------------------------------------------------------------------
DataType DTypeOr(const Any& v, DataType fallback, const std::string& what) {
  auto d = ToDType(v, what);
  return d ? *d : fallback;
}

MINITVM_RELAX_REF("relax.zeros") {
  return ln::zeros(ToInts(Param(c, a, "shape", 0), "relax.zeros: shape"),
                   DTypeOr(Param(c, a, "dtype", 1), DataType::Float(32), "relax.zeros: dtype"));
});
MINITVM_RELAX_REF("relax.ones") {
  return ln::ones(ToInts(Param(c, a, "shape", 0), "relax.ones: shape"),
                  DTypeOr(Param(c, a, "dtype", 1), DataType::Float(32), "relax.ones: dtype"));
});
// The fill value is a scalar tensor (its dtype is the default) or a number.
MINITVM_RELAX_REF("relax.full") {
  Any fill = Param(c, a, "fill_value", 1);
  DataType fallback = DataType::Float(32);
  if (auto* nd = fill.as<runtime::NDArrayNode>()) fallback = nd->dtype;
  return ln::full(ToInts(Param(c, a, "shape", 0), "relax.full: shape"),
                  ToFloat(fill, "relax.full: fill_value"),
                  DTypeOr(Param(c, a, "dtype", 2), fallback, "relax.full: dtype"));
});
// ---- memory (what lowered code allocates with) -----------------------------------------------
// builtin.alloc_tensor(shape, dtype, device_index, scope): a fresh zero-filled tensor.
MINITVM_RELAX_REF("relax.builtin.alloc_tensor") {
  return ln::zeros(
      ToInts(Param(c, a, "shape", 0), "relax.builtin.alloc_tensor: shape"),
      DTypeOr(Param(c, a, "dtype", 1), DataType::Float(32), "relax.builtin.alloc_tensor: dtype"));
});
// memory.alloc_storage(size, device_index, scope, dtype): a zero-filled byte buffer (uint8).
MINITVM_RELAX_REF("relax.memory.alloc_storage") {
  Shape size = ToInts(Param(c, a, "size", 0), "relax.memory.alloc_storage: size");
  int64_t bytes = 1;
  for (int64_t d : size) bytes *= d;
  return ln::zeros({bytes}, DataType::UInt(8));
});
// memory.alloc_tensor(storage, offset, shape, dtype): a view into the storage at byte `offset`.
MINITVM_RELAX_REF("relax.memory.alloc_tensor") {
  NDArray storage = T(c, a, 0);
  int64_t offset = ToInt(Param(c, a, "offset", 1), "relax.memory.alloc_tensor: offset");
  DataType dtype =
      DTypeOr(Param(c, a, "dtype", 3), DataType::Float(32), "relax.memory.alloc_tensor: dtype");
  Shape shape = ToInts(Param(c, a, "shape", 2), "relax.memory.alloc_tensor: shape");
  if (offset % dtype.bytes() != 0) {
    MINITVM_THROW(ValueError) << "relax.memory.alloc_tensor: offset " << offset
                              << " is not a multiple of the element size " << dtype.bytes();
  }
  NDArray flat = storage.CreateView({storage.NumElements() / dtype.bytes()}, dtype);
  return flat.CreateView(shape, dtype, offset / dtype.bytes());
});
MINITVM_RELAX_REF("relax.memory.kill_storage") { return Args(); });
MINITVM_RELAX_REF("relax.memory.kill_tensor") { return Args(); });

}  // namespace
}  // namespace interp
}  // namespace relax
}  // namespace minitvm
