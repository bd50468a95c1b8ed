// Part of the translator's CUDA declarations: cuda_pipeline.h brings the primitives, as the toolkit's does.
#pragma once
#include "cuda_pipeline_primitives.h"
