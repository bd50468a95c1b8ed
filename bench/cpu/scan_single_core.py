#!/usr/bin/env python3
"""Single-core timing of selective_scan kernels against single-core ceilings of the same sitting, for a host
loaded by other processes (where ksearch's own wall-clock timings measure the scheduler).

  python3 bench/cpu/scan_single_core.py --march native|haswell --after RUN/best.cpp [--before FILE] [--reps 3]

Each kernel (its `#define THREADS 1` set to 0) is compiled into bench/cpu/harness.cpp with -DTHREAD_CPU_TIME
(the calling thread's CPU time, caches flushed between calls, minimum of 15 calls), the backend's ceilings
probe likewise and run on one thread. The repetitions interleave probe, before and after; the table gives
the minimum over them and the spread (max - min) / min of the after kernel. The roofline is the task's:
max of exp time (b d l (n + 3) transcendentals: n decays, softplus, gate), FLOP time (9 b d l n) and memory
time (the task's bytes), each at the best ceiling of the sitting.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHAPES = [(1, 768, 512), (1, 768, 2048), (1, 2048, 1024), (4, 768, 1024)]  # b d l; n = 16, g = 1
N = 16


def compile_kernel(src, march, out_dir, name):
    single_core = os.path.join(out_dir, name + ".cpp")
    with open(src) as f:
        text = f.read()
    if "#define THREADS 1" not in text:
        sys.exit(f"{src}: no '#define THREADS 1' line to set to 0")
    with open(single_core, "w") as f:
        f.write(text.replace("#define THREADS 1", "#define THREADS 0"))
    binary = os.path.join(out_dir, name)
    subprocess.run(["g++", "-std=c++20", "-O3", f"-march={march}", "-fopenmp", "-DTHREAD_CPU_TIME",
                    "-I", os.path.join(ROOT, "src"), f'-DCANDIDATE="{single_core}"', "-DTASK_selective_scan",
                    os.path.join(ROOT, "bench", "cpu", "harness.cpp"), "-o", binary], check=True)
    return binary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--march", required=True, help="g++ -march value: native, or haswell for an AVX2 host's ISA")
    ap.add_argument("--after", required=True, help="rendered kernel, e.g. a ksearch run's best.cpp")
    ap.add_argument("--before", help="rendered kernel to compare with")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="scan_single_core_")
    kernels = {"after": compile_kernel(args.after, args.march, work, "after")}
    if args.before:
        kernels["before"] = compile_kernel(args.before, args.march, work, "before")
    probe = os.path.join(work, "probe")
    subprocess.run(["g++", "-std=c++20", "-O3", f"-march={args.march}", "-fopenmp", "-DTHREAD_CPU_TIME",
                    os.path.join(ROOT, "src", "backends", "cpu", "ceilings_probe.cpp"), "-o", probe], check=True)
    ms = {(name, shape): [] for name in kernels for shape in SHAPES}
    ceilings = []
    for rep in range(args.reps):
        out = subprocess.run([probe], env=dict(os.environ, OMP_NUM_THREADS="1"), capture_output=True, text=True,
                             check=True).stdout
        probed = json.loads(out)
        ceilings.append((probed["exp_per_s"], probed["flops_per_s"], probed["bandwidth_bytes_per_s"]))
        for shape in SHAPES:
            for name, binary in kernels.items():
                out = subprocess.run([binary] + [str(x) for x in shape], capture_output=True, text=True,
                                     check=True).stdout.split()
                ms[(name, shape)].append(float(out[1]))  # "median min" of 15 calls
        print(f"repetition {rep + 1}: {ceilings[-1][0] / 1e9:.2f} Gexp/s, {ceilings[-1][1] / 1e9:.1f} GFLOP/s, "
              f"{ceilings[-1][2] / 1e9:.1f} GB/s", file=sys.stderr, flush=True)
    exp_rate, flop_rate, bandwidth = (max(c[i] for c in ceilings) for i in range(3))
    print(f"ceilings: {min(c[0] for c in ceilings) / 1e9:.2f}-{exp_rate / 1e9:.2f} Gexp/s, "
          f"{min(c[1] for c in ceilings) / 1e9:.1f}-{flop_rate / 1e9:.1f} GFLOP/s, "
          f"{min(c[2] for c in ceilings) / 1e9:.1f}-{bandwidth / 1e9:.1f} GB/s")
    print("| shape | before ms | after ms | spread | after rate | of roofline | roofline ms (bound) |")
    print("|---|---|---|---|---|---|---|")
    for b, d, l in SHAPES:
        shape = (b, d, l)
        times = {"exp": b * d * l * (N + 3) / exp_rate, "FLOP": 9 * b * d * l * N / flop_rate,
                 "memory": 4 * (4 * b * d * l + 2 * b * N * l + d * N + 2 * d) / bandwidth}
        bound = max(times, key=times.get)
        roofline_ms = times[bound] * 1e3
        after = min(ms[("after", shape)])
        spread = (max(ms[("after", shape)]) - after) / after
        before = f"{min(ms[('before', shape)]):.3f}" if args.before else "-"
        print(f"| b{b} d{d} l{l} n{N} | {before} | {after:.3f} | {spread:.0%} | "
              f"{b * d * l * (N + 3) / after / 1e6:.2f} Gexp/s | {roofline_ms / after:.0%} | {roofline_ms:.3f} ({bound}) |")


if __name__ == "__main__":
    main()
