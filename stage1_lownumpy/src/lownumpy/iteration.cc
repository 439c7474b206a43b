/*!
 * \file iteration.cc
 * \brief Broadcasting, strided copies and the attribute checks shared by every lownumpy
 * operator (stage 1).
 */
#include "minitvm/lownumpy/iteration.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "./op_util.h"

namespace minitvm {
namespace lownumpy {

using runtime::ShapeToString;

Shape BroadcastShapes(const std::string& op, const Shape& a, const Shape& b) {
  size_t nd = std::max(a.size(), b.size());
  Shape out(nd);
  for (size_t i = 0; i < nd; ++i) {
    // Walk from the right: dimension i of the result lines up with a[-1-i] and b[-1-i].
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      MINITVM_THROW(ValueError) << op << ": shapes " << ShapeToString(a) << " and "
                                << ShapeToString(b) << " do not broadcast (dimension " << da
                                << " against " << db << ")";
    }
    out[nd - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

Shape BroadcastStrides(const std::string& op, const Shape& shape, const Shape& strides,
                       const Shape& out_shape) {
  auto fail = [&]() {
    MINITVM_THROW(ValueError) << op << ": an operand of shape " << ShapeToString(shape)
                              << " cannot be broadcast to shape " << ShapeToString(out_shape);
  };
  if (shape.size() > out_shape.size()) fail();
  Shape out(out_shape.size(), 0);
  size_t lead = out_shape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == out_shape[lead + i]) {
      out[lead + i] = strides[i];
    } else if (shape[i] != 1) {
      fail();
    }  // else: a size-1 dimension read again and again, stride 0
  }
  return out;
}

Shape BroadcastStrides(const std::string& op, const NDArray& array, const Shape& out_shape) {
  return BroadcastStrides(op, array.Shape(), array->strides, out_shape);
}

int64_t ShapeSize(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void CheckCPU(const std::string& op, const NDArray& a, const char* what) {
  if (!a.defined()) MINITVM_THROW(ValueError) << op << ": " << what << " is None";
  if (a.device().device_type != kDLCPU) {
    MINITVM_THROW(ValueError) << op << ": " << what << " is on "
                              << runtime::DeviceTypeName(a.device().device_type)
                              << "; lownumpy computes on the CPU only";
  }
}

namespace {
/*! \brief Copy with a fixed element width, so the compiler moves whole words. */
template <typename Word>
void CopyWords(const Shape& shape, const Shape& dst_strides, const Shape& src_strides, void* dst,
               const void* src) {
  auto* d = static_cast<Word*>(dst);
  const auto* s = static_cast<const Word*>(src);
  ForEachOffset<2>(shape, {dst_strides, src_strides},
                   [&](const std::array<int64_t, 2>& o) { d[o[0]] = s[o[1]]; });
}
}  // namespace

void CopyElements(const std::string& op, const NDArray& src, const NDArray& dst) {
  CheckCPU(op, src);
  CheckCPU(op, dst, "output");
  if (src.dtype() != dst.dtype()) {
    MINITVM_THROW(ValueError) << op << ": cannot copy " << src.dtype() << " elements into a "
                              << dst.dtype() << " array";
  }
  Shape src_strides = BroadcastStrides(op, src, dst.Shape());
  const Shape& shape = dst.Shape();
  switch (dst.dtype().bytes()) {
    case 1:
      return CopyWords<uint8_t>(shape, dst->strides, src_strides, dst.data(), src.data());
    case 2:
      return CopyWords<uint16_t>(shape, dst->strides, src_strides, dst.data(), src.data());
    case 4:
      return CopyWords<uint32_t>(shape, dst->strides, src_strides, dst.data(), src.data());
    case 8:
      return CopyWords<uint64_t>(shape, dst->strides, src_strides, dst.data(), src.data());
    default: {
      size_t width = dst.dtype().bytes();
      auto* d = static_cast<char*>(dst.data());
      const auto* s = static_cast<const char*>(src.data());
      ForEachOffset<2>(shape, {dst->strides, src_strides}, [&](const std::array<int64_t, 2>& o) {
        std::memcpy(d + o[0] * width, s + o[1] * width, width);
      });
    }
  }
}

NDArray CompactCopy(const NDArray& a) {
  NDArray out = NDArray::Empty(a.Shape(), a.dtype());
  CopyElements("copy", a, out);
  return out;
}

NDArray AsContiguous(const NDArray& a) { return a.IsContiguous() ? a : CompactCopy(a); }

NDArray PermutedView(const NDArray& a, const Shape& perm) {
  Shape shape(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = a.Shape()[perm[i]];
    strides[i] = a->strides[perm[i]];
  }
  return a.CreateStridedView(shape, strides, 0);
}

std::string DTypeSetToString(unsigned set) {
  std::vector<std::string> names;
  if (set & kFloats) names.insert(names.end(), {"float32", "float64"});
  if (set & kInts) names.insert(names.end(), {"int32", "int64"});
  if (set & kBool) names.push_back("bool");
  std::ostringstream os;
  for (size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i];
  return os.str();
}

void ThrowUnsupportedDType(const std::string& op, DataType dtype, unsigned allowed) {
  MINITVM_THROW(ValueError) << op << ": unsupported dtype " << dtype
                            << " (supported: " << DTypeSetToString(allowed) << ")";
}

namespace detail {

int64_t NormalizeAxis(const std::string& op, int64_t axis, int64_t ndim) {
  if (axis < -ndim || axis >= ndim) {
    MINITVM_THROW(ValueError) << op << ": axis " << axis << " is out of range for an array of "
                              << ndim << " dimension" << (ndim == 1 ? "" : "s");
  }
  return axis < 0 ? axis + ndim : axis;
}

Shape NormalizeAxes(const std::string& op, const Shape& axes, int64_t ndim) {
  Shape out;
  for (int64_t a : axes) {
    int64_t n = NormalizeAxis(op, a, ndim);
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      MINITVM_THROW(ValueError) << op << ": axis " << a << " is repeated in axes "
                                << ShapeToString(axes);
    }
    out.push_back(n);
  }
  return out;
}

void CheckRank(const std::string& op, const NDArray& a, int ndim, const char* what) {
  CheckCPU(op, a, what);
  if (a.ndim() != ndim) {
    MINITVM_THROW(ValueError) << op << ": " << what << " must have " << ndim << " dimension"
                              << (ndim == 1 ? "" : "s") << " but has shape "
                              << ShapeToString(a.Shape());
  }
}

void CheckSameDType(const std::string& op, const NDArray& a, const NDArray& b) {
  if (a.dtype() != b.dtype()) {
    MINITVM_THROW(ValueError) << op << ": operands have different dtypes " << a.dtype() << " and "
                              << b.dtype() << " (lownumpy does not promote; cast one)";
  }
}

std::array<int64_t, 2> Pair(const std::string& op, const char* name, const Shape& v,
                            int64_t min_value) {
  if (v.size() != 1 && v.size() != 2) {
    MINITVM_THROW(ValueError) << op << ": " << name << " takes 1 or 2 values but got "
                              << ShapeToString(v);
  }
  std::array<int64_t, 2> out{v[0], v.size() == 2 ? v[1] : v[0]};
  for (int64_t x : out) {
    if (x < min_value) {
      MINITVM_THROW(ValueError) << op << ": " << name << " " << ShapeToString(v)
                                << " must be at least " << min_value;
    }
  }
  return out;
}

std::array<int64_t, 4> Padding4(const std::string& op, const Shape& v) {
  std::array<int64_t, 4> out;
  if (v.size() == 1) {
    out = {v[0], v[0], v[0], v[0]};
  } else if (v.size() == 2) {
    out = {v[0], v[1], v[0], v[1]};
  } else if (v.size() == 4) {
    out = {v[0], v[1], v[2], v[3]};
  } else {
    MINITVM_THROW(ValueError) << op << ": padding takes 1, 2 or 4 values but got "
                              << ShapeToString(v);
  }
  for (int64_t x : out) {
    if (x < 0) {
      MINITVM_THROW(ValueError) << op << ": padding " << ShapeToString(v)
                                << " must not be negative";
    }
  }
  return out;
}

}  // namespace detail
}  // namespace lownumpy
}  // namespace minitvm
