// Checks the xorwow_noise task's reference against cuRAND itself on a GPU: every draw of corpus/xorwow_noise
// (curand_init of a curandState with a 64-bit key, its element's subsequence and an offset, curand, curand_uniform,
// skipahead past 2^34 words, skipahead_sequence, curand_normal with its kept value, normal2, log-normal and
// log_normal2) for 4096 states and three seeds, the words and uniform floats bit for bit, the normal draws within
// 1e-4 relative; also states at subsequences near 2^40 and 2^63 and offsets past 2^40. The port is checked against the
// same reference by metalsim (Translate/Corpus), so the two together tie the port to cuRAND. Run on the GPU machine:
//   nvcc -arch=sm_90 -O2 -I include -o /tmp/xorwow_check tests/translate/device/curand_xorwow_check.cu && /tmp/xorwow_check
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <curand_kernel.h>
// The reference's Xorwow, unit, box_muller and normal_kind in this translation unit.
#include "../tasks/xorwow_noise/reference.cpp"

constexpr int kWords = 12, kNormals = 8;

// Every draw of local_state.cu, raw: words and uniform floats' bits (exact), normal values (compared loosely).
__global__ void draws(uint32_t* words, float* normals, int n, unsigned long long key) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandState s;
  curand_init(key, i, i % 7, &s);
  uint32_t* w = words + i * kWords;
  const float u = curand_uniform(&s);
  memcpy(&w[0], &u, 4);
  for (int k = 0; k < 3; ++k) w[1 + k] = curand(&s);
  const float u2 = curand_uniform(&s);
  memcpy(&w[4], &u2, 4);
  skipahead((1ull << 34) + 5, &s);
  w[5] = curand(&s);
  skipahead_sequence(7, &s);
  w[6] = curand(&s);
  float* o = normals + i * kNormals;
  o[0] = curand_normal(&s);
  o[1] = curand_normal(&s);
  o[2] = curand_normal(&s);
  const float2 n2 = curand_normal2(&s);
  o[3] = n2.x + n2.y;
  o[4] = curand_log_normal(&s, 0.1f, 0.5f);
  o[5] = curand_log_normal(&s, 0.1f, 0.5f);
  const float2 l2 = curand_log_normal2(&s, 0.1f, 0.5f);
  o[6] = l2.x + l2.y;
  w[7] = curand(&s);
  // far subsequences and offsets: the high bits of the jump tables
  curandState far;
  curand_init(key, (1ull << 40) + 3 * i, (1ull << 41) + i, &far);
  w[8] = curand(&far);
  curand_init(key, (1ull << 63) + (1ull << 62) + i, 0, &far);
  w[9] = curand(&far);
  curand_init(0, i, 0, &far);  // seed 0: the published xorwow's starting words
  w[10] = curand(&far);
  w[11] = curand(&far);
}

int main() {
  const int n = 4096;
  int bad_words = 0, bad_normals = 0;
  double worst = 0;
  for (unsigned long long seed : {42ull, 2147483647ull, 1ull}) {
    const unsigned long long key = seed * 0x9E3779B97F4A7C15ull;
    uint32_t* dw;
    float* dn;
    cudaMalloc(&dw, n * kWords * 4);
    cudaMalloc(&dn, n * kNormals * 4);
    draws<<<n / 128, 128>>>(dw, dn, n, key);
    static uint32_t hw[4096 * kWords];
    static float hn[4096 * kNormals];
    cudaMemcpy(hw, dw, sizeof hw, cudaMemcpyDeviceToHost);
    cudaMemcpy(hn, dn, sizeof hn, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
      Xorwow g(key, i, i % 7);
      uint32_t e[kWords] = {0};
      float u = unit(g.next());
      memcpy(&e[0], &u, 4);
      for (int k = 0; k < 3; ++k) e[1 + k] = g.next();
      u = unit(g.next());
      memcpy(&e[4], &u, 4);
      g.skip((1ull << 34) + 5);
      e[5] = g.next();
      g.skip_sequences(7);
      e[6] = g.next();
      double en[kNormals] = {0}, v[2];
      en[0] = normal_kind(g, 1, 0, 1);
      en[1] = normal_kind(g, 1, 0, 1);
      en[2] = normal_kind(g, 1, 0, 1);
      uint32_t a = g.next(), b = g.next();
      box_muller(a, b, v);
      en[3] = v[0] + v[1];
      en[4] = normal_kind(g, 2, 0.1, 0.5);
      en[5] = normal_kind(g, 2, 0.1, 0.5);
      a = g.next(), b = g.next();
      box_muller(a, b, v);
      en[6] = std::exp(0.1 + 0.5 * v[0]) + std::exp(0.1 + 0.5 * v[1]);
      e[7] = g.next();
      e[8] = Xorwow(key, (1ull << 40) + 3 * i, (1ull << 41) + i).next();
      e[9] = Xorwow(key, (1ull << 63) + (1ull << 62) + i, 0).next();
      Xorwow zero(0, i, 0);
      e[10] = zero.next();
      e[11] = zero.next();
      for (int k = 0; k < kWords; ++k)
        if (e[k] != hw[i * kWords + k]) {
          if (bad_words < 5) printf("seed %llu i %d word %d: curand %08x ref %08x\n", seed, i, k, hw[i * kWords + k], e[k]);
          ++bad_words;
        }
      for (int k = 0; k < 7; ++k) {
        const double d = fabs(en[k] - hn[i * kNormals + k]);
        worst = d > worst ? d : worst;
        if (d > 1e-4 * (1 + fabs(en[k]))) ++bad_normals;
      }
    }
    cudaFree(dw);
    cudaFree(dn);
  }
  printf("curand XORWOW vs reference: %d word mismatches, %d normal mismatches, worst normal diff %.3g\n", bad_words,
         bad_normals, worst);
  return bad_words || bad_normals;
}
