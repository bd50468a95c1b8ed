// BUG: a struct's member array indexed past its end (index n - 61 = 3) while the element read still lies inside
// the struct (its next member): undefined in Metal all the same.
struct Window { float v[3]; float weight; };
uint i = thread_position_in_grid.x;
Window w = {{a[i], a[i], a[i]}, 2.0f};
out[i] = w.v[int(n) - 61] * w.weight;
