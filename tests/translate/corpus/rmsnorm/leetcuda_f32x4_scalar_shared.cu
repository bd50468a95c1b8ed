// LeetCUDA's rms_norm_f32x4 style: a block per row, float4 loads through pointer arithmetic on parameters without
// const (`*reinterpret_cast<float4*>(x + row * K + k)`, FLOAT4 of an element), a scalar __shared__ holding the row's
// factor, a block reduction template with a defaulted size and a static __shared__ sized by a local constexpr.
#include <cuda_runtime.h>
#include <stdint.h>
#define WARP_SIZE 32
#define FLOAT4(value) (reinterpret_cast<float4*>(&(value))[0])

template <const int kWarpSize = WARP_SIZE>
__device__ __forceinline__ float warp_reduce_sum_f32(float val) {
#pragma unroll
  for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1) val += __shfl_xor_sync(0xffffffff, val, mask);
  return val;
}

template <const int NUM_THREADS = 256>
__device__ __forceinline__ float block_reduce_sum_f32(float val) {
  constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) / WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  static __shared__ float shared[NUM_WARPS];
  val = warp_reduce_sum_f32<WARP_SIZE>(val);
  if (lane == 0) shared[warp] = val;
  __syncthreads();
  val = (lane < NUM_WARPS) ? shared[lane] : 0.0f;
  val = warp_reduce_sum_f32<NUM_WARPS>(val);
  return val;
}

template <const int NUM_THREADS = 128>
__global__ void rms_norm_f32x4_kernel(float* x, float* w, float* y, float eps, int N, int K) {
  int tid = threadIdx.x;
  int row = blockIdx.x;
  __shared__ float s_factor;
  float sum = 0.0f;
  for (int k = tid * 4; k < K; k += NUM_THREADS * 4) {
    if (K % 4 == 0 && k + 3 < K) {
      float4 reg_x = *reinterpret_cast<float4*>(x + row * K + k);
      sum += reg_x.x * reg_x.x + reg_x.y * reg_x.y + reg_x.z * reg_x.z + reg_x.w * reg_x.w;
    } else {
      for (int j = k; j < K && j < k + 4; ++j) sum += x[row * K + j] * x[row * K + j];
    }
  }
  float variance = block_reduce_sum_f32<NUM_THREADS>(sum);
  if (tid == 0) s_factor = rsqrtf(variance / (float)K + eps);
  __syncthreads();
  for (int k = tid * 4; k < K; k += NUM_THREADS * 4) {
    if (K % 4 == 0 && k + 3 < K) {
      float4 reg_x = FLOAT4(x[row * K + k]);
      float4 reg_w = FLOAT4(w[k]);
      float4 reg_y;
      reg_y.x = reg_x.x * s_factor * reg_w.x;
      reg_y.y = reg_x.y * s_factor * reg_w.y;
      reg_y.z = reg_x.z * s_factor * reg_w.z;
      reg_y.w = reg_x.w * s_factor * reg_w.w;
      FLOAT4(y[row * K + k]) = reg_y;
    } else {
      for (int j = k; j < K && j < k + 4; ++j) y[row * K + j] = x[row * K + j] * s_factor * w[j];
    }
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rms_norm_f32x4_kernel<128><<<rows, 128, 0, stream>>>((float*)x, (float*)weight, y, eps, (int)rows, (int)cols);
}
