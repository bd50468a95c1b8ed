#!/usr/bin/env python3
"""Compare search strategies on the same tasks and budget: for each task, one `ksearch run` per
strategy (and per annealing seed) on the cpu backend with the built-in proposer, the same round
budget and --parallel; then a markdown table of the best verified speedup vs the seed (visible and
held-out workloads), the evaluations spent, the round at which the best was found and the wall time.

  python3 bench/strategies/compare.py [--tasks softmax,rmsnorm] [--rounds 10] [--seeds 1,2,3]
                                      [--strategies world_model,annealing] [--finalists K] [--out bench/results]

--tasks takes built-in task names or task files (the small tests/search/tiny_exp/task.toml keeps a
run to a few minutes on a loaded machine).

Writes <out>/strategies-<stamp>.md (the table) and .json (the raw `ksearch run --json` outputs);
the runs themselves go to runs/strategies-<stamp>/.
"""
import argparse
import datetime
import json
import os
import platform
import sqlite3
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KSEARCH = os.environ.get("KSEARCH_BIN", os.path.join(ROOT, "build", "ksearch"))  # e.g. an install prefix's bin/ksearch


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def best_round(run_dir, candidate_id):
    """The round that produced the best candidate (from the run store)."""
    if not candidate_id:
        return None
    db = sqlite3.connect(os.path.join(run_dir, "run.db"))
    row = db.execute("SELECT round FROM candidates WHERE id = ?", (int(candidate_id.lstrip("c")),)).fetchone()
    return row[0] if row else None


def task_label(task):
    """A built-in task's name, or the folder of a task file (e.g. tests/search/tiny_exp/task.toml)."""
    return os.path.basename(os.path.dirname(os.path.abspath(task))) if task.endswith(".toml") else task


def run(task, strategy, seed, args, stamp):
    name = f"{task_label(task)}-{strategy}" + (f"-s{seed}" if seed is not None else "")
    run_dir = os.path.join(ROOT, "runs", f"strategies-{stamp}", name)
    cmd = [KSEARCH, "run", "--task", task, "--backend", "cpu", "--rounds", str(args.rounds),
           "--parallel", str(args.parallel), "--strategy", strategy, "--out", run_dir, "--json"]
    if args.finalists is not None:
        cmd += ["--finalists", str(args.finalists)]
    if seed is not None:
        cmd += ["--strategy-option", f"seed={seed}"]
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, text=True, capture_output=True)
    if p.returncode not in (0, 1):
        sys.exit(f"ksearch run failed ({p.returncode}):\n{p.stderr[-2000:]}")
    out = json.loads(p.stdout)
    best = out.get("best") or {}
    return {
        "task": task_label(task), "strategy": strategy, "seed": seed, "run_dir": run_dir, "ksearch": out,
        "speedup": best.get("speedup_vs_seed"), "held_out": best.get("held_out_speedup_vs_seed"),
        "held_out_passed": best.get("held_out_passed"), "evaluations": out["evaluations"],
        "best_round": best_round(run_dir, best.get("candidate_id")), "seconds": out["elapsed_seconds"],
        "stop": out["stop_reason"],
    }


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="softmax,rmsnorm")
    ap.add_argument("--strategies", default="world_model,annealing")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--parallel", type=int, default=1)
    ap.add_argument("--seeds", default="1,2,3", help="annealing seeds (one run each)")
    ap.add_argument("--finalists", type=int, help="finalists re-timed at the end (ksearch run's default if absent)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = ap.parse_args()
    if not os.access(KSEARCH, os.X_OK):
        sys.exit(f"{KSEARCH} is missing: build ksearch first (cmake --build --preset default)")
    os.makedirs(args.out, exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    rows = []
    for task in args.tasks.split(","):
        for strategy in args.strategies.split(","):
            seeds = [int(s) for s in args.seeds.split(",")] if strategy == "annealing" else [None]
            for seed in seeds:
                rows.append(run(task, strategy, seed, args, stamp))

    lines = [
        f"Machine: {cpu_model()}, {os.cpu_count()} logical CPUs; date {stamp} UTC.",
        f"Command: `python3 bench/strategies/compare.py --tasks {args.tasks} --strategies {args.strategies} "
        f"--rounds {args.rounds} --parallel {args.parallel} --seeds {args.seeds}"
        + (f" --finalists {args.finalists}" if args.finalists is not None else "") + "`",
        "",
        "| task | strategy | seed | best vs seed (visible) | held-out | evaluations | best found in round | seconds | stopped |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        held = "-" if r["held_out"] is None else (f"{r['held_out']:.2f}x" if r["held_out_passed"] else "failed")
        lines.append(f"| {r['task']} | {r['strategy']} | {fmt(r['seed'], 'd')} | {fmt(r['speedup'], '.2f')}x | {held} | "
                     f"{r['evaluations']} | {fmt(r['best_round'], 'd')} | {r['seconds']:.0f} | {r['stop']} |")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, f"strategies-{stamp}.md"), "w") as f:
        f.write(table)
    with open(os.path.join(args.out, f"strategies-{stamp}.json"), "w") as f:
        json.dump(rows, f, indent=2)
    print(table)


if __name__ == "__main__":
    main()
