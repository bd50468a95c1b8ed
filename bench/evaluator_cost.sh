#!/usr/bin/env bash
# Median wall time of `ksearch eval` of each task's seed on its visible workloads, for two builds side
# by side in one sitting (e.g. before and after an evaluator change). Each evaluation runs WARMUP + RUNS
# times; the first WARMUP (default 1), which fill the reference and seed-timing caches, are dropped and
# the range of the others is printed. The references of the secret inputs are cached per machine, so a
# search's evaluations soon find them all cached: WARMUP=4 measures that steady state.
#   [WARMUP=1] [RUNS=2] [EXT=cpp] bash bench/evaluator_cost.sh BACKEND "TASK ..." NAME=BIN_DIR [NAME=BIN_DIR ...]
set -euo pipefail
backend=$1 tasks=$2; shift 2
printf '%-16s' task; for build in "$@"; do printf ' %14s' "${build%%=*} (s)"; done; echo
for task in $tasks; do
  printf '%-16s' "$task"
  for build in "$@"; do
    bin=${build#*=}
    export KSEARCH_CACHE_DIR=/tmp/ksearch-cost-cache-${build%%=*}
    seconds=()
    warmup=${WARMUP:-1}
    for ((run = 0; run < warmup + ${RUNS:-2}; ++run)); do
      start=$(date +%s%N)
      "$bin/ksearch" eval --task "$task" --backend "$backend" --workloads visible "tasks/$task/seeds/$backend.${EXT:-cpp}" \
        > /dev/null 2>&1 || true
      ((run >= warmup)) && seconds+=("$(( ($(date +%s%N) - start) / 1000000 ))")
    done
    printf ' %14s' "$(printf '%s\n' "${seconds[@]}" | sort -n | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.1f-%.1f", lo / 1000, hi / 1000}')"
  done
  echo
done
