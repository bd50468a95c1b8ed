// A templated launcher launching rowsum_k<T>: the kernel's later template parameters take their defaults (a block
// size, a bool), which the directives must carry.
#include <cuda_runtime.h>
#include <stdint.h>
template <typename T, int BLOCK = 128, bool kUseShfl = true>
__global__ void rowsum_k(const T* __restrict__ x, T* __restrict__ y, int cols) {
  __shared__ T part[BLOCK];
  const T* row = x + (size_t)blockIdx.x * cols;
  T acc = 0;
  for (int c = threadIdx.x; c < cols; c += BLOCK) acc += row[c];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > (kUseShfl ? 16 : 0); s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (kUseShfl && threadIdx.x < 32) {
    T v = part[threadIdx.x] + (threadIdx.x < 16 ? 0 : 0);
    v = threadIdx.x < 16 ? part[threadIdx.x] + part[threadIdx.x + 16] : 0;
    for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) y[blockIdx.x] = v;
  } else if (!kUseShfl && threadIdx.x == 0) {
    y[blockIdx.x] = part[0];
  }
}
template <typename T>
void run(const T* x, T* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<T><<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  run(x, y, rows, cols, stream);
}
