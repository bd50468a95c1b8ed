// expect: passes
// Vectors built from swizzles, as Metal builds them for every element type: constructed (`half2(v.xy)`,
// `half4(v.xy, v.zw)`), braced (`half2{v.zw}`, `half2 w = {v.xy}`, `half2 w{v.yz}`) and converted (`float2(v.xy)`,
// `half2(f.xy)`), for half, bfloat, float, int and uint vectors.
// --- body ---
uint i = thread_position_in_grid.x;
half4 v = half4(a[i], 1.0h, 2.0h, 3.0h);
half2 constructed = half2(v.xy);
half2 braced = half2{v.zw};
half2 copy_braced = {v.xy};
half2 direct_braced{v.yz};
half4 joined = half4(v.xy, v.zw);
half3 three = half3{v.xyz};
float2 widened = float2(v.xy);
bfloat4 b = bfloat4(v);
bfloat2 b_braced = bfloat2{b.wz};
bfloat2 b_constructed = bfloat2(b.xy);
float4 f = float4(a[i], 4.0f, 5.0f, 6.0f);
float2 f_braced = float2{f.zw};
half2 narrowed = half2(f.xy);
int4 k = int4(7, 8, 9, 10);
int2 k_braced = int2{k.wx};
uint2 u = uint2(k.yz);
bool ok = float(constructed.x) == a[i] && float(constructed.y) == 1.0f && float(braced.x) == 2.0f &&
          float(braced.y) == 3.0f && float(copy_braced.x) == a[i] && float(direct_braced.y) == 2.0f &&
          float(joined.x) == a[i] && float(joined.w) == 3.0f && float(three.z) == 2.0f && widened.x == a[i] &&
          widened.y == 1.0f && float(b_braced.x) == 3.0f && float(b_braced.y) == 2.0f && float(b_constructed.x) == a[i] &&
          f_braced.x == 5.0f && f_braced.y == 6.0f && float(narrowed.x) == a[i] && float(narrowed.y) == 4.0f &&
          k_braced.x == 10 && k_braced.y == 7 && u.x == 8u && u.y == 9u;
o[i] = ok ? 2.0f * a[i] : -1000.0f;
