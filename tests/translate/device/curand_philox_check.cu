// Checks the philox_dropout task's reference against cuRAND itself on a GPU: every draw of corpus/philox_dropout
// (curand_init with a 64-bit key, curand, curand4 from inside a block, curand_uniform/4, skipahead past 2^34 words,
// skipahead_sequence, curand_normal with its kept value, normal2/4, log-normal) for 4096 states and three seeds, the
// words and uniform floats bit for bit, the normal draws within 1e-4 relative. The port is checked against the same
// reference by metalsim (Translate/Corpus), so the two together tie the port to cuRAND. Run on the GPU machine:
//   nvcc -arch=sm_90 -O2 -I include -o /tmp/curand_check tests/translate/device/curand_philox_check.cu && /tmp/curand_check
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <curand_kernel.h>
// The reference's Philox (class Philox, unit, box_muller, normal_kind) in this translation unit.
#include "../tasks/philox_dropout/reference.cpp"

// Every draw of local_state.cu, raw: curand words and uniform floats' bits (exact), normal values (compared loosely).
__global__ void draws(uint32_t* words, float* normals, int n, unsigned long long key) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t s;
  curand_init(key, i, 3, &s);
  uint32_t* w = words + i * 16;
  float u = curand_uniform(&s); memcpy(&w[0], &u, 4);
  uint4 q = curand4(&s); w[1] = q.x; w[2] = q.y; w[3] = q.z; w[4] = q.w;
  float4 f = curand_uniform4(&s); memcpy(&w[5], &f, 16);
  w[9] = curand(&s);
  skipahead((1ull << 34) + 5, &s); w[10] = curand(&s);
  skipahead_sequence(7, &s); w[11] = curand(&s);
  float* o = normals + i * 8;
  o[0] = curand_normal(&s); o[1] = curand_normal(&s); o[2] = curand_normal(&s);
  float4 n4 = curand_normal4(&s); o[3] = n4.x + n4.y + n4.z + n4.w;
  float2 n2 = curand_normal2(&s); o[4] = n2.x + n2.y;
  o[5] = curand_log_normal(&s, 0.1f, 0.5f); o[6] = curand_log_normal(&s, 0.1f, 0.5f);
  w[12] = curand(&s);
}
int main() {
  const int n = 4096;
  int bad_words = 0, bad_normals = 0; double worst = 0;
  for (unsigned long long seed : {42ull, 2147483647ull, 1ull}) {
    const unsigned long long key = seed * 0x9E3779B97F4A7C15ull;
    uint32_t* dw; float* dn;
    cudaMalloc(&dw, n * 16 * 4); cudaMalloc(&dn, n * 8 * 4);
    draws<<<n / 128, 128>>>(dw, dn, n, key);
    static uint32_t hw[4096 * 16]; static float hn[4096 * 8];
    cudaMemcpy(hw, dw, sizeof hw, cudaMemcpyDeviceToHost); cudaMemcpy(hn, dn, sizeof hn, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
      Philox p(key, i, 3);
      uint32_t e[16] = {0};
      float u = unit(p.next()); memcpy(&e[0], &u, 4);
      uint32_t q[4]; p.next4(q); for (int k = 0; k < 4; ++k) e[1 + k] = q[k];
      p.next4(q); for (int k = 0; k < 4; ++k) { float f = unit(q[k]); memcpy(&e[5 + k], &f, 4); }
      e[9] = p.next(); p.skip((1ull << 34) + 5); e[10] = p.next(); p.skip_sequences(7); e[11] = p.next();
      double en[8];
      en[0] = normal_kind(p, 1, 0, 1); en[1] = normal_kind(p, 1, 0, 1); en[2] = normal_kind(p, 1, 0, 1);
      double v[2]; p.next4(q); box_muller(q[0], q[1], v); en[3] = v[0] + v[1]; box_muller(q[2], q[3], v); en[3] += v[0] + v[1];
      uint32_t a = p.next(), b = p.next(); box_muller(a, b, v); en[4] = v[0] + v[1];
      en[5] = normal_kind(p, 2, 0.1, 0.5); en[6] = normal_kind(p, 2, 0.1, 0.5);
      e[12] = p.next();
      for (int k = 0; k < 13; ++k) if (e[k] != hw[i * 16 + k]) { if (bad_words < 5) printf("seed %llu i %d word %d: curand %08x ref %08x\n", seed, i, k, hw[i*16+k], e[k]); ++bad_words; }
      for (int k = 0; k < 7; ++k) { double d = fabs(en[k] - hn[i * 8 + k]); if (d > worst) worst = d; if (d > 1e-4 * (1 + fabs(en[k]))) ++bad_normals; }
    }
    cudaFree(dw); cudaFree(dn);
  }
  printf("curand vs reference: %d word mismatches, %d normal mismatches, worst normal diff %.3g\n", bad_words, bad_normals, worst);
  return bad_words || bad_normals;
}
