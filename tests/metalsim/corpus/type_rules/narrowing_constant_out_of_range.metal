// expect: body line 2: constant expression evaluates to 300 which cannot be narrowed
// A constant narrows when its type does not hold its value: uchar ends at 255.
// --- body ---
uint i = thread_position_in_grid.x;
uchar bytes[2] = {7, 300};
o[i] = a[i] * float(bytes[0]);
