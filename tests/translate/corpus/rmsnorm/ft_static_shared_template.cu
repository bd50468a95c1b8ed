// FasterTransformer-style warpReduceSum/blockReduceSum<T> whose static __shared__ T shared[32] is hoisted into
// the kernel with the type its call deduces (float); a float comparison against blockDim.x / 32.f, dim3 fields.
#include <cuda_runtime.h>
#include <stdint.h>
#define FINAL_MASK 0xffffffff
template <typename T>
__inline__ __device__ T warpReduceSum(T val) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) val += __shfl_xor_sync(FINAL_MASK, val, mask, 32);
  return val;
}
template <typename T>
__inline__ __device__ T blockReduceSum(T val) {
  static __shared__ T shared[32];
  int lane = threadIdx.x & 0x1f;
  int wid = threadIdx.x >> 5;
  val = warpReduceSum<T>(val);
  if (lane == 0) shared[wid] = val;
  __syncthreads();
  val = (threadIdx.x < (blockDim.x / 32.f)) ? shared[lane] : (T)(0.0f);
  val = warpReduceSum<T>(val);
  return val;
}
__global__ void generalT5LayerNorm(const float* __restrict input, const float* __restrict gamma, float* output, const float layernorm_eps,
                                   int m, int n) {
  const int tid = threadIdx.x;
  __shared__ float s_variance;
  float variance = 0.0f;
  float local_var_sum = 0.0f;
  for (int i = tid; i < n; i += blockDim.x) {
    float diff = (float)(input[blockIdx.x * n + i]);
    local_var_sum += diff * diff;
  }
  variance = blockReduceSum(local_var_sum);
  if (threadIdx.x == 0) s_variance = rsqrtf(variance / (float)n + layernorm_eps);
  __syncthreads();
  for (int i = tid; i < n; i += blockDim.x)
    output[blockIdx.x * n + i] = (float)(((float)input[blockIdx.x * n + i]) * s_variance) * (float)(__ldg(&gamma[i]));
}
extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  dim3 grid(rows);
  dim3 block(min((int)cols, 1024));
  block.x = 32 * ((block.x + 31) / 32);
  generalT5LayerNorm<<<grid, block, 0, stream>>>(x, weight, y, eps, (int)rows, (int)cols);
}
