{{COMMENT}}
"""{{TASK}} as an MLX custom Metal kernel (mx.fast.metal_kernel), exported by ksearch.

    from {{MODULE}} import {{FUNCTION}}
    {{USAGE}}

Arguments are mx arrays (numpy arrays are converted) in the task's order; they are converted to
the dtypes the kernel was verified with. Sizes are read from their shapes, and the grid,
threadgroup and template arguments computed from them as during the search.
On Linux, where MLX has no Metal back-end, `import metalsim_mlx; metalsim_mlx.patch()` (ksearch's
python/ package) runs the kernel with metalsim.
"""
import functools

import mlx.core as mx

{{KERNELS}}def _array(value, name, dtype, shape):
    value = value if isinstance(value, mx.array) else mx.array(value)
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"{{FUNCTION}}: {name} has shape {tuple(value.shape)}, expected {tuple(shape)}")
    return value if value.dtype == dtype else value.astype(dtype)


def _int(value, what):
    if value != int(value):
        raise ValueError(f"{{FUNCTION}}: {what} = {value} is not an integer")
    return int(value)


{{CALL}}
