// Swizzles of half, bfloat and bool vectors: reads, writes of some components, compound
// assignment, swizzles as operands and constructor arguments.
uint i = thread_position_in_grid.x;
half4 h = half4(a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]);
half4 g = h;
g.xz = h.zx;                    // writes x and z only
g.yw = g.wy;                    // same swizzle type on both sides
half2 s = h.xy + h.zw;          // swizzle operands
s += h.ww;
g.rg *= half(2.0f);             // compound assignment through rgba names
half3 t = -h.zyx;
bfloat4 b = bfloat4(h.wzyx);    // swizzle as a constructor argument
bfloat2 bb = b.yz;
bool4 m = h > half4(half(1.0f));
bool2 mm = m.wx;
float4 f = float4(g);
out[8 * i + 0] = f.x;
out[8 * i + 1] = f.y;
out[8 * i + 2] = f.z;
out[8 * i + 3] = f.w;
out[8 * i + 4] = float(s.x) + float(s.y);
out[8 * i + 5] = float(t.x) - float(t.z);
out[8 * i + 6] = float(bb.x) * 10.0f + float(bb.y);
out[8 * i + 7] = (mm.x ? 1.0f : 0.0f) + (mm.y ? 2.0f : 0.0f) + float(float2(h.yx * h.xy).x);
