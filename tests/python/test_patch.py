"""patch() makes code written against mx.fast.metal_kernel run on Linux, unchanged."""
import mlx.core as mx
import pytest

import metalsim_mlx


# MLX's documented example, as user code would have it: it builds its kernel through
# mx.fast.metal_kernel at call time.
def exp_elementwise(a: mx.array):
    source = """
        uint elem = thread_position_in_grid.x;
        T tmp = inp[elem];
        out[elem] = metal::exp(tmp);
    """
    kernel = mx.fast.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"], source=source)
    outputs = kernel(
        inputs=[a],
        template=[("T", mx.float32)],
        grid=(a.size, 1, 1),
        threadgroup=(256, 1, 1),
        output_shapes=[a.shape],
        output_dtypes=[a.dtype],
    )
    return outputs[0]


@pytest.fixture(autouse=True)
def restore_mlx():
    original = mx.fast.metal_kernel
    yield
    metalsim_mlx.unpatch()
    assert mx.fast.metal_kernel is original


def test_unpatched_mlx_has_no_metal_on_linux():
    with pytest.raises(RuntimeError, match="No Metal back-end"):
        mx.eval(exp_elementwise(mx.ones((4, 16))))


def test_patch_runs_an_existing_call_site_and_unpatch_restores_mlx():
    original = mx.fast.metal_kernel
    metalsim_mlx.patch()
    metalsim_mlx.patch()  # idempotent
    assert metalsim_mlx.is_patched()
    a = mx.random.normal(shape=(4, 16))
    assert mx.allclose(exp_elementwise(a), mx.exp(a)).item()
    # Every spelling of the module sees the patch.
    from mlx.core import fast

    assert fast.metal_kernel is metalsim_mlx.metal_kernel
    metalsim_mlx.unpatch()
    assert mx.fast.metal_kernel is original and not metalsim_mlx.is_patched()


def test_patched_context_nests_and_keeps_an_outer_patch():
    original = mx.fast.metal_kernel
    with metalsim_mlx.patched():
        with metalsim_mlx.patched():
            assert mx.fast.metal_kernel is metalsim_mlx.metal_kernel
        assert mx.fast.metal_kernel is metalsim_mlx.metal_kernel
        a = mx.ones((2, 8))
        assert mx.allclose(exp_elementwise(a), mx.exp(a)).item()
    assert mx.fast.metal_kernel is original
    metalsim_mlx.patch()
    with metalsim_mlx.patched():
        pass
    assert metalsim_mlx.is_patched()
