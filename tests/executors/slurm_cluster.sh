#!/bin/bash
# A real single-node Slurm (Debian's slurm-wlm and munge) started under a temporary folder on
# localhost with a few CPU slots, and a short cpu search through `--executor slurm`:
#  - the driver is killed (SIGKILL) while its jobs are queued; the jobs stay queued, their ids are
#    in the run store, and `ksearch resume` re-attaches to them instead of submitting them again;
#  - one job fails on its node (its job file made unreadable for the node while it was queued):
#    the evaluation is recorded as failed with Slurm's account of it, and the search goes on.
# Usage: slurm_cluster.sh KSEARCH TASK_TOML. Exit 77 (ctest: skipped) only where Slurm cannot start.
set -uo pipefail
ksearch=$1
task=$2

skip() { echo "SKIPPED: $*"; exit 77; }
work=$(mktemp -d /tmp/ksearch-slurm.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for f in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munge/munged.pid; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 1
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAILED: $*"
  for log in "$work"/log/*.log; do echo "--- $log"; tail -n 20 "$log"; done
  exit 1
}

for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel python3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs; this test runs as $(id -un)"

# munge: its own key and socket under $work.
mkdir -p "$work"/{munge,state,spool,log}
chmod 755 "$work"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed" || skip "munged does not start: $(tail -n 3 "$work/log/munged.log")"

# Ports from this process id, so that parallel test runs do not collide.
port=$((20000 + ($$ % 20000) * 2))
node=$(hostname -s)
cat > "$work/slurm.conf" <<CONF
ClusterName=ksearchtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=5
Waittime=0
SlurmdParameters=config_overrides
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000 State=UNKNOWN
PartitionName=ksearch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -i || skip "slurmctld does not start: $(tail -n 5 "$work/log/slurmctld.log" 2>/dev/null)"
slurmd || skip "slurmd does not start: $(tail -n 5 "$work/log/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
  [ "$(sinfo --noheader --format=%T 2>/dev/null)" = idle ] && break
  sleep 0.5
done
state=$(sinfo --noheader --format=%T 2>&1)
[ "$state" = idle ] || skip "the Slurm node does not come up (state: $state): $(tail -n 5 "$work/log/slurmd.log" "$work/log/slurmctld.log")"
echo "slurm is up: node $node, 4 CPU slots"

run="$work/run"
query() { python3 -c 'import sqlite3, sys; [print(*row) for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]' "$run/run.db" "$1"; }
queued() { squeue --noheader --format='%i %T %j' | grep ' ksearch-' ; }

# 1. Jobs queue (partition down) and the driver dies with them outstanding.
scontrol update PartitionName=ksearch State=DOWN || fail "cannot take the partition down"
"$ksearch" run --task "$task" --backend cpu --executor slurm --max-jobs 2 --parallel 2 --rounds 3 --finalists 0 --out "$run" \
  > "$work/run.out" 2>&1 &
driver=$!
pids+=("$driver")
for _ in $(seq 240); do
  [ -f "$run/run.db" ] && [ "$(query 'SELECT COUNT(*) FROM executor_jobs' 2>/dev/null)" = 2 ] && break
  sleep 0.5
done
[ "$(query 'SELECT COUNT(*) FROM executor_jobs')" = 2 ] || { cat "$work/run.out"; fail "the driver did not submit two jobs"; }
kill -9 "$driver"
wait "$driver" 2>/dev/null
before=$(query 'SELECT candidate_id, handle FROM executor_jobs ORDER BY candidate_id')
echo "driver killed with jobs (candidate, job id):"; echo "$before"
[ "$(queued | grep -c PENDING)" = 2 ] || { queued; fail "the two jobs are not queued after the driver died"; }

# 2. The first job's node cannot read its task: it fails there.
broken=$(echo "$before" | head -n 1 | cut -d' ' -f1)
python3 - "$run/jobs/c$broken/job.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
job["task_file"] = "/nonexistent/task.toml"
json.dump(job, open(sys.argv[1], "w"))
PY

# 3. The partition comes back; resume re-attaches and finishes the search.
scontrol update PartitionName=ksearch State=UP || fail "cannot bring the partition up"
timeout 600 "$ksearch" resume "$run" --json > "$work/resume.json" 2> "$work/resume.err"
rc=$?
cat "$work/resume.err" | tail -n 30
[ "$rc" = 0 ] || fail "resume exited with $rc"

after=$(query "SELECT candidate_id, handle FROM executor_jobs WHERE candidate_id IN ($(echo "$before" | cut -d' ' -f1 | paste -sd,)) ORDER BY candidate_id")
[ "$before" = "$after" ] || fail "the queued jobs were submitted again instead of re-attached: before '$before', after '$after'"
grep -q "re-attached to slurm job" "$work/resume.err" || fail "resume did not say it re-attached"
status=$(query "SELECT status FROM candidates WHERE id = $broken")
[ "$status" = runtime_error ] || fail "the job that failed on its node left status '$status'"
query "SELECT report FROM candidates WHERE id = $broken" | grep -q "ended (FAILED) without a result" || fail "the failed job's report does not say what happened"
query "SELECT report FROM candidates WHERE id = $broken" | grep -q "/nonexistent/task.toml" || fail "the failed job's report lacks its output"
[ "$(query "SELECT COUNT(*) FROM candidates WHERE status = 'pending'")" = 0 ] || fail "candidates were left unevaluated"
passed=$(query "SELECT COUNT(*) FROM candidates WHERE status = 'passed' AND reused_from = 0")
[ "$passed" -ge 2 ] || fail "only $passed candidates passed through Slurm"
query "SELECT report FROM candidates WHERE status = 'passed' LIMIT 1" | grep -q '"workloads"' || fail "no evaluation report came back"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["phase"]=="done" and j["best"], j' "$work/resume.json" \
  || fail "the resumed search did not finish with a result: $(cat "$work/resume.json")"
[ -z "$(queued | grep -v -E 'COMPLETED|FAILED')" ] || { queued; fail "jobs are left in the queue"; }
echo "ok: $(query 'SELECT COUNT(*) FROM executor_jobs') slurm jobs, $passed candidates passed, c$broken failed on its node"
