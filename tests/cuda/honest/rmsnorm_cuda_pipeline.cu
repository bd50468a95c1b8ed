// task: rmsnorm
// A block per row, the row streamed through shared memory in chunks by cuda::memcpy_async on a per-thread
// cuda::pipeline (two stages: the next chunk is in flight while this one is summed); a second pass scales.
#include <cuda/pipeline>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kThreads = 256;
constexpr int kChunk = kThreads;  // floats per stage: one per thread
constexpr int kStages = 2;

__global__ void __launch_bounds__(kThreads)
rmsnorm_pipelined(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ y, int64_t cols, float eps) {
  __shared__ float stage[kStages][kChunk];
  __shared__ float warp_sums[kThreads / 32];
  const float* row = x + int64_t(blockIdx.x) * cols;
  float* out = y + int64_t(blockIdx.x) * cols;
  const int64_t chunks = (cols + kChunk - 1) / kChunk;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  // Each thread copies and later reads its own element of each chunk, so the thread-scoped pipeline suffices.
  auto fetch = [&](int64_t chunk) {
    pipe.producer_acquire();
    const int64_t c = chunk * kChunk + threadIdx.x;
    if (c < cols) cuda::memcpy_async(&stage[chunk % kStages][threadIdx.x], row + c, sizeof(float), pipe);
    pipe.producer_commit();
  };
  float ss = 0.f;
  for (int64_t s = 0; s < kStages - 1 && s < chunks; ++s) fetch(s);
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    if (chunk + kStages - 1 < chunks) fetch(chunk + kStages - 1);
    else {  // keep the commit count even so that the wait below always targets `chunk`
      pipe.producer_acquire();
      pipe.producer_commit();
    }
    cuda::pipeline_consumer_wait_prior<kStages - 1>(pipe);
    const int64_t c = chunk * kChunk + threadIdx.x;
    if (c < cols) {
      const float v = stage[chunk % kStages][threadIdx.x];
      ss += v * v;
    }
    pipe.consumer_release();
  }
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = ss;
  __syncthreads();
  float total = 0.f;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w];
  const float r = rsqrtf(total / float(cols) + eps);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) out[c] = row[c] * r * weight[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  if (rows > 0 && cols > 0) rmsnorm_pipelined<<<unsigned(rows), kThreads, 0, stream>>>(x, weight, y, cols, eps);
}
