// expect: passes
// `auto` of a half, bfloat or bool vector's swizzle holds the vector (a Mac's compiler deduces half2), not a view.
// --- body ---
uint i = thread_position_in_grid.x;
half4 h = half4(a[i], 1.0f, 2.0f, 3.0f);
auto pair = h.xy, back = h.wz;
const auto same = pair;
bfloat4 b = bfloat4(0.0f, 4.0f, a[i], 0.0f);
auto bz = b.zy;
bool4 flags = bool4(true, false, true, true);
auto f = flags.xz;
float4 v = float4(a[i]);
auto fv = v.xy;
for (auto k = 0; k < 1; ++k) pair.y = same.x;
o[i] = float(pair.x) + float(pair.y) - float(back.x) + float(bz.x) + (f.x && f.y ? 0.0f : 1.0f) + fv.x - fv.y + 3.0f - a[i] +
       0.0f * float(back.y);
