// llama.cpp-style rms_norm_f32<block_size>: row = blockIdx.x * blockDim.y + threadIdx.y, a warp for short
// rows and 256 threads otherwise, `const dim3 block_dims(...)` declared inside each branch, and a
// __shared__ array declared inside `if (block_size > WARP_SIZE)`.
#include <cuda_runtime.h>
#include <stdint.h>

#define WARP_SIZE 32

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int mask = WARP_SIZE / 2; mask > 0; mask >>= 1) x += __shfl_xor_sync(0xffffffff, x, mask, 32);
  return x;
}

template <int block_size>
static __global__ void rms_norm_f32(const float* x, const float* weight, float* dst, const int ncols,
                                    const float eps) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  const int tid = threadIdx.x;

  float tmp = 0.0f;  // partial sum for thread in warp
  for (int col = tid; col < ncols; col += block_size) {
    const float xi = x[row * ncols + col];
    tmp += xi * xi;
  }

  // sum up partial sums
  tmp = warp_reduce_sum(tmp);
  if (block_size > WARP_SIZE) {
    __shared__ float s_sum[32];
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    if (lane_id == 0) s_sum[warp_id] = tmp;
    __syncthreads();
    tmp = lane_id < block_size / WARP_SIZE ? s_sum[lane_id] : 0.0f;
    tmp = warp_reduce_sum(tmp);
  }

  const float mean = tmp / ncols;
  const float scale = rsqrtf(mean + eps);

  for (int col = tid; col < ncols; col += block_size) {
    dst[row * ncols + col] = scale * x[row * ncols + col] * weight[col];
  }
}

static void rms_norm_f32_cuda(const float* x, const float* weight, float* dst, const int ncols, const int nrows,
                              const float eps, cudaStream_t stream) {
  if (ncols < 1024) {
    const dim3 block_dims(WARP_SIZE, 1, 1);
    rms_norm_f32<WARP_SIZE><<<nrows, block_dims, 0, stream>>>(x, weight, dst, ncols, eps);
  } else {
    const dim3 block_dims(256, 1, 1);
    rms_norm_f32<256><<<nrows, block_dims, 0, stream>>>(x, weight, dst, ncols, eps);
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rms_norm_f32_cuda(x, weight, y, (int)cols, (int)rows, eps, stream);
}
