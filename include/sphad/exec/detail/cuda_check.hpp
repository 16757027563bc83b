// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#if !defined(__CUDACC__)
#error "sphad/exec/detail/cuda_check.hpp needs a CUDA compiler (nvcc)"
#endif

#include <sphad/errors.hpp>

#include <cuda_runtime_api.h>

namespace sphad::detail {

/// Throws `sphad::CudaError` naming `what` when a CUDA runtime call failed.
inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw CudaError(concat("sphad: ", what, " failed: ", cudaGetErrorName(status), ": ",
                           cudaGetErrorString(status)));
  }
}

} // namespace sphad::detail
