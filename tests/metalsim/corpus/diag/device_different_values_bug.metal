// BUG: every thread of a threadgroup stores its own index to one element: which one stays depends on the order.
out[threadgroup_position_in_grid.x] = float(thread_index_in_threadgroup);
