// Apex's layer norm: cuWelfordOnlineSum / cuChanOnlineSum, a 2-D block (threadIdx.y rows of warps), __shfl_sync
// broadcasts, a static shared buffer, U/V types; cuWelfordMuSigma2<T, U>(const T* vals, ...) deduces T only from its pointer.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename U>
__device__ void cuWelfordOnlineSum(const U curr, U& mu, U& sigma2, U& count) {
  count = count + U(1);
  U delta = curr - mu;
  U lmean = mu + delta / count;
  mu = lmean;
  U delta2 = curr - lmean;
  sigma2 = sigma2 + delta * delta2;
}

template <typename U>
__device__ void cuChanOnlineSum(const U muB, const U sigma2B, const U countB, U& mu, U& sigma2, U& count) {
  U delta = muB - mu;
  U nA = count;
  U nB = countB;
  count = count + countB;
  U nX = count;
  if (nX > U(0)) {
    nA = nA / nX;
    nB = nB / nX;
    mu = nA * mu + nB * muB;
    sigma2 = sigma2 + sigma2B + delta * delta * nA * nB * nX;
  } else {
    mu = U(0);
    sigma2 = U(0);
  }
}

template <typename T, typename U>
__device__ void cuWelfordMuSigma2(const T* __restrict__ vals, const int n2, const int i1, U& mu, U& sigma2,
                                  U* buf) {
  U count = U(0);
  mu = U(0);
  sigma2 = U(0);
  const T* lvals = vals + i1 * n2;
  const int numx = blockDim.x * blockDim.y;
  const int thrx = threadIdx.x + threadIdx.y * blockDim.x;
  for (int l = thrx; l < n2; l += numx) cuWelfordOnlineSum<U>(static_cast<U>(lvals[l]), mu, sigma2, count);
  // intra-warp reduction
  for (int l = 0; l <= 4; ++l) {
    int srcLaneB = (threadIdx.x + (1 << l)) & 31;
    U muB = __shfl_sync(0xffffffff, mu, srcLaneB);
    U countB = __shfl_sync(0xffffffff, count, srcLaneB);
    U sigma2B = __shfl_sync(0xffffffff, sigma2, srcLaneB);
    cuChanOnlineSum<U>(muB, sigma2B, countB, mu, sigma2, count);
  }
  // inter-warp reductions
  if (blockDim.y > 1) {
    U* ubuf = (U*)buf;
    U* ibuf = (U*)(ubuf + blockDim.y);
    for (int offset = blockDim.y / 2; offset > 0; offset /= 2) {
      if (threadIdx.x == 0 && threadIdx.y >= offset && threadIdx.y < 2 * offset) {
        const int wrt_y = threadIdx.y - offset;
        ubuf[2 * wrt_y] = mu;
        ubuf[2 * wrt_y + 1] = sigma2;
        ibuf[wrt_y] = count;
      }
      __syncthreads();
      if (threadIdx.x == 0 && threadIdx.y < offset) {
        U muB = ubuf[2 * threadIdx.y];
        U sigma2B = ubuf[2 * threadIdx.y + 1];
        U countB = ibuf[threadIdx.y];
        cuChanOnlineSum<U>(muB, sigma2B, countB, mu, sigma2, count);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      ubuf[0] = mu;
      ubuf[1] = sigma2;
    }
    __syncthreads();
    mu = ubuf[0];
    sigma2 = ubuf[1] / U(n2);
  } else {
    mu = __shfl_sync(0xffffffff, mu, 0);
    sigma2 = __shfl_sync(0xffffffff, sigma2 / U(n2), 0);
  }
}

template <typename T, typename U, typename V>
__global__ void cuApplyLayerNorm(V* __restrict__ output_vals, const T* __restrict__ vals, const int n1, const int n2,
                                 const U epsilon, const V* __restrict__ gamma, const V* __restrict__ beta) {
  __shared__ U buf[3 * 8];
  for (int i1 = blockIdx.y; i1 < n1; i1 += gridDim.y) {
    U mu, sigma2;
    cuWelfordMuSigma2(vals, n2, i1, mu, sigma2, buf);
    const T* lvals = vals + i1 * n2;
    V* ovals = output_vals + i1 * n2;
    U c_invvar = rsqrt(sigma2 + epsilon);
    const int numx = blockDim.x * blockDim.y;
    const int thrx = threadIdx.x + threadIdx.y * blockDim.x;
    for (int i = thrx; i < n2; i += numx) {
      U curr = static_cast<U>(lvals[i]);
      ovals[i] = gamma[i] * static_cast<V>(c_invvar * (curr - mu)) + beta[i];
    }
    __syncthreads();
  }
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const dim3 threads(32, 4, 1);
  const uint64_t maxGridY = 65535;
  const dim3 blocks(1, std::min((uint64_t)rows, maxGridY), 1);
  cuApplyLayerNorm<float, float, float><<<blocks, threads, 0, stream>>>(y, x, (int)rows, (int)cols, eps, gamma, beta);
}
