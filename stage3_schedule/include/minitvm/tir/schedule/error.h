/*!
 * \file minitvm/tir/schedule/error.h
 * \brief Schedule errors (stage 3): the structured error a primitive raises when one of its
 * preconditions does not hold, and how it is rendered for the user.
 *
 * A primitive never prints; it fills a `ScheduleError` with the rule that broke (its kind, e.g.
 * `LoopsNotAChainError`), a one-line summary, the loops and blocks involved, every precondition
 * it checked marked met / not met, and the IR nodes to point at. The `Schedule` catches it,
 * rolls its state back and rethrows a plain `minitvm::Error` of kind
 * `"ScheduleError.<Kind>"` whose message is rendered at the schedule's error render level
 * ("detail" shows the IR with the offending lines marked, "fast" only the text, "none" only the
 * summary). Python turns that kind into the exception class `ScheduleError.<Kind>`.
 */
#ifndef MINITVM_TIR_SCHEDULE_ERROR_H_
#define MINITVM_TIR_SCHEDULE_ERROR_H_

#include <string>
#include <utility>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace tir {

/*! \brief How much a schedule error message shows. */
enum class ErrorRenderLevel : int {
  kDetail = 0,  ///< summary, preconditions and the IR with the error location marked
  kFast = 1,    ///< summary and preconditions, no IR
  kNone = 2,    ///< the summary line only
};

/*! \brief Parse "detail" / "fast" / "none" (ValueError otherwise). */
ErrorRenderLevel ParseErrorRenderLevel(const std::string& level);

/*!
 * \brief The structured error of a schedule primitive. Thrown by primitives, rendered by the
 * Schedule (see the file comment). Build it with the chained setters and `throw` it.
 */
class ScheduleError : public Error {
 public:
  /*! \brief One precondition that was checked, and whether it held. */
  struct Precondition {
    std::string text;
    bool met;
  };
  /*! \brief A node of the IR to mark in the rendered IR, with a short note. */
  struct Location {
    ObjectRef node;  ///< a For or Block node of the failing function
    std::string note;
  };

  /*! \param kind The rule that broke, e.g. "LoopsNotAChainError" (without "ScheduleError."). */
  ScheduleError(std::string kind, std::string summary);

  /*! \brief The rule name, e.g. "LoopsNotAChainError". */
  const std::string& rule() const { return rule_; }
  const std::string& summary() const { return summary_; }
  const std::vector<Precondition>& preconditions() const { return preconditions_; }
  const std::vector<Location>& locations() const { return locations_; }
  const std::vector<std::string>& subjects() const { return subjects_; }

  /*! \brief Add a precondition line ("[met]" / "[not met]"). */
  ScheduleError& Check(std::string text, bool met) {
    preconditions_.push_back({std::move(text), met});
    return *this;
  }
  /*! \brief Name a loop or block involved (e.g. `loop "i_0"`). */
  ScheduleError& Subject(std::string what) {
    subjects_.push_back(std::move(what));
    return *this;
  }
  /*! \brief Point at a node in the IR. */
  ScheduleError& At(ObjectRef node, std::string note) {
    locations_.push_back({std::move(node), std::move(note)});
    return *this;
  }
  /*! \brief Add a free-form detail line. */
  ScheduleError& Detail(std::string line) {
    details_.push_back(std::move(line));
    return *this;
  }

  /*!
   * \brief The full message at `level`. `call` is the primitive call as the user wrote it
   * (e.g. `sch.reorder(l2, l4, l3)`); `mod` is the IR *before* the primitive ran.
   */
  std::string Render(ErrorRenderLevel level, const std::string& call, const IRModule& mod,
                     const std::string& func_name) const;

 private:
  std::string rule_;
  std::string summary_;
  std::vector<Precondition> preconditions_;
  std::vector<Location> locations_;
  std::vector<std::string> subjects_;
  std::vector<std::string> details_;
};

/*!
 * \brief Print `func` as TVMScript and mark the lines of the given nodes with
 * `  # <- error here: note`. Used by error rendering and by the step-by-step view.
 */
std::string RenderIRWithMarks(const IRModule& mod, const std::string& func_name,
                              const std::vector<ScheduleError::Location>& marks);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_SCHEDULE_ERROR_H_
