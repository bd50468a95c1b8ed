// expect: passes
// Metal's vector casts convert each component (clang's would reinterpret the bits): C-style and static_cast,
// nested, of a member, a subscript, a call and a parenthesized expression, a scalar splat, vec<T, N>(...).
inline float unused_first(float4) { return 0.0f; }
// --- body ---
uint i = thread_position_in_grid.x;
float4 v = float4(a[i]);
int4 k = (int4)(v * 2.0f);
float4 back = (float4)k;
float2 pair = static_cast<float2>(k.xy) + (float2)int2(0) - (float2)-int2(0, 0);
uint4 u = (uint4)(int4)(float4)k + static_cast<uint4>(int4(6));
float4 from_u = (float4)u - (float4)6.0f;
half2 h = (half2)k.zw;
float4 w = vec<float, 4>(back.x, pair.y, float(h.x), from_u.w);
metal::vec<float, 2> m = metal::vec<float, 2>(w.x, w.y);
float4 arr[1] = {back};
o[i] = float(sizeof(float4) * 0) + unused_first(v) + ((float4)arr[0]).x + m.y + w.z + w.w - 3.0f * ((float4)as_type<int>(k.x)).x;
