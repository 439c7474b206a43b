#!/usr/bin/env bash
# Run TVM's own tests (the conformance suite in ../shared/conformance) against a built minitvm
# and print their table. A measurement, never a gate: this script always exits with 0, so it
# can be a step of the test command.
#
#   scripts/conformance.sh [BUILD_DIR]      # BUILD_DIR defaults to build/
#
# Without ../shared/conformance (a checkout outside the course workspace) it says so and stops.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNNER="$ROOT/../shared/conformance/run.sh"
BUILD=${1:-build}
cd "$ROOT" || exit 0
if [[ ! -x "$RUNNER" && ! -f "$RUNNER" ]]; then
  echo "conformance: skipped ($RUNNER not found)"
  exit 0
fi
bash "$RUNNER" "$BUILD" || echo "conformance: the suite could not run (see above)"
exit 0
