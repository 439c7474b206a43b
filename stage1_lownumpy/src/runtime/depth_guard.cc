/*!
 * \file depth_guard.cc
 * \brief The depth policy's checks (stage 1): the walker's depth against kMaxNestingDepth and
 * the address of the current frame against the bounds of this thread's stack.
 */
#include "minitvm/runtime/depth_guard.h"

#include <pthread.h>

#include <algorithm>
#include <cstdint>

#include "minitvm/runtime/error.h"

namespace minitvm {
namespace {

/*! \brief The lowest usable address and the size of this thread's stack (0, 0 if unknown). */
struct StackBounds {
  uintptr_t low = 0;
  size_t size = 0;
};

StackBounds QueryStackBounds() {
  StackBounds b;
#if defined(__linux__)
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    size_t guard = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      pthread_attr_getguardsize(&attr, &guard);
      b.low = reinterpret_cast<uintptr_t>(addr) + guard;
      b.size = size > guard ? size - guard : 0;
    }
    pthread_attr_destroy(&attr);
  }
#endif
  return b;
}

const StackBounds& ThisThreadStack() {
  // The stack of a thread never moves: ask once per thread.
  thread_local const StackBounds bounds = QueryStackBounds();
  return bounds;
}

}  // namespace

size_t StackReserveBytes() {
  const StackBounds& b = ThisThreadStack();
  constexpr size_t kReserve = 256 * 1024;
  return b.size == 0 ? kReserve : std::min(kReserve, b.size / 4);
}

void CheckNestingDepth(int depth, const char* what) {
  if (depth > kMaxNestingDepth) {
    MINITVM_THROW_KIND("ValueError.NestingTooDeepError")
        << what << " nested deeper than " << kMaxNestingDepth
        << " levels: minitvm refuses trees this deep instead of overflowing the stack (see "
           "docs/hardening.md)";
  }
  const StackBounds& b = ThisThreadStack();
  if (b.size == 0) return;
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  size_t left = here > b.low ? here - b.low : 0;
  if (left < StackReserveBytes()) {
    MINITVM_THROW_KIND("ValueError.NestingTooDeepError")
        << what << " nested too deep for this thread's stack: " << depth << " levels reached with "
        << left / 1024 << " KiB of " << b.size / 1024
        << " KiB left (run it on a thread with a larger stack, or build a shallower tree)";
  }
}

}  // namespace minitvm
