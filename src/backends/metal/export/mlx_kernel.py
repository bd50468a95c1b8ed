# One kernel of an exported module (mlx_module.py's {{KERNELS}}; several for a multi-kernel candidate).
HEADER{{SUFFIX}} = {{HEADER}}

SOURCE{{SUFFIX}} = {{SOURCE}}


@functools.cache
def kernel{{suffix}}():
    """The kernel object, built once (MLX caches the compiled library by name and source)."""
    return mx.fast.metal_kernel(
        name={{NAME}},
        input_names={{INPUT_NAMES}},
        output_names={{OUTPUT_NAMES}},
        source=SOURCE{{SUFFIX}},
        header=HEADER{{SUFFIX}},
        ensure_row_contiguous=True,
        atomic_outputs={{ATOMIC_OUTPUTS}},
    )


