// SPDX-License-Identifier: MIT
// The search tests on the CUDA space (needs a GPU to run; CI compiles it).
#include <sphad/exec/cuda.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::cuda
#include "search/search.cases.hpp"
