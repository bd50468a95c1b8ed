// ggml-cuda norm_f32: the mean and the mean of squares accumulated together in a float2
// (mean_var.x += xi; mean_var.y += xi * xi), warp_reduce_sum overloaded for float2 (both members
// shuffled per step), a __shared__ float2 s_sum[32] for block_size 1024, the variance as
// E[x^2] - mean^2, `const float inv_std = rsqrtf(var + eps)`; the affine gamma/beta applied in the
// same loop; block size from ncols < 1024 as in ggml's norm_f32_cuda.
#include <cuda_runtime.h>
#include <stdint.h>

#define WARP_SIZE 32

template <int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int offset = width / 2; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, width);
  return x;
}

template <int width = WARP_SIZE>
static __device__ __forceinline__ float2 warp_reduce_sum(float2 a) {
#pragma unroll
  for (int offset = width / 2; offset > 0; offset >>= 1) {
    a.x += __shfl_xor_sync(0xffffffff, a.x, offset, width);
    a.y += __shfl_xor_sync(0xffffffff, a.y, offset, width);
  }
  return a;
}

template <int block_size>
static __global__ void norm_f32(const float* x, float* dst, const float* gamma, const float* beta, const int ncols,
                                const int64_t stride_row, const float eps) {
  const int row = blockIdx.x;
  const int tid = threadIdx.x;

  x += (int64_t)row * stride_row;
  dst += (int64_t)row * ncols;

  float2 mean_var = make_float2(0.0f, 0.0f);

  for (int col = tid; col < ncols; col += block_size) {
    const float xi = x[col];
    mean_var.x += xi;
    mean_var.y += xi * xi;
  }

  // sum up partial sums
  mean_var = warp_reduce_sum(mean_var);
  if constexpr (block_size > WARP_SIZE) {
    static_assert(block_size == 1024, "unexpected block_size");
    __shared__ float2 s_sum[32];
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    if (lane_id == 0) s_sum[warp_id] = mean_var;
    __syncthreads();
    mean_var = s_sum[lane_id];
    mean_var = warp_reduce_sum(mean_var);
  }

  const float mean = mean_var.x / ncols;
  const float var = mean_var.y / ncols - mean * mean;
  const float inv_std = rsqrtf(var + eps);

  for (int col = tid; col < ncols; col += block_size) {
    dst[col] = (x[col] - mean) * inv_std * gamma[col] + beta[col];
  }
}

static void norm_f32_cuda(const float* x, const float* gamma, const float* beta, float* dst, const int ncols,
                          const int nrows, const float eps, cudaStream_t stream) {
  const dim3 blocks_num(nrows, 1, 1);
  if (ncols < 1024) {
    const dim3 block_dims(WARP_SIZE, 1, 1);
    norm_f32<WARP_SIZE><<<blocks_num, block_dims, 0, stream>>>(x, dst, gamma, beta, ncols, ncols, eps);
  } else {
    const dim3 block_dims(1024, 1, 1);
    norm_f32<1024><<<blocks_num, block_dims, 0, stream>>>(x, dst, gamma, beta, ncols, ncols, eps);
  }
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  norm_f32_cuda(x, gamma, beta, y, (int)cols, (int)rows, eps, stream);
}
