// Part of the translator's CUDA declarations: cg::inclusive_scan and cg::exclusive_scan are declared in
// cooperative_groups.h (so that no toolkit header is parsed).
#pragma once
#include <cooperative_groups.h>
