// Part of the translator's CUDA declarations: cg::memcpy_async, cg::wait and cg::wait_prior are declared in
// cooperative_groups.h (so that no toolkit header is parsed).
#pragma once
#include <cooperative_groups.h>
