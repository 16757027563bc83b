// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <cstdint>

#if !defined(__CUDACC__)
#error "sphad/exec/detail/cuda_launch.hpp needs a CUDA compiler (nvcc)"
#endif

namespace sphad::detail {

/// The one kernel shape sphad launches: thread i calls f(i) for i < n.
template <class F>
SPHAD_KERNEL void for_each_index_kernel(F f, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * std::int64_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    f(i);
  }
}

inline constexpr int for_each_block_size = 256;

} // namespace sphad::detail
