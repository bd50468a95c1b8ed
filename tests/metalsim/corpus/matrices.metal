// Matrices (column-major floatCxR / halfCxR): constructors from columns, a scalar (diagonal) and
// C*R scalars; matrix * vector, vector * matrix, matrix * matrix, +, scalar *, transpose, m[c][r].
uint i = thread_position_in_grid.x;
float x = a[i];
float2x2 m = float2x2(float2(1.0, 2.0), float2(3.0, x));
float2 v = float2(x, 1.0);
float2 mv = m * v;
float2 vm = v * m;
float2x2 mm = m * m + transpose(m) * 2.0f;
float3x3 diag = float3x3(x);
float2x3 wide = float2x3(1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f);
float3 wv = wide * v;
float3x2 wt = transpose(wide);
half2x2 hm = half2x2(half2(half(2.0f), half(0.0f)), half2(half(0.0f), half(0.5f)));
half2 hv = hm * half2(half(x), half(x));
out[8 * i + 0] = mv.x;
out[8 * i + 1] = mv.y;
out[8 * i + 2] = vm.y;
out[8 * i + 3] = mm[1][0];
out[8 * i + 4] = diag[2][2] + diag[0][1];
out[8 * i + 5] = wv.z;
out[8 * i + 6] = wt[2][1];
out[8 * i + 7] = float(hv.x) + float(hv.y);
