// SPDX-License-Identifier: MIT
// From the runtime choices a Python call carries to the compile-time types of the C++ library:
// the kernels and support schemes this module is built with.
#pragma once

#include <sphad/errors.hpp>
#include <sphad/kernels.hpp>

#include <type_traits>

namespace sphad::python {

/// The kernels this build instantiates.
using Kernels = kernels::
    KernelList<kernels::Wendland2, kernels::Wendland4, kernels::Wendland6, kernels::CubicSpline>;

template <class F, class K, class... Rest>
void with_kernel_in(const char* function, KernelId id, F&& f, kernels::KernelList<K, Rest...>) {
  if (id == K::id) {
    f(K{});
  } else if constexpr (sizeof...(Rest) > 0) {
    with_kernel_in(function, id, f, kernels::KernelList<Rest...>{});
  } else {
    sphad::detail::throw_invalid_argument(
        function, "kernel",
        sphad::detail::concat("kernel ", static_cast<int>(id),
                              " is not in this build (Wendland2, Wendland4, Wendland6, "
                              "CubicSpline)"));
  }
}

/// f(K{}, std::integral_constant<SupportScheme, S>{}) for the kernel and scheme named.
template <class F>
void with_kernel_and_support(const char* function, KernelId kernel, SupportScheme support, F&& f) {
  with_kernel_in(
      function, kernel, [&](auto k) { kernels::dispatch(support, [&](auto s) { f(k, s); }); },
      Kernels{});
}

} // namespace sphad::python
