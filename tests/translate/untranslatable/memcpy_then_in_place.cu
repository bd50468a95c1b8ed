// Untranslatable: the input copied into a work buffer by cudaMemcpyAsync (line 20), which a kernel then reduces in
// place; MLX has no host-side copy: the kernel must read the input and write the work buffer.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_in_place(float* work, float* y, int cols) {
  float* row = work + (size_t)blockIdx.x * cols;
  for (int width = cols; width > 1; width = (width + 1) / 2) {
    const int half = (width + 1) / 2;
    for (int c = threadIdx.x; c + half < width; c += blockDim.x) row[c] += row[c + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = row[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float* work = nullptr;
  const size_t bytes = rows * cols * sizeof(float);
  cudaMallocAsync(&work, bytes, stream);
  cudaMemcpyAsync(work, x, bytes, cudaMemcpyDeviceToDevice, stream);
  rowsum_in_place<<<(unsigned)rows, 128, 0, stream>>>(work, y, (int)cols);
  cudaFreeAsync(work, stream);
}
