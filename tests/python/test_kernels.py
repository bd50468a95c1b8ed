"""metalsim_mlx.metal_kernel runs MLX-style kernels and matches numpy / MLX's own ops."""
import os
import tempfile
import types

import mlx.core as mx
import numpy as np
import pytest

import metalsim_mlx


def run(source, inputs, output_shapes, output_dtypes, grid, threadgroup, input_names=None, **kwargs):
    names = input_names or [f"in{i}" for i in range(len(inputs))]
    factory = {k: kwargs.pop(k) for k in ("header", "ensure_row_contiguous", "atomic_outputs") if k in kwargs}
    kernel = metalsim_mlx.metal_kernel(
        name="t", input_names=names, output_names=[f"out{i}" for i in range(len(output_shapes))], source=source, **factory
    )
    return kernel(
        inputs=inputs, output_shapes=output_shapes, output_dtypes=output_dtypes, grid=grid, threadgroup=threadgroup, **kwargs
    )


EXP_SOURCE = """
    uint elem = thread_position_in_grid.x;
    T tmp = inp[elem];
    out[elem] = metal::exp(tmp);
"""


@pytest.mark.parametrize("dtype,tolerance", [(mx.float32, 1e-6), (mx.float16, 1e-3), (mx.bfloat16, 1e-2)])
def test_elementwise_exp_matches_mlx(dtype, tolerance):
    kernel = metalsim_mlx.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"], source=EXP_SOURCE)
    a = mx.random.normal(shape=(4, 100), key=mx.random.key(0)).astype(dtype)
    (out,) = kernel(
        inputs=[a],
        template=[("T", dtype)],
        grid=(a.size, 1, 1),
        threadgroup=(256, 1, 1),
        output_shapes=[a.shape],
        output_dtypes=[dtype],
    )
    assert isinstance(out, mx.array) and out.dtype == dtype and out.shape == a.shape
    assert mx.allclose(out, mx.exp(a), rtol=tolerance, atol=tolerance).item()


# One threadgroup per row: simd_max/simd_sum within SIMD groups, threadgroup memory and
# barriers across them; the row length comes from the x_shape helper.
SOFTMAX_SOURCE = """
    uint row = threadgroup_position_in_grid.x;
    uint lid = thread_position_in_threadgroup.x;
    uint n = x_shape[1];
    threadgroup float maxes[32];
    threadgroup float sums[32];
    const device T* in = x + row * n;

    float m = -INFINITY;
    for (uint i = lid; i < n; i += threads_per_threadgroup.x) m = max(m, float(in[i]));
    m = simd_max(m);
    if (thread_index_in_simdgroup == 0) maxes[simdgroup_index_in_threadgroup] = m;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    m = maxes[0];
    for (uint g = 1; g < simdgroups_per_threadgroup; ++g) m = max(m, maxes[g]);

    float s = 0.0;
    for (uint i = lid; i < n; i += threads_per_threadgroup.x) s += metal::exp(float(in[i]) - m);
    s = simd_sum(s);
    if (thread_index_in_simdgroup == 0) sums[simdgroup_index_in_threadgroup] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    s = 0.0;
    for (uint g = 0; g < simdgroups_per_threadgroup; ++g) s += sums[g];

    for (uint i = lid; i < n; i += threads_per_threadgroup.x) y[row * n + i] = T(metal::exp(float(in[i]) - m) / s);
"""


@pytest.mark.parametrize("rows,cols,threads", [(3, 1000, 256), (5, 33, 64), (2, 7, 32)])
def test_softmax_with_threadgroup_memory_and_simd_matches_numpy(rows, cols, threads):
    x = np.random.default_rng(rows).normal(size=(rows, cols)).astype(np.float32) * 4
    kernel = metalsim_mlx.metal_kernel(name="softmax", input_names=["x"], output_names=["y"], source=SOFTMAX_SOURCE)
    (y,) = kernel(
        inputs=[x],  # numpy arrays are accepted like mx.array
        template=[("T", mx.float32)],
        grid=(rows * threads, 1, 1),
        threadgroup=(threads, 1, 1),
        output_shapes=[x.shape],
        output_dtypes=[mx.float32],
    )
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.array(y), expected, rtol=1e-5, atol=1e-7)


def test_int_bool_and_dtype_template_arguments():
    source = """
        uint i = thread_position_in_grid.x;
        T v = T(a[i]) * T(SCALE);
        out0[i] = NEGATE ? -v : v;
    """
    a = mx.arange(8, dtype=mx.int32)
    for negate in (True, False):
        (out,) = run(
            source,
            [a],
            [(8,)],
            [mx.float16],
            (8, 1, 1),
            (8, 1, 1),
            input_names=["a"],
            template=[("T", mx.float16), ("SCALE", 3), ("NEGATE", negate)],
        )
        expected = np.arange(8) * 3 * (-1 if negate else 1)
        assert out.dtype == mx.float16
        np.testing.assert_array_equal(np.array(out), expected)


def test_shape_strides_and_ndim_helpers():
    source = """
        uint i = thread_position_in_grid.x;
        if (i < a_ndim) {
            out0[i] = a_shape[i];
            out1[i] = int(a_strides[i]);
        }
        if (i == 0) out2[0] = a_ndim;
    """
    a = mx.zeros((2, 3, 4))
    shape, strides, ndim = run(
        source, [a], [(3,), (3,), (1,)], [mx.int32] * 3, (3, 1, 1), (3, 1, 1), input_names=["a"]
    )
    assert np.array(shape).tolist() == [2, 3, 4]
    assert np.array(strides).tolist() == [12, 4, 1]
    assert np.array(ndim).tolist() == [3]


def test_elem_to_loc_reads_a_transposed_input_in_logical_order():
    source = """
        uint i = thread_position_in_grid.x;
        out0[i] = a[elem_to_loc(i, a_shape, a_strides, a_ndim)];
    """
    base = mx.arange(12, dtype=mx.float32).reshape(3, 4)
    (out,) = run(
        source, [base.T], [(4, 3)], [mx.float32], (12, 1, 1), (4, 1, 1), input_names=["a"], ensure_row_contiguous=False
    )
    np.testing.assert_array_equal(np.array(out), np.array(base).T)


@pytest.mark.parametrize("dtype", [mx.int8, mx.uint8, mx.int16, mx.uint16, mx.int32, mx.uint32, mx.int64, mx.uint64])
def test_integer_dtypes(dtype):
    source = """
        uint i = thread_position_in_grid.x;
        out0[i] = a[i] * T(2) + T(1);
    """
    a = mx.arange(10).astype(dtype)
    (out,) = run(source, [a], [(10,)], [dtype], (10, 1, 1), (4, 1, 1), input_names=["a"], template=[("T", dtype)])
    assert out.dtype == dtype
    np.testing.assert_array_equal(np.array(out), np.arange(10) * 2 + 1)


def test_bool_inputs_and_outputs():
    source = """
        uint i = thread_position_in_grid.x;
        out0[i] = !flags[i] && values[i] > 0.0;
    """
    flags = mx.array([True, False, False, True])
    values = mx.array([1.0, 2.0, -1.0, 3.0])
    (out,) = run(source, [flags, values], [(4,)], [mx.bool_], (4, 1, 1), (4, 1, 1), input_names=["flags", "values"])
    assert out.dtype == mx.bool_
    assert np.array(out).tolist() == [False, True, False, False]


def test_python_scalars_become_0d_inputs():
    source = """
        uint i = thread_position_in_grid.x;
        out0[i] = a[i] * scale + float(offset);
    """
    a = np.arange(6, dtype=np.float32)
    (out,) = run(source, [a, 2.5, 3], [(6,)], [mx.float32], (6, 1, 1), (6, 1, 1), input_names=["a", "scale", "offset"])
    np.testing.assert_allclose(np.array(out), np.arange(6) * 2.5 + 3)


def test_a_call_that_dev_shm_has_no_room_for_runs_in_the_temporary_folder(monkeypatch):
    """A container's /dev/shm is often 64 MiB: a call whose tensors do not fit there goes through the default temporary
    folder instead of failing to write them ('No space left on device')."""
    folders = []
    temporary_directory = tempfile.TemporaryDirectory
    monkeypatch.setattr(os, "statvfs", lambda path: types.SimpleNamespace(f_bavail=1, f_frsize=4096))
    monkeypatch.setattr(tempfile, "TemporaryDirectory", lambda **kw: folders.append(kw["dir"]) or temporary_directory(**kw))
    kernel = metalsim_mlx.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"], source=EXP_SOURCE)
    a = np.arange(4096, dtype=np.float32) / 4096
    (out,) = kernel(inputs=[a], template=[("T", mx.float32)], grid=(a.size, 1, 1), threadgroup=(256, 1, 1),
                    output_shapes=[a.shape], output_dtypes=[mx.float32])
    np.testing.assert_allclose(np.array(out), np.exp(a), rtol=1e-6)
    assert folders == [None]


def test_two_dimensional_grid_with_partial_threadgroups():
    source = """
        uint2 p = thread_position_in_grid.xy;
        out0[p.y * threads_per_grid.x + p.x] = p.x + 100 * p.y + 10000 * threadgroup_position_in_grid.x;
    """
    (out,) = run(source, [mx.zeros(1)], [(7, 10)], [mx.int32], (10, 7, 1), (4, 4, 1))
    x, y = np.meshgrid(np.arange(10), np.arange(7))
    np.testing.assert_array_equal(np.array(out), x + 100 * y + 10000 * (x // 4))


def test_atomic_outputs_with_init_value_build_a_histogram():
    source = """
        uint i = thread_position_in_grid.x;
        atomic_fetch_add_explicit(&hist[bins[i]], 1, memory_order_relaxed);
    """
    bins = np.random.default_rng(0).integers(0, 8, size=1000).astype(np.int32)
    kernel = metalsim_mlx.metal_kernel(
        name="histogram", input_names=["bins"], output_names=["hist"], source=source, atomic_outputs=True
    )
    (hist,) = kernel(
        inputs=[bins], output_shapes=[(8,)], output_dtypes=[mx.int32], grid=(1000, 1, 1), threadgroup=(128, 1, 1), init_value=0
    )
    np.testing.assert_array_equal(np.array(hist), np.bincount(bins, minlength=8))


def test_unwritten_outputs_hold_init_value_or_nan():
    source = """
        uint i = thread_position_in_grid.x;
        out0[i] = 1.0;
    """
    (filled,) = run(source, [mx.zeros(1)], [(8,)], [mx.float32], (4, 1, 1), (4, 1, 1), init_value=7)
    assert np.array(filled).tolist() == [1, 1, 1, 1, 7, 7, 7, 7]
    # Without init_value MLX leaves outputs uninitialized; metalsim fills them with 0xFF bytes.
    (garbage,) = run(source, [mx.zeros(1)], [(8,)], [mx.float32], (4, 1, 1), (4, 1, 1))
    assert np.isnan(np.array(garbage)[4:]).all()


def test_header_helpers_and_verbose_prints_the_generated_source(capsys):
    header = "inline float twice(float v) { return 2.0 * v; }\n"
    source = """
        uint i = thread_position_in_grid.x;
        out0[i] = twice(a[i]);
    """
    (out,) = run(
        source, [mx.array([1.0, 2.0])], [(2,)], [mx.float32], (2, 1, 1), (2, 1, 1), input_names=["a"], header=header, verbose=True
    )
    assert np.array(out).tolist() == [2.0, 4.0]
    printed = capsys.readouterr().out
    assert printed.startswith("Generated source code for `t`:\n```\n" + header)
    # Inputs under 8 elements are `constant` buffers, marked "c" in the kernel name (MLX).
    assert "[[kernel]] void custom_kernel_t_floatc_float(" in printed



@pytest.mark.parametrize(
    "dtype,finite_max", [(mx.float32, np.finfo(np.float32).max), (mx.float16, 65504.0), (mx.bfloat16, 3.3895313892515355e38)]
)
def test_mlx_limits_of_floating_types(dtype, finite_max):
    # MLX's utils: max/min are +-infinity, finite_max/finite_min the largest finite values (read-only constants).
    source = """
        out0[0] = Limits<T>::max; out0[1] = Limits<T>::min;
        out0[2] = Limits<T>::finite_max; out0[3] = Limits<T>::finite_min;
    """
    (out,) = run(source, [mx.zeros((1,))], [(4,)], [dtype], (1, 1, 1), (1, 1, 1), template=[("T", dtype)])
    values = np.array(out.astype(mx.float32))
    assert values[0] == np.inf and values[1] == -np.inf
    assert values[2] == np.float32(finite_max) and values[3] == -np.float32(finite_max)


def test_mlx_limits_of_integer_types():
    source = "out0[0] = Limits<int>::max; out0[1] = Limits<int>::min; out0[2] = Limits<uint>::max == 0xffffffffu;"
    (out,) = run(source, [mx.zeros((1,))], [(3,)], [mx.int32], (1, 1, 1), (1, 1, 1))
    assert np.array(out).tolist() == [2147483647, -2147483648, 1]


# Metal converts each component when a vector of one type is constructed from another, whatever names the type: an
# alias, `vec<T, N>` or a template parameter (clang's cast of a vector would reinterpret its bits).
CONVERSIONS_HEADER = """
template <typename V, typename U> inline V convert(U u) { return V(u); }
typedef int4 I4;
"""


@pytest.mark.parametrize(
    "declaration",
    [
        "I4 q = I4(f); float4 r = float4(q);",
        "using IV = vec<int, 4>; IV q = IV(f); float4 r = float4(q);",
        "int4 q = convert<int4>(f); float4 r = float4(q);",
        "float4 r = convert<float4>(int4(f));",
        "using V = vec<half, 4>; V h = V(f); float4 r = float4(h);",
        "typedef float4 F4; half4 h = half4(f); float4 r = F4(h);",
    ],
)
def test_vector_conversions_through_aliases_and_template_parameters_convert_each_component(declaration):
    source = f"""
        uint i = thread_position_in_grid.x;
        float4 f = float4(x[i], 2.0f, -1.0f, 3.0f);
        {declaration}
        ((device float4*)out0)[i] = r;
    """
    x = np.array([0.0, 1.0, -2.0, 7.0, 100.0, -5.0, 3.0, 9.0], np.float32)
    (out,) = run(source, [x], [(8, 4)], [mx.float32], (8, 1, 1), (8, 1, 1), input_names=["x"], header=CONVERSIONS_HEADER)
    np.testing.assert_array_equal(np.array(out), np.stack([x, np.full(8, 2.0), np.full(8, -1.0), np.full(8, 3.0)], 1))


def test_half_and_bfloat_compound_assignment_with_a_float_rounds_once():
    # Metal: h += f is half(float(h) + f); rounding f first gives 1000 for half 1000 + 0.2501 and 256 for bfloat
    # 256 + 1.00390625.
    source = """
        uint i = thread_position_in_grid.x;
        half h = half(a[i]);
        h += b[i];
        out0[i] = h;
        bfloat16_t z = bfloat16_t(a[i]);
        z += b[i];
        out1[i] = z;
    """
    a = np.array([1000.0, 256.0, 1024.0], np.float32)
    b = np.array([0.2501, 1.00390625, 0.50001], np.float32)
    out_h, out_b = run(source, [a, b], [(3,), (3,)], [mx.float16, mx.bfloat16], (3, 1, 1), (3, 1, 1), input_names=["a", "b"])
    np.testing.assert_array_equal(np.array(out_h), (a + b).astype(np.float16))
    expect_b = (mx.array(a) + mx.array(b)).astype(mx.bfloat16)
    np.testing.assert_array_equal(np.array(out_b.astype(mx.float32)), np.array(expect_b.astype(mx.float32)))


@pytest.mark.parametrize("dtype", [mx.float16, mx.bfloat16])
def test_half_and_bfloat_take_integer_operands(dtype):
    # The integer converts to the floating type: comparisons, arithmetic and `c ? v : 0` are T.
    source = """
        uint i = thread_position_in_grid.x;
        T v = x[i];
        out0[i] = (v < 1) + 2 * (v != 3u) + 4 * (2 <= v);
        out1[i] = (i & 1) ? v * 2 + 1 : 0;
    """
    x = (mx.arange(8) - 2).astype(dtype)
    flags, values = run(
        source, [x], [(8,), (8,)], [mx.int32, dtype], (8, 1, 1), (8, 1, 1), input_names=["x"], template=[("T", dtype)]
    )
    v = np.arange(8) - 2
    np.testing.assert_array_equal(np.array(flags), (v < 1) + 2 * (v != 3) + 4 * (v >= 2))
    np.testing.assert_array_equal(np.array(values.astype(mx.float32)), np.where(np.arange(8) & 1, v * 2 + 1, 0))


def test_packed_vector_components_by_name():
    # Metal 2.1 and later: .xyzw / .rgba select a packed vector's components; arithmetic is the aligned vector's.
    header = "struct Particle { packed_float3 pos; float mass; };\n"
    source = """
        uint i = thread_position_in_grid.x;
        Particle p = ((const device Particle*)parts)[i];
        p.pos.y += 1.0f;
        float3 twice = p.pos * 2.0f;
        out0[i] = p.mass * (p.pos.x + p.pos.g + p.pos.z) + twice.x;
    """
    parts = np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32)
    (out,) = run(source, [parts], [(6,)], [mx.float32], (6, 1, 1), (6, 1, 1), input_names=["parts"], header=header)
    expect = parts[:, 3] * (parts[:, 0] + parts[:, 1] + 1 + parts[:, 2]) + 2 * parts[:, 0]
    np.testing.assert_allclose(np.array(out), expect, rtol=1e-6)
