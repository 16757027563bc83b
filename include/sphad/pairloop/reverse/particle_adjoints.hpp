// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/dual_view.hpp>
#include <sphad/pairloop/dual_parts.hpp>
#include <sphad/pairloop/reverse/leaf_algebra.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>
#include <type_traits>

/// \file
/// \brief A pair's particle inputs' adjoint (what a term's or a combination's own transpose
/// gives into `ops::zero_adjoint`) turned into the reverse pass's directions
/// (`add_particle_directions`),
/// from the views the inputs are read through, without forming a seeded input per pair.

namespace sphad::pairloop {

/// The directions a view of a reverse pass's particle side takes: its element's scalars when a
/// `SeedView`, none otherwise.
template <class View>
inline constexpr int seeded_count_v = 0;
template <class E, int K>
inline constexpr int seeded_count_v<SeedView<E, K>> = leaf_count<E>();

/// out[k] += x's scalar k, in memory order (`seed`'s: a `Vec`'s components, a `Mat` row-major).
template <class S, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE void add_leaves(S* out, const X& x) {
  if constexpr (is_vec_v<X>) {
    constexpr int step = leaf_count<typename X::value_type>();
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < X::dim; ++k) {
      add_leaves(out + k * step, x[k]);
    }
  } else if constexpr (is_mat_v<X>) {
    constexpr int step = leaf_count<typename X::value_type>();
    SPHAD_PRAGMA_UNROLL
    for (int r = 0; r < X::rows; ++r) {
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < X::cols; ++c) {
        add_leaves(out + (r * X::cols + c) * step, x(r, c));
      }
    }
  } else {
    out[0] += x;
  }
}

/// An input's share of a pair's particle directions from its adjoint x̄ (`bar`): a `SeedView`
/// seeded at direction `At` (its scalars in order) adds x̄'s scalars there; an array of duals
/// (the volumes made once per reference) adds ⟨x̄, tangent k of element `at`⟩ to the first N of
/// its K directions; a plain view adds nothing.
template <int At, int K, int N, class S, class Bar, class View>
SPHAD_HOST_DEVICE SPHAD_INLINE void
add_seeded(S* out, const Bar& bar, const View& view, std::int64_t at) {
  constexpr bool seeded = seeded_count_v<View> != 0;
  if constexpr (seeded) {
    add_leaves(out + At, bar);
  } else if constexpr (std::is_same_v<scalar_of_t<view_element_t<View>>, Dual<S, K>>) {
    const auto& x = view[at];
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      out[k] += leaf_dot(bar, tangent_part(x, k));
    }
  }
  (void)out;
  (void)bar;
  (void)view;
  (void)at;
}

/// The directions of the particle inputs (`Eval`'s views: a `SeedView`, an array of duals, or
/// plain) of pair (i, j) from their adjoint `pbar` (a `ParticlePair`), into out[0, N) of the K
/// directions the views are seeded in (`First`: the first particle direction, the query's
/// density), in the order the reverse pass seeds them (`Directions`): the query's density and
/// value, then the reference's mass, density, volume and value.
template <class Dirs, int First, int K, int N, class S, class Eval, class Bar>
SPHAD_HOST_DEVICE SPHAD_INLINE void
add_particle_directions(S* out, const Eval& eval, const Bar& pbar, std::int64_t i, std::int32_t j) {
  const auto& query = eval.queries;
  const auto& reference = eval.references;
  using QD = std::decay_t<decltype(query.densities)>;
  using QF = std::decay_t<decltype(eval.query_values)>;
  using RM = std::decay_t<decltype(reference.masses)>;
  using RD = std::decay_t<decltype(reference.densities)>;
  using RV = std::decay_t<decltype(reference.volumes)>;
  using RF = std::decay_t<decltype(eval.reference_values)>;
  constexpr int q_f = First + seeded_count_v<QD>;
  constexpr int r_m = First + Dirs::particle_query;
  constexpr int r_rho = r_m + seeded_count_v<RM>;
  constexpr int r_v = r_rho + seeded_count_v<RD>;
  constexpr int r_f = r_v + seeded_count_v<RV>;
  static_assert(q_f + seeded_count_v<QF> == First + Dirs::particle_query &&
                    r_f + seeded_count_v<RF> == First + Dirs::particle,
                "the particle directions as Directions lays them out");
  add_seeded<First, K, N>(out, pbar.rho_i, query.densities, i);
  add_seeded<r_m, K, N>(out, pbar.m_j, reference.masses, j);
  add_seeded<r_rho, K, N>(out, pbar.rho_j, reference.densities, j);
  add_seeded<r_v, K, N>(out, pbar.volume_j, reference.volumes, j);
  if constexpr (!std::is_same_v<decltype(pbar.f_i), NoField>) {
    add_seeded<q_f, K, N>(out, pbar.f_i, eval.query_values, i);
    add_seeded<r_f, K, N>(out, pbar.f_j, eval.reference_values, j);
  }
}

} // namespace sphad::pairloop
