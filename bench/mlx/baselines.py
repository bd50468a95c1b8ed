#!/usr/bin/env python3
"""MLX's own implementations of ksearch's tasks, timed on the tasks' visible workloads: the
baselines a kernel found by `ksearch run --backend metal` competes with on a Mac.

    python3 bench/mlx/baselines.py [--tasks softmax,rmsnorm,attention,mamba_mlx_lm] [--reps 20]
                                   [--kernel TASK=path/to/TASK_mlx.py ...] [--out table.md]

task          MLX baseline
softmax       mx.softmax(x, axis=-1)
rmsnorm       mx.fast.rms_norm(x, weight, eps)
attention     mx.fast.scaled_dot_product_attention(q, k, v, scale, mask="causal" where the task's is)
mamba_mlx_lm  mlx-lm's Mamba prefill: MambaBlock's per-time-step loop of ssm_step, the scan only
              (the ops of mlx_lm/models/mamba.py from its softplus to y; projections excluded)

With --kernel, a module written by `ksearch export --format mlx` is timed beside the baseline on
the same inputs (on a Mac; without Metal its kernel cannot run and is left out). The device is
MLX's default: the GPU on a Mac, the CPU elsewhere (`pip install "mlx[cpu]"` on Linux).
Timing: warm-up calls, then per repetition mx.eval of the result and mx.synchronize() around one
call with a host clock; median and the interquartile spread over the repetitions.
"""
import argparse
import importlib.util
import math
import os
import platform
import statistics
import sys
import time
import tomllib

import mlx.core as mx
import mlx.nn as nn

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASKS = ["softmax", "rmsnorm", "attention", "mamba_mlx_lm"]


def visible_workloads(task):
    with open(os.path.join(REPO, "tasks", task, "task.toml"), "rb") as f:
        spec = tomllib.load(f)
    defaults = {p["name"]: p["default"] for p in spec.get("params", [])}
    for w in spec["workloads"]:
        if w.get("held_out") or ("backends" in w and "metal" not in w["backends"]):
            continue
        yield w["name"], w["axes"], {**defaults, **w.get("params", {})}, set(w.get("absent", []))


def normal(*shape):
    return mx.random.normal(shape=shape, dtype=mx.float32)


def mlx_lm_scan(x, delta, A, B, C, D, state):
    """mlx-lm's MambaBlock prefill scan: ssm_step's ops per time step (mlx_lm/models/mamba.py)."""
    delta = nn.softplus(delta)
    ys = []
    for t in range(x.shape[1]):
        xt, dt = x[:, t], delta[:, t]
        new_state = mx.expand_dims(dt * xt, -1) * mx.expand_dims(B[:, t], 1)
        if state is not None:
            new_state += state * mx.exp(mx.expand_dims(dt, -1) * A)
        ys.append((new_state @ mx.expand_dims(C[:, t], -1)).squeeze(2) + D * xt)
        state = new_state
    return mx.stack(ys, axis=1), state


def cases(task, axes, params, absent):
    """(inputs as the task orders them, the MLX baseline, what a --kernel module is called with)."""
    if task == "softmax":
        x = normal(axes["rows"], axes["cols"])
        return (x,), lambda x: mx.softmax(x, axis=-1), {}
    if task == "rmsnorm":
        x, w = normal(axes["rows"], axes["cols"]), normal(axes["cols"])
        eps = params["eps"]
        return (x, w), lambda x, w: mx.fast.rms_norm(x, w, eps), {"eps": eps}
    if task == "attention":
        q = normal(axes["b"], axes["hq"], axes["lq"], axes["d"])
        k = normal(axes["b"], axes["hkv"], axes["lk"], axes["d"])
        v = normal(axes["b"], axes["hkv"], axes["lk"], axes["d"])
        mask = "causal" if params.get("causal") else None
        scale = 1.0 / math.sqrt(axes["d"])
        return ((q, k, v), lambda q, k, v: mx.fast.scaled_dot_product_attention(q, k, v, scale=scale, mask=mask),
                {k_: v_ for k_, v_ in params.items()})
    if task == "mamba_mlx_lm":
        b, l, d, n = axes["b"], axes["l"], axes["d"], axes["n"]
        x, B, C = normal(b, l, d), normal(b, l, n), normal(b, l, n)
        delta = mx.random.uniform(-6.9, -2.25, shape=(b, l, d))
        A = -mx.exp(mx.random.uniform(0.0, math.log(16.0), shape=(d, n)))
        D = mx.random.uniform(0.5, 1.5, shape=(d,))
        state = None if "state" in absent else normal(b, d, n)
        return (x, delta, A, B, C, D, state), mlx_lm_scan, {}
    raise ValueError(f"unknown task {task}")


def time_ms(fn, args, reps, warmup=3):
    for _ in range(warmup):
        mx.eval(fn(*args))
    mx.synchronize()
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        mx.eval(fn(*args))
        mx.synchronize()
        samples.append((time.perf_counter() - start) * 1e3)
    q = statistics.quantiles(samples, n=4)
    return statistics.median(samples), q[2] - q[0]


def load_module(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--kernel", action="append", default=[], metavar="TASK=MODULE.py")
    parser.add_argument("--out", help="also write the table to this file")
    args = parser.parse_args()
    kernels = {}
    for item in args.kernel:
        task, _, path = item.partition("=")
        if not path:
            parser.error(f"--kernel {item}: expected TASK=path/to/TASK_mlx.py")
        kernels[task] = load_module(path)
    metal = mx.metal.is_available()
    if kernels and not metal:
        print("no Metal device: exported kernels cannot run here and are not timed", file=sys.stderr)

    mx.random.seed(0)
    rows = []
    for task in args.tasks.split(","):
        if task not in TASKS:
            parser.error(f"unknown task {task} (known: {', '.join(TASKS)})")
        for name, axes, params, absent in visible_workloads(task):
            inputs, baseline, keywords = cases(task, axes, params, absent)
            median, spread = time_ms(baseline, inputs, args.reps)
            kernel = ""
            if task in kernels and metal:
                fn = getattr(kernels[task], task)
                k_median, k_spread = time_ms(lambda *a: fn(*a, **keywords), inputs, args.reps)
                kernel = f"{k_median:.3f} ± {k_spread:.3f} ({median / k_median:.2f}x)"
            rows.append((task, name, f"{median:.3f} ± {spread:.3f}", kernel))
            print(f"{task:13s} {name:36s} {rows[-1][2]:>18s} ms {kernel}", file=sys.stderr, flush=True)

    device = "GPU (Metal)" if metal else "CPU"
    table = [
        f"MLX {mx.__version__} on {platform.machine()} {platform.system()}, device {device}, "
        f"{args.reps} repetitions, median ± interquartile range (ms)",
        "",
        "| task | workload | MLX baseline (ms) | ksearch kernel (ms, speedup) |",
        "|---|---|---|---|",
    ]
    table += [f"| {t} | {w} | {b} | {k or '-'} |" for t, w, b, k in rows]
    text = "\n".join(table) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
