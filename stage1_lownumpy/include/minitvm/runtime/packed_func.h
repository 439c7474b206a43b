/*!
 * \file minitvm/runtime/packed_func.h
 * \brief `PackedFunc` (stage 1): the one calling convention of minitvm. A packed function
 * takes an array of `Any` and returns an `Any`; typed C++ lambdas are wrapped so that their
 * arguments are unpacked with count and type checks.
 */
#ifndef MINITVM_RUNTIME_PACKED_FUNC_H_
#define MINITVM_RUNTIME_PACKED_FUNC_H_

#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "minitvm/runtime/any.h"
#include "minitvm/runtime/container.h"

namespace minitvm {
namespace runtime {

/*! \brief A view of the arguments of a packed call. */
class PackedArgs {
 public:
  PackedArgs(const Any* values, int size) : values_(values), size_(size) {}
  int size() const { return size_; }
  /*! \brief Argument i; IndexError when out of range. */
  const Any& operator[](int i) const {
    if (i < 0 || i >= size_) {
      MINITVM_THROW(IndexError) << "argument index " << i << " out of range: " << size_
                                << " arguments given";
    }
    return values_[i];
  }
  const Any* data() const { return values_; }

 private:
  const Any* values_;
  int size_;
};

/*! \brief The body of a packed function. */
using FPacked = std::function<void(PackedArgs args, Any* rv)>;

/*! \brief The node of a PackedFunc: its body and (for messages) its name. */
class PackedFuncObj : public Object {
 public:
  FPacked body;
  std::string name;
  MINITVM_DECLARE_OBJECT_INFO(PackedFuncObj, Object, "runtime.PackedFunc");
};

namespace detail {
template <typename T>
struct FuncTraits : FuncTraits<decltype(&T::operator())> {};
template <typename R, typename... A>
struct FuncTraits<R (*)(A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
};
template <typename R, typename... A>
struct FuncTraits<R(A...)> : FuncTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct FuncTraits<R (C::*)(A...) const> : FuncTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct FuncTraits<R (C::*)(A...)> : FuncTraits<R (*)(A...)> {};

/*! \brief Convert argument i, rethrowing a TypeError with the function name and position. */
template <typename T>
T UnpackArg(const std::string& fname, PackedArgs args, int i) {
  try {
    return args[i].cast<T>();
  } catch (const Error& e) {
    if (e.base_kind() != "TypeError") throw;
    MINITVM_THROW(TypeError) << (fname.empty() ? "<anonymous>" : fname) << ": argument " << i
                             << ": " << e.what();
  }
}

template <typename F, typename... A, size_t... I>
void CallTyped(const F& f, const std::string& fname, PackedArgs args, Any* rv,
               std::index_sequence<I...>) {
  using R = typename FuncTraits<F>::Ret;
  if (args.size() != static_cast<int>(sizeof...(A))) {
    MINITVM_THROW(TypeError) << (fname.empty() ? "<anonymous>" : fname) << ": expects "
                             << sizeof...(A) << " argument" << (sizeof...(A) == 1 ? "" : "s")
                             << " but " << args.size() << (args.size() == 1 ? " was" : " were")
                             << " given";
  }
  if constexpr (std::is_void_v<R>) {
    f(UnpackArg<std::decay_t<A>>(fname, args, I)...);
  } else {
    *rv = Any(f(UnpackArg<std::decay_t<A>>(fname, args, I)...));
  }
}

template <typename F, typename Tuple>
struct TypedCaller;
template <typename F, typename... A>
struct TypedCaller<F, std::tuple<A...>> {
  static void Call(const F& f, const std::string& fname, PackedArgs args, Any* rv) {
    CallTyped<F, A...>(f, fname, args, rv, std::index_sequence_for<A...>());
  }
};
}  // namespace detail

/*! \brief Handle to a packed function; call it with any arguments that convert to Any. */
class PackedFunc : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(PackedFunc, ObjectRef, PackedFuncObj);
  explicit PackedFunc(FPacked body, std::string name = "") {
    auto n = make_object<PackedFuncObj>();
    n->body = std::move(body);
    n->name = std::move(name);
    data_ = std::move(n);
  }
  /*! \brief Wrap a typed callable: its arguments are unpacked and checked. */
  template <typename F>
  static PackedFunc FromTyped(F f, std::string name = "") {
    std::string fname = name;
    return PackedFunc(
        [f = std::move(f), fname](PackedArgs args, Any* rv) {
          detail::TypedCaller<F, typename detail::FuncTraits<F>::Args>::Call(f, fname, args, rv);
        },
        std::move(name));
  }
  /*! \brief Call with already packed arguments. */
  void CallPacked(PackedArgs args, Any* rv) const {
    if (!defined()) MINITVM_THROW(ValueError) << "calling an undefined PackedFunc";
    get()->body(args, rv);
  }
  /*! \brief Call with C++ values: `f(1, "x", arr)`. */
  template <typename... Args>
  Any operator()(Args&&... args) const {
    Any packed[sizeof...(Args) + 1] = {Any(std::forward<Args>(args))...};
    Any rv;
    CallPacked(PackedArgs(packed, static_cast<int>(sizeof...(Args))), &rv);
    return rv;
  }
  const std::string& name() const { return get()->name; }
};

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_PACKED_FUNC_H_
