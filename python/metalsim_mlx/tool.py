"""Finds and runs ksearch-metalsim, the executable that compiles and runs one kernel call.

A subprocess rather than an extension module: it works with any Python that has MLX (no build
per Python version), and a kernel that corrupts memory far outside its buffers or overflows a
thread's stack kills that process, not the caller's, and is reported as an error.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from .errors import MetalsimError, MetalsimSetupError, MetalRuntimeError

TOOL_NAME = "ksearch-metalsim"
TOOL_ENV = "KSEARCH_METALSIM"
# Seconds one kernel call may take (compile and run); 0 or less: no limit.
TIMEOUT_ENV = "METALSIM_MLX_TIMEOUT"
DEFAULT_TIMEOUT = 600
# ksearch-metalsim's exit status when clang++ is missing (src/metalsim/tool_main.cpp).
_MISSING_COMPILER = 3
# What usually kills the emulator, by signal (the kernel runs as host code).
_CRASH_CAUSES = {
    "SIGSEGV": "typically an access far outside every buffer (beyond metalsim's 64 KiB red zones) or a thread "
    "overflowing its 128 KiB stack",
    "SIGABRT": "the kernel called abort() (the host's, reached through __builtin_abort: Metal has none), or "
    "metalsim stopped on an error of its own",
    "SIGFPE": "an integer division or remainder by zero (or of the most negative value by -1), which is "
    "undefined in Metal: a GPU returns an unspecified value, the host traps",
}


def _checkout_build_tool():
    """build/ksearch-metalsim when this package is imported from a ksearch source checkout."""
    return Path(__file__).resolve().parents[2] / "build" / TOOL_NAME


def find_tool():
    """Path of ksearch-metalsim: $KSEARCH_METALSIM, else PATH (after `cmake --install`), else the
    default build of the checkout this package lives in."""
    explicit = os.environ.get(TOOL_ENV)
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise MetalsimSetupError(f"{TOOL_ENV}={explicit} is not an executable file")
    on_path = shutil.which(TOOL_NAME)
    if on_path:
        return on_path
    in_checkout = _checkout_build_tool()
    if in_checkout.is_file() and os.access(in_checkout, os.X_OK):
        return str(in_checkout)
    raise MetalsimSetupError(
        f"metalsim_mlx runs kernels with the {TOOL_NAME} executable, which was not found "
        f"(looked at ${TOOL_ENV} (unset), PATH, and {in_checkout}). Build ksearch "
        f"(cmake --preset default && cmake --build --preset default) and install it "
        f"(cmake --install build), or set {TOOL_ENV} to the executable's path."
    )


def _scratch_dir(needed_bytes):
    """Memory-backed /dev/shm where it has room for the call's tensors (a container's is often 64 MiB): they never
    touch a disk. Else the default temporary folder."""
    if not os.access("/dev/shm", os.W_OK):
        return None
    free = os.statvfs("/dev/shm")
    return "/dev/shm" if free.f_bavail * free.f_frsize > needed_bytes else None


def run(spec, inputs, output_bytes, with_source):
    """Runs one kernel call. `inputs` are contiguous numpy arrays in spec order; returns
    (the tool's result object, one bytes object per output)."""
    tool = find_tool()
    needed_bytes = sum(array.nbytes for array in inputs) + sum(output_bytes)
    with tempfile.TemporaryDirectory(prefix="metalsim-mlx-", dir=_scratch_dir(needed_bytes)) as scratch:
        spec_path = os.path.join(scratch, "spec.json")
        inputs_path = os.path.join(scratch, "inputs.bin")
        outputs_path = os.path.join(scratch, "outputs.bin")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        with open(inputs_path, "wb") as f:
            for array in inputs:
                f.write(array.data)
        command = [tool, "run", "--spec", spec_path, "--inputs", inputs_path, "--outputs", outputs_path]
        if with_source:
            command.append("--source")
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=_timeout())
        except subprocess.TimeoutExpired as expired:
            raise MetalRuntimeError(
                f"[metal_kernel] kernel '{spec['name']}' did not finish within {expired.timeout:g} s "
                f"(${TIMEOUT_ENV} sets the limit): typically a thread waiting for another thread "
                f"without a barrier, which never yields in metalsim, or a loop that does not end",
                [],
            ) from None
        _check_exit(done, spec["name"])
        result = json.loads(done.stdout)
        if result["stage"] != "run":
            return result, None
        with open(outputs_path, "rb") as f:
            raw = f.read()
    outputs, offset = [], 0
    for size in output_bytes:
        outputs.append(raw[offset : offset + size])
        offset += size
    return result, outputs


def _timeout():
    value = os.environ.get(TIMEOUT_ENV)
    if not value:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        raise MetalsimSetupError(f"{TIMEOUT_ENV}={value} is not a number of seconds") from None
    return seconds if seconds > 0 else None


def _check_exit(done, kernel_name):
    if done.returncode == 0:
        return
    detail = done.stderr.strip()
    if done.returncode == _MISSING_COMPILER:
        raise MetalsimSetupError(detail)
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        raise MetalRuntimeError(
            f"[metal_kernel] metalsim crashed ({name}) running kernel '{kernel_name}': "
            + _CRASH_CAUSES.get(name, _CRASH_CAUSES["SIGSEGV"])
            + (f"\n{detail}" if detail else ""),
            [],
        )
    raise MetalsimError(f"[metal_kernel] {TOOL_NAME} failed (exit status {done.returncode}): {detail}")
