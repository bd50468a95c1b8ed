# One kernel of an exported module (mlx_module.py's {{KERNELS}}; several for a multi-kernel candidate).
HEADER{{SUFFIX}} = {{HEADER}}

SOURCE{{SUFFIX}} = {{SOURCE}}


@functools.cache
def _kernel{{suffix}}_from(factory):
    return factory(
        name={{NAME}},
        input_names={{INPUT_NAMES}},
        output_names={{OUTPUT_NAMES}},
        source=SOURCE{{SUFFIX}},
        header=HEADER{{SUFFIX}},
        ensure_row_contiguous=True,
        atomic_outputs={{ATOMIC_OUTPUTS}},
    )


def kernel{{suffix}}():
    """The kernel object, built once per mx.fast.metal_kernel (MLX's, or the one metalsim_mlx.patch() puts in its
    place: a call before or after patching gets the right one)."""
    return _kernel{{suffix}}_from(mx.fast.metal_kernel)


