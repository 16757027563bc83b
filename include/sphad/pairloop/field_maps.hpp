// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/errors.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/particles.hpp>

#include <type_traits>

/// \file
/// \brief A call's views walked and mapped field by field: a particle set's floating fields
/// (all through one function, or by role), the correction states' arrays, their names in
/// messages, and `Untracked`, which reads a `Variable` as its plain array.

namespace sphad::pairloop {

/// A view with its tracking removed: a `Variable` reads as the `Span` of its array.
struct Untracked {
  template <class View>
  auto operator()(const View& view) const {
    if constexpr (is_variable_v<View>) {
      return view.span();
    } else {
      return view;
    }
  }
};

/// The set with its floating fields mapped one by one (in this order): positions through `fx`,
/// supports `fh`, masses `fm`, densities `fd`, volumes `fv`.
template <class Set, class FX, class FH, class FM, class FD, class FV>
auto map_fields(const Set& set, FX&& fx, FH&& fh, FM&& fm, FD&& fd, FV&& fv) {
  auto positions = fx(set.positions);
  auto supports = fh(set.supports);
  auto masses = fm(set.masses);
  auto densities = fd(set.densities);
  auto volumes = fv(set.volumes);
  return ParticleSet<Set::dim, typename Set::primal_scalar, decltype(positions), decltype(supports),
                     decltype(masses), decltype(densities), decltype(volumes)>{
      positions, supports, masses, set.kinds, densities, volumes};
}

/// The set with its floating fields mapped through `f`.
template <class Set, class F>
auto map_set(const Set& set, F&& f) {
  return map_fields(set, f, f, f, f, f);
}

/// A query set as the reverse pass reads it: positions through `fx`, supports (a kernel input)
/// through `fk`, densities (a particle input) through `fp`, masses and volumes (never read for
/// queries) untracked.
template <class Set, class FX, class FK, class FP>
auto map_query_role(const Set& set, FX&& fx, FK&& fk, FP&& fp) {
  return map_fields(set, fx, fk, Untracked{}, fp, Untracked{});
}

/// A reference set as the reverse pass reads it: positions untracked (their adjoint is minus
/// the pair vector's), supports through `fk`, masses, densities and volumes through `fp`.
template <class Set, class FK, class FP>
auto map_reference_role(const Set& set, FK&& fk, FP&& fp) {
  return map_fields(set, Untracked{}, fk, fp, fp, fp);
}

/// The names of a particle set's floating fields in messages (`queries.positions`, ...).
struct SetFieldNames {
  const char* positions;
  const char* supports;
  const char* masses;
  const char* densities;
  const char* volumes;
};
inline constexpr SetFieldNames query_fields{"queries.positions", "queries.supports",
                                            "queries.masses", "queries.densities",
                                            "queries.volumes"};
inline constexpr SetFieldNames reference_fields{"references.positions", "references.supports",
                                                "references.masses", "references.densities",
                                                "references.volumes"};

/// Calls f(name, view) for each floating field of a set.
template <class Set, class F>
void for_each_field(const Set& set, const SetFieldNames& names, F&& f) {
  f(names.positions, set.positions);
  f(names.supports, set.supports);
  f(names.masses, set.masses);
  f(names.densities, set.densities);
  f(names.volumes, set.volumes);
}

/// Calls f(name, view) for each array of the correction states a call gives.
template <class C, class F>
void for_each_correction_field(const C& c, F&& f) {
  if constexpr (!std::is_same_v<std::decay_t<decltype(c.crk)>, NoCRK>) {
    f("corrections.crk.a", c.crk.a);
    f("corrections.crk.b", c.crk.b);
    f("corrections.crk.grad_a", c.crk.grad_a);
    f("corrections.crk.grad_b", c.crk.grad_b);
  }
  if constexpr (!std::is_same_v<std::decay_t<decltype(c.renormalization)>, NoRenormalization>) {
    f("corrections.renormalization.matrices", c.renormalization.matrices);
  }
  if constexpr (!std::is_same_v<std::decay_t<decltype(c.grad_h)>, NoGradH>) {
    f("corrections.grad_h.query_omegas", c.grad_h.query_omegas);
    f("corrections.grad_h.reference_omegas", c.grad_h.reference_omegas);
  }
}

using sphad::detail::require_tracks_an_array;

template <class F>
NoCRK map_crk(const NoCRK& c, F&&) {
  return c;
}
template <int D, class T, class A, class B, class GA, class GB, class F>
auto map_crk(const CRK<D, T, A, B, GA, GB>& c, F&& f) {
  auto a = f(c.a);
  auto b = f(c.b);
  auto grad_a = f(c.grad_a);
  auto grad_b = f(c.grad_b);
  return CRK<D, T, decltype(a), decltype(b), decltype(grad_a), decltype(grad_b)>{a, b, grad_a,
                                                                                 grad_b};
}
template <class F>
NoRenormalization map_renormalization(const NoRenormalization& r, F&&) {
  return r;
}
template <int D, class T, class M, class F>
auto map_renormalization(const Renormalization<D, T, M>& r, F&& f) {
  auto matrices = f(r.matrices);
  return Renormalization<D, T, decltype(matrices)>{matrices};
}
template <class FQ, class FR>
NoGradH map_grad_h(const NoGradH& g, FQ&&, FR&&) {
  return g;
}
template <class T, class Q, class R, class FQ, class FR>
auto map_grad_h(const GradH<T, Q, R>& g, FQ&& fq, FR&& fr) {
  auto query = fq(g.query_omegas);
  auto reference = fr(g.reference_omegas);
  return GradH<T, decltype(query), decltype(reference)>{query, reference};
}

/// The corrections with their kernel-side views (CRK, renormalization: the query's) mapped
/// through `fk`, the query Ω through `fq` and the reference Ω through `fr`.
template <class C, class FK, class FQ, class FR>
auto map_corrections(const C& c, FK&& fk, FQ&& fq, FR&& fr) {
  auto crk = map_crk(c.crk, fk);
  auto renormalization = map_renormalization(c.renormalization, fk);
  auto grad_h = map_grad_h(c.grad_h, fq, fr);
  return Corrections<decltype(crk), decltype(renormalization), decltype(grad_h)>{
      crk, renormalization, grad_h};
}

} // namespace sphad::pairloop
