// PyTorch's vectorized_layer_norm_kernel (aten/src/ATen/native/cuda/layer_norm_kernel.cu): a
// WelfordDataLN struct with constructors, cuWelfordOnlineSum / cuWelfordCombine, compute_stats reading
// aligned_vector<T, vec_size> rows, a WARP_SHFL_DOWN butterfly on each member, the inter-warp merge of
// the upper half of warps into the lower half through `extern __shared__ float s_data[]` split into
// meansigmabuf / countbuf, gamma / beta vectors chosen as `gamma != nullptr ? reinterpret_cast<...> :
// nullptr`; vec_size = 4 where the row length allows, else the same kernel with vec_size = 1, the
// launch with threads(warp_size, num_threads / warp_size) and nshared = threads.y * 3 / 2 floats.
#include <cuda_runtime.h>
#include <stdint.h>

#define C10_WARP_SIZE 32
#define WARP_SHFL_DOWN(var, delta) __shfl_down_sync(0xffffffff, var, delta, C10_WARP_SIZE)
#define WARP_SHFL(var, lane) __shfl_sync(0xffffffff, var, lane, C10_WARP_SIZE)

constexpr int kCUDANumThreads = 128;

template <typename scalar_t, int vec_size>
struct alignas(sizeof(scalar_t) * vec_size) aligned_vector {
  scalar_t val[vec_size];
};

struct WelfordDataLN {
  float mean;
  float sigma2;
  float count;
  __host__ __device__ WelfordDataLN() : mean(0.f), sigma2(0.f), count(0.f) {}
  __host__ __device__ WelfordDataLN(float mean, float sigma2, float count) : mean(mean), sigma2(sigma2), count(count) {}
};

template <typename U>
__device__ WelfordDataLN cuWelfordOnlineSum(const U val, const WelfordDataLN& curr_sum) {
  U delta = val - curr_sum.mean;
  U new_count = curr_sum.count + 1.f;
  U new_mean = curr_sum.mean + delta * (1.f / new_count);  // proper division is slow, this is less accurate but noticeably faster
  return {new_mean, curr_sum.sigma2 + delta * (val - new_mean), new_count};
}

__device__ WelfordDataLN cuWelfordCombine(const WelfordDataLN dataB, const WelfordDataLN dataA) {
  using U = decltype(dataB.count);
  U delta = dataB.mean - dataA.mean;
  U count = dataA.count + dataB.count;
  U mean, sigma2;
  if (count > decltype(dataB.count){0}) {
    auto coef = 1.f / count;  // NB we don't use --use_fast_math, but this is emulation, 1./count goes to intrinsic
    auto nA = dataA.count * coef;
    auto nB = dataB.count * coef;
    mean = nA * dataA.mean + nB * dataB.mean;
    sigma2 = dataA.sigma2 + dataB.sigma2 + delta * delta * dataA.count * nB;
  } else {
    mean = U(0);
    sigma2 = U(0);
  }
  return {mean, sigma2, count};
}

template <typename T, int vec_size>
__device__ WelfordDataLN compute_stats(const T* __restrict__ X, const int N, float* buf) {
  // X points to the row to read
  using vec_t = aligned_vector<T, vec_size>;
  using acc_t = float;
  const vec_t* X_vec = reinterpret_cast<const vec_t*>(X);
  const int numx = blockDim.x * blockDim.y;
  const int thrx = threadIdx.x + threadIdx.y * blockDim.x;
  const int n_vec_to_read = N / vec_size;
  WelfordDataLN wd(0.f, 0.f, 0.f);
  // no tail, we check that N is multiple of vec_size
  for (int i = thrx; i < n_vec_to_read; i += numx) {
    vec_t data = X_vec[i];
#pragma unroll
    for (int ii = 0; ii < vec_size; ii++) wd = cuWelfordOnlineSum(static_cast<acc_t>(data.val[ii]), wd);
  }
  // intra-warp reduction
  for (int offset = (C10_WARP_SIZE >> 1); offset > 0; offset >>= 1) {
    WelfordDataLN wdB{WARP_SHFL_DOWN(wd.mean, offset), WARP_SHFL_DOWN(wd.sigma2, offset),
                      WARP_SHFL_DOWN(wd.count, offset)};
    wd = cuWelfordCombine(wd, wdB);
  }
  // threadIdx.x == 0 has correct values for each warp
  // inter-warp reductions
  if (blockDim.y > 1) {
    float* meansigmabuf = buf;
    float* countbuf = buf + blockDim.y;
    for (int offset = blockDim.y / 2; offset > 0; offset /= 2) {
      // upper half of warps write to shared
      if (threadIdx.x == 0 && threadIdx.y >= offset && threadIdx.y < 2 * offset) {
        const int wrt_y = threadIdx.y - offset;
        meansigmabuf[2 * wrt_y] = wd.mean;
        meansigmabuf[2 * wrt_y + 1] = wd.sigma2;
        countbuf[wrt_y] = wd.count;
      }
      __syncthreads();
      // lower half merges
      if (threadIdx.x == 0 && threadIdx.y < offset) {
        WelfordDataLN wdB{meansigmabuf[2 * threadIdx.y], meansigmabuf[2 * threadIdx.y + 1], countbuf[threadIdx.y]};
        wd = cuWelfordCombine(wd, wdB);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      meansigmabuf[0] = wd.mean;
      meansigmabuf[1] = wd.sigma2 / float(N);
    }
    __syncthreads();
    return WelfordDataLN{meansigmabuf[0], meansigmabuf[1], 0.f};
  } else {
    return WelfordDataLN{WARP_SHFL(wd.mean, 0), WARP_SHFL(wd.sigma2, 0) / float(N), 0.f};
  }
}

template <typename T, typename T_ACC, int vec_size>
__global__ void vectorized_layer_norm_kernel(const int N, T_ACC eps, const T* __restrict__ X, const T* gamma,
                                             const T* beta, T* Y) {
  extern __shared__ float s_data[];  // if we made smem WelfordDataLN type, there would be bank conflicts,
  // as one thread would have to write 3 consecutive floats
  auto i1 = blockIdx.x;
  const T* block_row = X + i1 * N;
  WelfordDataLN wd = compute_stats<T, vec_size>(block_row, N, s_data);

  using vec_t = aligned_vector<T, vec_size>;
  const vec_t* X_vec = reinterpret_cast<const vec_t*>(block_row);
  const vec_t* gamma_vec = (gamma != nullptr) ? reinterpret_cast<const vec_t*>(gamma) : nullptr;
  const vec_t* beta_vec = (beta != nullptr) ? reinterpret_cast<const vec_t*>(beta) : nullptr;
  vec_t* Y_vec = reinterpret_cast<vec_t*>(Y + i1 * N);

  const int numx = blockDim.x * blockDim.y;
  const int thrx = threadIdx.x + threadIdx.y * blockDim.x;
  const int n_vec_to_read = N / vec_size;

  T_ACC rstd_val = rsqrtf(wd.sigma2 + eps);

  // No tail, N is guaranteed to be multiple of vec size
  for (int i = thrx; i < n_vec_to_read; i += numx) {
    vec_t data = X_vec[i];
    vec_t out;
    if (gamma_vec != nullptr && beta_vec != nullptr) {
#pragma unroll
      for (int ii = 0; ii < vec_size; ii++) {
        out.val[ii] = static_cast<T_ACC>(gamma_vec[i].val[ii]) * (rstd_val * (static_cast<T_ACC>(data.val[ii]) - wd.mean)) +
                      static_cast<T_ACC>(beta_vec[i].val[ii]);
      }
    } else {
#pragma unroll
      for (int ii = 0; ii < vec_size; ii++) out.val[ii] = rstd_val * (static_cast<T_ACC>(data.val[ii]) - wd.mean);
    }
    Y_vec[i] = out;
  }
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const int warp_size = C10_WARP_SIZE;
  const dim3 threads(warp_size, kCUDANumThreads / warp_size, 1);
  const dim3 blocks((unsigned)rows);
  const int nshared = threads.y > 1 ? threads.y * 3 / 2 * sizeof(float) : 0;
  const int N = (int)cols;
  constexpr int vec_size = 4;
  if (N % vec_size == 0) {
    vectorized_layer_norm_kernel<float, float, vec_size><<<blocks, threads, nshared, stream>>>(N, eps, x, gamma, beta, y);
  } else {
    vectorized_layer_norm_kernel<float, float, 1><<<blocks, threads, nshared, stream>>>(N, eps, x, gamma, beta, y);
  }
}
