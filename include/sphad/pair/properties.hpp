// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/kernel_id.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/pair/schemes.hpp>

/// \file
/// \brief `OperationProperties`: every choice of an operator call that changes generated code,
/// as runtime values (the reference's OperationProperties). Each operator type states its own
/// as `Op::properties`; `ops::dispatch` (<sphad/ops/runtime.hpp>) maps values back to types.

namespace sphad {

/// The runtime description of an operator. The reference's `operationMode` (direction) and
/// `n_h`/`calibrateNormalization` do not change code: they are `ApplyOptions` here; its
/// `consistentDivergence` argument is a field here. Fields an operation does not read are
/// ignored (`canonical` resets them).
struct OperationProperties {
  Operation operation = Operation::Interpolate;
  KernelId kernel = KernelId::Wendland4;
  SupportScheme support = SupportScheme::Gather;
  GradientScheme gradient_scheme = GradientScheme::Naive;        ///< gradient family, Laplacian
  LaplacianScheme laplacian_scheme = LaplacianScheme::Brookshaw; ///< default: Brookshaw
  DivergenceMode divergence_mode = DivergenceMode::Standard;     ///< Divergence
  bool consistent_divergence = false;                            ///< Divergence: V_j ρ_j/ρ_i
  bool positive_divergence = false;                              ///< Laplacian: x_ij·q_ij ≥ 0

  friend constexpr bool operator==(const OperationProperties& a, const OperationProperties& b) {
    return a.operation == b.operation && a.kernel == b.kernel && a.support == b.support &&
           a.gradient_scheme == b.gradient_scheme && a.laplacian_scheme == b.laplacian_scheme &&
           a.divergence_mode == b.divergence_mode &&
           a.consistent_divergence == b.consistent_divergence &&
           a.positive_divergence == b.positive_divergence;
  }
  friend constexpr bool operator!=(const OperationProperties& a, const OperationProperties& b) {
    return !(a == b);
  }
};

/// `p` with every field its operation does not read reset to the default, and the Laplacian's
/// gradient scheme reduced to what it reads (Symmetric or not): two properties give the same
/// results exactly when their canonical forms are equal.
constexpr OperationProperties canonical(const OperationProperties& p) {
  OperationProperties c;
  c.operation = p.operation;
  c.kernel = p.kernel;
  c.support = p.support;
  const bool gradient_family = p.operation == Operation::Gradient ||
                               p.operation == Operation::Divergence ||
                               p.operation == Operation::Curl;
  if (gradient_family) {
    c.gradient_scheme = p.gradient_scheme;
  }
  if (p.operation == Operation::Divergence) {
    c.divergence_mode = p.divergence_mode;
    c.consistent_divergence = p.consistent_divergence;
  }
  if (p.operation == Operation::Laplacian) {
    c.laplacian_scheme = p.laplacian_scheme;
    c.positive_divergence = p.positive_divergence;
    if (p.gradient_scheme == GradientScheme::Symmetric) {
      c.gradient_scheme = GradientScheme::Symmetric;
    }
  }
  return c;
}

} // namespace sphad
