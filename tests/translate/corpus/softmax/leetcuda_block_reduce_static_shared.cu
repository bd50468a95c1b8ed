// LeetCUDA's reductions: warp and block reductions as __device__ templates with defaulted size parameters, a
// `static __shared__ float shared[NUM_WARPS]` sized by a local `constexpr int NUM_WARPS` computed from the template
// parameter, called from a kernel template with its own parameter (`block_reduce_max_f32<BLOCK>(m)`), the input given
// as `(float*)x` to a parameter without const, and LeetCUDA's INT4/FLOAT4 macros defined but unused.
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>
#define WARP_SIZE 32
#define INT4(value) (reinterpret_cast<int4*>(&(value))[0])
#define FLOAT4(value) (reinterpret_cast<float4*>(&(value))[0])

template<const int kWarpSize = WARP_SIZE>
__device__ __forceinline__ float warp_reduce_sum_f32(float val) {
  #pragma unroll
  for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1) {
    val += __shfl_xor_sync(0xffffffff, val, mask);
  }
  return val;
}

template<const int kWarpSize = WARP_SIZE>
__device__ __forceinline__ float warp_reduce_max_f32(float val) {
  #pragma unroll
  for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1) {
    val = fmaxf(val, __shfl_xor_sync(0xffffffff, val, mask));
  }
  return val;
}

template<const int NUM_THREADS=256>
__device__ float block_reduce_sum_f32(float val) {
  constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) / WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  static __shared__ float shared[NUM_WARPS];
  float value = warp_reduce_sum_f32<WARP_SIZE>(val);
  if (lane == 0) shared[warp] = value;
  __syncthreads();
  value = (lane < NUM_WARPS) ? shared[lane] : 0.0f;
  value = warp_reduce_sum_f32<NUM_WARPS>(value);
  value = __shfl_sync(0xffffffff, value, 0, 32);
  return value;
}

template<const int NUM_THREADS=256>
__device__ float block_reduce_max_f32(float val) {
  constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) / WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  static __shared__ float shared[NUM_WARPS];
  float value = warp_reduce_max_f32<WARP_SIZE>(val);
  if (lane == 0) shared[warp] = value;
  __syncthreads();
  value = (lane < NUM_WARPS) ? shared[lane] : -FLT_MAX;
  value = warp_reduce_max_f32<NUM_WARPS>(value);
  value = __shfl_sync(0xffffffff, value, 0, 32);
  return value;
}

template<const int BLOCK = 256>
__global__ void safe_softmax_f32_per_token_kernel(float* x, float* y, int N) {
  const int tid = threadIdx.x;
  const float* xr = x + blockIdx.x * N;
  float* yr = y + blockIdx.x * N;
  float m = -FLT_MAX;
  for (int i = tid; i < N; i += BLOCK) m = fmaxf(m, xr[i]);
  float max_val = block_reduce_max_f32<BLOCK>(m);
  float s = 0.0f;
  for (int i = tid; i < N; i += BLOCK) s += expf(xr[i] - max_val);
  float exp_sum = block_reduce_sum_f32<BLOCK>(s);
  for (int i = tid; i < N; i += BLOCK) yr[i] = expf(xr[i] - max_val) / exp_sum;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  safe_softmax_f32_per_token_kernel<256><<<rows, 256, 0, stream>>>((float*)x, y, (int)cols);
}
