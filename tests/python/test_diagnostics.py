"""Kernel defects and bad calls raise Python exceptions with metalsim's findings."""
import inspect
import warnings

import mlx.core as mx
import numpy as np
import pytest

import metalsim_mlx

COPY_SOURCE = """
    uint i = thread_position_in_grid.x;
    out[i] = a[i];
"""


def call(source, n=16, threadgroup=16, header="", grid=None, **kwargs):
    kernel = metalsim_mlx.metal_kernel(name="k", input_names=["a"], output_names=["out"], source=source, header=header)
    return kernel(
        inputs=[mx.arange(n, dtype=mx.float32)],
        output_shapes=[(n,)],
        output_dtypes=[mx.float32],
        grid=grid or (n, 1, 1),
        threadgroup=(threadgroup, 1, 1),
        **kwargs,
    )


def test_out_of_bounds_write_names_the_buffer_and_the_thread():
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="out_of_bounds") as caught:
        call("uint i = thread_position_in_grid.x;\nout[i + 1] = a[i];\n")
    (finding,) = caught.value.diagnostics
    assert finding["kind"] == "out_of_bounds" and finding["buffer"] == "out"
    assert finding["thread_position"] == [15, 0, 0]
    assert "write to device buffer 'out' at element 16" in str(caught.value)


def test_out_of_bounds_read_of_an_input_warns_as_a_mac_runs_it():
    # A Mac reads whatever lies past the buffer; here the read warns (MetalsimWarning) and the outputs come back,
    # the in-bounds elements right.
    with pytest.warns(metalsim_mlx.MetalsimWarning, match="read of device buffer 'a'"):
        (out,) = call("uint i = thread_position_in_grid.x;\nout[i] = a[i + 4];\n")
    np.testing.assert_array_equal(np.array(out)[:12], np.arange(4, 16, dtype=np.float32))


def test_writing_an_input_through_a_cast_is_an_error():
    # On a Mac the kernel would change the caller's array (MLX shares it); metalsim runs it on a copy and says so.
    source = "uint i = thread_position_in_grid.x;\ndevice float* x = (device float*)a;\nx[i] = 0.0f;\nout[i] = 1.0f;\n"
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="input_write") as caught:
        call(source)
    (finding,) = caught.value.diagnostics
    assert finding["buffer"] == "a" and "at body line 3" in finding["message"]


def test_misaligned_vector_read_is_an_error_not_a_crash():
    source = (
        "uint i = thread_position_in_grid.x;\nconst device float4* quads = (const device float4*)(a + 1);\n"
        "out[i] = i < 3 ? dot(quads[i], float4(1.0f)) : 0.0f;\n"
    )
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="misaligned_access: misaligned 16-byte read"):
        call(source)


def test_grid_larger_than_the_data_is_caught():
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="out_of_bounds") as caught:
        call(COPY_SOURCE, grid=(32, 1, 1))
    assert {d["buffer"] for d in caught.value.diagnostics} == {"a", "out"}


def test_compile_error_points_at_the_body_line():
    source = "uint i = thread_position_in_grid.x;\nfloat v = a[i];\nout[i] = v + undeclared_thing;\n"
    with pytest.raises(metalsim_mlx.MetalCompileError, match="body line 3") as caught:
        call(source)
    assert "undeclared_thing" in str(caught.value)
    assert any(m["file"] == "body" and m["line"] == 3 for m in caught.value.messages)
    # What MLX raises on a Mac, which callers match: a RuntimeError whose text starts with the same line.
    assert isinstance(caught.value, RuntimeError)
    assert str(caught.value).startswith("[metal::Device] Unable to build metal library from source\n")


def test_compile_error_points_at_the_header_line():
    header = "inline float helper(float x) {\n  return x * missing_in_header;\n}\n"
    with pytest.raises(metalsim_mlx.MetalCompileError, match="header line 2"):
        call("uint i = thread_position_in_grid.x;\nout[i] = helper(a[i]);\n", header=header)


def test_double_is_rejected_at_its_line():
    with pytest.raises(metalsim_mlx.MetalCompileError, match="body line 2"):
        call("uint i = thread_position_in_grid.x;\ndouble v = a[i];\nout[i] = v;\n")


@pytest.mark.parametrize("header", ["#include <cmath>\n", "#include <stdio.h>\n", "#include <cstdint>\n",
                                    "#include \"helpers.h\"\n"])
def test_a_header_metal_does_not_have_is_not_found(header):
    # A Mac's Metal compiler has its own headers only (<metal_stdlib>, <metal_math>, ...), not the host's C++ library.
    name = header.split()[1][1:-1]
    with pytest.raises(metalsim_mlx.MetalCompileError, match=f"header line 1, column 10: error: '{name}' file not found"):
        call(COPY_SOURCE, header=header)


def test_metal_headers_are_included():
    (out,) = call(COPY_SOURCE, header="#include <metal_stdlib>\n#include <metal_simdgroup>\nusing namespace metal;\n")
    np.testing.assert_array_equal(np.array(out), np.arange(16, dtype=np.float32))


def test_what_a_kernel_prints_does_not_reach_the_result():
    # Host code the emulator runs could print into the protocol with ksearch-metalsim; its stdout is the result's only.
    source = 'uint i = thread_position_in_grid.x;\nif (i == 0) __builtin_printf("{\\"ok\\": false}\\n");\nout[i] = a[i];\n'
    (out,) = call(source)
    np.testing.assert_array_equal(np.array(out), np.arange(16, dtype=np.float32))


def test_abort_is_named_as_such():
    source = "uint i = thread_position_in_grid.x;\nif (i == 3) __builtin_abort();\nout[i] = a[i];\n"
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match=r"crashed \(SIGABRT\) .*: the kernel called abort\(\)"):
        call(source)


@pytest.mark.parametrize("name", ["kernel", "half", "thread"])
def test_an_input_named_with_a_metal_keyword_does_not_compile(name):
    kernel = metalsim_mlx.metal_kernel(name="k", input_names=[name], output_names=["out"],
                                       source=f"uint i = thread_position_in_grid.x;\nout[i] = {name}[i];\n")
    with pytest.raises(metalsim_mlx.MetalCompileError,
                       match=f"signature line 2, column 3: error: '{name}' is a keyword in Metal: MLX declares input "
                             f"'{name}' as a kernel parameter"):
        kernel(inputs=[mx.zeros(16)], output_shapes=[(16,)], output_dtypes=[mx.float32], grid=(16, 1, 1),
               threadgroup=(16, 1, 1))


@pytest.mark.parametrize("call_text", ["sqrt(n)", "exp(2)", "log(i + 1u)", "pow(2, 3)"])
def test_a_float_math_function_of_integers_is_ambiguous(call_text):
    # Metal's float, half and bfloat overloads are all built-in types: an integer converts to each equally well.
    source = f"uint i = thread_position_in_grid.x;\nint n = 4;\nout[i] = a[i] * {call_text};\n"
    function = call_text.split("(")[0]
    with pytest.raises(metalsim_mlx.MetalCompileError, match=f"body line 3, .*call to '{function}' is ambiguous"):
        call(source)


def test_vectors_direct_initialized_with_parentheses_compile():
    header = "struct Pair { float2 v; half2 h; Pair(float x) : v(x, 2.0f * x), h(x, x) {} };\n"
    source = ("uint i = thread_position_in_grid.x;\nfloat2 v(a[i], 1.0f);\nPair p(a[i]);\n"
              "out[i] = v.x + v.y + p.v.y + float(p.h.x);\n")
    (out,) = call(source, header=header)
    np.testing.assert_array_equal(np.array(out), np.arange(16, dtype=np.float32) * 4 + 1)


def test_unwritten_threadgroup_slots_read_and_discarded_warn():
    # select() reads every lane's slot, the value of those no SIMD group wrote is discarded: a Mac runs it. The
    # reads warn as reads past a device buffer do, and the outputs come back.
    source = """
        threadgroup float partial[32];
        uint lane = thread_index_in_simdgroup, sg = simdgroup_index_in_threadgroup;
        float s = simd_sum(a[thread_position_in_grid.x]);
        if (lane == 0) partial[sg] = s;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (sg == 0) {
            float v = select(0.0f, partial[lane], lane < simdgroups_per_threadgroup);
            v = simd_sum(v);
            if (lane == 0) out[0] = v;
        }
    """
    with pytest.warns(metalsim_mlx.MetalsimWarning, match="read of uninitialized threadgroup variable 'partial'"):
        (out,) = call(source, n=96, threadgroup=96)
    assert np.array(out)[0] == np.arange(96).sum()


def test_a_read_past_a_threadgroup_array_and_masked_warns():
    source = """
        threadgroup float buf[16];
        uint i = thread_position_in_threadgroup.x;
        buf[i] = a[i];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        float right = buf[i + 1];
        out[i] = buf[i] + (i == 15 ? 0.0f : right);
    """
    with pytest.warns(metalsim_mlx.MetalsimWarning, match="out-of-bounds read of threadgroup memory: byte 64 of 'buf'"):
        (out,) = call(source)
    np.testing.assert_array_equal(np.array(out), np.arange(16) + np.append(np.arange(1, 16), 0))


def test_unwritten_threadgroup_values_that_reach_the_outputs_are_errors():
    source = """
        threadgroup float tile[16];
        uint i = thread_position_in_threadgroup.x;
        if (i < 15) tile[i] = a[i];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        out[i] = tile[15 - i];
    """
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="(?s)uninitialized_read.*reach the outputs"):
        call(source)


# A shuffle-down sum over a ragged tail whose lanes returned (40 threads: the second SIMD group has lanes 0-7): lane 0
# reads lanes 16 and 8, which a Mac leaves undefined, and that value is its sum.
RAGGED_SHUFFLE_SUM = """
    uint i = thread_position_in_grid.x;
    if (i >= 40) return;
    float v = a[i];
    for (ushort off = 16; off > 0; off >>= 1) v += simd_shuffle_down(v, off);
    if (thread_index_in_simdgroup == 0) out[i / 32] = v;
"""


def test_a_shuffle_from_lanes_that_returned_into_the_outputs_is_an_error():
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="(?s)inactive_lane_read: simd_shuffle_down at body line 5.*"
                       "reach the outputs") as caught:
        call(RAGGED_SHUFFLE_SUM, n=64, threadgroup=64)
    assert [d["kind"] for d in caught.value.diagnostics] == ["inactive_lane_read"]


def test_a_shuffle_from_lanes_that_returned_whose_value_is_discarded_warns():
    # Every lane reads the lane 8 above it; the second SIMD group's lanes (8 of them) find inactive ones but store
    # their own value: a Mac runs it, and so does this, with a warning.
    source = """
        uint i = thread_position_in_grid.x;
        float v = a[i];
        float above = simd_shuffle_xor(v, 8);
        out[i] = i < 32 ? above : v;
    """
    with pytest.warns(metalsim_mlx.MetalsimWarning, match="inactive_lane_read: simd_shuffle_xor at body line 4"):
        (out,) = call(source, n=40, threadgroup=64)
    expected = np.arange(40, dtype=np.float32)
    expected[:32] = expected[:32].reshape(2, 2, 8)[:, ::-1, :].reshape(32)
    np.testing.assert_array_equal(np.array(out), expected)


def test_a_thread_pointer_to_a_buffer_is_rejected_at_its_line():
    # Metal converts no pointer between address spaces; the host compiler, which sees none, would build it.
    source = "uint i = thread_position_in_grid.x;\nconst float* row = a + i;\nout[i] = row[0];\n"
    with pytest.raises(metalsim_mlx.MetalCompileError, match="body line 2") as caught:
        call(source)
    assert "'row' points to thread memory" in str(caught.value) and "'a + i' points to device memory" in str(caught.value)


def test_an_input_of_fewer_than_8_elements_is_constant_memory():
    # MLX passes it as `const constant float*`: a device pointer to it does not compile on a Mac, while the same
    # kernel compiles with 8 elements.
    source = "uint i = thread_position_in_grid.x;\nconst device float* x = a;\nout[i] = x[i];\n"
    with pytest.raises(metalsim_mlx.MetalCompileError, match="'a' points to constant memory"):
        call(source, n=4, threadgroup=4)
    (out,) = call(source, n=8, threadgroup=8)
    np.testing.assert_array_equal(np.array(out), np.arange(8, dtype=np.float32))


def test_a_static_counter_does_not_compile():
    # Metal has no writable program-scope or static variables; here one would count calls across threads and calls.
    header = "inline int calls() {\n  static int count = 0;\n  return count++;\n}\n"
    with pytest.raises(metalsim_mlx.MetalCompileError, match="header line 2") as caught:
        call("uint i = thread_position_in_grid.x;\nout[i] = a[i] + 0 * calls();\n", header=header)
    assert "'count' is a static variable of 'calls'" in str(caught.value)


def test_a_variable_length_array_does_not_compile():
    with pytest.raises(metalsim_mlx.MetalCompileError, match=r"body line 3, column \d+: error: variable length arrays are not supported in Metal"):
        call("uint i = thread_position_in_grid.x;\nuint n = i % 4 + 1;\nfloat t[n];\nt[0] = a[i];\nout[i] = t[0];\n")


@pytest.mark.parametrize(
    "line, words",
    [
        ("uint2 g = thread_position_in_grid.xy;\nint2 c = {g.x, g.y};\nout[g.x] = a[c.x];\n",
         "non-constant-expression cannot be narrowed from type"),
        ("int k = thread_position_in_grid.x;\nfloat4 v = {k, k, k, k};\nout[k] = v.w;\n",
         "cannot be narrowed from type 'int' to 'float'"),
        ("uint i = thread_position_in_grid.x;\nhalf h[2] = {a[i], 1.0f};\nout[i] = h[0];\n",
         "cannot be narrowed from type 'float' to 'half'"),
        ("uint i = thread_position_in_grid.x;\nuchar b[1] = {300};\nout[i] = a[i] + b[0];\n",
         "constant expression evaluates to 300"),
    ],
)
def test_a_narrowing_brace_initializer_does_not_compile(line, words):
    # C++ list-initialization refuses narrowing conversions; on a Mac MLX raises "Unable to build metal library".
    with pytest.raises(metalsim_mlx.MetalCompileError, match=r"body line 2, column \d+: error: ") as caught:
        call(line)
    assert words in str(caught.value) and "-Wc++11-narrowing" not in str(caught.value)


def test_brace_initializers_of_constants_that_fit_compile():
    source = ("uint i = thread_position_in_grid.x;\nfloat4 v = {1, 2, 3, 4};\nhalf h[2] = {0.5f, 2048};\n"
              "int2 c = {int(i), 2};\nout[i] = a[i] + v.x + h[0] + c.y;\n")
    (out,) = call(source)
    np.testing.assert_array_equal(np.array(out), np.arange(16, dtype=np.float32) + 3.5)


def test_more_buffers_than_metal_gives_a_kernel_do_not_compile():
    # 7 inputs read through elem_to_loc take 4 buffers each, and the output one more: 29 of Metal's 31 fit; an eighth
    # input makes 33, and its `_ndim` would be [[buffer(31)]].
    def run(count):
        names = [f"in{j}" for j in range(count)]
        terms = " + ".join(f"{n}[elem_to_loc(i, {n}_shape, {n}_strides, {n}_ndim)]" for n in names)
        kernel = metalsim_mlx.metal_kernel(name="many", input_names=names, output_names=["out"],
                                           source=f"uint i = thread_position_in_grid.x;\nout[i] = {terms};\n",
                                           ensure_row_contiguous=False)
        return kernel(inputs=[mx.full((2, 4), j, dtype=mx.float32) for j in range(count)], grid=(8, 1, 1),
                      threadgroup=(8, 1, 1), output_shapes=[(8,)], output_dtypes=[mx.float32])
    np.testing.assert_array_equal(np.array(run(7)[0]), np.full(8, 21, dtype=np.float32))
    with pytest.raises(metalsim_mlx.MetalCompileError, match=r"signature line \d+, column 3: error: 'buffer' attribute "
                       r"parameter is out of bounds: must be between 0 and 30 \('in7_ndim' would be \[\[buffer\(31\)\]\]\)"
                       r": the kernel needs 33 buffers"):
        run(8)


def test_a_warning_names_the_line_that_calls_the_kernel():
    # Not a line of metalsim_mlx, whose functions (and mx.custom_function's) lie between the call and the warning.
    kernel = metalsim_mlx.metal_kernel(name="k", input_names=["a"], output_names=["out"],
                                       source="uint i = thread_position_in_grid.x;\nout[i] = a[i + 4];\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel(inputs=[mx.zeros(16)], output_shapes=[(16,)], output_dtypes=[mx.float32], grid=(16, 1, 1),
               threadgroup=(16, 1, 1))
    line = inspect.currentframe().f_lineno - 2
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]


def test_barrier_in_a_branch_is_barrier_divergence():
    source = """
        uint i = thread_position_in_grid.x;
        if (i < 8) threadgroup_barrier(mem_flags::mem_threadgroup);
        out[i] = a[i];
    """
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="barrier_divergence"):
        call(source)


def test_missing_barrier_is_a_data_race_on_threadgroup_memory():
    source = """
        uint i = thread_position_in_grid.x;
        threadgroup float buf[16];
        buf[i] = a[i];
        out[i] = buf[(i + 1) % 16];
    """
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="data_race") as caught:
        call(source)
    assert caught.value.diagnostics[0]["buffer"] == "buf"


def test_write_far_outside_every_buffer_is_stopped_and_named():
    source = """
        uint i = thread_position_in_grid.x;
        out[i + (1ul << 38)] = a[i];
    """
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="out_of_bounds: out-of-bounds write .* outside every buffer"):
        call(source)


def test_read_far_outside_every_buffer_is_a_finding_not_a_crash():
    source = """
        uint i = thread_position_in_grid.x;
        out[i] = a[i + (1ul << 38)];
    """
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match=r"out_of_bounds: out-of-bounds read .* outside every buffer"):
        call(source)


def test_missing_executable_is_a_setup_error(monkeypatch, tmp_path):
    monkeypatch.setenv("KSEARCH_METALSIM", str(tmp_path / "nothing-here"))
    with pytest.raises(metalsim_mlx.MetalsimSetupError, match="is not an executable file"):
        call(COPY_SOURCE)


def test_missing_host_compiler_is_a_setup_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(metalsim_mlx.MetalsimSetupError, match="clang\\+\\+ not found on PATH"):
        call(COPY_SOURCE)


def test_integer_division_by_zero_names_the_cause():
    kernel = metalsim_mlx.metal_kernel(name="divide", input_names=["a", "b"], output_names=["out"],
                                       source="uint i = thread_position_in_grid.x;\nout[i] = a[i] / b[i];")
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match=r"division_by_zero: integer division or remainder by zero"):
        kernel(inputs=[mx.array([1, 2], dtype=mx.int32), mx.array([1, 0], dtype=mx.int32)], output_shapes=[(2,)],
               output_dtypes=[mx.int32], grid=(2, 1, 1), threadgroup=(2, 1, 1))


def test_a_kernel_that_never_finishes_hits_the_time_limit(monkeypatch):
    # About 2^64 dependent steps: finite, so no deadlock to report, but far past the limit. (A spin on an
    # atomic is reported as a deadlock instead: MetalsimDiagnostics.SpinWait* in tests/metalsim.)
    source = """
        float acc = 0;
        for (uint j = 0; j < n; ++j)
            for (uint k = 0; k < n; ++k) acc = fma(acc, 0.999f, 1.0f);
        out[0] = acc;
    """
    kernel = metalsim_mlx.metal_kernel(name="endless", input_names=["n"], output_names=["out"], source=source)
    monkeypatch.setenv("METALSIM_MLX_TIMEOUT", "3")
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="did not finish within 3 s"):
        kernel(inputs=[mx.array(0xFFFFFFFF, dtype=mx.uint32)], output_shapes=[(1,)], output_dtypes=[mx.float32],
               grid=(1, 1, 1), threadgroup=(1, 1, 1))
