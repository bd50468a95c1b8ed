#!/usr/bin/env bash
# One device call: ksearch built on a CUDA-13 host is carried as an install prefix packed in
# .devcarry/libs.tar.xz and .devcarry/prefix.tar.xz (bench/cuda/pack_for_device.sh: bin/, libexec/ksearch/, share/ksearch/, lib/
# with the non-system shared libraries), unpacked here into .devcarry/prefix, with variants/ rendered
# by the host test in .devcarry/. Runs the GPU tests,
# `ksearch eval` of every cuda seed, short `ksearch run` searches whose best kernels are exported
# to /tmp/runs/kernels/<task>/, and the side-by-side benchmark of those kernels (or of
# BENCH_KERNELS=DIR, e.g. .devcarry/variants) against PyTorch.
# Logs go to $OUT (at most 8 files come back: the run folders and exports are packed in runs.tgz).
#   [SEARCH_TASKS="softmax:1 attention_bf16:2.5"] [SEARCH_ROUNDS=12] [SEARCH_MINUTES=2] [SEARCH_PARALLEL=4] \
#   [SEARCH_FLAGS="--finalists 0"] (more `ksearch run` options) [SEARCH_TIMEOUT=300] (seconds per task; a run cut
#   short is stored: the `resume` stage finishes it after `restore`) \
#   [BENCH_TASKS=a,b] [BENCH_WRAPPERS=task,task] [EVAL_VARIANTS=task/variant ...] [GPU_TESTS=gtest filter] [TESTS_TIMEOUT=300] \
#   [EVALCOST_TASKS="softmax rmsnorm"] [EVALCOST_RUNS=3] [CPU_SEARCH_TASKS="attention matmul@haswell:3"] \
#   [PROFILE_CASES="task=case substring;task=..."] \
#   [SHARDS=3] [CORPUS="folder/file.cu ..."] [CORPUS_PARALLEL=12] \
#   bash bench/cuda/device_run.sh [tests] [sharded] [curand] [corpus] [seeds] [evalcost] [variants] [restore] [resume] [search] [cpusearch] [bench] [profile]
set -uo pipefail
ROOT=$(pwd)
PREFIX=$ROOT/.devcarry/prefix
[ -x "$PREFIX/bin/ksearch" ] || { mkdir -p "$PREFIX" && tar -C "$PREFIX" -xJf "$ROOT/.devcarry/libs.tar.xz" &&
  tar -C "$PREFIX" -xJf "$ROOT/.devcarry/prefix.tar.xz"; } || exit 1
export LD_LIBRARY_PATH=$PREFIX/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export KSEARCH_CACHE_DIR=/tmp/ksearch-cache
# The GPU tests' adversarial sources come from this checkout (the data ksearch reads is in the prefix).
export KSEARCH_CUDA_ADVERSARIAL_DIR=$ROOT/tests/cuda/adversarial
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
BIN=$PREFIX/bin
"$BIN/ksearch" paths | tee "$OUT/paths.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/gpu.txt"
# A task's run: its state into search.log, its best kernel exported to /tmp/runs/kernels/TASK/, and the run
# folders packed after every task, so that a call cut short keeps what finished.
show_and_export() {
  "$BIN/ksearch" show /tmp/runs/search-$1 2>&1 | tee -a "$OUT/search.log" | tail -25
  rm -rf /tmp/runs/kernels/$1; mkdir -p /tmp/runs/kernels/$1
  "$BIN/ksearch" export /tmp/runs/search-$1 --out /tmp/runs/kernels/$1/ 2>&1 | tee -a "$OUT/search.log"
  tar czf "$OUT/runs.tgz" -C /tmp runs
}
for stage in "$@"; do
  case $stage in
    tests)
      timeout ${TESTS_TIMEOUT:-300} "$BIN/ksearch_cuda_tests" --gtest_filter="${GPU_TESTS:-CudaGpu.*:CudaHost.BackendIsRegistered}" 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "^\[|adversarial|Failure|Expected|Which|actual|error" | head -80
      cat "$KSEARCH_CACHE_DIR"/ceilings/cuda-*.json > "$OUT/ceilings.json" 2>/dev/null ;;
    sharded)  # CudaGpu.AdversarialSuite and HonestKernelsPassEveryWorkload over SHARDS processes at once, each given
      # every SHARDS-th file of the corpus (one process for all of them takes longer than a device call may)
      shards=${SHARDS:-3}
      for i in $(seq 0 $((shards - 1))); do
        for kind in adversarial honest; do
          rm -rf /tmp/shard-$kind-$i; mkdir -p /tmp/shard-$kind-$i
          ls tests/cuda/$kind/*.cu | awk -v n=$shards -v i=$i 'NR % n == i' | xargs -r cp -t /tmp/shard-$kind-$i
        done
        KSEARCH_CUDA_ADVERSARIAL_DIR=/tmp/shard-adversarial-$i KSEARCH_CUDA_HONEST_DIR=/tmp/shard-honest-$i \
          timeout ${TESTS_TIMEOUT:-500} "$BIN/ksearch_cuda_tests" \
          --gtest_filter="CudaGpu.AdversarialSuite:CudaGpu.HonestKernelsPassEveryWorkload" > "$OUT/sharded-$i.log" 2>&1 &
      done
      wait
      cat "$OUT"/sharded-*.log | grep -E "^\[ +(OK|FAILED|PASSED) |Failure|Expected|actual|Which" | sort | uniq -c ;;
    curand)  # the cuRAND generators' ports checked against cuRAND itself (tests/translate/device/curand_*_check.cu)
      for check in tests/translate/device/curand_*_check.cu; do
        name=$(basename "$check" .cu)
        nvcc -arch=sm_90 -O2 -I include -o /tmp/$name "$check" && timeout 120 /tmp/$name 2>&1 | tee "$OUT/$name.log" | tail -5
        echo "$name: exit ${PIPESTATUS[0]}" | tee -a "$OUT/curand.log"
      done ;;
    corpus)  # translator corpus kernels (CORPUS="folder/file.cu ...", default all) run as CUDA against their tasks'
      # references on every workload: each must pass, so that a port failing metalsim is the translator's fault
      cd tests/translate/corpus
      ls ${CORPUS:-*/*.cu} | xargs -P ${CORPUS_PARALLEL:-12} -I{} sh -c 'r=$(timeout 240 "$0" eval --backend cuda \
        --task ../tasks/$(dirname {}) --workloads all --no-timing {} 2>&1); echo "$r" | grep -q " status passed" &&
        echo "passed {}" || { echo "FAILED {}"; echo "$r" | head -20 | sed "s/^/    /"; }' "$BIN/ksearch" > "$OUT/corpus.log"
      cd "$ROOT"
      grep -c "^passed" "$OUT/corpus.log"; grep -A20 "^FAILED" "$OUT/corpus.log" | head -120 ;;
    seeds)
      for t in softmax rmsnorm matmul attention attention_bf16 selective_scan; do
        timeout 150 "$BIN/ksearch" eval --task $t --backend cuda --workloads visible tasks/$t/seeds/cuda.cu 2>&1 | tee -a "$OUT/seeds.log" | grep -vE "^$"
      done ;;
    evalcost)  # what one `ksearch eval` of each seed costs, by phase (the first run fills the caches)
      for t in ${EVALCOST_TASKS:-softmax}; do
        for i in $(seq ${EVALCOST_RUNS:-3}); do
          SECONDS=0
          timeout 300 "$BIN/ksearch" eval --task $t --backend cuda --workloads visible --json tasks/$t/seeds/cuda.cu > "$OUT/evalcost-$t-$i.json"
          python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); p=j.get("phase_seconds",{})
print(sys.argv[2], j["status"], "wall", sys.argv[3], "s |", " ".join(f"{k} {v:.1f}" for k,v in sorted(p.items())))' \
            "$OUT/evalcost-$t-$i.json" "$t#$i" $SECONDS | tee -a "$OUT/evalcost.log"
        done
      done ;;
    variants)  # rendered template variants through `ksearch eval` on every workload (log shared with search)
      for v in ${EVAL_VARIANTS:-}; do
        timeout 150 "$BIN/ksearch" eval --task ${v%%/*} --backend cuda --workloads all .devcarry/variants/$v.cu 2>&1 | tee -a "$OUT/search.log" | grep -vE "^$"
      done ;;
    restore)  # the run folders and exports of an earlier call, brought back as .devcarry/runs.tgz
      tar xzf .devcarry/runs.tgz -C /tmp ;;
    resume)  # the restored runs of SEARCH_TASKS that were cut short (e.g. by SEARCH_TIMEOUT in the re-timing) finished,
      # their best exported again; completed evaluations are kept
      for spec in ${SEARCH_TASKS:-softmax selective_scan}; do
        t=${spec%%:*}; SECONDS=0
        timeout ${SEARCH_TIMEOUT:-300} "$BIN/ksearch" resume /tmp/runs/search-$t 2>> "$OUT/search.log"
        echo "resume $t: exit $? in ${SECONDS}s" | tee -a "$OUT/search.log"
        show_and_export $t
      done ;;
    search)  # each task's run folder and exported best kernel under /tmp/runs (packed into $OUT/runs.tgz)
      for spec in ${SEARCH_TASKS:-softmax selective_scan}; do  # TASK or TASK:MINUTES
        t=${spec%%:*}; minutes=${SEARCH_MINUTES:-2}; [[ $spec == *:* ]] && minutes=${spec#*:}
        rm -rf /tmp/runs/search-$t; mkdir -p /tmp/runs
        SECONDS=0
        timeout ${SEARCH_TIMEOUT:-300} "$BIN/ksearch" run --task $t --backend cuda --rounds ${SEARCH_ROUNDS:-12} --minutes $minutes \
          --parallel ${SEARCH_PARALLEL:-4} ${SEARCH_FLAGS:-} --out /tmp/runs/search-$t --json > /tmp/runs/search-$t.json 2>> "$OUT/search.log"
        echo "search $t: exit $? in ${SECONDS}s" | tee -a "$OUT/search.log"
        cat /tmp/runs/search-$t.json; echo
        show_and_export $t
      done ;;
    cpusearch)  # cpu searches on this host's quiet cores, CPU_SEARCH_TASKS="TASK[@MARCH][:MINUTES] ...", each best re-evaluated
      for spec in ${CPU_SEARCH_TASKS:-attention}; do
        minutes=2; [[ $spec == *:* ]] && minutes=${spec#*:}
        spec=${spec%%:*}; t=${spec%%@*}; march=native; [[ $spec == *@* ]] && march=${spec#*@}
        dir=/tmp/runs/cpu-$t-$march; rm -rf "$dir"; mkdir -p /tmp/runs; SECONDS=0
        export KSEARCH_CPU_MARCH=$([ "$march" = native ] || echo "$march")  # empty: the host's own ISA
        timeout 300 "$BIN/ksearch" run --task $t --backend cpu \
          --minutes $minutes --rounds 1000 --finalists 1 --retime-rounds 2 --out "$dir" --json > "$dir.json" 2>> "$OUT/cpusearch.log"
        echo "cpu search $t ($march): exit $? in ${SECONDS}s" | tee -a "$OUT/cpusearch.log"
        "$BIN/ksearch" show "$dir" 2>&1 | tail -12 | tee -a "$OUT/cpusearch.log"
        [ -f "$dir/best.cpp" ] && timeout 120 "$BIN/ksearch" eval \
          --task $t --backend cpu --workloads visible "$dir/best.cpp" 2>&1 | tee -a "$OUT/cpusearch.log" | grep -vE "^$"
        cp "$dir/best.cpp" "$OUT/best-cpu-$t-$march.cpp" 2>/dev/null
      done
      unset KSEARCH_CPU_MARCH ;;
    bench)
      ceilings=$(ls "$KSEARCH_CACHE_DIR"/ceilings/cuda-*.json 2>/dev/null | head -1)
      PYTHONUNBUFFERED=1 timeout ${BENCH_TIMEOUT:-420} python3 bench/cuda/bench.py "${BENCH_KERNELS:-/tmp/runs/kernels}" --out "$OUT/bench.json" \
        ${BENCH_WRAPPERS:+--wrappers $BENCH_WRAPPERS} ${ceilings:+--ceilings $ceilings} 2>&1 | tee "$OUT/bench.log" ;;
    profile)  # ncu on one call of each kernel of BENCH_KERNELS, of PyTorch and of the other baselines, per matching case
      IFS=';' read -ra specs <<< "${PROFILE_CASES:-attention_bf16=prefill b4}"
      for spec in "${specs[@]}"; do
        BENCH_TASKS=${spec%%=*} timeout ${PROFILE_TIMEOUT:-240} $(command -v ncu || echo /usr/local/cuda/bin/ncu) --clock-control none --nvtx \
          --nvtx-include "profile/" --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
          --section LaunchStats --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis \
          python3 bench/cuda/bench.py "${BENCH_KERNELS:-/tmp/runs/kernels}" --profile "${spec#*=}" >> "$OUT/profile.log" 2>&1
        echo "profile $spec: exit $?" | tee -a "$OUT/profile.log"
      done
      grep -E "^  [a-zA-Z_].*\(|profiled|Duration|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|No Eligible|Executed Ipc A|Theoretical Occ" "$OUT/profile.log" | head -150 ;;
  esac
done
