// SPDX-License-Identifier: MIT
// Density from Python: the value, its JVP and its VJP, for one particle set (queries and
// references the same arrays) over a neighbour list. Each function is a template over the
// dimension and the scalar, instantiated once per (D, T) in density_<D>d.cpp; the kernel and the
// support scheme are dispatched inside (dispatch.hpp).
#pragma once

#include <sphad/ad.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "dispatch.hpp"

#include <cstdint>
#include <vector>

namespace sphad::python {

/// What every Density call shares: the particle set's views (checked), the domain, the list
/// and the runtime choices.
template <int D, class T>
struct DensityCall {
  static constexpr int dim = D;
  using scalar = T;
  Span<const Vec<T, D>> positions;
  Span<const T> supports;
  Span<const T> masses;
  Span<const std::int32_t> kinds;
  Domain<D, T> domain;
  const NeighborList<exec::host>* list;
  KernelId kernel;
  SupportScheme support;
  ApplyOptions<T> options;
  const char* function; ///< the Python function, for messages

  ParticleSet<D, T> set() const { return {positions, supports, masses, kinds}; }
};

/// out[i] = Σ_j m_j W_ij.
template <int D, class T>
void density_value(const DensityCall<D, T>& c, Span<T> out) {
  const exec::host ex;
  const auto set = c.set();
  with_kernel_and_support(c.function, c.kernel, c.support, [&](auto kernel, auto support) {
    using Op = ops::Density<decltype(kernel), decltype(support)::value>;
    apply_into<Op>(ex, set, set, c.domain, *c.list, out, c.options);
  });
}

/// The value and its directional derivative along (ẋ, ḣ, ṁ) (absent ones zero).
template <int D, class T>
void density_jvp(const DensityCall<D, T>& c,
                 Span<const Vec<T, D>> positions_dot,
                 Span<const T> supports_dot,
                 Span<const T> masses_dot,
                 Span<T> out,
                 Span<T> out_dot) {
  const exec::host ex;
  const std::int64_t n = c.positions.size();
  // One instantiation serves every combination: an absent tangent is zero.
  std::vector<Vec<T, D>> zero_x(positions_dot.size() == 0 ? std::size_t(n) : 0);
  std::vector<T> zero_h(supports_dot.size() == 0 ? std::size_t(n) : 0);
  std::vector<T> zero_m(masses_dot.size() == 0 ? std::size_t(n) : 0);
  const auto or_zero = [](auto given, const auto& zeros) {
    using S = decltype(given);
    return given.size() != 0 || zeros.empty() ? given : S(zeros.data(), std::int64_t(zeros.size()));
  };
  const auto set =
      c.set()
          .with_positions(with_tangents<1>(c.positions, or_zero(positions_dot, zero_x)))
          .with_supports(with_tangents<1>(c.supports, or_zero(supports_dot, zero_h)))
          .with_masses(with_tangents<1>(c.masses, or_zero(masses_dot, zero_m)));
  with_kernel_and_support(c.function, c.kernel, c.support, [&](auto kernel, auto support) {
    using Op = ops::Density<decltype(kernel), decltype(support)::value>;
    jvp_into<Op>(ex, set, set, c.domain, *c.list, out, out_dot, c.options);
  });
}

/// ∂L/∂x, ∂L/∂h, ∂L/∂m for the seed ∂L/∂ρ (each written when its span is not empty).
template <int D, class T>
void density_vjp(const DensityCall<D, T>& c,
                 Span<const T> seed,
                 Span<Vec<T, D>> positions_bar,
                 Span<T> supports_bar,
                 Span<T> masses_bar) {
  const exec::host ex;
  const Variable<Vec<T, D>> x(c.positions);
  const Variable<T> h(c.supports), m(c.masses);
  const auto set = c.set().with_positions(x).with_supports(h).with_masses(m);
  with_kernel_and_support(c.function, c.kernel, c.support, [&](auto kernel, auto support) {
    using Op = ops::Density<decltype(kernel), decltype(support)::value>;
    Tape<exec::host> tape(ex);
    const auto rho = record<Op>(tape, set, set, c.domain, *c.list, c.options);
    tape.backward(rho, seed);
    if (positions_bar.size() != 0) {
      tape.copy_gradient(x, positions_bar);
    }
    if (supports_bar.size() != 0) {
      tape.copy_gradient(h, supports_bar);
    }
    if (masses_bar.size() != 0) {
      tape.copy_gradient(m, masses_bar);
    }
  });
}

#define SPHAD_PYTHON_DENSITY(PREFIX, D, T)                                                         \
  PREFIX template void density_value<D, T>(const DensityCall<D, T>&, Span<T>);                     \
  PREFIX template void density_jvp<D, T>(const DensityCall<D, T>&, Span<const Vec<T, D>>,          \
                                         Span<const T>, Span<const T>, Span<T>, Span<T>);          \
  PREFIX template void density_vjp<D, T>(const DensityCall<D, T>&, Span<const T>, Span<Vec<T, D>>, \
                                         Span<T>, Span<T>);

#define SPHAD_PYTHON_DENSITY_DIM(PREFIX, D)                                                        \
  SPHAD_PYTHON_DENSITY(PREFIX, D, float)                                                           \
  SPHAD_PYTHON_DENSITY(PREFIX, D, double)

SPHAD_PYTHON_DENSITY_DIM(extern, 1)
SPHAD_PYTHON_DENSITY_DIM(extern, 2)
SPHAD_PYTHON_DENSITY_DIM(extern, 3)

} // namespace sphad::python
