// PyTorch's persistent warp softmax style: template <typename input_t, typename output_t,
// typename acc_t, int log2_elements>, WARP_ITERATIONS/WARP_SIZE constexprs, a templated
// warp_reduce over a functor with __shfl_xor_sync, register arrays, -infinity padding.
#include <cuda_runtime.h>
#include <stdint.h>
#include <limits>

template <typename T>
struct Add {
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

template <typename T>
struct Max {
  __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};

template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR(T value, int laneMask, int width = warpSize, unsigned int mask = 0xffffffff) {
  return __shfl_xor_sync(mask, value, laneMask, width);
}

template <typename acc_t, int WARP_BATCH, int WARP_SIZE, template <typename> class ReduceOp>
__device__ __forceinline__ void warp_reduce(acc_t* sum) {
  ReduceOp<acc_t> r;
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
#pragma unroll
    for (int i = 0; i < WARP_BATCH; ++i) {
      acc_t b = WARP_SHFL_XOR(sum[i], offset, WARP_SIZE);
      sum[i] = r(sum[i], b);
    }
  }
}

template <typename input_t, typename output_t, typename acc_t, int log2_elements>
__global__ void softmax_warp_forward(output_t* dst, const input_t* src, int batch_size, int stride, int element_count) {
  constexpr int next_power_of_two = 1 << log2_elements;
  constexpr int WARP_SIZE = (next_power_of_two < 32) ? next_power_of_two : 32;
  constexpr int WARP_ITERATIONS = next_power_of_two / WARP_SIZE;
  constexpr int WARP_BATCH = (next_power_of_two <= 128) ? 2 : 1;

  int first_batch = (blockDim.y * blockIdx.x + threadIdx.y) * WARP_BATCH;
  int local_batches = batch_size - first_batch;
  if (local_batches > WARP_BATCH) local_batches = WARP_BATCH;
  int local_idx = threadIdx.x;
  src += first_batch * stride + local_idx;
  dst += first_batch * stride + local_idx;

  acc_t elements[WARP_BATCH][WARP_ITERATIONS];
#pragma unroll
  for (int i = 0; i < WARP_BATCH; ++i) {
    int batch_element_count = (i >= local_batches) ? 0 : element_count;
#pragma unroll
    for (int it = 0; it < WARP_ITERATIONS; ++it) {
      int element_index = local_idx + it * WARP_SIZE;
      elements[i][it] = element_index < batch_element_count ? (acc_t)src[i * element_count + it * WARP_SIZE]
                                                             : -std::numeric_limits<acc_t>::infinity();
    }
  }
  acc_t max_value[WARP_BATCH];
#pragma unroll
  for (int i = 0; i < WARP_BATCH; ++i) {
    max_value[i] = elements[i][0];
#pragma unroll
    for (int it = 1; it < WARP_ITERATIONS; ++it) max_value[i] = (max_value[i] > elements[i][it]) ? max_value[i] : elements[i][it];
  }
  warp_reduce<acc_t, WARP_BATCH, WARP_SIZE, Max>(max_value);
  acc_t sum[WARP_BATCH]{0.0f};
#pragma unroll
  for (int i = 0; i < WARP_BATCH; ++i) {
#pragma unroll
    for (int it = 0; it < WARP_ITERATIONS; ++it) {
      elements[i][it] = std::exp(elements[i][it] - max_value[i]);
      sum[i] += elements[i][it];
    }
  }
  warp_reduce<acc_t, WARP_BATCH, WARP_SIZE, Add>(sum);
#pragma unroll
  for (int i = 0; i < WARP_BATCH; ++i) {
    if (i >= local_batches) break;
#pragma unroll
    for (int it = 0; it < WARP_ITERATIONS; ++it) {
      int element_index = local_idx + it * WARP_SIZE;
      if (element_index < element_count) dst[i * element_count + it * WARP_SIZE] = (output_t)(elements[i][it] / sum[i]);
    }
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  // PyTorch dispatches on log2(cols); the corpus task's rows (up to 3001) fit 2^12.
  const int warp_size = 32;
  const int batches_per_warp = 1;
  const int warps_per_block = 128 / warp_size;
  const int batches_per_block = warps_per_block * batches_per_warp;
  const int blocks = (rows + batches_per_block - 1) / batches_per_block;
  dim3 threads(warp_size, warps_per_block, 1);
  softmax_warp_forward<float, float, float, 12><<<blocks, threads, 0, stream>>>(y, x, rows, cols, cols);
}
