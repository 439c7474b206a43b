/*!
 * \file minitvm/ir/text_diff.h
 * \brief A unified diff of two texts (stage 2), as `diff -u` prints it. The pass instruments
 * (`PrintDiff`) and the schedule's step-by-step view (`sch.show_steps()`) show what changed
 * in the printed IR with it.
 */
#ifndef MINITVM_IR_TEXT_DIFF_H_
#define MINITVM_IR_TEXT_DIFF_H_

#include <string>

namespace minitvm {

/*!
 * \brief The unified diff of `before` and `after` line by line: `--- before_name` and
 * `+++ after_name` headers, then `@@ -a,n +b,m @@` hunks with 3 lines of context (removed
 * lines before added ones). Empty when the texts are equal.
 */
std::string UnifiedDiff(const std::string& before, const std::string& after,
                        const std::string& before_name = "before",
                        const std::string& after_name = "after");

}  // namespace minitvm

#endif  // MINITVM_IR_TEXT_DIFF_H_
