#!/usr/bin/env bash
# Evaluations per minute of one search, evaluated on 1 and then 2 devices of this host (issue 17's
# goal: 2 GPUs at least 1.8x one), or through other executors. The same search both times (task,
# strategy, rounds, candidates per round), so the difference is where evaluations run.
#
#   bench/scale/devices.sh                        # cuda: --devices 0, then --devices 0,1
#   BACKEND=cpu TASK=softmax bench/scale/devices.sh
#   CONFIGS="--devices=0 --executor=slurm" BACKEND=cpu bench/scale/devices.sh   # local vs Slurm
#
# Environment: KSEARCH (default build/ksearch), BACKEND (cuda), TASK (matmul), ROUNDS (6),
# PARALLEL (candidates per round, 4), CONFIGS (space-separated ksearch run options, one run each;
# commas inside one option, e.g. --devices=0,1), OUT (a folder for the runs; default a temporary one).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ksearch=${KSEARCH:-$root/build/ksearch}
backend=${BACKEND:-cuda}
task=${TASK:-matmul}
rounds=${ROUNDS:-6}
parallel=${PARALLEL:-4}
configs=${CONFIGS:---devices=0 --devices=0,1}
out=${OUT:-$(mktemp -d /tmp/ksearch-scale.XXXXXX)}
mkdir -p "$out"
[ -x "$ksearch" ] || { echo "devices.sh: no ksearch at $ksearch (build it, or set KSEARCH)" >&2; exit 2; }

printf '%-24s %12s %10s %16s %10s\n' config evaluations seconds evaluations/min best
for config in $configs; do
  name=$(echo "$config" | tr -c 'A-Za-z0-9\n' '_' | sed 's/^_*//')
  "$ksearch" run --task "$task" --backend "$backend" --rounds "$rounds" --parallel "$parallel" "$config" \
    --out "$out/$name" --json > "$out/$name.json" 2> "$out/$name.log" || true
  python3 - "$config" "$out/$name.json" <<'PY'
import json, sys
config, path = sys.argv[1], sys.argv[2]
try:
    s = json.load(open(path))
except (OSError, ValueError):
    print(f"{config:<24} failed: see {path[:-5]}.log")
    sys.exit(0)
evaluations, seconds = s["evaluations"], s["elapsed_seconds"]
best = f'{s["best"]["speedup_vs_seed"]:.2f}x' if s.get("best") else "-"
print(f"{config:<24} {evaluations:>12} {seconds:>10.1f} {60 * evaluations / seconds:>16.1f} {best:>10}")
PY
done
echo "runs in $out"
