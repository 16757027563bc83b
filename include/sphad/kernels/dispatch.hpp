// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/kernels/akinci.hpp>
#include <sphad/kernels/b_splines.hpp>
#include <sphad/kernels/gaussian.hpp>
#include <sphad/kernels/hoct4.hpp>
#include <sphad/kernels/kernel_id.hpp>
#include <sphad/kernels/mueller.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/kernels/wendland.hpp>

#include <type_traits>

/// \file
/// \brief From runtime ids to compile-time types: the one place `KernelId` and `SupportScheme`
/// values are switched on. Call once at the boundary, never per pair.

namespace sphad::kernels {

/// Every kernel type, in id order; `all_kernel_ids` lists their ids in the same order.
template <class... Kernels>
struct KernelList {};
using AllKernels = KernelList<Wendland2,
                              Wendland4,
                              Wendland6,
                              Poly6,
                              Spiky,
                              CubicSpline,
                              QuarticSpline,
                              QuinticSpline,
                              B8,
                              B7,
                              HOCT4,
                              Gaussian,
                              ViscosityKernel,
                              CohesionKernel,
                              AdhesionKernel>;
inline constexpr KernelId all_kernel_ids[] = {KernelId::Wendland2,
                                              KernelId::Wendland4,
                                              KernelId::Wendland6,
                                              KernelId::Poly6,
                                              KernelId::Spiky,
                                              KernelId::CubicSpline,
                                              KernelId::QuarticSpline,
                                              KernelId::QuinticSpline,
                                              KernelId::B8,
                                              KernelId::B7,
                                              KernelId::HOCT4,
                                              KernelId::Gaussian,
                                              KernelId::ViscosityKernel,
                                              KernelId::CohesionKernel,
                                              KernelId::AdhesionKernel};

namespace detail {
template <class F, class First, class... Rest>
decltype(auto) dispatch_kernel(KernelId id, F&& f, KernelList<First, Rest...>) {
  if (id == First::id) {
    return f(First{});
  }
  if constexpr (sizeof...(Rest) > 0) {
    return dispatch_kernel(id, static_cast<F&&>(f), KernelList<Rest...>{});
  } else {
    sphad::detail::throw_invalid_argument(
        "kernels::dispatch", "kernel",
        sphad::detail::concat("unknown KernelId (got ", static_cast<int>(id),
                              ", expected one of 0, 1, 2, 20, 21, 30-36, 40-42)"));
  }
}
} // namespace detail

/// Calls `f(K{})` with the kernel type whose id is `id`; throws `InvalidArgument` naming
/// `kernel` for an id no kernel has. All calls of `f` must return the same type.
template <class F>
decltype(auto) dispatch(KernelId id, F&& f) {
  return detail::dispatch_kernel(id, static_cast<F&&>(f), AllKernels{});
}

/// The `KernelId` with integer value `value`; throws `InvalidArgument` for an unknown value.
inline KernelId kernel_id_from_int(int value) {
  const auto id = static_cast<KernelId>(value);
  return dispatch(id, [](auto kernel) { return decltype(kernel)::id; });
}

/// The name of a kernel id ("Wendland4"); throws for an unknown id.
inline const char* kernel_name(KernelId id) {
  return dispatch(id, [](auto kernel) { return decltype(kernel)::name; });
}

/// Calls `f(std::integral_constant<SupportScheme, S>{})` for the runtime scheme `scheme`;
/// throws `InvalidArgument` naming `support_scheme` for an unknown value.
template <class F>
decltype(auto) dispatch(SupportScheme scheme, F&& f) {
  using S = SupportScheme;
  switch (scheme) {
  case S::Gather:
    return f(std::integral_constant<S, S::Gather>{});
  case S::Scatter:
    return f(std::integral_constant<S, S::Scatter>{});
  case S::MeanSymmetric:
    return f(std::integral_constant<S, S::MeanSymmetric>{});
  case S::KernelMeanSymmetric:
    return f(std::integral_constant<S, S::KernelMeanSymmetric>{});
  case S::SuperSymmetric:
    return f(std::integral_constant<S, S::SuperSymmetric>{});
  case S::PartialSymmetric:
    return f(std::integral_constant<S, S::PartialSymmetric>{});
  }
  sphad::detail::throw_invalid_argument("kernels::dispatch", "support_scheme",
                                        sphad::detail::concat("unknown SupportScheme (got ",
                                                              static_cast<int>(scheme),
                                                              ", expected 11-16)"));
}

} // namespace sphad::kernels
