// ggml-cuda style soft_max_f32: template <bool use_shared, int ncols_template, int block_size_template>,
// ncols = ncols_template == 0 ? ncols_par : ncols_template, WARP_SIZE lanes, warp_reduce_max /
// warp_reduce_sum as static __device__ __forceinline__ helpers with an unrolled xor butterfly, a
// __shared__ buf_iw[WARP_SIZE] for the cross-warp step (only when block_size > WARP_SIZE), the
// exponentials kept in the destination row between the passes, a scale parameter (1.0 here), and a
// host switch over the padded column count choosing the template (ggml's soft_max_f32_cuda).
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>

#define WARP_SIZE 32
#define CUDA_SOFT_MAX_BLOCK_SIZE 1024
#define GGML_UNUSED(x) (void)(x)

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, 32);
  return x;
}

static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, 32));
  return x;
}

template <bool use_shared, int ncols_template, int block_size_template>
static __global__ void soft_max_f32(const float* x, float* dst, const int ncols_par, const float scale) {
  const int ncols = ncols_template == 0 ? ncols_par : ncols_template;

  const int tid = threadIdx.x;
  const int rowx = blockIdx.x;

  const int block_size = block_size_template == 0 ? blockDim.x : block_size_template;

  const int warp_id = threadIdx.x / WARP_SIZE;
  const int lane_id = threadIdx.x % WARP_SIZE;

  __shared__ float buf_iw[WARP_SIZE];

  float* vals = dst + (int64_t)rowx * ncols;
  GGML_UNUSED(use_shared);

  float max_val = -INFINITY;

#pragma unroll
  for (int col0 = 0; col0 < ncols; col0 += block_size) {
    const int col = col0 + tid;
    if (ncols_template == 0 && col >= ncols) break;
    const int64_t ix = (int64_t)rowx * ncols + col;
    const float val = x[ix] * scale;
    vals[col] = val;
    max_val = max(max_val, val);
  }

  // find the max value in the block
  max_val = warp_reduce_max(max_val);
  if (block_size > WARP_SIZE) {
    if (warp_id == 0) buf_iw[lane_id] = -INFINITY;
    __syncthreads();
    if (lane_id == 0) buf_iw[warp_id] = max_val;
    __syncthreads();
    max_val = buf_iw[lane_id];
    max_val = warp_reduce_max(max_val);
  }

  float tmp = 0.0f;  // partial sum

#pragma unroll
  for (int col0 = 0; col0 < ncols; col0 += block_size) {
    const int col = col0 + tid;
    if (ncols_template == 0 && col >= ncols) break;
    const float val = expf(vals[col] - max_val);
    tmp += val;
    vals[col] = val;
  }

  // find the sum of exps in the block
  tmp = warp_reduce_sum(tmp);
  if (block_size > WARP_SIZE) {
    __syncthreads();
    if (warp_id == 0) buf_iw[lane_id] = 0.0f;
    __syncthreads();
    if (lane_id == 0) buf_iw[warp_id] = tmp;
    __syncthreads();
    tmp = buf_iw[lane_id];
    tmp = warp_reduce_sum(tmp);
  }

  const float inv_sum = 1.0f / tmp;

#pragma unroll
  for (int col0 = 0; col0 < ncols; col0 += block_size) {
    const int col = col0 + tid;
    if (ncols_template == 0 && col >= ncols) return;
    dst[(int64_t)rowx * ncols + col] = vals[col] * inv_sum;
  }
}

static void soft_max_f32_cuda(const float* x, float* dst, const int ncols_x, const int nrows_x, const float scale,
                              cudaStream_t stream) {
  int nth = WARP_SIZE;
  while (nth < ncols_x && nth < CUDA_SOFT_MAX_BLOCK_SIZE) nth *= 2;
  const dim3 block_dims(nth, 1, 1);
  const dim3 block_nums(nrows_x, 1, 1);
  const int ncols_padded = nth;
  switch (ncols_x) {
    case 32:
      soft_max_f32<true, 32, 32><<<block_nums, block_dims, 0, stream>>>(x, dst, ncols_x, scale);
      break;
    case 64:
      soft_max_f32<true, 64, 64><<<block_nums, block_dims, 0, stream>>>(x, dst, ncols_x, scale);
      break;
    case 128:
      soft_max_f32<true, 128, 128><<<block_nums, block_dims, 0, stream>>>(x, dst, ncols_x, scale);
      break;
    case 256:
      soft_max_f32<true, 256, 256><<<block_nums, block_dims, 0, stream>>>(x, dst, ncols_x, scale);
      break;
    default:
      soft_max_f32<true, 0, 0><<<block_nums, block_dims, 0, stream>>>(x, dst, ncols_x, scale);
      break;
  }
  GGML_UNUSED(ncols_padded);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  soft_max_f32_cuda(x, y, (int)cols, (int)rows, 1.0f, stream);
}
