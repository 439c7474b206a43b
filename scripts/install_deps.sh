#!/usr/bin/env bash
# Install everything minitvm needs on Debian 12 (see docs/building.md).
#
# Idempotent and quick: when every package is already installed, apt is not touched at all.
# Runs as root directly, or through sudo when run by another user.
# CUDA is optional: it is detected and reported, never installed and never required.
set -euo pipefail

# The main set: compilers, build tools, LLVM 19, Python/NumPy, test and benchmark libraries,
# Graphviz, Doxygen, DLPack.
MAIN_PACKAGES=(
  g++ cmake ninja-build ccache clang-format
  llvm-19-dev libzstd-dev
  python3-dev python3-numpy python3-pytest
  libgtest-dev libbenchmark-dev
  graphviz libgraphviz-dev doxygen
  libdlpack-dev
)
# Only tests, tutorials and benchmarks use these; installed without recommends (torch pulls
# in a lot otherwise). nbclient + ipykernel: the tests run every lesson as a notebook in a real
# Jupyter kernel; tabulate: torch.fx's graph.print_tabular() in course code; torchvision: the
# from_fx models.
EXTRA_PACKAGES=(
  python3-torch python3-sklearn libopenblas-dev
  chromium-headless-shell poppler-utils python3-pygments python3-nbformat python3-venv python3-pip
  python3-nbclient python3-ipykernel python3-tabulate python3-torchvision
)

log() { echo "[install_deps] $*"; }

missing_from() {
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      echo "$pkg"
    fi
  done
}

mapfile -t missing_main < <(missing_from "${MAIN_PACKAGES[@]}")
mapfile -t missing_extra < <(missing_from "${EXTRA_PACKAGES[@]}")

if ((${#missing_main[@]} + ${#missing_extra[@]} > 0)); then
  if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    log "missing packages: ${missing_main[*]} ${missing_extra[*]}"
    log "error: not root and sudo is not available; install them as root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  log "installing: ${missing_main[*]} ${missing_extra[*]}"
  "${SUDO[@]}" apt-get update -qq
  if ((${#missing_main[@]} > 0)); then
    "${SUDO[@]}" apt-get install -y -qq "${missing_main[@]}" >/dev/null
  fi
  if ((${#missing_extra[@]} > 0)); then
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing_extra[@]}" >/dev/null
  fi
  log "done"
else
  log "all packages present"
fi

# CUDA: optional. Stage 5 uses NVRTC from the toolkit and loads the driver at run time.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [[ -x "$CUDA_HOME/bin/nvcc" || -e "$CUDA_HOME/include/nvrtc.h" ]]; then
  version=$("$CUDA_HOME/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
  log "CUDA toolkit: found at $CUDA_HOME${version:+ (release $version)}"
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    log "CUDA GPU: $(nvidia-smi -L | head -1)"
  else
    log "CUDA GPU: none (generated CUDA code is compiled and checked, not run)"
  fi
else
  log "CUDA toolkit: not found (optional; CUDA code generation is skipped)"
fi
