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

# Python cannot load the instrumented libraries unless the ASan runtime (and libstdc++, see
# docs/sanitizers.md) is preloaded, and its own allocations look like leaks to ASan.
PY_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)"
# CTest tests that run the Python interpreter, recognised by name: python_* (pytest groups)
# and *.py (the Python tutorials).
PY_TESTS='(^python_|[.]py$)'

say "C++ tests under ASan/UBSan"
# Leak checking stays on for the C++ programs.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" -E "$PY_TESTS" || status=1

say "CTest's Python tests under ASan/UBSan"
LD_PRELOAD="$PY_PRELOAD" ASAN_OPTIONS=detect_leaks=0 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" -R "$PY_TESTS" \
  --no-tests=ignore || status=1

if [[ -d tests/python && -d build-asan/python ]]; then
  say "Python tests under ASan/UBSan"
  LD_PRELOAD="$PY_PRELOAD" \
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
