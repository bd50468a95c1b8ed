#!/usr/bin/env python3
"""Side-by-side H200 benchmark of ksearch's CUDA kernels against PyTorch, in one process.

usage: bench.py KERNELS_DIR [--out results.json] [--wrappers task,task] [--ceilings ksearch-ceilings.json]
       bench.py KERNELS_DIR --profile CASE_SUBSTRING   (under ncu: see profile_cases)

KERNELS_DIR holds kernel sources, one folder per task: the best kernels of `ksearch run` searches
as `ksearch export` writes them (bench/cuda/device_run.sh's search stage), or rendered template
variants (`KSEARCH_CUDA_DUMP_DIR=DIR ksearch_cuda_tests --gtest_filter=CudaHost.TemplatesPassRulesAndCompile`).
Each source is compiled with nvcc into a shared object, loaded with ctypes and called with
PyTorch's device pointers on PyTorch's current stream. Every kernel is checked against PyTorch
on the benchmark inputs; every correct one gets its rows (the fastest by geo-mean per task marked best).
Both sides are timed the same way: CUDA events around one call, L2 flushed (a 2 x L2 buffer written) and the GPU held busy
(a spin of BENCH_HOLD_CYCLES, so that the host's dispatch stays outside the events) before each
repetition, median of the repetitions, spread = (p90 - p10) / median. The contenders of a case are timed side by
side: BENCH_ROUNDS rounds (default 5), each calling every one of them in turn for its share of the repetitions.

Some tasks have further baselines beside PyTorch (the scan: a chunked parallel scan in Triton,
bench/cuda/triton_scan.py, its block sizes tuned here first), checked and timed the same way
(BENCH_BASELINES=0 leaves them out, for comparing variants of our own kernels).
--ceilings takes the ceilings ksearch measured on this GPU (its cache's ceilings/cuda-*.json) and adds
ksearch's roofline per case: the largest of bytes / bandwidth, FLOP / matrix rate and
transcendentals / exp rate, as the evaluator computes it.

--wrappers builds the PyTorch extension that `ksearch export` wrote beside a task's kernel
(<task>_torch.cpp, JIT through torch.utils.cpp_extension) and checks that calling it gives the
same output as the ctypes call.
"""
import ctypes
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
props = torch.cuda.get_device_properties(0)
L2 = getattr(props, "L2_cache_size", 60 << 20)
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
HOLD_CYCLES = int(os.environ.get("BENCH_HOLD_CYCLES", "400000"))  # about 0.2 ms at the H200's clocks
BASELINES = os.environ.get("BENCH_BASELINES", "1") != "0"  # 0: PyTorch alone (comparing variants of our own kernels)
flush_buf = torch.empty(max(2 * L2, 128 << 20), dtype=torch.uint8, device=dev)


def keep_pool_memory():
    """Kernels take workspaces with cudaMallocAsync. By default the device's pool hands memory back at every
    synchronization, so each timed call would pay for mapping it again; ksearch's runner keeps it, and so does this."""
    cudart = ctypes.CDLL("libcudart.so.13")
    pool, keep = ctypes.c_void_p(), ctypes.c_uint64(2 ** 64 - 1)
    assert cudart.cudaDeviceGetDefaultMemPool(ctypes.byref(pool), 0) == 0
    assert cudart.cudaMemPoolSetAttribute(pool, 4, ctypes.byref(keep)) == 0  # 4: cudaMemPoolAttrReleaseThreshold


def timed_call(fn, i):
    """One call between CUDA events, after the L2 is flushed (a 2 x L2 buffer written with a value that changes) and a
    GPU spin of HOLD_CYCLES: the GPU is still busy with it while Python dispatches the call, so the events time the
    call's GPU work, not the host's dispatch (which varied by tens of microseconds per call for SDPA)."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    flush_buf.fill_(i & 0xFF)
    torch.cuda._sleep(HOLD_CYCLES)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e)


def median_and_spread(times):
    times = sorted(times)
    med = times[len(times) // 2]
    p10, p90 = times[int(0.1 * (len(times) - 1))], times[int(0.9 * (len(times) - 1))]
    return med, (p90 - p10) / med


def timeit(fn, reps=30, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    return median_and_spread([timed_call(fn, i) for i in range(reps)])


def time_side_by_side(contenders, rounds):
    """contenders: {label: (fn, reps)}. After a warm-up of each, every contender is timed in `rounds` rounds, each
    round calling them in turn (the order rotated from round to round) for their share of reps, so that clock changes
    and neighbours weigh on all of them alike. Returns {label: (median ms, spread)}."""
    for fn, reps in contenders.values():
        for _ in range(1 if reps < 10 else 3):
            fn()
    torch.cuda.synchronize()
    labels, times = list(contenders), {k: [] for k in contenders}
    for r in range(rounds):
        for k in labels[r % len(labels):] + labels[:r % len(labels)]:
            fn, reps = contenders[k]
            times[k] += [timed_call(fn, len(times[k]) + i) for i in range(-(-reps // rounds))]
    return {k: median_and_spread(v) for k, v in times.items()}


def copy_bandwidth():
    a = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    med, _ = timeit(lambda: b.copy_(a), reps=10)
    return 2 * a.numel() / (med / 1e3)


def language_flags(source):
    """The language options of an export's `// Build: nvcc ...` line (those ksearch built and verified the kernel
    with); for a rendered template, which has none, the options of ksearch's own nvcc command."""
    m = re.search(r"^// Build: nvcc (.*)$", source, re.M)
    words = m.group(1).split() if m else ["-std=c++20", "--expt-relaxed-constexpr", "--extended-lambda"]
    return [w for w in words if w.startswith(("-std=", "--expt-", "--extended-"))]


def build(path):
    so = path[:-3] + ".so"
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    with open(path) as f:
        flags = language_flags(f.read())
    r = subprocess.run([nvcc, *flags, "-O3", "-gencode=arch=compute_90a,code=sm_90a", "-Xcompiler=-fPIC", "-shared",
                        "-cudart=shared", path, "-o", so, "-lcuda"], capture_output=True, text=True)
    return so if r.returncode == 0 else None


P = ctypes.c_void_p
I64 = ctypes.c_int64
I32 = ctypes.c_int32
F32 = ctypes.c_float


def stream():
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def call_c(f, args):
    """The C entry point: tensors as device pointers, then PyTorch's current stream."""
    return f(*[a.data_ptr() if isinstance(a, torch.Tensor) else a for a in args], stream())


# ---- tasks: inputs, our call, torch's call, checks ----

def softmax_cases():
    out = []
    for rows, cols in [(8192, 8192), (2048, 4096)]:
        x = torch.randn(rows, cols, device=dev) * 4
        y = torch.empty_like(x)
        out.append(dict(name=f"softmax {rows}x{cols}", bytes=2 * 4 * x.numel(), flops=0,
                        args=[x, y, rows, cols],
                        torch=lambda x=x: torch.softmax(x, -1), out=y, ref=lambda x=x: torch.softmax(x.double(), -1).float(),
                        tol=1e-3))
    return out


def rmsnorm_cases():
    out = []
    for rows, cols in [(16384, 8192), (4096, 2048)]:
        x = torch.randn(rows, cols, device=dev) * 2
        w = torch.rand(cols, device=dev) + 0.5
        y = torch.empty_like(x)
        out.append(dict(name=f"rmsnorm {rows}x{cols}", bytes=4 * (2 * x.numel() + cols), flops=0,
                        args=[x, w, y, rows, cols, 1e-6],
                        torch=lambda x=x, w=w, c=cols: F.rms_norm(x, (c,), w, 1e-6), out=y,
                        ref=lambda x=x, w=w, c=cols: F.rms_norm(x.double(), (c,), w.double(), 1e-6).float(), tol=1e-4))
    return out


def matmul_cases():
    out = []
    for n in [4096, 2048]:
        a = torch.rand(n, n, device=dev) * 2 - 1
        b = torch.rand(n, n, device=dev) * 2 - 1
        c = torch.empty(n, n, device=dev)
        out.append(dict(name=f"matmul fp32 {n}^3", bytes=4 * 3 * n * n, flops=2 * n ** 3,
                        args=[a, b, c, n, n, n],
                        torch=lambda a=a, b=b: torch.matmul(a, b), out=c,
                        ref=lambda a=a, b=b: torch.matmul(a.double(), b.double()).float(), tol=1e-4))
    return out


def attention_cases():
    out = []
    # The shapes of issue 16's goal: long prefills causal and not, a batched shorter one, a very long causal one, a
    # head size of 64, and GQA / batched decode.
    for (b, hq, hkv, lq, lk, d, causal) in [(1, 32, 32, 4096, 4096, 128, 1), (1, 32, 32, 4096, 4096, 128, 0),
                                            (4, 32, 32, 1024, 1024, 128, 1), (4, 32, 32, 1024, 1024, 128, 0),
                                            (1, 32, 32, 16384, 16384, 128, 1), (1, 8, 8, 8192, 8192, 64, 0),
                                            (1, 32, 8, 1, 4096, 128, 0), (4, 32, 32, 1, 4096, 128, 0)]:
        q = torch.randn(b, hq, lq, d, device=dev, dtype=torch.bfloat16)
        k = torch.randn(b, hkv, lk, d, device=dev, dtype=torch.bfloat16)
        v = torch.randn(b, hkv, lk, d, device=dev, dtype=torch.bfloat16)
        o = torch.empty_like(q)
        pairs = lq * lk if not causal else lq * (lk - lq) + lq * (lq + 1) // 2
        kind = "decode" if lq == 1 else ("prefill causal" if causal else "prefill")
        sdpa = lambda q=q, k=k, v=v, c=causal, g=hq != hkv: F.scaled_dot_product_attention(q, k, v, is_causal=bool(c), enable_gqa=g)
        out.append(dict(name=f"attention bf16 {kind} b{b} hq{hq} hkv{hkv} lq{lq} lk{lk}" + (f" d{d}" if d != 128 else ""), bytes=2 * (2 * b * hq * lq * d + 2 * b * hkv * lk * d),
                        flops=4 * b * hq * d * pairs,
                        args=[q, k, v, o, b, hq, hkv, lq, lk, d, causal],
                        torch=sdpa, out=o, ref=lambda s=sdpa: s().float(), tol=2e-2, bf16=True))
    return out


def scan_inputs(b, d, l, n=16):
    u = torch.randn(b, d, l, device=dev)
    delta = torch.exp(torch.empty(b, d, l, device=dev).uniform_(math.log(1e-3), math.log(0.1)))
    A = -torch.exp(torch.empty(d, n, device=dev).uniform_(0, math.log(16.0)))
    B = torch.randn(b, 1, n, l, device=dev)
    C = torch.randn(b, 1, n, l, device=dev)
    D = torch.rand(d, device=dev) + 0.5
    z = torch.randn(b, d, l, device=dev)
    bias = torch.empty(d, device=dev).uniform_(-4, -1)
    return u, delta, A, B, C, D, z, bias


def scan_torch_loop(u, delta, A, B, C, D, z, bias):
    """Per-time-step loop of torch ops (the shape of mlx-lm's Mamba-1 prefill)."""
    dt = F.softplus(delta + bias[:, None])
    dA = torch.exp(dt[..., None] * A[None, :, None, :])               # b d l n
    Bt, Ct = B[:, 0].transpose(1, 2), C[:, 0].transpose(1, 2)        # b l n
    dBu = dt[..., None] * Bt[:, None] * u[..., None]
    h = torch.zeros(u.shape[0], u.shape[1], A.shape[1], device=dev)
    ys = []
    for t in range(u.shape[2]):
        h = dA[:, :, t] * h + dBu[:, :, t]
        ys.append((h * Ct[:, None, t]).sum(-1))
    y = torch.stack(ys, -1) + D[None, :, None] * u
    return y * F.silu(z)


def tuned_triton_scan(args):
    """The Triton scan at its fastest block size and chunk length for these inputs."""
    import triton_scan
    best = None
    for block_d in (8, 16, 32):
        for chunk in (16, 32, 64):
            fn = lambda bd=block_d, ch=chunk: triton_scan.selective_scan(*args, block_d=bd, chunk=ch)
            try:
                ms, _ = timeit(fn, reps=5, warmup=1)
            except Exception as e:  # a configuration that does not fit (registers, shared memory)
                print(f"  triton scan block_d={block_d} chunk={chunk}: {str(e).splitlines()[0][:200]}", flush=True)
                continue
            if best is None or ms < best[0]:
                best = (ms, fn, f"block_d={block_d} chunk={chunk}")
    print(f"  triton scan tuned: {best[2]}" if best else "  triton scan: no configuration ran", flush=True)
    return best[1] if best else None


def scan_cases():
    out = []
    for (b, d, l) in [(1, 768, 512), (1, 768, 2048), (1, 2048, 1024), (4, 768, 1024), (4, 1536, 4096)]:
        u, delta, A, B, C, D, z, bias = scan_inputs(b, d, l)
        y = torch.empty_like(u)
        n = 16
        nbytes = 4 * (4 * b * d * l + 2 * b * n * l + d * n + 2 * d)
        inputs = (u, delta, A, B, C, D, z, bias)
        baselines = {}
        if BASELINES and (triton_fn := tuned_triton_scan(inputs)) is not None:
            baselines["triton chunked scan"] = triton_fn
        out.append(dict(name=f"selective_scan fp32 b{b} d{d} l{l}", bytes=nbytes, flops=9 * b * d * l * n,
                        transcendentals=b * d * l * (n + 3),
                        args=[u, delta, A, B, C, D, z, bias, y, None, b, d, l, n, 1, 1, 1],
                        torch=lambda a=inputs: scan_torch_loop(*a), out=y, baselines=baselines,
                        ref=lambda a=inputs: scan_torch_loop(*[t.double() for t in a]).float(),
                        tol=1e-3, torch_reps=3))
    return out


TASKS = {
    "softmax": (softmax_cases, "softmax", [P, P, I64, I64, P]),
    "rmsnorm": (rmsnorm_cases, "rmsnorm", [P, P, P, I64, I64, F32, P]),
    "matmul": (matmul_cases, "matmul", [P, P, P, I64, I64, I64, P]),
    "attention_bf16": (attention_cases, "attention", [P] * 4 + [I64] * 6 + [I32, P]),
    "selective_scan": (scan_cases, "selective_scan", [P] * 10 + [I64] * 5 + [I32, I32, P]),
}


def rel_err(out, ref):
    out, ref = out.float(), ref.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).norm() / ref.norm()).item()


def kernel_label(path):
    """'c7: <optimization>' from the header `ksearch export` writes, else the file name."""
    with open(path) as fh:
        head = fh.read(4000)
    cand = re.search(r"candidate (c\d+)", head)
    opt = re.search(r"Optimization: (.*)", head)
    if cand:
        return f"ksearch run {cand.group(1)}" + (f": {opt.group(1).strip()}" if opt else "")
    return os.path.basename(path)[:-3]


def check_wrapper(task, src, fname, case, lib_fn):
    """Builds the exported PyTorch extension and compares its output with the ctypes call's."""
    from torch.utils.cpp_extension import load
    folder = os.path.dirname(src)
    binding = os.path.join(folder, f"{task}_torch.cpp")
    if not os.path.exists(binding):
        return f"{task}: no {task}_torch.cpp beside the kernel"
    flags = re.search(r"'nvcc': \[(.*)\]", open(os.path.join(folder, "setup.py")).read()).group(1)  # the export's own flags
    ext = load(name=f"{task}_ksearch", sources=[src, binding], extra_cuda_cflags=re.findall(r"'([^']*)'", flags),
               extra_ldflags=["-lcuda"],
               build_directory=tempfile.mkdtemp(prefix=f"ext-{task}-"), verbose=False)
    case["out"].fill_(float("nan"))
    call_c(lib_fn, case["args"])
    torch.cuda.synchronize()
    expected = case["out"].clone()
    case["out"].fill_(float("nan"))
    getattr(ext, fname)(*case["args"])
    torch.cuda.synchronize()
    same = torch.equal(case["out"], expected)
    return f"{task}: PyTorch extension from the export {'matches' if same else 'DIFFERS from'} the C entry on {case['name']}"


def profile_cases(cases, kernels, fname, argtypes):
    """One call of each kernel, of PyTorch and of the other baselines on each case, after a warm-up, inside an NVTX
    range named "profile", so that `ncu --nvtx --nvtx-include profile/` measures those calls and nothing else."""
    calls = [(c["name"], "torch", c["torch"]) for c in cases]
    calls += [(c["name"], name, fn) for c in cases for name, fn in c.get("baselines", {}).items()]
    for src, so in kernels:
        if so:
            f = getattr(ctypes.CDLL(so), fname)
            f.argtypes, f.restype = argtypes, None
            calls += [(c["name"], kernel_label(src), lambda f=f, c=c: call_c(f, c["args"])) for c in cases]
    for case, who, fn in calls:
        fn()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("profile")
        fn()
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        print(f"profiled {who} on {case}", flush=True)


def main():
    kdir = sys.argv[1]
    profile = sys.argv[sys.argv.index("--profile") + 1] if "--profile" in sys.argv else None
    out_json = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    wrappers = sys.argv[sys.argv.index("--wrappers") + 1].split(",") if "--wrappers" in sys.argv else []
    ceilings = json.load(open(sys.argv[sys.argv.index("--ceilings") + 1])) if "--ceilings" in sys.argv else None
    only = (os.environ["BENCH_TASKS"].split(",") if os.environ.get("BENCH_TASKS")
            else [t for t in TASKS if os.path.isdir(os.path.join(kdir, t))])
    keep_pool_memory()
    bw = copy_bandwidth()
    print(f"device {props.name}, {props.multi_processor_count} SMs, L2 {L2 >> 20} MiB; torch {torch.__version__}; "
          f"measured copy bandwidth {bw / 1e12:.2f} TB/s (read + write)", flush=True)
    sources = {t: sorted(glob.glob(os.path.join(kdir, t, "*.cu"))) for t in only}
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 8) as pool:
        built = {t: list(zip(srcs, pool.map(build, srcs))) for t, srcs in sources.items()}
    results, wrapper_jobs, wrapper_checks = [], [], []
    for task in only:
        make_cases, fname, argtypes = TASKS[task]
        cases = make_cases()
        if profile:
            profile_cases([c for c in cases if profile in c["name"]], built[task], fname, argtypes)
            continue
        refs = [c["ref"]() for c in cases]
        # Every contender is checked on every case first; then each case times the correct ones side by side.
        baselines = []  # per case: {name: (fn, rel err)}, wrong answers left out with a message
        for c, ref in zip(cases, refs):
            ok = {}
            for bname, fn in c.get("baselines", {}).items():
                e = rel_err(fn(), ref)
                if e <= c["tol"]:
                    ok[bname] = (fn, e)
                else:
                    print(f"  {task}: baseline {bname} WRONG on {c['name']} (rel err {e:.2e})", flush=True)
            baselines.append(ok)
        correct = []  # (name, entry point, per-case rel errs, source)
        for src, so in built[task]:
            if not so:
                print(f"  {task}: {os.path.basename(src)} did not compile", flush=True)
                continue
            f = getattr(ctypes.CDLL(so), fname)
            f.argtypes, f.restype = argtypes, None
            name, errs = kernel_label(src), []
            for c, ref in zip(cases, refs):
                c["out"].fill_(float("nan"))
                call_c(f, c["args"])
                torch.cuda.synchronize()
                errs.append(rel_err(c["out"], ref))
                if not errs[-1] <= c["tol"]:
                    print(f"  {task}: {name} WRONG (rel err {errs[-1]:.2e} on {c['name']})", flush=True)
                    break
            else:  # correct on every case
                correct.append((name, f, errs, src))
                if task in wrappers and os.path.basename(src) == f"{task}.cu":  # the export's kernel file
                    wrapper_jobs.append((task, src, fname, cases[-1], f))
        if not correct:
            print(f"{task}: no correct kernel", flush=True)
            continue
        timings = []
        for c, extra in zip(cases, baselines):
            contenders = {"torch": (c["torch"], c.get("torch_reps", 30))}
            contenders.update({f"baseline {b}": (fn, 30) for b, (fn, _) in extra.items()})
            contenders.update({name: (lambda f=f, c=c: call_c(f, c["args"]), 30) for name, f, _, _ in correct})
            timings.append(time_side_by_side(contenders, ROUNDS))
        scored = []  # (geo-mean ms, kernel, per-case (median, spread), per-case rel err)
        for name, f, errs, src in correct:
            times = [t[name] for t in timings]
            score = math.exp(sum(math.log(t[0]) for t in times) / len(times))
            print(f"  {task}: {name} geo-mean {score:.4f} ms; per case " + ", ".join(f"{t[0]:.4f}" for t in times), flush=True)
            scored.append((score, name, times, errs))
        best = min(scored, key=lambda s: s[0])[1]
        torch_times = [t["torch"] for t in timings]
        baseline_times = [{b: (*t[f"baseline {b}"], e) for b, (_, e) in extra.items()} for t, extra in zip(timings, baselines)]
        # Every kernel's rows, with its spreads (a search's export beside a committed kernel is compared case by
        # case); `best` marks the kernel of the lowest geo-mean.
        for _, name, times, errs in scored:
            for c, (tm, tsp), (om, osp), e, extra in zip(cases, torch_times, times, errs, baseline_times):
                row = dict(task=task, case=c["name"], kernel=name, best=name == best, ours_ms=om, ours_spread=osp, torch_ms=tm,
                           torch_spread=tsp, vs_torch=tm / om, rel_err=e, bw_fraction=c["bytes"] / (om / 1e3) / bw,
                           tflops=c["flops"] / (om / 1e3) / 1e12 if c["flops"] else 0.0,
                           baselines={k: dict(ms=v[0], spread=v[1], rel_err=v[2], vs_ours=v[0] / om) for k, v in extra.items()})
                if ceilings:
                    row["roofline_ms"] = 1e3 * max(c["bytes"] / ceilings["bandwidth_bytes_per_s"], c["flops"] / ceilings["flops_per_s"],
                                                   c.get("transcendentals", 0) / ceilings.get("exp_per_s", float("inf")))
                    row["roofline_fraction"] = row["roofline_ms"] / om
                results.append(row)
    print("\n| case | kernel | ours ms (spread) | torch ms (spread) | ours/torch speed | other baselines (ms, their time / ours) "
          "| % of copy BW | % of ksearch roofline | TFLOP/s | rel err |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        others = "; ".join(f"{k} {v['ms']:.4f} ({100 * v['spread']:.1f}%) {v['vs_ours']:.2f}x" for k, v in r["baselines"].items())
        roof = f"{100 * r['roofline_fraction']:.0f}%" if "roofline_fraction" in r else "-"
        print(f"| {r['case']} | {r['kernel']}{' (best)' if r['best'] else ''} | {r['ours_ms']:.4f} ({100 * r['ours_spread']:.1f}%) | {r['torch_ms']:.4f} "
              f"({100 * r['torch_spread']:.1f}%) | {r['vs_torch']:.2f}x | {others or '-'} | {100 * r['bw_fraction']:.0f}% | "
              f"{roof} | {r['tflops']:.1f} | {r['rel_err']:.1e} |")
    for job in wrapper_jobs:  # last: the table above is kept even if a build fails
        try:
            wrapper_checks.append(check_wrapper(*job))
        except Exception as e:  # a binding that does not build is a finding, not a crash
            wrapper_checks.append(f"{job[0]}: the exported PyTorch extension FAILED to build or run: {str(e)[-1500:]}")
        print(wrapper_checks[-1], flush=True)
    if out_json:
        with open(out_json, "w") as fh:
            json.dump(dict(device=props.name, torch=torch.__version__, copy_bandwidth=bw, ceilings=ceilings, results=results,
                           wrapper_checks=wrapper_checks), fh, indent=1)


if __name__ == "__main__":
    main()
