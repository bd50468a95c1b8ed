#!/usr/bin/env python3
"""Single-core timing of cpu kernels against single-core ceilings measured in the same sitting, for a host
loaded by other processes (docs/BENCHMARKS.md, "cpu families at the hardware's peaks"): each kernel (a
`ksearch run`'s best.cpp, or any rendered candidate) is built with its THREADS knob set to 0 into
bench/cpu/harness.cpp -DTHREAD_CPU_TIME (the calling thread's CPU time, the tensors' cache lines evicted before each call), the
ceilings probe the same way (OMP_NUM_THREADS=1), and all of them run in interleaved repetitions.

  python3 bench/cpu/single_core.py --task matmul [--march haswell] [--reps 3] \\
      --kernel before=old.cpp --kernel after=runs/R/best.cpp --shape 1024,1024,1024 --shape 256,256,256

Shapes are the harness's axes (matmul: m,n,k; attention: b,hq,hkv,lq,lk,d,causal). Prints, per shape and
kernel, the minimum ms over the repetitions (each the minimum of 15 calls), the spread (max - min) / min of
those minima, the task's FLOP/s (matmul 2mnk; attention 4d per visible (query, key) pair) and its share of
the best FMA ceiling of the sitting. --warm also times every kernel without the flush (HARNESS_WARM=1), in the
same repetitions: the difference is what the cold data costs.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def flops(task, a):
    if task == "matmul":
        m, n, k = a
        return 2.0 * m * n * k
    if task == "attention":
        b, hq, _, lq, lk, d, causal = a
        pairs = sum(max(0, min(lk, i + lk - lq + 1)) for i in range(lq)) if causal else lq * lk
        return 4.0 * d * b * hq * pairs
    sys.exit(f"no FLOP count for task {task}")


def build(args, source, out, extra):
    cmd = ["g++", "-std=c++20", "-O3", f"-march={args.march}", "-fopenmp", "-DTHREAD_CPU_TIME",
           "-I", os.path.join(ROOT, "src")] + extra + [source, "-o", out]
    if subprocess.run(cmd).returncode:
        sys.exit("build failed: " + " ".join(cmd))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", required=True, choices=["matmul", "attention"])
    ap.add_argument("--march", default="native")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--kernel", action="append", required=True, help="NAME=FILE")
    ap.add_argument("--shape", action="append", required=True, help="comma-separated harness axes")
    ap.add_argument("--warm", action="store_true", help="also time each kernel with warm caches")
    args = ap.parse_args()
    work = tempfile.mkdtemp()
    probe = os.path.join(work, "probe")
    build(args, os.path.join(ROOT, "src/backends/cpu/ceilings_probe.cpp"), probe, [])
    kernels = []
    for spec in args.kernel:
        name, _, path = spec.partition("=")
        if not os.path.isfile(path):
            sys.exit(f"--kernel {spec}: no file {path}")
        single = os.path.join(work, f"{name}.cpp")
        text = re.sub(r"^#define THREADS 1$", "#define THREADS 0", open(path).read(), flags=re.M)
        open(single, "w").write(text)
        binary = os.path.join(work, name)
        build(args, os.path.join(ROOT, "bench/cpu/harness.cpp"), binary, [f'-DCANDIDATE="{single}"', f"-DTASK_{args.task}"])
        kernels.append((name, binary))
    shapes = [[int(x) for x in s.split(",")] for s in args.shape]
    ceilings, ms = [], {}
    env = dict(os.environ, OMP_NUM_THREADS="1")
    for _ in range(args.reps):
        ceilings.append(json.loads(subprocess.run([probe], env=env, capture_output=True, text=True, check=True).stdout))
        for shape in shapes:
            for name, binary in kernels:
                for warm in ([False, True] if args.warm else [False]):
                    out = subprocess.run([binary] + [str(x) for x in shape], env=dict(env, HARNESS_WARM="1" if warm else "0"),
                                         capture_output=True, text=True, check=True).stdout
                    ms.setdefault((name + (" (warm)" if warm else ""), tuple(shape)), []).append(float(out.split()[1]))
    peaks = [c["flops_per_s"] for c in ceilings]
    print(f"march {args.march}, {ceilings[0]['isa']}: single-core FMA ceilings {min(peaks) / 1e9:.1f}-{max(peaks) / 1e9:.1f} GFLOP/s "
          f"over {args.reps} repetitions; shares against the best")
    print("| shape | kernel | ms | spread | GFLOP/s | of FMA peak |")
    print("|---|---|---|---|---|---|")
    for shape in shapes:
        for name in [key[0] for key in ms if key[1] == tuple(shape)]:
            t = ms[(name, tuple(shape))]
            rate = flops(args.task, shape) / (min(t) * 1e-3)
            print(f"| {' '.join(map(str, shape))} | {name} | {min(t):.4f} | {100 * (max(t) - min(t)) / min(t):.0f}% | "
                  f"{rate / 1e9:.1f} | {100 * rate / max(peaks):.0f}% |")


if __name__ == "__main__":
    main()
