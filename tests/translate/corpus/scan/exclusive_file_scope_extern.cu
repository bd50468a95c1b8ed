// A row scanned in chunks of the block: a work-efficient (up-sweep / down-sweep) exclusive scan of
// each chunk in a file-scope `extern __shared__` array, the chunk's total carried to the next, the
// inclusive result as exclusive + x.
#include <cuda_runtime.h>
#include <stdint.h>

extern __shared__ float temp[];

__global__ void scan_rows_exclusive(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const int n = 2 * blockDim.x;  // elements per chunk
  const int tid = threadIdx.x;
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  float carry = 0.0f;
  for (int base = 0; base < cols; base += n) {
    const int a = base + 2 * tid, b = a + 1;
    temp[2 * tid] = a < cols ? in[a] : 0.0f;
    temp[2 * tid + 1] = b < cols ? in[b] : 0.0f;
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
      __syncthreads();
      if (tid < d) {
        const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
        temp[bi] += temp[ai];
      }
      offset *= 2;
    }
    __syncthreads();
    const float total = temp[n - 1];
    __syncthreads();
    if (tid == 0) temp[n - 1] = 0.0f;
    for (int d = 1; d < n; d *= 2) {
      offset >>= 1;
      __syncthreads();
      if (tid < d) {
        const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
        const float t = temp[ai];
        temp[ai] = temp[bi];
        temp[bi] += t;
      }
    }
    __syncthreads();
    if (a < cols) out[a] = carry + temp[2 * tid] + in[a];
    if (b < cols) out[b] = carry + temp[2 * tid + 1] + in[b];
    carry += total;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  scan_rows_exclusive<<<rows, threads, 2 * threads * sizeof(float), stream>>>(x, y, (int)cols);
}
