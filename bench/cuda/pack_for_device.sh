#!/usr/bin/env bash
# Packs a CUDA-enabled build for the GPU machine: the ksearch binaries and the shared libraries
# they need beyond the C/C++ runtime go to .devcarry/ (ignored by git through .git/info/exclude),
# which a device call carries and bench/cuda/device_run.sh runs from.
#   bash bench/cuda/pack_for_device.sh [BUILD_DIR=build]
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
grep -qx '/.devcarry/' .git/info/exclude 2>/dev/null || echo '/.devcarry/' >> .git/info/exclude
rm -rf .devcarry/bin .devcarry/lib
mkdir -p .devcarry/bin .devcarry/lib
for exe in ksearch ksearch-runner-cpu ksearch-runner-cuda ksearch_cuda_tests; do
  [ -x "$BUILD/$exe" ] || { echo "missing $BUILD/$exe (configure with a CUDA toolkit present)" >&2; exit 1; }
  cp "$BUILD/$exe" .devcarry/bin/
done
strip --strip-debug .devcarry/bin/*  # debug info would take the carry over its 64 MiB
# The device has its own libc, libstdc++ and CUDA driver; everything else travels.
ldd .devcarry/bin/* | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s|ld-linux[^/]*|libcuda|libnvidia[^/]*)\.so' |
  xargs -r cp -L -t .devcarry/lib/
du -sh .devcarry
