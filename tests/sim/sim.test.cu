// SPDX-License-Identifier: MIT
// The tape's array algebra on the CUDA space (needs a GPU to run; CI only compiles it).
#include <sphad/exec/cuda.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::cuda
#include "sim/sim.cases.hpp"
