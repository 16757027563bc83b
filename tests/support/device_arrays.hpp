// SPDX-License-Identifier: MIT
// Host vectors to device buffers, for the CUDA tests (include from .cu files only); views of
// them: test::span in ops/ops_cases.hpp.
#pragma once

#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>

#include <cstdint>
#include <vector>

namespace sphad::test {

/// A device copy of `v` (stream-ordered on `ex`).
template <class T>
Buffer<T, exec::cuda> upload(const exec::cuda& ex, const std::vector<T>& v) {
  Buffer<T, exec::cuda> b(ex, std::int64_t(v.size()));
  exec::copy_from_host(ex, v.data(), b.data(), b.size());
  return b;
}

} // namespace sphad::test
