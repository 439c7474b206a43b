#!/usr/bin/env bash
# Build minitvm with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and run the
# C++ and Python tests under them (see docs/sanitizers.md).
#
#   scripts/sanitize_test.sh                        # all stages
#   MINITVM_MAX_STAGE=1 scripts/sanitize_test.sh    # stage 1 only (quick)
#   scripts/sanitize_test.sh --leaks                # LeakSanitizer mode (below)
#
# --leaks: the C++ tests with leak checking (optionally only the CTest labels in
# MINITVM_LEAK_LABELS, e.g. "stage1|stage5"), then a representative subset of the Python
# tests (MINITVM_LEAK_PYTESTS) with leak checking on; scripts/lsan_filter.py keeps the leaks
# of minitvm's own code and ignores the interpreter's. Suppressions (third-party only):
# scripts/lsan_suppressions.txt. ASAN_BUILD_DIR picks the build folder (default build-asan).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$MINITVM_ROOT"

LEAKS=0
if [[ ${1:-} == --leaks ]]; then
  LEAKS=1
  shift
fi
ASAN_DIR=${ASAN_BUILD_DIR:-build-asan}

status=0
say "build with sanitizers ($ASAN_DIR/)"
configure_and_build "$ASAN_DIR" -DMINITVM_SANITIZE=ON -DMINITVM_BUILD_BENCH=OFF || exit 1
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$MINITVM_ROOT/scripts/lsan_suppressions.txt:print_suppressions=0}

# Report every UBSan finding with a stack trace; -fno-sanitize-recover makes them fatal.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Python cannot load the instrumented libraries unless the ASan runtime (and libstdc++, see
# docs/sanitizers.md) is preloaded, and its own allocations look like leaks to ASan.
PY_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)"
# CTest tests that run the Python interpreter, recognised by name: python_* (pytest groups)
# and *.py (the Python tutorials).
PY_TESTS='(^python_|[.]py$)'

if ((LEAKS)); then
  say "C++ tests under LeakSanitizer${MINITVM_LEAK_LABELS:+ (labels $MINITVM_LEAK_LABELS)}"
  ASAN_OPTIONS=detect_leaks=1 ctest --test-dir "$ASAN_DIR" --output-on-failure -j "$JOBS" \
    -E "$PY_TESTS" ${MINITVM_LEAK_LABELS:+-L "$MINITVM_LEAK_LABELS"} || status=1
  # A representative subset: the runtime and FFI, code generation, the VM, the hardening cases.
  subset=${MINITVM_LEAK_PYTESTS:-tests/python/test_runtime_ndarray.py tests/python/test_ffi_errors.py
    tests/python/test_runtime_dlpack.py tests/python/test_codegen_llvm.py tests/python/test_relax_vm.py
    tests/python/test_hardening_back.py}
  present=()
  for t in $subset; do [[ -e $t ]] && present+=("$t"); done
  say "Python subset under LeakSanitizer: ${present[*]}"
  rm -rf "$ASAN_DIR/lsan" && mkdir -p "$ASAN_DIR/lsan"
  LD_PRELOAD="$PY_PRELOAD" \
    ASAN_OPTIONS="detect_leaks=1:log_path=$MINITVM_ROOT/$ASAN_DIR/lsan/py" \
    PYTHONPATH="$MINITVM_ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
    MINITVM_BUILD_DIR="$MINITVM_ROOT/$ASAN_DIR" \
    "$PYTHON" -m pytest -q -p no:cacheprovider "${present[@]}" || status=1
  shopt -s nullglob
  reports=("$ASAN_DIR"/lsan/py.*)
  "$PYTHON" scripts/lsan_filter.py --build-dir "$MINITVM_ROOT/$ASAN_DIR" "${reports[@]}" </dev/null \
    || status=1
  if ((status == 0)); then say "no leaks from minitvm"; else say "leak check FAILED"; fi
  exit "$status"
fi

say "C++ tests under ASan/UBSan"
# Leak checking stays on for the C++ programs.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
  ctest --test-dir "$ASAN_DIR" --output-on-failure -j "$JOBS" -E "$PY_TESTS" || status=1

say "CTest's Python tests under ASan/UBSan"
LD_PRELOAD="$PY_PRELOAD" ASAN_OPTIONS=detect_leaks=0 \
  ctest --test-dir "$ASAN_DIR" --output-on-failure -j "$JOBS" -R "$PY_TESTS" \
  --no-tests=ignore || status=1

if [[ -d tests/python && -d $ASAN_DIR/python ]]; then
  say "Python tests under ASan/UBSan"
  LD_PRELOAD="$PY_PRELOAD" \
    ASAN_OPTIONS=detect_leaks=0 \
    PYTHONPATH="$MINITVM_ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
    MINITVM_BUILD_DIR="$MINITVM_ROOT/$ASAN_DIR" \
    "$PYTHON" -m pytest tests/python -q || status=1
else
  echo "no Python tests or no Python extension in $ASAN_DIR/: skipping pytest"
fi

if ((status == 0)); then
  say "sanitizer tests passed"
else
  say "sanitizer tests FAILED"
fi
exit "$status"
