#!/usr/bin/env bash
# Packs a CUDA-enabled build for the GPU machine as an install prefix in .devcarry/prefix (ignored by
# git through .git/info/exclude): `cmake --install` (bin/ksearch, libexec/ksearch/ runners,
# share/ksearch/ data), the GPU test binary in bin/ (it finds data and runners as ksearch does), and
# in lib/ the shared libraries they need beyond the C/C++ runtime. The MLX runner stays behind (the
# device runs cpu and cuda). The prefix travels as .devcarry/prefix.tar.xz (libclang and LLVM, which
# `ksearch port` needs, take it over a device call's 64 MiB otherwise): a device call carries that
# file and bench/cuda/device_run.sh unpacks and runs from it; nothing depends on this machine's paths.
#   bash bench/cuda/pack_for_device.sh [BUILD_DIR=build]
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
grep -qx '/.devcarry/' .git/info/exclude 2>/dev/null || echo '/.devcarry/' >> .git/info/exclude
P=.devcarry/prefix
for exe in ksearch ksearch-runner-cpu ksearch-runner-cuda ksearch_cuda_tests; do
  [ -x "$BUILD/$exe" ] || { echo "missing $BUILD/$exe (configure with a CUDA toolkit present)" >&2; exit 1; }
done
rm -rf "$P"
cmake --install "$BUILD" --prefix "$P" > /dev/null
cp "$BUILD/ksearch_cuda_tests" "$P/bin/"
rm -f "$P/libexec/ksearch/ksearch-runner-mlx"
mkdir -p "$P/lib"
strip --strip-debug "$P"/bin/* "$P"/libexec/ksearch/*  # debug info would take the carry over its 64 MiB
# The device has its own libc, libstdc++ and CUDA driver; everything else travels.
ldd "$P"/bin/* "$P"/libexec/ksearch/* | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s|ld-linux[^/]*|libcuda|libnvidia[^/]*)\.so' |
  xargs -r cp -L -t "$P/lib/"
# Two archives: the shared libraries (most of the size, slow to compress) are packed again only when
# their names or sizes change.
tar -C "$P" -cf - bin libexec share | xz -6 -T2 > .devcarry/prefix.tar.xz
libs_key=$(cd "$P/lib" && find . -type f -printf '%f %s\n' | sort | sha256sum)
if [ ! -f .devcarry/libs.tar.xz ] || [ "$(cat .devcarry/libs.key 2>/dev/null)" != "$libs_key" ]; then
  tar -C "$P" -cf - lib | xz -6 -T2 > .devcarry/libs.tar.xz
  echo "$libs_key" > .devcarry/libs.key
fi
du -sh .devcarry/prefix.tar.xz .devcarry/libs.tar.xz
