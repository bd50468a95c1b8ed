"""MLX custom Metal kernels on Linux: mx.fast.metal_kernel's API, run by ksearch's metalsim.

    import metalsim_mlx
    kernel = metalsim_mlx.metal_kernel(name=..., input_names=..., output_names=..., source=...)
    outputs = kernel(inputs=..., grid=..., threadgroup=..., output_shapes=..., output_dtypes=...)

    metalsim_mlx.patch()           # existing code calling mx.fast.metal_kernel now runs here
    with metalsim_mlx.patched():   # the same, undone on exit

Importing it turns MLX's compilation off (mx.disable_compile()): metalsim runs each call at once, which a
function that mx.compile traces cannot hold. See docs/METAL.md, "MLX custom kernels on Linux".
"""
import contextlib

import mlx.core as mx

from .errors import MetalCompileError, MetalRuntimeError, MetalsimError, MetalsimSetupError, MetalsimWarning
from .kernel import MetalKernel, metal_kernel
from .tool import find_tool

__all__ = [
    "MetalCompileError",
    "MetalKernel",
    "MetalRuntimeError",
    "MetalsimError",
    "MetalsimSetupError",
    "MetalsimWarning",
    "find_tool",
    "is_patched",
    "metal_kernel",
    "patch",
    "patched",
    "unpatch",
]

_replaced = None  # the mx.fast.metal_kernel that patch() replaced


def patch():
    """Makes mx.fast.metal_kernel (mlx.core.fast.metal_kernel) build metalsim kernels. Code that
    imported the function itself before (`from mlx.core.fast import metal_kernel`) keeps MLX's."""
    global _replaced
    if _replaced is None:
        _replaced = mx.fast.metal_kernel
        mx.fast.metal_kernel = metal_kernel


def unpatch():
    """Restores MLX's mx.fast.metal_kernel."""
    global _replaced
    if _replaced is not None:
        mx.fast.metal_kernel = _replaced
        _replaced = None


def is_patched():
    return _replaced is not None


@contextlib.contextmanager
def patched():
    """patch() for the duration of a with block; leaves an earlier patch() in place."""
    already = is_patched()
    patch()
    try:
        yield
    finally:
        if not already:
            unpatch()
