"""mlx-lm's own mx.fast.metal_kernel callers, run by metalsim_mlx and checked against the plain-MLX
paths mlx-lm takes without Metal: its fused kernels (mlx_lm/kernels: q/k norm, norm + sigmoid gate on
a transposed attention output), BitNet's packed ternary matmul, the KL and JS distillation losses
(whose forward kernels race on threadgroup memory), RWKV-7's WKV scan and Qwen3-Next's gated delta rule (whose
packed kernel mlx-lm pins bitwise to its explicit-tree kernel); and, where the installed mlx-lm has them, its MoE
routing and expert combine, q/k norm with RoPE, gated residual norms, Kimi K3's attention residual mix (given a
Python int among its inputs) and DeepSeek V4.1's Sinkhorn normalization.

mlx-lm builds these kernels when its modules are imported, most only where mx.metal.is_available(),
and calls them where mx.default_device() is the GPU; the fixture makes both checks see a Metal GPU
(Python attributes only: MLX's own ops still run on the CPU) and re-imports the modules under
metalsim_mlx.patched()."""
import importlib
import importlib.util

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

import metalsim_mlx

MODULES = ["mlx_lm.utils", "mlx_lm.kernels.qk_norm", "mlx_lm.kernels.rms_norm_sigmoid_gate",
           "mlx_lm.models.bitlinear_layers", "mlx_lm.tuner.losses", "mlx_lm.models.rwkv7",
           "mlx_lm.models.gated_delta"]


# mlx-lm's newer kernels (MoE routing and combine, q/k norm with RoPE, the gated residual norms, Kimi's attention
# residual mix, DeepSeek's Sinkhorn normalization); a test is skipped where the installed mlx-lm lacks its module.
NEWER_KERNELS = ["mlx_lm.kernels.expert_routing", "mlx_lm.kernels.qk_norm_rope", "mlx_lm.kernels.qk_norm",
                 "mlx_lm.kernels.post_expert_norm_combine", "mlx_lm.kernels.norm_add_norm", "mlx_lm.models.kimi_k3",
                 "mlx_lm.models.deepseek_v41"]


def patched_modules(names):
    """The modules, re-imported with a Metal GPU in sight and metal_kernel patched; restored after."""
    is_available, default_device = mx.metal.is_available, mx.default_device
    mx.metal.is_available, mx.default_device = (lambda: True), (lambda: mx.gpu)
    try:
        with metalsim_mlx.patched():
            modules = {name.rsplit(".", 1)[1]: importlib.reload(importlib.import_module(name)) for name in names}
        yield modules
    finally:
        mx.metal.is_available, mx.default_device = is_available, default_device
        for name in names:
            importlib.reload(importlib.import_module(name))


@pytest.fixture(scope="module")
def mlx_lm():
    yield from patched_modules(MODULES)


class Available(dict):
    """The modules of NEWER_KERNELS the installed mlx-lm has; a test naming another is skipped."""

    def __missing__(self, name):
        pytest.skip(f"this mlx-lm has no {name}")


@pytest.fixture(scope="module")
def newer_kernels():
    present = [name for name in NEWER_KERNELS if importlib.util.find_spec(name) is not None]
    for modules in patched_modules(present):
        yield Available(modules)


def normal(rng, *shape, dtype=mx.float32, scale=1.0):
    return mx.array((rng.normal(size=shape) * scale).astype(np.float32)).astype(dtype)


def assert_close(actual, expected, tolerance):
    np.testing.assert_allclose(np.array(actual.astype(mx.float32)), np.array(expected.astype(mx.float32)),
                               rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dtype, tolerance", [(mx.float32, 1e-5), (mx.bfloat16, 2e-2)])
def test_qk_norm_matches_rms_norm_of_the_q_and_k_parts(mlx_lm, dtype, tolerance):
    B, L, HQ, HK, D = 2, 3, 4, 2, 48  # D not a multiple of 32: the lanes past D idle
    qkvg = normal(np.random.default_rng(0), B, L, 2 * (HQ + HK) * D, dtype=dtype)
    q, k = mlx_lm["qk_norm"].qk_norm(qkvg, n_heads=HQ, n_kv_heads=HK, head_dim=D, eps=1e-6, query_scale=0.125)
    assert (q.shape, k.shape, q.dtype) == ((B, L, HQ, D), (B, L, HK, D), dtype)
    q_part = qkvg[..., : HQ * D].reshape(B, L, HQ, D)
    k_part = qkvg[..., HQ * D : (HQ + HK) * D].reshape(B, L, HK, D)
    assert_close(q, mx.fast.rms_norm(q_part, None, 1e-6) * 0.125, tolerance)
    assert_close(k, mx.fast.rms_norm(k_part, None, 1e-6), tolerance)


def test_rms_norm_sigmoid_gate_follows_the_strides_of_a_transposed_attention_output(mlx_lm):
    # The kernel (ensure_row_contiguous=False) indexes x and g through x_strides and g_strides.
    B, L, H, D = 2, 5, 3, 40
    rng = np.random.default_rng(1)
    attention = normal(rng, B, L, H, D)
    x = attention.transpose(0, 2, 1, 3)  # (B, H, L, D), not row-contiguous
    gate = normal(rng, B, L, H * D)
    out = mlx_lm["rms_norm_sigmoid_gate"].rms_norm_sigmoid_gate(x, gate, eps=1e-5)
    expected = mx.fast.rms_norm(attention, None, 1e-5) * mx.sigmoid(gate.reshape(B, L, H, D))
    assert out.shape == (B, L, H * D)
    assert_close(out, expected.reshape(B, L, H * D), 1e-5)


@pytest.mark.parametrize("invert_weight_scales", [False, True])
def test_bitlinear_packed_ternary_matmul_matches_the_unpacked_weights(mlx_lm, invert_weight_scales):
    in_features, out_features = 256, 24
    rng = np.random.default_rng(2)
    layer = mlx_lm["bitlinear_layers"].BitLinear(in_features, out_features, bias=True,
                                                 invert_weight_scales=invert_weight_scales)
    packed = rng.integers(0, 256, (out_features // 4, in_features), dtype=np.uint8)
    # Packed row r holds output rows r, r + out/4, r + out/2, r + 3 out/4 in its 2-bit fields, as value + 1.
    ternary = np.concatenate([((packed >> (2 * i)) & 3).astype(np.float32) - 1 for i in range(4)])
    layer.weight = mx.array(packed)
    layer.weight_scale = mx.array([0.5])
    layer.bias = normal(rng, out_features)
    x = normal(rng, 2, 3, in_features)
    scale = 2.0 if invert_weight_scales else 0.5
    expected = (x @ mx.array(ternary).T) * scale + layer.bias
    y = layer(x)
    assert y.shape == (2, 3, out_features)
    assert_close(y, expected, 1e-4)


@pytest.mark.parametrize("loss", ["kl_div_loss", "js_div_loss"])
def test_distillation_loss_kernels_race_on_threadgroup_memory(mlx_lm, loss):
    # mlx-lm's kl_forward/js_forward read the SIMD groups' maxima from `shared` after one barrier and
    # then write their sums into the same slots with no barrier between: a SIMD group that runs ahead
    # overwrites a maximum another has not read yet. A Mac usually gets away with it; metalsim
    # reports the race.
    losses = mlx_lm["losses"]
    rng = np.random.default_rng(3)
    logits_q, logits_p = normal(rng, 2, 4096 + 900), normal(rng, 2, 4096 + 900)
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="data race on threadgroup variable 'shared'") as caught:
        getattr(losses, loss)(logits_q, logits_p)
    assert {d["kind"] for d in caught.value.diagnostics} == {"data_race"}


def test_rwkv7_wkv_kernel_matches_the_step_by_step_ops(mlx_lm):
    rwkv7 = mlx_lm["rwkv7"]
    B, T, H, D = 1, 6, 2, 64
    rng = np.random.default_rng(4)
    r, k, v, a, b = (normal(rng, B, T, H, D, scale=0.5) for _ in range(5))
    w = mx.array(rng.uniform(0.8, 1.0, size=(B, T, H, D)).astype(np.float32))
    state = normal(rng, B, H, D, D, scale=0.1)
    y, new_state = rwkv7.wkv7_kernel(r, w, k, v, a, b, state)
    expected_state, ys = state, []
    for t in range(T):
        step_y, expected_state = rwkv7._wkv7_step_ops(r[:, t], w[:, t], k[:, t], v[:, t], a[:, t], b[:, t],
                                                      expected_state)
        ys.append(step_y)
    assert_close(y, mx.stack(ys, axis=1).reshape(y.shape), 1e-4)
    assert_close(new_state, expected_state, 1e-4)


@pytest.mark.parametrize("Dk, vectorized", [(128, False), (64, False), (64, True)], ids=["packed", "scalar", "vector"])
def test_gated_delta_kernels_match_the_ops_recurrence(mlx_lm, Dk, vectorized):
    gated_delta = mlx_lm["gated_delta"]
    B, T, Hk, Hv, Dv = 1, 5, 1, 2, 16
    rng = np.random.default_rng(5)
    q, k = (normal(rng, B, T, Hk, Dk, scale=Dk ** -0.5) for _ in range(2))
    v = normal(rng, B, T, Hv, Dv)
    g_shape = (B, T, Hv, Dk) if vectorized else (B, T, Hv)
    g = mx.array(rng.uniform(0.7, 1.0, size=g_shape).astype(np.float32))
    beta = mx.sigmoid(normal(rng, B, T, Hv))
    state = normal(rng, B, Hv, Dv, Dk, scale=0.1)
    y, new_state = gated_delta.gated_delta_kernel(q, k, v, g, beta, state)
    expected_y, expected_state = gated_delta.gated_delta_ops(q, k, v, g, beta, state)
    assert_close(y, expected_y, 1e-4)
    assert_close(new_state, expected_state, 1e-4)
    if Dk == 128:
        # mlx-lm pins its packed kernel bitwise to the explicit-tree one.
        tree_y, tree_state = gated_delta.gated_delta_kernel_xtree(q, k, v, g, beta, state)
        np.testing.assert_array_equal(np.array(y), np.array(tree_y))
        np.testing.assert_array_equal(np.array(new_state), np.array(tree_state))


def test_expert_routing_picks_the_top_k_biased_scores_and_weighs_the_unbiased_ones(newer_kernels):
    tokens, experts, top_k = 5, 40, 4  # 40 experts: lanes hold two scores, the second only for lanes < 8
    rng = np.random.default_rng(7)
    logits, bias = normal(rng, tokens, experts), normal(rng, experts, scale=0.1)
    inds, weights = newer_kernels["expert_routing"].expert_routing(logits, bias, top_k=top_k, multiplier=1.5,
                                                                   score_eps=1e-6, route_scale=2.0)
    score = mx.sigmoid(logits * 1.5)
    expected_inds = mx.argsort(-(score + bias), axis=-1)[:, :top_k]
    chosen = mx.take_along_axis(score, expected_inds, axis=-1)
    np.testing.assert_array_equal(np.array(inds), np.array(expected_inds))
    assert_close(weights, chosen / (chosen.sum(-1, keepdims=True) + 1e-6) * 2.0, 1e-5)


@pytest.mark.parametrize("offset", [5, "per_row"])
def test_qk_norm_rope_is_qk_norm_then_traditional_rope(newer_kernels, offset):
    B, L, HQ, HK, D = 2, 3, 4, 2, 64
    qkvg = normal(np.random.default_rng(8), B, L, 2 * (HQ + HK) * D)
    offsets = [5, 11] if offset == "per_row" else [5, 5]
    given = mx.array(offsets, dtype=mx.int32) if offset == "per_row" else offset
    q, k = newer_kernels["qk_norm_rope"].qk_norm_rope(qkvg, n_heads=HQ, n_kv_heads=HK, head_dim=D, eps=1e-6,
                                                      query_scale=0.125, rope_base=10000.0, offset=given)
    q_normed, k_normed = newer_kernels["qk_norm"].qk_norm(qkvg, n_heads=HQ, n_kv_heads=HK, head_dim=D, eps=1e-6,
                                                          query_scale=0.125)

    def rope(x):  # mx.fast.rope rotates the second-to-last axis's positions: (B, H, L, D), one batch row at a time
        rows = [mx.fast.rope(x[b : b + 1].transpose(0, 2, 1, 3), D, traditional=True, base=10000.0, scale=1.0,
                             offset=offsets[b]) for b in range(B)]
        return mx.concatenate(rows).transpose(0, 2, 1, 3)

    assert_close(q, rope(q_normed), 1e-5)
    assert_close(k, rope(k_normed), 1e-5)


@pytest.mark.parametrize("rows, k, d", [(3, 4, 256), (2, 2, 100), (1, 8, 2048)])
def test_post_expert_norm_combine_weighs_the_scaled_rms_norm_of_each_expert(newer_kernels, rows, k, d):
    rng = np.random.default_rng(9)
    experts, norm_weight = normal(rng, rows, k, d), normal(rng, d)
    weights = mx.array(rng.uniform(size=(rows, k)).astype(np.float32))
    out = newer_kernels["post_expert_norm_combine"].post_expert_norm_combine(experts, weights, norm_weight=norm_weight,
                                                                             eps=1e-5)
    # norm_weight scales each expert's input to the norm, as the kernel's comment says
    expected = (mx.fast.rms_norm(experts * norm_weight, None, 1e-5) * weights[..., None]).sum(-2)
    assert_close(out, expected, 1e-5)


def test_norm_add_norm_stream_and_its_pre_norm_agree(newer_kernels):
    rng = np.random.default_rng(10)
    branch, stream = normal(rng, 2, 3, 128), normal(rng, 2, 3, 128)
    alpha, beta, post_weight = normal(rng, 128), normal(rng, 128), normal(rng, 128)
    next_norm = nn.RMSNorm(128)
    next_norm.weight = normal(rng, 128)
    module = newer_kernels["norm_add_norm"]
    new_stream, normed = module.norm_add_norm(branch, stream, alpha=alpha, beta=beta, post_weight=post_weight,
                                              post_eps=1e-5, next_norm=next_norm)
    alone, _ = module.norm_add_norm(branch, stream, alpha=alpha, beta=beta, post_weight=post_weight, post_eps=1e-5,
                                    next_norm=None)
    assert new_stream.dtype == mx.float32 and normed.shape == branch.shape
    assert_close(new_stream, alone, 0.0)
    # the normed sum is next_norm of the new stream, as pre_norm computes it and as mlx.nn's RMSNorm does
    assert_close(module.pre_norm(new_stream, next_norm, dtype=mx.float32), normed, 0.0)
    assert_close(normed, next_norm(new_stream), 1e-5)


def test_kimi_attention_residual_mix_matches_its_ops_path(newer_kernels):
    kimi = newer_kernels["kimi_k3"]
    rng = np.random.default_rng(11)
    for dtype, tolerance in ((mx.float32, 1e-5), (mx.bfloat16, 2e-2)):
        blocks = kimi.ResidualBlocks(1e-6)
        for _ in range(3):
            blocks.append(normal(rng, 2, 3, 200, dtype=dtype))
        partial, w_eff = normal(rng, 2, 3, 200, dtype=dtype), normal(rng, 200, scale=0.1)
        # N, the rows, reaches the kernel as a Python int among its inputs
        out = kimi._attn_res_mix(blocks, partial, w_eff, 1e-6, use_kernel=True)
        assert out.dtype == dtype
        assert_close(out, kimi._attn_res_mix(blocks, partial, w_eff, 1e-6, use_kernel=False), tolerance)


def test_deepseek_sinkhorn_kernel_normalizes_as_the_loop_does(newer_kernels):
    comb = mx.softmax(normal(np.random.default_rng(12), 2, 5, 4, 4), axis=-1) + 1e-6
    eps = mx.array([1e-6], dtype=mx.float32)
    out = newer_kernels["deepseek_v41"]._sinkhorn(comb, iters=20, eps=eps)
    expected = comb / (comb.sum(axis=-2, keepdims=True) + eps)  # the columns, then rows and columns 19 times more
    for _ in range(19):
        expected = expected / (expected.sum(axis=-1, keepdims=True) + eps)
        expected = expected / (expected.sum(axis=-2, keepdims=True) + eps)
    assert_close(out, expected, 1e-6)
