// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `Span<T>`: the library's non-owning view of an array, used by every layer.

namespace sphad {

/// A pointer and a length: a non-owning view of `size()` elements in some memory space. A
/// `std::vector` converts to a view of its elements (host memory; the vector must outlive the
/// view), so a host caller can pass vectors wherever a `Span` is expected; Thrust's vectors
/// convert the same way (a `device_vector` to a view of device memory).
template <class T>
struct Span {
  using element_type = T;

  constexpr Span() = default;
  SPHAD_HOST_DEVICE constexpr Span(T* pointer, std::int64_t n) : data_(pointer), size_(n) {}
  /// A view of the same elements with added const.
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  SPHAD_HOST_DEVICE constexpr Span(const Span<U>& other)
      : data_(other.data()), size_(other.size()) {}
  /// A view of a vector's elements.
  template <class U,
            class A,
            class = std::enable_if_t<std::is_same_v<U, T> || std::is_same_v<const U, T>>>
  Span(std::vector<U, A>& v) : data_(v.data()), size_(std::int64_t(v.size())) {}
  template <class U, class A, class = std::enable_if_t<std::is_same_v<const U, T>>>
  Span(const std::vector<U, A>& v) : data_(v.data()), size_(std::int64_t(v.size())) {}
  /// A view of a container whose `data()` is a fancy pointer with `get()`, the address:
  /// `thrust::device_vector` (device memory: pass it to `exec::cuda` calls) and
  /// `thrust::host_vector` (host memory), const or not. The container must outlive the view.
  template <class C,
            class P = decltype(std::declval<C&>().data().get()),
            class = std::enable_if_t<std::is_convertible_v<P, T*>>>
  Span(C& container) : data_(container.data().get()), size_(std::int64_t(container.size())) {}

  /// The first element.
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T* data() const { return data_; }
  /// The number of elements.
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr std::int64_t size() const { return size_; }
  SPHAD_HOST_DEVICE SPHAD_INLINE T& operator[](std::int64_t i) const { return data_[i]; }

private:
  T* data_ = nullptr;
  std::int64_t size_ = 0;
};

} // namespace sphad
