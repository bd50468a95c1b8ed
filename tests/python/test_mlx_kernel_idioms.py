"""Kernels written the way MLX's own Metal kernels and mlx-lm's custom kernels are: simdgroup-matrix and threadgroup
tiled matmuls, SIMD reductions and scans, a 4-bit quantized matvec, RoPE, RMSNorm and LayerNorm over bfloat16,
softmax with precise:: and fast:: exp, float and uint atomics, templates, header helpers, strided inputs, grids that
are no multiple of the threadgroup, constant tables, integer division and bit casts; each checked against numpy."""
import mlx.core as mx
import numpy as np
import pytest

import metalsim_mlx


def as_numpy(a):
    return np.array(a.astype(mx.float32))


def random(rng, *shape, dtype=mx.float32):
    return mx.array(rng.normal(size=shape).astype(np.float32)).astype(dtype)


SIMDGROUP_MATMUL = """
    // One SIMD group per 8x8 tile of C; tiles of A and B staged in threadgroup memory.
    threadgroup float a_tile[8 * 8];
    threadgroup float b_tile[8 * 8];
    const uint lane = thread_index_in_simdgroup;
    const uint row0 = threadgroup_position_in_grid.y * 8, col0 = threadgroup_position_in_grid.x * 8;
    simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint k0 = 0; k0 < K; k0 += 8) {
        for (uint e = lane; e < 64; e += 32) {
            uint r = e / 8, c = e % 8;
            a_tile[e] = A[(row0 + r) * K + k0 + c];
            b_tile[e] = B[(k0 + r) * N + col0 + c];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_float8x8 a, b;
        simdgroup_load(a, a_tile, 8);
        simdgroup_load(b, b_tile, 8);
        simdgroup_multiply_accumulate(acc, a, b, acc);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    simdgroup_store(acc, C + row0 * N + col0, N);
"""


def test_simdgroup_matrix_matmul_with_threadgroup_tiles():
    M, N, K = 24, 16, 40
    rng = np.random.default_rng(0)
    a, b = random(rng, M, K), random(rng, K, N)
    kernel = metalsim_mlx.metal_kernel(name="sg_matmul", input_names=["A", "B"], output_names=["C"],
                                       source=SIMDGROUP_MATMUL)
    (c,) = kernel(inputs=[a, b], template=[("K", K), ("N", N)], grid=(32 * N // 8, M // 8, 1),
                  threadgroup=(32, 1, 1), output_shapes=[(M, N)], output_dtypes=[mx.float32])
    np.testing.assert_allclose(as_numpy(c), np.array(a) @ np.array(b), rtol=1e-4, atol=1e-4)


TILED_MATMUL = """
    // 16x16 tiles; M, N and K need not be multiples of the tile: out-of-range elements load as zero.
    constexpr int TILE = 16;
    threadgroup T a_tile[TILE][TILE];
    threadgroup T b_tile[TILE][TILE];
    const uint tx = thread_position_in_threadgroup.x, ty = thread_position_in_threadgroup.y;
    const uint row = thread_position_in_grid.y, col = thread_position_in_grid.x;
    const uint M = A_shape[0], K = A_shape[1], N = B_shape[1];
    float acc = 0.0f;
    for (uint k0 = 0; k0 < K; k0 += TILE) {
        a_tile[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : T(0);
        b_tile[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : T(0);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (int k = 0; k < TILE; ++k) acc = fma(float(a_tile[ty][k]), float(b_tile[k][tx]), acc);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (row < M && col < N) C[row * N + col] = T(acc);
"""


@pytest.mark.parametrize("dtype, tolerance", [(mx.float32, 1e-4), (mx.float16, 2e-2)])
def test_threadgroup_tiled_matmul_over_a_ragged_grid(dtype, tolerance):
    M, N, K = 21, 19, 37
    rng = np.random.default_rng(1)
    a, b = random(rng, M, K, dtype=dtype), random(rng, K, N, dtype=dtype)
    kernel = metalsim_mlx.metal_kernel(name="tiled_matmul", input_names=["A", "B"], output_names=["C"],
                                       source=TILED_MATMUL)
    (c,) = kernel(inputs=[a, b], template=[("T", dtype)], grid=(32, 32, 1), threadgroup=(16, 16, 1),
                  output_shapes=[(M, N)], output_dtypes=[dtype])
    np.testing.assert_allclose(as_numpy(c), as_numpy(a) @ as_numpy(b), rtol=tolerance, atol=tolerance)


ROW_SUM = """
    // One threadgroup per row: simd_sum within each SIMD group, partials through threadgroup memory.
    threadgroup float partials[32];
    const uint row = threadgroup_position_in_grid.x, tid = thread_position_in_threadgroup.x;
    const uint n = x_shape[1];
    float acc = 0.0f;
    for (uint i = tid; i < n; i += threads_per_threadgroup.x) acc += x[row * n + i];
    acc = simd_sum(acc);
    if (thread_index_in_simdgroup == 0) partials[simdgroup_index_in_threadgroup] = acc;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simdgroup_index_in_threadgroup == 0) {
        float p = thread_index_in_simdgroup < simdgroups_per_threadgroup ? partials[thread_index_in_simdgroup] : 0.0f;
        p = simd_sum(p);
        if (thread_index_in_simdgroup == 0) out[row] = p;
    }
"""

ROW_MAX_SHUFFLE = """
    // A SIMD group per row, reduced with simd_shuffle_down.
    const uint row = threadgroup_position_in_grid.x, lane = thread_index_in_simdgroup;
    const uint n = x_shape[1];
    float m = -INFINITY;
    for (uint i = lane; i < n; i += 32) m = metal::max(m, x[row * n + i]);
    for (ushort offset = 16; offset > 0; offset /= 2) m = metal::max(m, simd_shuffle_down(m, offset));
    if (lane == 0) out[row] = m;
"""


def test_row_sum_with_simd_sum_and_row_max_with_shuffle_down():
    rng = np.random.default_rng(2)
    x = random(rng, 5, 1000)
    total = metalsim_mlx.metal_kernel(name="row_sum", input_names=["x"], output_names=["out"], source=ROW_SUM)
    (s,) = total(inputs=[x], grid=(5 * 256, 1, 1), threadgroup=(256, 1, 1), output_shapes=[(5,)],
                 output_dtypes=[mx.float32])
    np.testing.assert_allclose(as_numpy(s), np.array(x).sum(axis=1), rtol=1e-4, atol=1e-4)
    largest = metalsim_mlx.metal_kernel(name="row_max", input_names=["x"], output_names=["out"],
                                        source=ROW_MAX_SHUFFLE)
    (m,) = largest(inputs=[x], grid=(5 * 32, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(5,)],
                   output_dtypes=[mx.float32])
    np.testing.assert_array_equal(as_numpy(m), np.array(x).max(axis=1))


CUMSUM = """
    // An exclusive scan of each row of up to 1024 uint32: prefix sums per SIMD group, then of the groups' totals.
    threadgroup uint totals[32];
    const uint row = threadgroup_position_in_grid.x, tid = thread_position_in_threadgroup.x;
    const uint n = x_shape[1];
    const uint v = tid < n ? x[row * n + tid] : 0u;
    const uint within = simd_prefix_exclusive_sum(v);
    if (thread_index_in_simdgroup == 31) totals[simdgroup_index_in_threadgroup] = within + v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simdgroup_index_in_threadgroup == 0) {
        uint t = thread_index_in_simdgroup < simdgroups_per_threadgroup ? totals[thread_index_in_simdgroup] : 0u;
        totals[thread_index_in_simdgroup] = simd_prefix_exclusive_sum(t);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (tid < n) out[row * n + tid] = totals[simdgroup_index_in_threadgroup] + within;
"""


def test_exclusive_scan_with_simd_prefix_exclusive_sum():
    rng = np.random.default_rng(3)
    x = mx.array(rng.integers(0, 100, (3, 700)).astype(np.uint32))
    kernel = metalsim_mlx.metal_kernel(name="cumsum", input_names=["x"], output_names=["out"], source=CUMSUM)
    (out,) = kernel(inputs=[x], grid=(3 * 704, 1, 1), threadgroup=(704, 1, 1), output_shapes=[x.shape],
                    output_dtypes=[mx.uint32])
    expected = np.cumsum(np.array(x), axis=1) - np.array(x)
    np.testing.assert_array_equal(np.array(out), expected)


QMV_HEADER = """
// MLX's affine 4-bit quantization: 8 values per uint32, low nibble first; one scale and bias per group.
template <typename T>
METAL_FUNC float dequantize(uint32_t packed, uint k, T scale, T bias) {
    return float((packed >> (4 * k)) & 0xfu) * float(scale) + float(bias);
}
"""

QMV = """
    const uint row = threadgroup_position_in_grid.x, lane = thread_index_in_simdgroup;
    const uint in_features = x_shape[0];
    const uint words = in_features / 8, groups = in_features / GROUP;
    float acc = 0.0f;
    for (uint w = lane; w < words; w += 32) {
        const uint32_t packed = wq[row * words + w];
        const uint g = (w * 8) / GROUP;
        const T scale = scales[row * groups + g], bias = biases[row * groups + g];
        for (uint k = 0; k < 8; ++k) acc += dequantize(packed, k, scale, bias) * float(x[w * 8 + k]);
    }
    acc = simd_sum(acc);
    if (lane == 0) y[row] = T(acc);
"""


@pytest.mark.parametrize("dtype", [mx.float16, mx.bfloat16])
def test_four_bit_quantized_matvec_matches_mlx_dequantize(dtype):
    out_features, in_features, group = 12, 256, 64
    rng = np.random.default_rng(4)
    w = random(rng, out_features, in_features)
    wq, scales, biases = mx.quantize(w, group_size=group, bits=4)
    x = random(rng, in_features, dtype=dtype)
    kernel = metalsim_mlx.metal_kernel(name="qmv", input_names=["wq", "scales", "biases", "x"], output_names=["y"],
                                       header=QMV_HEADER, source=QMV)
    (y,) = kernel(inputs=[wq, scales.astype(dtype), biases.astype(dtype), x], template=[("T", dtype), ("GROUP", group)],
                  grid=(32 * out_features, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(out_features,)],
                  output_dtypes=[dtype])
    dequantized = mx.dequantize(wq, scales.astype(dtype), biases.astype(dtype), group_size=group, bits=4)
    expected = as_numpy(dequantized) @ as_numpy(x)
    np.testing.assert_allclose(as_numpy(y), expected, rtol=3e-2, atol=3e-2)


ROPE = """
    // Non-traditional RoPE: dimension d pairs with d + D/2; one thread per pair.
    const uint pair = thread_position_in_grid.x, pos = thread_position_in_grid.y, head = thread_position_in_grid.z;
    const uint D = x_shape[2], half_d = D / 2;
    if (pair >= half_d) return;
    const float inv_freq = metal::exp2(-float(pair) / float(half_d) * metal::log2(base));
    float sin_t, cos_t;
    sin_t = metal::sincos(float(pos + offset) * inv_freq, cos_t);
    const uint at = (head * x_shape[1] + pos) * D;
    const float a = float(x[at + pair]), b = float(x[at + pair + half_d]);
    out[at + pair] = T(a * cos_t - b * sin_t);
    out[at + pair + half_d] = T(a * sin_t + b * cos_t);
"""


def test_rope_matches_mlx_fast_rope():
    H, L, D = 2, 7, 16
    x = random(np.random.default_rng(5), H, L, D, dtype=mx.float16)
    kernel = metalsim_mlx.metal_kernel(name="rope", input_names=["x", "base", "offset"], output_names=["out"],
                                       source=ROPE)
    (out,) = kernel(inputs=[x, mx.array(10000.0), mx.array(3)], template=[("T", mx.float16)], grid=(D // 2, L, H),
                    threadgroup=(8, 4, 1), output_shapes=[x.shape], output_dtypes=[mx.float16])
    expected = mx.fast.rope(x[None], D, traditional=False, base=10000.0, scale=1.0, offset=3)[0]
    np.testing.assert_allclose(as_numpy(out), as_numpy(expected), rtol=2e-2, atol=2e-2)


NORM_HEADER = """
// The sum of v over the threadgroup, every thread getting it.
METAL_FUNC float threadgroup_sum(float v, threadgroup float* scratch, uint simd_lane, uint simd_group, uint groups) {
    v = simd_sum(v);
    if (simd_lane == 0) scratch[simd_group] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v = simd_lane < groups ? scratch[simd_lane] : 0.0f;
    v = simd_sum(v);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    return v;
}
"""

RMS_NORM = """
    threadgroup float scratch[32];
    const uint row = threadgroup_position_in_grid.x, tid = thread_position_in_threadgroup.x;
    const uint n = x_shape[1];
    float squares = 0.0f;
    for (uint i = tid; i < n; i += threads_per_threadgroup.x) {
        const float v = float(x[row * n + i]);
        squares += v * v;
    }
    const float total = threadgroup_sum(squares, scratch, thread_index_in_simdgroup, simdgroup_index_in_threadgroup,
                                        simdgroups_per_threadgroup);
    const float inv = metal::precise::rsqrt(total / float(n) + eps);
    for (uint i = tid; i < n; i += threads_per_threadgroup.x)
        out[row * n + i] = bfloat16_t(float(x[row * n + i]) * inv * float(w[i]));
"""

LAYER_NORM = """
    threadgroup float scratch[32];
    const uint row = threadgroup_position_in_grid.x, tid = thread_position_in_threadgroup.x;
    const uint n = x_shape[1];
    float sum = 0.0f;
    for (uint i = tid; i < n; i += threads_per_threadgroup.x) sum += float(x[row * n + i]);
    const uint lane = thread_index_in_simdgroup, group = simdgroup_index_in_threadgroup;
    const float mean = threadgroup_sum(sum, scratch, lane, group, simdgroups_per_threadgroup) / float(n);
    float var = 0.0f;
    for (uint i = tid; i < n; i += threads_per_threadgroup.x) {
        const float d = float(x[row * n + i]) - mean;
        var += d * d;
    }
    var = threadgroup_sum(var, scratch, lane, group, simdgroups_per_threadgroup) / float(n);
    const float inv = metal::rsqrt(var + 1e-5f);
    for (uint i = tid; i < n; i += threads_per_threadgroup.x)
        out[row * n + i] = bfloat(metal::fma((float(x[row * n + i]) - mean) * inv, float(w[i]), float(b[i])));
"""


def test_rms_norm_and_layer_norm_over_bfloat16_accumulate_in_float():
    rows, n = 3, 300
    rng = np.random.default_rng(6)
    x, w, b = random(rng, rows, n, dtype=mx.bfloat16), random(rng, n, dtype=mx.bfloat16), random(rng, n, dtype=mx.bfloat16)
    rms = metalsim_mlx.metal_kernel(name="rms_norm", input_names=["x", "w", "eps"], output_names=["out"],
                                    header=NORM_HEADER, source=RMS_NORM)
    (y,) = rms(inputs=[x, w, mx.array(1e-5)], grid=(rows * 128, 1, 1), threadgroup=(128, 1, 1),
               output_shapes=[x.shape], output_dtypes=[mx.bfloat16])
    np.testing.assert_allclose(as_numpy(y), as_numpy(mx.fast.rms_norm(x, w, 1e-5)), rtol=2e-2, atol=2e-2)
    layer = metalsim_mlx.metal_kernel(name="layer_norm", input_names=["x", "w", "b"], output_names=["out"],
                                      header=NORM_HEADER, source=LAYER_NORM)
    (z,) = layer(inputs=[x, w, b], grid=(rows * 96, 1, 1), threadgroup=(96, 1, 1), output_shapes=[x.shape],
                 output_dtypes=[mx.bfloat16])
    np.testing.assert_allclose(as_numpy(z), as_numpy(mx.fast.layer_norm(x, w, b, 1e-5)), rtol=3e-2, atol=3e-2)


SOFTMAX = """
    // A SIMD group per row; precise:: or fast:: exp by template.
    const uint row = threadgroup_position_in_grid.x, lane = thread_index_in_simdgroup;
    const uint n = x_shape[1];
    float m = -INFINITY;
    for (uint i = lane; i < n; i += 32) m = metal::max(m, x[row * n + i]);
    m = simd_max(m);
    float s = 0.0f;
    for (uint i = lane; i < n; i += 32) s += PRECISE ? metal::precise::exp(x[row * n + i] - m) : fast::exp(x[row * n + i] - m);
    s = simd_sum(s);
    for (uint i = lane; i < n; i += 32)
        out[row * n + i] = (PRECISE ? metal::precise::exp(x[row * n + i] - m) : metal::fast::exp(x[row * n + i] - m)) / s;
"""


@pytest.mark.parametrize("precise", [True, False])
def test_softmax_with_precise_and_fast_exp(precise):
    x = random(np.random.default_rng(7), 4, 77) * 4
    kernel = metalsim_mlx.metal_kernel(name="softmax", input_names=["x"], output_names=["out"], source=SOFTMAX)
    (y,) = kernel(inputs=[x], template=[("PRECISE", precise)], grid=(4 * 32, 1, 1), threadgroup=(32, 1, 1),
                  output_shapes=[x.shape], output_dtypes=[mx.float32])
    np.testing.assert_allclose(as_numpy(y), as_numpy(mx.softmax(x, axis=-1)), rtol=1e-5, atol=1e-6)


HISTOGRAM = """
    // Per-bin sums of weights and counts: device atomics on float and uint outputs.
    const uint i = thread_position_in_grid.x;
    if (i >= values_shape[0]) return;
    const uint bin = metal::min(uint(metal::clamp(values[i], 0.0f, 0.9999f) * float(BINS)), uint(BINS - 1));
    atomic_fetch_add_explicit(&sums[bin], weights[i], memory_order_relaxed);
    atomic_fetch_add_explicit(&counts[bin], 1u, memory_order_relaxed);
"""


def test_histogram_with_float_and_uint_atomics():
    rng = np.random.default_rng(8)
    n, bins = 1000, 8
    values = mx.array(rng.uniform(-0.1, 1.1, n).astype(np.float32))
    weights = mx.array(rng.uniform(0, 1, n).astype(np.float32))
    kernel = metalsim_mlx.metal_kernel(name="histogram", input_names=["values", "weights"],
                                       output_names=["sums", "counts"], source=HISTOGRAM, atomic_outputs=True)
    sums, counts = kernel(inputs=[values, weights], template=[("BINS", bins)], grid=(n, 1, 1), threadgroup=(128, 1, 1),
                          output_shapes=[(bins,), (bins,)], output_dtypes=[mx.float32, mx.uint32], init_value=0)
    index = np.minimum((np.clip(np.array(values), 0, 0.9999) * bins).astype(np.int64), bins - 1)
    np.testing.assert_array_equal(np.array(counts), np.bincount(index, minlength=bins))
    np.testing.assert_allclose(np.array(sums), np.bincount(index, weights=np.array(weights), minlength=bins), rtol=1e-5)


STRIDED_HEADER = """
// A helper with attributes, as MLX's headers write them.
template <typename T>
[[clang::always_inline]] inline T squared(T v) { return v * v; }
"""

STRIDED = """
    // x is a transposed view: its elements are found through x_shape and x_strides (elem_to_loc).
    const uint i = thread_position_in_grid.x;
    if (i >= out_shape_size) return;
    const auto loc = elem_to_loc(i, x_shape, x_strides, x_ndim);
    out[i] = squared(x[loc]);
"""


def test_strided_input_through_elem_to_loc_and_a_header_template():
    x = mx.arange(35, dtype=mx.float32).reshape(5, 7).T
    kernel = metalsim_mlx.metal_kernel(name="strided", input_names=["x"], output_names=["out"], header=STRIDED_HEADER,
                                       source=STRIDED.replace("out_shape_size", "35"), ensure_row_contiguous=False)
    (out,) = kernel(inputs=[x], grid=(40, 1, 1), threadgroup=(16, 1, 1), output_shapes=[(7, 5)],
                    output_dtypes=[mx.float32])
    np.testing.assert_array_equal(np.array(out), np.array(x) ** 2)


POLYNOMIAL_HEADER = """
constant float kCoefficients[4] = {1.0f, -0.5f, 0.25f, -0.125f};
"""

POLYNOMIAL = """
    // Horner over a constant table, a thread array holding the powers, metal::select/mix/clamp/fma.
    const uint i = thread_position_in_grid.x;
    if (i >= x_shape[0]) return;
    const float v = x[i];
    thread float powers[4];
    powers[0] = 1.0f;
    for (int k = 1; k < 4; ++k) powers[k] = powers[k - 1] * v;
    float horner = 0.0f;
    for (int k = 3; k >= 0; --k) horner = metal::fma(horner, v, kCoefficients[k]);
    float direct = 0.0f;
    for (int k = 0; k < 4; ++k) direct += kCoefficients[k] * powers[k];
    const float4 parts = float4(horner, direct, v, -v);
    const float4 clamped = metal::clamp(parts, float4(-2.0f), float4(2.0f));
    const float chosen = metal::select(clamped.w, clamped.z, v > 0.0f);
    const float4 result = float4(horner, direct, chosen, metal::mix(clamped.x, clamped.y, 0.25f));
    for (int k = 0; k < 4; ++k) out[4 * i + k] = result[k];
"""


def test_polynomial_over_a_constant_table_with_select_mix_clamp_fma():
    x = mx.array(np.linspace(-3, 3, 50).astype(np.float32))
    kernel = metalsim_mlx.metal_kernel(name="polynomial", input_names=["x"], output_names=["out"],
                                       header=POLYNOMIAL_HEADER, source=POLYNOMIAL)
    (out,) = kernel(inputs=[x], grid=(64, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(50, 4)],
                    output_dtypes=[mx.float32])
    v = np.array(x)
    poly = 1 - 0.5 * v + 0.25 * v ** 2 - 0.125 * v ** 3
    clamped_poly = np.clip(poly, -2, 2)
    expected = np.stack([poly, poly, np.where(v > 0, np.clip(v, -2, 2), np.clip(-v, -2, 2)),
                         clamped_poly * 0.75 + clamped_poly * 0.25], axis=1)
    np.testing.assert_allclose(np.array(out), expected, rtol=1e-5, atol=1e-5)


INTEGER_OPS = """
    // C's integer division and remainder (toward zero), shifts, and bit casts with as_type.
    const uint i = thread_position_in_grid.x;
    const int a = n[i], d = divisor[i];
    q[i] = a / d;
    r[i] = a % d;
    const uint u = as_type<uint>(f[i]);
    bits[i] = (u >> 23) & 0xffu;
    const half2 pair = as_type<half2>(u);
    halves[i] = float(pair.x) + float(pair.y);
"""


def test_integer_division_remainder_and_as_type():
    n = mx.array(np.array([-7, 7, -7, 7, -1, 100, -100, 0], dtype=np.int32))
    divisor = mx.array(np.array([2, -2, -2, 3, 5, 7, 7, 3], dtype=np.int32))
    f = mx.array(np.array([1.0, 2.0, 0.5, -3.0, 1e-3, 65504.0, 1.5, 0.0], dtype=np.float32))
    kernel = metalsim_mlx.metal_kernel(name="integer_ops", input_names=["n", "divisor", "f"],
                                       output_names=["q", "r", "bits", "halves"], source=INTEGER_OPS)
    q, r, bits, halves = kernel(inputs=[n, divisor, f], grid=(8, 1, 1), threadgroup=(8, 1, 1),
                                output_shapes=[(8,)] * 4, output_dtypes=[mx.int32, mx.int32, mx.uint32, mx.float32])
    a, d = np.array(n), np.array(divisor)
    np.testing.assert_array_equal(np.array(q), np.trunc(a / d).astype(np.int32))
    np.testing.assert_array_equal(np.array(r), np.fmod(a, d))
    raw = np.array(f).view(np.uint32)
    np.testing.assert_array_equal(np.array(bits), (raw >> 23) & 0xff)
    pairs = raw.view(np.float16).astype(np.float32).reshape(8, 2)
    np.testing.assert_array_equal(np.array(halves), pairs[:, 0] + pairs[:, 1])


def test_a_half_template_with_a_ragged_grid_and_a_conditional_of_half_and_float():
    source = """
        const uint i = thread_position_in_grid.x;
        if (i >= x_shape[0]) return;
        const T v = x[i];
        out[i] = v > T(0) ? v : 0.5f * v;  // half beside float: a float, as on a Mac
    """
    x = random(np.random.default_rng(9), 1000, dtype=mx.float16)
    kernel = metalsim_mlx.metal_kernel(name="leaky", input_names=["x"], output_names=["out"], source=source)
    (out,) = kernel(inputs=[x], template=[("T", mx.float16)], grid=(1000, 1, 1), threadgroup=(256, 1, 1),
                    output_shapes=[x.shape], output_dtypes=[mx.float32])
    v = as_numpy(x)
    np.testing.assert_array_equal(np.array(out), np.where(v > 0, v, 0.5 * v))


FLOAT_MAX_BY_COMPARE_EXCHANGE = """
    // A float maximum through compare-exchange on the output's bits, as kernels without float atomic max write it.
    const uint i = thread_position_in_grid.x;
    if (i >= x_shape[0]) return;
    const float v = x[i];
    device atomic_uint* slot = (device atomic_uint*)&out[0];
    uint seen = atomic_load_explicit(slot, memory_order_relaxed);
    while (as_type<float>(seen) < v && !atomic_compare_exchange_weak_explicit(slot, &seen, as_type<uint>(v),
                                                                              memory_order_relaxed,
                                                                              memory_order_relaxed)) {
    }
"""


def test_float_maximum_by_compare_exchange_on_the_bits():
    x = random(np.random.default_rng(10), 300)
    kernel = metalsim_mlx.metal_kernel(name="cas_max", input_names=["x"], output_names=["out"],
                                       source=FLOAT_MAX_BY_COMPARE_EXCHANGE, atomic_outputs=True)
    (out,) = kernel(inputs=[x], grid=(300, 1, 1), threadgroup=(64, 1, 1), output_shapes=[(1,)],
                    output_dtypes=[mx.float32], init_value=-1e30)
    assert np.array(out)[0] == np.array(x).max()


SHUFFLES = """
    const uint i = thread_position_in_grid.x, lane = thread_index_in_simdgroup;
    const float v = x[i];
    quads[i] = quad_sum(v);
    gathered[i] = simd_shuffle(v, (lane * 7) % 32);
    shifted[i] = simd_shuffle_up(v, 3);
    rotated[i] = simd_shuffle_rotate_down(v, 5);
    running[i] = simd_prefix_inclusive_sum(v);
"""


def test_quad_sum_shuffles_and_an_inclusive_scan():
    x = mx.arange(64, dtype=mx.float32)
    kernel = metalsim_mlx.metal_kernel(name="shuffles", input_names=["x"],
                                       output_names=["quads", "gathered", "shifted", "rotated", "running"],
                                       source=SHUFFLES)
    quads, gathered, shifted, rotated, running = kernel(inputs=[x], grid=(64, 1, 1), threadgroup=(64, 1, 1),
                                                         output_shapes=[(64,)] * 5, output_dtypes=[mx.float32] * 5)
    v = np.arange(64, dtype=np.float32)
    lane = np.arange(64) % 32
    first_lane = np.arange(64) - lane
    np.testing.assert_array_equal(np.array(quads), np.repeat(v.reshape(16, 4).sum(axis=1), 4))
    np.testing.assert_array_equal(np.array(gathered), v[first_lane + (lane * 7) % 32])
    np.testing.assert_array_equal(np.array(shifted), np.where(lane >= 3, v - 3, v))  # the first lanes keep theirs
    np.testing.assert_array_equal(np.array(rotated), v[first_lane + (lane + 5) % 32])
    np.testing.assert_array_equal(np.array(running), np.concatenate([np.cumsum(v[:32]), np.cumsum(v[32:])]))


BROADCAST_HEADER = """
template <typename T, int N> struct Vec { T v[N]; };
template <typename T, int N> METAL_FUNC Vec<T, N> load_vec(const device T* p) {
    Vec<T, N> r;
    for (int k = 0; k < N; ++k) r.v[k] = p[k];
    return r;
}
"""

BROADCAST = """
    // x is a row broadcast over 4 rows (stride 0): read through elem_to_loc_2, staged as half in a 2-D tile.
    const uint2 g = thread_position_in_grid.xy, t = thread_position_in_threadgroup.xy;
    threadgroup half tile[4][8];
    tile[t.y][t.x] = half(x[elem_to_loc_2(g, x_strides)]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const Vec<float, 2> pair = load_vec<float, 2>(y + 2 * g.x);
    out[g.y * threads_per_grid.x + g.x] = float(tile[t.y][t.x]) + pair.v[0] * pair.v[1];
"""


def test_a_broadcast_input_through_its_strides_and_a_struct_template():
    x = mx.broadcast_to(mx.arange(8, dtype=mx.float32)[None, :], (4, 8))
    y = mx.arange(16, dtype=mx.float32)
    kernel = metalsim_mlx.metal_kernel(name="broadcast", input_names=["x", "y"], output_names=["out"],
                                       header=BROADCAST_HEADER, source=BROADCAST, ensure_row_contiguous=False)
    (out,) = kernel(inputs=[x, y], grid=(8, 4, 1), threadgroup=(8, 4, 1), output_shapes=[(4, 8)],
                    output_dtypes=[mx.float32])
    pairs = np.arange(16, dtype=np.float32).reshape(8, 2)
    np.testing.assert_array_equal(np.array(out), np.tile(np.arange(8) + pairs[:, 0] * pairs[:, 1], (4, 1)))


OVERLOADED_HEADER = """
// One helper per address space, as Metal allows: overloads that differ in the space of their pointer only.
template <typename T> float sum4(const device T* p) { return float(p[0] + p[1] + p[2] + p[3]); }
template <typename T> float sum4(const threadgroup T* p) { return -float(p[0] + p[1] + p[2] + p[3]); }
"""

OVERLOADED = """
    threadgroup float tile[64];
    const uint i = thread_position_in_grid.x, t = thread_position_in_threadgroup.x;
    tile[t] = x[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[i] = t % 4 == 0 ? 2.0f * sum4(x + i) + sum4(tile + t) : 0.0f;  // twice the device sum, minus once
"""


def test_helpers_overloaded_by_address_space_pick_the_overload_of_their_argument():
    x = random(np.random.default_rng(11), 128)
    kernel = metalsim_mlx.metal_kernel(name="overloaded", input_names=["x"], output_names=["out"],
                                       header=OVERLOADED_HEADER, source=OVERLOADED)
    (out,) = kernel(inputs=[x], grid=(128, 1, 1), threadgroup=(64, 1, 1), output_shapes=[x.shape],
                    output_dtypes=[mx.float32])
    sums = np.array(x).reshape(32, 4).sum(axis=1)
    np.testing.assert_allclose(np.array(out), np.stack([sums, 0 * sums, 0 * sums, 0 * sums], axis=1).reshape(128),
                               rtol=1e-5, atol=1e-5)


def test_the_host_standard_library_is_a_compile_error_naming_the_line():
    source = """
        const uint i = thread_position_in_grid.x;
        out[i] = metal::min(x[i], std::numeric_limits<float>::max());
    """
    kernel = metalsim_mlx.metal_kernel(name="host_std", input_names=["x"], output_names=["out"], source=source)
    with pytest.raises(metalsim_mlx.MetalCompileError, match="body line 3.*namespace std does not exist in Metal"):
        kernel(inputs=[mx.ones(8)], grid=(8, 1, 1), threadgroup=(8, 1, 1), output_shapes=[(8,)],
               output_dtypes=[mx.float32])


GELU_HEADER = """
template <typename T> METAL_FUNC T gelu(T x) {
    const float v = float(x);
    return T(0.5f * v * (1.0f + metal::precise::tanh(0.7978845608f * (v + 0.044715f * v * v * v))));
}
"""

GELU = """
    const uint i = thread_position_in_grid.x;
    const T v = x[i];
    out[i] = gelu(v);
    largest[i] = simd_max(v);
    total[i] = simd_sum(float(v));
"""


@pytest.mark.parametrize("dtype", [mx.float16, mx.bfloat16])
def test_gelu_template_and_simd_reductions_of_half_and_bfloat(dtype):
    x = random(np.random.default_rng(12), 64, dtype=dtype)
    kernel = metalsim_mlx.metal_kernel(name="gelu", input_names=["x"], output_names=["out", "largest", "total"],
                                       header=GELU_HEADER, source=GELU)
    out, largest, total = kernel(inputs=[x], template=[("T", dtype)], grid=(64, 1, 1), threadgroup=(64, 1, 1),
                                 output_shapes=[(64,)] * 3, output_dtypes=[dtype, dtype, mx.float32])
    v = as_numpy(x)
    np.testing.assert_allclose(as_numpy(out), 0.5 * v * (1 + np.tanh(0.7978845608 * (v + 0.044715 * v ** 3))),
                               rtol=2e-2, atol=2e-2)
    np.testing.assert_array_equal(as_numpy(largest), np.repeat([v[:32].max(), v[32:].max()], 32))
    np.testing.assert_allclose(np.array(total), np.repeat([v[:32].sum(), v[32:].sum()], 32), rtol=1e-5, atol=1e-5)


THREADGROUP_HISTOGRAM = """
    // Per-threadgroup counts in threadgroup atomics, zeroed and read back around barriers.
    threadgroup atomic_int counts[16];
    const uint t = thread_position_in_threadgroup.x;
    if (t < 16) atomic_store_explicit(&counts[t], 0, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    atomic_fetch_add_explicit(&counts[x[thread_position_in_grid.x] & 15], 1, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (t < 16) out[threadgroup_position_in_grid.x * 16 + t] = atomic_load_explicit(&counts[t], memory_order_relaxed);
"""


def test_threadgroup_atomic_histogram():
    x = mx.array(np.random.default_rng(13).integers(0, 1000, 512).astype(np.int32))
    kernel = metalsim_mlx.metal_kernel(name="threadgroup_histogram", input_names=["x"], output_names=["out"],
                                       source=THREADGROUP_HISTOGRAM)
    (out,) = kernel(inputs=[x], grid=(512, 1, 1), threadgroup=(128, 1, 1), output_shapes=[(64,)],
                    output_dtypes=[mx.int32])
    expected = [np.bincount(row & 15, minlength=16) for row in np.array(x).reshape(4, 128)]
    np.testing.assert_array_equal(np.array(out), np.concatenate(expected))
