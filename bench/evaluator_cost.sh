#!/usr/bin/env bash
# Median wall time of `ksearch eval` of each task's seed on its visible workloads, for two builds side
# by side in one sitting (e.g. before and after an evaluator change). Each evaluation runs RUNS times
# (default 3); the first (which fills the reference and seed-timing caches) is dropped and the range of
# the others is printed.
#   [RUNS=3] [EXT=cpp] bash bench/evaluator_cost.sh BACKEND "TASK ..." NAME=BIN_DIR [NAME=BIN_DIR ...]
set -euo pipefail
backend=$1 tasks=$2; shift 2
printf '%-16s' task; for build in "$@"; do printf ' %14s' "${build%%=*} (s)"; done; echo
for task in $tasks; do
  printf '%-16s' "$task"
  for build in "$@"; do
    bin=${build#*=}
    export KSEARCH_CACHE_DIR=/tmp/ksearch-cost-cache-${build%%=*}
    seconds=()
    for ((run = 0; run < ${RUNS:-3}; ++run)); do
      start=$(date +%s%N)
      "$bin/ksearch" eval --task "$task" --backend "$backend" --workloads visible "tasks/$task/seeds/$backend.${EXT:-cpp}" \
        > /dev/null 2>&1 || true
      ((run > 0)) && seconds+=("$(( ($(date +%s%N) - start) / 1000000 ))")
    done
    printf ' %14s' "$(printf '%s\n' "${seconds[@]}" | sort -n | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.1f-%.1f", lo / 1000, hi / 1000}')"
  done
  echo
done
