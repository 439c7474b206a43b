/*!
 * \file reduce.cc
 * \brief Reductions of lownumpy (stage 1). One loop serves them all: walk the input and, for
 * each element, combine it into the output element it reduces to. The output is read through
 * strides that are 0 on the reduced axes, which is exactly broadcasting run backwards.
 */
#include "minitvm/lownumpy/reduce.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "./op_util.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace lownumpy {

using namespace detail;  // NOLINT(build/namespaces)

namespace {

/*! \brief The axes to reduce and the shapes that result. */
struct ReducePlan {
  std::vector<bool> reduced;  ///< per input axis
  Shape kept_shape;           ///< input shape with reduced axes set to 1 (keepdims=True)
  Shape out_shape;            ///< the requested output shape
  Shape acc_strides;          ///< strides of a compact kept_shape buffer, 0 on reduced axes
  int64_t out_size = 1;
  int64_t count = 1;  ///< how many input elements each output element combines
};

ReducePlan Plan(const std::string& op, const NDArray& a, const OptAxes& axes, bool keepdims) {
  CheckCPU(op, a);
  const int64_t nd = a.ndim();
  ReducePlan p;
  p.reduced.assign(nd, !axes.has_value());
  if (axes) {
    for (int64_t ax : NormalizeAxes(op, *axes, nd)) p.reduced[ax] = true;
  }
  for (int64_t d = 0; d < nd; ++d) {
    int64_t dim = a.Shape()[d];
    p.kept_shape.push_back(p.reduced[d] ? 1 : dim);
    if (p.reduced[d]) {
      p.count *= dim;
      if (keepdims) p.out_shape.push_back(1);
    } else {
      p.out_shape.push_back(dim);
      p.out_size *= dim;
    }
  }
  p.acc_strides = runtime::CompactStrides(p.kept_shape);
  for (int64_t d = 0; d < nd; ++d) {
    if (p.reduced[d]) p.acc_strides[d] = 0;
  }
  return p;
}

/*!
 * \brief acc[o] = combine(acc[o], x) for every input element x reducing to output o; `acc`
 * starts as `init` for every output element.
 */
template <typename T, typename Acc, typename F>
std::vector<Acc> Accumulate(const NDArray& a, const ReducePlan& p, Acc init, F combine) {
  std::vector<Acc> acc(p.out_size, init);
  const T* pa = a.data_as<T>();
  ForEachOffset<2>(a.Shape(), {a->strides, p.acc_strides}, [&](const std::array<int64_t, 2>& o) {
    acc[o[1]] = combine(acc[o[1]], pa[o[0]]);
  });
  return acc;
}

/*! \brief A compact array of `shape` holding `values` converted to Out. */
template <typename Out, typename Acc>
NDArray Store(const Shape& shape, DataType dtype, const std::vector<Acc>& values) {
  NDArray out = NDArray::Empty(shape, dtype);
  Out* po = out.data_as<Out>();
  for (size_t i = 0; i < values.size(); ++i) po[i] = static_cast<Out>(values[i]);
  return out;
}

template <typename T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

/*! \brief max or min, with NaN winning as in NumPy. */
template <bool kIsMax>
NDArray Extreme(const std::string& op, const NDArray& a, const OptAxes& axes, bool keepdims) {
  ReducePlan p = Plan(op, a, axes, keepdims);
  if (p.count == 0) {
    MINITVM_THROW(ValueError) << op << ": zero-size reduction over shape "
                              << ShapeToString(a.Shape()) << " has no identity";
  }
  return Dispatch<kAllTypes>(op, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Start from the first element of each group (a flag says whether it was seen), so no
    // "identity" value has to be invented for each dtype.
    struct Best {
      T value{};
      bool seen = false;
    };
    auto acc = Accumulate<T>(a, p, Best{}, [](Best b, T x) {
      if (!b.seen) return Best{x, true};
      if (IsNaN(b.value)) return b;
      bool better = kIsMax ? x > b.value : x < b.value;
      return (better || IsNaN(x)) ? Best{x, true} : b;
    });
    NDArray out = NDArray::Empty(p.out_shape, a.dtype());
    T* po = out.data_as<T>();
    for (size_t i = 0; i < acc.size(); ++i) po[i] = acc[i].value;
    return out;
  });
}

/*! \brief argmax or argmin: the first extreme along `axis`, or over the flattened array. */
template <bool kIsMax>
NDArray ArgExtreme(const std::string& op, const NDArray& a, std::optional<int64_t> axis,
                   bool keepdims) {
  CheckCPU(op, a);
  OptAxes axes;
  int64_t inner = 1;  // elements between two steps along the axis, in row-major order
  int64_t dim = a.NumElements();
  if (axis) {
    int64_t ax = NormalizeAxis(op, *axis, a.ndim());
    axes = Shape{ax};
    dim = a.Shape()[ax];
    for (int64_t d = ax + 1; d < a.ndim(); ++d) inner *= a.Shape()[d];
  }
  ReducePlan p = Plan(op, a, axes, keepdims);
  if (p.count == 0) {
    MINITVM_THROW(ValueError) << op << ": attempt to get " << op << " of an empty sequence (shape "
                              << ShapeToString(a.Shape()) << ")";
  }
  return Dispatch<kAllTypes>(op, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    struct Best {
      T value{};
      int64_t index = -1;  // -1: nothing seen yet
    };
    std::vector<Best> best(p.out_size);
    const T* pa = a.data_as<T>();
    int64_t flat = 0;  // row-major position of the element being visited
    ForEachOffset<2>(a.Shape(), {a->strides, p.acc_strides}, [&](const std::array<int64_t, 2>& o) {
      int64_t i = (flat / inner) % dim;  // position along the reduced axis
      ++flat;
      T x = pa[o[0]];
      Best& b = best[o[1]];
      if (b.index >= 0 && IsNaN(b.value)) return;
      bool better = kIsMax ? x > b.value : x < b.value;
      if (b.index < 0 || better || IsNaN(x)) b = Best{x, i};
    });
    std::vector<int64_t> best_index(p.out_size);
    for (int64_t k = 0; k < p.out_size; ++k) best_index[k] = best[k].index;
    return Store<int64_t>(p.out_shape, DataType::Int(64), best_index);
  });
}

}  // namespace

NDArray sum(const NDArray& a, const OptAxes& axes, bool keepdims) {
  ReducePlan p = Plan("sum", a, axes, keepdims);
  return Dispatch<kAllTypes>("sum", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Acc = SumAcc<T>;
    auto acc = Accumulate<T>(a, p, Acc(0), [](Acc s, T x) { return WrapAdd(s, Acc(x)); });
    if constexpr (std::is_floating_point_v<T>) {
      return Store<T>(p.out_shape, a.dtype(), acc);
    } else {
      return Store<int64_t>(p.out_shape, DataType::Int(64), acc);
    }
  });
}

NDArray prod(const NDArray& a, const OptAxes& axes, bool keepdims) {
  ReducePlan p = Plan("prod", a, axes, keepdims);
  return Dispatch<kAllTypes>("prod", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Acc = SumAcc<T>;
    auto acc = Accumulate<T>(a, p, Acc(1), [](Acc s, T x) { return WrapMul(s, Acc(x)); });
    if constexpr (std::is_floating_point_v<T>) {
      return Store<T>(p.out_shape, a.dtype(), acc);
    } else {
      return Store<int64_t>(p.out_shape, DataType::Int(64), acc);
    }
  });
}

NDArray mean(const NDArray& a, const OptAxes& axes, bool keepdims) {
  ReducePlan p = Plan("mean", a, axes, keepdims);
  return Dispatch<kAllTypes>("mean", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto acc = Accumulate<T>(a, p, 0.0, [](double s, T x) { return s + static_cast<double>(x); });
    for (double& v : acc) v /= static_cast<double>(p.count);  // 0/0 is NaN, as NumPy
    if constexpr (std::is_floating_point_v<T>) {
      return Store<T>(p.out_shape, a.dtype(), acc);
    } else {
      return Store<double>(p.out_shape, DataType::Float(64), acc);
    }
  });
}

NDArray max(const NDArray& a, const OptAxes& axes, bool keepdims) {
  return Extreme<true>("max", a, axes, keepdims);
}
NDArray min(const NDArray& a, const OptAxes& axes, bool keepdims) {
  return Extreme<false>("min", a, axes, keepdims);
}
NDArray argmax(const NDArray& a, std::optional<int64_t> axis, bool keepdims) {
  return ArgExtreme<true>("argmax", a, axis, keepdims);
}
NDArray argmin(const NDArray& a, std::optional<int64_t> axis, bool keepdims) {
  return ArgExtreme<false>("argmin", a, axis, keepdims);
}

#define LOWNUMPY_REGISTER_REDUCE(Name)                                                        \
  MINITVM_REGISTER_GLOBAL("lownumpy." #Name)                                                  \
      .set_body_typed([](NDArray a, std::optional<runtime::Array<int64_t>> axes, bool keep) { \
        return lownumpy::Name(a, ToOptShape(axes), keep);                                     \
      })

LOWNUMPY_REGISTER_REDUCE(sum);
LOWNUMPY_REGISTER_REDUCE(mean);
LOWNUMPY_REGISTER_REDUCE(prod);
LOWNUMPY_REGISTER_REDUCE(max);
LOWNUMPY_REGISTER_REDUCE(min);
MINITVM_REGISTER_GLOBAL("lownumpy.argmax")
    .set_body_typed([](NDArray a, std::optional<int64_t> axis, bool keepdims) {
      return argmax(a, axis, keepdims);
    });
MINITVM_REGISTER_GLOBAL("lownumpy.argmin")
    .set_body_typed([](NDArray a, std::optional<int64_t> axis, bool keepdims) {
      return argmin(a, axis, keepdims);
    });

}  // namespace lownumpy
}  // namespace minitvm
