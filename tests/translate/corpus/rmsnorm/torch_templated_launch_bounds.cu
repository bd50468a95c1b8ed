// PyTorch-style RMSNorm: scalar_t / acc_t templates, C10_WARP_SIZE, a cuWarpReduce helper, the block
// sum through shared memory and a final broadcast via a __shared__ scalar.
#include <cuda_runtime.h>
#include <stdint.h>

#define C10_WARP_SIZE 32

template <typename T>
__device__ __forceinline__ T WARP_SHFL_DOWN(T value, unsigned int delta, int width = C10_WARP_SIZE,
                                            unsigned int mask = 0xffffffff) {
  return __shfl_down_sync(mask, value, delta, width);
}

template <typename acc_t>
__device__ acc_t BlockReduceSum(acc_t val, acc_t* shared) {
  const int lid = threadIdx.x % C10_WARP_SIZE;
  const int wid = threadIdx.x / C10_WARP_SIZE;
#pragma unroll
  for (int offset = C10_WARP_SIZE / 2; offset > 0; offset >>= 1) val += WARP_SHFL_DOWN(val, offset);
  __syncthreads();
  if (lid == 0) shared[wid] = val;
  __syncthreads();
  val = (threadIdx.x < blockDim.x / C10_WARP_SIZE) ? shared[lid] : acc_t(0);
  if (wid == 0) {
#pragma unroll
    for (int offset = C10_WARP_SIZE / 2; offset > 0; offset >>= 1) val += WARP_SHFL_DOWN(val, offset);
  }
  return val;
}

template <typename scalar_t, typename acc_t>
__global__ void __launch_bounds__(512) rms_norm_kernel(const scalar_t* __restrict__ X, const scalar_t* __restrict__ gamma,
                                                      scalar_t* __restrict__ Y, int64_t N, acc_t eps) {
  __shared__ acc_t s_rstd;
  __shared__ acc_t shared[C10_WARP_SIZE];
  const int64_t i = blockIdx.x;
  acc_t sum_sq = 0;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
    const acc_t v = static_cast<acc_t>(X[i * N + j]);
    sum_sq += v * v;
  }
  sum_sq = BlockReduceSum<acc_t>(sum_sq, shared);
  if (threadIdx.x == 0) s_rstd = rsqrtf(sum_sq / static_cast<acc_t>(N) + eps);
  __syncthreads();
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x)
    Y[i * N + j] = static_cast<scalar_t>(static_cast<acc_t>(X[i * N + j]) * s_rstd * static_cast<acc_t>(gamma[j]));
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  const int threads = cols >= 512 ? 512 : 128;
  rms_norm_kernel<float, float><<<rows, threads, 0, stream>>>(x, weight, y, cols, eps);
}
