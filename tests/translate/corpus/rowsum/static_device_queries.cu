// Device queries as real code caches them: a helper whose `static const` local an immediately called lambda fills with
// the SM count (cudaGetDevice, cudaDeviceGetAttribute), a `static const` local of the entry holding it, and
// cudaFuncGetAttributes' maxThreadsPerBlock of the kernel bounding the block.
#include <cuda_runtime.h>
#include <cstdint>
#include <algorithm>

__global__ void rowsum_grid(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  for (int64_t r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += gridDim.x * (blockDim.x / 32)) {
    float s = 0.f;
    for (int64_t c = threadIdx.x % 32; c < cols; c += 32) s += x[r * cols + c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) y[r] = s;
  }
}

static int sm_count() {
  static const int count = [] {
    int device = 0, n = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device);
    return n;
  }();
  return count;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  static const int sms = sm_count();
  const int64_t wanted = (rows + 3) / 4;
  const unsigned blocks = unsigned(std::min<int64_t>(wanted, int64_t(sms) * 4));
  cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, rowsum_grid);
  const int threads = std::min(128, attr.maxThreadsPerBlock);
  rowsum_grid<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}
