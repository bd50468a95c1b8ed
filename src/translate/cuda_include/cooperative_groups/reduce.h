// Part of the translator's CUDA declarations: cg::reduce is declared in cooperative_groups.h (so
// that no toolkit header is parsed).
#pragma once
#include <cooperative_groups.h>
