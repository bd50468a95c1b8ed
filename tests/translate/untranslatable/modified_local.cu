// Untranslatable: the grid comes from a local that cudaDeviceGetAttribute writes through its address (line 17) after
// its declaration, an attribute the port gives no answer for; the launch (line 18) cannot be computed.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_rows(const float* x, float* y, int64_t rows, int cols) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows; r += (int64_t)gridDim.x * blockDim.x) {
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += x[r * cols + c];
    y[r] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrComputeCapabilityMajor, device);
  rowsum_rows<<<sms * 4, 128, 0, stream>>>(x, y, rows, (int)cols);
}
