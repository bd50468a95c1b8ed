// Three-pass softmax in three kernels with grid-stride loops: row max and row sum into cudaMallocAsync scratch
// buffers, which the later kernels read through const pointers (an input of fewer than 8 elements, as a scratch
// buffer of 2 rows is, is constant memory in MLX).
#include <cuda_runtime.h>
#include <stdint.h>
#include <cfloat>

__device__ __forceinline__ float warpReduceMax(float val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) val = max(val, __shfl_down_sync(0xffffffff, val, offset));
  return val;
}
__device__ __forceinline__ float warpReduceSum(float val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}

// one warp per row, rows strided over the grid
__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, int rows, int cols) {
  const int lane = threadIdx.x % warpSize;
  const int warp_id = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  const int num_warps = (gridDim.x * blockDim.x) / warpSize;
  for (int r = warp_id; r < rows; r += num_warps) {
    float m = -FLT_MAX;
    for (int c = lane; c < cols; c += warpSize) m = max(m, x[(size_t)r * cols + c]);
    m = warpReduceMax(m);
    if (lane == 0) row_max[r] = m;
  }
}

__global__ void row_sum_kernel(const float* __restrict__ x, const float* __restrict__ row_max, float* __restrict__ row_sum,
                               int rows, int cols) {
  const int lane = threadIdx.x % warpSize;
  const int warp_id = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  const int num_warps = (gridDim.x * blockDim.x) / warpSize;
  for (int r = warp_id; r < rows; r += num_warps) {
    const float m = row_max[r];
    float s = 0.f;
    for (int c = lane; c < cols; c += warpSize) s += expf(x[(size_t)r * cols + c] - m);
    s = warpReduceSum(s);
    if (lane == 0) row_sum[r] = s;
  }
}

__global__ void normalize_kernel(const float* __restrict__ x, const float* __restrict__ row_max,
                                 const float* __restrict__ row_sum, float* __restrict__ y, int rows, int cols) {
  const size_t total = (size_t)rows * cols;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int r = i / cols;
    y[i] = expf(x[i] - row_max[r]) / row_sum[r];
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float *d_max = nullptr, *d_sum = nullptr;
  cudaMallocAsync(&d_max, rows * sizeof(float), stream);
  cudaMallocAsync(&d_sum, rows * sizeof(float), stream);
  const int threads = 256;
  const int warps_per_block = threads / 32;
  const int row_blocks = (int)std::min<int64_t>((rows + warps_per_block - 1) / warps_per_block, 1024);
  row_max_kernel<<<row_blocks, threads, 0, stream>>>(x, d_max, rows, cols);
  row_sum_kernel<<<row_blocks, threads, 0, stream>>>(x, d_max, d_sum, rows, cols);
  const int elem_blocks = (int)std::min<int64_t>((rows * cols + threads - 1) / threads, 4096);
  normalize_kernel<<<elem_blocks, threads, 0, stream>>>(x, d_max, d_sum, y, rows, cols);
  cudaFreeAsync(d_max, stream);
  cudaFreeAsync(d_sum, stream);
}
