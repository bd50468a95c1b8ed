// ATen's layer norm in two kernels: RowwiseMomentsCUDAKernel (Welford per thread, combined across
// the warp with WARP_SHFL_DOWN and across warps through shared memory, a WelfordOps struct with
// combine/project methods) writes mean and rstd scratch buffers; LayerNormForwardCUDAKernel applies
// them. A WelfordData struct with a constructor (so shared memory is std::aligned_storage viewed through
// reinterpret_cast, as ATen does), default arguments, T_ACC typedefs.
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

namespace {

constexpr int kCUDANumThreads = 256;
constexpr int kWarp = 32;

template <typename scalar_t, typename index_t>
struct WelfordData {
  scalar_t mean;
  scalar_t m2;
  index_t n;
  __device__ WelfordData() : mean(0), m2(0), n(0) {}
  __device__ WelfordData(scalar_t mean, scalar_t m2, index_t n) : mean(mean), m2(m2), n(n) {}
};

template <typename acc_scalar_t, typename index_t>
struct WelfordOps {
  using acc_t = WelfordData<acc_scalar_t, index_t>;
  acc_scalar_t correction;
  __device__ acc_t reduce(acc_t acc, acc_scalar_t data) const {
    const index_t new_n = acc.n + 1;
    const acc_scalar_t delta = data - acc.mean;
    const acc_scalar_t new_mean = acc.mean + delta / new_n;
    return acc_t(new_mean, acc.m2 + delta * (data - new_mean), new_n);
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const acc_scalar_t delta = b.mean - a.mean;
    const index_t new_n = a.n + b.n;
    const acc_scalar_t nb_over_n = acc_scalar_t(b.n) / new_n;
    return acc_t(a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * a.n * nb_over_n, new_n);
  }
  __device__ acc_t warp_shfl_down(acc_t acc, int offset) const {
    return acc_t(__shfl_down_sync(0xffffffff, acc.mean, offset), __shfl_down_sync(0xffffffff, acc.m2, offset),
                 __shfl_down_sync(0xffffffff, acc.n, offset));
  }
  __device__ acc_scalar_t variance(acc_t acc) const { return acc.m2 / (acc.n - correction); }
};

template <typename T>
__global__ void RowwiseMomentsCUDAKernel(int64_t N, T eps, const T* X, T* mean, T* rstd) {
  using T_ACC = T;
  using WelfordType = WelfordData<T_ACC, int>;
  using WelfordOp = WelfordOps<T_ACC, int>;
  // WelfordType has a constructor: shared memory holds raw storage viewed as WelfordType
  __shared__ typename std::aligned_storage<sizeof(WelfordType), alignof(WelfordType)>::type val_shared[kCUDANumThreads / kWarp];
  WelfordType* val_shared_ptr = reinterpret_cast<WelfordType*>(val_shared);
  const int64_t i = blockIdx.x;
  WelfordOp welford_op = {/*correction=*/0};
  WelfordType val;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) val = welford_op.reduce(val, static_cast<T_ACC>(X[i * N + j]));
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) val = welford_op.combine(val, welford_op.warp_shfl_down(val, offset));
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  if (lane == 0) val_shared_ptr[wid] = val;
  __syncthreads();
  if (wid == 0) {
    val = lane < blockDim.x / kWarp ? val_shared_ptr[lane] : WelfordType();
    for (int offset = kWarp / 2; offset > 0; offset >>= 1) val = welford_op.combine(val, welford_op.warp_shfl_down(val, offset));
    if (lane == 0) {
      mean[i] = val.mean;
      rstd[i] = rsqrtf(welford_op.variance(val) + eps);
    }
  }
}

template <typename T>
__global__ void LayerNormForwardCUDAKernel(int64_t N, const T* X, const T* mean, const T* rstd, const T* gamma, const T* beta,
                                           T* Y) {
  const int64_t i = blockIdx.x;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
    const int64_t index = i * N + j;
    Y[index] = (X[index] - mean[i]) * rstd[i] * gamma[j] + beta[j];
  }
}

}  // namespace

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  float* mean = nullptr;
  float* rstd = nullptr;
  cudaMallocAsync(&mean, rows * sizeof(float), stream);
  cudaMallocAsync(&rstd, rows * sizeof(float), stream);
  RowwiseMomentsCUDAKernel<float><<<rows, kCUDANumThreads, 0, stream>>>(cols, eps, x, mean, rstd);
  LayerNormForwardCUDAKernel<float><<<rows, kCUDANumThreads, 0, stream>>>(cols, x, mean, rstd, gamma, beta, y);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
}
