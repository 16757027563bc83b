// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>

#include <cstdint>

#if SPHAD_HAS_OPENMP
#include <omp.h>
#endif

/// \file
/// \brief `exec::host`: the host execution space (OpenMP when available, else serial).

namespace sphad::exec {

/// The host execution space: loops run on the calling thread's OpenMP team when the code is
/// compiled with OpenMP, serially otherwise. Memory is ordinary host memory. Everything that
/// runs here is synchronous: results are ready when a call returns.
struct host {
  /// Loops shorter than this run serially: an OpenMP team costs microseconds to start.
  static constexpr std::int64_t parallel_threshold = 2048;

  /// Threads a parallel loop uses (1 without OpenMP).
  static int concurrency() {
#if SPHAD_HAS_OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
  }
};

/// Calls `f(i)` once for every i in [0, n), in parallel where OpenMP is enabled. `f` must not
/// throw and must not depend on the order of the calls; each call should write only what its
/// own index owns (that is what makes results deterministic). Synchronous.
template <class F>
void for_each_index(const host&, std::int64_t n, const F& f) {
  SPHAD_REQUIRE(n >= 0, "for_each_index", "n", detail::concat("negative (got ", n, ")"));
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static) if (n >= host::parallel_threshold)
#endif
  for (std::int64_t i = 0; i < n; ++i) {
    f(i);
  }
}

/// Waits for all work submitted to the space; the host space is synchronous, so nothing to do.
inline void fence(const host&) {}

} // namespace sphad::exec
