// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/kernel_id.hpp>
#include <sphad/scalar_traits.hpp>

#include <type_traits>

/// \file
/// \brief What a smoothing-kernel type must provide (`is_kernel_v`, `check_kernel`), what it may
/// provide (`kernel_id_v`, `kernel_name_v`), and the ε of the reference's regularized formulas.
///
/// A kernel type — the library's or a user's — is a struct of static members:
/// - `center`: a `kernels::Center`, how k behaves at q = 0 (smooth, cusp or singular);
/// - `normalization<D, R>()`: C_d in the scalar type R, for D = 1, 2, 3;
/// - the shape `k<D>(q)` and its q-derivatives `dk<D>(q)`, `d2k<D>(q)`, valid on [0, 1] and
///   generic over plain and dual scalars (every derivative the library takes is built from
///   these three).
/// Everything else is optional: `id` and `name` (the runtime front end and messages),
/// `kernel_scale[3]` and `packing_ratio` (the support-radius helpers), `normalized`, `d3k`,
/// the division-free `dk_over_q<D>` (k'(q)/q) and `hessian_radial<D>` ((k'' − k'/q)/q²) that
/// the evaluations use instead of quotients where a kernel has them, and `lanewise` (true when
/// the shape functions take SIMD packs as written: `lanewise_shape_v`). Lattice calibration
/// needs only the required members.

namespace sphad::kernels {

namespace detail {
template <class K, class = void>
struct has_center : std::false_type {};
template <class K>
struct has_center<K, std::void_t<decltype(K::center)>>
    : std::is_same<std::remove_cv_t<decltype(K::center)>, Center> {};

template <class K, class = void>
struct has_normalization : std::false_type {};
template <class K>
struct has_normalization<K,
                         std::void_t<decltype(K::template normalization<1, double>()),
                                     decltype(K::template normalization<2, double>()),
                                     decltype(K::template normalization<3, double>())>>
    : std::true_type {};

template <class K, class = void>
struct has_shape : std::false_type {};
template <class K>
struct has_shape<K,
                 std::void_t<decltype(K::template k<1>(0.0)),
                             decltype(K::template dk<1>(0.0)),
                             decltype(K::template d2k<1>(0.0))>> : std::true_type {};

template <class K, class = void>
struct has_id : std::false_type {};
template <class K>
struct has_id<K, std::void_t<decltype(K::id)>>
    : std::is_same<std::remove_cv_t<decltype(K::id)>, KernelId> {};

template <class K, class = void>
struct has_name : std::false_type {};
template <class K>
struct has_name<K, std::void_t<decltype(K::name)>>
    : std::is_convertible<decltype(K::name), const char*> {};

template <class K>
constexpr KernelId kernel_id_of() {
  if constexpr (has_id<K>::value) {
    return K::id;
  } else {
    return KernelId::UserDefined;
  }
}
} // namespace detail

/// True for a smoothing-kernel type: one with `center`, `normalization<D, R>()` and the shape
/// `k`, `dk`, `d2k` (see the file comment; <sphad/kernels/wendland.hpp> shows a full one).
template <class K>
inline constexpr bool is_kernel_v = detail::has_center<K>::value&&
    detail::has_normalization<K>::value&& detail::has_shape<K>::value;

/// Whether kernel K declares that its shape functions (`k`, `dk`, `d2k`, and `dk_over_q`,
/// `hessian_radial` where it has them) take SIMD packs as written — one arithmetic expression in
/// q on [0, 1], no branch on q's value, no function other than + − × ÷ and `ipow` —: `static
/// constexpr bool lanewise = true;`. The host's pair loops then evaluate W pairs of such a
/// kernel at once (each lane the bits of the scalar evaluation); any other kernel is evaluated
/// pair by pair, with the same results, slower. Every polynomial kernel qualifies.
template <class K, class = void>
inline constexpr bool lanewise_shape_v = false;
template <class K>
inline constexpr bool lanewise_shape_v<K, std::void_t<decltype(K::lanewise)>> = K::lanewise;

/// K's runtime id: `K::id` where it has one, else `KernelId::UserDefined`.
template <class K>
inline constexpr KernelId kernel_id_v = detail::kernel_id_of<K>();

/// K's name for messages: `K::name` where it has one, else "a user-defined kernel".
template <class K>
constexpr const char* kernel_name_v() {
  if constexpr (detail::has_name<K>::value) {
    return K::name;
  } else {
    return "a user-defined kernel";
  }
}

/// Compile-time check of a kernel type and a dimension, with messages that say what to change.
template <class K, int D>
SPHAD_HOST_DEVICE constexpr void check_kernel() {
  static_assert(detail::has_center<K>::value,
                "sphad::kernels: Kernel is not a smoothing kernel: it needs `static constexpr "
                "kernels::Center center` (smooth, cusp or singular: how k behaves at q = 0); use a "
                "type from sphad::kernels (e.g. kernels::Wendland4) or see docs/extending.md");
  static_assert(detail::has_normalization<K>::value,
                "sphad::kernels: Kernel is not a smoothing kernel: it needs `template <int D, "
                "class R> static constexpr R normalization()` (C_d for D = 1, 2, 3)");
  static_assert(detail::has_shape<K>::value,
                "sphad::kernels: Kernel is not a smoothing kernel: it needs the shape "
                "`template <int D, class T> static T k(const T& q)` and its derivatives dk and "
                "d2k, generic over the scalar T");
  static_assert(D >= 1 && D <= 3, "sphad::kernels: the dimension D must be 1, 2 or 3");
}

/// The ε of the reference's regularized Laplacian: 1e-7 for float, 1e-15 for
/// double (of the primal type).
template <class T>
inline constexpr primal_t<T> kernel_epsilon_v = std::is_same_v<primal_t<T>, float>
                                                    ? primal_t<T>(1e-7)
                                                    : primal_t<T>(1e-15);

} // namespace sphad::kernels
