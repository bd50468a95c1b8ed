// expect: passes
// What Metal does resolve: math functions given a float (a converted integer, a float literal), and the functions
// Metal has for integers (abs, min, max, clamp, popcount).
// --- body ---
uint i = thread_position_in_grid.x;
int n = 4;
int m = abs(-2) + min(n, 3) - max(n, 3) + clamp(n, 0, 2) - int(popcount(3u));  // 2 + 3 - 4 + 2 - 2 = 1
float root = sqrt(float(n)) * exp(0.0f) * rsqrt(float(m) * 4.0f);              // 2 * 1 * 0.5 = 1
o[i] = fmax(a[i], -1000.0f) * 2.0f * root * float(m) * metal::precise::sqrt(1.0f) * fast::exp2(0.0f);
