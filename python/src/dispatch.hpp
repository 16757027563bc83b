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

/// Whether kernel K is in the list L.
template <class K, class L>
inline constexpr bool in_list_v = false;
template <class K, class... Ks>
inline constexpr bool in_list_v<K, kernels::KernelList<Ks...>> = (std::is_same_v<K, Ks> || ...);

/// f(K{}, std::integral_constant<SupportScheme, S>{}) for the kernel and scheme named (the
/// library's own switches); a kernel this build leaves out throws naming `kernel`.
template <class F>
void with_kernel_and_support(const char* function, KernelId kernel, SupportScheme support, F&& f) {
  kernels::dispatch(kernel, [&](auto k) {
    using K = decltype(k);
    if constexpr (in_list_v<K, Kernels>) {
      kernels::dispatch(support, [&](auto s) { f(k, s); });
    } else {
      sphad::detail::throw_invalid_argument(
          function, "kernel",
          sphad::detail::concat(K::name, " is not in this build (Wendland2, Wendland4, "
                                         "Wendland6, CubicSpline)"));
    }
  });
}

} // namespace sphad::python
