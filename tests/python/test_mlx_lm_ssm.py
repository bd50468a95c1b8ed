"""mlx-lm's own Mamba-2 SSM decode kernel (mlx_lm/models/ssm.py, built with mx.fast.metal_kernel)
runs under metalsim_mlx.patch() and matches mlx-lm's reference path (ssm_attn, plain MLX ops).

mlx-lm builds the kernel at import time only when mx.metal.is_available(), and its ssm_update
dispatches to it only when the default device is the GPU: on a CPU-only MLX both are false, so
the tests make mlx-lm's checks see a Metal GPU (Python-level attributes only; MLX's own ops
still run on the CPU)."""
import mlx.core as mx
import numpy as np
import pytest
from mlx_lm.models import mamba2, ssm

import metalsim_mlx


@pytest.fixture
def metal_ssm_kernel(monkeypatch):
    """mlx-lm's kernel, built by its own make_ssm_kernel() under the patch; counts its calls."""
    monkeypatch.setattr(mx.metal, "is_available", lambda: True)
    with metalsim_mlx.patched():
        kernel = ssm.make_ssm_kernel()
    assert isinstance(kernel, metalsim_mlx.MetalKernel)
    calls = []

    def counted(**arguments):
        calls.append(arguments)
        return kernel(**arguments)

    monkeypatch.setattr(ssm, "_ssm_kernel", counted)
    return calls


@pytest.mark.parametrize(
    "input_dtype,state_dtype,tolerance",
    [(mx.float32, mx.float32, 1e-4), (mx.float16, mx.float32, 2e-2), (mx.bfloat16, mx.float32, 5e-2), (mx.float16, mx.float16, 2e-2)],
)
def test_ssm_update_kernel_matches_the_reference_path(metal_ssm_kernel, input_dtype, state_dtype, tolerance):
    batch, heads, groups, head_dim, state_dim = 2, 4, 2, 12, 64
    rng = np.random.default_rng(0)

    def random(*shape, dtype=mx.float32, scale=1.0):
        return mx.array(rng.normal(size=shape).astype(np.float32) * scale).astype(dtype)

    x = random(batch, 1, heads, head_dim, dtype=input_dtype)
    A_log = random(heads, scale=0.5)
    B = random(batch, 1, groups, state_dim, dtype=input_dtype)
    C = random(batch, 1, groups, state_dim, dtype=input_dtype)
    D = random(heads)
    dt = random(batch, 1, heads, dtype=input_dtype)
    dt_bias = random(heads)
    state = random(batch, heads, head_dim, state_dim, dtype=state_dtype)
    limits = (0.001, 100.0)

    y, new_state = ssm.ssm_update_kernel(x, A_log, B, C, D, dt, dt_bias, state, limits)
    y_ref, state_ref = ssm.ssm_attn(x, A_log, B, C, D, dt, dt_bias, state, limits)

    assert len(metal_ssm_kernel) == 1
    assert y.dtype == input_dtype and new_state.dtype == state_dtype
    assert y.shape == y_ref.shape and new_state.shape == state_ref.shape

    def floats(a):
        return np.array(a.astype(mx.float32))

    np.testing.assert_allclose(floats(y), floats(y_ref), rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(floats(new_state), floats(state_ref), rtol=tolerance, atol=tolerance)


def test_tiny_mamba2_model_decodes_through_the_kernel(metal_ssm_kernel, monkeypatch):
    args = mamba2.ModelArgs(
        model_type="mamba2",
        num_heads=4,
        head_dim=16,
        vocab_size=50,
        hidden_size=32,
        intermediate_size=64,
        state_size=32,
        num_hidden_layers=2,
        layer_norm_epsilon=1e-5,
        conv_kernel=4,
        n_groups=2,
        use_bias=False,
        use_conv_bias=True,
        tie_word_embeddings=True,
        time_step_limit=(0.001, 100.0),
        time_step_rank="auto",
    )
    mx.random.seed(1)
    model = mamba2.Model(args)
    prompt = mx.array([[1, 5, 7, 9, 11]])

    def greedy_logits(steps):
        """Prefill (chunked SSD in MLX ops) then one token at a time (ssm_update)."""
        cache = model.make_cache()
        logits = [model(prompt, cache)[:, -1]]
        for _ in range(steps):
            token = mx.argmax(logits[-1], axis=-1)[:, None]
            logits.append(model(token, cache)[:, -1])
        return np.array(mx.stack(logits))

    reference = greedy_logits(3)
    assert not metal_ssm_kernel
    monkeypatch.setattr(mx, "default_device", lambda: mx.gpu)
    with_kernel = greedy_logits(3)
    assert len(metal_ssm_kernel) == 3 * args.num_hidden_layers
    np.testing.assert_allclose(with_kernel, reference, rtol=1e-4, atol=1e-4)
