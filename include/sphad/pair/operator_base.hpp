// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/kernel_id.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/pair/schemes.hpp>

/// \file
/// \brief `OperatorBase<Kernel, Support>`: the one base of every operator — the library's
/// (`ops/`), the solver's pair terms and the correction pipelines' stages, and a user's: the
/// kernel and support scheme members of the operator concept, checked, and the runtime
/// `properties` of an operation of them.

namespace sphad::ops {

/// The kernel and support scheme of an operator (the concept's `kernel_type` and `support`);
/// `describe` forms the properties of an operation of them.
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

} // namespace sphad::ops
