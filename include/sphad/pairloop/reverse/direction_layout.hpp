// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pairloop/reverse/leaf_algebra.hpp>
#include <sphad/pairloop/vocabulary.hpp>

#include <type_traits>

/// \file
/// \brief `Directions`: how a record's reverse pass numbers the directions of a pair (the
/// pair vector, then each side's kernel and particle inputs) and how many scalars a pair hands
/// to its reference, from the types of the call's views alone.

namespace sphad::pairloop {

/// The directions a correction state takes on the query side (CRK, renormalization, query
/// Ω) and on the reference side (reference Ω).
template <class C>
constexpr int query_side_leaves(const C*) {
  return 0; // NoCRK, NoRenormalization, NoGradH
}
template <int D, class T, class A, class B, class GA, class GB>
constexpr int query_side_leaves(const CRK<D, T, A, B, GA, GB>*) {
  return seeded_leaves<A>() + seeded_leaves<B>() + seeded_leaves<GA>() + seeded_leaves<GB>();
}
template <int D, class T, class M>
constexpr int query_side_leaves(const Renormalization<D, T, M>*) {
  return seeded_leaves<M>();
}
template <class T, class Q, class R>
constexpr int query_side_leaves(const GradH<T, Q, R>*) {
  return seeded_leaves<Q>();
}
template <class C>
constexpr int reference_side_leaves(const C*) {
  return 0;
}
template <class T, class Q, class R>
constexpr int reference_side_leaves(const GradH<T, Q, R>*) {
  return seeded_leaves<R>();
}

/// The number of directions CRK's A, B, ∇A and ∇B take (each where a `Variable`).
template <class C>
struct CRKLeaves {
  static constexpr int a = 0, b = 0, grad_a = 0, grad_b = 0;
};
template <int D, class T, class A, class B, class GA, class GB>
struct CRKLeaves<CRK<D, T, A, B, GA, GB>> {
  static constexpr int a = seeded_leaves<A>(), b = seeded_leaves<B>(), grad_a = seeded_leaves<GA>(),
                       grad_b = seeded_leaves<GB>();
};

/// The directions of a call's reverse pass, one per input scalar of each pair, in this order:
/// the pair vector x_ij (`position`: D when either set's positions is a `Variable`; by
/// translation invariance x_i's adjoint is +∂/∂x_ij and x_j's −∂/∂x_ij), the query's kernel
/// inputs (`kernel_query`: supports, CRK, renormalization), the reference's (`kernel_reference`:
/// supports), then the query's particle inputs (`particle_query`: densities, values, Ω) and the
/// reference's (`particle_reference`: masses, densities, volumes, values, Ω). `per_pair`
/// scalars per pair carry the reference side's adjoints (x_j's first, when a `Variable`) to the
/// reference (`ChunkSums` or `PairSlots`). A split operator reads the supports only through the
/// kernels and the pair support, so under Gather h_j and under Scatter h_i are no direction.
template <class Op,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr>
struct Directions {
  template <class M>
  static constexpr const M* tag = nullptr;
  static constexpr bool reads_query_support =
      !(splits_term_v<Op> && Op::support == SupportScheme::Scatter);
  static constexpr bool reads_reference_support =
      !(splits_term_v<Op> && Op::support == SupportScheme::Gather);
  static constexpr bool query_positions = is_variable_v<decltype(Queries::positions)>;
  static constexpr bool reference_positions = is_variable_v<decltype(References::positions)>;
  static constexpr int position = query_positions || reference_positions
                                      ? leaf_count<view_element_t<decltype(Queries::positions)>>()
                                      : 0;
  static constexpr int kernel_query =
      (reads_query_support ? seeded_leaves<decltype(Queries::supports)>() : 0) +
      query_side_leaves(tag<decltype(Corr::crk)>) +
      query_side_leaves(tag<decltype(Corr::renormalization)>);
  static constexpr int kernel_reference =
      reads_reference_support ? seeded_leaves<decltype(References::supports)>() : 0;
  static constexpr int particle_query = seeded_leaves<decltype(Queries::densities)>() +
                                        seeded_leaves<QueryValues>() +
                                        query_side_leaves(tag<decltype(Corr::grad_h)>);
  static constexpr int particle_reference = seeded_leaves<decltype(References::masses)>() +
                                            seeded_leaves<decltype(References::densities)>() +
                                            seeded_leaves<decltype(References::volumes)>() +
                                            seeded_leaves<ReferenceValues>() +
                                            reference_side_leaves(tag<decltype(Corr::grad_h)>);
  static constexpr int kernel = position + kernel_query + kernel_reference;
  static constexpr int particle = particle_query + particle_reference;
  static constexpr int total = kernel + particle;
  static constexpr int stored_positions = reference_positions ? position : 0;
  static constexpr int per_pair = stored_positions + kernel_reference + particle_reference;
  /// Where the reference's directions start.
  static constexpr int kernel_reference_begin = position + kernel_query;
  static constexpr int particle_reference_begin = kernel + particle_query;
  /// Whether any view is a `Variable` (those that are no direction count: query masses and
  /// volumes, a support the scheme never reads; they get a zero gradient).
  static constexpr bool any = total + seeded_leaves<decltype(Queries::masses)>() +
                                  seeded_leaves<decltype(Queries::volumes)>() +
                                  seeded_leaves<decltype(Queries::supports)>() +
                                  seeded_leaves<decltype(References::supports)>() >
                              0;
  /// The place in a pair's stored scalars of reference direction `direction`.
  static constexpr int stored_at(int direction) {
    return direction < particle_reference_begin
               ? stored_positions + direction - kernel_reference_begin
               : stored_positions + kernel_reference + direction - particle_reference_begin;
  }
};

} // namespace sphad::pairloop
