// Multi-kernel: the first kernel writes each row's 1/rms to a scratch buffer, the second scales
// every element (one thread per element over a 2-D grid).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void inverse_rms(const float* x, float* inv_rms, int cols, float eps) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  float ss = 0.0f;
  for (int c = threadIdx.x; c < cols; c += 32) ss = fmaf(row[c], row[c], ss);
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, o);
  if (threadIdx.x == 0) inv_rms[blockIdx.x] = rsqrtf(ss / cols + eps);
}

__global__ void apply(const float* x, const float* weight, const float* inv_rms, float* y, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) y[(int64_t)r * cols + c] = x[(int64_t)r * cols + c] * inv_rms[r] * weight[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  float* inv_rms = nullptr;
  cudaMalloc(&inv_rms, rows * sizeof(float));
  inverse_rms<<<rows, 32, 0, stream>>>(x, inv_rms, cols, eps);
  const dim3 block(64, 4);
  apply<<<dim3((cols + 63) / 64, (rows + 3) / 4), block, 0, stream>>>(x, weight, inv_rms, y, rows, cols);
  cudaFree(inv_rms);
}
