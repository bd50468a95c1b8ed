"""mx.fast.metal_kernel's contract, as MLX 0.32's sources define it (mlx/backend/common/metal_kernel.cpp,
python/src/fast.cpp): wrong calls raise what MLX raises, the generated signature types every input kind,
errors MLX raises at evaluation on a Mac, compile options, and the transforms around a kernel call."""
import struct
import subprocess
import sys

import mlx.core as mx
import numpy as np
import pytest

import metalsim_mlx

# On Linux MLX's own factory and kernels check and convert every argument, then stop with this error.
MLX_METAL_KERNEL = mx.fast.metal_kernel
NO_METAL = "[metal_kernel] No Metal back-end."
COPY = dict(name="copy", input_names=["a"], output_names=["out"],
            source="uint i = thread_position_in_grid.x;\nif (i < 4) out[i] = a[i];")
CALL = dict(inputs=[mx.zeros(4)], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(4, 1, 1),
            threadgroup=(4, 1, 1))
INCOMPATIBLE = r"^__call__\(\): incompatible function arguments"


def raised(function, *args, **kwargs):
    """(type, message) of what the call raises, None when it returns."""
    try:
        function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 -- any exception is the observation
        return type(error), str(error)
    return None


@pytest.mark.parametrize(
    "mistake, error, message",
    [
        (dict(inputs=mx.zeros(4)), ValueError, r"Expected `inputs` to have size 1 but got size 4\.\n$"),
        (dict(inputs=[[1.0, 2.0]]), ValueError, r"^Invalid type list received in array initialization\.$"),
        (dict(inputs=[None]), TypeError, INCOMPATIBLE),
        (dict(inputs=[2**70]), RuntimeError, r"bad_cast"),
        (dict(output_shapes=[4]), TypeError, INCOMPATIBLE),
        (dict(output_shapes=[(4.0,)]), TypeError, INCOMPATIBLE),
        (dict(output_dtypes=[mx.float32] * 2), ValueError, r"Expected `output_dtypes` to have size 1 but got size 2"),
        (dict(output_dtypes=[np.float32]), TypeError, INCOMPATIBLE),
        (dict(grid=(4, 1)), TypeError, INCOMPATIBLE),
        (dict(grid=(4.5, 1, 1)), TypeError, INCOMPATIBLE),
        (dict(threadgroup=(2**40, 1, 1)), TypeError, INCOMPATIBLE),
        (dict(template=("T", mx.float32)), TypeError, INCOMPATIBLE),
        (dict(template={"T": mx.float32}), TypeError, INCOMPATIBLE),
        (dict(template=[("T", 1.5)]), ValueError, r"^\[metal_kernel\] Invalid template argument\. Must be"),
        (dict(template=[("N", np.int32(4))]), ValueError, r"Invalid template argument"),
        (dict(template=[("T", np.float32)]), ValueError, r"Invalid template argument"),
        (dict(init_value="zero"), TypeError, INCOMPATIBLE),
        (dict(verbose=1), TypeError, INCOMPATIBLE),
        (dict(stream="gpu"), TypeError, INCOMPATIBLE),
        (dict(threads=(4, 1, 1)), TypeError, INCOMPATIBLE),
    ],
)
def test_wrong_calls_raise_what_mlx_raises(mistake, error, message):
    call = {**CALL, **mistake}
    expected = raised(MLX_METAL_KERNEL(**COPY), **call)
    assert expected is not None and expected[0] is error and expected[1] != NO_METAL
    assert raised(metalsim_mlx.metal_kernel(**COPY), **call) == expected
    with pytest.raises(error, match=message):
        metalsim_mlx.metal_kernel(**COPY)(**call)


@pytest.mark.parametrize(
    "mistake, error, message",
    [
        (dict(output_names=[]), ValueError, r"^\[metal_kernel\] Must specify at least one output\.$"),
        (dict(input_names="a"), TypeError, r"^metal_kernel\(\): incompatible function arguments"),
        (dict(header=None), TypeError, r"incompatible function arguments"),
        (dict(ensure_row_contiguous=1), TypeError, r"incompatible function arguments"),
        (dict(compile_options=[]), ValueError, r"Expected `compile_options` to be a dict\."),
        (dict(compile_options={"math_mode": "precise"}), ValueError, r"Expected math_mode to be 'safe', 'relaxed'"),
        (dict(compile_options={"unknown": "value"}), ValueError, r"Unknown compile option `unknown`\."),
    ],
)
def test_wrong_kernel_definitions_raise_what_mlx_raises(mistake, error, message):
    definition = {**COPY, **mistake}
    expected = raised(MLX_METAL_KERNEL, **definition)
    assert expected is not None and expected[0] is error
    assert raised(metalsim_mlx.metal_kernel, **definition) == expected
    with pytest.raises(error, match=message):
        metalsim_mlx.metal_kernel(**definition)


def test_calls_mlx_accepts_run():
    # Tuples for lists, numpy and mx.array integers for ints, mx.array and numpy values as init_value,
    # a stream (on Linux the default device's is a CPU one; a Mac's, a GPU one): MLX takes all of them.
    kernel = metalsim_mlx.metal_kernel(**COPY)
    (out,) = kernel(inputs=(np.arange(4, dtype=np.float32),), output_shapes=((np.int64(8),),),
                    output_dtypes=(mx.float32,), grid=[mx.array(4), 1, 1], threadgroup=(np.prod((2, 2)), 1, 1),
                    template=(), init_value=mx.array(-1.0), stream=mx.default_stream(mx.default_device()))
    assert np.array(out).tolist() == [0, 1, 2, 3, -1, -1, -1, -1]
    (out,) = kernel(inputs=[mx.ones(4)], output_shapes=[[4]], output_dtypes=[mx.float32], grid=(4, 1, 1),
                    threadgroup=(4, 1, 1), init_value=np.float32(0), stream=mx.gpu)
    assert np.array(out).tolist() == [1, 1, 1, 1]


def test_positional_call_arguments_are_refused_as_by_mlx():
    arguments = ([mx.zeros(4)], [(4,)], [mx.float32], (4, 1, 1), (4, 1, 1))
    with pytest.raises(TypeError, match=INCOMPATIBLE):
        metalsim_mlx.metal_kernel(**COPY)(*arguments)


# MLX's own test of every input kind (python/tests/test_fast.py, test_custom_kernel_args), with
# values that make each term visible.
ARGS_SOURCE = """
    uint elem = thread_position_in_grid.x;
    T tmp = a[0];
    if (e) {
        out1[elem] = a[1] + b[2] + c[3] + d + f;
    } else {
        out1[elem] = 1;
    }
    out2[elem] = a[1] + b[2] + c[1] - d;
"""
ARGS_NAME = "custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t"


def test_every_input_kind_is_typed_and_named_as_by_mlx(capsys):
    kernel = metalsim_mlx.metal_kernel(name="arg_test", input_names=["a", "b", "c", "d"],
                                       output_names=["out1", "out2"], source=ARGS_SOURCE)
    a = mx.arange(18, dtype=mx.float32).reshape(3, 6) / 4
    c = mx.array([[0.5, 1.5], [2.5, 3.5]], dtype=mx.bfloat16)
    out1, out2 = kernel(inputs=[a, mx.array([3, 4, 5]), c, 7.25], template=[("e", True), ("f", 3), ("T", mx.float16)],
                        grid=(6, 1, 1), threadgroup=(2, 1, 1), output_shapes=[(3, 2), (3, 2)],
                        output_dtypes=[mx.float32, mx.int32], verbose=True)
    assert (out1.shape, out1.dtype, out2.shape, out2.dtype) == ((3, 2), mx.float32, (3, 2), mx.int32)
    np.testing.assert_array_equal(np.array(out1), np.full((3, 2), 0.25 + 5 + 3.5 + 7.25 + 3))
    np.testing.assert_array_equal(np.array(out2), np.full((3, 2), int(0.25 + 5 + 1.5 - 7.25)))
    # 18 elements: device; under 8: constant ("c" in the name); 0-d: a constant reference ("s");
    # a bool template is written 1, as C++ streams it.
    expected = (
        "Generated source code for `arg_test`:\n```\n"
        "template <bool e, int f, typename T>\n"
        f"[[kernel]] void {ARGS_NAME}(\n"
        "  const device float* a [[buffer(0)]],\n"
        "  const constant int32_t* b [[buffer(1)]],\n"
        "  const constant bfloat16_t* c [[buffer(2)]],\n"
        "  const constant float& d [[buffer(3)]],\n"
        "  device float* out1 [[buffer(4)]],\n"
        "  device int32_t* out2 [[buffer(5)]],\n"
        "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n"
        f"{ARGS_SOURCE}\n}}\n\n"
        f'template [[host_name("{ARGS_NAME}")]] [[kernel]] decltype({ARGS_NAME}<1, 3, float16_t>) '
        f"{ARGS_NAME}<1, 3, float16_t>;\n\n```\n"
    )
    assert capsys.readouterr().out == expected


def source_mlx_records(tmp_path, definition, call):
    """The kernel source MLX itself generates, read back from an mx.export_function file (MLX records
    kernel calls there without Metal): the longest length-prefixed string holding a kernel."""
    kernel = MLX_METAL_KERNEL(**definition)
    path = tmp_path / "kernel.mlxfn"
    mx.export_function(str(path), lambda x: [out + x for out in kernel(**call)], mx.zeros(1))
    data, sources = path.read_bytes(), []
    for at in range(len(data) - 8):
        (size,) = struct.unpack_from("<Q", data, at)
        text = data[at + 8:at + 8 + size]
        if size <= len(data) - at - 8 and b"[[kernel]] void custom_kernel_" in text and text.endswith(b"\n"):
            sources.append(text)
    assert sources, "no kernel source found in MLX's export"
    return max(sources, key=len).decode()


EVERY_ATTRIBUTE = " ".join([
    "dispatch_quadgroups_per_threadgroup", "dispatch_simdgroups_per_threadgroup", "dispatch_threads_per_threadgroup",
    "grid_origin", "grid_size", "quadgroup_index_in_threadgroup", "quadgroups_per_threadgroup",
    "simdgroup_index_in_threadgroup", "simdgroups_per_threadgroup", "thread_execution_width",
    "thread_index_in_quadgroup", "thread_index_in_simdgroup", "thread_index_in_threadgroup", "thread_position_in_grid",
    "thread_position_in_threadgroup", "threadgroup_position_in_grid", "threadgroups_per_grid", "threads_per_grid",
    "threads_per_simdgroup", "threads_per_threadgroup",
])
ONE_THREAD = dict(grid=(1, 1, 1), threadgroup=(1, 1, 1))


@pytest.mark.parametrize(
    "definition, call",
    [
        (dict(name="attributes", input_names=["x", "y"], output_names=["o"], source=f"// {EVERY_ATTRIBUTE}\no[0] = x[0];"),
         dict(inputs=[mx.ones((3, 4)), mx.ones(2, dtype=mx.uint64)], output_shapes=[(1,)], output_dtypes=[mx.float32])),
        (dict(name="shapes", input_names=["x", "y", "z"], output_names=["o", "p"], atomic_outputs=True,
              source="// x_shape x_strides x_ndim y_ndim z_shape z_strides", header="using namespace metal;\n"),
         dict(inputs=[mx.ones((3, 4)), mx.ones((2, 2, 2, 2), dtype=mx.bfloat16), 3], output_shapes=[(1,), (2,)],
              output_dtypes=[mx.float32, mx.int32], template=[("T", mx.bfloat16), ("B", False), ("N", 7), ("U", mx.uint8)])),
        (dict(name="no_inputs", input_names=[], output_names=["o"], source="o[0] = A;", ensure_row_contiguous=False),
         dict(inputs=[], output_shapes=[(1,)], output_dtypes=[mx.int8], template=[("A", 1)])),
        (dict(name="small", input_names=["x"], output_names=["o"], source="o[thread_position_in_grid.x] = x[0];"),
         dict(inputs=[mx.ones(7, dtype=mx.int16)], output_shapes=[(1,)], output_dtypes=[mx.bool_])),
    ],
    ids=["attributes", "shapes", "no_inputs", "small"],
)
def test_generated_source_is_the_one_mlx_generates(tmp_path, capsys, definition, call):
    call = {**call, **ONE_THREAD}
    expected = source_mlx_records(tmp_path, definition, call)
    try:
        metalsim_mlx.metal_kernel(**definition)(**call, verbose=True)
    except metalsim_mlx.MetalsimError:
        pass  # only the printed source matters here (the body of "shapes" is not a working kernel)
    assert capsys.readouterr().out == f"Generated source code for `{definition['name']}`:\n```\n{expected}\n```\n"


@pytest.mark.parametrize(
    "value, declared, expected",
    [
        (True, "const constant bool& s", 1),
        (-7, "const constant int32_t& s", -7),
        (2**40 + 2**20, "const constant int64_t& s", 2**40 + 2**20),
        (2.5, "const constant float& s", 2.5),
        (np.float32(0.75), "const constant float& s", 0.75),
        (np.int16(-3), "const constant int16_t& s", -3),
        (mx.array(9, dtype=mx.uint8), "const constant uint8_t& s", 9),
    ],
)
def test_scalars_become_0d_inputs_of_mlx_dtypes(capsys, value, declared, expected):
    kernel = metalsim_mlx.metal_kernel(name="scalar", input_names=["s"], output_names=["out"],
                                       source="out[thread_position_in_grid.x] = float(s);")
    (out,) = kernel(inputs=[value], output_shapes=[(2,)], output_dtypes=[mx.float32], grid=(2, 1, 1),
                    threadgroup=(2, 1, 1), verbose=True)
    assert np.array(out).tolist() == [float(expected)] * 2
    assert declared + " [[buffer(0)]]" in capsys.readouterr().out


def test_shape_strides_and_ndim_are_not_passed_for_0d_inputs():
    kernel = metalsim_mlx.metal_kernel(name="ndim", input_names=["s"], output_names=["out"],
                                       source="out[0] = s_ndim;")
    with pytest.raises(metalsim_mlx.MetalCompileError, match="undeclared identifier 's_ndim'"):
        kernel(inputs=[1.0], output_shapes=[(1,)], output_dtypes=[mx.int32], grid=(1, 1, 1), threadgroup=(1, 1, 1))


@pytest.mark.parametrize("threadgroup, grid", [((2048, 1, 1), (4096, 1, 1)), ((32, 32, 2), (4, 4, 4))])
def test_a_threadgroup_over_1024_threads_raises_mlx_value_error_even_when_clamped_to_the_grid(threadgroup, grid):
    kernel = metalsim_mlx.metal_kernel(name="big", input_names=[], output_names=["out"], source="out[0] = 1;")
    threads = threadgroup[0] * threadgroup[1] * threadgroup[2]
    message = rf"^Thread group size \({threads}\) is greater than  the maximum allowed threads per threadgroup \(1024\)\.$"
    with pytest.raises(ValueError, match=message):
        kernel(inputs=[], output_shapes=[(1,)], output_dtypes=[mx.int32], grid=grid, threadgroup=threadgroup)


def test_float64_is_mlx_value_error_at_the_call_and_complex64_is_not_emulated():
    kernel = metalsim_mlx.metal_kernel(**COPY)
    # MLX (0.23 and later) refuses an array of a GPU primitive with a float64 input or output when it is made: on a
    # Mac the call itself raises ValueError, before any kernel is built.
    with pytest.raises(ValueError, match=r"^float64 is not supported on the GPU$"):
        kernel(**{**CALL, "inputs": [mx.zeros(4, dtype=mx.float64)]})
    with pytest.raises(ValueError, match=r"^float64 is not supported on the GPU$"):
        kernel(**{**CALL, "output_dtypes": [mx.float64]})
    # As a template dtype MLX writes `double` into the kernel, which Metal's compiler refuses.
    templated = metalsim_mlx.metal_kernel(name="cast", input_names=["a"], output_names=["out"],
                                          source="out[thread_position_in_grid.x] = T(a[thread_position_in_grid.x]);")
    with pytest.raises(metalsim_mlx.MetalCompileError, match="template argument 'T' has dtype float64"):
        templated(**{**CALL, "template": [("T", mx.float64)]})
    with pytest.raises(metalsim_mlx.MetalsimError, match="complex64_t; metalsim does not emulate that type"):
        kernel(**{**CALL, "inputs": [mx.zeros(4, dtype=mx.complex64)]})


def test_a_negative_output_dimension_is_an_error_naming_the_output():
    kernel = metalsim_mlx.metal_kernel(**COPY)
    with pytest.raises(ValueError, match=r"output 'out' has shape \(-4,\): a dimension is negative"):
        kernel(**{**CALL, "output_shapes": [(-4,)]})


@pytest.mark.parametrize("init_value", [float("-inf"), float("inf"), float("nan"), -np.float32(2.5)])
def test_init_value_fills_unwritten_outputs_even_when_not_finite(init_value):
    # A max over a partial write starts from -inf; the kernel writes only element 0.
    kernel = metalsim_mlx.metal_kernel(name="partial", input_names=["a"], output_names=["wide", "narrow"],
                                       source="wide[0] = a[0];\nnarrow[0] = a[0];")
    wide, narrow = kernel(inputs=[mx.array([7.0])], output_shapes=[(3,), (2, 2)],
                          output_dtypes=[mx.float32, mx.float16], grid=(1, 1, 1), threadgroup=(1, 1, 1),
                          init_value=init_value)
    np.testing.assert_array_equal(np.array(wide), [7.0, init_value, init_value])
    np.testing.assert_array_equal(np.array(narrow), np.array([[7.0, init_value], [init_value, init_value]], np.float16))


FAST_MATH_SOURCE = """
    #if defined(__FAST_MATH__) && __FAST_MATH__
    out[thread_position_in_grid.x] = 1.0f;
    #else
    out[thread_position_in_grid.x] = 0.0f;
    #endif
"""


@pytest.mark.parametrize("math_mode, expected", [(None, 0), ("safe", 0), ("relaxed", 0), ("fast", 1)])
def test_math_mode_fast_defines_fast_math_as_metal_does(math_mode, expected, capsys):
    options = None if math_mode is None else {"math_mode": math_mode}
    kernel = metalsim_mlx.metal_kernel(name="math_mode", input_names=[], output_names=["out"],
                                       source=FAST_MATH_SOURCE, header="// helpers\n", compile_options=options)
    (out,) = kernel(inputs=[], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(4, 1, 1),
                    threadgroup=(4, 1, 1), verbose=True)
    assert np.array(out).tolist() == [expected] * 4
    assert capsys.readouterr().out.startswith("Generated source code for `math_mode`:\n```\n// helpers\n[[kernel]]")


def test_header_lines_of_a_fast_math_kernel_are_counted_from_the_users_header():
    kernel = metalsim_mlx.metal_kernel(name="bad_header", input_names=[], output_names=["out"], source="out[0] = 1;",
                                       header="// first\nint broken(;\n", compile_options={"math_mode": "fast"})
    with pytest.raises(metalsim_mlx.MetalCompileError, match=r"header line 2, column"):
        kernel(inputs=[], output_shapes=[(1,)], output_dtypes=[mx.float32], grid=(1, 1, 1), threadgroup=(1, 1, 1))


def doubled_plus_one(kernel, a):
    (out,) = kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[a.dtype], grid=(a.size, 1, 1),
                    threadgroup=(a.size, 1, 1))
    return out + 1


DOUBLE = dict(name="double", input_names=["a"], output_names=["out"],
              source="uint i = thread_position_in_grid.x;\nout[i] = a[i] * 2;")


def test_a_kernel_call_runs_inside_mx_compile():
    kernel = metalsim_mlx.metal_kernel(**DOUBLE)
    compiled = mx.compile(lambda a: doubled_plus_one(kernel, a) * 3)
    a = mx.arange(8, dtype=mx.float32)
    np.testing.assert_array_equal(np.array(compiled(a)), (np.arange(8) * 2 + 1) * 3)


# mlx-lm's pattern: an lru_cache factory builds the kernel at the first call of a function under mx.compile, so the
# first kernel is built while mx.compile traces. A fresh interpreter: a kernel built earlier in this one would not be.
LAZY_KERNEL_UNDER_COMPILE = """
import functools
import mlx.core as mx, numpy as np, metalsim_mlx
metalsim_mlx.patch()

@functools.lru_cache(maxsize=None)
def make_kernel():
    return mx.fast.metal_kernel(name="double", input_names=["a"], output_names=["out"],
                                source="uint i = thread_position_in_grid.x;\\nout[i] = a[i] * 2;")

@mx.compile
def step(a):
    (out,) = make_kernel()(inputs=[a], output_shapes=[a.shape], output_dtypes=[a.dtype], grid=(a.size, 1, 1),
                           threadgroup=(a.size, 1, 1))
    return out + 1

for n in (8, 8, 5):
    np.testing.assert_array_equal(np.array(step(mx.arange(n, dtype=mx.float32))), np.arange(n) * 2 + 1)
"""


def test_a_kernel_first_built_while_mx_compile_traces_runs():
    done = subprocess.run([sys.executable, "-c", LAZY_KERNEL_UNDER_COMPILE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_vmap_through_a_kernel_raises_mlx_error():
    kernel = metalsim_mlx.metal_kernel(**DOUBLE)
    with pytest.raises(ValueError, match=r"^\[Primitive::vmap\] Not implemented for CustomKernel\.$"):
        mx.vmap(lambda row: doubled_plus_one(kernel, row))(mx.ones((3, 4)))


def test_gradients_through_a_kernel_raise_mlx_errors():
    kernel = metalsim_mlx.metal_kernel(**DOUBLE)
    a = mx.ones(4)
    with pytest.raises(ValueError, match=r"^\[Primitive::vjp\] Not implemented for CustomKernel\.$"):
        mx.grad(lambda x: doubled_plus_one(kernel, x).sum())(a)
    with pytest.raises(ValueError, match=r"^\[Primitive::jvp\] Not implemented for CustomKernel\.$"):
        mx.jvp(lambda x: doubled_plus_one(kernel, x), [a], [a])


def test_mx_export_function_records_mlx_own_kernel(tmp_path):
    # Exporting needs no Metal in MLX 0.32: the call is recorded, not run, as on a Mac.
    kernel = metalsim_mlx.metal_kernel(**DOUBLE)
    path = tmp_path / "double.mlxfn"
    mx.export_function(str(path), lambda a: doubled_plus_one(kernel, a), mx.ones(4))
    exported = path.read_bytes()
    assert b"CustomKernel" in exported and b"[[kernel]] void custom_kernel_double_floatc_float(" in exported
