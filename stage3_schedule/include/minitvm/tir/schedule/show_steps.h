/*!
 * \file minitvm/tir/schedule/show_steps.h
 * \brief The step-by-step view of a schedule (stage 3, beyond TVM): for each instruction of a
 * trace, the IR before and after as a unified diff, and a check — the TIR interpreter on
 * random inputs — that the function still computes what the original computed. The first
 * step that changed the results is named.
 *
 * `CheckEquivalence` is the check itself; tests, the tutorial and the fuzz test use it to
 * compare a scheduled function with the original.
 */
#ifndef MINITVM_TIR_SCHEDULE_SHOW_STEPS_H_
#define MINITVM_TIR_SCHEDULE_SHOW_STEPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/ir/text_diff.h"  // UnifiedDiff, which the steps use
#include "minitvm/tir/function.h"
#include "minitvm/tir/schedule/trace.h"

namespace minitvm {
namespace tir {

/*! \brief The outcome of comparing two functions on random inputs. */
struct EquivalenceResult {
  /*! \brief False when the comparison could not run (symbolic shapes, changed signature). */
  bool checked = false;
  /*! \brief True when every buffer matched within tolerance (meaningful when checked). */
  bool equal = false;
  /*! \brief The largest absolute difference seen. */
  double max_abs_diff = 0;
  /*! \brief Why it was not checked, or where the first mismatch is. */
  std::string message;
};

/*!
 * \brief Run `reference` and `candidate` with the interpreter on the same random inputs (every
 * buffer parameter filled with values from `seed`) and compare every buffer afterwards with
 * |a - b| <= atol + rtol * |b|. An error raised while running the candidate counts as a
 * mismatch (its message is reported).
 */
EquivalenceResult CheckEquivalence(const PrimFunc& reference, const PrimFunc& candidate,
                                   uint64_t seed = 0, double rtol = 1e-5, double atol = 1e-5);

/*! \brief One step of the view. */
struct ScheduleStep {
  int index = 0;       ///< 1-based position in the trace
  std::string python;  ///< the instruction as Python
  std::string before;  ///< TVMScript of the function before the step
  std::string after;   ///< ... and after
  std::string diff;    ///< unified diff of the two
  EquivalenceResult check;
  std::string error;  ///< set when the step itself failed to apply
};

/*! \brief The whole view. */
struct ScheduleSteps {
  std::vector<ScheduleStep> steps;
  /*! \brief 1-based index of the first step whose results differ (0 when none). */
  int first_bad_step = 0;
  /*! \brief The report as text: each step's line of Python, its diff and its check. */
  std::string ToString() const;
};

/*!
 * \brief Replay `trace` on `mod` one instruction at a time, recording each step for function
 * `func_name` (getters, which do not change the IR, are listed without a diff or check).
 */
ScheduleSteps ShowSteps(const IRModule& mod, const Trace& trace,
                        const std::string& func_name = "main", uint64_t seed = 0);

class Schedule;
/*! \brief The view of a schedule: its trace replayed on the module it started from. */
ScheduleSteps ShowSteps(const Schedule& sch, const std::string& func_name = "main",
                        uint64_t seed = 0);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_SCHEDULE_SHOW_STEPS_H_
