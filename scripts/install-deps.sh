#!/usr/bin/env bash
# Installs every system and Python package ksearch needs to build, test and benchmark.
# Idempotent: packages already present are skipped, so repeated runs are cheap.
set -euo pipefail

# libclang-14-dev: the CUDA -> Metal translator (`ksearch port`, docs/TRANSLATE.md) parses CUDA with it.
# libpcre2-dev: regular expressions over candidates' sources and models' answers (core/pattern.hpp).
# libdw-dev: metalsim reads a kernel's line tables so that its findings name the kernel's line.
# slurm-wlm, munge: `--executor slurm` (sbatch, squeue, scancel) and its test, which starts a
# single-node Slurm of its own (tests/executors/slurm_cluster.sh).
apt_packages=(
  build-essential cmake ninja-build pkg-config clang
  nlohmann-json3-dev libsqlite3-dev sqlite3 libcurl4-openssl-dev libcli11-dev libfmt-dev
  libspdlog-dev libtomlplusplus-dev libgtest-dev libgmock-dev libbenchmark-dev
  libboost-context-dev libboost-dev libpcre2-dev libseccomp-dev libcpp-httplib-dev libssl-dev libmuparser-dev
  chromium libpng-dev python3 python3-pip libclang-14-dev libdw-dev
  slurm-wlm munge
)

missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# MLX for Linux (CPU): used by the metal backend's signature checks and by the benchmarks.
# mlx-lm and pytest: the metalsim_mlx tests (tests/python). metalsim_mlx itself (python/), editable
# from this checkout, so that `import metalsim_mlx` works in any directory (docs/METAL.md).
if [ "${KSEARCH_SKIP_PIP:-0}" != "1" ]; then
  python3 -c "import mlx.core" 2>/dev/null || python3 -m pip install -q "mlx[cpu]" || \
    echo "install-deps: warning: pip could not install mlx[cpu]; MLX-based checks will be skipped"
  # find_spec, not import: importing mlx_lm (transformers) takes seconds.
  python3 -c "import importlib.util as u, sys; sys.exit(not (u.find_spec('mlx_lm') and u.find_spec('pytest')))" || \
    python3 -m pip install -q mlx-lm pytest || \
    echo "install-deps: warning: pip could not install mlx-lm and pytest; the metalsim_mlx tests will be skipped"
  package_dir="$(cd "$(dirname "$0")/../python" && pwd)"
  installed_from_here="import metalsim_mlx, os, sys; sys.exit(os.path.dirname(metalsim_mlx.__file__) != sys.argv[1])"
  python3 -c "$installed_from_here" "$package_dir/metalsim_mlx" 2>/dev/null || \
    python3 -m pip install -q -e "$package_dir" || \
    echo "install-deps: warning: pip could not install metalsim_mlx from $package_dir"
fi
