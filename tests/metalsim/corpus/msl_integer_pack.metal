// Integer functions (exact in 128 bits, then wrapped or saturated) and pack/unpack, bit for bit.
uint i = thread_position_in_grid.x;
uint x = xs[i], y = ys[i];
int sx = as_type<int>(x), sy = as_type<int>(y);
uint2 vx = uint2(x, y), vy = uint2(y, x);
uint o = 16 * i;
out[o + 0] = as_type<uint>(madhi(sx, sy, 7)) ^ madhi(x, y, 3u);
out[o + 1] = as_type<uint>(madsat(sx >> 16, sy >> 12, sx));
out[o + 2] = madsat(vx, vy, vx).y;
out[o + 3] = as_type<uint>(addsat(sx, sy)) ^ (subsat(x, y) << 1);
out[o + 4] = as_type<uint>(subsat(sx, sy)) ^ addsat(vx, vy).x;
out[o + 5] = as_type<uint>(hadd(sx, sy)) ^ rhadd(x, y);
out[o + 6] = as_type<uint>(rhadd(sx, sy)) ^ hadd(vx, vy).y;
out[o + 7] = as_type<uint>(absdiff(sx, sy)) ^ absdiff(x, y);
out[o + 8] = uint(as_type<ushort>(addsat(short(sx), short(sy)))) | (uint(subsat(uchar(x), uchar(y))) << 16) |
             (uint(as_type<uchar>(madsat(char(sx), char(sy), char(3)))) << 24);
float4 f = float4(as_type<int4>(uint4(x, y, x >> 3, y >> 5))) * 1e-9f - 0.5f;
out[o + 9] = pack_float_to_unorm4x8(f) ^ pack_float_to_snorm4x8(f * 2.5f);
out[o + 10] = pack_float_to_unorm2x16(f.xy) ^ pack_half_to_snorm2x16(half2(f.zw));
float4 u = unpack_unorm4x8_to_float(x) + unpack_snorm4x8_to_float(y);
float2 s = unpack_snorm2x16_to_float(x) - float2(unpack_unorm2x16_to_half(y));
out[o + 11] = as_type<uint>(u.x + u.y * 3.0f + u.z * 5.0f + u.w * 7.0f);
out[o + 12] = as_type<uint>(s.x + s.y * 3.0f);
out[o + 13] = pack_float_to_unorm10a2(f + 0.5f) ^ uint(pack_float_to_unorm565(f.xyz + 0.5f));
out[o + 14] = popcount(x) + (clz(y) << 8) + (ctz(x) << 16) + (uint(clz(ushort(y))) << 24);
out[o + 15] = extract_bits(x, 3u, 9u) ^ insert_bits(y, x, 7u, 11u) ^ reverse_bits(x) ^ rotate(y, x & 31u);
