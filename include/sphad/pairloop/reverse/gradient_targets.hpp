// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pairloop/reverse/leaf_algebra.hpp>
#include <sphad/pairloop/vocabulary.hpp>

#include <cstdint>
#include <cstdlib>
#include <type_traits>

/// \file
/// \brief Where a reverse pass adds its directions: `GradientTarget` (one `Variable`'s
/// gradient array), `GradientTargets<S, N>` (those of one role, N counted at compile time from
/// the role's `Variable` views: `RoleVariables`) and `Seeder`, which gives each `Variable` of a
/// pass its directions and its target.

namespace sphad::pairloop {

/// Where a pass adds its directions: array[index · stride + c] += g[offset + c] for the
/// `leaves` scalars of each element (`stride`: the element's size in scalars).
template <class S>
struct GradientTarget {
  S* array;
  int offset;
  int leaves;
  int stride;
};

/// The number of `Variable`s among Views.
template <class... Views>
inline constexpr int variables_v = (0 + ... + int(is_variable_v<Views>));

/// The number of `Variable` arrays a correction state gives each side: the query's CRK A, B,
/// ∇A, ∇B, renormalization L and Ω; the reference's Ω.
template <class C>
struct CorrectionVariables {
  static constexpr int query = 0, reference = 0; // NoCRK, NoRenormalization, NoGradH
};
template <int D, class T, class A, class B, class GA, class GB>
struct CorrectionVariables<CRK<D, T, A, B, GA, GB>> {
  static constexpr int query = variables_v<A, B, GA, GB>, reference = 0;
};
template <int D, class T, class M>
struct CorrectionVariables<Renormalization<D, T, M>> {
  static constexpr int query = variables_v<M>, reference = 0;
};
template <class T, class Q, class R>
struct CorrectionVariables<GradH<T, Q, R>> {
  static constexpr int query = variables_v<Q>, reference = variables_v<R>;
};

/// The most gradient targets each role of an operator call can have: one per `Variable` among
/// its views (the set's five floating fields, its values, its side's correction arrays). A
/// pass seeds each view of a role at most once, so a role's targets never outnumber these.
template <class Queries, class References, class QueryValues, class ReferenceValues, class Corr>
struct RoleVariables {
  template <class Set>
  static constexpr int of_set = variables_v<decltype(Set::positions),
                                            decltype(Set::supports),
                                            decltype(Set::masses),
                                            decltype(Set::densities),
                                            decltype(Set::volumes)>;
  using CRKVariables = CorrectionVariables<decltype(Corr::crk)>;
  using RenormalizationVariables = CorrectionVariables<decltype(Corr::renormalization)>;
  using GradHVariables = CorrectionVariables<decltype(Corr::grad_h)>;
  static constexpr int queries = of_set<Queries> + variables_v<QueryValues> + CRKVariables::query +
                                 RenormalizationVariables::query + GradHVariables::query;
  static constexpr int references = of_set<References> + variables_v<ReferenceValues> +
                                    CRKVariables::reference + RenormalizationVariables::reference +
                                    GradHVariables::reference;
};

/// The gradient arrays of one pass over a role: at most N, where N is the number of the role's
/// `Variable` views (`RoleVariables`, `variables_v`), fixed at compile time by the caller, so
/// no call can hold more targets than the array has room for.
template <class S, int N>
struct GradientTargets {
  static_assert(N >= 0, "sphad::pairloop::GradientTargets: N counts views; it is never negative");
  /// The array's size: N, and one slot for a role without `Variable`s (no array of size 0).
  static constexpr int capacity = N > 0 ? N : 1;
  GradientTarget<S> targets[capacity];
  int count = 0;
  /// Appends the target of one more `Variable` view of the role (host code, before a launch).
  void push(const GradientTarget<S>& target) {
    // Never true: a pass seeds each `Variable` view of its role at most once and N counts
    // them. Checked in every build all the same, so that no miscount can write outside the
    // array (unsigned: one test for both ends, which also shows the compiler the bounds).
    if (static_cast<unsigned>(count) >= static_cast<unsigned>(N)) {
      std::abort();
    }
    targets[count++] = target;
  }
  /// Adds g's directions [offset, offset + leaves) of each target at row `index`. On a GPU g is
  /// read at constant positions only (the loop over them unrolled, the target's range tested):
  /// indexed by the targets' run-time offsets the caller's accumulator lives in local memory,
  /// a round trip per pair (the Density sweep on an H200: 6.7 → 6.2 ms). On the host the
  /// run-time form measured 3–5 % faster (the accumulator in registers crowds the pair's own).
  template <int K>
  SPHAD_HOST_DEVICE SPHAD_INLINE void add(std::int64_t index, const S (&g)[K]) const {
    for (int t = 0; t < count; ++t) {
      const GradientTarget<S>& target = targets[t];
      S* row = target.array + index * target.stride;
#if defined(__CUDA_ARCH__)
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < K; ++c) {
        if (c >= target.offset && c < target.offset + target.leaves) {
          row[c - target.offset] += g[c];
        }
      }
#else
      for (int c = 0; c < target.leaves; ++c) {
        row[c] += g[target.offset + c];
      }
#endif
    }
  }
};

/// The gradient target of `Variable` v whose scalar c takes direction offset + c.
template <class S, class Exec, class E>
GradientTarget<S> target_of(Tape<Exec>& tape, const Variable<E>& v, int offset) {
  static_assert(std::is_same_v<scalar_of_t<E>, S>,
                "sphad::record: every Variable of a call must have the scalar of its output; "
                "to differentiate through a JVP, make every input a Variable of dual "
                "elements (a tape over dual numbers)");
  static_assert(sizeof(E) % sizeof(S) == 0, "sphad::record: an element is whole scalars");
  const Span<E> gradient = sphad::detail::TapeAccess::gradient_slot(tape, v);
  return {reinterpret_cast<S*>(gradient.data()), offset, leaf_count<E>(),
          int(sizeof(E) / sizeof(S))};
}

/// Gives each `Variable` of a pass its directions (in call order, from `next`: a `Dual<S, K>`
/// seeded there) and its gradient target (at direction next + `shift` of the pass's gradient
/// array); any other view passes through.
/// N: the number of `Variable` views the pass can give it (its role's, `RoleVariables`).
template <int K, class S, class Exec, int N>
struct Seeder {
  Tape<Exec>& tape;
  GradientTargets<S, N> targets{};
  int next = 0;
  int shift = 0;

  template <class View>
  auto operator()(const View& view) {
    if constexpr (is_variable_v<View>) {
      using E = view_element_t<View>;
      targets.push(target_of<S>(tape, view, next + shift));
      const SeedView<E, K> out(view.data(), view.size(), next);
      next += leaf_count<E>();
      return out;
    } else {
      return view;
    }
  }
};

} // namespace sphad::pairloop
