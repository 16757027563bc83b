// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/host.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#include <sphad/exec/cuda.hpp>
#endif

/// \file
/// \brief Filling and copying arrays in an execution space's memory, and moving them between
/// the host and that space (`to_host`, `to_buffer`).

namespace sphad::exec {

/// Sets `out[0, n)` to `value`.
template <class T>
void fill(const host&, T* out, std::int64_t n, const T& value) {
  SPHAD_REQUIRE(n >= 0, "fill", "n", detail::concat("negative (got ", n, ")"));
  std::fill_n(out, n, value);
}

/// Copies `in[0, n)` to `out[0, n)`, both in the space's memory; the ranges must not overlap.
template <class T>
void copy(const host&, const T* in, T* out, std::int64_t n) {
  SPHAD_REQUIRE(n >= 0, "copy", "n", detail::concat("negative (got ", n, ")"));
  std::copy_n(in, n, out);
}

/// Copies host memory `in[0, n)` into the space's memory `out[0, n)`.
template <class T>
void copy_from_host(const host& exec, const T* in, T* out, std::int64_t n) {
  copy(exec, in, out, n);
}

/// The space's array `in[0, n)` as a host vector. On CUDA this synchronizes the stream.
template <class T>
// host sync: the explicit host transfer (host memory: a copy)
std::vector<T> to_host(const host&, const T* in, std::int64_t n) {
  SPHAD_REQUIRE(n >= 0, "to_host", "n", detail::concat("negative (got ", n, ")"));
  return std::vector<T>(in, in + n);
}

/// The space's element `*in`, on the host (a reduction's result, a list's total) without a
/// vector. On CUDA this synchronizes the stream.
template <class T>
// host sync: the explicit host transfer (host memory: a read)
T value_to_host(const host&, const T* in) {
  return *in;
}

#if defined(__CUDACC__)
} // namespace sphad::exec

namespace sphad::detail {
template <class T>
struct FillFunctor {
  T* out;
  T value;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const { out[i] = value; }
};
} // namespace sphad::detail

namespace sphad::exec {

template <class T>
void fill(const cuda& exec, T* out, std::int64_t n, const T& value) {
  SPHAD_REQUIRE(n >= 0, "fill", "n", detail::concat("negative (got ", n, ")"));
  for_each_index(exec, n, detail::FillFunctor<T>{out, value});
}

template <class T>
void copy(const cuda& exec, const T* in, T* out, std::int64_t n) {
  SPHAD_REQUIRE(n >= 0, "copy", "n", detail::concat("negative (got ", n, ")"));
  if (n > 0) {
    detail::check_cuda(
        cudaMemcpyAsync(out, in, sizeof(T) * n, cudaMemcpyDeviceToDevice, exec.stream),
        "cudaMemcpyAsync (device to device)");
  }
}

template <class T>
void copy_from_host(const cuda& exec, const T* in, T* out, std::int64_t n) {
  SPHAD_REQUIRE(n >= 0, "copy_from_host", "n", detail::concat("negative (got ", n, ")"));
  if (n > 0) {
    detail::check_cuda(cudaMemcpyAsync(out, in, sizeof(T) * n, cudaMemcpyHostToDevice, exec.stream),
                       "cudaMemcpyAsync (host to device)");
  }
}

template <class T>
// host sync: the explicit device-to-host transfer, documented as synchronizing
std::vector<T> to_host(const cuda& exec, const T* in, std::int64_t n) {
  SPHAD_REQUIRE(n >= 0, "to_host", "n", detail::concat("negative (got ", n, ")"));
  std::vector<T> out(static_cast<std::size_t>(n));
  if (n > 0) {
    detail::check_cuda(
        // host sync: inside to_host
        cudaMemcpyAsync(out.data(), in, sizeof(T) * n, cudaMemcpyDeviceToHost, exec.stream),
        "cudaMemcpyAsync (device to host)");
  }
  fence(exec);
  return out;
}
#endif

#if defined(__CUDACC__)
template <class T>
// host sync: the explicit device-to-host transfer of one element, documented as synchronizing
T value_to_host(const cuda& exec, const T* in) {
  T out{};
  detail::check_cuda(
      // host sync: inside value_to_host
      cudaMemcpyAsync(&out, in, sizeof(T), cudaMemcpyDeviceToHost, exec.stream),
      "cudaMemcpyAsync (device to host)");
  fence(exec);
  return out;
}
#endif

/// A new buffer in the space's memory holding a copy of `values` (stream-ordered; the host
/// vector may be released when this returns).
template <class T, class Exec>
Buffer<T, Exec> to_buffer(const Exec& exec, const std::vector<T>& values) {
  Buffer<T, Exec> out(exec, static_cast<std::int64_t>(values.size()));
  copy_from_host(exec, values.data(), out.data(), out.size());
  return out;
}

} // namespace sphad::exec
