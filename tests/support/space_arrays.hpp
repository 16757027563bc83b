// SPDX-License-Identifier: MIT
// Host vectors into an execution space's memory and back, for the tests that run on either space.
#pragma once

#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/span.hpp>

#include <cstdint>
#include <vector>

namespace sphad::test {

/// A buffer in the space's memory holding a copy of `values` (stream-ordered on CUDA).
template <class T, class Exec>
Buffer<T, Exec> upload(const Exec& exec, const std::vector<T>& values) {
  Buffer<T, Exec> buffer(exec, std::int64_t(values.size()));
  exec::copy_from_host(exec, values.data(), buffer.data(), buffer.size());
  return buffer;
}

/// The space's array as a host vector (synchronizes on CUDA).
template <class T, class Exec>
std::vector<T> download(const Exec& exec, const Buffer<T, Exec>& buffer) {
  return exec::to_host(exec, buffer.data(), buffer.size());
}
template <class T, class Exec>
std::vector<T> download(const Exec& exec, Span<const T> view) {
  return exec::to_host(exec, view.data(), view.size());
}

} // namespace sphad::test
