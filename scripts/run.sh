#!/usr/bin/env bash
# Installs what is missing, builds ksearch and runs its main job on the embedded defaults:
# a search for a faster softmax on the cpu backend with the built-in expert proposer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
exec ./build/ksearch run --task "${KSEARCH_TASK:-softmax}" --backend cpu "$@"
