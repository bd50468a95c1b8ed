// Honest (must pass): one lane per state: a SIMD group scans 32 / N channels at once, lane (channel, s) keeps h[s]
// in a register; y's dot product C . h is a simd_shuffle_xor tree within each channel's N lanes; every lane
// reaches every shuffle (lanes past d compute on zeros and store nothing).
// grid: 32 * ceil(d * N / 32), b, 1
// threadgroup: 32, 1, 1
// template: N = n
// --- body ---
uint lane_in_grid = thread_position_in_grid.x;
uint batch = thread_position_in_grid.y;
uint channel = lane_in_grid / N;
uint s = lane_in_grid % N;
bool active = int(channel) < d;
uint ch = active ? channel : 0;
float a = A[size_t(ch) * N + s];
float skip = D[ch];
float h = has_state ? state[(size_t(batch) * d + ch) * N + s] : 0.0f;
for (int t = 0; t < l; ++t) {
  size_t bl = size_t(batch) * l + t;
  float xt = x[bl * d + ch];
  float dt = delta[bl * d + ch];
  dt = dt > 20.0f ? dt : log1p(exp(dt));
  h = exp(dt * a) * h + dt * B[bl * N + s] * xt;
  float part = h * C[bl * N + s];
  for (ushort offset = N / 2; offset > 0; offset >>= 1) part += simd_shuffle_xor(part, offset);
  if (active && s == 0) y[bl * d + ch] = part + skip * xt;
}
if (active) new_state[(size_t(batch) * d + ch) * N + s] = h;
