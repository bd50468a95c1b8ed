// task: softmax
// The block reduction of NVIDIA's "Faster Parallel Reductions on Kepler" post: each warp reduces with shuffles, and
// the warps' partials meet in a function-local `static __shared__ float shared[32];` of the reducing device function
// (shared memory of the block, gone when the block ends; `static` is how the post writes it).
#include <cuda_runtime.h>
#include <cstdint>

__inline__ __device__ float warp_reduce_max(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}
__inline__ __device__ float warp_reduce_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__inline__ __device__ float block_reduce_sum(float val) {
  static __shared__ float shared[32];  // one partial per warp
  const int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  val = warp_reduce_sum(val);
  __syncthreads();  // shared is reused by the next call
  if (lane == 0) shared[wid] = val;
  __syncthreads();
  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0.0f;
  if (wid == 0) val = warp_reduce_sum(val);
  if (threadIdx.x == 0) shared[0] = val;
  __syncthreads();
  return shared[0];
}

__inline__ __device__ float block_reduce_max(float val) {
  __shared__ static float shared_max[32];  // the other order, as some code writes it
  const int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  val = warp_reduce_max(val);
  __syncthreads();
  if (lane == 0) shared_max[wid] = val;
  __syncthreads();
  val = (threadIdx.x < blockDim.x / warpSize) ? shared_max[lane] : -INFINITY;
  if (wid == 0) val = warp_reduce_max(val);
  if (threadIdx.x == 0) shared_max[0] = val;
  __syncthreads();
  return shared_max[0];
}

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  const float* in = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
  m = block_reduce_max(m);
  float s = 0.0f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(in[c] - m);
  const float inv = 1.0f / block_reduce_sum(s);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(in[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0) softmax_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, cols);
}
