#!/bin/bash
# `ksearch run`'s executor options: a misuse is a clear error with exit code 2, before any run
# folder is made. Usage: cli_errors.sh KSEARCH TASK_TOML
set -uo pipefail
ksearch=$1
task=$2
out=$(mktemp -d /tmp/ksearch-executor-cli.XXXXXX)
trap 'rm -rf "$out"' EXIT
status=0
expect_usage_error() {
  local what=$1; shift
  "$ksearch" run --task "$task" --backend cpu --rounds 1 --out "$out/run" "$@" > "$out/stdout" 2> "$out/stderr"
  local rc=$?
  if [ "$rc" != 2 ] || ! grep -q -- "$what" "$out/stderr"; then
    echo "FAILED: ksearch run $* exited $rc, expected 2 with '$what':"; cat "$out/stderr"; status=1
  fi
  [ ! -e "$out/run" ] || { echo "FAILED: ksearch run $* left a run folder"; status=1; rm -rf "$out/run"; }
}
expect_usage_error "options of --executor slurm" --partition gpu
expect_usage_error "options of --executor slurm" --executor local --max-jobs 4
expect_usage_error "--devices is an option of --executor local" --executor slurm --devices 0
expect_usage_error "expects all or a list" --devices 0,,1
expect_usage_error "unknown executor 'ray'" --executor ray
expect_usage_error "names a device twice" --devices 1,1
exit $status
