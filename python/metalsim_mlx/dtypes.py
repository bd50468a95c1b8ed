"""MLX dtypes that metalsim supports, with the numpy dtype that carries their bytes."""
import mlx.core as mx
import numpy as np

from .errors import MetalCompileError, MetalsimError

# metalsim's dtype name -> (MLX dtype, numpy dtype of the same bytes). numpy has no bfloat16:
# its bits travel as uint16.
_SUPPORTED = {
    "float32": (mx.float32, np.float32),
    "float16": (mx.float16, np.float16),
    "bfloat16": (mx.bfloat16, np.uint16),
    "int64": (mx.int64, np.int64),
    "uint64": (mx.uint64, np.uint64),
    "int32": (mx.int32, np.int32),
    "uint32": (mx.uint32, np.uint32),
    "int16": (mx.int16, np.int16),
    "uint16": (mx.uint16, np.uint16),
    "int8": (mx.int8, np.int8),
    "uint8": (mx.uint8, np.uint8),
    "bool": (mx.bool_, np.bool_),
}
_NAMES = {mlx_dtype: name for name, (mlx_dtype, _) in _SUPPORTED.items()}


def metalsim_name(dtype, kernel_name, what):
    """metalsim's name of an MLX dtype. `what` names the argument in the error for the two that
    MLX writes into the kernel but metalsim cannot run: float64 ("double", which Metal's compiler
    refuses, so MLX raises when it builds the library; it reaches here only as a template dtype, since the call
    refuses float64 inputs and outputs first, as MLX does) and complex64 (MLX's complex64_t)."""
    if dtype == mx.float64:
        message = f"{what} has dtype float64, which MLX declares as 'double': 'double' is not supported in Metal"
        raise MetalCompileError(
            f"[metal_kernel] kernel '{kernel_name}' does not compile:\n  signature: error: {message}",
            [{"file": "signature", "line": 0, "column": 0, "severity": "error", "message": message}],
            "",
        )
    if dtype not in _NAMES:
        raise MetalsimError(
            f"[metal_kernel] kernel '{kernel_name}': {what} has dtype {dtype}, which MLX passes to Metal as "
            f"complex64_t; metalsim does not emulate that type (it runs {', '.join(_SUPPORTED)})"
        )
    return _NAMES[dtype]


def to_numpy(array):
    """numpy view of an MLX array's memory, with its strides (bfloat16 as uint16)."""
    if array.dtype == mx.bfloat16:
        array = array.view(mx.uint16)
    return np.asarray(array)


def from_bytes(raw, name, shape):
    """MLX array of dtype `name` and `shape` from its row-contiguous bytes."""
    mlx_dtype, carrier = _SUPPORTED[name]
    result = mx.array(np.frombuffer(raw, dtype=carrier).reshape(shape))
    return result.view(mlx_dtype) if mlx_dtype == mx.bfloat16 else result
