/*!
 * \file minitvm/runtime/depth_guard.h
 * \brief The one depth policy of minitvm (stage 1, used by every later stage): recursive walks
 * over user-built trees (IR functors, structural equality/hash, printers) hold a `DepthGuard`
 * per level, which refuses nesting deeper than a documented limit and refuses to go on when
 * the thread's stack is nearly used up, so that no input can overflow the stack.
 *
 * Two checks, both raising `ValueError.NestingTooDeepError` with a message that names what
 * is nested:
 *  - the walk's own depth: more than `kMaxNestingDepth` levels of one walk (per walker, so a
 *    walk that starts another walk gets its own budget);
 *  - the stack: fewer than `StackReserveBytes()` bytes left on this thread's stack. This catches
 *    threads with small stacks (Python's `threading.stack_size`) and walks that nest other
 *    walks, at any depth.
 * See docs/hardening.md.
 */
#ifndef MINITVM_RUNTIME_DEPTH_GUARD_H_
#define MINITVM_RUNTIME_DEPTH_GUARD_H_

#include <cstddef>

namespace minitvm {

/*!
 * \brief Deepest nesting a recursive walk accepts (expression depth, statement depth).
 *
 * 4000 levels need at most ~2 KiB of stack per level on an 8 MiB stack; the parser accepts
 * 500-deep expressions, so everything it produces stays far below the limit.
 */
constexpr int kMaxNestingDepth = 4000;

/*! \brief Bytes of this thread's stack that a walk leaves unused (for the error path and leaf
 *  work such as LLVM calls): 256 KiB, or a quarter of a smaller stack. */
size_t StackReserveBytes();

/*!
 * \brief Throw ValueError.NestingTooDeepError when `depth` exceeds kMaxNestingDepth or this
 * thread's stack is nearly exhausted. `what` names the tree ("expression", "statement").
 */
void CheckNestingDepth(int depth, const char* what);

/*!
 * \brief RAII: one level of a recursive walk. Increments `*counter` (the walker's depth),
 * checks the policy, and decrements on scope exit.
 */
class DepthGuard {
 public:
  DepthGuard(int* counter, const char* what) : counter_(counter) {
    CheckNestingDepth(*counter_ + 1, what);
    ++*counter_;
  }
  ~DepthGuard() { --*counter_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  int* counter_;
};

}  // namespace minitvm

#endif  // MINITVM_RUNTIME_DEPTH_GUARD_H_
