// A bitonic sort sized to the row: the padded length (a power of two) chosen on the host and passed
// with `extern __shared__` bytes, one thread per pair, the step as a `__device__` helper
// with `fminf`/`fmaxf` and a direction bit.
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>

__device__ void bitonic_step(float* keys, unsigned pair, unsigned k, unsigned j) {
  const unsigned lo = 2 * j * (pair / j) + pair % j;
  const unsigned hi = lo + j;
  const bool up = (lo & k) == 0;
  const float a = keys[lo], b = keys[hi];
  keys[lo] = up ? fminf(a, b) : fmaxf(a, b);
  keys[hi] = up ? fmaxf(a, b) : fminf(a, b);
}

__global__ void sort_pow2(const float* __restrict__ in, float* __restrict__ out, int cols, int padded) {
  extern __shared__ float keys[];
  const int64_t base = (int64_t)blockIdx.x * cols;
  for (int i = threadIdx.x; i < padded; i += blockDim.x) keys[i] = i < cols ? in[base + i] : FLT_MAX;
  __syncthreads();
  for (unsigned k = 2; k <= (unsigned)padded; k *= 2)
    for (unsigned j = k / 2; j >= 1; j /= 2) {
      for (unsigned pair = threadIdx.x; pair < (unsigned)padded / 2; pair += blockDim.x) bitonic_step(keys, pair, k, j);
      __syncthreads();
    }
  for (int i = threadIdx.x; i < cols; i += blockDim.x) out[base + i] = keys[i];
}

extern "C" void sort_rows(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int padded = cols <= 128 ? 128 : cols <= 512 ? 512 : 1024;
  const int threads = padded / 2 < 512 ? padded / 2 : 512;
  sort_pow2<<<rows, threads, padded * sizeof(float), stream>>>(x, y, (int)cols, padded);
}
