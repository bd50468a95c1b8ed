// llm.c style: warpReduceMax / warpReduceSum device functions given to a blockReduce template as a
// function-pointer template argument (`template <float (*warp_reduction)(float)>`), a static shared
// buffer of WARP_SIZE partials, a final_sync default argument, an out_of_bounds value for lanes past
// the last warp. One block per row, online max and sum in one sweep, then the normalizing sweep.
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>
#include <assert.h>

#define WARP_SIZE 32U

__device__ inline float warpReduceMax(float val) {
  for (int offset = 16; offset > 0; offset /= 2) val = fmaxf(val, __shfl_xor_sync(0xFFFFFFFF, val, offset));
  return val;
}
__device__ inline float warpReduceSum(float val) {
  for (int offset = 16; offset > 0; offset /= 2) val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
  return val;
}

template <float (*warp_reduction)(float)>
__device__ inline float blockReduce(float val, bool final_sync = false, float out_of_bounds = 0.0f) {
  // two reductions of up to 1024 threads: a warp reduction, its results in shared memory, then again
  __shared__ float shared_val[WARP_SIZE];
  const int lane_id = threadIdx.x % WARP_SIZE;
  const int warp_id = threadIdx.x / WARP_SIZE;
  const int num_warps = blockDim.x / WARP_SIZE;

  float warp_val = warp_reduction(val);
  if (lane_id == 0) shared_val[warp_id] = warp_val;
  __syncthreads();
  warp_val = (lane_id < num_warps) ? shared_val[lane_id] : out_of_bounds;
  float block_val = warp_reduction(warp_val);

  if (final_sync) __syncthreads();  // only needed in loops when effectively reusing shared memory
  return block_val;
}

__global__ void softmax_forward_kernel_online(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  const int idx = blockIdx.x;
  const float* x = inp + (int64_t)idx * C;

  float thread_maxval = -INFINITY;
  float thread_sumval = 0.0f;
  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    const float v = x[i];
    const float old_max = thread_maxval;
    thread_maxval = fmaxf(thread_maxval, v);
    thread_sumval = thread_sumval * expf(old_max - thread_maxval) + expf(v - thread_maxval);
  }
  const float block_maxval = blockReduce<warpReduceMax>(thread_maxval, true, -INFINITY);
  // rescale this thread's sum to the block's max (a thread with no element has a sum of 0)
  thread_sumval *= (thread_maxval == -INFINITY) ? 0.0f : expf(thread_maxval - block_maxval);
  const float block_sumval = blockReduce<warpReduceSum>(thread_sumval);
  const float norm = 1.f / block_sumval;

  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    out[(int64_t)idx * C + i] = expf(x[i] - block_maxval) * norm;
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int block_size = 256;
  assert(block_size % WARP_SIZE == 0);
  const int grid_size = (int)rows;
  softmax_forward_kernel_online<<<grid_size, block_size, 0, stream>>>(y, x, (int)rows, (int)cols);
}
