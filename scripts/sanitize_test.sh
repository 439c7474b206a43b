#!/usr/bin/env bash
# Build minitvm with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and run the
# C++ and Python tests under them (see docs/sanitizers.md).
#
#   scripts/sanitize_test.sh                        # all stages
#   MINITVM_MAX_STAGE=1 scripts/sanitize_test.sh    # stage 1 only (quick)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$MINITVM_ROOT"

status=0
say "build with sanitizers (build-asan/)"
configure_and_build build-asan -DMINITVM_SANITIZE=ON -DMINITVM_BUILD_BENCH=OFF || exit 1

# Report every UBSan finding with a stack trace; -fno-sanitize-recover makes them fatal.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

say "C++ tests under ASan/UBSan"
# Leak checking stays on for the C++ tests.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" || status=1

if [[ -d tests/python && -d build-asan/python ]]; then
  say "Python tests under ASan/UBSan"
  # The interpreter is not instrumented: the ASan runtime must be loaded first, and the
  # interpreter's own allocations would be reported as leaks, so leak checking is off.
  # libstdc++ is preloaded too: ASan looks up the real __cxa_throw when it starts, and
  # python3 itself does not load libstdc++, so without it the first C++ throw aborts.
  LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
    ASAN_OPTIONS=detect_leaks=0 \
    PYTHONPATH="$MINITVM_ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
    MINITVM_BUILD_DIR="$MINITVM_ROOT/build-asan" \
    "$PYTHON" -m pytest tests/python -q || status=1
else
  echo "no Python tests or no Python extension in build-asan/: skipping pytest"
fi

if ((status == 0)); then
  say "sanitizer tests passed"
else
  say "sanitizer tests FAILED"
fi
exit "$status"
