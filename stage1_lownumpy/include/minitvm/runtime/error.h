/*!
 * \file minitvm/runtime/error.h
 * \brief The one error type of minitvm (stage 1): an exception with a kind.
 *
 * Every failure that a caller can cause is reported as `minitvm::Error` with a kind such
 * as `ValueError` or `ScheduleError.LoopsNotAChainError`. The kind travels across the C ABI
 * and becomes the matching Python exception class.
 */
#ifndef MINITVM_RUNTIME_ERROR_H_
#define MINITVM_RUNTIME_ERROR_H_

#include <sstream>
#include <stdexcept>
#include <string>

namespace minitvm {

/*!
 * \brief The exception raised for every reported failure.
 *
 * `kind()` is a dotted name: the first component is the base kind (`TypeError`, `ValueError`,
 * `IndexError`, `AttributeError`, `RuntimeError`, `InternalError`, `ParseError`,
 * `ScheduleError`), an optional second component names a more specific rule
 * (`ScheduleError.LoopsNotAChainError`).
 */
class Error : public std::runtime_error {
 public:
  Error(std::string kind, const std::string& message)
      : std::runtime_error(message), kind_(std::move(kind)) {}
  /*! \brief The dotted kind, e.g. "ValueError". */
  const std::string& kind() const { return kind_; }
  /*! \brief The first component of the kind, e.g. "ScheduleError". */
  std::string base_kind() const { return kind_.substr(0, kind_.find('.')); }

 private:
  std::string kind_;
};

namespace detail {
/*!
 * \brief Collects a message with `<<`; `ErrorThrower` throws it when the statement ends.
 *
 * Used through MINITVM_THROW: `ErrorThrower() & ErrorBuilder(kind) << a << b` — `<<` binds
 * tighter than `&`, so the whole message is built first, then the [[noreturn]] `operator&`
 * throws. Because the throw is a call of a noreturn function, the compiler knows that code
 * after MINITVM_THROW is unreachable (no "control reaches end of non-void function").
 */
class ErrorBuilder {
 public:
  explicit ErrorBuilder(std::string kind) : kind_(std::move(kind)) {}
  ErrorBuilder(const ErrorBuilder&) = delete;
  template <typename T>
  ErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }
  /*! \brief Throw the collected message as an Error of this kind. */
  [[noreturn]] void Throw() { throw Error(kind_, stream_.str()); }

 private:
  std::string kind_;
  std::ostringstream stream_;
};

/*! \brief Throws the message an ErrorBuilder collected (see ErrorBuilder). */
struct ErrorThrower {
  [[noreturn]] void operator&(ErrorBuilder& builder) const { builder.Throw(); }
  [[noreturn]] void operator&(ErrorBuilder&& builder) const { builder.Throw(); }
};
}  // namespace detail

}  // namespace minitvm

/*! \brief Throw an Error of the given kind: `MINITVM_THROW(ValueError) << "bad " << x;` */
#define MINITVM_THROW(Kind) \
  ::minitvm::detail::ErrorThrower() & ::minitvm::detail::ErrorBuilder(#Kind)
/*! \brief Throw an Error whose kind is a runtime string. */
#define MINITVM_THROW_KIND(kind_str) \
  ::minitvm::detail::ErrorThrower() & ::minitvm::detail::ErrorBuilder(kind_str)
/*! \brief Check an internal invariant; failing it is a bug in minitvm, not in the input. */
#define MINITVM_ICHECK(cond) \
  if (!(cond))               \
  MINITVM_THROW(InternalError) << __FILE__ << ":" << __LINE__ << ": check failed: " #cond ": "
/*! \brief Check a condition on user input; failing it raises the given kind. */
#define MINITVM_CHECK(cond, Kind) \
  if (!(cond)) MINITVM_THROW(Kind)

#endif  // MINITVM_RUNTIME_ERROR_H_
