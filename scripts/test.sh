#!/usr/bin/env bash
# The test command of minitvm: set up, build, and run every test.
#
#   1. install the dependencies (quick when they are present),
#   2. build all stages in build/ and run the C++ tests (ctest) and Python tests (pytest),
#   3. build stage 1 alone in build-stage1/ and run its tests (proves the layering),
#   4. check the C++ formatting (scripts/check_format.sh).
# Every step runs even when an earlier one failed (except the tests of a tree that did not
# build); the exit status is non-zero when any step failed.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$MINITVM_ROOT"
BUILD_DIR=${BUILD_DIR:-build}

failed=()
step() {
  local name=$1
  shift
  say "$name"
  if "$@"; then
    return 0
  fi
  echo "FAILED: $name" >&2
  failed+=("$name")
  return 1
}

run_pytest() {
  if [[ ! -d tests/python ]]; then
    echo "tests/python does not exist yet: no Python tests to run"
    return 0
  fi
  PYTHONPATH="$MINITVM_ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
    MINITVM_BUILD_DIR="$MINITVM_ROOT/$BUILD_DIR" \
    "$PYTHON" -m pytest tests/python -q
}

step "install dependencies" scripts/install_deps.sh || exit 1

if step "build all stages ($BUILD_DIR/)" configure_and_build "$BUILD_DIR"; then
  step "C++ tests ($BUILD_DIR/)" ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
  step "Python tests" run_pytest
fi

if step "build stage 1 only (build-stage1/)" configure_and_build build-stage1 \
  -DMINITVM_MAX_STAGE=1 -DMINITVM_BUILD_PYTHON=OFF -DMINITVM_BUILD_BENCH=OFF; then
  step "C++ tests (build-stage1/)" ctest --test-dir build-stage1 --output-on-failure -j "$JOBS"
fi

step "clang-format check" scripts/check_format.sh

say "summary"
if ((${#failed[@]} > 0)); then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all steps passed"
