"""metal_kernel: the mx.fast.metal_kernel API, with calls run by metalsim on the CPU."""
import math
import os
import sys
import warnings

import mlx.core as mx
import numpy as np

from . import dtypes, tool
from .errors import MetalCompileError, MetalRuntimeError, MetalsimWarning

# Kernels that load first and mask the value afterwards (as MLX's grid_sample example does) get this hint.
_DISCARDED_READ_NOTE = (
    "  note: reading outside a buffer is undefined behaviour in Metal even when the value is discarded "
    "afterwards (e.g. `v = x[i]; v = in_bounds ? v : 0;`): test the bounds before the load"
)

# Reads of undefined values (threadgroup memory no thread wrote, inactive SIMD lanes) are errors only where those
# values reach the outputs.
_UNDEFINED_READ_REACHES_NOTE = (
    "  note: the undefined values these reads found reach the outputs (they change, or the run finds more, when "
    "those values are 0x00 bytes instead of 0xFF): write every threadgroup element before a barrier, then read it, "
    "or keep the reads inside the written part; shuffle only from lanes that are still running"
)

# What follows a schedule dependence's meaning (which ksearch-metalsim sends, docs/METALSIM.md "Schedules").
_ORDER_DEPENDENCE_ADVICE = "On a Mac its outputs may differ from these. (METALSIM_SCHEDULES=in-order skips this check.)"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

# MLX's own factory, taken before patch() can replace it. Each factory and kernel call is handed to
# it first: it checks and converts the arguments exactly as on a Mac (nanobind's TypeErrors, MLX's
# ValueErrors) and, on Linux, then stops with this error, after which metalsim runs the call.
_MLX_METAL_KERNEL = mx.fast.metal_kernel
_NO_METAL = "[metal_kernel] No Metal back-end."
# MLX checks a threadgroup against the pipeline's maxTotalThreadsPerThreadgroup, at most 1024.
_MAX_THREADGROUP = 1024
# Metal's compiler defines __FAST_MATH__ under math_mode "fast" (MLX's own test branches on it).
_FAST_MATH_PRELUDE = "#define __FAST_MATH__ 1\n"
# What MLX raises evaluating an array that mx.vmap or mx.compile traces (a placeholder without values).
_TRACED = "[eval] Attempting to eval an array during function transformations"

# metalsim runs a call at once, which a function that mx.compile traces cannot hold: from here on compiled functions run
# op by op, with the same results. Turned off now, not when a kernel is built, since code that builds its kernels
# lazily (mlx-lm's lru_cache factories) builds the first one while mx.compile already traces the caller.
mx.disable_compile()


def metal_kernel(*args, **kwargs):
    """Same arguments as mx.fast.metal_kernel (name, input_names, output_names, source, header="",
    ensure_row_contiguous=True, atomic_outputs=False, compile_options=None), checked by MLX itself;
    returns a callable kernel run by metalsim.

    compile_options' math_mode "fast" defines __FAST_MATH__ for the kernel, as Metal's compiler
    does; otherwise math is unchanged: metalsim computes every math function with the host's libm,
    as Metal's "safe" mode would. Importing metalsim_mlx turned MLX's compilation off
    (mx.disable_compile()): a compiled graph cannot hold a call that metalsim runs at once, and a
    function under mx.compile runs op by op with the same results.
    """
    checker = _MLX_METAL_KERNEL(*args, **kwargs)
    return MetalKernel(checker, *args, **kwargs)


class MetalKernel:
    """The callable that metal_kernel returns; see mx.fast.metal_kernel's documentation."""

    def __init__(self, checker, name, input_names, output_names, source, header="", ensure_row_contiguous=True,
                 atomic_outputs=False, compile_options=None):
        self._checker = checker  # MLX's kernel of the same arguments
        self.name = name
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.source = source
        self.header = header
        self.ensure_row_contiguous = ensure_row_contiguous
        self.atomic_outputs = atomic_outputs
        # Sent to metalsim ahead of the header, and taken out again of what it reports.
        self._prelude = _FAST_MATH_PRELUDE if (compile_options or {}).get("math_mode") == "fast" else ""

    def __call__(self, *args, **kwargs):
        """Keyword arguments as MLX's kernel: inputs, output_shapes, output_dtypes, grid, threadgroup,
        template=None, init_value=None, verbose=False, stream=None. Runs the kernel now (not lazily,
        unlike MLX) and returns its outputs as mx.arrays; `stream` is ignored. Where MLX can record
        the call itself (while mx.export_function traces), its outputs are returned instead."""
        try:
            return self._checker(*args, **kwargs)
        except RuntimeError as error:
            if str(error) != _NO_METAL:
                raise
        _refuse_cpu_device(kwargs.get("stream"))
        return self._call(**kwargs)

    def _call(self, *, inputs, output_shapes, output_dtypes, grid, threadgroup, template=None, init_value=None,
              verbose=False, stream=None):
        # Python scalars and numpy arrays become MLX arrays exactly as MLX converts them.
        arrays = [value if isinstance(value, mx.array) else mx.array(value) for value in inputs]
        _refuse_float64(arrays, output_dtypes)
        _refuse_negative_shapes(self.output_names, output_shapes)
        _refuse_traced_inputs(arrays)
        launch = dict(
            output_shapes=[[int(d) for d in shape] for shape in output_shapes],
            output_dtypes=list(output_dtypes),
            grid=[int(v) for v in grid],
            threadgroup=[int(v) for v in threadgroup],
            template=[] if template is None else [_template_arg(name, value) for name, value in template],
            init_value=None if init_value is None else float(init_value),
            verbose=verbose,
        )
        # MLX's CustomKernel primitive has no derivatives, so mx.grad through a kernel raises on a Mac;
        # outputs rebuilt from metalsim's bytes would read as constants instead (zero gradients, silently).
        run = mx.custom_function(lambda *values: self._run(values, **launch))
        run.vjp(_not_implemented("vjp"))
        run.jvp(_not_implemented("jvp"))
        return list(run(*arrays))

    def _run(self, arrays, output_shapes, output_dtypes, grid, threadgroup, template, init_value, verbose):
        input_specs = [_tensor(n, dtypes.metalsim_name(a.dtype, self.name, f"input '{n}'"), a.shape)
                       for n, a in zip(self.input_names, arrays)]
        output_specs = [_tensor(n, dtypes.metalsim_name(d, self.name, f"output '{n}'"), shape)
                        for n, shape, d in zip(self.output_names, output_shapes, output_dtypes)]
        spec = {
            "name": self.name,
            "inputs": input_specs,
            "outputs": output_specs,
            "source": self.source,
            "header": self._prelude + self.header,
            "template": [_template_spec(name, value, self.name) for name, value in template],
            "grid": grid,
            "threadgroup": threadgroup,
            "ensure_row_contiguous": self.ensure_row_contiguous,
            "atomic_outputs": self.atomic_outputs,
            # JSON has no inf or nan (-inf starts a max): metalsim reads those as "inf", "-inf", "nan".
            "init_value": init_value if init_value is None or math.isfinite(init_value) else str(init_value),
        }
        output_bytes = [d.size * _size(t["shape"]) for d, t in zip(output_dtypes, output_specs)]
        buffers = []
        for input_spec, name, array in zip(input_specs, self.input_names, arrays):
            memory, strides = self._input_buffer(name, array)
            buffers.append(memory)
            if strides is not None:
                input_spec["strides"] = strides
        result, raw_outputs = tool.run(spec, buffers, output_bytes, verbose)
        if verbose:
            generated = result["source"][len(self._prelude):]
            print(f"Generated source code for `{self.name}`:\n```\n{generated}\n```")
        if result["stage"] == "compile":
            raise _compile_error(self.name, result["compile"], self._prelude.count("\n"), template)
        dependence = result["run"].get("schedule_dependence")
        if dependence is not None:
            raise _schedule_error(self.name, dependence)
        if not result["ok"]:
            diagnostics = result["run"]["diagnostics"]
            _raise_threadgroup_too_large(diagnostics, threadgroup)
            # A Mac runs a kernel that only reads past a buffer's end (and, like MLX's grid_sample example, masks
            # the value), or reads threadgroup memory no thread wrote or past a threadgroup array, or an inactive
            # SIMD lane, and discards what it found (`select(0.0f, partial[lane], lane < n)`): those reads warn, and
            # the outputs come back. Anything else is an error, and so are undefined reads whose values reach the
            # outputs (a bug on a Mac too: the outputs there depend on what the memory or the lane held).
            reach = result["run"].get("undefined_reads_matter", False)
            if reach or not all(_read_a_mac_runs(d) for d in diagnostics):
                raise _runtime_error(self.name, diagnostics, reach)
            warnings.warn(MetalsimWarning(_runtime_text(self.name, diagnostics)), stacklevel=_caller_stacklevel())
        return [dtypes.from_bytes(raw, t["dtype"], t["shape"]) for raw, t in zip(raw_outputs, output_specs)]

    def _input_buffer(self, name, array):
        """The input as MLX hands it to the kernel: (row-contiguous bytes, None), or with
        ensure_row_contiguous=False on a view that is not row-contiguous (transposed, sliced, broadcast), the
        memory the view spans as it lies and the view's strides in elements, which `<name>_strides` gives."""
        view = dtypes.to_numpy(array)
        if self.ensure_row_contiguous or view.flags.c_contiguous:
            return np.ascontiguousarray(view), None
        if any(stride < 0 for stride in view.strides):
            if f"{name}_strides" in self.source:
                # Read through its strides, a row-contiguous copy gives the kernel the same values.
                return np.ascontiguousarray(view), None
            raise ValueError(
                f"[metal_kernel] input '{name}' has negative strides and the kernel does not read `{name}_strides`: "
                f"metalsim cannot lay it out as MLX would; use `{name}_strides` (elem_to_loc) or "
                f"ensure_row_contiguous=True."
            )
        strides = [stride // view.itemsize for stride in view.strides]
        span = 1 + sum((extent - 1) * stride for extent, stride in zip(view.shape, strides)) if view.size else 0
        memory = np.lib.stride_tricks.as_strided(view, shape=(span,), strides=(view.itemsize,)).copy()
        return memory, strides


def _caller_stacklevel():
    """The stacklevel of warnings.warn, called by this function's caller, that names the first line outside this
    package: the call of the kernel, whichever of this package's functions (and mx.custom_function) lie between."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _refuse_float64(arrays, output_dtypes):
    """MLX's own error, raised on a Mac by the call itself (an array of a GPU primitive with a float64 input or
    output), before any kernel is built."""
    if any(a.dtype == mx.float64 for a in arrays) or any(d == mx.float64 for d in output_dtypes):
        raise ValueError("float64 is not supported on the GPU")


def _refuse_negative_shapes(output_names, output_shapes):
    """MLX takes any int as a dimension; on a Mac a negative one fails when the output is allocated
    ("[metal::malloc] Attempting to allocate ... bytes"). Said here with the output's name."""
    for name, shape in zip(output_names, output_shapes):
        if any(int(d) < 0 for d in shape):
            raise ValueError(f"[metal_kernel] output '{name}' has shape {tuple(int(d) for d in shape)}: "
                             f"a dimension is negative")


def _refuse_traced_inputs(arrays):
    """Inputs that mx.vmap traces have no values to run the kernel on: MLX's error on a Mac, where the CustomKernel
    primitive has no vmap. With compilation turned back on (mx.enable_compile()), inputs that mx.compile traces raise
    MLX's own evaluation error."""
    try:
        mx.eval(arrays)
    except ValueError as error:
        if not str(error).startswith(_TRACED) or _compiling():
            raise
        raise _not_implemented_error("vmap") from None


def _compiling():
    """Whether mx.compile compiles now (MLX has no getter): a compiled function runs its Python body on every call
    only while compilation is off."""
    runs = []
    probe = mx.compile(lambda x: runs.append(x) or x)
    probe(mx.array(0))
    probe(mx.array(0))
    return len(runs) < 2


def _not_implemented_error(transform):
    """MLX's error for a transform that its CustomKernel primitive does not implement."""
    return ValueError(f"[Primitive::{transform}] Not implemented for CustomKernel.")


def _not_implemented(transform):
    def refuse(*_):
        raise _not_implemented_error(transform)

    return refuse


def _tensor(name, dtype_name, shape):
    return {"name": name, "dtype": dtype_name, "shape": shape}


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _template_arg(name, value):
    """A template value as MLX reads it: bool, int or Dtype (MLX has checked that it is one)."""
    return name, value if isinstance(value, (bool, mx.Dtype)) else int(value)


def _template_spec(name, value, kernel_name):
    # JSON keeps a bool true/false, which metalsim reads as a bool template.
    if isinstance(value, mx.Dtype):
        value = {"dtype": dtypes.metalsim_name(value, kernel_name, f"template argument '{name}'")}
    return {"name": name, "value": value}


def _raise_threadgroup_too_large(diagnostics, threadgroup):
    """MLX's own error (at evaluation on a Mac) for a threadgroup over the pipeline's limit."""
    if any(d["kind"] == "threadgroup_too_large" for d in diagnostics):
        threads = threadgroup[0] * threadgroup[1] * threadgroup[2]
        raise ValueError(
            f"Thread group size ({threads}) is greater than  the maximum allowed threads per threadgroup "
            f"({_MAX_THREADGROUP})."
        )


def _refuse_cpu_device(stream):
    """A Mac runs kernels on the GPU only and refuses a CPU device ("Only supports the GPU."). A CPU
    Stream object is accepted: on Linux mx.default_stream(mx.default_device()) is one, where a Mac's
    is a GPU stream."""
    device = stream if isinstance(stream, (mx.Device, mx.DeviceType)) else None
    if device is not None and (device if isinstance(device, mx.DeviceType) else device.type) == mx.cpu:
        raise ValueError("[metal_kernel] Only supports the GPU.")


def _compile_error(kernel_name, compiled, prelude_lines, template):
    lines = []
    for m in compiled["messages"]:
        if m["file"] == "header":
            m["line"] -= prelude_lines
        # "signature": the kernel's parameter list as MLX writes it (verbose=True prints it).
        where = (f"{m['file']} line {m['line']}" if m["file"] in ("body", "header", "signature")
                 else f"{m['file']} code line {m['line']}")
        lines.append(f"  {where}, column {m['column']}: {m['severity']}: {m['message']}")
    if not lines:
        lines.append(compiled["log"].strip())
    # MLX writes template values into the kernel's name (custom_kernel_<name>_<values>_...).
    for name, value in template:
        if not isinstance(value, (bool, mx.Dtype)) and value < 0:
            lines.append(f"  note: template value {value} makes the kernel's name no identifier ('-' in it): "
                         f"Metal refuses it too; pass {name} as an input, or offset it to a non-negative value")
    # MLX's first line (its metal::Device error), which callers match, then where metalsim found each error.
    text = (f"[metal::Device] Unable to build metal library from source\n"
            f"[metal_kernel] kernel '{kernel_name}' does not compile:\n" + "\n".join(lines))
    return MetalCompileError(text, compiled["messages"], compiled["log"])


def _device_read_out_of_bounds(diagnostic):
    return diagnostic["kind"] == "out_of_bounds" and "read of device buffer" in diagnostic["message"]


def _undefined_read(diagnostic):
    """A read of threadgroup memory that no thread wrote, or past a threadgroup variable, or a SIMD-group function's
    read of an inactive lane (ksearch-metalsim tells whether the values such reads found reach the outputs)."""
    kind, message = diagnostic["kind"], diagnostic["message"]
    return (kind == "uninitialized_read" and message.startswith("read of uninitialized")) or (
        kind == "out_of_bounds" and message.startswith("out-of-bounds read of threadgroup memory")) or (
        kind == "inactive_lane_read")


def _read_a_mac_runs(diagnostic):
    return _device_read_out_of_bounds(diagnostic) or _undefined_read(diagnostic)


def _diagnostic_lines(diagnostics):
    """One indented line per metalsim finding: its kind, its message and how many times it was seen."""
    return [f"  {d['kind']}: {d['message']}" + (f" ({d['count']} times)" if d["count"] > 1 else "") for d in diagnostics]


def _problems(count):
    return f"{count} problem{'s' if count != 1 else ''}"


def _runtime_text(kernel_name, diagnostics, undefined_reads_reach_outputs=False):
    lines = _diagnostic_lines(diagnostics)
    if any(_device_read_out_of_bounds(d) for d in diagnostics):
        lines.append(_DISCARDED_READ_NOTE)
    if undefined_reads_reach_outputs:
        lines.append(_UNDEFINED_READ_REACHES_NOTE)
    text = f"[metal_kernel] metalsim found {_problems(len(diagnostics))} running kernel '{kernel_name}':\n"
    return text + "\n".join(lines)


def _runtime_error(kernel_name, diagnostics, undefined_reads_reach_outputs=False):
    return MetalRuntimeError(_runtime_text(kernel_name, diagnostics, undefined_reads_reach_outputs), diagnostics)


def _schedule_error(kernel_name, dependence):
    """The error for a kernel whose run under another of metalsim's schedules (ksearch-metalsim's
    "schedule_dependence") found problems, or outputs that differ from the in-order run's."""
    schedule = dependence["description"]
    meaning = f"{dependence['meaning']}. {_ORDER_DEPENDENCE_ADVICE}"
    diagnostics = dependence.get("diagnostics", [])
    if diagnostics:
        found = "\n".join(_diagnostic_lines(diagnostics))
        text = (f"[metal_kernel] kernel '{kernel_name}' ran clean under metalsim's in-order schedule, but under "
                f"{schedule} metalsim found {_problems(len(diagnostics))}:\n{found}\nSo {meaning}")
    else:
        index = dependence.get("index") or []
        where = f"[{', '.join(str(i) for i in index)}]" if index else f" element {dependence['element']}"
        text = (f"[metal_kernel] kernel '{kernel_name}': output '{dependence['output']}'{where} is "
                f"{dependence['in_order']} under metalsim's in-order schedule and {dependence['value']} under "
                f"{schedule}: {meaning}")
    return MetalRuntimeError(text, diagnostics, dependence["schedule"])
