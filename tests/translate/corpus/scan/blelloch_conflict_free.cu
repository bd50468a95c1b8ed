// GPU Gems 3's work-efficient (Blelloch) scan with CONFLICT_FREE_OFFSET padding: each block scans a
// row in chunks of 2 * blockDim.x elements in dynamic shared memory sized at launch from the
// block size (with the bank padding), an exclusive scan turned inclusive, the carry between chunks.
#include <cuda_runtime.h>
#include <stdint.h>

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void prescan_rows(const float* __restrict__ g_idata, float* __restrict__ g_odata, int cols) {
  extern __shared__ float temp[];
  __shared__ float carry;
  const int thid = threadIdx.x;
  const int n = 2 * blockDim.x;
  const float* in = g_idata + (size_t)blockIdx.x * cols;
  float* out = g_odata + (size_t)blockIdx.x * cols;
  if (thid == 0) carry = 0.f;
  for (int base = 0; base < cols; base += n) {
    const int ai = thid, bi = thid + n / 2;
    const int bankOffsetA = CONFLICT_FREE_OFFSET(ai), bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = base + ai < cols ? in[base + ai] : 0.f;
    temp[bi + bankOffsetB] = base + bi < cols ? in[base + bi] : 0.f;
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {  // up-sweep
      __syncthreads();
      if (thid < d) {
        int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
        a += CONFLICT_FREE_OFFSET(a);
        b += CONFLICT_FREE_OFFSET(b);
        temp[b] += temp[a];
      }
      offset *= 2;
    }
    __syncthreads();
    float total = 0.f;
    if (thid == 0) {
      total = temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)];
      temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0.f;
    }
    for (int d = 1; d < n; d *= 2) {  // down-sweep
      offset >>= 1;
      __syncthreads();
      if (thid < d) {
        int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
        a += CONFLICT_FREE_OFFSET(a);
        b += CONFLICT_FREE_OFFSET(b);
        const float t = temp[a];
        temp[a] = temp[b];
        temp[b] += t;
      }
    }
    __syncthreads();
    const float c = carry;
    if (base + ai < cols) out[base + ai] = c + temp[ai + bankOffsetA] + in[base + ai];
    if (base + bi < cols) out[base + bi] = c + temp[bi + bankOffsetB] + in[base + bi];
    __syncthreads();  // everyone has read the carry and the chunk
    if (thid == 0) carry = c + total;
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 64;
  const int n = 2 * threads;
  const size_t shmem = (n + CONFLICT_FREE_OFFSET(n)) * sizeof(float);
  prescan_rows<<<rows, threads, shmem, stream>>>(x, y, (int)cols);
}
