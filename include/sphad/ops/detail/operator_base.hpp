// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/ops/detail/field_algebra.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/operator_base.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/pair/schemes.hpp>

#include <type_traits>

/// \file
/// \brief What the library's field-derivative operators share (`FieldDerivative`: they read
/// values and densities; grad-h divides their values), on the common `OperatorBase`.

namespace sphad::ops {

namespace detail {
/// Whether F is a field (anything but NoField).
template <class F>
inline constexpr bool is_field_v = !std::is_same_v<F, NoField>;

/// What Gradient, Divergence, Curl and Laplacian share: they read values and densities, and
/// grad-h divides their values.
template <class Kernel, SupportScheme Support>
struct FieldDerivative : OperatorBase<Kernel, Support> {
  static constexpr bool uses_grad_h = true;
  static constexpr bool needs_densities = true;
  static constexpr bool needs_values = true;
};
} // namespace detail

} // namespace sphad::ops
