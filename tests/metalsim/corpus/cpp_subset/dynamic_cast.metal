// expect: body line 3: dynamic_cast is not supported in Metal
struct Base { float factor = 2; };
// --- body ---
uint i = thread_position_in_grid.x;
Base b;
o[i] = dynamic_cast<Base*>(&b)->factor * a[i];
