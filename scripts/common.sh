# Shared by the scripts in this folder; source it, do not run it.
# Defines the repository root, the Python to use, the job count, and configure_and_build.

MINITVM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Debian's Python: numpy, torch and pytest live in its dist-packages (another python3 may
# come first on PATH without them).
PYTHON=${PYTHON:-/usr/bin/python3}
JOBS=${JOBS:-$(nproc)}
# LLVM 19 is required once stage 5 is built (TOOLCHAIN.md pins 19.1).
LLVM_CMAKE_DIR=${LLVM_CMAKE_DIR:-/usr/lib/llvm-19/lib/cmake/llvm}

# Let the build folders share ccache entries: build/ and build-stage1/ compile the same
# sources with the same flags, so the second one is nearly free. (ccache otherwise keys
# objects compiled with -g on the build folder.)
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$MINITVM_ROOT}

say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

# configure_and_build <build-dir> [extra cmake arguments...]
# Configures with Ninja (ccache is picked up by CMakeLists.txt when installed) and builds.
configure_and_build() {
  local dir=$1
  shift
  local max_stage=${MINITVM_MAX_STAGE:-5}
  local arg
  for arg in "$@"; do
    [[ $arg == -DMINITVM_MAX_STAGE=* ]] && max_stage=${arg#-DMINITVM_MAX_STAGE=}
  done
  if ((max_stage >= 5)) && [[ ! -e "$LLVM_CMAKE_DIR/LLVMConfig.cmake" ]]; then
    echo "error: stage 5 needs LLVM 19 (llvm-19-dev) but $LLVM_CMAKE_DIR/LLVMConfig.cmake is" \
      "missing; run scripts/install_deps.sh or configure with -DMINITVM_MAX_STAGE=4" >&2
    return 1
  fi
  mkdir -p "$MINITVM_ROOT/$dir"
  cmake -S "$MINITVM_ROOT" -B "$MINITVM_ROOT/$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
    -DMINITVM_MAX_STAGE="$max_stage" \
    -DPython3_EXECUTABLE="$PYTHON" \
    "$@" >"$MINITVM_ROOT/$dir/configure.log" 2>&1 || {
    cat "$MINITVM_ROOT/$dir/configure.log" >&2
    return 1
  }
  grep -E '^-- minitvm' "$MINITVM_ROOT/$dir/configure.log" || true
  cmake --build "$MINITVM_ROOT/$dir" -j "$JOBS"
}
