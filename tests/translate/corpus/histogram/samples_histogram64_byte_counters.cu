// CUDA samples' histogram64: per-thread byte counters in a __shared__ uchar s_Hist[THREADS * BINS]
// (bin-major, so a thread's counters are THREADS bytes apart), the thread's column permuted by
// threadPos to spread banks, the counters cleared as 32-bit words through ((uint*)s_Hist), addByte()
// incrementing a byte through a uchar* base, the per-block sums read four bytes at a time with a
// rotating start, partial histograms into a cudaMallocAsync scratch, then mergeHistogram64Kernel (one
// block per bin, a shared tree) writing the counts. UMUL / UMAD macros as in the sample.
#include <cuda_runtime.h>
#include <stdint.h>

typedef unsigned int uint;
typedef unsigned char uchar;

#define HISTOGRAM64_BIN_COUNT 64
#define HISTOGRAM64_THREADBLOCK_SIZE 64
#define SHARED_MEMORY_BANKS 16
#define MERGE_THREADBLOCK_SIZE 256
// each thread counts at most this many values, far below a byte's 255
#define ITEMS_PER_THREAD 16

#define UMUL(a, b) __umul24((a), (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

inline __device__ void addByte(uchar* s_ThreadBase, uint data) {
  s_ThreadBase[UMUL(data, HISTOGRAM64_THREADBLOCK_SIZE)]++;
}

__global__ void histogram64Kernel(uint* d_PartialHistograms, const int* d_Data, uint dataCount) {
  // encode thread index in order to avoid bank conflicts in s_Hist[] access:
  // each group of SHARED_MEMORY_BANKS threads accesses consecutive shared memory banks
  // and the same bytes [0..3] within the banks
  const uint threadPos = ((threadIdx.x & ~(SHARED_MEMORY_BANKS * 4 - 1)) << 0) |
                         ((threadIdx.x & (SHARED_MEMORY_BANKS - 1)) << 2) |
                         ((threadIdx.x & (SHARED_MEMORY_BANKS * 3)) >> 4);

  // per-thread histogram storage
  __shared__ uchar s_Hist[HISTOGRAM64_THREADBLOCK_SIZE * HISTOGRAM64_BIN_COUNT];
  uchar* s_ThreadBase = s_Hist + threadPos;

  // initialize shared memory (writing 32-bit words)
#pragma unroll
  for (uint i = 0; i < (HISTOGRAM64_BIN_COUNT / 4); i++) {
    ((uint*)s_Hist)[threadIdx.x + i * HISTOGRAM64_THREADBLOCK_SIZE] = 0;
  }
  __syncthreads();

  for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount; pos += UMUL(blockDim.x, gridDim.x)) {
    const uint data = (uint)d_Data[pos];
    addByte(s_ThreadBase, data & 0x3FU);
  }
  __syncthreads();

  // accumulate per-thread histograms into per-block and write to global memory
  if (threadIdx.x < HISTOGRAM64_BIN_COUNT) {
    uchar* s_HistBase = s_Hist + UMUL(threadIdx.x, HISTOGRAM64_THREADBLOCK_SIZE);
    uint sum = 0;
    uint pos = 4 * (threadIdx.x & (SHARED_MEMORY_BANKS - 1));
#pragma unroll
    for (uint i = 0; i < (HISTOGRAM64_THREADBLOCK_SIZE / 4); i++) {
      sum += s_HistBase[pos + 0] + s_HistBase[pos + 1] + s_HistBase[pos + 2] + s_HistBase[pos + 3];
      pos = (pos + 4) & (HISTOGRAM64_THREADBLOCK_SIZE - 1);
    }
    d_PartialHistograms[blockIdx.x * HISTOGRAM64_BIN_COUNT + threadIdx.x] = sum;
  }
}

__global__ void mergeHistogram64Kernel(uint* d_Histogram, const uint* d_PartialHistograms, uint histogramCount) {
  __shared__ uint data[MERGE_THREADBLOCK_SIZE];
  uint sum = 0;
  for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE) {
    sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM64_BIN_COUNT];
  }
  data[threadIdx.x] = sum;
  for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) d_Histogram[blockIdx.x] = data[0];
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  const uint byteCount = (uint)n;
  const uint histogramCount =
      (byteCount + HISTOGRAM64_THREADBLOCK_SIZE * ITEMS_PER_THREAD - 1) / (HISTOGRAM64_THREADBLOCK_SIZE * ITEMS_PER_THREAD);
  uint* d_PartialHistograms = nullptr;
  cudaMallocAsync((void**)&d_PartialHistograms, histogramCount * HISTOGRAM64_BIN_COUNT * sizeof(uint), stream);
  histogram64Kernel<<<histogramCount, HISTOGRAM64_THREADBLOCK_SIZE, 0, stream>>>(d_PartialHistograms, x, byteCount);
  mergeHistogram64Kernel<<<HISTOGRAM64_BIN_COUNT, MERGE_THREADBLOCK_SIZE, 0, stream>>>((uint*)counts,
                                                                                       d_PartialHistograms,
                                                                                       histogramCount);
  cudaFreeAsync(d_PartialHistograms, stream);
}
