// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The execution layer: spaces (`exec::host`, and `exec::cuda` under a CUDA compiler),
/// `for_each_index`, scan, sort, reductions, grouping by key, fill/copy and `Buffer`.

#include <sphad/config.hpp>

#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/group.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/lanes.hpp>
#include <sphad/exec/reduce.hpp>
#include <sphad/exec/scan.hpp>
#include <sphad/exec/sort.hpp>
#include <sphad/exec/transform_reduce.hpp>

#if defined(__CUDACC__)
#include <sphad/exec/cuda.hpp>
#include <sphad/exec/thrust.hpp>
#endif
