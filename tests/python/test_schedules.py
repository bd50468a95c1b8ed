"""Kernels whose outputs depend on the order threads run in raise: ksearch-metalsim runs a kernel with atomics or
threadgroup variables again under metalsim's reversed and atomic-lockstep schedules (docs/METALSIM.md, "Schedules")."""
import mlx.core as mx
import numpy as np
import pytest

import metalsim_mlx

ROWS, COLS = 2, 300

# Every thread stores its partial (max, sum of exponentials) into threadgroup atomics, and the last thread combines
# all 256 with atomic loads, with no barrier between: run in index order it goes last and finds every partial; on a
# GPU its SIMD group may run first (tests/metal/adversarial/threadgroup_atomic_partials_without_barrier.metal).
PARTIALS_WITHOUT_BARRIER = """
    threadgroup atomic_uint pm[256];
    threadgroup atomic_uint ps[256];
    uint row = threadgroup_position_in_grid.x;
    uint t = thread_index_in_threadgroup;
    const device float* xr = x + size_t(row) * cols;
    device float* yr = y + size_t(row) * cols;
    float m = -INFINITY;
    for (int c = t; c < cols; c += 256) m = max(m, xr[c]);
    float s = 0.0f;
    for (int c = t; c < cols; c += 256) s += exp(xr[c] - m);
    atomic_store_explicit(&pm[t], as_type<uint>(m), memory_order_relaxed);
    atomic_store_explicit(&ps[t], as_type<uint>(s), memory_order_relaxed);
    if (t != 255u) return;
    float M = -INFINITY;
    for (int i = 0; i < 256; ++i) M = max(M, as_type<float>(atomic_load_explicit(&pm[i], memory_order_relaxed)));
    float S = 0.0f;
    for (int i = 0; i < 256; ++i) {
      float mi = as_type<float>(atomic_load_explicit(&pm[i], memory_order_relaxed));
      float si = as_type<float>(atomic_load_explicit(&ps[i], memory_order_relaxed));
      if (si > 0.0f) S += si * exp(mi - M);
    }
    float inv = 1.0f / S;
    for (int c = 0; c < cols; ++c) yr[c] = exp(xr[c] - M) * inv;
"""

# Tells the emulator from a GPU by its schedule: each lane adds 1 to a threadgroup atomic counter and reads it back.
# One thread at a time in index order, lane 0 finds fewer than 32; a GPU's SIMD group adds in lockstep, so lane 0
# finds 32, and the kernel then writes zeros (tests/metal/adversarial/schedule_probe_threadgroup_counter.metal).
SCHEDULE_PROBE = """
    threadgroup atomic_uint cnt;
    threadgroup uint emulated;
    uint row = thread_position_in_grid.x / 32;
    uint lane = thread_index_in_simdgroup;
    if (lane == 0) atomic_store_explicit(&cnt, 0u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    atomic_fetch_add_explicit(&cnt, 1u, memory_order_relaxed);
    uint seen = atomic_load_explicit(&cnt, memory_order_relaxed);
    if (lane == 0) emulated = (seen < 32u) ? 1u : 0u;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const device float* xr = x + size_t(row) * cols;
    device float* yr = y + size_t(row) * cols;
    if (emulated == 0u) {
      for (int c = lane; c < cols; c += 32) yr[c] = 0.0f;
      return;
    }
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
    m = simd_max(m);
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
    s = simd_sum(s);
    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
"""

# Correct for any order: each thread adds its value into its bucket with a float atomic.
SCATTER_ADD = """
    uint i = thread_position_in_grid.x;
    atomic_fetch_add_explicit(&out[idx[i]], values[i], memory_order_relaxed);
"""

# Correct for any order: a threadgroup reduction with barriers between writes and reads.
THREADGROUP_SUM = """
    threadgroup float partial[64];
    uint t = thread_index_in_threadgroup;
    partial[t] = x[thread_position_in_grid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = 32; stride > 0; stride /= 2) {
      if (t < stride) partial[t] += partial[t + stride];
      threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (t == 0) y[threadgroup_position_in_grid.x] = partial[0];
"""


def softmax_inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal((ROWS, COLS)).astype(np.float32)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def call_softmax(source, threads_per_row):
    kernel = metalsim_mlx.metal_kernel(name="softmax", input_names=["x", "cols"], output_names=["y"], source=source)
    return kernel(
        inputs=[mx.array(softmax_inputs()), COLS],
        output_shapes=[(ROWS, COLS)],
        output_dtypes=[mx.float32],
        grid=(threads_per_row * ROWS, 1, 1),
        threadgroup=(threads_per_row, 1, 1),
    )


def test_threadgroup_atomic_partials_without_barrier_raise():
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="the result depends on the order threads run in") as caught:
        call_softmax(PARTIALS_WITHOUT_BARRIER, 256)
    assert caught.value.schedule == "reversed"
    assert "reversed schedule" in str(caught.value)


def test_schedule_probe_raises_under_atomic_lockstep():
    with pytest.raises(metalsim_mlx.MetalRuntimeError, match="the result depends on the order threads run in") as caught:
        call_softmax(SCHEDULE_PROBE, 32)
    assert caught.value.schedule == "atomic-lockstep"
    # The first differing element: the softmax under the in-order schedule, 0 under the atomic-lockstep one.
    assert "output 'y'[0, 0] is " in str(caught.value) and " and 0 under metalsim's atomic-lockstep" in str(caught.value)


def test_schedule_probe_passes_with_only_the_in_order_schedule(monkeypatch):
    monkeypatch.setenv("METALSIM_SCHEDULES", "in-order")
    (y,) = call_softmax(SCHEDULE_PROBE, 32)
    np.testing.assert_allclose(np.array(y), softmax(softmax_inputs()), rtol=1e-5, atol=1e-6)


def test_unknown_schedule_name_is_a_setup_error(monkeypatch):
    monkeypatch.setenv("METALSIM_SCHEDULES", "in-order,backwards")
    with pytest.raises(metalsim_mlx.MetalsimError, match="unknown schedule 'backwards'"):
        call_softmax(SCHEDULE_PROBE, 32)


def test_float_atomic_scatter_add_passes():
    rng = np.random.default_rng(1)
    n, buckets = 512, 8
    idx = rng.integers(0, buckets, n).astype(np.int32)
    values = rng.standard_normal(n).astype(np.float32)
    kernel = metalsim_mlx.metal_kernel(name="scatter_add", input_names=["idx", "values"], output_names=["out"],
                                       source=SCATTER_ADD, atomic_outputs=True)
    (out,) = kernel(inputs=[mx.array(idx), mx.array(values)], output_shapes=[(buckets,)], output_dtypes=[mx.float32],
                    grid=(n, 1, 1), threadgroup=(256, 1, 1), init_value=0)
    expected = np.zeros(buckets, np.float64)
    np.add.at(expected, idx, values.astype(np.float64))
    np.testing.assert_allclose(np.array(out), expected, rtol=1e-4, atol=1e-4)


def test_threadgroup_reduction_with_barriers_passes():
    x = np.arange(256, dtype=np.float32)
    kernel = metalsim_mlx.metal_kernel(name="tg_sum", input_names=["x"], output_names=["y"], source=THREADGROUP_SUM)
    (y,) = kernel(inputs=[mx.array(x)], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(256, 1, 1),
                  threadgroup=(64, 1, 1))
    np.testing.assert_array_equal(np.array(y), x.reshape(4, 64).sum(axis=1))
