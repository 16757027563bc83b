// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#if !defined(__CUDACC__)
#error "sphad/exec/thrust.hpp needs a CUDA compiler (nvcc)"
#endif

#include <sphad/exec/cuda.hpp>

#include <thrust/system/cuda/execution_policy.h>

/// \file
/// \brief `exec::thrust_policy`: Thrust's execution policy for a CUDA space — its stream, and no
/// synchronization after each algorithm. Needs a CUDA compiler.

namespace sphad::exec {

/// The policy that runs a Thrust algorithm on `exec`'s stream without synchronizing after it
/// (`thrust::cuda::par_nosync.on(stream)`), so it is ordered with sphad's work on that stream
/// like any other call: `thrust::transform(exec::thrust_policy(exec), first, last, out, f)`.
/// Algorithms that return a value to the host (`thrust::reduce`, `thrust::count`, ...) must
/// still wait for it; `exec::transform_reduce` writes its sum into device memory instead.
inline auto thrust_policy(const cuda& exec) {
  return thrust::cuda::par_nosync.on(exec.stream);
}

} // namespace sphad::exec
