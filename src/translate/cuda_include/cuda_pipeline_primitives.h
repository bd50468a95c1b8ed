// Part of the translator's CUDA declarations (ksearch_cuda.h): cp.async's pipeline primitives
// (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior), ported as copies done at the call.
#pragma once
#include "ksearch_cuda.h"
