// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

/// \file
/// \brief `KernelId`, the runtime name of a smoothing kernel, with the reference's values.

namespace sphad {

/// Smoothing kernels by runtime id; the integer values are the reference's `KernelFunctions`
/// (warpSPHCore 0.6.0: B8 = 33, B7 = 34, HOCT4 = 35, Gaussian = 36). `kernels::dispatch` turns
/// an id into its type. The id only serves the runtime front end: a kernel type defined outside
/// the library needs none (its operators report `UserDefined`, which no dispatch accepts).
enum class KernelId : int {
  Wendland2 = 0,
  Wendland4 = 1,
  Wendland6 = 2,
  Poly6 = 20,
  Spiky = 21,
  CubicSpline = 30,
  QuarticSpline = 31,
  QuinticSpline = 32,
  B8 = 33,
  B7 = 34,
  HOCT4 = 35,
  Gaussian = 36,
  ViscosityKernel = 40,
  CohesionKernel = 41,
  AdhesionKernel = 42,
  UserDefined = -1, ///< a kernel type without an `id` (one the library has never heard of)
};

namespace kernels {

/// How a kernel behaves at q = 0, which decides its values at coincident particles.
enum class Center {
  smooth,   ///< k'(0) = 0: ∇W → 0 and the Hessian tends to C_d k''(0) h^-(D+2) I
  cusp,     ///< k'(0) ≠ 0 (Spiky): ∇W(0) = 0 and second-order terms at r = 0 are defined as 0
  singular, ///< k(0) = ∞ (ViscosityKernel): every quantity at r = 0 is defined as 0
};

} // namespace kernels
} // namespace sphad
