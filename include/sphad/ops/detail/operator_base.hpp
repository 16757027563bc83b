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
#include <sphad/pair/pair.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/pair/schemes.hpp>

#include <type_traits>

/// \file
/// \brief What the library's operators share: the kernel and support scheme with their
/// `properties` (`OperatorBase`), and the reads of the field derivatives (`FieldDerivative`).

namespace sphad::ops {

namespace detail {
template <class Kernel, SupportScheme Support>
struct OperatorBase {
  static_assert(kernels::is_kernel_v<Kernel>,
                "sphad::ops: Kernel is not a smoothing kernel; use a type from sphad::kernels or "
                "give yours center, normalization<D, R>() and k, dk, d2k (docs/extending.md)");
  using kernel_type = Kernel;
  static constexpr SupportScheme support = Support;

protected:
  /// The properties of an operation of this kernel and support scheme; the fields after
  /// `operation` in OperationProperties order.
  static constexpr OperationProperties
  describe(Operation operation,
           GradientScheme gradient = GradientScheme::Naive,
           LaplacianScheme laplacian = LaplacianScheme::Brookshaw,
           DivergenceMode mode = DivergenceMode::Standard,
           bool consistent = false,
           bool positive = false) {
    return {operation, kernels::kernel_id_v<Kernel>, Support, gradient, laplacian, mode, consistent,
            positive};
  }
};

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
