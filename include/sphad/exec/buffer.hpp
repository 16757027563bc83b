// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)
#include <sphad/exec/cuda.hpp>
#endif

/// \file
/// \brief `Buffer<T, Exec>`: an owning array in the memory of an execution space.

namespace sphad {

/// An owning, move-only array of `n` elements of `T` in the memory space of `Exec`. Its
/// elements are left uninitialized (fill them with `exec::fill`). Host buffers use ordinary
/// heap memory; CUDA buffers are allocated and freed stream-ordered on the space's stream
/// (`cudaMallocAsync`/`cudaFreeAsync`), so creating one never synchronizes the device; the
/// device's pool keeps freed memory for the next allocation (see `exec::cuda`).
/// @tparam T     a trivially copyable element type.
/// @tparam Exec  `exec::host` or `exec::cuda`.
template <class T, class Exec>
class Buffer;

namespace detail {
/// Frees host memory from `std::malloc` (host buffers: so that a growing array, see
/// `HostRows`, can become one without a copy).
struct FreeHostMemory {
  void operator()(void* p) const { std::free(p); }
};
/// The bytes of n ≥ 0 elements of T. Throws `InvalidArgument` naming `n` when they exceed what
/// one allocation can address (PTRDIFF_MAX bytes), instead of a product that wraps around.
template <class T>
std::size_t byte_size(std::int64_t n) {
  constexpr auto most = std::int64_t(std::size_t(PTRDIFF_MAX) / sizeof(T));
  SPHAD_REQUIRE(n <= most, "Buffer", "n",
                concat("is ", n, " elements of ", sizeof(T),
                       " bytes: more than one allocation can address (at most ", most,
                       " elements)"));
  return sizeof(T) * static_cast<std::size_t>(n);
}

/// `n` elements of T from `std::malloc`, uninitialized; `std::bad_alloc` when none is left.
template <class T>
T* allocate_host(std::int64_t n) {
  static_assert(alignof(T) <= alignof(std::max_align_t),
                "sphad::Buffer: host buffers hold types of at most malloc's alignment");
  if (n <= 0) {
    return nullptr;
  }
  void* p = std::malloc(byte_size<T>(n));
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return static_cast<T*>(p);
}
template <class T>
Buffer<T, exec::host> adopt_host_memory(T* data, std::int64_t n);
template <class T>
T* release_host_memory(Buffer<T, exec::host>& buffer);
} // namespace detail

template <class T>
class Buffer<T, exec::host> {
  static_assert(std::is_trivially_copyable_v<T>,
                "sphad::Buffer: the element type must be trivially copyable");

public:
  using value_type = T;
  using exec_type = exec::host;

  Buffer() = default;
  Buffer(const exec::host&, std::int64_t n) : size_(n) {
    SPHAD_REQUIRE(n >= 0, "Buffer", "n", detail::concat("negative size (got ", n, ")"));
    data_.reset(detail::allocate_host<T>(n));
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::int64_t size() const { return size_; }
  T& operator[](std::int64_t i) { return data_.get()[i]; }
  const T& operator[](std::int64_t i) const { return data_.get()[i]; }

private:
  friend Buffer detail::adopt_host_memory<T>(T*, std::int64_t);
  friend T* detail::release_host_memory<T>(Buffer&);
  std::unique_ptr<T, detail::FreeHostMemory> data_;
  std::int64_t size_ = 0;
};

namespace detail {
/// A host buffer owning `data` (`n` elements from `std::malloc`, or null for none).
template <class T>
Buffer<T, exec::host> adopt_host_memory(T* data, std::int64_t n) {
  Buffer<T, exec::host> buffer;
  buffer.data_.reset(data);
  buffer.size_ = n;
  return buffer;
}
/// The memory of `buffer` handed to the caller (from `std::malloc`, null for none); `buffer` is
/// left empty.
template <class T>
T* release_host_memory(Buffer<T, exec::host>& buffer) {
  buffer.size_ = 0;
  return buffer.data_.release();
}
/// `buffer` resized to `n` elements in its own memory by `std::realloc`: the first
/// min(n, size) kept, and the pages it has written stay mapped (a large block is remapped, not
/// copied) — how a rebuild writes over memory the previous result faulted in already.
template <class T>
void resize_host(Buffer<T, exec::host>& buffer, std::int64_t n) {
  if (n == buffer.size()) {
    return;
  }
  const std::size_t bytes = n > 0 ? byte_size<T>(n) : 0; // before the buffer is given up
  T* old = release_host_memory(buffer);
  if (n <= 0) {
    std::free(old);
    return;
  }
  void* p = std::realloc(old, bytes);
  if (p == nullptr) {
    std::free(old);
    throw std::bad_alloc();
  }
  buffer = adopt_host_memory(static_cast<T*>(p), n);
}
} // namespace detail

#if defined(__CUDACC__)
template <class T>
class Buffer<T, exec::cuda> {
  static_assert(std::is_trivially_copyable_v<T>,
                "sphad::Buffer: the element type must be trivially copyable");

public:
  using value_type = T;
  using exec_type = exec::cuda;

  Buffer() = default;
  Buffer(const exec::cuda& exec, std::int64_t n) : stream_(exec.stream), size_(n) {
    SPHAD_REQUIRE(n >= 0, "Buffer", "n", detail::concat("negative size (got ", n, ")"));
    if (n > 0) {
      detail::keep_freed_pool_memory();
      void* p = nullptr;
      detail::check_cuda(cudaMallocAsync(&p, detail::byte_size<T>(n), stream_), "cudaMallocAsync");
      data_ = static_cast<T*>(p);
    }
  }
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    Buffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (data_ != nullptr) {
      cudaFreeAsync(data_, stream_); // no throw from a destructor; errors resurface later
    }
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::int64_t size() const { return size_; }

private:
  void swap(Buffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(stream_, other.stream_);
    std::swap(size_, other.size_);
  }

  T* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::int64_t size_ = 0;
};
#endif

namespace detail {
/// A buffer of `n` elements in the memory of `old` (no longer needed) where it can be: on the
/// host `old` resized in place (`resize_host`: its written pages stay mapped), elsewhere `old`
/// when it holds n elements already (a CUDA pool keeps freed memory anyway), else a new one.
template <class T, class Exec>
Buffer<T, Exec> recycle(const Exec& exec, Buffer<T, Exec>&& old, std::int64_t n) {
  Buffer<T, Exec> out = std::move(old);
  if constexpr (std::is_same_v<Exec, exec::host>) {
    resize_host(out, n);
  } else if (out.size() != n) {
    out = Buffer<T, Exec>(exec, n);
  }
  return out;
}
} // namespace detail

} // namespace sphad
