// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#if !defined(__CUDACC__)
#error "sphad/exec/cuda.hpp needs a CUDA compiler (nvcc)"
#endif

#include <sphad/errors.hpp>
#include <sphad/exec/detail/cuda_check.hpp>
#include <sphad/exec/detail/cuda_launch.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

/// \file
/// \brief `exec::cuda`: the CUDA execution space, a stream. Needs a CUDA compiler.

namespace sphad::detail {

/// Run before each allocation: the first time sphad allocates on a device, the device's current
/// memory pool is told to keep the memory freed into it (release threshold: unlimited) unless
/// the caller has set a threshold already. With the default threshold (0) every
/// synchronization hands freed memory back to the driver and the next large allocation maps it
/// again: about 3 ms of each reverse sweep over 10⁶ particles on an H200. Give the memory back
/// with `cudaMemPoolTrimTo` on `cudaDeviceGetMemPool`'s pool.
inline void keep_freed_pool_memory() {
  static std::atomic<std::uint64_t> configured{0}; // one bit per device (ids < 64)
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) {
    return;
  }
  const std::uint64_t bit = std::uint64_t(1) << device;
  if ((configured.load(std::memory_order_relaxed) & bit) != 0) {
    return;
  }
  cudaMemPool_t pool = nullptr;
  std::uint64_t threshold = 0;
  if (cudaDeviceGetMemPool(&pool, device) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess &&
      threshold == 0) {
    threshold = ~std::uint64_t(0);
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
  configured.fetch_or(bit, std::memory_order_relaxed);
}

} // namespace sphad::detail

namespace sphad::exec {

/// The CUDA execution space: work is enqueued on `stream` and runs asynchronously; memory is
/// device memory, allocated stream-ordered (`cudaMallocAsync`) from the device's current pool,
/// which sphad sets to keep freed memory for reuse (`detail::keep_freed_pool_memory`). Nothing
/// sphad does on this space synchronizes unless its documentation says so (`fence`, `to_host`).
struct cuda {
  cudaStream_t stream = nullptr; ///< the caller's stream; the legacy default stream when null
};

/// Enqueues `f(i)` for every i in [0, n) on the stream, one thread per index. `f` must be a
/// device-callable functor (a struct with a `SPHAD_HOST_DEVICE operator()` or a
/// `__device__` lambda) and is copied by value into the kernel. No synchronization; launch
/// errors throw `sphad::CudaError`. n = 0 launches nothing.
template <class F>
void for_each_index(const cuda& exec, std::int64_t n, const F& f) {
  SPHAD_REQUIRE(n >= 0, "for_each_index", "n", detail::concat("negative (got ", n, ")"));
  if (n == 0) {
    return;
  }
  constexpr int block = detail::for_each_block_size;
  const std::int64_t grid = (n + block - 1) / block;
  SPHAD_REQUIRE(grid <= 0x7fffffff, "for_each_index", "n",
                detail::concat("too large for one launch (got ", n, ")"));
  detail::for_each_index_kernel<<<static_cast<unsigned>(grid), block, 0, exec.stream>>>(f, n);
  detail::check_cuda(cudaGetLastError(), "sphad::for_each_index kernel launch");
}

/// Blocks the host until all work enqueued on the stream has finished (synchronizing).
inline void fence(const cuda& exec) {
  // host sync: fence is the explicit wait
  detail::check_cuda(cudaStreamSynchronize(exec.stream), "cudaStreamSynchronize");
}

} // namespace sphad::exec
