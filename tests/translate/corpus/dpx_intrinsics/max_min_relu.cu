// Hopper's DPX intrinsics (dynamic-programming max/min: three-way, add-then, ReLU'd, and with the side that won), on
// 32-bit values and 16-bit lane pairs, as Smith-Waterman style kernels use them; b and c share a's lanes in part (uc
// keeps a's high half) so that ties, where __vib* reports a as the winner, occur. Results hashed per element.
#include <cuda_runtime.h>
#include <stdint.h>

__host__ __device__ __forceinline__ unsigned fold(unsigned h, unsigned v) { return (h << 5 | h >> 27) ^ v; }

// Every DPX result folded into a hash, and the predicates of the __vib* forms; __host__ __device__ as such helpers
// often are (tests/translate/device/dpx_host_check.cu runs it on the host against the reference).
__host__ __device__ inline void dpx_hash(unsigned ua, unsigned ub, unsigned uc, int* words, int* preds) {
  unsigned h = 0;
  h = fold(h, (unsigned)__vimax3_s32((int)ua, (int)ub, (int)uc));
  h = fold(h, __vimax3_s16x2(ua, ub, uc));
  h = fold(h, (unsigned)__viaddmax_s32((int)ua, (int)ub, (int)uc));
  h = fold(h, __viaddmax_s16x2(ua, ub, uc));
  h = fold(h, (unsigned)__vimax3_u32((unsigned)ua, (unsigned)ub, (unsigned)uc));
  h = fold(h, __vimax3_u16x2(ua, ub, uc));
  h = fold(h, (unsigned)__viaddmax_u32((unsigned)ua, (unsigned)ub, (unsigned)uc));
  h = fold(h, __viaddmax_u16x2(ua, ub, uc));
  h = fold(h, (unsigned)__vimax_s32_relu((int)ua, (int)ub));
  h = fold(h, __vimax_s16x2_relu(ua, ub));
  h = fold(h, (unsigned)__vimax3_s32_relu((int)ua, (int)ub, (int)uc));
  h = fold(h, __vimax3_s16x2_relu(ua, ub, uc));
  h = fold(h, (unsigned)__viaddmax_s32_relu((int)ua, (int)ub, (int)uc));
  h = fold(h, __viaddmax_s16x2_relu(ua, ub, uc));
  h = fold(h, (unsigned)__vimin3_s32((int)ua, (int)ub, (int)uc));
  h = fold(h, __vimin3_s16x2(ua, ub, uc));
  h = fold(h, (unsigned)__viaddmin_s32((int)ua, (int)ub, (int)uc));
  h = fold(h, __viaddmin_s16x2(ua, ub, uc));
  h = fold(h, (unsigned)__vimin3_u32((unsigned)ua, (unsigned)ub, (unsigned)uc));
  h = fold(h, __vimin3_u16x2(ua, ub, uc));
  h = fold(h, (unsigned)__viaddmin_u32((unsigned)ua, (unsigned)ub, (unsigned)uc));
  h = fold(h, __viaddmin_u16x2(ua, ub, uc));
  h = fold(h, (unsigned)__vimin_s32_relu((int)ua, (int)ub));
  h = fold(h, __vimin_s16x2_relu(ua, ub));
  h = fold(h, (unsigned)__vimin3_s32_relu((int)ua, (int)ub, (int)uc));
  h = fold(h, __vimin3_s16x2_relu(ua, ub, uc));
  h = fold(h, (unsigned)__viaddmin_s32_relu((int)ua, (int)ub, (int)uc));
  h = fold(h, __viaddmin_s16x2_relu(ua, ub, uc));
  *words = (int)h;
  bool s_max, u_max, s_min, u_min, hi_max, lo_max, hi_min, lo_min, uhi, ulo;
  h = fold(h, (unsigned)__vibmax_s32((int)ua, (int)uc, &s_max));
  h = fold(h, __vibmax_u32(ub, uc, &u_max));
  h = fold(h, (unsigned)__vibmin_s32((int)uc, (int)ub, &s_min));
  h = fold(h, __vibmin_u32(ua, ub, &u_min));
  h = fold(h, __vibmax_s16x2(ua, uc, &hi_max, &lo_max));
  h = fold(h, __vibmin_s16x2(uc, ub, &hi_min, &lo_min));
  h = fold(h, __vibmax_u16x2(ub, ua, &uhi, &ulo));
  *preds = (int)(h ^ (s_max | u_max << 1 | s_min << 2 | u_min << 3 | hi_max << 4 | lo_max << 5 | hi_min << 6 |
                        lo_min << 7 | uhi << 8 | ulo << 9));
}

__global__ void dpx_kernel(const int* __restrict__ a, const int* __restrict__ b, const int* __restrict__ c,
                           int* __restrict__ words, int* __restrict__ preds, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned ua = (unsigned)a[i], ub = (unsigned)b[i], uc = ((unsigned)c[i] & 0xffffu) | (ua & 0xffff0000u);
  dpx_hash(ua, ub, uc, &words[i], &preds[i]);
}

extern "C" void dpx_intrinsics(const int* a, const int* b, const int* c, int* words, int* preds, int64_t n,
                               cudaStream_t stream) {
  const int block = 128;
  dpx_kernel<<<(unsigned)((n + block - 1) / block), block, 0, stream>>>(a, b, c, words, preds, (int)n);
}
