#!/usr/bin/env bash
# Evaluates every cpu template family of the given tasks (default: all five) at its default knobs, or
# at knob overrides given after the task as family:knob=value,knob=value, with `ksearch eval --json`,
# and prints median ms, speedup vs the seed and roofline fraction per workload.
#
#   bench/cpu/run_families.sh [-b BUILD_DIR] [-w all|visible|held-out] [TASK [family:knob=v,...]...]...
#   e.g. bench/cpu/run_families.sh softmax matmul
#        bench/cpu/run_families.sh matmul packed_microkernel:mr=6,nr_vectors=4
#
# Needs build targets ksearch, ksearch-runner-cpu and render_template (tests/templates). Timings take a
# lock shared by all ksearch processes, so run this on an otherwise idle machine.
set -euo pipefail

build=build-templates
workloads=all
while getopts "b:w:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    w) workloads=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))

root=$(cd "$(dirname "$0")/../.." && pwd)
ksearch=$root/$build/ksearch
render=$root/$build/render_template
for tool in "$ksearch" "$render"; do
  [[ -x $tool ]] || { echo "missing $tool: ninja -C $build ksearch ksearch-runner-cpu render_template" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Arguments: task names, each optionally followed by family:knobs variants; a task alone means all
# of its families at defaults ("family:" alone means that family at defaults).
args=("$@")
((${#args[@]})) || args=(softmax rmsnorm matmul attention selective_scan)
declare -a jobs=()
for ((i = 0; i < ${#args[@]}; ++i)); do
  [[ ${args[i]} == *:* ]] && continue
  n=0
  for ((j = i + 1; j < ${#args[@]} && ${#args[j]} > 0; ++j)); do
    [[ ${args[j]} == *:* ]] || break
    knobs=${args[j]#*:}
    jobs+=("${args[i]} ${args[j]%%:*} ${knobs:--}")
    n=$((n + 1))
  done
  ((n)) || jobs+=("${args[i]} ALL -")
done

run_one() {  # task family knobs(comma list or -)
  local task=$1 family=$2 knobs=$3 src=$work/$1_$2.cpp
  local -a knob_args=()
  [[ $knobs != - ]] && IFS=, read -ra knob_args <<<"$knobs"
  "$render" "$task" "$family" "${knob_args[@]}" >"$src"
  printf '\n== %s / %s  %s\n' "$task" "$family" "$([[ $knobs == - ]] && echo defaults || echo "$knobs")"
  "$ksearch" eval --task "$task" --backend cpu --workloads "$workloads" --json "$src" >"$work/out.json" || true
  jq -r '
    if .status != "passed" then "  status \(.status): \(.message)" else
    (["workload", "median_ms", "vs_seed", "roofline"] | @tsv),
    (.workloads[] | [.name + (if .held_out then " (h)" else "" end), (.median_ms * 1000 | round / 1000),
                     ((.speedup_vs_seed * 100 | round) / 100 | tostring + "x"),
                     ((.roofline_fraction * 1000 | round) / 10 | tostring + "%")] | @tsv),
    (["geomean", "", ((.speedup_vs_seed * 100 | round) / 100 | tostring + "x"),
      ((.roofline_fraction * 1000 | round) / 10 | tostring + "%")] | @tsv)
    end' "$work/out.json" | column -t -s $'\t' | sed 's/^/  /'
}

for job in "${jobs[@]}"; do
  read -r task family knobs <<<"$job"
  if [[ $family == ALL ]]; then
    for f in $("$render" "$task" | cut -d' ' -f1); do run_one "$task" "$f" -; done
  else
    run_one "$task" "$family" "$knobs"
  fi
done
