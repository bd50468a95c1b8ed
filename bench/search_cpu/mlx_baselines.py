#!/usr/bin/env python3
"""Times MLX on the CPU on a task's workloads: the baselines of bench/search_cpu/run.sh.

Inputs follow the task's declared distributions (same shapes, same kinds of values as ksearch's
evaluator draws). Prints one JSON object: {workload: {"mlx_ms": median, "spread": (p90-p10)/median,
"op": what was timed}} for the workloads MLX has an operation for.

Usage: mlx_baselines.py TASK_JSON WORKLOAD [WORKLOAD ...]
  TASK_JSON: one element of `ksearch tasks --json`.
"""
import json
import math
import sys
import time

import mlx.core as mx
import mlx.nn as nn
import numpy as np


def draw(rng, dist, shape):
    kind = dist.get("kind", "normal")
    if kind == "normal":
        return rng.normal(dist.get("mean", 0.0), dist.get("std", 1.0), shape)
    if kind == "uniform":
        return rng.uniform(dist["lo"], dist["hi"], shape)
    if kind in ("log_uniform", "neg_log_uniform"):
        v = np.exp(rng.uniform(math.log(dist["lo"]), math.log(dist["hi"]), shape))
        return -v if kind == "neg_log_uniform" else v
    raise ValueError(kind)


def timed(fn, reps=7, warmup=2, budget_s=20.0):
    for _ in range(warmup):
        mx.eval(fn())
    samples = []
    start = time.perf_counter()
    while len(samples) < reps and (len(samples) < 3 or time.perf_counter() - start < budget_s):
        t0 = time.perf_counter()
        mx.eval(fn())
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    q = lambda p: samples[min(len(samples) - 1, int(round(p * (len(samples) - 1))))]
    median = q(0.5)
    return median, (q(0.9) - q(0.1)) / median


def mamba_per_step_scan(u, delta, A, B, C, D, z, bias, softplus):
    """mlx-lm's Mamba-1 prefill shape: a Python loop of MLX ops per time step (models/mamba.py)."""
    b, d, l = u.shape
    state = None
    ys = []
    for t in range(l):
        dt = delta[:, :, t] + (bias if bias is not None else 0)
        if softplus:
            dt = nn.softplus(dt)
        x = u[:, :, t]
        Bt = B[:, 0, :, t]  # (b, n), one group
        Ct = C[:, 0, :, t]
        new_state = mx.expand_dims(dt * x, -1) * mx.expand_dims(Bt, 1)
        if state is not None:
            new_state = new_state + state * mx.exp(mx.expand_dims(dt, -1) * A)
        state = new_state
        y = (state @ mx.expand_dims(Ct, -1)).squeeze(2)
        if D is not None:
            y = y + D * x
        if z is not None:
            y = y * nn.silu(z[:, :, t])
        ys.append(y)
    return mx.stack(ys, axis=-1)


def main():
    task = json.loads(open(sys.argv[1]).read())
    wanted = set(sys.argv[2:])
    rng = np.random.default_rng(1234)
    results = {}
    inputs_decl = {i["name"]: i for i in task.get("inputs", [])}
    for w in task["workloads"]:
        if w["name"] not in wanted:
            continue
        ax = w["axes"]
        params = w.get("params", {})
        name = task["name"]

        def tensor(tname, shape):
            dist = inputs_decl.get(tname, {}).get("dist", {"kind": "normal", "mean": 0, "std": 1})
            return mx.array(draw(rng, dist, shape).astype(np.float32))

        if name == "softmax":
            x = tensor("x", (ax["rows"], ax["cols"]))
            results[w["name"]] = timed(lambda: mx.softmax(x, axis=-1)) + ("mx.softmax",)
        elif name == "rmsnorm":
            x = tensor("x", (ax["rows"], ax["cols"]))
            weight = tensor("weight", (ax["cols"],))
            eps = params.get("eps", 1e-6)
            results[w["name"]] = timed(lambda: mx.fast.rms_norm(x, weight, eps)) + ("mx.fast.rms_norm",)
        elif name == "matmul":
            a = tensor("A", (ax["m"], ax["k"]))
            b = tensor("B", (ax["k"], ax["n"]))
            results[w["name"]] = timed(lambda: mx.matmul(a, b)) + ("mx.matmul",)
        elif name == "attention":
            q = tensor("q", (ax["b"], ax["hq"], ax["lq"], ax["d"]))
            k = tensor("k", (ax["b"], ax["hkv"], ax["lk"], ax["d"]))
            v = tensor("v", (ax["b"], ax["hkv"], ax["lk"], ax["d"]))
            mask = "causal" if params.get("causal", 0) and ax["lq"] > 1 else None
            scale = 1.0 / math.sqrt(ax["d"])
            results[w["name"]] = timed(
                lambda: mx.fast.scaled_dot_product_attention(q, k, v, scale=scale, mask=mask)
            ) + ("mx.fast.scaled_dot_product_attention",)
        elif name == "selective_scan":
            if params.get("bc_layout", 1) != 1 or ax["g"] != 1:
                continue  # mlx-lm's Mamba-1 has input-dependent B/C with one group only
            b, d, l, n = ax["b"], ax["d"], ax["l"], ax["n"]
            absent = set(w.get("absent", []))
            u = tensor("u", (b, d, l))
            delta = tensor("delta", (b, d, l))
            A = tensor("A", (d, n))
            B = tensor("B", (b, 1, n, l))
            C = tensor("C", (b, 1, n, l))
            D = None if "D" in absent else tensor("D", (d,))
            z = None if "z" in absent else tensor("z", (b, d, l))
            bias = None if "delta_bias" in absent else tensor("delta_bias", (d,))
            softplus = params.get("delta_softplus", 1) != 0
            results[w["name"]] = timed(
                lambda: mamba_per_step_scan(u, delta, A, B, C, D, z, bias, softplus), reps=3, warmup=1
            ) + ("mlx-lm style per-time-step loop of MLX ops",)
    print(json.dumps({k: {"mlx_ms": v[0], "spread": v[1], "op": v[2]} for k, v in results.items()}, indent=1))


if __name__ == "__main__":
    main()
