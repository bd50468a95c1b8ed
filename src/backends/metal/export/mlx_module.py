{{COMMENT}}
"""{{TASK}} as an MLX custom Metal kernel (mx.fast.metal_kernel), exported by ksearch.

    from {{MODULE}} import {{FUNCTION}}
    {{USAGE}}

Arguments are mx arrays (numpy arrays and nested lists are converted) in the task's order; they are
converted to the dtypes the kernel was verified with, within their kind (no float array for an integer
tensor). Sizes are read from their shapes, and the grid, threadgroup and template arguments computed
from them as during the search.
On Linux, where MLX has no Metal back-end, `import metalsim_mlx; metalsim_mlx.patch()` (ksearch's
python/ package) runs the kernel with metalsim.
"""
import functools
import math
import numbers
import sys

import mlx.core as mx

__all__ = {{PUBLIC_NAMES}}  # what help() and a star import show

_INT32_MAX = 2**31 - 1
_FLOAT32_MAX = 3.4028234663852886e38

{{KERNELS}}{{EXPRESSION_HELPERS}}

def _explains_missing_metal(function):
    """MLX without Metal (Linux) refuses the kernel call: its error then says how to run the kernel there."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except RuntimeError as error:
            if "No Metal back-end" not in str(error):
                raise
            raise RuntimeError(f"{error} Without Metal (on Linux), `import metalsim_mlx; metalsim_mlx.patch()` before "
                               f"the call runs the kernel with metalsim (ksearch's python/ package).") from None
    return call


# (mx.ThreadLocalStream, mlx-lm's generation stream, is no mx.Stream; MLX before 0.31 has none)
_STREAMS = (mx.Stream, mx.Device, mx.DeviceType) + ((mx.ThreadLocalStream,) if hasattr(mx, "ThreadLocalStream") else ())


def _stream(stream):
    if stream is not None and not isinstance(stream, _STREAMS):
        raise TypeError(f"{{FUNCTION}}: stream must be None, an mx.Stream or an mx.Device, got {type(stream).__name__}")


def _tensor(value, name, ndims, declared, dtype):
    if value is None:
        raise TypeError(f"{{FUNCTION}}: {name} is required")
    if not isinstance(value, mx.array):
        host = value
        try:
            value = _mx_array(value)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{{FUNCTION}}: {name} is not an array of numbers: {error}") from None
        except RuntimeError as error:  # what mx.array says of a numpy dtype it has none for (str, object)
            raise TypeError(f"{{FUNCTION}}: {name} is not an array of numbers: {getattr(value, 'dtype', '')} "
                            f"({error})") from None
        _host_values_fit(host, value, name, dtype)
    if value.dtype == mx.complex64:
        raise TypeError(f"{{FUNCTION}}: {name} is complex; the kernel takes real numbers")
    if value.ndim not in ndims:
        raise ValueError(f"{{FUNCTION}}: {name} has shape {tuple(value.shape)}, expected {declared}")
    return value


def _mx_array(value):
    try:
        return mx.array(_numpy_mx_takes(value))
    except ValueError:
        numbers_array = _numbers_through_numpy(value)
        if numbers_array is None:
            raise
        return mx.array(_numpy_mx_takes(numbers_array))


def _numbers_through_numpy(value):
    """What mx.array refuses but numpy reads as numbers (lists of numpy scalars or rows, objects with __array__ such as
    pandas'), as a numpy array; else None. Such values exist only with numpy imported, so it is looked up, not imported."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    try:
        converted = numpy.asarray(value)
    except (TypeError, ValueError):
        return None
    return converted if converted.dtype.kind in "biufc" else None


def _numpy_mx_takes(value):
    """A numpy array as mx.array takes it: a view with negative strides (x[::-1], np.flip) copied row-contiguous,
    big-endian numbers in the host's order and long doubles as doubles (mx.array refuses the first and fails on the
    others)."""
    if any(stride < 0 for stride in getattr(value, "strides", None) or ()):
        value = value.copy()
    dtype = getattr(value, "dtype", None)
    if not getattr(dtype, "isnative", True):
        value = value.astype(dtype.newbyteorder("="))
    if getattr(dtype, "kind", "") in ("f", "c") and dtype.itemsize > (8 if dtype.kind == "f" else 16):
        value = value.astype("f8" if dtype.kind == "f" else "c16")
    return value


def _kind(dtype):
    return ("bool" if dtype == mx.bool_ else "unsigned" if mx.issubdtype(dtype, mx.unsignedinteger)
            else "integer" if mx.issubdtype(dtype, mx.integer) else "float")


# Conversions that keep values of their kind, as numpy's casting="same_kind": into a kernel's integer or bool tensor (indices,
# counts, masks) a float array would be truncated and a signed one wrap, silently.
_CONVERTIBLE = {"bool": ("bool",), "unsigned": ("bool", "unsigned"), "integer": ("bool", "unsigned", "integer"),
                "float": ("bool", "unsigned", "integer", "float")}


def _host_values_fit(host, converted, name, dtype):
    """Integers from the host (numpy's int64 default, lists) for a narrower integer tensor: their values are at hand, so
    one the kernel's dtype cannot hold is an error instead of an index wrapped into another row. (An mx array's values
    are not read: that would wait for its computation at every call, and cannot be done under mx.compile.)"""
    if (_kind(dtype) == "float" or _kind(converted.dtype) in ("bool", "float") or converted.size == 0 or
            _kind(converted.dtype) not in _CONVERTIBLE[_kind(dtype)]):
        return
    target, source = mx.iinfo(dtype), mx.iinfo(converted.dtype)
    if target.min <= source.min and source.max <= target.max:
        return
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        values = numpy.asarray(host)
        low, high = int(values.min()), int(values.max())
    else:  # nested lists of Python ints (numpy's arrays and scalars come with numpy)
        low = high = None
        pending = [host]
        while pending:
            item = pending.pop()
            if isinstance(item, (list, tuple)):
                pending.extend(item)
            else:
                low, high = (int(item), int(item)) if low is None else (min(low, int(item)), max(high, int(item)))
    for value in (low, high):
        if not target.min <= value <= target.max:
            raise ValueError(f"{{FUNCTION}}: {name} holds {value}, which the kernel's {dtype} cannot hold "
                             f"({target.min} to {target.max})")


def _array(value, name, dtype, shape):
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"{{FUNCTION}}: {name} has shape {tuple(value.shape)}, expected {tuple(shape)}")
    _indexable(shape, name)
    if value.dtype == dtype:
        return value
    if _kind(value.dtype) not in _CONVERTIBLE[_kind(dtype)]:
        raise TypeError(f"{{FUNCTION}}: {name} is {value.dtype}, the kernel takes {dtype}: converting would change its "
                        f"values (convert it yourself if that is meant)")
    # A GPU has no float64 (numpy's default): such an input is converted on the CPU.
    return value.astype(dtype, stream=mx.cpu if value.dtype == mx.float64 else None)


def _scalar(value, name, kind):
    """A keyword as MLX's own arguments take it: a Python, numpy or 0-d mx number, within the kernel's int32 or float32;
    where the kernel takes an int, an int or a bool, as range() takes it (a float, even a whole one, is a TypeError)."""
    if hasattr(value, "shape"):
        if tuple(value.shape) != ():
            raise ValueError(f"{{FUNCTION}}: {name} must be a scalar, got shape {tuple(value.shape)}")
        value = value.item()
    if isinstance(value, complex):
        raise TypeError(f"{{FUNCTION}}: {name} is complex")
    if not isinstance(value, numbers.Real):
        expected = "True or False" if kind is bool else "a number"
        raise TypeError(f"{{FUNCTION}}: {name} must be {expected}, got {type(value).__name__}")
    if kind is float:
        return _fits_float32(value, name)
    if not isinstance(value, numbers.Integral):
        expected = "True or False" if kind is bool else "an int"
        raise TypeError(f"{{FUNCTION}}: {name} must be {expected}, got {type(value).__name__} {value}")
    if kind is bool:
        if value not in (0, 1):
            raise ValueError(f"{{FUNCTION}}: {name} must be True or False, got {value}")
        return bool(value)
    return _fits_int32(int(value), name)


def _int(value, what, sizes=None):
    if isinstance(value, numbers.Integral):
        return int(value)
    if not math.isfinite(value) or value != int(value):
        raise ValueError(f"{{FUNCTION}}: {what} = {value} is not an integer{_for(sizes)}")
    return int(value)


def _for(sizes, whole=True):
    """The sizes an expression read, for its error, and unless `whole` is False (the value was a whole number) that the
    kernel takes only sizes that give it a whole positive value (as the task's workloads do: a divisor that divides)."""
    if not sizes:
        return ""
    return " for " + ", ".join(f"{name} = {value}" for name, value in sizes.items()) + \
        ("; the kernel takes only sizes for which it is a whole number of at least 1" if whole else "")


def _fits_int32(value, what):
    if not -_INT32_MAX - 1 <= value <= _INT32_MAX:
        raise ValueError(f"{{FUNCTION}}: {what} = {value} does not fit the kernel's int32 argument")
    return value


def _int32(value, what):
    return mx.array(_fits_int32(_int(value, what), what), dtype=mx.int32)


def _fits_float32(value, what):
    """NaN is no value a kernel's parameter can mean; inf is a float32 (a bound that is none), but a finite value beyond
    float32's range would reach the kernel as one."""
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{{FUNCTION}}: {what} = {value} is too large for a float") from None
    if math.isnan(value):
        raise ValueError(f"{{FUNCTION}}: {what} is NaN")
    if math.isfinite(value) and abs(value) > _FLOAT32_MAX:
        raise ValueError(f"{{FUNCTION}}: {what} = {value} does not fit the kernel's float32 argument")
    return value


def _scalar_input(given, value, name, dtype):
    """A scalar as the kernel's 0-d input: an mx array given as itself (its graph kept: mx.grad through eps raises as
    through x, where a new array would give a zero gradient), else the checked value."""
    if isinstance(given, mx.array):
        return _array(given, name, dtype, ())
    return mx.array(value, dtype=dtype)


def _indexable(shape, what):
    """The kernel takes its sizes as int32 and was verified on arrays far smaller: an array of 2**31 elements or more
    has indices it may compute in 32 bits, wrapped, so it is refused rather than computed wrong."""
    elements = math.prod(shape)
    if elements > _INT32_MAX:
        raise ValueError(f"{{FUNCTION}}: {what} of shape {tuple(shape)} has {elements} elements; the kernel takes at most "
                         f"2**31 - 1 per array (its sizes are int32, its indices may be 32-bit)")
    return shape


def _launch(value, what, sizes=None):
    value = _int(value, what, sizes)
    if not 1 <= value <= _INT32_MAX:
        raise ValueError(f"{{FUNCTION}}: {what} = {value}{_for(sizes, value < 1) or ' for these sizes'}: a launch "
                         f"dimension takes 1 to 2**31 - 1")
    return value


def _require(holds, says, sizes):
    if not holds:
        raise ValueError(f"{{FUNCTION}}: the kernel needs {says}, but " +
                         ", ".join(f"{name} = {value}" for name, value in sizes.items()))


def _empty(shape):
    return math.prod(shape) == 0


{{CALL}}
