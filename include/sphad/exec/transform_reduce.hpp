// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>

#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#endif

/// \file
/// \brief `transform_reduce`: out[0] = Σ_i f(i), summed in an order fixed by n alone, written
/// where the execution space's memory is (no read back, no synchronization).

namespace sphad::detail {
/// a + b, for CUB.
struct Plus {
  template <class T>
  SPHAD_HOST_DEVICE SPHAD_INLINE T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
} // namespace sphad::detail

namespace sphad::exec {

/// The host sums `reduce_chunk` consecutive terms per chunk, then the chunks in order.
inline constexpr std::int64_t reduce_chunk = 4096;

/// *out = Σ_{i < n} f(i) (T{} for n = 0), with `out` in the space's memory. f: a function
/// object of the index, callable on the space (`SPHAD_HOST_DEVICE` for CUDA), returning T (a
/// scalar, a `Vec`, anything with + and a zero T{}). Deterministic: the host sums each chunk of
/// `reduce_chunk` terms in order, in parallel, then the chunks in order — fixed by n, never by
/// the thread count, so the same bits on any number of threads; CUDA runs CUB's two-pass
/// reduction, the same bits from run to run on one GPU (another GPU model may round
/// differently). Stream-ordered, no synchronization.
template <class T, class F>
void transform_reduce(const host&, std::int64_t n, const F& f, T* out) {
  SPHAD_REQUIRE(n >= 0, "transform_reduce", "n", detail::concat("negative (got ", n, ")"));
  const std::int64_t chunks = (n + reduce_chunk - 1) / reduce_chunk;
  // Up to `local` chunks (n ≤ 2¹⁸) the partial sums live on the stack: no allocation per call.
  constexpr std::int64_t local = 64;
  T on_stack[local];
  std::vector<T> on_heap(std::size_t(chunks > local ? chunks : 0));
  T* const partial = chunks > local ? on_heap.data() : on_stack;
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static) if (chunks > 1)
#endif
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t end = c + 1 < chunks ? (c + 1) * reduce_chunk : n;
    T sum = f(c * reduce_chunk);
    for (std::int64_t i = c * reduce_chunk + 1; i < end; ++i) {
      sum = sum + f(i);
    }
    partial[c] = sum;
  }
  T total = chunks > 0 ? partial[0] : T{};
  for (std::int64_t c = 1; c < chunks; ++c) {
    total = total + partial[c];
  }
  *out = total;
}

#if defined(__CUDACC__)
template <class T, class F>
void transform_reduce(const cuda& exec, std::int64_t n, const F& f, T* out) {
  SPHAD_REQUIRE(n >= 0, "transform_reduce", "n", detail::concat("negative (got ", n, ")"));
  if (n == 0) {
    fill(exec, out, 1, T{});
    return;
  }
  const thrust::counting_iterator<std::int64_t> first(0);
  std::size_t bytes = 0;
  detail::check_cuda(cub::DeviceReduce::TransformReduce(nullptr, bytes, first, out, n,
                                                        detail::Plus{}, f, T{}, exec.stream),
                     "cub::DeviceReduce::TransformReduce (size query)");
  Buffer<unsigned char, cuda> scratch(exec, static_cast<std::int64_t>(bytes));
  detail::check_cuda(cub::DeviceReduce::TransformReduce(scratch.data(), bytes, first, out, n,
                                                        detail::Plus{}, f, T{}, exec.stream),
                     "cub::DeviceReduce::TransformReduce");
}
#endif

} // namespace sphad::exec
