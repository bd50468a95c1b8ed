// Untranslatable: the second launch (line 28) updates the scratch buffer the first wrote, through a cast of it
// (`reinterpret_cast<float*>(partial)[r] += s`): an update in place across launches.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ void put(float* p, float v) { *p += v; }
struct Holder { float* ptr; };
__global__ void first_half(const float* x, float* partial, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int64_t c = 0; c < cols / 2; ++c) s += x[r * cols + c];
  partial[r] = s;
}
__global__ void second_half(const float* x, float* partial, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int64_t c = cols / 2; c < cols; ++c) s += x[r * cols + c];
  reinterpret_cast<float*>(partial)[r] += s;
  y[r] = partial[r];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float* partial = nullptr;
  cudaMallocAsync(&partial, sizeof(float) * rows, stream);
  first_half<<<(rows + 63) / 64, 64, 0, stream>>>(x, partial, rows, cols);
  second_half<<<(rows + 63) / 64, 64, 0, stream>>>(x, partial, y, rows, cols);
  cudaFreeAsync(partial, stream);
}
