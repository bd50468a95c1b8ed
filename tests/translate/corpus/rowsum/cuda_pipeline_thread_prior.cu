// Each thread streams its own float4s of a row through a three-stage pipeline of its own copies (libcu++'s
// cuda::make_pipeline(), cuda::aligned_size_t sizes): up to three copies in flight, each read after
// cuda::pipeline_consumer_wait_prior<2> once the thread has committed the next ones. Rows whose length is not a
// multiple of 4 go element by element; a warp's shuffles and a shared array add the partial sums.
#include <cuda/pipeline>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 64;
constexpr int kDepth = 3;

__global__ void rowsum_thread_pipeline(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float4 staged[kDepth][kThreads];
  __shared__ float warp_sums[kThreads / 32];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  if (cols % 4 == 0) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    const int vectors = cols / 4;
    // the thread's vectors: threadIdx.x, threadIdx.x + kThreads, ...
    const int mine = vectors > (int)threadIdx.x ? (vectors - (int)threadIdx.x + kThreads - 1) / kThreads : 0;
    for (int k = 0; k < mine + kDepth - 1; ++k) {
      pipe.producer_acquire();
      if (k < mine)
        cuda::memcpy_async(&staged[k % kDepth][threadIdx.x], row4 + threadIdx.x + k * kThreads,
                           cuda::aligned_size_t<16>(sizeof(float4)), pipe);
      pipe.producer_commit();
      if (k >= kDepth - 1) {
        cuda::pipeline_consumer_wait_prior<kDepth - 1>(pipe);
        const float4 v = staged[(k - kDepth + 1) % kDepth][threadIdx.x];
        s += (v.x + v.y) + (v.z + v.w);
        pipe.consumer_release();
      }
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += kThreads) s += row[i];
  }
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = warp_sums[0] + warp_sums[1];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_thread_pipeline<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
