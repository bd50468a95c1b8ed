// The translator's CUB declarations are one file (../cub.cuh); CUB's headers of one facility include it.
#pragma once
#include "../cub.cuh"
