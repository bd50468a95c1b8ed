// 4, 5, 6: the runner's `CpuDevice device` object lives on main()'s stack. Its vtable pointer is neither in a
// loaded object's writable data (so the code-pointer hold never sees it) nor reset. The candidate finds the object
// by scanning up the stack for the word holding &ksearch_entry (CpuDevice::entry_, right after the vptr), then
// points the vptr at a heap copy of the vtable whose `prepare` slot is the candidate's. ksearch stages each
// repetition's inputs and then sends `prepare` (untimed, no CPU accounting): the hijacked prepare computes the
// softmax there. The timed call finds the output already written (not NaN) and only does one memory pass.
// expect: runtime_error
// expect-without-rules: runtime_error
// expect-message: the vtable pointer of the runner's device object
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

extern "C" void ksearch_entry(void* const* ptrs, const int64_t* ints, const double* floats, void* stream);

namespace {
struct MixMirror { uint64_t seed; size_t element_bytes; };
struct CallArgsMirror {
  std::vector<void*> ptrs;
  std::vector<size_t> bytes;
  std::vector<bool> is_output;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::optional<MixMirror>> mix;
};
constexpr uintptr_t kMagic = 0x5afec0de1234abcdull;
constexpr int kSlots = 15, kPrepare = 6;

void compute(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) { yr[c] = std::exp(xr[c] - m); sum += yr[c]; }
    const float inv = 1.0f / sum;
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}

using PrepareFn = void (*)(void*, const void*);

void fake_prepare(void* self, const void* raw) {
  const auto* a = static_cast<const CallArgsMirror*>(raw);
  if (a->ptrs.size() >= 2 && a->ints.size() >= 2 && a->ptrs[0] && a->ptrs[1])
    compute(static_cast<const float*>(a->ptrs[0]), static_cast<float*>(a->ptrs[1]), a->ints[0], a->ints[1]);
  uintptr_t* vt = *static_cast<uintptr_t**>(self);
  reinterpret_cast<PrepareFn>(vt[kSlots + 1])(self, raw);  // the runner's own prepare (state reset)
}

void install() {
  const uintptr_t target = reinterpret_cast<uintptr_t>(&ksearch_entry);
  // From the frame address: g++ must not assume the scan stays inside a local (and drop the store as dead).
  uintptr_t* p = reinterpret_cast<uintptr_t*>(__builtin_frame_address(0));
  for (int i = 1; i < 200000; ++i) {
    if (p[i] != target) continue;
    uintptr_t* object = p + i - 1;
    uintptr_t* vt = reinterpret_cast<uintptr_t*>(object[0]);
    if (!vt || (reinterpret_cast<uintptr_t>(vt) & 7)) continue;
    if (vt[kSlots] == kMagic) return;  // already ours
    bool plausible = vt[-2] == 0;
    for (int s = 0; s < kSlots && plausible; ++s)
      plausible = vt[s] > 0x1000 && (vt[s] > vt[0] ? vt[s] - vt[0] : vt[0] - vt[s]) < (64u << 20);
    if (!plausible) continue;
    auto* fake = static_cast<uintptr_t*>(std::malloc(sizeof(uintptr_t) * (kSlots + 4)));
    fake[0] = vt[-2];
    fake[1] = vt[-1];
    for (int s = 0; s < kSlots; ++s) fake[2 + s] = vt[s];
    fake[2 + kSlots] = kMagic;
    fake[2 + kSlots + 1] = vt[kPrepare];
    fake[2 + kPrepare] = reinterpret_cast<uintptr_t>(&fake_prepare);
    object[0] = reinterpret_cast<uintptr_t>(fake + 2);
    return;
  }
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  install();
  if (!std::isnan(y[0]) && !std::isnan(y[rows * cols - 1])) {
    // Precomputed in prepare: one pass over the tensors so the time looks like a memory-bound kernel's.
    // Precomputed: touch one float per cache line of x and y, so the time is about the memory roofline's.
    float acc = 0;
    for (int64_t i = 0; i < rows * cols; i += 16) acc += x[i] + y[i];
    volatile float sink = acc;
    (void)sink;
    return;
  }
  compute(x, y, rows, cols);
}
