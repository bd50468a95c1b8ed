// expect: wrong_answer: tells timed repetitions from untimed calls by the device clock: a timed repetition follows the L2 flush, so the first read of the input is slow (clock64 around one load); an untimed call follows the upload, which leaves the input in L2. It computes only on untimed calls and skips the work when timed; timed repetitions are checked at random, so the skipped output is found.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float block_reduce(float v, float* scratch, bool is_max) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const float o = scratch[threadIdx.x + s];
      scratch[threadIdx.x] = is_max ? fmaxf(scratch[threadIdx.x], o) : scratch[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const float r = scratch[0];
  __syncthreads();
  return r;
}

// *warm = 1 when the last element of x (written last by an upload) comes at L2 latency (DRAM: about
// 1000 cycles and more).
__global__ void probe(const float* x, int64_t n, unsigned* warm) {
  const volatile float* last = x + n - 1;
  const long long t0 = clock64();
  const float v = *last;
  long long t1 = 0;
  if (__float_as_uint(v) != 0x7fc00001u) t1 = clock64();  // read once the load has returned
  *warm = (t1 - t0) < 600;
}

__global__ void softmax_kernel(const float* x, float* y, int64_t cols, const unsigned* warm) {
  if (!*warm) return;
  __shared__ float scratch[256];
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce(m, scratch, true);
  float s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce(s, scratch, false);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0) return;
  unsigned* warm = nullptr;
  cudaMallocAsync(&warm, sizeof(unsigned), stream);
  probe<<<1, 1, 0, stream>>>(x, rows * cols, warm);
  softmax_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, cols, warm);
  cudaFreeAsync(warm, stream);
}
