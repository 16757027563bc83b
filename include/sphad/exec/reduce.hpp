// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>

#include <cub/device/device_reduce.cuh>
#endif

/// \file
/// \brief The largest element of an array, returned to the host.

namespace sphad::detail {
/// max(a, b) that keeps a NaN from either side (NaN is not the largest of anything, so a plain
/// comparison would drop it): the NaN propagates through any order of reduction.
struct MaxOperator {
  template <class T>
  SPHAD_HOST_DEVICE T operator()(const T& a, const T& b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return b > a || b != b ? b : a; // b != b: b is NaN
    } else {
      return b > a ? b : a;
    }
  }
};
} // namespace sphad::detail

namespace sphad::exec {

/// max(in[0, n)), or `empty` when n = 0; NaN when any element is NaN, wherever it sits (callers
/// read the maximum of positions, drifts and speeds, where a NaN means the run has failed).
/// Exact (a maximum does not depend on order). CUDA: CUB's device reduction, then one read back
/// to the host — this call synchronizes the stream.
template <class T>
// host sync: returns its result to the host by design (documented)
T reduce_max(const host&, const T* in, std::int64_t n, T empty) {
  SPHAD_REQUIRE(n >= 0, "reduce_max", "n", detail::concat("negative (got ", n, ")"));
  if (n == 0) {
    return empty;
  }
  T result = in[0];
  for (std::int64_t i = 1; i < n; ++i) {
    result = detail::MaxOperator{}(result, in[i]);
  }
  return result;
}

#if defined(__CUDACC__)
template <class T>
// host sync: returns its result to the host by design (documented)
T reduce_max(const cuda& exec, const T* in, std::int64_t n, T empty) {
  SPHAD_REQUIRE(n >= 0, "reduce_max", "n", detail::concat("negative (got ", n, ")"));
  if (n == 0) {
    return empty;
  }
  Buffer<T, cuda> result(exec, 1);
  const T lowest = std::numeric_limits<T>::lowest();
  std::size_t bytes = 0;
  detail::check_cuda(cub::DeviceReduce::Reduce(nullptr, bytes, in, result.data(), n,
                                               detail::MaxOperator{}, lowest, exec.stream),
                     "cub::DeviceReduce::Reduce (size query)");
  Buffer<unsigned char, cuda> scratch(exec, static_cast<std::int64_t>(bytes));
  detail::check_cuda(cub::DeviceReduce::Reduce(scratch.data(), bytes, in, result.data(), n,
                                               detail::MaxOperator{}, lowest, exec.stream),
                     "cub::DeviceReduce::Reduce");
  // host sync: the documented read of reduce_max
  return to_host(exec, result.data(), 1)[0];
}
#endif

} // namespace sphad::exec
