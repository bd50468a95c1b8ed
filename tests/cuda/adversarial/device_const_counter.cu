// expect: wrong_answer: counts calls in a `__device__ const` table (accepted by the device ELF checks: its host-side shadow is read-only data), written through a pointer cast from it, and skips the work after the third call; the re-check after timing finds the output unwritten.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ const unsigned call_count[1] = {0u};

__device__ float block_reduce(float v, float* scratch, bool is_max) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const float o = scratch[threadIdx.x + s];
      scratch[threadIdx.x] = is_max ? fmaxf(scratch[threadIdx.x], o) : scratch[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const float r = scratch[0];
  __syncthreads();
  return r;
}

__global__ void count_calls(unsigned* calls) {
  unsigned* kept = const_cast<unsigned*>(&call_count[0]);
  asm volatile("" : "+l"(kept));  // hides from the compiler where the pointer came from
  *calls = atomicAdd(kept, 1u) + 1;
}

__global__ void softmax_kernel(const float* x, float* y, int64_t cols, const unsigned* calls) {
  if (*calls > 3) return;
  __shared__ float scratch[256];
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce(m, scratch, true);
  float s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce(s, scratch, false);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0) return;
  unsigned* calls = nullptr;
  cudaMallocAsync(&calls, sizeof(unsigned), stream);
  count_calls<<<1, 1, 0, stream>>>(calls);
  softmax_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, cols, calls);
  cudaFreeAsync(calls, stream);
}
