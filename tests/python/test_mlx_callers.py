"""Python callers written the way MLX users write them for mx.fast.metal_kernel (MLX's documented
examples, dtypes, layouts, launch shapes, Metal features and argument mistakes), run by
metalsim_mlx and checked against numpy."""
import warnings

import mlx.core as mx
import numpy as np
import pytest

import metalsim_mlx

# MLX's documentation: "Using Shapes and Strides".
STRIDED_EXP_SOURCE = """
    uint elem = thread_position_in_grid.x;
    // Utils from `mlx/backend/metal/kernels/utils.h` are automatically included
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    T tmp = inp[loc];
    // Output arrays are always row contiguous
    out[elem] = metal::exp(tmp);
"""


def test_documented_strided_exp_reads_a_sliced_half_input_as_float(capsys):
    kernel = metalsim_mlx.metal_kernel(
        name="myexp_strided", input_names=["inp"], output_names=["out"], source=STRIDED_EXP_SOURCE,
        ensure_row_contiguous=False,
    )
    a = mx.random.normal(shape=(4, 16), key=mx.random.key(1)).astype(mx.float16)[::2]
    (out,) = kernel(
        inputs=[a], template=[("T", mx.float32)], grid=(a.size, 1, 1), threadgroup=(256, 1, 1),
        output_shapes=[a.shape], output_dtypes=[a.dtype], verbose=True,
    )
    assert out.dtype == mx.float16 and out.shape == (2, 16)
    assert mx.allclose(out, mx.exp(a)).item()
    printed = capsys.readouterr().out
    assert "const constant int* inp_shape [[buffer(1)]]" in printed
    assert "uint3 thread_position_in_grid [[thread_position_in_grid]]" in printed


# MLX's documentation: "Grid Sample VJP", forward and backward kernels as documented; the bilinear
# corners and weights, the same text in both, are written once here.
BILINEAR_CORNERS = """    float ix = ((grid[grid_idx] + 1) * W - 1) / 2;
    float iy = ((grid[grid_idx + 1] + 1) * H - 1) / 2;

    int ix_nw = floor(ix);
    int iy_nw = floor(iy);

    int ix_ne = ix_nw + 1;
    int iy_ne = iy_nw;

    int ix_sw = ix_nw;
    int iy_sw = iy_nw + 1;

    int ix_se = ix_nw + 1;
    int iy_se = iy_nw + 1;

    T nw = (ix_se - ix)    * (iy_se - iy);
    T ne = (ix    - ix_sw) * (iy_sw - iy);
    T sw = (ix_ne - ix)    * (iy    - iy_ne);
    T se = (ix    - ix_nw) * (iy    - iy_nw);
"""

GRID_SAMPLE_SOURCE = """
    uint elem = thread_position_in_grid.x;
    int H = x_shape[1];
    int W = x_shape[2];
    int C = x_shape[3];
    int gH = grid_shape[1];
    int gW = grid_shape[2];

    int w_stride = C;
    int h_stride = W * w_stride;
    int b_stride = H * h_stride;

    uint grid_idx = elem / C * 2;
""" + BILINEAR_CORNERS + """
    int batch_idx = elem / C / gH / gW * b_stride;
    int channel_idx = elem % C;
    int base_idx = batch_idx + channel_idx;

    T I_nw = x[base_idx + iy_nw * h_stride + ix_nw * w_stride];
    T I_ne = x[base_idx + iy_ne * h_stride + ix_ne * w_stride];
    T I_sw = x[base_idx + iy_sw * h_stride + ix_sw * w_stride];
    T I_se = x[base_idx + iy_se * h_stride + ix_se * w_stride];

    I_nw = iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1 ? I_nw : 0;
    I_ne = iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1 ? I_ne : 0;
    I_sw = iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1 ? I_sw : 0;
    I_se = iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1 ? I_se : 0;

    out[elem] = nw * I_nw + ne * I_ne + sw * I_sw + se * I_se;
"""

GRID_SAMPLE_GRAD_SOURCE = """
    uint elem = thread_position_in_grid.x;
    int H = x_shape[1];
    int W = x_shape[2];
    int C = x_shape[3];
    // Pad C to the nearest larger simdgroup size multiple
    int C_padded = ceildiv(C, threads_per_simdgroup) * threads_per_simdgroup;

    int gH = grid_shape[1];
    int gW = grid_shape[2];

    int w_stride = C;
    int h_stride = W * w_stride;
    int b_stride = H * h_stride;

    uint grid_idx = elem / C_padded * 2;
""" + BILINEAR_CORNERS + """
    int batch_idx = elem / C_padded / gH / gW * b_stride;
    int channel_idx = elem % C_padded;
    int base_idx = batch_idx + channel_idx;

    T gix = T(0);
    T giy = T(0);
    if (channel_idx < C) {
        int cot_index = elem / C_padded * C + channel_idx;
        T cot = cotangent[cot_index];
        if (iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1) {
            int offset = base_idx + iy_nw * h_stride + ix_nw * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], nw * cot, memory_order_relaxed);

            T I_nw = x[offset];
            gix -= I_nw * (iy_se - iy) * cot;
            giy -= I_nw * (ix_se - ix) * cot;
        }
        if (iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1) {
            int offset = base_idx + iy_ne * h_stride + ix_ne * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], ne * cot, memory_order_relaxed);

            T I_ne = x[offset];
            gix += I_ne * (iy_sw - iy) * cot;
            giy -= I_ne * (ix - ix_sw) * cot;
        }
        if (iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1) {
            int offset = base_idx + iy_sw * h_stride + ix_sw * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], sw * cot, memory_order_relaxed);

            T I_sw = x[offset];
            gix -= I_sw * (iy - iy_ne) * cot;
            giy += I_sw * (ix_ne - ix) * cot;
        }
        if (iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1) {
            int offset = base_idx + iy_se * h_stride + ix_se * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], se * cot, memory_order_relaxed);

            T I_se = x[offset];
            gix += I_se * (iy - iy_nw) * cot;
            giy += I_se * (ix - ix_nw) * cot;
        }
    }

    T gix_mult = W / 2;
    T giy_mult = H / 2;

    // Reduce across each simdgroup first.
    // This is much faster than relying purely on atomics.
    gix = simd_sum(gix);
    giy = simd_sum(giy);

    if (thread_index_in_simdgroup == 0) {
        atomic_fetch_add_explicit(&grid_grad[grid_idx], gix * gix_mult, memory_order_relaxed);
        atomic_fetch_add_explicit(&grid_grad[grid_idx + 1], giy * giy_mult, memory_order_relaxed);
    }
"""

# The documented forward loads the four corners before testing whether they are inside the image;
# this one tests first, so no thread reads outside `x`.
GUARDED_GRID_SAMPLE_SOURCE = GRID_SAMPLE_SOURCE
for corner in ("nw", "ne", "sw", "se"):
    inside = f"iy_{corner} >= 0 && iy_{corner} <= H - 1 && ix_{corner} >= 0 && ix_{corner} <= W - 1"
    load = f"x[base_idx + iy_{corner} * h_stride + ix_{corner} * w_stride]"
    GUARDED_GRID_SAMPLE_SOURCE = GUARDED_GRID_SAMPLE_SOURCE.replace(
        f"T I_{corner} = {load};", f"T I_{corner} = {inside} ? {load} : T(0);"
    ).replace(f"I_{corner} = {inside} ? I_{corner} : 0;", "")


def numpy_grid_sample(x, grid):
    """Bilinear sampling with zero padding, align_corners=False (the kernels' convention)."""
    B, H, W, C = x.shape
    _, gN, gM, _ = grid.shape
    out = np.zeros((B, gN, gM, C), np.float64)
    for b, i, j in np.ndindex(B, gN, gM):
        ix = ((grid[b, i, j, 0] + 1) * W - 1) / 2
        iy = ((grid[b, i, j, 1] + 1) * H - 1) / 2
        x0, y0 = int(np.floor(ix)), int(np.floor(iy))
        for xx, yy in ((x0, y0), (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1)):
            if 0 <= xx < W and 0 <= yy < H:
                out[b, i, j] += (1 - abs(ix - xx)) * (1 - abs(iy - yy)) * x[b, yy, xx]
    return out


def grid_sample_op(forward_source):
    """The documented mx.custom_function pairing a forward kernel with the atomic VJP kernel."""
    forward = metalsim_mlx.metal_kernel(
        name="grid_sample", input_names=["x", "grid"], output_names=["out"], source=forward_source
    )
    backward = metalsim_mlx.metal_kernel(
        name="grid_sample_grad", input_names=["x", "grid", "cotangent"], output_names=["x_grad", "grid_grad"],
        source=GRID_SAMPLE_GRAD_SOURCE, atomic_outputs=True,
    )

    @mx.custom_function
    def grid_sample(x, grid):
        B, _, _, C = x.shape
        _, gN, gM, _ = grid.shape
        out_shape = (B, gN, gM, C)
        (out,) = forward(
            inputs=[x, grid], template=[("T", x.dtype)], output_shapes=[out_shape], output_dtypes=[x.dtype],
            grid=(np.prod(out_shape), 1, 1), threadgroup=(256, 1, 1),
        )
        return out

    @grid_sample.vjp
    def grid_sample_vjp(primals, cotangent, _):
        x, grid = primals
        B, _, _, C = x.shape
        _, gN, gM, _ = grid.shape
        c_padded = (C + 31) // 32 * 32  # one SIMD group per grid point, so the simd_sums do not mix points
        return tuple(backward(
            inputs=[x, grid, cotangent], template=[("T", x.dtype)], output_shapes=[x.shape, grid.shape],
            output_dtypes=[x.dtype, x.dtype], grid=(B * gN * gM * c_padded, 1, 1), threadgroup=(256, 1, 1),
            init_value=0,
        ))

    return grid_sample


def grid_sample_inputs(seed):
    keys = mx.random.split(mx.random.key(seed), 3)
    # Even H and W: the documented VJP scales by the integer divisions W / 2 and H / 2.
    x = mx.random.normal(shape=(2, 6, 4, 3), key=keys[0])
    grid = mx.random.uniform(low=-1, high=1, shape=(2, 3, 3, 2), key=keys[1])
    cotangent = mx.random.normal(shape=(2, 3, 3, 3), key=keys[2])
    return x, grid, cotangent


def test_documented_grid_sample_forward_reads_outside_x_warns_and_returns_what_a_mac_returns():
    # The documented kernel loads the four corners, then masks those outside the image: a Mac runs it and the
    # masked loads do not matter; here they warn (undefined behaviour in Metal) and the outputs come back.
    x, grid, _ = grid_sample_inputs(0)
    with pytest.warns(metalsim_mlx.MetalsimWarning, match="(?s)read of device buffer 'x'.*test the bounds before the load"):
        out = grid_sample_op(GRID_SAMPLE_SOURCE)(x, grid)
    xn, gn = (np.array(a, dtype=np.float64) for a in (x, grid))
    np.testing.assert_allclose(np.array(out), numpy_grid_sample(xn, gn), rtol=1e-5, atol=1e-5)
    # As an error where the caller asks for one.
    with warnings.catch_warnings():
        warnings.simplefilter("error", metalsim_mlx.MetalsimWarning)
        with pytest.raises(metalsim_mlx.MetalsimWarning):
            grid_sample_op(GRID_SAMPLE_SOURCE)(x, grid)


def test_writes_past_a_buffer_stay_errors_beside_reads():
    source = """
        uint i = thread_position_in_grid.x;
        float v = a[i + 1];
        out[i + 1] = i + 1 < a_shape[0] ? v : 0.0f;
    """
    kernel = metalsim_mlx.metal_kernel(name="shift", input_names=["a"], output_names=["out"], source=source)
    with pytest.raises(metalsim_mlx.MetalRuntimeError) as caught:
        kernel(inputs=[mx.arange(8, dtype=mx.float32)], grid=(8, 1, 1), threadgroup=(8, 1, 1),
               output_shapes=[(8,)], output_dtypes=[mx.float32])
    messages = [d["message"] for d in caught.value.diagnostics]
    assert any("write to device buffer 'out'" in m for m in messages), messages


def test_grid_sample_forward_and_atomic_vjp_match_numpy():
    x, grid, cotangent = grid_sample_inputs(0)
    grid_sample = grid_sample_op(GUARDED_GRID_SAMPLE_SOURCE)
    xn, gn, cn = (np.array(a, dtype=np.float64) for a in (x, grid, cotangent))
    (out,), (x_grad, grid_grad) = mx.vjp(grid_sample, [x, grid], [cotangent])
    np.testing.assert_allclose(np.array(out), numpy_grid_sample(xn, gn), rtol=1e-5, atol=1e-5)
    # The output is linear in x: d<out, cot>/dx[k] is the sampling of a one-hot image.
    expected_x_grad = np.zeros_like(xn)
    for k in range(xn.size):
        one_hot = np.zeros(xn.size)
        one_hot[k] = 1
        expected_x_grad.flat[k] = (numpy_grid_sample(one_hot.reshape(xn.shape), gn) * cn).sum()
    np.testing.assert_allclose(np.array(x_grad), expected_x_grad, rtol=1e-4, atol=1e-5)
    # grid: central differences (the sampling is piecewise bilinear; steps stay within a cell).
    eps, expected_grid_grad = 1e-4, np.zeros_like(gn)
    for k in range(gn.size):
        step = np.zeros(gn.size)
        step[k] = eps
        step = step.reshape(gn.shape)
        expected_grid_grad.flat[k] = (
            (numpy_grid_sample(xn, gn + step) - numpy_grid_sample(xn, gn - step)) * cn
        ).sum() / (2 * eps)
    np.testing.assert_allclose(np.array(grid_grad), expected_grid_grad, rtol=1e-3, atol=1e-3)
    # mx.grad goes through the same VJP.
    x_grad_again = mx.grad(lambda x: (grid_sample(x, grid) * cotangent).sum())(x)
    np.testing.assert_allclose(np.array(x_grad_again), np.array(x_grad), rtol=1e-6)


def test_several_outputs_of_different_dtypes():
    source = """
        uint i = thread_position_in_grid.x;
        total[i] = a[i] + b[i];
        product[i] = half(a[i] * b[i]);
        greater[i] = a[i] > b[i];
        halved[i] = int(a[i]) / 2;
        remainder[i] = uint(abs(b[i])) % 3u;
        difference[i] = bfloat16_t(a[i] - b[i]);
    """
    names = ["total", "product", "greater", "halved", "remainder", "difference"]
    kernel = metalsim_mlx.metal_kernel(name="several", input_names=["a", "b"], output_names=names, source=source)
    rng = np.random.default_rng(0)
    a, b = (rng.normal(size=100).astype(np.float32) * 10 for _ in range(2))
    outputs = kernel(
        inputs=[a, b], grid=(100, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(100,)] * 6,
        output_dtypes=[mx.float32, mx.float16, mx.bool_, mx.int32, mx.uint32, mx.bfloat16],
    )
    total, product, greater, halved, remainder, difference = (np.array(o.astype(mx.float32)) for o in outputs)
    assert [o.dtype for o in outputs] == [mx.float32, mx.float16, mx.bool_, mx.int32, mx.uint32, mx.bfloat16]
    np.testing.assert_allclose(total, a + b, rtol=1e-6)
    np.testing.assert_allclose(product, (a * b).astype(np.float16), rtol=1e-3)
    np.testing.assert_array_equal(greater, a > b)
    np.testing.assert_array_equal(halved, np.trunc(np.trunc(a) / 2))
    np.testing.assert_array_equal(remainder, np.trunc(np.abs(b)) % 3)
    np.testing.assert_allclose(difference, a - b, rtol=1e-2, atol=1e-2)


def test_scalar_and_0d_inputs_of_each_kind():
    source = """
        uint i = thread_position_in_grid.x;
        out[i] = a[i] * alpha + beta + float(n) + (flag ? 100.0f : 0.0f) + float(h);
    """
    kernel = metalsim_mlx.metal_kernel(
        name="scalars", input_names=["a", "alpha", "beta", "n", "flag", "h"], output_names=["out"], source=source
    )
    (out,) = kernel(
        inputs=[mx.arange(10, dtype=mx.float32), mx.array(2.0), 0.5, 3, True, mx.array(0.25, dtype=mx.float16)],
        grid=(10, 1, 1), threadgroup=(10, 1, 1), output_shapes=[(10,)], output_dtypes=[mx.float32],
    )
    np.testing.assert_array_equal(np.array(out), np.arange(10) * 2 + 0.5 + 3 + 100 + 0.25)


@pytest.mark.parametrize("row_contiguous", [True, False])
def test_transposed_and_broadcast_inputs(row_contiguous):
    # Row-contiguous copies are indexed flat; otherwise the kernel follows _shape/_strides.
    index = "i" if row_contiguous else "elem_to_loc(i, {0}_shape, {0}_strides, {0}_ndim)"
    source = f"""
        uint i = thread_position_in_grid.x;
        out[i] = a[{index.format("a")}] * 10.0f + b[{index.format("b")}];
    """
    kernel = metalsim_mlx.metal_kernel(
        name="layouts", input_names=["a", "b"], output_names=["out"], source=source,
        ensure_row_contiguous=row_contiguous,
    )
    a = mx.arange(12, dtype=mx.float32).reshape(3, 4).T
    b = mx.broadcast_to(mx.array([1.0, 2.0, 3.0]), (4, 3))
    (out,) = kernel(inputs=[a, b], grid=(12, 1, 1), threadgroup=(5, 1, 1), output_shapes=[(4, 3)],
                    output_dtypes=[mx.float32])
    np.testing.assert_array_equal(np.array(out), np.array(a) * 10 + np.array(b))


def test_3d_grid_with_int64_indexing_and_partial_threadgroups():
    source = """
        uint3 p = thread_position_in_grid;
        uint3 n = threads_per_grid;
        int64_t idx = int64_t(p.z) * n.y * n.x + int64_t(p.y) * n.x + p.x;
        out[idx] = a[idx] * 2 + int(threadgroup_position_in_grid.z) + 1000 * int(threads_per_threadgroup.z);
    """
    kernel = metalsim_mlx.metal_kernel(name="grid3d", input_names=["a"], output_names=["out"], source=source)
    a = mx.arange(7 * 6 * 5, dtype=mx.int32).reshape(7, 6, 5)
    (out,) = kernel(inputs=[a], grid=(5, 6, 7), threadgroup=(4, 4, 2), output_shapes=[a.shape],
                    output_dtypes=[mx.int32])
    z = np.arange(7)[:, None, None]
    np.testing.assert_array_equal(np.array(out), np.array(a) * 2 + z // 2 + 1000 * np.where(z < 6, 2, 1))


def test_simd_group_functions():
    source = """
        uint i = thread_position_in_grid.x;
        float v = a[i];
        sums[i] = simd_sum(v);
        below[i] = simd_shuffle_down(v, 1);
        before[i] = simd_prefix_exclusive_sum(v);
        ballot[i] = uint(uint64_t(simd_ballot(v > 0.0f)) & 0xffffffff);
        quads[i] = quad_sum(v);
        lanes[i] = thread_index_in_simdgroup + 100 * simdgroup_index_in_threadgroup;
    """
    names = ["sums", "below", "before", "ballot", "quads", "lanes"]
    kernel = metalsim_mlx.metal_kernel(name="simd", input_names=["a"], output_names=names, source=source)
    a = np.random.default_rng(1).normal(size=64).astype(np.float32)
    outputs = kernel(inputs=[a], grid=(64, 1, 1), threadgroup=(64, 1, 1), output_shapes=[(64,)] * 6,
                     output_dtypes=[mx.float32] * 3 + [mx.uint32, mx.float32, mx.uint32])
    sums, below, before, ballot, quads, lanes = (np.array(o).reshape(2, 32) for o in outputs)
    groups = a.reshape(2, 32)
    np.testing.assert_allclose(sums, np.repeat(groups.sum(1, keepdims=True), 32, 1), rtol=1e-5)
    # The last lane reads itself (Metal: shuffle_down past the group keeps the caller's value).
    np.testing.assert_array_equal(below, np.concatenate([groups[:, 1:], groups[:, 31:]], 1))
    np.testing.assert_allclose(before, np.cumsum(groups, 1) - groups, rtol=1e-5, atol=1e-6)
    masks = [sum(1 << lane for lane in range(32) if groups[g, lane] > 0) for g in range(2)]
    np.testing.assert_array_equal(ballot, np.repeat(np.array(masks, np.uint32)[:, None], 32, 1))
    np.testing.assert_allclose(quads.ravel(), np.repeat(a.reshape(16, 4).sum(1), 4), rtol=1e-5)
    np.testing.assert_array_equal(lanes.ravel(), np.arange(64) % 32 + 100 * (np.arange(64) // 32))


def test_threadgroup_tree_reduction_with_a_partial_last_threadgroup():
    source = """
        threadgroup float partial[256];
        uint lid = thread_position_in_threadgroup.x;
        uint gid = thread_position_in_grid.x;
        partial[lid] = gid < a_shape[0] ? a[gid] : 0.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint s = threads_per_threadgroup.x / 2; s > 0; s >>= 1) {
            if (lid < s) partial[lid] += partial[lid + s];
            threadgroup_barrier(mem_flags::mem_threadgroup);
        }
        if (lid == 0) out[threadgroup_position_in_grid.x] = partial[0];
    """
    kernel = metalsim_mlx.metal_kernel(name="tree", input_names=["a"], output_names=["out"], source=source)
    (out,) = kernel(inputs=[mx.arange(1000, dtype=mx.float32)], grid=(1024, 1, 1), threadgroup=(256, 1, 1),
                    output_shapes=[(4,)], output_dtypes=[mx.float32])
    np.testing.assert_array_equal(np.array(out), [np.arange(1000)[k * 256 : (k + 1) * 256].sum() for k in range(4)])


def test_math_namespaces_select_and_as_type():
    source = """
        uint i = thread_position_in_grid.x;
        float x = a[i];
        math[i] = metal::precise::exp(x) + fast::sin(x) + precise::sqrt(fabs(x)) + metal::fast::tanh(x);
        bits[i] = as_type<uint>(x);
        signs[i] = select(-1.0f, 1.0f, x > 0.0f);
        negated[i] = as_type<float>(as_type<uint>(x) ^ 0x80000000u);
    """
    kernel = metalsim_mlx.metal_kernel(
        name="math", input_names=["a"], output_names=["math", "bits", "signs", "negated"], source=source
    )
    x = np.linspace(-3, 3, 50).astype(np.float32)
    math, bits, signs, negated = kernel(
        inputs=[x], grid=(50, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(50,)] * 4,
        output_dtypes=[mx.float32, mx.uint32, mx.float32, mx.float32],
    )
    np.testing.assert_allclose(np.array(math), np.exp(x) + np.sin(x) + np.sqrt(np.abs(x)) + np.tanh(x), rtol=1e-5)
    np.testing.assert_array_equal(np.array(bits), x.view(np.uint32))
    np.testing.assert_array_equal(np.array(signs), np.where(x > 0, 1, -1))
    np.testing.assert_array_equal(np.array(negated), -x)


def test_vector_loads_and_half_vector_swizzles():
    source = """
        uint i = thread_position_in_grid.x;
        float4 v = ((const device float4*)a)[i];
        half4 h = half4(v);
        half2 low = h.xy, high = h.zw;
        h.xy = high;
        h.zw = low * 2.0h;
        ((device half4*)swapped)[i] = h.wzyx;
        packed_float3 p = packed_float3(v.x, v.y, v.z);
        sums[i] = p[0] + p[2] + dot(v, float4(1.0f));
    """
    kernel = metalsim_mlx.metal_kernel(
        name="vectors", input_names=["a"], output_names=["swapped", "sums"], source=source
    )
    swapped, sums = kernel(inputs=[mx.arange(32, dtype=mx.float32)], grid=(8, 1, 1), threadgroup=(8, 1, 1),
                           output_shapes=[(8, 4), (8,)], output_dtypes=[mx.float16, mx.float32])
    v = np.arange(32, dtype=np.float32).reshape(8, 4)
    h = np.concatenate([v[:, 2:], v[:, :2] * 2], 1)
    np.testing.assert_array_equal(np.array(swapped), h[:, ::-1])
    np.testing.assert_array_equal(np.array(sums), v[:, 0] + v[:, 2] + v.sum(1))


def test_atomic_outputs_add_max_and_a_compare_exchange_loop_on_floats():
    source = """
        uint i = thread_position_in_grid.x;
        atomic_fetch_add_explicit(&counts[values[i] % 4], 1, memory_order_relaxed);
        atomic_fetch_max_explicit(&largest[0], values[i], memory_order_relaxed);
        float scaled = float(values[i]) * 0.5f;
        float seen = atomic_load_explicit(&largest_scaled[0], memory_order_relaxed);
        while (scaled > seen && !atomic_compare_exchange_weak_explicit(
                   &largest_scaled[0], &seen, scaled, memory_order_relaxed, memory_order_relaxed)) {
        }
    """
    kernel = metalsim_mlx.metal_kernel(
        name="atomics", input_names=["values"], output_names=["counts", "largest", "largest_scaled"], source=source,
        atomic_outputs=True,
    )
    values = np.random.default_rng(2).integers(0, 1000, 500).astype(np.int32)
    counts, largest, largest_scaled = kernel(
        inputs=[values], grid=(500, 1, 1), threadgroup=(128, 1, 1), output_shapes=[(4,), (1,), (1,)],
        output_dtypes=[mx.int32, mx.int32, mx.float32], init_value=0,
    )
    np.testing.assert_array_equal(np.array(counts), np.bincount(values % 4, minlength=4))
    assert np.array(largest).tolist() == [values.max()]
    assert np.array(largest_scaled).tolist() == [values.max() * 0.5]


def test_threadgroup_atomics_and_lane_exchanges():
    source = """
        threadgroup atomic_int evens;
        uint lid = thread_index_in_threadgroup;
        if (lid == 0) atomic_store_explicit(&evens, 0, memory_order_relaxed);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        int v = a[thread_position_in_grid.x];
        if (v % 2 == 0) atomic_fetch_add_explicit(&evens, 1, memory_order_relaxed);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        mixed[thread_position_in_grid.x] =
            simd_shuffle_xor(v, 1u) + simd_broadcast(v, 3) + quad_shuffle(v, 0) + simd_prefix_inclusive_sum(v);
        if (lid == 0) counts[threadgroup_position_in_grid.x] = atomic_load_explicit(&evens, memory_order_relaxed);
    """
    kernel = metalsim_mlx.metal_kernel(name="lanes", input_names=["a"], output_names=["counts", "mixed"], source=source)
    a = np.arange(64, dtype=np.int32) * 3
    counts, mixed = kernel(inputs=[a], grid=(64, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(2,), (64,)],
                           output_dtypes=[mx.int32, mx.int32])
    groups = a.reshape(2, 32)
    np.testing.assert_array_equal(np.array(counts), (groups % 2 == 0).sum(1))
    lane = np.arange(32)
    expected = groups[:, lane ^ 1] + groups[:, 3:4] + groups[:, lane // 4 * 4] + np.cumsum(groups, 1)
    np.testing.assert_array_equal(np.array(mixed), expected.ravel())


def test_header_helpers_constant_tables_and_int_template():
    header = """
    template <typename T> inline T square(T x) { return x * x; }
    constant float kScale[3] = {1.0, 2.0, 3.0};
    """
    source = """
        uint i = thread_position_in_grid.x;
        out[i] = square(a[i]) * kScale[i % 3] + OFFSET;
    """
    kernel = metalsim_mlx.metal_kernel(name="header", input_names=["a"], output_names=["out"], source=source,
                                       header=header)
    (out,) = kernel(inputs=[mx.arange(9, dtype=mx.float32)], template=[("OFFSET", 7)], grid=(9, 1, 1),
                    threadgroup=(9, 1, 1), output_shapes=[(9,)], output_dtypes=[mx.float32])
    np.testing.assert_array_equal(np.array(out), np.arange(9) ** 2 * np.tile([1, 2, 3], 3) + 7)


def test_as_type_unpacks_half_pairs():
    source = """
        uint i = thread_position_in_grid.x;
        half2 pair = as_type<half2>(packed[i]);
        unpacked[2 * i] = float(pair.x);
        unpacked[2 * i + 1] = float(pair[1]);
        repacked[i] = as_type<uint>(pair.yx);
    """
    kernel = metalsim_mlx.metal_kernel(
        name="halfpairs", input_names=["packed"], output_names=["unpacked", "repacked"], source=source
    )
    halves = np.arange(16, dtype=np.float16) / 3
    unpacked, repacked = kernel(inputs=[mx.array(halves.view(np.uint32))], grid=(8, 1, 1), threadgroup=(8, 1, 1),
                                output_shapes=[(16,), (8,)], output_dtypes=[mx.float32, mx.uint32])
    np.testing.assert_array_equal(np.array(unpacked), halves.astype(np.float32))
    np.testing.assert_array_equal(np.array(repacked), halves.reshape(8, 2)[:, ::-1].copy().view(np.uint32).ravel())


def test_matrix_times_vector():
    source = """
        uint i = thread_position_in_grid.x;
        float2x2 rotate = float2x2(float2(0.0, 1.0), float2(-1.0, 0.0));  // columns
        float2 p = rotate * float2(a[2 * i], a[2 * i + 1]);
        out[2 * i] = p.x;
        out[2 * i + 1] = p.y;
    """
    kernel = metalsim_mlx.metal_kernel(name="rotate", input_names=["a"], output_names=["out"], source=source)
    (out,) = kernel(inputs=[mx.arange(8, dtype=mx.float32)], grid=(4, 1, 1), threadgroup=(4, 1, 1),
                    output_shapes=[(8,)], output_dtypes=[mx.float32])
    points = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_array_equal(np.array(out).reshape(4, 2), np.stack([-points[:, 1], points[:, 0]], 1))


def test_call_keywords_accept_lists_numpy_integers_and_a_stream():
    kernel = metalsim_mlx.metal_kernel("plus_one", ["a"], ["out"], "uint i = thread_position_in_grid.x;\nout[i] = a[i] + 1;")
    for stream in (None, mx.gpu, mx.default_stream(mx.default_device())):
        (out,) = kernel(inputs=[mx.zeros(4)], output_shapes=[[np.int64(4)]], output_dtypes=[mx.float32],
                        grid=[np.prod((2, 2)), 1, 1], threadgroup=[256, 1, 1], template=[], init_value=0.0,
                        stream=stream)
        assert np.array(out).tolist() == [1, 1, 1, 1]


def test_a_kernel_that_does_not_compile_raises_a_runtime_error_like_mlx():
    kernel = metalsim_mlx.metal_kernel(name="broken", input_names=["a"], output_names=["out"],
                                       source="uint i = thread_position_in_grid.x;\nout[i] = a[i] + missing;")
    with pytest.raises(RuntimeError, match="body line 2") as caught:
        kernel(inputs=[mx.zeros(4)], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(4, 1, 1),
               threadgroup=(4, 1, 1))
    assert isinstance(caught.value, metalsim_mlx.MetalCompileError)


# C++ and MSL that Metal's compiler refuses fail here too, as MLX's "Unable to build metal library" RuntimeError would.
@pytest.mark.parametrize(
    "header, source, message",
    [
        ("", "uint i = thread_position_in_grid.x;\nauto twice = [](float x) { return 2 * x; };\nout[i] = twice(a[i]);",
         r"body line 2, column \d+: error: lambda expressions are not supported in Metal"),
        ("inline float halve(float x, int n) {\n  return n == 0 ? x : halve(x / 2, n - 1);\n}\n",
         "uint i = thread_position_in_grid.x;\nout[i] = halve(a[i], 2);",
         r"header line 2, column \d+: error: recursive call: 'halve' calls itself; Metal has no recursion"),
        ("", "uint i = thread_position_in_grid.x;\ntry { out[i] = a[i]; } catch (...) {}",
         r"body line 2, column \d+: error: exceptions \(try/catch/throw\) are not supported in Metal"),
        ("", "threadgroup float s = 0.0f;\nuint i = thread_position_in_grid.x;\nout[i] = s + a[i];",
         r"body line 1, column \d+: error: a threadgroup variable cannot have an initializer in Metal \('s'\)"),
        ("inline float block_sum(float v, uint lid) {\n  threadgroup float buf[4];\n  buf[lid] = v;\n"
         "  threadgroup_barrier(mem_flags::mem_threadgroup);\n  return buf[0] + buf[1] + buf[2] + buf[3];\n}\n",
         "uint i = thread_position_in_grid.x;\nout[i] = block_sum(a[i], i);",
         r"header line 2, column \d+: error: variables in the threadgroup address space cannot be declared outside "
         r"the kernel function in Metal \('buf'\)"),
        ("", "uint i = thread_position_in_grid.x;\nout[i] = simd_sum(a[i] > 0.0f);",
         r"body line 2, column \d+: error: 'simd_sum<bool>' is unavailable: Metal's SIMD-group reductions take "
         r"scalars and vectors of numbers, not bool"),
        ("struct Pair { float a; int b; };\n",
         "uint i = thread_position_in_grid.x;\nPair p{a[i], 1};\nout[i] = simd_shuffle(p, 0).a;",
         r"body line 3, column \d+: error: 'simd_shuffle<Pair, int>' is unavailable: Metal's SIMD-group shuffles "
         r"and broadcasts take scalars and vectors, not structs"),
        ("", "threadgroup float tile[4];\nuint i = thread_position_in_grid.x;\nauto p = i < 2 ? tile : out;\n"
         "p[i] = a[i];",
         r"body line 3, column \d+: error: the operands of '\?:' point to different address spaces: 'tile' to "
         r"threadgroup memory, 'out' to device memory"),
        ("inline float twice(float v) { return 2.0f * v; }\n"
         "template <typename F> inline float apply(F f, float v) { return f(v); }\n",
         "uint i = thread_position_in_grid.x;\nout[i] = apply(twice, a[i]);",
         r"header line 2, column \d+: error: call through a function pointer: Metal has no function pointers"),
    ],
    ids=["lambda", "recursion", "exceptions", "threadgroup_initializer", "threadgroup_in_helper", "simd_sum_bool",
         "shuffle_struct", "conditional_across_spaces", "function_pointer"],
)
def test_cpp_that_metal_lacks_raises_a_compile_error_like_mlx(header, source, message):
    kernel = metalsim_mlx.metal_kernel(name="unsupported", input_names=["a"], output_names=["out"], header=header,
                                       source=source)
    with pytest.raises(RuntimeError, match=message) as caught:
        kernel(inputs=[mx.zeros(4)], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(4, 1, 1),
               threadgroup=(4, 1, 1))
    assert isinstance(caught.value, metalsim_mlx.MetalCompileError)


def test_without_row_contiguous_copies_a_kernel_ignoring_strides_reads_memory_order():
    # As on a Mac: MLX passes the view's memory unchanged, so flat indexing follows the storage.
    kernel = metalsim_mlx.metal_kernel(
        name="flat", input_names=["a"], output_names=["out"], ensure_row_contiguous=False,
        source="uint i = thread_position_in_grid.x;\nout[i] = a[i];",
    )

    def flat_copy(a):
        (out,) = kernel(inputs=[a], grid=(a.size, 1, 1), threadgroup=(32, 1, 1), output_shapes=[a.shape],
                        output_dtypes=[a.dtype])
        return np.array(out.astype(mx.float32)).ravel()

    base = mx.arange(32, dtype=mx.float32).reshape(4, 8)
    np.testing.assert_array_equal(flat_copy(base.T), np.arange(32))  # storage order, not base.T's
    np.testing.assert_array_equal(flat_copy(base.astype(mx.bfloat16).T), np.arange(32))
    np.testing.assert_array_equal(flat_copy(base[::2]), np.arange(16))  # the skipped row included
    # A broadcast view's memory holds 8 elements for its 32: flat reads past them are out of bounds, as on a Mac
    # (where they read whatever follows); metalsim warns with the line and returns the 8 it has.
    with pytest.warns(metalsim_mlx.MetalsimWarning, match=r"read of device buffer 'a' at element 8 .* at body line 2"):
        copied = flat_copy(mx.broadcast_to(mx.arange(8, dtype=mx.float32), (4, 8)))
    np.testing.assert_array_equal(copied[:8], np.arange(8))
