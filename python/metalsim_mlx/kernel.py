"""metal_kernel: the mx.fast.metal_kernel API, with calls run by metalsim on the CPU."""
import numbers
import operator

import mlx.core as mx
import numpy as np

from . import dtypes, tool
from .errors import MetalCompileError, MetalRuntimeError

_MATH_MODES = ("safe", "relaxed", "fast")
# Kernels that load first and mask the value afterwards (as MLX's grid_sample example does) get this hint.
_DISCARDED_READ_NOTE = (
    "  note: reading outside a buffer is undefined behaviour in Metal even when the value is discarded "
    "afterwards (e.g. `v = x[i]; v = in_bounds ? v : 0;`): test the bounds before the load"
)


def metal_kernel(
    name,
    input_names,
    output_names,
    source,
    header="",
    ensure_row_contiguous=True,
    atomic_outputs=False,
    compile_options=None,
):
    """Same arguments as mx.fast.metal_kernel; returns a callable kernel run by metalsim.

    compile_options' math_mode is checked as MLX does but changes nothing here: metalsim
    computes every math function with the host's libm, as Metal's "safe" mode would.
    """
    if compile_options is not None:
        if not isinstance(compile_options, dict):
            raise ValueError("[metal_kernel] Expected `compile_options` to be a dict.")
        for key, value in compile_options.items():
            if key != "math_mode":
                raise ValueError(f"[metal_kernel] Unknown compile option `{key}`.")
            if value not in _MATH_MODES:
                raise ValueError("[metal_kernel] Expected math_mode to be 'safe', 'relaxed', or 'fast'.")
    return MetalKernel(name, list(input_names), list(output_names), source, header, ensure_row_contiguous, atomic_outputs)


class MetalKernel:
    """The callable that metal_kernel returns; see mx.fast.metal_kernel's documentation."""

    def __init__(self, name, input_names, output_names, source, header, ensure_row_contiguous, atomic_outputs):
        self.name = name
        self.input_names = input_names
        self.output_names = output_names
        self.source = source
        self.header = header
        self.ensure_row_contiguous = ensure_row_contiguous
        self.atomic_outputs = atomic_outputs

    def __call__(
        self,
        *,
        inputs,
        output_shapes,
        output_dtypes,
        grid,
        threadgroup,
        template=None,
        init_value=None,
        verbose=False,
        stream=None,
    ):
        """Runs the kernel now (not lazily, unlike MLX) and returns its outputs as mx.arrays.
        `stream` is accepted for compatibility and ignored."""
        for argument, value in (("inputs", inputs), ("output_shapes", output_shapes), ("output_dtypes", output_dtypes)):
            _expect_sequence(argument, value)
        _expect_size("inputs", inputs, self.input_names)
        _expect_size("output_shapes", output_shapes, self.output_names)
        _expect_size("output_dtypes", output_dtypes, self.output_names)
        # Python scalars and numpy arrays become MLX arrays exactly as MLX converts them.
        arrays = [value if isinstance(value, mx.array) else mx.array(value) for value in inputs]
        # MLX's CustomKernel primitive has no derivatives, so mx.grad through a kernel raises on a Mac; outputs
        # rebuilt from metalsim's bytes would read as constants instead (zero gradients, silently).
        run = mx.custom_function(lambda *values: self._run(values, output_shapes, output_dtypes, grid, threadgroup,
                                                           template, init_value, verbose))
        run.vjp(self._no_derivative("vjp"))
        run.jvp(self._no_derivative("jvp"))
        return list(run(*arrays))

    def _no_derivative(self, transform):
        def refuse(*_):
            raise ValueError(f"[Primitive::{transform}] Not implemented for CustomKernel (kernel `{self.name}`)")

        return refuse

    def _run(self, arrays, output_shapes, output_dtypes, grid, threadgroup, template, init_value, verbose):
        input_specs = [
            _tensor(n, dtypes.metalsim_name(a.dtype, f"input '{n}'"), a.shape) for n, a in zip(self.input_names, arrays)
        ]
        output_specs = [
            _tensor(n, dtypes.metalsim_name(d, f"output '{n}'"), _output_shape(n, shape))
            for n, shape, d in zip(self.output_names, output_shapes, output_dtypes)
        ]
        spec = {
            "name": self.name,
            "inputs": input_specs,
            "outputs": output_specs,
            "source": self.source,
            "header": self.header,
            "template": [_template_arg(entry) for entry in _template_entries(template)],
            "grid": _triple("grid", grid),
            "threadgroup": _triple("threadgroup", threadgroup),
            "ensure_row_contiguous": self.ensure_row_contiguous,
            "atomic_outputs": self.atomic_outputs,
            "init_value": _init_value(init_value),
        }
        output_bytes = [d.size * _size(t["shape"]) for d, t in zip(output_dtypes, output_specs)]
        buffers = [self._input_buffer(n, a) for n, a in zip(self.input_names, arrays)]
        result, raw_outputs = tool.run(spec, buffers, output_bytes, verbose)
        if verbose:
            print(f"Generated source code for `{self.name}`:\n```\n{result['source']}\n```")
        if result["stage"] == "compile":
            raise _compile_error(self.name, result["compile"])
        if not result["ok"]:
            raise _runtime_error(self.name, result["run"]["diagnostics"])
        return [dtypes.from_bytes(raw, t["dtype"], t["shape"]) for raw, t in zip(raw_outputs, output_specs)]


    def _input_buffer(self, name, array):
        """The input's bytes as MLX hands them to the kernel: a row-contiguous copy, except with
        ensure_row_contiguous=False, where MLX passes the array's memory as it lies. A kernel that
        reads `<name>_strides` gets the row-contiguous layout described there (the same values);
        one that does not indexes the memory directly, so it gets the memory in its order."""
        view = dtypes.to_numpy(array)
        if self.ensure_row_contiguous or view.flags.c_contiguous or f"{name}_strides" in self.source:
            return np.ascontiguousarray(view)
        if any(stride < 0 for stride in view.strides):
            raise ValueError(
                f"[metal_kernel] input '{name}' has negative strides and the kernel does not read `{name}_strides`: "
                f"metalsim cannot lay it out as MLX would; use `{name}_strides` (elem_to_loc) or "
                f"ensure_row_contiguous=True."
            )
        span = 1 + sum((extent - 1) * stride for extent, stride in zip(view.shape, view.strides)) // view.itemsize
        if span < view.size:
            raise ValueError(
                f"[metal_kernel] input '{name}' is a broadcast view whose memory holds {span} elements for its "
                f"{view.size}; with ensure_row_contiguous=False MLX passes those {span} elements as they lie, and "
                f"metalsim cannot run a buffer smaller than its shape: use `{name}_strides` (elem_to_loc) or "
                f"ensure_row_contiguous=True."
            )
        # The array's first view.size elements of memory, gaps of a sliced view included.
        return np.lib.stride_tricks.as_strided(view, shape=(view.size,), strides=(view.itemsize,)).copy()


def _expect_size(argument, values, names):
    if len(values) != len(names):
        raise ValueError(f"[metal_kernel] Expected `{argument}` to have size {len(names)} but got size {len(values)}.")


def _tensor(name, dtype_name, shape):
    return {"name": name, "dtype": dtype_name, "shape": [int(d) for d in shape]}


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _expect_sequence(argument, value):
    # An mx.array is iterable too, but MLX takes these arguments as lists only.
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"[metal_kernel] `{argument}` must be a list, got {type(value).__name__}.")


def _integers(what, value):
    """value's entries as ints; Python and numpy integers only (MLX rejects floats)."""
    try:
        return [operator.index(v) for v in value]
    except TypeError:
        raise TypeError(f"[metal_kernel] {what} must be a sequence of integers, got {value!r}.") from None


def _output_shape(name, shape):
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"[metal_kernel] the shape of output '{name}' must be a list or tuple, got {shape!r}.")
    return _integers(f"the shape of output '{name}'", shape)


def _triple(argument, value):
    values = _integers(f"`{argument}`", value)
    if len(values) != 3:
        raise ValueError(f"[metal_kernel] `{argument}` must have 3 elements, got {len(values)}.")
    return values


def _template_entries(template):
    if template is None:
        return []
    if not isinstance(template, (list, tuple)) or not all(
        isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[0], str) for entry in template
    ):
        raise TypeError(f"[metal_kernel] `template` must be a list of (name, value) pairs, got {template!r}.")
    return template


def _template_arg(entry):
    name, value = entry
    # bool is an int subclass; JSON keeps it true/false, which metalsim reads as a bool template.
    if isinstance(value, numbers.Integral):
        return {"name": name, "value": value if isinstance(value, bool) else int(value)}
    if isinstance(value, mx.Dtype):
        return {"name": name, "value": {"dtype": dtypes.metalsim_name(value, f"template argument '{name}'")}}
    raise ValueError("[metal_kernel] Invalid template argument. Must be `mlx.core.Dtype`, `int` or `bool`.")


def _init_value(value):
    if value is None:
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"[metal_kernel] `init_value` must be a number or None, got {value!r}.")


def _compile_error(kernel_name, compiled):
    lines = []
    for m in compiled["messages"]:
        where = f"{m['file']} line {m['line']}" if m["file"] in ("body", "header") else f"{m['file']} code line {m['line']}"
        lines.append(f"  {where}, column {m['column']}: {m['severity']}: {m['message']}")
    if not lines:
        lines.append(compiled["log"].strip())
    text = f"[metal_kernel] kernel '{kernel_name}' does not compile:\n" + "\n".join(lines)
    return MetalCompileError(text, compiled["messages"], compiled["log"])


def _runtime_error(kernel_name, diagnostics):
    count = len(diagnostics)
    lines = [
        f"  {d['kind']}: {d['message']}" + (f" ({d['count']} times)" if d["count"] > 1 else "") for d in diagnostics
    ]
    if any(d["kind"] == "out_of_bounds" and "read of device buffer" in d["message"] for d in diagnostics):
        lines.append(_DISCARDED_READ_NOTE)
    text = f"[metal_kernel] metalsim found {count} problem{'s' if count != 1 else ''} running kernel '{kernel_name}':\n"
    return MetalRuntimeError(text + "\n".join(lines), diagnostics)
