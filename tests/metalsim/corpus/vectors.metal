// Vectors: constructors, swizzles, component access, packed types, bool vectors.
uint i = thread_position_in_grid.x;
float4 v = float4(a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]);
v.xy = v.yx;                      // swizzle assignment
float3 w = v.zyx;                 // swizzle read
float2 p = float2(w.x, v.w) + float2(1.0);
int2 q = int2(p) * 2 + int2(1, -1);
uint3 u = uint3(q.x, q.y, 7u);
half4 h = half4(v);
h.y = half(2.0f);
packed_float3 pk = packed_float3(w);
packed_float2 pb = {w.x, 3};      // braced, one scalar per component
float3 back = float3(pk) * 2.0f;
bool4 b = bool4(v > float4(0.5f));
float4 s = select(float4(0.0f), v, b);
out[i] = dot(v, float4(1, 2, 3, 4)) + w.x + p.y + float(u.x + u.y + u.z) + float(h.y) + float(h[0]) +
         back.z + s.x + s.y + s.z + s.w + (any(v > 100.0f) ? 1000.0f : 0.0f) + (all(b) ? 10000.0f : 0.0f) +
         length(float2(3.0f, 4.0f)) + v.r * 0.0f + pb.x + pb.y;
