// Untranslatable: a struct pointer field given __shared__ memory (line 11), a view of a shared tile.
#include <cuda_runtime.h>
#include <stdint.h>
struct View2D {
  float* data;
  int ld;
  __device__ float& at(int r, int c) { return data[r * ld + c]; }
};
__global__ void transpose_view(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  __shared__ float tile[32][33];
  View2D t{&tile[0][0], 33};
  const int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y;
  if (r < rows && c < cols) t.at(threadIdx.y, threadIdx.x) = x[(size_t)r * cols + c];
  __syncthreads();
  const int oc = blockIdx.y * 32 + threadIdx.x, orow = blockIdx.x * 32 + threadIdx.y;
  if (orow < cols && oc < rows) y[(size_t)orow * rows + oc] = t.at(threadIdx.x, threadIdx.y);
}
extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(32, 32), grid((cols + 31) / 32, (rows + 31) / 32);
  transpose_view<<<grid, block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
