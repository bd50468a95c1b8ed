#!/usr/bin/env python3
"""Benchmark of the cpu search: for each built-in task, a ksearch run of at most --minutes, then the
best kernel, the naive seed, the roofline and MLX on the CPU, side by side on the same workloads in
one sitting. Writes a markdown table (and the raw JSON) to --out.

  python3 bench/search_cpu/run.py [--minutes 15] [--tasks softmax,rmsnorm,...] [--out bench/results]

Installs mlx[cpu] and mlx-lm with pip when missing. The ksearch numbers come from `ksearch eval`
of the exported best kernel (median of repeated calls with cache flushes; spread = (p90-p10)/median);
MLX's from mlx_baselines.py (median of repeated mx.eval calls; same shapes and input distributions).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KSEARCH = os.path.join(ROOT, "build", "ksearch")


def sh(args, **kw):
    print("+", " ".join(args), file=sys.stderr, flush=True)
    return subprocess.run(args, check=False, text=True, capture_output=True, **kw)


def ensure_mlx():
    try:
        import mlx.core  # noqa: F401
        import mlx_lm  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "mlx[cpu]", "mlx-lm", "numpy"], check=True)


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=15)
    ap.add_argument("--tasks", default="softmax,rmsnorm,matmul,attention,selective_scan")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--reuse", help="STAMP of an earlier benchmark: re-measure its runs' best kernels, no new search")
    args = ap.parse_args()
    ensure_mlx()
    os.makedirs(args.out, exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    tasks = {t["name"]: t for t in json.loads(sh([KSEARCH, "tasks", "--json"]).stdout)}
    ceilings_dir = os.path.join(os.environ.get("KSEARCH_CACHE_DIR", os.path.expanduser("~/.cache/ksearch")), "ceilings")
    rows, raw = [], {}
    for name in args.tasks.split(","):
        run_dir = os.path.join(ROOT, "runs", f"bench-{name}-{args.reuse or stamp}")
        run_json = {}
        if not args.reuse:
            run = sh([KSEARCH, "run", "--task", name, "--backend", "cpu", "--minutes", str(args.minutes),
                      "--rounds", "1000", "--out", run_dir, "--json"])
            run_json = json.loads(run.stdout[run.stdout.find("{"):]) if "{" in run.stdout else {}
        best_file = os.path.join(run_dir, "best.cpp")
        if not os.path.exists(best_file):
            print(f"{name}: no passing kernel in {run_dir}", file=sys.stderr)
            continue
        ev = sh([KSEARCH, "eval", "--task", name, "--backend", "cpu", best_file, "--json"])
        report = json.loads(ev.stdout[ev.stdout.find("{"):])
        # The seed is re-timed in this sitting: ksearch's cached seed time may come from a busier moment.
        seed_ev = sh([KSEARCH, "eval", "--task", name, "--backend", "cpu", tasks[name]["backends"]["cpu"]["seed"], "--json"])
        seed_report = json.loads(seed_ev.stdout[seed_ev.stdout.find("{"):])
        seed_ms = {w["name"]: w["median_ms"] for w in seed_report["workloads"]}
        task_file = os.path.join(tempfile.mkdtemp(), f"task-{name}.json")
        json.dump(tasks[name], open(task_file, "w"))
        raw_seed = seed_report
        names = [w["name"] for w in report["workloads"]]
        mlx = json.loads(sh([sys.executable, os.path.join(os.path.dirname(__file__), "mlx_baselines.py"), task_file] + names).stdout or "{}")
        raw[name] = {"run": run_json, "eval": report, "seed_eval": raw_seed, "mlx": mlx}
        for w in report["workloads"]:
            m = mlx.get(w["name"], {})
            rows.append((name, w["name"] + (" (held out)" if w["held_out"] else ""), w["status"], w["median_ms"], w["spread"],
                         seed_ms.get(w["name"], 0), w["roofline_ms"], w["roofline_fraction"], m.get("mlx_ms"), m.get("spread"), m.get("op", "")))
    ceil = {}
    if os.path.isdir(ceilings_dir):
        for f in os.listdir(ceilings_dir):
            if f.startswith("cpu-"):
                ceil = json.load(open(os.path.join(ceilings_dir, f)))
    lines = [f"Machine: {cpu_model()}, {os.cpu_count()} hardware threads; measured ceilings: "
             f"{ceil.get('bandwidth_bytes_per_s', 0) / 1e9:.1f} GB/s, {ceil.get('flops_per_s', 0) / 1e9:.1f} GFLOP/s fp32. "
             f"Date (UTC): {stamp}. Command: `python3 bench/search_cpu/run.py "
             + (f"--reuse {args.reuse}" if args.reuse else f"--minutes {args.minutes:g}") + f" --tasks {args.tasks}`.",
             "",
             "| task | workload | status | ours ms (spread) | seed ms | vs seed | roofline ms | of roofline | MLX ms (spread) | vs MLX | MLX op |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (task, wl, status, ms, spread, seed, roof, frac, mlx_ms, mlx_spread, op) in rows:
        vs_seed = f"{seed / ms:.1f}x" if ms and seed else "-"
        vs_mlx = f"{mlx_ms / ms:.2f}x" if ms and mlx_ms else "-"
        mlx_txt = f"{mlx_ms:.3f} ({100 * mlx_spread:.0f}%)" if mlx_ms else "-"
        lines.append(f"| {task} | {wl} | {status} | {ms:.3f} ({100 * spread:.0f}%) | {seed:.3f} | {vs_seed} | {roof:.3f} | "
                     f"{100 * frac:.0f}% | {mlx_txt} | {vs_mlx} | {op} |")
    table = "\n".join(lines) + "\n"
    open(os.path.join(args.out, f"cpu-search-{stamp}.md"), "w").write(table)
    json.dump(raw, open(os.path.join(args.out, f"cpu-search-{stamp}.json"), "w"), indent=1)
    print(table)


if __name__ == "__main__":
    main()
