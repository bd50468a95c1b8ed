// OneFlow-style warp softmax: a templated launcher passing a built-in type (`float`) before integer arguments to the
// kernel template, template-template ReduceOp functors, a warp-width template for the shuffles.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math_constants.h>

template <typename T>
struct SumOp {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a + b; }
};
template <typename T>
struct MaxOp {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return max(a, b); }
};

template <template <typename> class ReductionOp, typename T, int thread_group_width = 32>
__inline__ __device__ T WarpAllReduce(T val) {
  for (int mask = thread_group_width / 2; mask > 0; mask /= 2) {
    val = ReductionOp<T>()(val, __shfl_xor_sync(0xffffffff, val, mask, thread_group_width));
  }
  return val;
}

template <typename T, int pack_size, int cols_per_thread, int thread_group_width>
__global__ void SoftmaxWarpImpl(const T* src, T* dst, const int64_t rows, const int64_t cols) {
  constexpr int num_packs = cols_per_thread / pack_size;
  T buf[cols_per_thread];
  const int lane_id = threadIdx.x;
  const int64_t row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  T thread_max = -CUDART_INF_F;
#pragma unroll
  for (int pack_id = 0; pack_id < num_packs; ++pack_id) {
    const int col = (pack_id * thread_group_width + lane_id) * pack_size;
#pragma unroll
    for (int i = 0; i < pack_size; ++i) {
      buf[pack_id * pack_size + i] = col + i < cols ? src[row * cols + col + i] : -CUDART_INF_F;
      thread_max = max(thread_max, buf[pack_id * pack_size + i]);
    }
  }
  const T warp_max = WarpAllReduce<MaxOp, T, thread_group_width>(thread_max);
  T thread_sum = 0;
#pragma unroll
  for (int i = 0; i < cols_per_thread; ++i) {
    buf[i] = __expf(buf[i] - warp_max);
    thread_sum += buf[i];
  }
  const T warp_sum = WarpAllReduce<SumOp, T, thread_group_width>(thread_sum);
#pragma unroll
  for (int pack_id = 0; pack_id < num_packs; ++pack_id) {
    const int col = (pack_id * thread_group_width + lane_id) * pack_size;
#pragma unroll
    for (int i = 0; i < pack_size; ++i)
      if (col + i < cols) dst[row * cols + col + i] = buf[pack_id * pack_size + i] / warp_sum;
  }
}

template <int cols_per_thread>
void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(32, 4);
  SoftmaxWarpImpl<float, 1, cols_per_thread, 32><<<(rows + 3) / 4, block, 0, stream>>>(x, y, rows, cols);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols <= 32) launch<1>(x, y, rows, cols, stream);
  else if (cols <= 128) launch<4>(x, y, rows, cols, stream);
  else if (cols <= 1024) launch<32>(x, y, rows, cols, stream);
  else launch<128>(x, y, rows, cols, stream);
}
