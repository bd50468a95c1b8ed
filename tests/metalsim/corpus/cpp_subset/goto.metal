// expect: body line 3: goto is not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2 * a[i];
if (i > 8) goto done;
o[i] += 0;
done:;
