// Untranslatable: a pointer chosen between shared and global memory (line 13, as llama.cpp's soft_max_f32 keeps
// its row in shared memory when it fits): a Metal pointer points into one address space.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_staged(const float* x, float* y, float* scratch, int cols, bool stage_in_shared) {
  __shared__ float row[1024];
  const int r = blockIdx.x;
  float s = 0.0f;
  if (threadIdx.x == 0) {
    // Stage the row where it fits, then sum it from wherever it went.

    float* staged = stage_in_shared ? row : scratch + (int64_t)r * cols;
    for (int c = 0; c < cols; ++c) staged[c] = x[(int64_t)r * cols + c];
    for (int c = 0; c < cols; ++c) s += staged[c];
    y[r] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float* scratch = nullptr;
  cudaMallocAsync(&scratch, rows * cols * sizeof(float), stream);
  rowsum_staged<<<rows, 32, 0, stream>>>(x, y, scratch, (int)cols, cols <= 1024);
  cudaFreeAsync(scratch, stream);
}
