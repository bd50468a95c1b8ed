#!/usr/bin/env bash
# Installs what is missing, builds ksearch and runs the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
# Timing-sensitive tests share the machine: two at a time on CI's two cores.
ctest --preset default -j "${KSEARCH_TEST_JOBS:-2}" "$@"
