// ggml-cuda rms_norm_f32: template <int block_size>, one row per (blockIdx.x) with the row strided by
// blockDim.x, the sum of squares reduced by warp_reduce_sum then (block_size > WARP_SIZE) through a
// __shared__ s_sum[32] indexed by warp_id / lane_id, `const float mean = tmp / ncols;
// const float scale = rsqrtf(mean + eps);`, the weight multiplied in a fused second loop (ggml's
// rms_norm_mul fusion), block size 32 or 1024 chosen by `ncols < 1024` on the host, sample strides
// (ggml's nb01 / sizeof(float)) passed as int64_t.
#include <cuda_runtime.h>
#include <stdint.h>

#define WARP_SIZE 32

template <int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int offset = width / 2; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, width);
  return x;
}

template <int block_size, bool do_multiply = false>
static __global__ void rms_norm_f32(const float* x, float* dst, const int ncols, const int64_t stride_row,
                                    const float eps, const float* mul = nullptr) {
  const int row = blockIdx.x;
  const int tid = threadIdx.x;

  x += row * stride_row;
  dst += row * stride_row;

  float tmp = 0.0f;  // partial sum for thread in warp

  for (int col = tid; col < ncols; col += block_size) {
    const float xi = x[col];
    tmp += xi * xi;
  }

  // sum up partial sums
  tmp = warp_reduce_sum(tmp);
  if constexpr (block_size > WARP_SIZE) {
    static_assert(block_size == 1024, "unexpected block_size");
    __shared__ float s_sum[32];
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    if (lane_id == 0) s_sum[warp_id] = tmp;
    __syncthreads();
    tmp = s_sum[lane_id];
    tmp = warp_reduce_sum(tmp);
  }

  const float mean = tmp / ncols;
  const float scale = rsqrtf(mean + eps);

  for (int col = tid; col < ncols; col += block_size) {
    if constexpr (do_multiply) {
      dst[col] = scale * x[col] * mul[col];
    } else {
      dst[col] = scale * x[col];
    }
  }
}

static void rms_norm_mul_f32_cuda(const float* x, const float* mul, float* dst, const int ncols, const int nrows,
                                  const int64_t stride_row, const float eps, cudaStream_t stream) {
  const dim3 blocks_num(nrows, 1, 1);
  if (ncols < 1024) {
    const dim3 block_dims(WARP_SIZE, 1, 1);
    rms_norm_f32<WARP_SIZE, true><<<blocks_num, block_dims, 0, stream>>>(x, dst, ncols, stride_row, eps, mul);
  } else {
    const dim3 block_dims(1024, 1, 1);
    rms_norm_f32<1024, true><<<blocks_num, block_dims, 0, stream>>>(x, dst, ncols, stride_row, eps, mul);
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rms_norm_mul_f32_cuda(x, weight, y, (int)cols, (int)rows, cols, eps, stream);
}
