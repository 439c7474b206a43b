#!/usr/bin/env bash
# The main job of minitvm: set up, build, then run the most complete tutorial and print its
# output beside the reference output it is checked against.
#
# The most complete end-to-end lesson: the quick start's MLP built with nn.Module, through the
# "zero" pipeline, compiled by tvm.compile for llvm and run in the Relax VM, checked against
# low-level NumPy (and the Relax interpreter), exported and reloaded in a fresh process. Its
# printed output is diffed side by side with the golden file the tutorial test uses; the time
# per call beside NumPy and PyTorch goes to stderr (timings vary, so they are not diffed).
MAIN_LESSON=${MAIN_LESSON:-tutorials/08_vm/lesson.py}
MAIN_LESSON_DIFF=${MAIN_LESSON_DIFF:-1}
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$MINITVM_ROOT"
BUILD_DIR=${BUILD_DIR:-build}

say "install dependencies"
scripts/install_deps.sh
say "build ($BUILD_DIR/)"
configure_and_build "$BUILD_DIR"

# The lesson to run: MAIN_LESSON, else the highest-numbered Python lesson present.
lesson=$MAIN_LESSON
if [[ ! -f $lesson ]]; then
  fallback=$(ls tutorials/*/lesson.py 2>/dev/null | sort | tail -1 || true)
  if [[ -z $fallback ]]; then
    say "no tutorial yet"
    echo "$MAIN_LESSON does not exist and no tutorials/*/lesson.py was found; the build" \
      "succeeded. Run scripts/test.sh for the tests."
    exit 0
  fi
  echo "note: $MAIN_LESSON does not exist; running $fallback instead"
  lesson=$fallback
fi

# The reference: the golden output the tutorial test compares with (tutorials/CMakeLists.txt).
lesson_dir=$(dirname "$lesson")
case $lesson in
  *.py) reference=$lesson_dir/expected_py.txt ;;
  *) reference=$lesson_dir/expected_cpp.txt ;;
esac
[[ -f $reference ]] || reference=""

say "run $lesson"
output=$(mktemp)
errors=$(mktemp)
trap 'rm -f "$output" "$errors"' EXIT
status=0
case $lesson in
  *.py)
    PYTHONPATH="$MINITVM_ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
      MINITVM_BUILD_DIR="$MINITVM_ROOT/$BUILD_DIR" \
      "$PYTHON" "$lesson" >"$output" 2>"$errors" || status=$?
    ;;
  *)
    # A C++ lesson: its executable is $BUILD_DIR/bin/tutorial_<folder> (or MAIN_LESSON_BIN).
    bin=${MAIN_LESSON_BIN:-$BUILD_DIR/bin/tutorial_$(basename "$lesson_dir")}
    "$bin" >"$output" 2>"$errors" || status=$?
    ;;
esac
cat "$output"
cat "$errors" >&2

if [[ $MAIN_LESSON_DIFF == 0 ]]; then
  if ((status == 0)) && grep -q '^OK:' "$output"; then
    echo "result: every number above was checked against the reference in the same run ($(grep '^OK:' "$output" | tail -1))"
  else
    echo "result: the lesson did not confirm its results (no OK: line)"
    if ((status == 0)); then status=1; fi
  fi
elif [[ -n $reference ]]; then
  say "output (left) beside the reference $reference (right)"
  # Wide enough for the longest line on both sides.
  longest=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$output" "$reference")
  width=$((2 * longest + 5))
  # Trailing spaces and blank lines do not count, as in tutorials/run_lesson.py.
  if diff --side-by-side --expand-tabs --width="$width" \
    --ignore-trailing-space --ignore-blank-lines "$output" "$reference"; then
    echo "result: the output matches the reference"
  else
    echo "result: the output DIFFERS from the reference (lines marked | < >)"
    if ((status == 0)); then status=1; fi
  fi
else
  echo "(no reference output next to $lesson)"
fi
if ((status != 0)); then
  echo "FAILED: $lesson (exit status $status)" >&2
fi
exit "$status"
