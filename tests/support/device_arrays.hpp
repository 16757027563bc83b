// SPDX-License-Identifier: MIT
// Host vectors to device buffers and views, for the CUDA tests (include from .cu files only).
#pragma once

#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>
#include <sphad/search/points.hpp>

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

/// A read-only view of a buffer or a host vector.
template <class T, class E>
Span<const T> span(const Buffer<T, E>& b) {
  return {b.data(), b.size()};
}
template <class T>
Span<const T> span(const std::vector<T>& v) {
  return {v.data(), std::int64_t(v.size())};
}

} // namespace sphad::test
