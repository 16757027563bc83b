// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>

#include <cstdint>

#if defined(__CUDACC__)
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/cuda.hpp>

#include <cub/device/device_scan.cuh>
#endif

/// \file
/// \brief Exclusive prefix sum.

namespace sphad::exec {

/// Exclusive prefix sum: out[i] = in[0] + ... + in[i−1], out[0] = 0. `in` and `out` may be the
/// same array (in place). Deterministic: the same input gives the same output bitwise on a
/// given space (integers are exact everywhere). CUDA: CUB's device scan on the stream, scratch
/// allocated stream-ordered; no synchronization. To size a CSR list from counts, scan n + 1
/// entries whose last count is 0 and read back out[n] (the total).
template <class T>
void exclusive_scan(const host&, const T* in, T* out, std::int64_t n) {
  SPHAD_REQUIRE(n >= 0, "exclusive_scan", "n", detail::concat("negative (got ", n, ")"));
  T running{};
  for (std::int64_t i = 0; i < n; ++i) {
    const T x = in[i];
    out[i] = running;
    running += x;
  }
}

#if defined(__CUDACC__)
template <class T>
void exclusive_scan(const cuda& exec, const T* in, T* out, std::int64_t n) {
  SPHAD_REQUIRE(n >= 0, "exclusive_scan", "n", detail::concat("negative (got ", n, ")"));
  if (n == 0) {
    return;
  }
  std::size_t bytes = 0;
  detail::check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, exec.stream),
                     "cub::DeviceScan::ExclusiveSum (size query)");
  Buffer<unsigned char, cuda> scratch(exec, static_cast<std::int64_t>(bytes));
  detail::check_cuda(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, in, out, n, exec.stream),
                     "cub::DeviceScan::ExclusiveSum");
}
#endif

} // namespace sphad::exec
