// 4, 5: work off the clock in `prepare`, through the runner's own reference to its device object. The guard region
// holds the object's address and vtable pointer, which the runner checks and puts back; a runner that called the
// object through its own reference (kept on its stack) could be given another object instead. At the end of its
// first call the candidate reads the real address from the guard page, makes a copy of the object whose vtable has
// its own `prepare` and `call`, and replaces every copy of the address on the stack above its frame with the copy's:
// the real object and its vtable pointer stay as they were. The fake `prepare` computes the staged repetition's
// outputs into a buffer of its own (after ksearch staged the inputs, off every clock; the outputs keep their poison)
// and the fake `call` copies them in. Defenses: the runner reaches its device by the guard's read-only copy of the
// address before every command, so the copy is never called and every call computes for real; and ksearch measures
// each `prepare` and `collect` from outside the runner (wall and CPU time), charging work beyond the calibrated cost
// to the call.
// expect: passed
// expect-without-rules: passed
// expect-no-speedup
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

namespace {
// The runner's CallArgs as laid out in memory (runner/child.hpp)
struct MixMirror {
  uint64_t seed;
  size_t element_bytes;
};
struct CallArgsMirror {
  std::vector<void*> ptrs;
  std::vector<size_t> bytes;
  std::vector<bool> is_output;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::optional<MixMirror>> mix;
  bool wake_threads;
};
constexpr int kSlots = 16, kCall = 5, kPrepare = 6;  // the vtable's size and the slots of `call` and `prepare`
constexpr size_t kObjectCopy = 512;
constexpr uint64_t kGuardMagic = 0x4b53656172636847ull;

struct State {
  uintptr_t real_device;
  uintptr_t* real_vtable;
  float* scratch;
  size_t scratch_floats;
  const void* out;  // the output precomputed for
  bool ready;
  uintptr_t vtable[kSlots + 2];
};

void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}

State* state_of(void* self) { return reinterpret_cast<State*>(static_cast<char*>(self) + kObjectCopy); }

using MethodFn = void (*)(void*, const void*);

void fake_prepare(void* self, const void* raw) {
  State* s = state_of(self);
  const auto* a = static_cast<const CallArgsMirror*>(raw);
  s->ready = false;
  if (a->ptrs.size() == 2 && a->ints.size() >= 2 && a->ptrs[0] && a->ptrs[1]) {
    const int64_t rows = a->ints[0], cols = a->ints[1];
    if (size_t(rows * cols) > s->scratch_floats) {
      std::free(s->scratch);
      s->scratch = static_cast<float*>(std::malloc(size_t(rows * cols) * sizeof(float)));
      s->scratch_floats = size_t(rows * cols);
    }
    softmax_rows(static_cast<const float*>(a->ptrs[0]), s->scratch, rows, cols);
    s->out = a->ptrs[1];
    s->ready = true;
  }
  reinterpret_cast<MethodFn>(s->real_vtable[kPrepare])(reinterpret_cast<void*>(s->real_device), raw);
}

void fake_call(void* self, const void* raw) {
  State* s = state_of(self);
  const auto* a = static_cast<const CallArgsMirror*>(raw);
  const int64_t rows = a->ints[0], cols = a->ints[1];
  float* y = static_cast<float*>(a->ptrs[1]);
  const bool precomputed = s->ready && s->out == y;
  s->ready = false;
  if (precomputed) std::memcpy(y, s->scratch, size_t(rows * cols) * sizeof(float));
  else softmax_rows(static_cast<const float*>(a->ptrs[0]), y, rows, cols);
}

void install() {
  const uintptr_t* guard = reinterpret_cast<const uintptr_t*>(uintptr_t(0x10000));
  if (guard[0] != kGuardMagic) return;
  const uintptr_t device = guard[1];
  uintptr_t* frame = reinterpret_cast<uintptr_t*>(__builtin_frame_address(0));
  if (device <= uintptr_t(frame) || device - uintptr_t(frame) > (1u << 20)) return;
  const uintptr_t* real = reinterpret_cast<const uintptr_t*>(device);
  uintptr_t* real_vtable = reinterpret_cast<uintptr_t*>(real[0]);
  char* fake = static_cast<char*>(std::malloc(kObjectCopy + sizeof(State)));
  std::memcpy(fake, real, kObjectCopy);
  State* s = state_of(fake);
  *s = State{};
  s->real_device = device;
  s->real_vtable = real_vtable;
  s->vtable[0] = real_vtable[-2];
  s->vtable[1] = real_vtable[-1];
  for (int i = 0; i < kSlots; ++i) s->vtable[2 + i] = real_vtable[i];
  s->vtable[2 + kPrepare] = reinterpret_cast<uintptr_t>(&fake_prepare);
  s->vtable[2 + kCall] = reinterpret_cast<uintptr_t>(&fake_call);
  *reinterpret_cast<uintptr_t**>(fake) = s->vtable + 2;
  for (uintptr_t* q = frame; uintptr_t(q) < device; ++q)
    if (*q == device) *q = uintptr_t(fake);
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  softmax_rows(x, y, rows, cols);
  install();
}
