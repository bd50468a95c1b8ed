// ggml-cuda's newer reduction helpers: enum class block_reduce_method { MAX, SUM }, a
// block_reduce_policy<method, T> struct with static reduce() and sentinel(), warp_reduce_sum /
// warp_reduce_max, a block_reduce<method, block_size_template>(val, shared_vals) helper taking the
// kernel's __shared__ array (a cross-warp step only when the block spans several warps, its size from
// the template or blockDim.x), sum_rows_f32 reading the row with a stride loop; the block size chosen
// by the host as ggml does (ncols < 1024 ? WARP_SIZE : 1024 would idle; here 32 / 256 / 512).
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>

#define WARP_SIZE 32

enum class block_reduce_method { MAX, SUM };

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, WARP_SIZE);
  return x;
}
static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, WARP_SIZE));
  return x;
}

template <block_reduce_method method, typename T>
struct block_reduce_policy;

template <typename T>
struct block_reduce_policy<block_reduce_method::SUM, T> {
  static __device__ T reduce(T v) { return warp_reduce_sum(v); }
  static __device__ T sentinel() { return T(0); }
};

template <typename T>
struct block_reduce_policy<block_reduce_method::MAX, T> {
  static __device__ T reduce(T v) { return warp_reduce_max(v); }
  static __device__ T sentinel() { return -FLT_MAX; }
};

template <block_reduce_method method, int block_size_template = 0, typename T>
static __device__ T block_reduce(T val, T* shared_vals) {
  using policy = block_reduce_policy<method, T>;
  const int block_size = block_size_template == 0 ? blockDim.x : block_size_template;
  val = policy::reduce(val);
  if (block_size > WARP_SIZE) {
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    if (lane_id == 0) shared_vals[warp_id] = val;
    __syncthreads();
    val = lane_id < block_size / WARP_SIZE ? shared_vals[lane_id] : policy::sentinel();
    val = policy::reduce(val);
  }
  return val;
}

template <int block_size>
static __global__ void sum_rows_f32(const float* __restrict__ x, float* __restrict__ dst, const int ncols) {
  const int row = blockIdx.x;
  const int col = threadIdx.x;
  __shared__ float shared_vals[WARP_SIZE];

  float sum = 0.0f;
  for (int i = col; i < ncols; i += block_size) sum += x[(int64_t)row * ncols + i];

  sum = block_reduce<block_reduce_method::SUM, block_size>(sum, shared_vals);

  if (col == 0) dst[row] = sum;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 block_nums((unsigned)rows, 1, 1);
  if (cols <= 128) {
    sum_rows_f32<WARP_SIZE><<<block_nums, dim3(WARP_SIZE, 1, 1), 0, stream>>>(x, y, (int)cols);
  } else if (cols <= 2048) {
    sum_rows_f32<256><<<block_nums, dim3(256, 1, 1), 0, stream>>>(x, y, (int)cols);
  } else {
    sum_rows_f32<512><<<block_nums, dim3(512, 1, 1), 0, stream>>>(x, y, (int)cols);
  }
}
