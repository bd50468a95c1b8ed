"""MLX dtypes that metalsim supports, with the numpy dtype that carries their bytes."""
import mlx.core as mx
import numpy as np

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


def metalsim_name(dtype, what):
    """metalsim's name of an MLX dtype; `what` names the argument in the error."""
    if not isinstance(dtype, mx.Dtype):
        raise TypeError(f"[metal_kernel] {what}: expected an mlx.core.Dtype, got {dtype!r}")
    if dtype not in _NAMES:
        raise ValueError(
            f"[metal_kernel] {what} has dtype {dtype}, which Metal kernels cannot use "
            f"(supported: {', '.join(_SUPPORTED)})"
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
