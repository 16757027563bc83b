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

/// One particle set's arrays (checked), as the queries or the references of a call.
template <int D, class T>
struct SetViews {
  Span<const Vec<T, D>> positions;
  Span<const T> supports;
  Span<const T> masses;
  Span<const std::int32_t> kinds;

  ParticleSet<D, T> set() const { return {positions, supports, masses, kinds}; }
};

/// Tangents of one set's positions, supports and masses (an empty span: zero).
template <int D, class T>
struct SetTangents {
  Span<const Vec<T, D>> positions;
  Span<const T> supports;
  Span<const T> masses;
};

/// Where one set's gradients go (an empty span: not wanted).
template <int D, class T>
struct SetGradients {
  Span<Vec<T, D>> positions;
  Span<T> supports;
  Span<T> masses;
};

/// What every Density call shares: the two sets, the domain, the list (queries' rows,
/// references' indices) and the runtime choices.
template <int D, class T>
struct DensityCall {
  static constexpr int dim = D;
  using scalar = T;
  SetViews<D, T> queries;
  SetViews<D, T> references;
  Domain<D, T> domain;
  const NeighborList<exec::host>* list;
  KernelId kernel;
  SupportScheme support;
  ApplyOptions<T> options;
  const char* function; ///< the Python function, for messages
};

/// out[i] = Σ_j m_j W_ij over the queries i and their references j.
template <int D, class T>
void density_value(const DensityCall<D, T>& c, Span<T> out) {
  const exec::host ex;
  const auto q = c.queries.set();
  const auto r = c.references.set();
  with_kernel_and_support(c.function, c.kernel, c.support, [&](auto kernel, auto support) {
    using Op = ops::Density<decltype(kernel), decltype(support)::value>;
    apply_into<Op>(ex, q, r, c.domain, *c.list, out, c.options);
  });
}

namespace detail {
/// A set carrying the given tangents (zeros where absent: one instantiation serves every
/// combination); `zeros` holds the zero arrays while the set is used.
template <int D, class T>
struct SetWithTangents {
  std::vector<Vec<T, D>> zero_x;
  std::vector<T> zero_scalars;

  auto operator()(const SetViews<D, T>& s, const SetTangents<D, T>& t) {
    const std::size_t n = std::size_t(s.positions.size());
    if (t.positions.size() == 0) {
      zero_x.assign(n, Vec<T, D>{});
    }
    if (t.supports.size() == 0 || t.masses.size() == 0) {
      zero_scalars.assign(n, T(0));
    }
    const Span<const Vec<T, D>> dx =
        t.positions.size() != 0 ? t.positions : Span<const Vec<T, D>>(zero_x);
    const Span<const T> zeros(zero_scalars);
    return s.set()
        .with_positions(with_tangents<1>(s.positions, dx))
        .with_supports(with_tangents<1>(s.supports, t.supports.size() != 0 ? t.supports : zeros))
        .with_masses(with_tangents<1>(s.masses, t.masses.size() != 0 ? t.masses : zeros));
  }
};
} // namespace detail

/// The value and its directional derivative along both sets' tangents.
template <int D, class T>
void density_jvp(const DensityCall<D, T>& c,
                 const SetTangents<D, T>& query_tangents,
                 const SetTangents<D, T>& reference_tangents,
                 Span<T> out,
                 Span<T> out_dot) {
  const exec::host ex;
  detail::SetWithTangents<D, T> query_zeros, reference_zeros;
  const auto q = query_zeros(c.queries, query_tangents);
  const auto r = reference_zeros(c.references, reference_tangents);
  with_kernel_and_support(c.function, c.kernel, c.support, [&](auto kernel, auto support) {
    using Op = ops::Density<decltype(kernel), decltype(support)::value>;
    jvp_into<Op>(ex, q, r, c.domain, *c.list, out, out_dot, c.options);
  });
}

/// Both sets' ∂L/∂x, ∂L/∂h, ∂L/∂m for the seed ∂L/∂ρ (each written when its span is not
/// empty). The two sets are tracked as separate variables even over the same memory: a tensor
/// in both roles gets the sum of the two (torch adds them).
template <int D, class T>
void density_vjp(const DensityCall<D, T>& c,
                 Span<const T> seed,
                 const SetGradients<D, T>& query_gradients,
                 const SetGradients<D, T>& reference_gradients) {
  const exec::host ex;
  const Variable<Vec<T, D>> qx(c.queries.positions), rx(c.references.positions);
  const Variable<T> qh(c.queries.supports), qm(c.queries.masses);
  const Variable<T> rh(c.references.supports), rm(c.references.masses);
  const auto q = c.queries.set().with_positions(qx).with_supports(qh).with_masses(qm);
  const auto r = c.references.set().with_positions(rx).with_supports(rh).with_masses(rm);
  with_kernel_and_support(c.function, c.kernel, c.support, [&](auto kernel, auto support) {
    using Op = ops::Density<decltype(kernel), decltype(support)::value>;
    Tape<exec::host> tape(ex);
    const auto rho = record<Op>(tape, q, r, c.domain, *c.list, c.options);
    tape.backward(rho, seed);
    const auto copy = [&](const auto& variable, auto out) {
      if (out.size() != 0) {
        tape.copy_gradient(variable, out);
      }
    };
    copy(qx, query_gradients.positions);
    copy(qh, query_gradients.supports);
    copy(qm, query_gradients.masses);
    copy(rx, reference_gradients.positions);
    copy(rh, reference_gradients.supports);
    copy(rm, reference_gradients.masses);
  });
}

#define SPHAD_PYTHON_DENSITY(PREFIX, D, T)                                                         \
  PREFIX template void density_value<D, T>(const DensityCall<D, T>&, Span<T>);                     \
  PREFIX template void density_jvp<D, T>(const DensityCall<D, T>&, const SetTangents<D, T>&,       \
                                         const SetTangents<D, T>&, Span<T>, Span<T>);              \
  PREFIX template void density_vjp<D, T>(const DensityCall<D, T>&, Span<const T>,                  \
                                         const SetGradients<D, T>&, const SetGradients<D, T>&);

#define SPHAD_PYTHON_DENSITY_DIM(PREFIX, D)                                                        \
  SPHAD_PYTHON_DENSITY(PREFIX, D, float)                                                           \
  SPHAD_PYTHON_DENSITY(PREFIX, D, double)

SPHAD_PYTHON_DENSITY_DIM(extern, 1)
SPHAD_PYTHON_DENSITY_DIM(extern, 2)
SPHAD_PYTHON_DENSITY_DIM(extern, 3)

} // namespace sphad::python
