// Honest (must pass): one thread per (channel, batch), the N states in registers in a struct with `thread` methods,
// the state loops unrolled with `#pragma clang loop unroll(full)` over the template N; an enum class for the B/C
// layout, `select` for softplus's large-input branch, a `static constant constexpr` threshold, 2-D grid.
// grid: d, b, 1
// threadgroup: 64, 1, 1
// template: N = n
enum class BCLayout : int { fixed = 0, input_dependent = 1 };
static constant constexpr float kSoftplusThreshold = 20.0f;

template <int NS>
struct ScanState {
  float h[NS];
  METAL_FUNC void clear() thread {
#pragma clang loop unroll(full)
    for (int s = 0; s < NS; ++s) h[s] = 0.0f;
  }
  // h = exp(dt * A) h + dt * B * u; returns C . h
  METAL_FUNC float step(const device float* a_row, const device float* b, const device float* c, size_t bc_stride,
                        float dt, float u) thread {
    float y = 0.0f;
#pragma clang loop unroll(full)
    for (int s = 0; s < NS; ++s) {
      h[s] = fma(exp(dt * a_row[s]), h[s], dt * b[s * bc_stride] * u);
      y = fma(h[s], c[s * bc_stride], y);
    }
    return y;
  }
};
// --- body ---
uint channel = thread_position_in_grid.x;
uint batch = thread_position_in_grid.y;
if (int(channel) >= d) return;
const BCLayout layout = bc_layout == 0 ? BCLayout::fixed : BCLayout::input_dependent;
const int group = int(channel) / (d / g);
const float d_skip = has_D ? D[channel] : 0.0f;
const float bias = has_delta_bias ? delta_bias[channel] : 0.0f;
const device float* a_row = A + size_t(channel) * N;
ScanState<N> state;
state.clear();
for (int t = 0; t < l; ++t) {
  size_t at = (size_t(batch) * d + channel) * l + t;
  float dt = delta[at] + bias;
  if (delta_softplus) dt = select(log1p(exp(dt)), dt, dt > kSoftplusThreshold);
  float ut = u[at];
  float yt;
  if (layout == BCLayout::fixed) {
    yt = state.step(a_row, B + size_t(channel) * N, C + size_t(channel) * N, 1, dt, ut);
  } else {
    size_t bc = (size_t(batch) * g + group) * N * size_t(l) + t;
    yt = state.step(a_row, B + bc, C + bc, size_t(l), dt, ut);
  }
  yt = fma(d_skip, ut, yt);
  if (has_z) {
    float zt = z[at];
    yt *= zt / (1.0f + exp(-zt));
  }
  y[at] = yt;
}
if (has_last_state) {
#pragma clang loop unroll(full)
  for (int s = 0; s < N; ++s) last_state[(size_t(batch) * d + channel) * N + s] = state.h[s];
}
