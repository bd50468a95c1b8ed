// task: rmsnorm
// Hopper thread-block clusters: a row split over a cluster of 2 blocks launched with cudaLaunchKernelEx and a
// cluster-dimension attribute; each block sums its half, the partial sums meet through distributed shared memory
// (cluster.map_shared_rank) between two cluster barriers.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <array>
#include <cstdint>

namespace cg = cooperative_groups;

constexpr int kClusterSize = 2;
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
rmsnorm_cluster(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ y, int64_t cols, float eps) {
  __shared__ float warp_sums[kThreads / 32];
  __shared__ float block_sum;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int64_t row = blockIdx.x / kClusterSize;
  const int64_t half = (cols + kClusterSize - 1) / kClusterSize;
  const int64_t begin = rank * half, end = begin + half < cols ? begin + half : cols;
  const float* in = x + row * cols;
  float ss = 0.f;
  for (int64_t c = begin + threadIdx.x; c < end; c += kThreads) ss += in[c] * in[c];
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = ss;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int w = 0; w < kThreads / 32; ++w) s += warp_sums[w];
    block_sum = s;
  }
  cluster.sync();  // every block's sum is written
  float total = 0.f;
  for (unsigned r = 0; r < kClusterSize; ++r) total += *cluster.map_shared_rank(&block_sum, r);
  cluster.sync();  // no block leaves while another still reads its shared memory
  const float inv = rsqrtf(total / float(cols) + eps);
  for (int64_t c = begin + threadIdx.x; c < end; c += kThreads) y[row * cols + c] = in[c] * inv * weight[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned(rows * kClusterSize));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  std::array<cudaLaunchAttribute, 1> attributes{};
  attributes[0].id = cudaLaunchAttributeClusterDimension;
  attributes[0].val.clusterDim.x = kClusterSize;
  attributes[0].val.clusterDim.y = 1;
  attributes[0].val.clusterDim.z = 1;
  config.attrs = attributes.data();
  config.numAttrs = unsigned(attributes.size());
  cudaLaunchKernelEx(&config, rmsnorm_cluster, x, weight, y, cols, eps);
}
