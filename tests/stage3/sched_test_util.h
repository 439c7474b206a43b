/*!
 * \file sched_test_util.h
 * \brief Helpers for the stage 3 tests: parsing TVMScript, printing, and checking that a
 * scheduled function still computes what the original computed (the TIR interpreter on
 * random inputs).
 */
#ifndef MINITVM_TESTS_STAGE3_SCHED_TEST_UTIL_H_
#define MINITVM_TESTS_STAGE3_SCHED_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/schedule/schedule.h"
#include "minitvm/tir/schedule/show_steps.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace testing {

/*! \brief Parse TVMScript (a prim_func or an ir_module) into a module. */
inline IRModule ParseMod(const std::string& text) { return script::ParseModule(text); }

/*! \brief The TVMScript of a node. */
inline std::string Script(const ObjectRef& node) { return script::AsScript(node); }

/*! \brief The function "main" of a schedule's module. */
inline tir::PrimFunc MainOf(const tir::Schedule& sch) {
  return Downcast<tir::PrimFunc>(sch->mod()->Lookup("main"));
}

/*! \brief Whether `after` computes what `before` computes (random inputs, several seeds). */
inline ::testing::AssertionResult Equivalent(const tir::PrimFunc& before,
                                             const tir::PrimFunc& after, int seeds = 2) {
  for (int s = 0; s < seeds; ++s) {
    tir::EquivalenceResult r = tir::CheckEquivalence(before, after, s);
    if (!r.checked) return ::testing::AssertionFailure() << r.message;
    if (!r.equal) return ::testing::AssertionFailure() << r.message << "\n" << Script(after);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace testing
}  // namespace minitvm

#endif  // MINITVM_TESTS_STAGE3_SCHED_TEST_UTIL_H_
