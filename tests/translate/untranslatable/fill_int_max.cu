// Untranslatable: a fill launch storing INT_MAX (line 24) before an atomicMin kernel: the fill would become that
// kernel's init_value, which MLX takes as a float, where INT_MAX is 2^31 (no int holds it).
#include <climits>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void fill_int(int* p, int v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
__global__ void first_negative(const float* x, int* best, int cols) {
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    if (x[(int64_t)blockIdx.x * cols + c] < 0.0f) atomicMin(&best[blockIdx.x], c);
}
__global__ void finish(const int* best, float* y, int rows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) y[r] = best[r] == INT_MAX ? -1.0f : (float)best[r];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int* best = nullptr;
  cudaMallocAsync(&best, rows * sizeof(int), stream);
  const int blocks = (int)((rows + 127) / 128);
  fill_int<<<blocks, 128, 0, stream>>>(best, INT_MAX, (int)rows);
  first_negative<<<(unsigned)rows, 64, 0, stream>>>(x, best, (int)cols);
  finish<<<blocks, 128, 0, stream>>>(best, y, (int)rows);
  cudaFreeAsync(best, stream);
}
