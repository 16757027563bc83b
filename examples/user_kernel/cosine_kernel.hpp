// SPDX-License-Identifier: MIT
// A smoothing kernel the library has never heard of: the raised cosine
//   k(q) = (1 + cos πq)/2 on [0, 1],
// smooth at the centre (k'(0) = 0) and at the edge (k(1) = k'(1) = 0). A kernel type is a struct
// of static members: `center`, `normalization<D, R>()` (C_d, so that ∫W dV = 1) and the shape
// k, dk, d2k, generic over the scalar type (plain or dual). That is all the library needs for
// every operator, forward and reverse mode and lattice calibration; `name` is optional and only
// appears in messages. It has no `id`: the runtime front end (`KernelId`) cannot select it.
// `SPHAD_HOST_DEVICE` lets the same functions run in CUDA operators.
#pragma once

#include <sphad/sphad.hpp>

#include <cmath>

namespace user {

struct CosineKernel {
  static constexpr sphad::kernels::Center center = sphad::kernels::Center::smooth;
  static constexpr const char* name = "CosineKernel";

  /// C_d = 1/(Ω_d ∫₀¹ k q^(d−1) dq): 1D 1, 2D 1/(π/2 − 2/π), 3D 1/(2π/3 − 4/π).
  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    const R pi = sphad::pi_v<R>;
    return D == 1 ? R(1) : D == 2 ? R(1) / (pi / 2 - 2 / pi) : R(1) / (2 * pi / 3 - 4 / pi);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    using std::cos;
    return T((1 + cos(sphad::pi_v<sphad::primal_t<T>> * q)) / 2);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    using std::sin;
    const auto pi = sphad::pi_v<sphad::primal_t<T>>;
    return T(-pi / 2 * sin(pi * q));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    using std::cos;
    const auto pi = sphad::pi_v<sphad::primal_t<T>>;
    return T(-pi * pi / 2 * cos(pi * q));
  }
};

static_assert(sphad::kernels::is_kernel_v<CosineKernel>, "CosineKernel is a smoothing kernel");

} // namespace user
