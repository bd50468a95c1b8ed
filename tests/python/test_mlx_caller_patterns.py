"""More callers of mx.fast.metal_kernel as users write them: one kernel object reused across shapes,
dtypes and template values, fp16/bf16 arithmetic, integer hashing, uint8 images, 0-d and empty
arrays, strided layouts, scatter-adds with atomics, header helpers, a state fed back call after
call, a layer with a kernel forward and a custom VJP trained with an optimizer, and the stream
argument; each checked against numpy or MLX's own ops."""
import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
import pytest

import metalsim_mlx

SCALE_SHIFT_SOURCE = """
    uint i = thread_position_in_grid.x;
    if (i >= x_shape[0]) return;
    T v = x[i] * T(SCALE) + T(SHIFT);
    out[i] = CLAMP ? metal::max(v, T(0)) : v;
"""


def test_one_kernel_object_serves_every_shape_dtype_and_template_value(capsys):
    kernel = metalsim_mlx.metal_kernel(name="scale_shift", input_names=["x"], output_names=["out"],
                                       source=SCALE_SHIFT_SOURCE)
    seen_names = set()
    for dtype in (mx.float32, mx.float16, mx.bfloat16):
        for size in (1, 7, 300):
            for scale, clamp in ((2, False), (3, True)):
                x = mx.arange(size, dtype=mx.float32).astype(dtype) - 3
                (out,) = kernel(inputs=[x], template=[("T", dtype), ("SCALE", scale), ("SHIFT", 1), ("CLAMP", clamp)],
                                grid=(size, 1, 1), threadgroup=(64, 1, 1), output_shapes=[x.shape],
                                output_dtypes=[dtype], verbose=True)
                expected = np.array(x.astype(mx.float32)) * scale + 1
                if clamp:
                    expected = np.maximum(expected, 0)
                assert out.dtype == dtype and out.shape == (size,)
                np.testing.assert_allclose(np.array(out.astype(mx.float32)), expected, rtol=1e-2)
                printed = capsys.readouterr().out
                seen_names.add(printed.split("[[kernel]] void ")[1].split("(")[0])
    # MLX names each instantiation by its template values, dtypes and input kinds (7 or more
    # elements: device, fewer: constant), so every combination above is a kernel of its own.
    assert len(seen_names) == 3 * 2 * 2


def test_a_negative_template_int_fails_to_compile_as_on_a_mac():
    # MLX writes template values into the kernel's name: "-3" makes it no identifier, and Metal's
    # compiler refuses the library ("Unable to build metal library").
    kernel = metalsim_mlx.metal_kernel(name="scale_shift", input_names=["x"], output_names=["out"],
                                       source=SCALE_SHIFT_SOURCE)
    with pytest.raises(metalsim_mlx.MetalCompileError, match="template value -3 makes the kernel's name"):
        kernel(inputs=[mx.ones(8)], template=[("T", mx.float32), ("SCALE", -3), ("SHIFT", 1), ("CLAMP", False)],
               grid=(8, 1, 1), threadgroup=(8, 1, 1), output_shapes=[(8,)], output_dtypes=[mx.float32])


def test_shape_parameters_without_any_metal_attribute_break_the_signature_as_in_mlx():
    # MLX closes the parameter list after the output whose index is inputs + outputs - 1, counting the
    # _shape parameters among the indices: with no attribute after them, Metal's compiler refuses the
    # signature ("expected ';' at end of declaration"); naming any attribute in the body avoids it.
    source = "for (int i = 0; i < x_shape[0]; ++i) {{ first[i] = x[i]; second[i] = -x[i]; }}{}"
    definition = dict(name="no_attributes", input_names=["x"], output_names=["first", "second"])
    call = dict(inputs=[mx.arange(8, dtype=mx.float32)], grid=(1, 1, 1), threadgroup=(1, 1, 1),
                output_shapes=[(8,), (8,)], output_dtypes=[mx.float32, mx.float32])
    with pytest.raises(metalsim_mlx.MetalCompileError, match="expected ';' at end of declaration"):
        metalsim_mlx.metal_kernel(**definition, source=source.format(""))(**call)
    first, second = metalsim_mlx.metal_kernel(**definition, source=source.format("\n// thread_position_in_grid"))(**call)
    assert np.array(first).tolist() == list(range(8)) and np.array(second).tolist() == [-v for v in range(8)]


def test_half_and_bfloat_arithmetic_rounds_after_every_operation():
    source = """
        if (thread_position_in_grid.x != 0) return;
        half h = 0.0h;
        bfloat16_t b = bfloat16_t(0.0f);
        float f = 0.0f;
        for (int i = 0; i < x_shape[0]; ++i) {
            h += half(x[i]);
            b += bfloat16_t(x[i]);
            f += x[i];
        }
        sums_h[0] = h;
        sums_b[0] = b;
        sums_f[0] = f;
        // half * half stays half (overflows to inf); half * float is float.
        big[0] = half(60000.0h) * 2.0h;
        big[1] = half(half(60000.0h) * 2.0f);
        big[2] = float(half(60000.0h) * 2.0f) > 65504.0f ? 1.0h : 0.0h;
    """
    kernel = metalsim_mlx.metal_kernel(name="accumulate", input_names=["x"],
                                       output_names=["sums_h", "sums_b", "sums_f", "big"], source=source)
    x = np.full(1000, 0.1, np.float32)
    sums_h, sums_b, sums_f, big = kernel(
        inputs=[x], grid=(1, 1, 1), threadgroup=(1, 1, 1), output_shapes=[(1,), (1,), (1,), (3,)],
        output_dtypes=[mx.float16, mx.bfloat16, mx.float32, mx.float16],
    )
    expected_h, expected_b = np.float16(0), mx.array(0, dtype=mx.bfloat16)
    for value in x:
        expected_h = np.float16(expected_h + np.float16(value))
        expected_b = expected_b + mx.array(value).astype(mx.bfloat16)
    assert np.array(sums_h)[0] == expected_h != np.float16(100)  # the half sum stalls far below 100
    assert sums_b.item() == expected_b.item()
    np.testing.assert_allclose(np.array(sums_f), [100.0], rtol=1e-4)
    assert np.array(big).tolist() == [np.inf, np.inf, 1.0]


def test_unsigned_and_signed_integer_arithmetic_wraps_as_on_the_gpu():
    # A PCG-style hash (uint multiply/xor/shift) and a signed LCG that overflows int.
    source = """
        uint i = thread_position_in_grid.x;
        uint state = seeds[i] * 747796405u + 2891336453u;
        uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
        hashes[i] = (word >> 22u) ^ word;
        int s = int(seeds[i]);
        lcg[i] = s * 1103515245 + 12345;
        shifted[i] = int64_t(seeds[i]) << 33;
    """
    kernel = metalsim_mlx.metal_kernel(name="pcg", input_names=["seeds"], output_names=["hashes", "lcg", "shifted"],
                                       source=source)
    seeds = np.random.default_rng(4).integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    hashes, lcg, shifted = kernel(inputs=[mx.array(seeds)], grid=(256, 1, 1), threadgroup=(64, 1, 1),
                                  output_shapes=[(256,)] * 3, output_dtypes=[mx.uint32, mx.int32, mx.int64])
    with np.errstate(over="ignore"):
        state = seeds * np.uint32(747796405) + np.uint32(2891336453)
        word = ((state >> ((state >> np.uint32(28)) + np.uint32(4))) ^ state) * np.uint32(277803737)
        np.testing.assert_array_equal(np.array(hashes), (word >> np.uint32(22)) ^ word)
        expected_lcg = seeds.view(np.int32) * np.int32(1103515245) + np.int32(12345)
    np.testing.assert_array_equal(np.array(lcg), expected_lcg)
    np.testing.assert_array_equal(np.array(shifted), seeds.astype(np.int64) << 33)


def test_uint8_image_to_grayscale_mask_and_vector_repacking():
    source = """
        uint2 p = thread_position_in_grid.xy;
        uint W = img_shape[1];
        if (p.x >= W || p.y >= img_shape[0]) return;
        uint pixel = p.y * W + p.x;
        uchar3 rgb = uchar3(img[3 * pixel], img[3 * pixel + 1], img[3 * pixel + 2]);
        uint3 weighted = uint3(rgb) * uint3(77, 150, 29);  // BT.601 in 8-bit fixed point
        uchar g = uchar(min((weighted.x + weighted.y + weighted.z + 128u) >> 8, 255u));
        gray[pixel] = g;
        bright[pixel] = g > threshold;
        uchar4 packed = as_type<uchar4>(uint(g) * 0x01010101u);
        ((device uchar4*)rgba)[pixel] = uchar4(rgb, packed.w);
    """
    kernel = metalsim_mlx.metal_kernel(name="grayscale", input_names=["img", "threshold"],
                                       output_names=["gray", "bright", "rgba"], source=source)
    img = np.random.default_rng(5).integers(0, 256, (13, 21, 3), dtype=np.uint8)
    gray, bright, rgba = kernel(
        inputs=[mx.array(img), mx.array(128, dtype=mx.uint8)], grid=(21, 13, 1), threadgroup=(8, 8, 1),
        output_shapes=[(13, 21), (13, 21), (13, 21, 4)], output_dtypes=[mx.uint8, mx.bool_, mx.uint8],
    )
    expected = np.minimum((img.astype(np.uint32) @ np.array([77, 150, 29], np.uint32) + 128) >> 8, 255).astype(np.uint8)
    assert gray.dtype == mx.uint8 and bright.dtype == mx.bool_
    np.testing.assert_array_equal(np.array(gray), expected)
    np.testing.assert_array_equal(np.array(bright), expected > 128)
    np.testing.assert_array_equal(np.array(rgba), np.concatenate([img, expected[..., None]], -1))


def test_0d_outputs_and_empty_inputs_and_outputs():
    # A sum into a 0-d output; an empty input the kernel only measures; an empty output beside it.
    source = """
        uint i = thread_position_in_grid.x;
        // Outputs are pointers whatever their shape: a 0-d one is element 0.
        if (i < x_shape[0]) atomic_fetch_add_explicit(total, x[i], memory_order_relaxed);
        if (i == 0) atomic_store_explicit(&count[0], int(nothing_shape[0]) + int(nothing_shape[1]), memory_order_relaxed);
    """
    kernel = metalsim_mlx.metal_kernel(name="total", input_names=["x", "nothing"],
                                       output_names=["total", "count", "none"], source=source, atomic_outputs=True)
    x = mx.arange(100, dtype=mx.float32)
    total, count, none = kernel(
        inputs=[x, mx.zeros((0, 5), dtype=mx.float16)], grid=(128, 1, 1), threadgroup=(32, 1, 1),
        output_shapes=[(), (), (0, 3)], output_dtypes=[mx.float32, mx.int32, mx.float32], init_value=0,
    )
    assert total.shape == () and total.item() == 4950.0
    assert count.shape == () and count.item() == 5
    assert none.shape == (0, 3) and none.dtype == mx.float32


def test_atomic_bool_outputs_take_stores_and_compare_exchanges():
    # Metal's atomic<bool> has load, store, exchange and compare-exchange: a flag per row that any element above
    # the threshold raises, and the first thread to claim a row's marker.
    source = """
        uint i = thread_position_in_grid.x;
        uint row = i / x_shape[1];
        if (x[i] > 0.5f) atomic_store_explicit(&hot[row], true, memory_order_relaxed);
        bool expected = false;
        if (atomic_compare_exchange_weak_explicit(&claimed[row], &expected, true, memory_order_relaxed,
                                                  memory_order_relaxed))
          atomic_fetch_add_explicit(&claims[0], 1, memory_order_relaxed);
    """
    kernel = metalsim_mlx.metal_kernel(name="flags", input_names=["x"], output_names=["hot", "claimed", "claims"],
                                       source=source, atomic_outputs=True)
    x = mx.array(np.random.default_rng(4).uniform(0, 0.6, size=(6, 16)).astype(np.float32))
    hot, claimed, claims = kernel(inputs=[x], grid=(96, 1, 1), threadgroup=(32, 1, 1),
                                  output_shapes=[(6,), (6,), (1,)], output_dtypes=[mx.bool_, mx.bool_, mx.int32],
                                  init_value=0)
    assert hot.tolist() == (np.array(x) > 0.5).any(axis=1).tolist()
    assert claimed.tolist() == [True] * 6
    assert claims.item() == 6


def test_atomic_operands_of_another_type_are_converted_as_by_metal():
    # Metal's atomic functions take the operand as a type of its own (`template <typename T, typename U> ...
    # U operand`, converted to T): an int literal counts into an atomic_uint or atomic_float, a uint index maxes an
    # atomic_int, and an int is stored into or exchanged with an atomic_uint.
    source = """
        uint i = thread_position_in_grid.x;
        atomic_fetch_add_explicit(&count[0], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&total[0], 1, memory_order_relaxed);
        atomic_fetch_max_explicit(&largest[0], i, memory_order_relaxed);
        if (i == 0) atomic_store_explicit(&stored[0], 7, memory_order_relaxed);
        if (i == 0) atomic_exchange_explicit(&stored[1], 9, memory_order_relaxed);
        uint expected = 0;
        if (i == 3) atomic_compare_exchange_weak_explicit(&stored[2], &expected, 5, memory_order_relaxed,
                                                          memory_order_relaxed);
    """
    kernel = metalsim_mlx.metal_kernel(name="operands", input_names=["a"],
                                       output_names=["count", "total", "largest", "stored"], source=source,
                                       atomic_outputs=True)
    count, total, largest, stored = kernel(inputs=[mx.zeros(1)], grid=(100, 1, 1), threadgroup=(32, 1, 1),
                                           output_shapes=[(1,), (1,), (1,), (3,)],
                                           output_dtypes=[mx.uint32, mx.float32, mx.int32, mx.uint32], init_value=0)
    assert (count.item(), total.item(), largest.item(), stored.tolist()) == (100, 100.0, 99, [7, 9, 5])
    # Min and max stay int and uint only, whatever the operand.
    no_float_max = metalsim_mlx.metal_kernel(name="float_max", input_names=["a"], output_names=["out"],
                                             source="atomic_fetch_max_explicit(&out[0], 1, memory_order_relaxed);",
                                             atomic_outputs=True)
    with pytest.raises(metalsim_mlx.MetalCompileError, match="Metal has no atomic_fetch_max_explicit for atomic<float>"):
        no_float_max(inputs=[mx.zeros(1)], grid=(1, 1, 1), threadgroup=(1, 1, 1), output_shapes=[(1,)],
                     output_dtypes=[mx.float32])


def test_elem_to_loc_reads_broadcast_sliced_and_transposed_views():
    # A kernel that honours any layout (ensure_row_contiguous=False) gives what MLX's ops give.
    source = """
        uint i = thread_position_in_grid.x;
        if (i >= out_shape_0 * out_shape_1) return;
        auto a_at = elem_to_loc(i, a_shape, a_strides, a_ndim);
        auto b_at = elem_to_loc(i, b_shape, b_strides, b_ndim);
        out[i] = a[a_at] * b[b_at] + T(bias);
    """
    header = "constant constexpr uint out_shape_0 = 6;\nconstant constexpr uint out_shape_1 = 5;\n"
    kernel = metalsim_mlx.metal_kernel(name="fma_views", input_names=["a", "b", "bias"], output_names=["out"],
                                       source=source, header=header, ensure_row_contiguous=False)
    base = mx.arange(60, dtype=mx.float32).reshape(10, 6)
    layouts = [
        (base[::2].T, mx.broadcast_to(mx.array([1.0, -1.0, 2.0, 0.5, 3.0]), (6, 5))),
        (mx.broadcast_to(mx.arange(6, dtype=mx.float32)[:, None], (6, 5)), base[2:8, ::-1][:, :5]),
        (base.T[:6, :5].astype(mx.float16), base[:6, 1:6].astype(mx.float16)),
    ]
    for a, b in layouts:
        assert a.shape == b.shape == (6, 5)
        (out,) = kernel(inputs=[a, b, 0.5], template=[("T", a.dtype)], grid=(30, 1, 1), threadgroup=(16, 1, 1),
                        output_shapes=[(6, 5)], output_dtypes=[a.dtype])
        np.testing.assert_allclose(np.array(out.astype(mx.float32)), np.array((a * b + 0.5).astype(mx.float32)),
                                   rtol=1e-3)


def test_scatter_add_with_float_atomics_and_a_min_with_init_value():
    source = """
        uint i = thread_position_in_grid.x;
        if (i >= index_shape[0]) return;
        int row = index[i];
        for (int c = 0; c < C; ++c)
            atomic_fetch_add_explicit(&summed[row * C + c], values[i * C + c], memory_order_relaxed);
        atomic_fetch_min_explicit(&first[row], int(i), memory_order_relaxed);
    """
    kernel = metalsim_mlx.metal_kernel(name="scatter_add", input_names=["index", "values"],
                                       output_names=["summed", "first"], source=source, atomic_outputs=True)
    rng = np.random.default_rng(6)
    index = rng.integers(0, 10, 300).astype(np.int32)
    values = rng.integers(-8, 8, (300, 4)).astype(np.float32) / 4  # exact sums in any order
    summed, first = kernel(inputs=[index, values], template=[("C", 4)], grid=(300, 1, 1), threadgroup=(128, 1, 1),
                           output_shapes=[(10, 4), (10,)], output_dtypes=[mx.float32, mx.int32], init_value=1000)
    expected = np.full((10, 4), 1000, np.float32)
    np.add.at(expected, index, values)
    np.testing.assert_array_equal(np.array(summed), expected)
    np.testing.assert_array_equal(np.array(first), [np.flatnonzero(index == r).min(initial=1000) for r in range(10)])
    # The same scatter through MLX's own op.
    np.testing.assert_array_equal(np.array(summed), np.array(mx.full((10, 4), 1000.0).at[mx.array(index)].add(values)))


HEADER = """
#define TILE 4
namespace helpers {
struct Stats {
    float mean;
    float m2;
    int n;
    METAL_FUNC void add(float v) {
        n += 1;
        float d = v - mean;
        mean += d / n;
        m2 += d * (v - mean);
    }
    float variance() const { return n > 1 ? m2 / (n - 1) : 0.0f; }
};
template <typename T, int N>
METAL_FUNC void load_tile(const device T* src, thread float (&dst)[N]) {
    for (int i = 0; i < N; ++i) dst[i] = static_cast<float>(src[i]);
}
}  // namespace helpers
enum class Reduce : int { Mean = 0, Variance = 1 };
"""


def test_header_structs_namespaces_macros_and_templated_helpers():
    source = """
        uint row = thread_position_in_grid.x;
        helpers::Stats s = {0.0f, 0.0f, 0};
        for (int t = 0; t < x_shape[1] / TILE; ++t) {
            float tile[TILE];
            helpers::load_tile<T, TILE>(x + row * x_shape[1] + t * TILE, tile);
            for (float v : tile) s.add(v);
        }
        out[row] = MODE == int(Reduce::Mean) ? s.mean : s.variance();
    """
    kernel = metalsim_mlx.metal_kernel(name="welford", input_names=["x"], output_names=["out"], source=source,
                                       header=HEADER)
    x = np.random.default_rng(7).normal(size=(5, 24)).astype(np.float16)
    for mode, expected in ((0, x.astype(np.float64).mean(1)), (1, x.astype(np.float64).var(1, ddof=1))):
        (out,) = kernel(inputs=[x], template=[("T", mx.float16), ("MODE", mode)], grid=(5, 1, 1),
                        threadgroup=(5, 1, 1), output_shapes=[(5,)], output_dtypes=[mx.float32])
        np.testing.assert_allclose(np.array(out), expected, rtol=1e-4, atol=1e-5)


def test_lazy_graphs_around_a_state_fed_back_call_after_call():
    # A decode-style loop: each call's new state is the next call's input, built from lazy ops.
    source = """
        uint i = thread_position_in_grid.x;
        float s = state[i] * decay + float(x[i % x_shape[0]]);
        new_state[i] = s;
        y[i] = T(s * 0.5f);
    """
    kernel = metalsim_mlx.metal_kernel(name="recurrence", input_names=["state", "x", "decay"],
                                       output_names=["new_state", "y"], source=source)
    state, expected_state = mx.zeros((64,)), np.zeros(64, np.float32)
    ys = []
    for step in range(12):
        x = (mx.arange(16) * (step + 1)).astype(mx.bfloat16) / 8  # lazy until the call
        state, y = kernel(inputs=[state, x, mx.array(0.9)], template=[("T", mx.bfloat16)], grid=(64, 1, 1),
                          threadgroup=(32, 1, 1), output_shapes=[(64,), (64,)],
                          output_dtypes=[mx.float32, mx.bfloat16])
        ys.append(y)
        expected_state = expected_state * np.float32(0.9) + np.tile(np.array(x.astype(mx.float32)), 4)
    total = mx.stack(ys).astype(mx.float32).sum(0)  # lazy ops over the kernels' outputs
    mx.eval(total, state)
    np.testing.assert_allclose(np.array(state), expected_state, rtol=1e-5)
    np.testing.assert_allclose(np.array(ys[-1].astype(mx.float32)), expected_state * 0.5, rtol=1e-2)
    assert total.shape == (64,)


LINEAR_FORWARD = """
    uint2 p = thread_position_in_grid.xy;  // x: output feature, y: row
    uint n_in = x_shape[1], n_out = w_shape[0];
    if (p.x >= n_out || p.y >= x_shape[0]) return;
    float acc = 0.0f;
    for (uint k = 0; k < n_in; ++k) acc += x[p.y * n_in + k] * w[p.x * n_in + k];
    y[p.y * n_out + p.x] = metal::precise::tanh(acc);
"""
LINEAR_BACKWARD = """
    uint2 p = thread_position_in_grid.xy;  // x: input feature, y: row
    uint n_in = x_shape[1], n_out = w_shape[0];
    if (p.x >= n_in || p.y >= x_shape[0]) return;
    float gx = 0.0f;
    for (uint j = 0; j < n_out; ++j) {
        float t = y[p.y * n_out + j];
        float g = cotangent[p.y * n_out + j] * (1.0f - t * t);
        gx += g * w[j * n_in + p.x];
        atomic_fetch_add_explicit(&w_grad[j * n_in + p.x], g * x[p.y * n_in + p.x], memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&x_grad[p.y * n_in + p.x], gx, memory_order_relaxed);
"""


class TanhLinear(nn.Module):
    """tanh(x @ w.T) as a kernel pair: forward, and a custom VJP accumulating the weight gradient atomically."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = mx.random.normal((n_out, n_in), key=mx.random.key(8)) * 0.3
        forward = metalsim_mlx.metal_kernel(name="tanh_linear", input_names=["x", "w"], output_names=["y"],
                                            source=LINEAR_FORWARD)
        backward = metalsim_mlx.metal_kernel(name="tanh_linear_vjp", input_names=["x", "w", "y", "cotangent"],
                                             output_names=["x_grad", "w_grad"], source=LINEAR_BACKWARD,
                                             atomic_outputs=True)

        @mx.custom_function
        def apply(x, w):
            return forward(inputs=[x, w], grid=(w.shape[0], x.shape[0], 1), threadgroup=(8, 8, 1),
                           output_shapes=[(x.shape[0], w.shape[0])], output_dtypes=[mx.float32])[0]

        @apply.vjp
        def apply_vjp(primals, cotangent, output):
            x, w = primals
            return tuple(backward(inputs=[x, w, output, cotangent], grid=(x.shape[1], x.shape[0], 1),
                                  threadgroup=(8, 8, 1), output_shapes=[x.shape, w.shape],
                                  output_dtypes=[mx.float32, mx.float32], init_value=0))

        self._apply = apply

    def __call__(self, x):
        return self._apply(x, self.weight)


def test_a_layer_with_a_kernel_forward_and_vjp_trains_like_mlx_ops():
    rng = np.random.default_rng(9)
    x, target = mx.array(rng.normal(size=(12, 6)).astype(np.float32)), mx.array(rng.normal(size=(12, 3)).astype(np.float32))
    kernel_layer = TanhLinear(6, 3)
    reference = nn.Linear(6, 3, bias=False)
    reference.weight = mx.array(kernel_layer.weight)

    def train(model, activation):
        optimizer = optim.SGD(learning_rate=0.5)
        loss_and_grad = nn.value_and_grad(model, lambda m, x, t: ((activation(m(x)) - t) ** 2).mean())
        losses = []
        for _ in range(5):
            loss, grads = loss_and_grad(model, x, target)
            optimizer.update(model, grads)
            mx.eval(model.parameters())
            losses.append(loss.item())
        return losses

    kernel_losses = train(kernel_layer, lambda y: y)
    reference_losses = train(reference, mx.tanh)
    np.testing.assert_allclose(kernel_losses, reference_losses, rtol=1e-4)
    assert kernel_losses[-1] < kernel_losses[0]
    np.testing.assert_allclose(np.array(kernel_layer.weight), np.array(reference.weight), rtol=1e-4, atol=1e-5)
    # The input gradient too, through mx.grad of a plain function.
    x_grad = mx.grad(lambda x: (kernel_layer(x) * target).sum())(x)
    x_grad_ref = mx.grad(lambda x: (mx.tanh(reference(x)) * target).sum())(x)
    np.testing.assert_allclose(np.array(x_grad), np.array(x_grad_ref), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("stream", [mx.cpu, mx.Device(mx.cpu)], ids=["DeviceType", "Device"])
def test_an_explicit_cpu_device_is_refused_as_on_a_mac(stream):
    kernel = metalsim_mlx.metal_kernel(name="copy", input_names=["a"], output_names=["out"],
                                       source="out[thread_position_in_grid.x] = a[thread_position_in_grid.x];")
    with pytest.raises(ValueError, match=r"^\[metal_kernel\] Only supports the GPU\.$"):
        kernel(inputs=[mx.ones(4)], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(4, 1, 1),
               threadgroup=(4, 1, 1), stream=stream)
    # Unspecified, MLX picks the GPU even where the default device is the CPU, as in a mx.stream(mx.cpu) block.
    with mx.stream(mx.cpu):
        (out,) = kernel(inputs=[mx.ones(4)], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(4, 1, 1),
                        threadgroup=(4, 1, 1))
    assert np.array(out).tolist() == [1, 1, 1, 1]


def test_a_compiled_value_and_grad_through_a_kernel_layer_matches_eager():
    layer = TanhLinear(5, 4)
    x = mx.array(np.random.default_rng(10).normal(size=(6, 5)).astype(np.float32))
    loss_and_grad = nn.value_and_grad(layer, lambda x: (layer(x) ** 2).sum())
    eager_loss, eager_grads = loss_and_grad(x)
    compiled_loss, compiled_grads = mx.compile(loss_and_grad)(x)
    assert compiled_loss.item() == pytest.approx(eager_loss.item(), rel=1e-6)
    np.testing.assert_allclose(np.array(compiled_grads["weight"]), np.array(eager_grads["weight"]), rtol=1e-5)


def test_strides_of_views_are_the_ones_mlx_passes():
    kernel = metalsim_mlx.metal_kernel(
        name="strides", input_names=["a"], output_names=["out"], ensure_row_contiguous=False,
        source="uint i = thread_position_in_grid.x;\nif (i < uint(a_ndim)) out[i] = a_strides[i];",
    )
    base = mx.arange(12, dtype=mx.float32).reshape(3, 4)
    views = {(1, 4): base.T, (0, 1): mx.broadcast_to(mx.arange(4.0), (3, 4)), (4, 2): base[:, ::2]}
    for strides, view in views.items():
        (out,) = kernel(inputs=[view], grid=(2, 1, 1), threadgroup=(2, 1, 1), output_shapes=[(2,)],
                        output_dtypes=[mx.int64])
        assert tuple(out.tolist()) == strides
