#!/usr/bin/env bash
# Build minitvm with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and run the
# C++ and Python tests under them (see docs/sanitizers.md).
#
#   scripts/sanitize_test.sh                        # all stages
#   MINITVM_MAX_STAGE=1 scripts/sanitize_test.sh    # stage 1 only (quick)
#   scripts/sanitize_test.sh --leaks                # LeakSanitizer mode (below)
#
# --leaks: LeakSanitizer instead (no ASan build): an ordinary Release build in build-lsan/
# (LSAN_BUILD_DIR), every CTest test (or those with the labels in MINITVM_LEAK_LABELS, e.g.
# "stage1|stage2|stage3") and a pytest subset (MINITVM_LEAK_PYTESTS; "tests/python" for all)
# with liblsan preloaded. scripts/lsan_filter.py keeps the leaks of minitvm's own code and
# ignores the interpreter's and the system tools'; third-party suppressions are in
# scripts/lsan_suppressions.txt. Exits non-zero on a test failure or a minitvm leak.
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

if ((LEAKS)); then
  # LeakSanitizer alone needs no instrumented code: its runtime (liblsan) replaces malloc when
  # it is preloaded. So the leak build is an ordinary Release build (ccache hits from the
  # other build folders), and every test process -- the C++ test programs, the minitvm CLI,
  # the Python interpreter, also when a wrapper starts it -- runs with liblsan preloaded.
  # exitcode=0 + log_path: each leaking process writes $LEAK_DIR/lsan/lsan.<exe>.<pid>
  # instead of failing its test, and scripts/lsan_filter.py decides which leaks are
  # minitvm's (docs/sanitizers.md).
  LEAK_DIR=${LSAN_BUILD_DIR:-build-lsan}
  say "Release build for the leak check ($LEAK_DIR/)"
  configure_and_build "$LEAK_DIR" -DMINITVM_BUILD_BENCH=OFF || exit 1
  rm -rf "${LEAK_DIR:?}/lsan" && mkdir -p "$LEAK_DIR/lsan"
  # liblsan, then a shim that takes LD_PRELOAD out of the environment of every process but
  # ctest, cmake, Python and the programs of the build folder, so that the compiler, as and
  # ld (when a library is exported) and Chromium run without LeakSanitizer.
  cc -O2 -shared -fPIC -o "$LEAK_DIR/lsan/unset_preload.so" scripts/lsan_unset_preload.c || exit 1
  LSAN_RT="$(gcc -print-file-name=liblsan.so) $MINITVM_ROOT/$LEAK_DIR/lsan/unset_preload.so"
  # Python objects in pymalloc's arenas (mmap, not malloc) are invisible to LeakSanitizer,
  # so whatever a live Python object holds looked leaked; with malloc it is traced.
  export PYTHONMALLOC=malloc MINITVM_LSAN_KEEP_DIR="$MINITVM_ROOT/$LEAK_DIR/"
  lsan_opts="suppressions=$MINITVM_ROOT/scripts/lsan_suppressions.txt:print_suppressions=0"
  lsan_opts+=":exitcode=0:log_path=$MINITVM_ROOT/$LEAK_DIR/lsan/lsan:log_exe_name=1"
  lsan_opts+=":malloc_context_size=30${MINITVM_LSAN_EXTRA:+:$MINITVM_LSAN_EXTRA}"
  # The CTest programs use the fast unwinder (the slow one makes LLVM-heavy tests ~10x
  # slower): every leak of a program built here counts, so a short stack still fails the
  # run; MINITVM_LEAK_SLOW_UNWIND=1 gives full stacks to find the cause. The pytest run
  # always uses full stacks: they tell minitvm's leaks from the interpreter's.
  fast=1
  [[ ${MINITVM_LEAK_SLOW_UNWIND:-0} == 1 ]] && fast=0
  export LSAN_OPTIONS="$lsan_opts:fast_unwind_on_malloc=$fast"
  started=$SECONDS
  # CTest: all tests (C++ programs, CLI tools, tutorials, the CTest Python tests), or only
  # those with the labels in MINITVM_LEAK_LABELS (a regex, e.g. "stage1|stage2|stage3").
  say "CTest tests under LeakSanitizer${MINITVM_LEAK_LABELS:+ (labels $MINITVM_LEAK_LABELS)}"
  LD_PRELOAD="$LSAN_RT" ctest --test-dir "$LEAK_DIR" --output-on-failure -j "$JOBS" \
    ${MINITVM_LEAK_LABELS:+-L "$MINITVM_LEAK_LABELS"} || status=1
  # pytest: a representative subset by default (runtime and FFI, DLPack, LLVM code
  # generation, the Relax VM, the back-end hardening cases); MINITVM_LEAK_PYTESTS replaces
  # the list ("tests/python" for all of it, "none" to skip).
  subset=${MINITVM_LEAK_PYTESTS:-tests/python/test_runtime_ndarray.py tests/python/test_ffi_errors.py
    tests/python/test_runtime_dlpack.py tests/python/test_codegen_llvm.py tests/python/test_relax_vm.py
    tests/python/test_hardening_back.py}
  present=()
  for t in $subset; do [[ -e $t ]] && present+=("$t"); done
  if ((${#present[@]})); then
    say "pytest under LeakSanitizer: ${present[*]}"
    LD_PRELOAD="$LSAN_RT" LSAN_OPTIONS="$lsan_opts:fast_unwind_on_malloc=0" \
      PYTHONPATH="$MINITVM_ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
      MINITVM_BUILD_DIR="$MINITVM_ROOT/$LEAK_DIR" \
      "$PYTHON" -m pytest -q -p no:cacheprovider "${present[@]}" || status=1
  fi
  say "leak reports ($((SECONDS - started)) s of tests)"
  shopt -s nullglob
  reports=("$LEAK_DIR"/lsan/lsan.*.[0-9]*)
  "$PYTHON" scripts/lsan_filter.py --build-dir "$MINITVM_ROOT/$LEAK_DIR" "${reports[@]}" \
    </dev/null || status=1
  if ((status == 0)); then say "no leaks from minitvm"; else say "leak check FAILED"; fi
  exit "$status"
fi

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
