"""`ksearch export --format mlx|mlx-lm` on metal runs: the exported modules import, build their kernel
with mx.fast.metal_kernel (run by metalsim through metalsim_mlx.patch(), as on any Linux machine)
and match the reference: a softmax against numpy, a two-kernel softmax with a scratch buffer
(docs/METAL.md, multi-kernel candidates) against numpy, mlx-lm's Mamba scan against mlx-lm's own
per-step loop, and the mlx-lm drop-in applied to a tiny random mlx-lm Mamba model gives the
unpatched model's logits, for a prompt and for decoding after it."""
import importlib.util
import inspect
import os
import pickle
import subprocess
import sys

import mlx.core as mx
import numpy as np
import pytest

import metalsim_mlx

KSEARCH = os.environ.get("KSEARCH_EXECUTABLE", "")
REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEST_TASKS = os.path.join(REPOSITORY, "tests", "metal", "tasks")


def ksearch(*args, **kwargs):
    if not os.path.exists(KSEARCH):
        pytest.skip("KSEARCH_EXECUTABLE does not name a built ksearch")
    return subprocess.run([KSEARCH, *args], capture_output=True, text=True, **kwargs)


def exported(tmp_path_factory, task, fmt):
    """Runs one round of the built-in search on a tiny metal task (a name in tests/metal/tasks or a task file's path)
    and exports its best kernel."""
    root = tmp_path_factory.mktemp(f"{os.path.basename(task)}-{fmt}")
    run = ksearch("run", "--task", os.path.join(TEST_TASKS, task), "--backend", "metal", "--rounds", "1",
                  "--out", str(root / "run"))
    assert run.returncode == 0, run.stdout + run.stderr
    out = ksearch("export", str(root / "run"), "--format", fmt, "--out", str(root / "export") + "/")
    assert out.returncode == 0, out.stdout + out.stderr
    path = out.stdout.strip().splitlines()[-1]
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, open(path).read()


@pytest.fixture(autouse=True)
def metalsim():
    with metalsim_mlx.patched():
        yield


@pytest.fixture(scope="module")
def softmax_module(tmp_path_factory):
    return exported(tmp_path_factory, "tiny_softmax", "mlx")


# A small rmsnorm: a float parameter the kernel takes (eps), one that only draws the workloads' inputs (x_std), and a
# description ending in a period.
TINY_RMSNORM = """
[task]
name = "tiny_rmsnorm"
description = "Row-wise RMS normalization with a weight, small sizes."

[axes]
rows = "rows"
cols = "row length"

[[params]]
name = "eps"
dtype = "f32"
default = 1e-6
description = "added to the mean square"

[[params]]
name = "x_std"
dtype = "f32"
default = 2.0
description = "the inputs' standard deviation"

[[inputs]]
name = "x"
dtype = "f32"
shape = ["rows", "cols"]
dist = {{ kind = "normal", mean = 0.0, std = "x_std" }}

[[inputs]]
name = "weight"
dtype = "f32"
shape = ["cols"]
dist = {{ kind = "uniform", lo = 0.5, hi = 1.5 }}

[[outputs]]
name = "y"
dtype = "f32"
shape = ["rows", "cols"]

[tolerance]
f32 = {{ rtol = 1e-4, atol = 1e-6 }}

[cost]
flops = "4 * rows * cols"
bytes = "4 * (2 * rows * cols + cols)"

[[workloads]]
name = "r5_c37"
axes = {{ rows = 5, cols = 37 }}

[[workloads]]
name = "r3_c100_eps1e-2"
axes = {{ rows = 3, cols = 100 }}
params = {{ eps = 1e-2, x_std = 20.0 }}

[[workloads]]
name = "held_r4_c9"
axes = {{ rows = 4, cols = 9 }}
held_out = true

[entry.metal]
function = "rmsnorm"
args = ["x", "weight", "y", "rows", "cols", "eps"]
seed = "{repository}/tasks/rmsnorm/seeds/metal.metal"

[reference]
source = "{repository}/tasks/rmsnorm/reference.cpp"
"""


@pytest.fixture(scope="module")
def rmsnorm_module(tmp_path_factory):
    task = tmp_path_factory.mktemp("tiny_rmsnorm_task") / "task.toml"
    task.write_text(TINY_RMSNORM.format(repository=REPOSITORY))
    return exported(tmp_path_factory, str(task), "mlx")


@pytest.fixture(scope="module")
def multi_kernel_module(tmp_path_factory):
    """A two-kernel softmax (row statistics into a scratch buffer, then the normalization; the form
    `ksearch port` gives CUDA entries with several launches), searched and exported."""
    return exported(tmp_path_factory, "tiny_softmax_two_kernel", "mlx")


@pytest.fixture(scope="module")
def mamba_module(tmp_path_factory):
    return exported(tmp_path_factory, "tiny_mamba_mlx_lm", "mlx")


@pytest.fixture(scope="module")
def mamba_mlx_lm_module(tmp_path_factory):
    pytest.importorskip("mlx_lm.models.mamba")  # the drop-in imports mlx-lm
    return exported(tmp_path_factory, "tiny_mamba_mlx_lm", "mlx-lm")


def test_softmax_module_matches_numpy(softmax_module):
    module, text = softmax_module
    assert "_from(mx.fast.metal_kernel)" in text and "Verified by ksearch" in text
    x = np.random.default_rng(0).normal(scale=4.0, size=(7, 301)).astype(np.float32)
    y = module.softmax(x)
    assert isinstance(y, mx.array) and y.shape == (7, 301) and y.dtype == mx.float32
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.array(y), expected, rtol=1e-4, atol=1e-7)
    # other dtypes are converted to the one the kernel was verified with
    np.testing.assert_allclose(np.array(module.softmax(mx.array(x).astype(mx.float16))), expected, rtol=2e-2, atol=1e-3)
    # an input of fewer than 8 elements, which MLX passes in constant memory, not device
    for shape in [(1, 7), (7, 1), (1, 1)]:
        small = np.random.default_rng(1).normal(size=shape).astype(np.float32)
        expected = np.exp(small - small.max(axis=1, keepdims=True))
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(np.array(module.softmax(small)), expected, rtol=1e-4, atol=1e-7)


def test_multi_kernel_module_chains_its_kernels(multi_kernel_module):
    module, text = multi_kernel_module
    # one mx.fast.metal_kernel per kernel; the scratch buffer is the first call's output array
    assert "def kernel_row_stats():" in text and "def kernel_normalize():" in text
    assert module.__all__ == ["softmax", "kernel_row_stats", "kernel_normalize"]
    assert "[stats] = kernel_row_stats()(" in text and "[y] = kernel_normalize()(" in text
    x = np.random.default_rng(1).normal(scale=4.0, size=(9, 333)).astype(np.float32)
    y = module.softmax(x)
    assert isinstance(y, mx.array) and y.shape == (9, 333)
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.array(y), expected, rtol=1e-4, atol=1e-7)


def test_module_checks_arguments_before_any_launch(softmax_module):
    module, _ = softmax_module
    with pytest.raises(ValueError, match=r"x has shape \(10,\), expected \(rows, cols\)"):
        module.softmax(mx.zeros((10,)))
    with pytest.raises(TypeError, match="x is complex"):
        module.softmax(mx.zeros((2, 3), dtype=mx.complex64))
    with pytest.raises(TypeError, match="x is required"):
        module.softmax(None)
    with pytest.raises(ValueError, match="eps must be a scalar"):
        module._scalar(mx.array([1e-5]), "eps", float)
    assert module._scalar(np.float64(0.5), "eps", float) == 0.5
    for bad in [None, [1e-5], "1e-5"]:
        with pytest.raises(TypeError, match="eps must be a number"):
            module._scalar(bad, "eps", float)
    assert "stream:" in module.softmax.__doc__
    with pytest.raises(ValueError, match="does not fit the kernel's int32 argument"):
        module._int32(2**31, "rows")
    with pytest.raises(ValueError, match=r"grid x = 2147483648 for these sizes: a launch dimension takes 1 to 2\*\*31 - 1"):
        module._launch(2**31, "grid x")
    # too large from sizes: the sizes, not the whole-number clause that does not apply
    with pytest.raises(ValueError, match=r"grid x = 32 \* rows = 2147483648 for rows = 67108864: a launch dimension takes"):
        module._launch(2**31, "grid x = 32 * rows", dict(rows=2**26))
    # a dimension computed from sizes names its expression and the sizes
    with pytest.raises(ValueError, match=r"grid x = cols / 2 = 3.5 is not an integer for cols = 7; the kernel takes only"):
        module._launch(7 / 2, "grid x = cols / 2", dict(cols=7))
    with pytest.raises(ValueError, match=r"grid x = cols - 7 = 0 for cols = 7; the kernel takes only"):
        module._launch(0, "grid x = cols - 7", dict(cols=7))
    # no element to compute: empty outputs of the right shape and dtype, no launch (a grid needs a thread)
    y = module.softmax(mx.zeros((0, 8)))
    assert y.shape == (0, 8) and y.dtype == mx.float32


def softmax_reference(x):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# How MLX users pass arrays: numpy's float64 and ints, views of other arrays (numpy's with negative strides, which
# mx.array refuses), big-endian numpy; what is no array or no stream fails naming the argument instead of with MLX's
# message about its own call (a numpy str array: RuntimeError std::bad_cast).
def test_module_takes_what_mlx_users_pass(softmax_module):
    module, _ = softmax_module
    assert module.__all__ == ["softmax", "kernel"]
    x = np.random.default_rng(2).normal(size=(12, 40))
    for given, values in [(x, x), (mx.array(x.astype(np.float32)).T.T[::2, 1::3], x[::2, 1::3]),
                          (mx.array(x.T.astype(np.float32)).T, x), ([[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]]),
                          (x[::-1, ::-2], x[::-1, ::-2]), (np.flip(x, 1), np.flip(x, 1)), (x.astype(">f4"), x)]:
        np.testing.assert_allclose(np.array(module.softmax(given)), softmax_reference(values), rtol=1e-4, atol=1e-7)
    for stream in [mx.gpu, mx.Device(mx.gpu), mx.default_stream(mx.default_device())]:
        module.softmax(x, stream=stream)
    # mlx-lm's generation stream is a thread-local one, which is no mx.Stream (MLX 0.31 on)
    if hasattr(mx, "new_thread_local_stream"):
        module.softmax(x, stream=mx.new_thread_local_stream(mx.default_device()))
    with pytest.raises(TypeError, match="softmax: stream must be None, an mx.Stream or an mx.Device, got str"):
        module.softmax(x, stream="gpu")
    with pytest.raises(ValueError, match="softmax: x is not an array of numbers: Invalid type str"):
        module.softmax("logits")
    with pytest.raises(ValueError, match="softmax: x is not an array of numbers: .*non-uniform length"):
        module.softmax([[1.0, 2.0], [3.0]])
    with pytest.raises(TypeError, match="softmax: x is not an array of numbers: <U1"):
        module.softmax(np.array([["1", "2"]]))



class _ArrayProtocol:
    """An array of another library that numpy reads through __array__ (pandas, xarray) and mx.array refuses."""

    def __init__(self, values):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return self.values


# What numpy reads as numbers but mx.array refuses ("Invalid type float32 received"): lists of numpy scalars or rows,
# objects with __array__; and long doubles, on which mx.array fails (std::bad_cast).
def test_module_takes_what_numpy_reads_as_numbers(softmax_module):
    module, _ = softmax_module
    x = np.random.default_rng(3).normal(size=(3, 20)).astype(np.float32)
    for given in [[list(row) for row in x], list(x), _ArrayProtocol(x), x.astype(np.longdouble)]:
        np.testing.assert_allclose(np.array(module.softmax(given)), softmax_reference(x), rtol=1e-4, atol=1e-7)
    with pytest.raises(ValueError, match="softmax: x is not an array of numbers"):
        module.softmax([x[0], x[1, :5]])


# MLX caches a kernel's Metal library by name: two modules of one function whose kernels differ (two runs of a task)
# must not share a name, or on a Mac each call after the other module's recompiles the library.
def test_modules_of_one_function_with_other_kernels_have_their_own_kernel_names(tmp_path_factory, softmax_module):
    module, _ = softmax_module
    seed = open(os.path.join(REPOSITORY, "tasks", "softmax", "seeds", "metal.metal")).read()
    variant = tmp_path_factory.mktemp("softmax_variant")
    (variant / "seed.metal").write_text(seed.replace("// --- body ---\n", "// --- body ---\n// another candidate\n"))
    task = open(os.path.join(TEST_TASKS, "tiny_softmax", "task.toml")).read()
    task = task.replace("../../../../tasks/softmax/seeds/metal.metal", str(variant / "seed.metal"))
    task = task.replace("../../../../tasks/softmax/reference.cpp", os.path.join(REPOSITORY, "tasks", "softmax", "reference.cpp"))
    (variant / "task.toml").write_text(task)
    other, _ = exported(tmp_path_factory, str(variant / "task.toml"), "mlx")
    assert other.kernel().name.startswith("softmax_") and other.kernel().name != module.kernel().name
    x = np.random.default_rng(4).normal(size=(4, 50)).astype(np.float32)
    for each in (module, other, module):
        np.testing.assert_allclose(np.array(each.softmax(x)), softmax_reference(x), rtol=1e-4, atol=1e-7)

# A parameter that only draws the workloads' inputs (x_std here, softmax's shift, attention's q_std) is no argument: the
# kernel never reads it. A float the kernel takes must fit its float32 argument; a scalar is any real number.
def test_module_keywords_are_what_the_kernel_reads(rmsnorm_module):
    module, text = rmsnorm_module
    assert str(inspect.signature(module.rmsnorm)) == "(x, weight, *, stream=None, eps=1e-06)"
    assert "x_std" not in module.rmsnorm.__doc__
    assert module.rmsnorm.__doc__.startswith("Row-wise RMS normalization with a weight, small sizes: returns y.\n")
    rng = np.random.default_rng(3)
    x, weight = rng.normal(size=(3, 20)).astype(np.float32), rng.uniform(0.5, 1.5, size=20).astype(np.float32)
    for eps in [1, np.float32(0.5), np.float64(0.5), mx.array(0.5), mx.array(1, dtype=mx.int32), np.array(0.5)]:
        value = float(np.asarray(eps)) if not isinstance(eps, mx.array) else eps.item()
        expected = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + value) * weight
        np.testing.assert_allclose(np.array(module.rmsnorm(x, weight, eps=eps)), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"rmsnorm: eps = 1e\+300 does not fit the kernel's float32 argument"):
        module.rmsnorm(x, weight, eps=1e300)
    with pytest.raises(ValueError, match="rmsnorm: eps = 1000.* is too large for a float"):
        module.rmsnorm(x, weight, eps=10**400)
    with pytest.raises(TypeError, match="unexpected keyword argument 'x_std'"):
        module.rmsnorm(x, weight, x_std=2.0)


def test_multi_kernel_module_returns_empty_rows(multi_kernel_module):
    module, _ = multi_kernel_module
    y = module.softmax(np.zeros((3, 0), np.float32))
    assert y.shape == (3, 0) and y.dtype == mx.float32


def test_kernel_follows_metalsim_patching(softmax_module):
    """The kernel object is built per mx.fast.metal_kernel: a module called before metalsim_mlx.patch() (or after
    unpatch()) still gets the one in place at each call, and without either, MLX's error says what to do."""
    module, _ = softmax_module
    assert type(module.kernel()).__module__ == "metalsim_mlx.kernel"
    metalsim_mlx.unpatch()
    try:
        assert type(module.kernel()).__module__ != "metalsim_mlx.kernel"
        # MLX without Metal refuses the call; the module's error says how to run it here
        with pytest.raises(RuntimeError, match=r"No Metal back-end\. Without Metal \(on Linux\), `import metalsim_mlx; "
                                               r"metalsim_mlx\.patch\(\)` before the call"):
            module.softmax(np.ones((2, 3), np.float32))
    finally:
        metalsim_mlx.patch()
    assert type(module.kernel()).__module__ == "metalsim_mlx.kernel"


def test_gradient_through_a_kernel_raises_as_on_metal(softmax_module):
    module, _ = softmax_module
    x = mx.ones((2, 8))
    with pytest.raises(ValueError, match=r"\[Primitive::vjp\] Not implemented for CustomKernel"):
        mx.grad(lambda v: module.softmax(v).sum())(x)


def test_vmap_through_a_kernel_raises_as_on_metal(softmax_module):
    module, _ = softmax_module
    with pytest.raises(ValueError, match=r"\[Primitive::vmap\] Not implemented for CustomKernel"):
        mx.vmap(module.softmax)(mx.ones((3, 2, 8)))


# Sizes reach the kernel as int32 and it was verified on small arrays: one of 2**31 elements or more, whose indices it
# may compute in 32 bits and wrap, is refused before any launch, though each of its sizes fits an int32. A broadcast
# view holds no memory, so the check is what stands between such a call and a kernel reading garbage.
def test_arrays_beyond_32_bit_indexing_are_refused(softmax_module, monkeypatch):
    module, _ = softmax_module

    def launched():
        raise AssertionError("the kernel was launched")

    monkeypatch.setattr(module, "kernel", launched)
    huge = mx.broadcast_to(mx.zeros((1, 1)), (2**16, 2**15 + 1))
    with pytest.raises(ValueError, match=r"softmax: x of shape \(65536, 32769\) has 2147549184 elements; the kernel "
                                         r"takes at most 2\*\*31 - 1 per array"):
        module.softmax(huge)
    with pytest.raises(AssertionError, match="launched"):  # the largest array it takes still reaches the launch
        module.softmax(mx.broadcast_to(mx.zeros((1, 1)), (2**16 - 2, 2**15 + 1)))


# What MLX users pass beside float32 arrays of the declared shapes: other dtypes are converted to the kernel's (ints and
# bools as MLX's float ops take them), outputs keep the task's dtype; a 0-d array or a shape that would only broadcast
# is an error naming the input and the shape it needs, never broadcast.
def test_module_converts_dtypes_and_refuses_other_shapes(rmsnorm_module):
    module, _ = rmsnorm_module
    x, weight = np.arange(-12, 12).reshape(3, 8), np.linspace(0.5, 1.5, 8)

    def reference(x, weight, eps=1e-6):
        x = np.asarray(x, np.float64)
        return x / np.sqrt((x ** 2).mean(axis=1, keepdims=True) + eps) * np.asarray(weight, np.float64)

    for given, values in [(x, x), (x.astype(np.int8), x), (mx.array(x, dtype=mx.int32), x), (mx.array(x, dtype=mx.int64), x),
                          (mx.array(x, dtype=mx.bfloat16), x), (x.astype(np.float16), x), (x > 0, x > 0)]:
        y = module.rmsnorm(given, weight)
        assert y.dtype == mx.float32 and y.shape == (3, 8)
        np.testing.assert_allclose(np.array(y), reference(values, weight), rtol=1e-5, atol=1e-6)
    for given, expected in [(mx.array(1.0), r"x has shape \(\), expected \(rows, cols\)"),
                            (x[None], r"x has shape \(1, 3, 8\), expected \(rows, cols\)")]:
        with pytest.raises(ValueError, match=f"rmsnorm: {expected}"):
            module.rmsnorm(given, weight)
    for given, expected in [(weight[None], r"weight has shape \(1, 8\), expected \(cols,\)"),
                            (weight[:1], r"weight has shape \(1,\), expected \(8,\)"),
                            (np.float32(1.0), r"weight has shape \(\), expected \(cols,\)")]:
        with pytest.raises(ValueError, match=f"rmsnorm: {expected}"):
            module.rmsnorm(x, given)


# An embedding lookup: its int32 indices take any integer or bool array (converted), never a float one, which would be
# truncated into other rows.
TINY_GATHER = """
[task]
name = "tiny_gather"
description = "y[i, :] = x[idx[i], :]"

[axes]
n = "rows of the table"
m = "indices"
d = "row length"

[[inputs]]
name = "x"
dtype = "f32"
shape = ["n", "d"]
dist = {{ kind = "normal", mean = 0.0, std = 1.0 }}

[[inputs]]
name = "idx"
dtype = "i32"
shape = ["m"]
dist = {{ kind = "randint", lo = 0, hi = 9 }}

[[outputs]]
name = "y"
dtype = "f32"
shape = ["m", "d"]

[tolerance]
f32 = {{ rtol = 0, atol = 0 }}

[cost]
flops = "0"
bytes = "8 * m * d"

[[workloads]]
name = "n10_m7_d40"
axes = {{ n = 10, m = 7, d = 40 }}

[entry.metal]
function = "gather"
args = ["x", "idx", "y", "n", "m", "d"]
seed = "{seed}"

[reference]
source = "{repository}/tests/translate/tasks/gather/reference.cpp"
"""

GATHER_SEED = """// One thread per output element.
// grid: d, m, 1
// threadgroup: W, 1, 1
// template: W = 32  // ksearch:knob W = 32 in [32, 64]
// --- body ---
uint j = thread_position_in_grid.x, i = thread_position_in_grid.y;
if (j < uint(d)) y[size_t(i) * d + j] = x[size_t(idx[i]) * d + j];
"""


def test_integer_inputs_take_integer_arrays_and_refuse_float_ones(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny_gather_task")
    (folder / "seed.metal").write_text(GATHER_SEED)
    (folder / "task.toml").write_text(TINY_GATHER.format(repository=REPOSITORY, seed=folder / "seed.metal"))
    module, _ = exported(tmp_path_factory, str(folder / "task.toml"), "mlx")
    x = np.random.default_rng(9).normal(size=(10, 40)).astype(np.float32)
    indices = np.array([3, 0, 9, 9, 1, 5])
    for given in [indices, indices.astype(np.int16), indices.astype(np.uint8), mx.array(indices, dtype=mx.int64),
                  mx.array(indices, dtype=mx.uint32), list(indices)]:
        np.testing.assert_array_equal(np.array(module.gather(x, given)), x[indices])
    np.testing.assert_array_equal(np.array(module.gather(x, indices < 2)), x[(indices < 2).astype(int)])
    for given in [indices.astype(np.float32) + 0.7, mx.array(indices, dtype=mx.float16), [3.0, 0.0]]:
        with pytest.raises(TypeError, match=r"gather: idx is mlx.core.float\d+, the kernel takes mlx.core.int32"):
            module.gather(x, given)
    # Host integers past int32 (numpy's int64, a list, unsigned 64-bit) would wrap into other rows: refused by value.
    for given, value in [(np.array([3, 2**31 + 3]), 2**31 + 3), ([3, 2**40], 2**40), (np.array([-2**31 - 1, 0]), -2**31 - 1),
                         (np.array([1, 2**32 + 1], dtype=np.uint64), 2**32 + 1)]:
        with pytest.raises(ValueError, match=rf"gather: idx holds {value}, which the kernel's mlx.core.int32 cannot hold"):
            module.gather(x, given)
    np.testing.assert_array_equal(np.array(module.gather(x, np.array([9, 0], dtype=np.int64))), x[[9, 0]])


# The module's function takes the task's names as its parameters: a Python keyword or a name its code reads is refused
# at export, naming it, instead of a module that does not import (`lambda`) or computes with `mx` shadowed.
def test_export_refuses_task_names_python_cannot_take(tmp_path_factory):
    for name in ["lambda", "mx", "stream", "_scale"]:
        folder = tmp_path_factory.mktemp(f"tiny_gather_{name.strip('_')}")
        (folder / "seed.metal").write_text(GATHER_SEED)
        task = TINY_GATHER.format(repository=REPOSITORY, seed=folder / "seed.metal")
        (folder / "task.toml").write_text(task.replace("[[outputs]]", f'[[params]]\nname = "{name}"\ndtype = "f32"\n'
                                                                       f'default = 1.0\n\n[[outputs]]', 1))
        run = ksearch("run", "--task", str(folder / "task.toml"), "--backend", "metal", "--rounds", "1", "--out",
                      str(folder / "run"))
        assert run.returncode == 0, run.stdout + run.stderr
        out = ksearch("export", str(folder / "run"), "--format", "mlx", "--out", str(folder / "export") + "/")
        assert out.returncode != 0, out.stdout
        assert f"its parameter '{name}' cannot be a parameter of the exported Python function" in out.stderr, out.stderr


# A module imported by its name (the export's folder on sys.path) pickles its function by reference, as any module
# function, and reloads: a reloaded module's kernel keeps its name (MLX's library cache) and computes the same.
def test_module_function_pickles_and_the_module_reloads(softmax_module):
    module, _ = softmax_module
    folder, name = os.path.split(module.__file__)
    sys.path.insert(0, folder)
    try:
        imported = importlib.import_module(os.path.splitext(name)[0])
        assert pickle.loads(pickle.dumps(imported.softmax)) is imported.softmax
        kernel_name = imported.kernel().name
        x = np.random.default_rng(8).normal(size=(3, 17)).astype(np.float32)
        before = np.array(imported.softmax(x))
        reloaded = importlib.reload(imported)
        assert reloaded.kernel().name == kernel_name
        np.testing.assert_array_equal(np.array(reloaded.softmax(x)), before)
    finally:
        sys.path.remove(folder)
        sys.modules.pop(os.path.splitext(name)[0], None)


def mlx_lm_scan(x, delta, A, B, C, D, state):
    """mlx-lm's MambaBlock.ssm_step, step by step (its ops without the projections)."""
    import mlx.nn as nn

    delta = nn.softplus(delta)
    ys = []
    for t in range(x.shape[1]):
        new_state = mx.expand_dims(delta[:, t] * x[:, t], -1) * mx.expand_dims(B[:, t], 1)
        if state is not None:
            new_state += state * mx.exp(mx.expand_dims(delta[:, t], -1) * A)
        ys.append((new_state @ mx.expand_dims(C[:, t], -1)).squeeze(2) + D * x[:, t])
        state = new_state
    return mx.stack(ys, axis=1), state


@pytest.mark.parametrize("with_state", [False, True])
def test_mamba_module_matches_mlx_lm_loop(mamba_module, with_state):
    module, _ = mamba_module
    rng = np.random.default_rng(1)
    b, l, d, n = 2, 19, 40, 16
    arrays = [rng.normal(size=(b, l, d)), rng.uniform(-6.9, -2.25, size=(b, l, d)),
              -np.exp(rng.uniform(0, np.log(16), size=(d, n))), rng.normal(size=(b, l, n)),
              rng.normal(size=(b, l, n)), rng.uniform(0.5, 1.5, size=(d,))]
    x, delta, A, B, C, D = (mx.array(a.astype(np.float32)) for a in arrays)
    state = mx.array(rng.normal(size=(b, d, n)).astype(np.float32)) if with_state else None
    y, new_state = module.mamba_mlx_lm(x, delta, A, B, C, D, state)
    y_ref, state_ref = mlx_lm_scan(x, delta, A, B, C, D, state)
    np.testing.assert_allclose(np.array(y), np.array(y_ref), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.array(new_state), np.array(state_ref), rtol=1e-4, atol=1e-5)


def test_mamba_module_rejects_inconsistent_shapes(mamba_module):
    module, _ = mamba_module
    x = mx.zeros((1, 5, 8))
    with pytest.raises(ValueError, match="B has shape"):
        module.mamba_mlx_lm(x, x, mx.zeros((8, 16)), mx.zeros((1, 4, 16)), mx.zeros((1, 5, 16)), mx.zeros((8,)))


@pytest.fixture(scope="module")
def scan_module(tmp_path_factory):
    return exported(tmp_path_factory, "tiny_selective_scan", "mlx")


@pytest.fixture(scope="module")
def scan_module_with_a_drawing_param(tmp_path_factory):
    """tiny_selective_scan whose u is drawn with a standard deviation u_std that differs between the B/C layouts' workloads
    (as bc_layout does), though the kernel never reads it."""
    with open(os.path.join(TEST_TASKS, "tiny_selective_scan", "task.toml")) as f:
        text = f.read().replace('"../../../../', f'"{REPOSITORY}/')
    for old, new in [("[[inputs]]\nname = \"u\"", "[[params]]\nname = \"u_std\"\ndtype = \"f32\"\ndefault = 1.0\n\n[[inputs]]\nname = \"u\""),
                     ("dist = { kind = \"normal\", mean = 0.0, std = 1.0 }", "dist = { kind = \"normal\", mean = 0.0, std = \"u_std\" }"),
                     ("g = 1 }\n\n", "g = 1 }\nparams = { u_std = 2.0 }\n\n"),
                     ("params = { bc_layout = 0 }", "params = { bc_layout = 0, u_std = 3.0 }"),
                     ("params = { delta_softplus = 0 }", "params = { delta_softplus = 0, u_std = 2.0 }"),
                     ("params = { bc_layout = 0, delta_softplus = 0 }", "params = { bc_layout = 0, delta_softplus = 0, u_std = 3.0 }")]:
        assert old in text, old
        text = text.replace(old, new, 1)
    task = tmp_path_factory.mktemp("scan_task") / "task.toml"
    task.write_text(text)
    return exported(tmp_path_factory, str(task), "mlx")


def scan_reference(u, delta, A, B, C, D, z, bc_layout, g=1, softplus=True):
    """The selective scan (tasks/selective_scan) in numpy, float64: y."""
    b, d, l = u.shape
    dt = np.log1p(np.exp(delta)) if softplus else delta
    h = np.zeros((b, d, A.shape[1]))
    y = np.zeros((b, d, l))
    group = np.arange(d) // (d // g)
    for t in range(l):
        Bt, Ct = (B[..., t][:, group], C[..., t][:, group]) if bc_layout else (B[None], C[None])
        h = np.exp(dt[:, :, t, None] * A[None]) * h + dt[:, :, t, None] * Bt * u[:, :, t, None]
        y[:, :, t] = (h * Ct).sum(-1)
    y = y + D[None, :, None] * u
    return y * z / (1 + np.exp(-z))


# selective_scan's workloads take B and C as (b, g, n, l) with bc_layout = 1 or as (d, n) with bc_layout = 0: the module
# takes both, the layout's bc_layout by default, and says which layouts there are when given another.
def test_scan_module_takes_both_b_c_layouts(scan_module):
    module, text = scan_module
    rng = np.random.default_rng(5)
    b, d, l, n = 2, 4, 6, 3
    u, z = rng.normal(size=(b, d, l)), rng.normal(size=(b, d, l))
    delta, A, D = rng.uniform(-3, -1, size=(b, d, l)), -rng.uniform(1, 4, size=(d, n)), rng.uniform(0.5, 1.5, size=(d,))
    for bc_layout, shape in ((1, (b, 1, n, l)), (0, (d, n))):
        B, C = rng.normal(size=shape), rng.normal(size=shape)
        f32 = [a.astype(np.float32) for a in (u, delta, A, B, C, D, z)]
        y, _ = module.selective_scan(*f32)
        np.testing.assert_allclose(np.array(y), scan_reference(u, delta, A, B, C, D, z, bc_layout), rtol=1e-3, atol=1e-4)
        given, _ = module.selective_scan(*f32, bc_layout=bc_layout)
        np.testing.assert_array_equal(np.array(given), np.array(y))
    fixed = [np.zeros(s, np.float32) for s in ((b, d, l), (b, d, l), (d, n), (d, n), (d, n))]
    with pytest.raises(ValueError, match=r"needs bc_layout = 0 with B \(d, n\), C \(d, n\), but bc_layout = 1"):
        module.selective_scan(*fixed, bc_layout=1)
    with pytest.raises(ValueError, match=r"B has shape \(4, 3, 1\), expected \(b, g, n, l\) or \(d, n\)"):
        module.selective_scan(*fixed[:3], np.zeros((4, 3, 1)), fixed[4])
    with pytest.raises(ValueError, match=r"have no layout the kernel takes; expected B \(b, g, n, l\), C \(b, g, n, l\); "
                                         r"or B \(d, n\), C \(d, n\)"):
        module.selective_scan(*fixed[:3], np.zeros((b, 1, n, l)), fixed[4])
    assert "B: float32 (b, g, n, l) or (d, n)" in text


# A param that only draws the inputs is no keyword even where each B/C layout's workloads give it their own value.
def test_scan_module_leaves_out_a_drawing_param_of_each_layout(scan_module_with_a_drawing_param):
    module, _ = scan_module_with_a_drawing_param
    assert "u_std" not in str(inspect.signature(module.selective_scan))
    rng = np.random.default_rng(6)
    b, d, l, n = 1, 4, 5, 3
    u, delta, A = rng.normal(size=(b, d, l)), rng.uniform(-3, -1, size=(b, d, l)), -rng.uniform(1, 4, size=(d, n))
    D, z = rng.uniform(0.5, 1.5, size=(d,)), rng.normal(size=(b, d, l))
    for bc_layout, shape in ((1, (b, 1, n, l)), (0, (d, n))):
        B, C = rng.normal(size=shape), rng.normal(size=shape)
        y, _ = module.selective_scan(u, delta, A, B, C, D, z)
        np.testing.assert_allclose(np.array(y), scan_reference(u, delta, A, B, C, D, z, bc_layout), rtol=1e-3, atol=1e-4)


# Sizes and scalars the kernel cannot take are ValueErrors naming them, also where Python's own arithmetic would raise
# something else (a zero group count divides d; an infinite delta_softplus has no int); with_<output> is a bool.
def test_scan_module_refuses_sizes_and_scalars_it_cannot_take(scan_module):
    module, _ = scan_module
    b, d, l, n = 1, 4, 5, 3
    u, delta, A = np.ones((b, d, l), np.float32), np.full((b, d, l), 0.05, np.float32), -np.ones((d, n), np.float32)
    B = C = np.ones((b, 1, n, l), np.float32)
    with pytest.raises(ValueError, match="selective_scan: the kernel needs g dividing d, but d = 4, g = 0"):
        module.selective_scan(u, delta, A, np.ones((b, 0, n, l)), np.ones((b, 0, n, l)))
    for value in [float("inf"), float("nan")]:
        with pytest.raises(TypeError, match=f"selective_scan: delta_softplus must be an int, got float {value}"):
            module.selective_scan(u, delta, A, B, C, delta_softplus=value)
    y, state = module.selective_scan(u, delta, A, B, C)
    assert state is None
    # The module's usage line asks for every output it names.
    assert "y, last_state = selective_scan(u, delta, A, B, C, with_last_state=True)" in module.__doc__
    for flag in [True, 1, np.bool_(True), mx.array(True)]:
        given, state = module.selective_scan(u, delta, A, B, C, with_last_state=flag)
        assert state.shape == (b, d, n)
        np.testing.assert_array_equal(np.array(given), np.array(y))
    with pytest.raises(TypeError, match="selective_scan: with_last_state must be True or False, got str"):
        module.selective_scan(u, delta, A, B, C, with_last_state="yes")
    with pytest.raises(ValueError, match="selective_scan: with_last_state must be True or False, got 2"):
        module.selective_scan(u, delta, A, B, C, with_last_state=2)
    with pytest.raises(TypeError, match="selective_scan: with_last_state must be True or False, got float 1.0"):
        module.selective_scan(u, delta, A, B, C, with_last_state=1.0)


# An int flag of the task (delta_softplus, attention's causal) is declared a flag by a [[constraints]] entry (0 or 1):
# a kernel may test it as != 0 or as == 1, so 2 is refused, not read either way. Ints come as Python, numpy or 0-d mx
# ints or bools; a float is a TypeError as it is for range() and MLX's int arguments, also a whole one; a value
# beyond the kernel's int32 a ValueError; keywords the function has not are Python's TypeError.
def test_scan_module_takes_flags_as_ints_or_bools_and_nothing_else(scan_module):
    module, _ = scan_module
    assert "Every call needs (else ValueError): g dividing d; delta_softplus 0 or 1." in module.selective_scan.__doc__
    rng = np.random.default_rng(7)
    b, d, l, n = 1, 4, 5, 3
    u, delta, z = rng.normal(size=(b, d, l)), rng.uniform(-1, 1, size=(b, d, l)), rng.normal(size=(b, d, l))
    A, B, C = -rng.uniform(1, 4, size=(d, n)), rng.normal(size=(b, 1, n, l)), rng.normal(size=(b, 1, n, l))
    D = rng.uniform(0.5, 1.5, size=(d,))
    arrays = [a.astype(np.float32) for a in (u, delta, A, B, C, D, z)]
    for flag in [0, 1, True, False, np.int64(1), np.int32(0), np.bool_(True), mx.array(0), mx.array(True), np.array(1)]:
        y, _ = module.selective_scan(*arrays, delta_softplus=flag)
        np.testing.assert_allclose(np.array(y), scan_reference(u, delta, A, B, C, D, z, 1, softplus=bool(flag)),
                                   rtol=1e-3, atol=1e-4)
    for flag in [2, 5, -1]:
        with pytest.raises(ValueError, match=f"selective_scan: the kernel needs delta_softplus 0 or 1, but "
                                             f"delta_softplus = {flag}"):
            module.selective_scan(*arrays, delta_softplus=flag)
    for flag in [1.0, np.float64(0.0), mx.array(1.0)]:
        with pytest.raises(TypeError, match="selective_scan: delta_softplus must be an int, got float"):
            module.selective_scan(*arrays, delta_softplus=flag)
    with pytest.raises(TypeError, match="selective_scan: bc_layout must be an int, got float 1.0"):
        module.selective_scan(*arrays, bc_layout=1.0)
    for flag in [2**31, -2**31 - 1, np.int64(2**40)]:
        with pytest.raises(ValueError, match=f"selective_scan: delta_softplus = {flag} does not fit the kernel's int32"):
            module.selective_scan(*arrays, delta_softplus=flag)
    for flag, error, message in [("1", TypeError, "delta_softplus must be a number, got str"),
                                 (None, TypeError, "delta_softplus must be a number, got NoneType"),
                                 (mx.array([1]), ValueError, r"delta_softplus must be a scalar, got shape \(1,\)"),
                                 (1 + 0j, TypeError, "delta_softplus is complex")]:
        with pytest.raises(error, match=f"selective_scan: {message}"):
            module.selective_scan(*arrays, delta_softplus=flag)
    with pytest.raises(TypeError, match="unexpected keyword argument 'softplus'"):
        module.selective_scan(*arrays, softplus=1)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'C'"):
        module.selective_scan(*arrays[:4])


# A float keyword is any real number but NaN, which no parameter means (MLX's own ops take it and give NaN outputs).
def test_rmsnorm_module_refuses_a_nan_eps(rmsnorm_module):
    module, _ = rmsnorm_module
    x, weight = np.ones((2, 8), np.float32), np.ones(8, np.float32)
    for eps in [float("nan"), np.float32("nan"), mx.array(float("nan"))]:
        with pytest.raises(ValueError, match="rmsnorm: eps is NaN"):
            module.rmsnorm(x, weight, eps=eps)
    with pytest.raises(TypeError, match="rmsnorm: eps must be a number, got str"):
        module.rmsnorm(x, weight, eps="1e-5")


# An mx array given for a scalar reaches the kernel as itself: mx.grad or mx.jvp through eps raises as through x (a Mac
# has no vjp for a custom kernel either), where an array made from its value would give a zero gradient, silently.
def test_gradient_through_a_scalar_keyword_raises_as_through_an_input(rmsnorm_module):
    module, _ = rmsnorm_module
    x, weight = mx.ones((2, 8)), mx.ones((8,))
    with pytest.raises(ValueError, match=r"\[Primitive::vjp\] Not implemented for CustomKernel"):
        mx.grad(lambda eps: module.rmsnorm(x, weight, eps=eps).sum())(mx.array(1e-5))
    with pytest.raises(ValueError, match=r"\[Primitive::jvp\] Not implemented for CustomKernel"):
        mx.jvp(lambda eps: module.rmsnorm(x, weight, eps=eps), [mx.array(1e-5)], [mx.array(1.0)])


def tiny_mamba():
    from mlx_lm.models import mamba

    args = mamba.ModelArgs(model_type="mamba", vocab_size=50, hidden_size=16, intermediate_size=32, state_size=16,
                           num_hidden_layers=2, conv_kernel=4, use_bias=False, use_conv_bias=True,
                           time_step_rank=4)
    mx.random.seed(3)
    model = mamba.Model(args)
    # mlx-lm's initial A_log/D are the same in every layer; random ones test that each block's own reach the kernel
    for layer in model.layers:
        layer.mixer.A_log = mx.random.uniform(0.0, 2.0, shape=layer.mixer.A_log.shape)
        layer.mixer.D = mx.random.uniform(0.5, 1.5, shape=layer.mixer.D.shape)
    return model


def test_mlx_lm_drop_in_gives_the_models_logits(mamba_mlx_lm_module):
    module, _ = mamba_mlx_lm_module
    assert module.__all__ == ["mamba_mlx_lm", "kernel", "patch", "unpatch"]
    model = tiny_mamba()
    prompt = mx.array([[3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 3]])

    def generate(model):
        cache = model.make_cache()
        logits = [model(prompt, cache=cache)]
        token = mx.argmax(logits[-1][:, -1:], axis=-1)
        for _ in range(3):  # decode: single tokens after the prompt's cached state
            logits.append(model(token, cache=cache))
            token = mx.argmax(logits[-1][:, -1:], axis=-1)
        return logits

    expected = generate(model)
    calls = []
    kernel = module.kernel()
    module.kernel = lambda: (lambda **kw: calls.append(kw) or kernel(**kw))
    assert module.patch(model) == 2
    patched = generate(model)
    assert len(calls) == 2  # the prompt in each of the two blocks; decode kept mlx-lm's step
    for got, want in zip(patched, expected):
        np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-3, atol=1e-4)
    module.unpatch(model)
    np.testing.assert_allclose(np.array(model(prompt)), np.array(expected[0]), rtol=1e-5, atol=1e-6)


def test_mlx_lm_format_needs_the_mamba_interface(tmp_path):
    run = ksearch("run", "--task", os.path.join(TEST_TASKS, "tiny_softmax"), "--backend", "metal", "--rounds", "1",
                  "--out", str(tmp_path / "run"))
    assert run.returncode == 0, run.stdout + run.stderr
    out = ksearch("export", str(tmp_path / "run"), "--format", "mlx-lm", "--out", str(tmp_path / "export") + "/")
    assert out.returncode != 0
    assert "needs a task with its interface" in out.stderr
