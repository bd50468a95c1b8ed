// histogram: warp-aggregated counts in the style of CUB's WarpAggregate: the lane masks read from PTX special registers
// by inline asm (`mov.u32 %0, %%lanemask_lt;` and the le/eq/ge/gt ones, from the lane index in Metal), a leader chosen
// only where all five agree, and a compiler-only fence `asm volatile("" ::: "memory")`, which emits no instruction
// and is dropped.
#include <cuda_runtime.h>
#include <stdint.h>

#define LANE_MASK(NAME)                                  \
  __device__ __forceinline__ unsigned lane_mask_##NAME() { \
    unsigned ret;                                        \
    asm("mov.u32 %0, %%lanemask_" #NAME ";" : "=r"(ret)); \
    return ret;                                          \
  }
LANE_MASK(lt)
LANE_MASK(le)
LANE_MASK(eq)
LANE_MASK(ge)
LANE_MASK(gt)

__global__ void hist_warp_aggregated(const int* __restrict__ x, int* __restrict__ counts, int n) {
  __shared__ int sh[64];
  for (int i = threadIdx.x; i < 64; i += blockDim.x) sh[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const int b = x[i];
    const unsigned peers = __match_any_sync(__activemask(), b);
    const int below = __popc(peers & lane_mask_lt()), total = __popc(peers);
    const bool leader = below == 0 && __popc(peers & lane_mask_le()) == 1 && (peers & lane_mask_eq()) != 0 &&
                        __popc(peers & lane_mask_ge()) == total && __popc(peers & lane_mask_gt()) == total - 1;
    if (leader) atomicAdd(&sh[b], total);
    asm volatile("" ::: "memory");
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 64; i += blockDim.x) atomicAdd(&counts[i], sh[i]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 64 * sizeof(int), stream);
  hist_warp_aggregated<<<8, 128, 0, stream>>>(x, counts, (int)n);
}
