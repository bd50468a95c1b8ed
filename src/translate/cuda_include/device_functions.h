// Part of the translator's CUDA declarations (ksearch_cuda.h).
#pragma once
#include "ksearch_cuda.h"
