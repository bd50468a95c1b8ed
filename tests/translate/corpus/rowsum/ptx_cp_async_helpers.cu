// A row staged in chunks of 128 floats by 16-byte cp.async copies through helper functions, as hand-written kernels
// wrap them: cp_async16(unsigned dst, const float4* src) takes a shared-window address, which stage_chunk passes on
// from its own parameter; the kernel gives __cvta_generic_to_shared of the chunk's slot. Rows whose length is not a
// multiple of 4 are read directly.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ void cp_async16(unsigned dst, const float4* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit_and_wait_all() {
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_all;\n" ::);
}
// The thread's float4 of a chunk, where the row has one.
__device__ void stage_chunk(unsigned slot, const float4* row4, int vector, int vectors) {
  if (vector < vectors) cp_async16(slot, row4 + vector);
}

constexpr int kThreads = 32;

__global__ void rowsum_cp_async_helpers(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float4 chunk[kThreads];
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  if (cols % 4 == 0) {
    const int vectors = cols / 4;
    for (int v0 = 0; v0 < vectors; v0 += kThreads) {
      const int n = min(kThreads, vectors - v0);
      stage_chunk(static_cast<unsigned>(__cvta_generic_to_shared(&chunk[threadIdx.x])), reinterpret_cast<const float4*>(row),
                  v0 + threadIdx.x, vectors);
      cp_async_commit_and_wait_all();
      __syncthreads();
      // a neighbour's vector, which another thread copied
      const int mine = (threadIdx.x + 1) % kThreads;
      if (mine < n) s += (chunk[mine].x + chunk[mine].y) + (chunk[mine].z + chunk[mine].w);
      __syncthreads();
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += kThreads) s += row[i];
  }
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_cp_async_helpers<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
