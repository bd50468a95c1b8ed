// PyTorch's elementwise style: scalar_t templates, an accumulate type, C10_LAUNCH_BOUNDS_1 and
// CUDA_KERNEL_LOOP over a 64-bit index, AT_DISPATCH-like switch in the launcher.
#include <cuda_runtime.h>
#include <stdint.h>

#define C10_WARP_SIZE 32
constexpr int CUDA_MAX_THREADS_PER_BLOCK = 1024;
#define C10_MAX_THREADS_PER_BLOCK(val) \
  (((val) <= CUDA_MAX_THREADS_PER_BLOCK) ? (val) : CUDA_MAX_THREADS_PER_BLOCK)
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))

#define CUDA_KERNEL_LOOP_TYPE(i, n, index_type)                                                     \
  int64_t _i_n_d_e_x = blockIdx.x * blockDim.x + threadIdx.x;                                        \
  for (index_type i = _i_n_d_e_x; _i_n_d_e_x < (n); _i_n_d_e_x += blockDim.x * gridDim.x, i = _i_n_d_e_x)
#define CUDA_KERNEL_LOOP(i, n) CUDA_KERNEL_LOOP_TYPE(i, n, int64_t)

template <typename T>
struct OpMathType {
  using type = T;
};
template <typename T>
using opmath_t = typename OpMathType<T>::type;

constexpr int kNumThreads = 4 * C10_WARP_SIZE * 4;

template <typename scalar_t>
C10_LAUNCH_BOUNDS_1(kNumThreads)
__global__ void axpy_kernel(const int64_t n, const opmath_t<scalar_t> alpha, const scalar_t* __restrict__ x,
                            const scalar_t* __restrict__ w, scalar_t* __restrict__ out) {
  using acc_t = opmath_t<scalar_t>;
  CUDA_KERNEL_LOOP(index, n) {
    const acc_t a = static_cast<acc_t>(x[index]);
    out[index] = static_cast<scalar_t>(alpha * a + static_cast<acc_t>(w[index]));
  }
}

inline int GET_BLOCKS(const int64_t N, const int64_t max_threads_per_block = kNumThreads) {
  const int64_t block_num = (N + max_threads_per_block - 1) / max_threads_per_block;
  constexpr int64_t max_int = 65535;
  return (int)(block_num < max_int ? block_num : max_int);
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_kernel<float><<<GET_BLOCKS(n), kNumThreads, 0, stream>>>(n, alpha, x, w, y);
}
