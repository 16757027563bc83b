// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/scalar_traits.hpp>
#include <sphad/kernels/kernel_id.hpp>

#include <type_traits>

/// \file
/// \brief `is_kernel_v`, `check_kernel`, and the ε of the reference's regularized formulas.

namespace sphad::kernels {

namespace detail {
template <class K, class = void>
struct is_kernel_impl : std::false_type {};
template <class K>
struct is_kernel_impl<K,
                      std::void_t<decltype(K::id),
                                  decltype(K::center),
                                  decltype(K::template normalization<1, double>()),
                                  decltype(K::template k<1>(0.0)),
                                  decltype(K::template dk<1>(0.0)),
                                  decltype(K::template d2k<1>(0.0)),
                                  decltype(K::template d3k<1>(0.0))>>
    : std::bool_constant<std::is_same_v<std::remove_cv_t<decltype(K::id)>, KernelId>> {};
} // namespace detail

/// True for a smoothing-kernel type: one with `id`, `center`, `normalization<D, R>()` and the
/// shape ladder `k`, `dk`, `d2k`, `d3k` (see <sphad/kernels/wendland.hpp>).
template <class K>
inline constexpr bool is_kernel_v = detail::is_kernel_impl<K>::value;

/// Compile-time check of a kernel type and a dimension, with messages that say what to change.
template <class K, int D>
SPHAD_HOST_DEVICE constexpr void check_kernel() {
  static_assert(is_kernel_v<K>,
                "sphad::kernels: Kernel is not a smoothing kernel; use a type from sphad::kernels "
                "(e.g. kernels::Wendland4) or give yours id, center, normalization and k..d3k");
  static_assert(D >= 1 && D <= 3, "sphad::kernels: the dimension D must be 1, 2 or 3");
}

/// The ε of the reference's regularized Laplacian (ref-kernels §1): 1e-7 for float, 1e-15 for
/// double (of the primal type).
template <class T>
inline constexpr primal_t<T> kernel_epsilon_v = std::is_same_v<primal_t<T>, float>
                                                    ? primal_t<T>(1e-7)
                                                    : primal_t<T>(1e-15);

} // namespace sphad::kernels
