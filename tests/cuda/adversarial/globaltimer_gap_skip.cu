// expect: wrong_answer: tells back-to-back timed repetitions from checked calls by the time since its previous call: each call stamps %globaltimer (inline PTX, which the rules allow) into stream-ordered pool memory (cudaMallocAsync hands the same block back), and a call that comes within 5 ms of the last one skips the work. Timed repetitions are checked at random, so a skipped one is found (a checked repetition's inputs and reference are made after its call: made before it, they lengthened the gap, the candidate computed exactly the checked calls, and only the roofline caught it, at the largest workload).
// expect-without-rules: wrong_answer
#include <cuda_runtime.h>
#include <stdint.h>

constexpr unsigned long long kStamped = 0x5354414d50ull;  // marks a stamp this candidate wrote
constexpr unsigned long long kRecentNs = 5000000ull;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void softmax_rows_unless_recent(const float* x, float* y, int64_t rows, int64_t cols,
                                           const unsigned long long* stamp) {
  if (stamp[1] == kStamped && global_ns() - stamp[0] < kRecentNs) return;
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

__global__ void stamp_call(unsigned long long* stamp) {
  stamp[0] = global_ns();
  stamp[1] = kStamped;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  unsigned long long* stamp = nullptr;
  if (cudaMallocAsync(&stamp, 2 * sizeof(unsigned long long), stream) != cudaSuccess) return;
  softmax_rows_unless_recent<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols, stamp);
  stamp_call<<<1, 1, 0, stream>>>(stamp);
  cudaFreeAsync(stamp, stream);
}
