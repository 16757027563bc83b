// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/exec/detail/lanes.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/ops/jvp.hpp>
#include <sphad/search/transpose.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `record<Op>`: evaluates an operator like `apply` and records it on a `Tape`; its
/// backward is derived from the operator's one pair term by local forward mode over each pair's
/// own inputs (architecture §3), one evaluation per pair: the queries sum their rows; on the host
/// the references' adjoints are summed per chunk of rows (a fixed number of chunks, each into
/// its own array) and then over the chunks, on CUDA each pair stores them and the references
/// gather over the entries grouped by reference. No atomics: the gradients are bitwise
/// reproducible, on any thread count.

namespace sphad {

namespace ops::detail {

/// The number of scalars in an element E (1 for a scalar, K for `Vec<T, K>`, R·C for a `Mat`,
/// `Leaves<E>::count` for a struct: they come first in its memory, its other members after).
template <class E>
SPHAD_HOST_DEVICE constexpr int leaf_count() {
  if constexpr (is_vec_v<E>) {
    return E::dim * leaf_count<typename E::value_type>();
  } else if constexpr (is_mat_v<E>) {
    return E::rows * E::cols * leaf_count<typename E::value_type>();
  } else if constexpr (has_leaves_v<E>) {
    return Leaves<E>::count;
  } else {
    return 1;
  }
}

/// The directions a view takes in a reverse pass: one per scalar of a `Variable`'s element,
/// none for anything else.
template <class View>
constexpr int seeded_leaves() {
  if constexpr (is_variable_v<View>) {
    return leaf_count<view_element_t<View>>();
  } else {
    return 0;
  }
}

/// e with scalar number c (in memory order) replaced by `Dual<S, K>` with tangent 1 in
/// direction offset + c: K independent variables, one per scalar.
template <int K, class E>
SPHAD_HOST_DEVICE SPHAD_INLINE auto seed(const E& e, int offset) {
  if constexpr (is_vec_v<E>) {
    constexpr int step = leaf_count<typename E::value_type>();
    return sphad::detail::generate_vec<E::dim>(
        [&](int k) { return seed<K>(e[k], offset + k * step); });
  } else if constexpr (is_mat_v<E>) {
    constexpr int step = leaf_count<typename E::value_type>();
    return sphad::detail::generate_mat<E::rows, E::cols>(
        [&](int r, int c) { return seed<K>(e(r, c), offset + (r * E::cols + c) * step); });
  } else if constexpr (has_leaves_v<E>) {
    using L = Leaves<E>;
    typename L::template rebind<Dual<scalar_of_t<E>, K>> out{};
    int next = offset;
    L::zip(
        [&](auto& to, const auto& from) {
          to = seed<K>(from, next);
          next += leaf_count<std::remove_cv_t<std::remove_reference_t<decltype(from)>>>();
        },
        out, e);
    L::copy_rest(out, e);
    return out;
  } else {
    Dual<E, K> out(e);
    out.tangent[offset] = E(1);
    return out;
  }
}

/// `unit` (a seeded element, `seed`) with its values replaced by e's scalars, its tangents kept.
template <class U, class E>
SPHAD_HOST_DEVICE SPHAD_INLINE U with_values(U unit, const E& e) {
  if constexpr (is_vec_v<E>) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < E::dim; ++k) {
      unit[k] = with_values(unit[k], e[k]);
    }
  } else if constexpr (is_mat_v<E>) {
    SPHAD_PRAGMA_UNROLL
    for (int r = 0; r < E::rows; ++r) {
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < E::cols; ++c) {
        unit(r, c) = with_values(unit(r, c), e(r, c));
      }
    }
  } else if constexpr (has_leaves_v<E>) {
    Leaves<E>::zip([&](auto& to, const auto& from) { to = with_values(to, from); }, unit, e);
    Leaves<E>::copy_rest(unit, e);
  } else {
    unit.value = e;
  }
  return unit;
}

/// An array read with every scalar seeded (`seed`): element i is a function of K directions,
/// of which this array's scalars own [offset, offset + leaf_count<E>()). The view keeps the
/// seeded tangents (`unit`) and copies them: a tangent set at a runtime index instead is a
/// store read back whole, which stalls store forwarding on a CPU and puts the dual in local
/// memory on a GPU.
template <class E, int K>
struct SeedView {
  using Seeded = decltype(seed<K>(std::declval<const E&>(), 0));
  const E* data = nullptr;
  std::int64_t size = 0;
  Seeded unit{};
  SeedView() = default;
  SeedView(const E* data_, std::int64_t size_, int offset)
      : data(data_), size(size_), unit(seed<K>(E{}, offset)) {}
  SPHAD_HOST_DEVICE SPHAD_INLINE Seeded operator[](std::int64_t i) const {
    return with_values(unit, data[i]);
  }
};

/// Σ over the scalars of a and b (same shape; a struct's other members, a count, are not
/// scalars).
template <class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE auto leaf_dot(const A& a, const B& b) {
  if constexpr (is_vec_v<A>) {
    auto sum = leaf_dot(a[0], b[0]);
    SPHAD_PRAGMA_UNROLL
    for (int k = 1; k < A::dim; ++k) {
      sum += leaf_dot(a[k], b[k]);
    }
    return sum;
  } else if constexpr (is_mat_v<A>) {
    auto sum = leaf_dot(a(0, 0), b(0, 0));
    SPHAD_PRAGMA_UNROLL
    for (int r = 0; r < A::rows; ++r) {
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < A::cols; ++c) {
        if (r + c > 0) {
          sum += leaf_dot(a(r, c), b(r, c));
        }
      }
    }
    return sum;
  } else if constexpr (is_scalar_v<A>) {
    return a * b;
  } else {
    decltype(std::declval<scalar_of_t<A>>() * std::declval<scalar_of_t<B>>()) sum(0);
    Leaves<A>::zip([&](const auto& x, const auto& y) { sum += leaf_dot(x, y); }, a, b);
    return sum;
  }
}

/// Where a pass adds its directions: data[index · stride + c] += g[offset + c] for the
/// `leaves` scalars of each element (`stride`: the element's size in scalars).
template <class S>
struct GradientTarget {
  S* data;
  int offset;
  int leaves;
  int stride;
};

/// The gradient arrays of one pass (at most one per input view of a role).
template <class S>
struct GradientTargets {
  static constexpr int capacity = 10;
  GradientTarget<S> targets[capacity];
  int count = 0;
  /// Adds g's directions [offset, offset + leaves) of each target at row `index`. On a GPU g is
  /// read at constant positions only (the loop over them unrolled, the target's range tested):
  /// indexed by the targets' run-time offsets the caller's accumulator lives in local memory,
  /// a round trip per pair (the Density sweep on an H200: 6.7 → 6.2 ms). On the host the
  /// run-time form measured 3–5 % faster (the accumulator in registers crowds the pair's own).
  template <int K>
  SPHAD_HOST_DEVICE SPHAD_INLINE void add(std::int64_t index, const S (&g)[K]) const {
    for (int t = 0; t < count; ++t) {
      const GradientTarget<S>& target = targets[t];
      S* row = target.data + index * target.stride;
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

/// g[k] = ⟨ȳ, tangent k of y⟩ for the K directions of a seeded evaluation (0 when y does not
/// depend on them).
template <int K, class S, class OutPrimal, class Y>
SPHAD_HOST_DEVICE SPHAD_INLINE void add_directions(S (&g)[K], const OutPrimal& ybar, const Y& y) {
  if constexpr (std::is_same_v<scalar_of_t<Y>, Dual<S, K>>) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < K; ++k) {
      g[k] += leaf_dot(ybar, tangent_part(y, k));
    }
  }
}

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

/// The gradient target of `Variable` v whose scalar c takes direction offset + c.
template <class S, class Exec, class E>
GradientTarget<S> target_of(Tape<Exec>& tape, const Variable<E>& v, int offset) {
  static_assert(std::is_same_v<scalar_of_t<E>, S>,
                "sphad::record: every Variable of a call must have the scalar of its output; "
                "to differentiate through a JVP, make every input a Variable of dual "
                "elements (a tape over dual numbers)");
  static_assert(sizeof(E) % sizeof(S) == 0, "sphad::record: an element is whole scalars");
  const Span<E> gradient = tape.gradient_slot(v);
  return {reinterpret_cast<S*>(gradient.data), offset, leaf_count<E>(), int(sizeof(E) / sizeof(S))};
}

/// Gives each `Variable` of a pass its directions (in call order, from `next`: a `Dual<S, K>`
/// seeded there) and its gradient target (at direction next + `shift` of the pass's gradient
/// array); any other view passes through.
template <int K, class S, class Exec>
struct Seeder {
  Tape<Exec>& tape;
  GradientTargets<S> targets{};
  int next = 0;
  int shift = 0;

  template <class View>
  auto operator()(const View& view) {
    if constexpr (is_variable_v<View>) {
      using E = view_element_t<View>;
      targets.targets[targets.count++] = target_of<S>(tape, view, next + shift);
      const SeedView<E, K> out(view.data, view.size, next);
      next += leaf_count<E>();
      return out;
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

/// Throws naming `argument` when `view` is an empty (default-constructed) `Variable`, which
/// tracks no array; other views pass.
template <class View>
void require_tracks_an_array(const View& view,
                             const void* tape,
                             const char* function,
                             const char* argument) {
  if constexpr (is_variable_v<View>) {
    SPHAD_REQUIRE(view.state != nullptr, function, argument,
                  "is an empty Variable (default-constructed: it tracks no array); give the "
                  "Variable of an array, or leave the field out");
    sphad::detail::require_on_tape(*view.state, tape, function, argument);
  }
}

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

/// Whether Op's term splits as combine(p, kernel_part(p)).
template <class Op, class = void>
inline constexpr bool splits_term_v = false;
template <class Op>
inline constexpr bool splits_term_v<
    Op,
    std::void_t<decltype(&Op::template kernel_part<
                         Pair<typename Op::kernel_type,
                              Op::support,
                              1,
                              PairScalars<double, double, double, double, double, double>,
                              double,
                              Uncorrected>>)>> = true;

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

/// Stores nothing (the reverse pass handles each pair's term itself).
struct NoStore {
  template <class Out>
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t, const Out&) const {}
};

/// Σ_l flat[l] · (scalar l of x, in memory order): a flat array of x's shape dotted with x.
template <class S, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE S dot_flat(const S* flat, const X& x) {
  if constexpr (is_vec_v<X> || is_mat_v<X>) {
    constexpr int step = leaf_count<typename X::value_type>();
    S sum(0);
    if constexpr (is_vec_v<X>) {
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < X::dim; ++k) {
        sum += dot_flat(flat + k * step, x[k]);
      }
    } else {
      SPHAD_PRAGMA_UNROLL
      for (int r = 0; r < X::rows; ++r) {
        SPHAD_PRAGMA_UNROLL
        for (int c = 0; c < X::cols; ++c) {
          sum += dot_flat(flat + (r * X::cols + c) * step, x(r, c));
        }
      }
    }
    return sum;
  } else if constexpr (has_leaves_v<X>) {
    S sum(0);
    int next = 0;
    Leaves<X>::zip(
        [&](const auto& leaf) {
          sum += dot_flat(flat + next, leaf);
          next += leaf_count<std::remove_cv_t<std::remove_reference_t<decltype(leaf)>>>();
        },
        x);
    return sum;
  } else {
    return flat[0] * x;
  }
}

/// g[k] = ⟨ȳ, tangent k of y⟩ for the K directions of a seeded evaluation; 0 when y does not
/// depend on them.
template <int K, class S, class OutPrimal, class Y>
SPHAD_HOST_DEVICE SPHAD_INLINE void contract_directions(S* g, const OutPrimal& ybar, const Y& y) {
  if constexpr (std::is_same_v<scalar_of_t<Y>, Dual<S, K>>) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < K; ++k) {
      g[k] = leaf_dot(ybar, tangent_part(y, k));
    }
  } else {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < K; ++k) {
      g[k] = S(0);
    }
  }
}

/// A pair's directions from its whole term evaluated once in `Dual<S, K>` (every input seeded):
/// for operators that do not split into a kernel part and a combination (the correction
/// pipelines' sums).
template <class Dirs, class S, class OutPrimal, class Eval>
struct WholeTermDirections {
  static constexpr int K = Dirs::total;
  Eval evaluate;
  using Row = typename Eval::QueryInputs;
  SPHAD_HOST_DEVICE SPHAD_INLINE const Eval& filtering() const { return evaluate; }
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t j) const {
    evaluate.prefetch_reference(j);
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE Row row(std::int64_t i) const { return evaluate.query_inputs(i); }
  SPHAD_HOST_DEVICE SPHAD_INLINE void
  operator()(S* g, std::int64_t i, std::int32_t j, const Row& q, const OutPrimal& ybar_i) const {
    contract_directions<K>(g, ybar_i, evaluate.pair_term(i, j, q));
  }
};

/// Whether the reverse pass differentiates Op's combination as form(particle_part(p), G)
/// (`ops::detail::FactoredCombine`): when Op declares it and some particle input is tracked.
template <class Op, class Dirs>
inline constexpr bool uses_factored_v = std::is_base_of_v<FactoredCombine<Op>, Op> &&
                                        (Dirs::particle > 0);

/// X's primal element when its scalar is the dual D (the kernel part of a seeded pair), X
/// itself otherwise.
template <class X, class D, class = void>
struct primal_of {
  using type = X;
};
template <class X, class D>
struct primal_of<X, D, std::enable_if_t<std::is_same_v<scalar_of_t<X>, D>>> {
  using type = std::remove_cv_t<decltype(value_part(std::declval<X>()))>;
};
template <class X, class D>
using primal_of_t = typename primal_of<std::remove_cv_t<X>, D>::type;

/// x's primal element when its scalar is the dual D (a seeded evaluation), x itself otherwise.
template <class D, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE primal_of_t<X, D> primal_part(const X& x) {
  if constexpr (std::is_same_v<scalar_of_t<X>, D>) {
    return value_part(x);
  } else {
    return x;
  }
}

/// out[k] = ⟨flat, tangent k of x⟩ (flat: an adjoint of x's shape) for the K directions of
/// `Dual<S, K>`; 0 when x is not seeded.
template <int K, class S, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE void tangent_dots(S* out, const S* flat, const X& x) {
  SPHAD_PRAGMA_UNROLL
  for (int k = 0; k < K; ++k) {
    if constexpr (std::is_same_v<scalar_of_t<X>, Dual<S, K>>) {
      out[k] = dot_flat(flat, tangent_part(x, k));
    } else {
      out[k] = S(0);
    }
  }
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

/// x's scalars (in memory order) at g[at, at + leaf_count), when `Leaves` > 0.
template <int Leaves, class S, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE void put_leaves(S* g, int at, const X& x) {
  if constexpr (Leaves > 0) {
    if constexpr (is_vec_v<X>) {
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < X::dim; ++k) {
        g[at + k] = x[k];
      }
    } else if constexpr (is_mat_v<X>) {
      SPHAD_PRAGMA_UNROLL
      for (int r = 0; r < X::rows; ++r) {
        SPHAD_PRAGMA_UNROLL
        for (int c = 0; c < X::cols; ++c) {
          g[at + r * X::cols + c] = x(r, c);
        }
      }
    } else {
      g[at] = x;
    }
  }
}

/// The kernel part of a pair when it is a kernel quantity (W_ij, Ŵ_ij, Ĝ_ij: `KernelQuantity`)
/// or a form around Ĝ_ij with its own transpose (`KernelPart::gradient_form`), differentiated by
/// hand instead of in dual numbers: the kernel's W_ij and ∇W_ij linearized once
/// (`kernels::pair_linearization`), then the form, renormalization and CRK transposed by their
/// own adjoints (`kernel_part_linearization`, `Renormalization::adjoint`, `CRK::gradient_adjoint`).
/// Its directions are the pass's kernel directions as `Directions` orders them: x_ij; the query's
/// support, CRK's A, B, ∇A, ∇B and renormalization's L (each where a `Variable`, as `Corr` has
/// them); the reference's support.
template <class Op, class Dirs, class Corr, class S>
struct KernelPartAdjoint {
  using CRKType = decltype(Corr::crk);
  using RenormalizationType = decltype(Corr::renormalization);
  using Layout = CRKLeaves<CRKType>;
  static constexpr bool has_crk = !std::is_same_v<CRKType, NoCRK>;
  static constexpr bool has_renormalization =
      !std::is_same_v<RenormalizationType, NoRenormalization>;
  static constexpr int crk_at = Dirs::position + Dirs::kernel_query -
                                query_side_leaves(static_cast<const CRKType*>(nullptr)) -
                                query_side_leaves(static_cast<const RenormalizationType*>(nullptr));
  static constexpr int support_leaves = crk_at - Dirs::position;
  static_assert(support_leaves <= 1 && Dirs::kernel_reference <= 1, "one support per side");

  /// The pair as the kernel part reads it, in S, its kernel linearized: the operator's own
  /// `kernel_part` evaluates on it (W, Ĝ, the support through the pair's own rules).
  template <class Pair>
  struct Linear {
    using scalar = S;
    using K = typename Op::kernel_type;
    static constexpr int D = decltype(Pair::x_ij)::dim;
    std::int64_t i;
    Vec<S, D> x_ij;
    kernels::PairLinearization<Op::support, S, D> kernel; ///< holds h_i and h_j too
    primal_t<S> factor;
    const std::remove_reference_t<decltype(std::declval<const Pair&>().corrections)>& corrections;
    SPHAD_HOST_DEVICE SPHAD_INLINE S w() const { return kernel.w() * factor; }
    SPHAD_HOST_DEVICE SPHAD_INLINE Vec<S, D> gradient() const { return kernel.gradient() * factor; }
    SPHAD_HOST_DEVICE SPHAD_INLINE auto corrected_value() const {
      return corrections.crk.value(*this);
    }
    SPHAD_HOST_DEVICE SPHAD_INLINE auto corrected_gradient() const {
      return corrections.renormalization.apply(corrections.crk.gradient(*this), i);
    }
    SPHAD_HOST_DEVICE SPHAD_INLINE S support() const {
      return kernels::pair_support<Pair::support_scheme>(kernel.h_i, kernel.h_j);
    }
  };
  template <class Pair>
  SPHAD_HOST_DEVICE SPHAD_INLINE static Linear<Pair> linearize(const Pair& p) {
    using L = Linear<Pair>;
    const auto x = sphad::detail::convert_scalars<Vec<S, L::D>>(p.x_ij);
    return {p.i, x, kernels::pair_linearization<typename L::K, Op::support>(x, S(p.h_i), S(p.h_j)),
            p.factor, p.corrections};
  }

  /// A kernel part's value.
  template <class V>
  struct Value {
    V value;
  };
  /// The kernel part of the linearized pair: its `value` and, for a gradient form, the
  /// linearization its adjoint reuses (the distance from the kernel's: no second square root).
  template <class L>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto part(const L& linear) {
    if constexpr (kernel_part_v<Op> == KernelPart::gradient_form) {
      return Op::kernel_part_linearization(linear.x_ij, linear.kernel.distance(), linear.support(),
                                           linear.corrected_gradient());
    } else {
      return Value<decltype(Op::kernel_part(linear))>{Op::kernel_part(linear)};
    }
  }

  /// What a kernel part adds to the kernel's adjoints directly (a correction or a form reading
  /// x_ij or the supports themselves).
  template <int D>
  struct Direct {
    Vec<S, D> x{};
    S h_i{};
    S h_j{};
  };

  /// g[0, Dirs::kernel): the kernel part's directions for its cotangent `bar` (shaped like it;
  /// `part`: what `part` returned).
  template <class Pair, class L, class Part, class Bar>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void
  directions(S* g, const Pair&, const L& linear, const Part& part, const Bar& bar) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < Dirs::kernel; ++k) {
      g[k] = S(0); // a correction state the kernel part does not read (Density's CRK)
    }
    if constexpr (kernel_part_v<Op> == KernelPart::corrected_gradient) {
      gradient_directions(g, linear, bar, nullptr);
    } else if constexpr (kernel_part_v<Op> == KernelPart::gradient_form) {
      const auto form = part.unit.times(bar);
      const auto h = kernels::pair_support_adjoint<Pair::support_scheme>(
          linear.kernel.h_i, linear.kernel.h_j, form.support);
      gradient_directions(g, linear, form.gradient, Direct<L::D>{form.x, h.h_i, h.h_j});
    } else if constexpr (kernel_part_v<Op> == KernelPart::corrected_value && has_crk) {
      const auto crk = linear.corrections.crk.value_adjoint(linear.i, linear.x_ij, linear.w(), bar);
      put_crk(g, crk);
      put_kernel(g, linear.kernel.adjoint(crk.w * linear.factor), Direct<L::D>{crk.x});
    } else {
      put_kernel(g, linear.kernel.adjoint(bar * linear.factor), nullptr);
    }
  }

  /// The directions of Ĝ_ij for its cotangent `gbar`, plus `direct`'s (a `Direct`, or
  /// nullptr for none).
  template <class L, class Extra>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void
  gradient_directions(S* g, const L& linear, Vec<S, L::D> gbar, const Extra& direct) {
    const auto& corrections = linear.corrections;
    if constexpr (has_renormalization) {
      const auto adjoint =
          corrections.renormalization.adjoint(linear.i, corrections.crk.gradient(linear), gbar);
      put_leaves<query_side_leaves(static_cast<const RenormalizationType*>(nullptr))>(
          g, crk_at + query_side_leaves(static_cast<const CRKType*>(nullptr)), adjoint.matrix);
      gbar = adjoint.gradient;
    }
    if constexpr (has_crk) {
      const auto crk = corrections.crk.gradient_adjoint(linear.i, linear.x_ij, linear.w(),
                                                        linear.gradient(), gbar);
      put_crk(g, crk);
      Direct<L::D> total{crk.x};
      if constexpr (!std::is_same_v<Extra, std::nullptr_t>) {
        total = {direct.x + crk.x, direct.h_i, direct.h_j};
      }
      put_kernel(g, linear.kernel.adjoint(crk.w * linear.factor, crk.gradient * linear.factor),
                 total);
    } else {
      (void)corrections;
      put_kernel(g, linear.kernel.adjoint(gbar * linear.factor), direct);
    }
  }

  template <class Adjoint>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void put_crk(S* g, const Adjoint& crk) {
    put_leaves<Layout::a>(g, crk_at, crk.a);
    put_leaves<Layout::b>(g, crk_at + Layout::a, crk.b);
    put_leaves<Layout::grad_a>(g, crk_at + Layout::a + Layout::b, crk.grad_a);
    put_leaves<Layout::grad_b>(g, crk_at + Layout::a + Layout::b + Layout::grad_a, crk.grad_b);
  }
  /// x_ij's, h_i's and h_j's directions: the kernel's adjoints plus `direct`'s (a `Direct`, or
  /// nullptr for none).
  template <class Adjoint, class Extra>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void
  put_kernel(S* g, const Adjoint& kernel, const Extra& direct) {
    if constexpr (std::is_same_v<Extra, std::nullptr_t>) {
      put_leaves<Dirs::position>(g, 0, kernel.x);
      put_leaves<support_leaves>(g, Dirs::position, kernel.h_i);
      put_leaves<Dirs::kernel_reference>(g, Dirs::kernel_reference_begin, kernel.h_j);
    } else {
      put_leaves<Dirs::position>(g, 0, kernel.x + direct.x);
      put_leaves<support_leaves>(g, Dirs::position, kernel.h_i + direct.h_i);
      put_leaves<Dirs::kernel_reference>(g, Dirs::kernel_reference_begin, kernel.h_j + direct.h_j);
    }
  }
};

/// A pair's directions by the operator's split term = combine(p, kernel_part(p)): the kernel
/// part G (geometry, supports, CRK, renormalization) in `Dual<S, Dirs::kernel>` — or, when it
/// is a kernel quantity (`Linearized`: `KernelPartAdjoint`), in S with a hand-written adjoint;
/// the combination with the particle inputs (masses, densities, volumes, values, Ω) and G's
/// scalars seeded, in `Dual<S, Dirs::particle + |G|>`, contracted with ȳ; then G's adjoint Ḡ
/// contracted with G's tangents (or passed to the hand-written adjoint). Two narrow evaluations
/// instead of one wide one.
template <class Op,
          class Dirs,
          class S,
          class OutPrimal,
          class KernelEval,
          class ParticleEval,
          class Linearized>
struct SplitTermDirections {
  static constexpr int KK = Dirs::kernel;
  static constexpr int KP = Dirs::particle;
  KernelEval kernel;
  ParticleEval particles;
  struct Row {
    typename KernelEval::QueryInputs kernel;
    typename ParticleEval::QueryInputs particles;
  };
  SPHAD_HOST_DEVICE SPHAD_INLINE const KernelEval& filtering() const { return kernel; }
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t j) const {
    particles.prefetch_reference(j); // the same arrays as the kernel side's
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE Row row(std::int64_t i) const {
    return {kernel.query_inputs(i), particles.query_inputs(i)};
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE void
  operator()(S* g, std::int64_t i, std::int32_t j, const Row& q, const OutPrimal& ybar_i) const {
    const auto pair = kernel.make_pair(i, j, q.kernel);
    if constexpr (!std::is_void_v<Linearized>) {
      const auto linear = Linearized::linearize(pair);
      const auto part = Linearized::part(linear);
      const auto& value = part.value; // the plain pair's kernel part, for plain scalars
      constexpr int KG = leaf_count<std::remove_cv_t<std::remove_reference_t<decltype(value)>>>();
      S gbar[KG];
      particle_directions(g, gbar, i, j, q, ybar_i, value);
      Linearized::directions(g, pair, linear, part, shaped_like(value, gbar));
    } else {
      const auto part = Op::kernel_part(pair);
      const auto value = primal_part<Dual<S, KK>>(part);
      constexpr int KG = leaf_count<std::remove_cv_t<decltype(value)>>();
      S gbar[KG];
      particle_directions(g, gbar, i, j, q, ybar_i, value);
      tangent_dots<KK>(g, gbar, part);
    }
  }

  /// The particle directions (g[KK, KK + KP)) and Ḡ (G's adjoint, flat) of pair (i, j) whose
  /// kernel part has the value G.
  template <class G, int KG>
  SPHAD_HOST_DEVICE SPHAD_INLINE void particle_directions(S* g,
                                                          S (&gbar)[KG],
                                                          std::int64_t i,
                                                          std::int32_t j,
                                                          const Row& q,
                                                          const OutPrimal& ybar_i,
                                                          const G& value) const {
    if constexpr (uses_factored_v<Op, Dirs>) {
      // The coefficient c in Dual<S, KP> (the particle inputs seeded), then form(c, G) with c's
      // and G's scalars seeded, contracted with ȳ: c̄ and Ḡ; the directions are ⟨c̄, ∂c⟩ and
      // ⟨Ḡ, ∂G⟩.
      const auto c = Op::particle_part(particles.make_pair(i, j, q.particles));
      const auto cv = primal_part<Dual<S, KP>>(c);
      constexpr int KCV = leaf_count<std::remove_cv_t<decltype(cv)>>();
      constexpr int KF = KCV + KG;
      S b[KF];
      contract_directions<KF>(b, ybar_i, Op::form(seed<KF>(cv, 0), seed<KF>(value, KCV)));
      tangent_dots<KP>(g + KK, b, c);
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < KG; ++k) {
        gbar[k] = b[KCV + k];
      }
    } else {
      constexpr int KC = KP + KG;
      S a[KC];
      contract_directions<KC>(
          a, ybar_i, Op::combine(particles.make_pair(i, j, q.particles), seed<KC>(value, KP)));
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < KP; ++k) {
        g[KK + k] = a[k];
      }
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < KG; ++k) {
        gbar[k] = a[KP + k];
      }
    }
  }

  /// A flat adjoint as an element shaped like G (a scalar or a vector).
  template <class G, int KG>
  SPHAD_HOST_DEVICE SPHAD_INLINE static G shaped_like(const G&, const S (&flat)[KG]) {
    if constexpr (is_vec_v<G>) {
      G out;
      SPHAD_PRAGMA_UNROLL
      for (int a = 0; a < KG; ++a) {
        out[a] = flat[a];
      }
      return out;
    } else {
      return flat[0];
    }
  }
};

/// The reference side's adjoints of pair k = (i, j) stored in the pair's own slot
/// (`Dirs::per_pair` scalars at k · P; zeros for a filtered pair), for the gather over the
/// transposed entries (`GatherPairAdjoints`): how the CUDA sweep avoids atomics.
template <int P, class S>
struct PairSlots {
  S* data;
  static constexpr bool clears_filtered = true;
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t) const {}
  SPHAD_HOST_DEVICE SPHAD_INLINE void clear(std::int64_t k) const {
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      data[k * P + c] = S(0);
    }
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE void put(std::int64_t k, std::int32_t, const S* v) const {
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      data[k * P + c] = v[c];
    }
  }
};

/// The reference side's adjoints of pair (i, j) added at j of one chunk's own array
/// (`P` scalars per reference): the host sweep's rows run in a fixed number of chunks, each
/// serially into its own array, summed over the chunks afterwards (`SumChunks`).
template <int P, class S>
struct ChunkSums {
  S* data;
  static constexpr bool clears_filtered = false;
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t j) const {
#if !SPHAD_DEVICE_PASS && defined(__GNUC__)
    __builtin_prefetch(data + std::int64_t(j) * P, 1);
#else
    (void)j;
#endif
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE void clear(std::int64_t) const {}
  SPHAD_HOST_DEVICE SPHAD_INLINE void put(std::int64_t, std::int32_t j, const S* v) const {
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      data[std::int64_t(j) * P + c] += v[c];
    }
  }
};

/// Row i of the reverse pass: each accepted pair (i, j) gives its K directions (`Pairs`, the
/// pair's gradient contracted with ȳ_i); the query side's are summed over the row and added
/// to the query targets at i, the reference side's (`Dirs::per_pair` scalars, x_j's negated)
/// go to `Sink` (`PairSlots` or `ChunkSums`).
template <class Dirs, class S, class OutPrimal, class Pairs, class Sink>
struct RowAdjoints {
  static constexpr int K = Dirs::total;
  static constexpr int P = Dirs::per_pair;
  Pairs pairs;
  const std::int64_t* offsets;
  const std::int32_t* neighbors;
  const OutPrimal* ybar;
  GradientTargets<S> targets;
  Sink references;
  /// Whether the host loop asks the caches for the references ahead (`references_are_near`).
  bool prefetch = true;

  using Row = decltype(std::declval<const Pairs&>().row(std::int64_t(0)));

  /// Whether query i is filtered out (its pairs' slots are then cleared, every lane's share).
  SPHAD_HOST_DEVICE SPHAD_INLINE bool
  query_filtered(std::int64_t i, std::int64_t first, std::int64_t end, int step) const {
    const auto& evaluate = pairs.filtering();
    if (evaluate.filter.accepts_query(evaluate.queries.kinds[i])) {
      return false;
    }
    if constexpr (P > 0 && Sink::clears_filtered) {
      for (std::int64_t k = first; k < end; k += step) {
        references.clear(k);
      }
    }
    return true;
  }

  /// Entry k = (i, j) of row i: its query-side directions are added to `sum`, its reference
  /// side's (x_j's negated) go to the sink; a filtered reference gives nothing (a cleared slot).
  SPHAD_HOST_DEVICE SPHAD_INLINE void entry(
      std::int64_t i, std::int64_t k, const Row& row, const OutPrimal& ybar_i, S (&sum)[K]) const {
    const auto& evaluate = pairs.filtering();
    const std::int32_t j = neighbors[k];
    if (!evaluate.filter.accepts_reference(evaluate.references.kinds[j])) {
      if constexpr (P > 0) {
        references.clear(k);
      }
      return;
    }
    S g[K];
    pairs(g, i, j, row, ybar_i);
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < K; ++c) {
      sum[c] += g[c];
    }
    if constexpr (P > 0) {
      S v[P];
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < Dirs::stored_positions; ++c) {
        v[c] = -g[c];
      }
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < Dirs::kernel_reference; ++c) {
        v[Dirs::stored_positions + c] = g[Dirs::kernel_reference_begin + c];
      }
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < Dirs::particle_reference; ++c) {
        v[Dirs::stored_positions + Dirs::kernel_reference + c] =
            g[Dirs::particle_reference_begin + c];
      }
      references.put(k, j, v);
    }
  }

  /// Row i, its entries in order (the host; prefetching ahead). Not `in_lanes<1>`: written as
  /// that, the Laplacian's host sweep measured 3–5 % slower (other inlining), the rest equal.
  SPHAD_HOST_DEVICE SPHAD_FLATTEN void operator()(std::int64_t i) const {
    const std::int64_t begin = offsets[i], end = offsets[i + 1];
    if (query_filtered(i, begin, end, 1)) {
      return;
    }
    const auto row = pairs.row(i);
    const OutPrimal& ybar_i = ybar[i];
    S sum[K] = {};
    constexpr std::int64_t ahead = 8; // pairs
    for (std::int64_t k = begin; k < end; ++k) {
      if (prefetch && k + ahead < end) {
        pairs.prefetch(neighbors[k + ahead]);
        if constexpr (P > 0) {
          references.prefetch(neighbors[k + ahead]);
        }
      }
      entry(i, k, row, ybar_i, sum);
    }
    targets.add(i, sum);
  }

  /// Row i shared by L lanes (`detail::InLanes`, CUDA): lane l takes entries begin + l,
  /// begin + l + L, ...; the lanes' sums meet in a fixed shuffle tree and lane 0 adds them.
  template <int L>
  SPHAD_HOST_DEVICE SPHAD_INLINE void in_lanes(std::int64_t i, int lane) const {
    const std::int64_t begin = offsets[i], end = offsets[i + 1];
    if (query_filtered(i, begin + lane, end, L)) {
      return;
    }
    const auto row = pairs.row(i);
    const OutPrimal& ybar_i = ybar[i];
    S sum[K] = {};
    for (std::int64_t k = begin + lane; k < end; k += L) {
      entry(i, k, row, ybar_i, sum);
    }
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < K; ++c) {
      sum[c] = sphad::detail::lane_sum<L>(sum[c]);
    }
    if (lane == 0) {
      targets.add(i, sum);
    }
  }
};

/// Reference j sums the adjoints its pairs left in `pair_adjoints`, over its entries in the
/// transposed list (increasing order: no atomics, bitwise reproducible), into its targets.
template <int P, class S>
struct GatherPairAdjoints {
  const std::int64_t* offsets;
  const std::int64_t* entries;
  const S* pair_adjoints;
  GradientTargets<S> targets;
  SPHAD_HOST_DEVICE void operator()(std::int64_t j) const { in_lanes<1>(j, 0); }
  /// Reference j shared by L lanes (CUDA): lane l sums entries l, l + L, ...; the lanes' sums
  /// meet in a fixed shuffle tree.
  template <int L>
  SPHAD_HOST_DEVICE SPHAD_INLINE void in_lanes(std::int64_t j, int lane) const {
    S g[P] = {};
    for (std::int64_t t = offsets[j] + lane; t < offsets[j + 1]; t += L) {
      const S* slot = pair_adjoints + entries[t] * P;
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < P; ++c) {
        g[c] += slot[c];
      }
    }
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      g[c] = sphad::detail::lane_sum<L>(g[c]);
    }
    if (lane == 0) {
      targets.add(j, g);
    }
  }
};

/// Reference j sums its adjoints over the chunks' arrays (`ChunkSums`, chunk order) into its
/// targets.
template <int P, class S>
struct SumChunks {
  const S* sums;
  int chunks;
  std::int64_t num_references;
  GradientTargets<S> targets;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t j) const {
    S g[P] = {};
    for (int c = 0; c < chunks; ++c) {
      const S* at = sums + (c * num_references + j) * P;
      SPHAD_PRAGMA_UNROLL
      for (int l = 0; l < P; ++l) {
        g[l] += at[l];
      }
    }
    targets.add(j, g);
  }
};

/// Whether the references of a query lie near it in memory (one set in both roles) — the
/// particles sorted by cell, as solvers keep them — judged from up to 64 rows spread over the
/// list: then the processor's own prefetchers follow the sweep and asking for each reference
/// ahead only costs instructions (5–12 % of the host sweeps in cell order); in random order
/// the requests halve the field operators' sweeps. Near: at most one sampled entry in eight
/// lies more than 8192 indices away.
inline bool references_are_near(const std::int64_t* offsets,
                                const std::int32_t* neighbors,
                                std::int64_t num_queries) {
  constexpr std::int64_t samples = 64, far = 8192;
  std::int64_t entries = 0, distant = 0;
  for (std::int64_t s = 0; s < std::min(samples, num_queries); ++s) {
    const std::int64_t i = s * num_queries / std::min(samples, num_queries);
    for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      ++entries;
      distant += std::abs(std::int64_t(neighbors[k]) - i) > far ? 1 : 0;
    }
  }
  return distant * 8 <= entries;
}

/// The host's chunks of rows for `ChunkSums`: at most 8 (fewer for short lists), fixed by the
/// list and not by the thread count, so the sums — and the gradients — are the same bits on
/// any number of threads.
inline int row_chunks(std::int64_t num_pairs) {
  return int(std::max<std::int64_t>(1, std::min<std::int64_t>(8, num_pairs / 65536)));
}

/// The first row of chunk c of `chunks` (the chunks hold equal shares of the pairs).
inline std::int64_t
chunk_first_row(const std::int64_t* offsets, std::int64_t num_queries, int c, int chunks) {
  const std::int64_t target = offsets[num_queries] * c / chunks;
  return c == 0 ? 0
         : c == chunks
             ? num_queries
             : std::int64_t(std::lower_bound(offsets, offsets + num_queries, target) - offsets);
}

/// Runs `rows(c)`'s operator over the rows of each chunk c serially, the chunks in parallel.
template <class MakeRows>
void for_each_row_chunk(const std::int64_t* offsets,
                        std::int64_t num_queries,
                        int chunks,
                        const MakeRows& rows) {
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) if (chunks > 1)
#endif
  for (int c = 0; c < chunks; ++c) {
    const auto f = rows(c);
    const std::int64_t end = chunk_first_row(offsets, num_queries, c + 1, chunks);
    for (std::int64_t i = chunk_first_row(offsets, num_queries, c, chunks); i < end; ++i) {
      f(i);
    }
  }
}

/// V_j of every reference as `Eval`'s pairs read it (`Evaluate::reference_volume`).
template <class Eval, class V>
struct ReferenceVolumes {
  Eval evaluate;
  V* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t j) const {
    out[j] = evaluate.reference_volume(std::int32_t(j));
  }
};

/// One recorded operator launch.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class OutPrimal>
struct OperatorRecord final : sphad::detail::Record<Exec> {
  using P = typename Queries::primal_scalar;
  using S = scalar_of_t<OutPrimal>; ///< the tape's scalar: plain, or dual (forward over reverse)
  static constexpr int D = Queries::dim;

  Queries queries;
  References references;
  Domain<D, P> domain;
  NeighborList<Exec> rows;      ///< a copy of the list (a rebuild in place cannot change it)
  EntryTranspose<Exec> columns; ///< the rows' entries grouped by reference
  QueryValues query_values;
  ReferenceValues reference_values;
  KindFilter filter;
  P factor;
  Corr corrections;
  Variable<OutPrimal> output;
  std::vector<sphad::detail::VersionSnapshot> snapshots;

  OperatorRecord(const Queries& q,
                 const References& r,
                 const Domain<D, P>& d,
                 NeighborList<Exec> list,
                 EntryTranspose<Exec> transposed,
                 const QueryValues& qv,
                 const ReferenceValues& rv,
                 KindFilter f,
                 P calibration,
                 const Corr& c,
                 Variable<OutPrimal> out)
      : queries(q), references(r), domain(d), rows(std::move(list)), columns(std::move(transposed)),
        query_values(qv), reference_values(rv), filter(f), factor(calibration), corrections(c),
        output(std::move(out)) {
    const auto snapshot = [&](const char* field, const auto& view) {
      sphad::detail::snapshot_version(snapshots, field, view);
    };
    for_each_field(queries, query_fields, snapshot);
    for_each_field(references, reference_fields, snapshot);
    snapshot("query_values", query_values);
    snapshot("reference_values", reference_values);
    for_each_correction_field(corrections, snapshot);
    snapshot("output", output);
  }

  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }

  std::int64_t bytes() const override {
    return std::int64_t(sizeof(*this)) + (rows.num_queries + 1) * 8 + rows.num_pairs * 4 +
           (columns.num_references + 1) * 8 + columns.num_pairs * 8;
  }

  template <class Q, class R, class QV, class RV, class C, class Store>
  auto
  evaluator(const Q& q, const R& r, const QV& qv, const RV& rv, const C& c, Store store) const {
    return Evaluate<Op, ListNeighbors, Q, R, QV, RV, C, Store>{
        ListNeighbors{rows.offsets.data(), rows.neighbors.data()},
        q,
        r,
        domain,
        filter,
        qv,
        rv,
        factor,
        c,
        store,
        false};
  }

  /// `evaluate` whose pairs read V_j from an array made once per reference (kept in `kept`)
  /// when V_j is m_j/ρ_j in dual numbers (masses or densities tracked, volumes not given or not
  /// tracked): the same duals, bitwise, without a dual division per pair. Otherwise `evaluate`.
  template <class Eval, class Kept>
  auto with_volumes_once(const Eval& evaluate, Kept& kept, const Exec& exec) const {
    using V = typename Eval::S::volume;
    if constexpr (!std::is_same_v<V, primal_t<V>> && !std::is_same_v<V, S> &&
                  !is_variable_v<decltype(References::volumes)>) {
      const std::int64_t n = evaluate.references.size();
      kept = Buffer<V, Exec>(exec, n);
      exec::for_each_index(exec, n, ReferenceVolumes<Eval, V>{evaluate, kept.data()});
      return evaluator(
          evaluate.queries, evaluate.references.with_volumes(Span<const V>{kept.data(), n}),
          evaluate.query_values, evaluate.reference_values, evaluate.corrections, NoStore{});
    } else {
      (void)kept;
      (void)exec;
      return evaluate;
    }
  }

  void backward(Tape<Exec>& tape) const override {
    using Dirs = Directions<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
    const OutPrimal* ybar = tape.gradient_slot(output, true).data;
    // Every variable has a gradient after the sweep, zero where it does not enter.
    const auto touch = [&](const auto& view) {
      if constexpr (is_variable_v<std::remove_cv_t<std::remove_reference_t<decltype(view)>>>) {
        tape.gradient_slot(view);
      }
      return view;
    };
    map_set(queries, touch);
    map_set(references, touch);
    if constexpr (Dirs::total > 0) {
      // Split terms seed the kernel inputs in Dual<S, Dirs::kernel> and the particle inputs in
      // their own duals; whole terms seed everything in one Dual<S, Dirs::total>. Gradient
      // targets index the pass's Dirs::total directions either way.
      constexpr bool split = splits_term_v<Op>;
      constexpr int KK = split ? Dirs::kernel : Dirs::total;
      // A kernel part that is a kernel quantity is evaluated in S with its hand-written
      // adjoint: its inputs are read untracked, their directions and targets assigned all the
      // same.
      constexpr bool linearized = split && kernel_part_v<Op> != KernelPart::other;
      const Untracked untracked;
      // x_i seeded (x_j plain) makes the pair vector's directions ∂/∂x_ij.
      const auto seed_positions = [&](const auto& view) {
        if constexpr (Dirs::position > 0 && !linearized) {
          return SeedView<view_element_t<std::decay_t<decltype(view)>>, KK>(view.data, view.size,
                                                                            0);
        } else {
          return view;
        }
      };
      Seeder<KK, S, Exec> kernel_query{tape, {}, Dirs::position};
      if constexpr (Dirs::query_positions) {
        kernel_query.targets.targets[kernel_query.targets.count++] =
            target_of<S>(tape, queries.positions, 0);
      }
      Seeder<KK, S, Exec> kernel_reference{tape, {}, Dirs::kernel_reference_begin};
      // The supports the operator reads (both, unless a split term under Gather or Scatter).
      const auto kernel_input = [&](auto& seeder, const auto& view) {
        if constexpr (linearized) {
          (void)seeder(view);
          return untracked(view);
        } else {
          return seeder(view);
        }
      };
      const auto query_supports = [&](const auto& view) {
        if constexpr (Dirs::reads_query_support) {
          return kernel_input(kernel_query, view);
        } else {
          return untracked(view);
        }
      };
      const auto reference_supports = [&](const auto& view) {
        if constexpr (Dirs::reads_reference_support) {
          return kernel_input(kernel_reference, view);
        } else {
          return untracked(view);
        }
      };
      constexpr int P = Dirs::per_pair;
      const std::int64_t nq = queries.size(), nr = references.size();
      const auto run = [&](const auto& pairs, const auto& particle_query,
                           const auto& particle_reference) {
        SPHAD_ASSERT(kernel_query.next == Dirs::kernel_reference_begin &&
                     kernel_reference.next == Dirs::kernel);
        GradientTargets<S> query_targets{}, reference_targets{};
        if constexpr (Dirs::reference_positions) {
          reference_targets.targets[reference_targets.count++] =
              target_of<S>(tape, references.positions, 0);
        }
        const auto take = [](GradientTargets<S>& to, const auto& seeder, bool stored) {
          for (int t = 0; t < seeder.targets.count; ++t) {
            GradientTarget<S> target = seeder.targets.targets[t];
            target.offset = stored ? Dirs::stored_at(target.offset) : target.offset;
            to.targets[to.count++] = target;
          }
        };
        take(query_targets, kernel_query, false);
        take(query_targets, particle_query, false);
        take(reference_targets, kernel_reference, true);
        take(reference_targets, particle_reference, true);
        using Pairs = std::decay_t<decltype(pairs)>;
        Buffer<S, Exec> kept;
        if (tape.uses_pair_slots()) {
          // Each pair stores its references' adjoints in its slot; every reference gathers its
          // slots over the transposed entries.
          SPHAD_ASSERT(P == 0 || columns.num_pairs == rows.num_pairs);
          S* slots = tape.workspace(P > 0 ? rows.num_pairs * P : 0, kept);
          const RowAdjoints<Dirs, S, OutPrimal, Pairs, PairSlots<P, S>> sweep{
              pairs, rows.offsets.data(), rows.neighbors.data(),
              ybar,  query_targets,       PairSlots<P, S>{slots}};
          const GatherPairAdjoints<P, S> gather{columns.offsets.data(), columns.entries.data(),
                                                slots, reference_targets};
          if constexpr (std::is_same_v<Exec, exec::host>) {
            exec::for_each_index(tape.exec(), nq, sweep);
            if constexpr (P > 0) {
              exec::for_each_index(tape.exec(), nr, gather);
            }
          } else {
            // L threads per row and per reference: a warp reads and writes the entries in
            // contiguous runs and each row's pairs are evaluated L at a time, not one after
            // another (one thread per row waited on its loads: 95 % of its stalls on an H200,
            // at 16 % of the memory bandwidth; Density backward 6.2 -> 1.7 ms on the two).
            constexpr int L = 8; // ~50 neighbours a row: 7 rounds of 8
            exec::for_each_index(tape.exec(), nq * L,
                                 sphad::detail::InLanes<L, decltype(sweep)>{sweep});
            if constexpr (P > 0) {
              exec::for_each_index(tape.exec(), nr * L,
                                   sphad::detail::InLanes<L, decltype(gather)>{gather});
            }
          }
        } else if constexpr (std::is_same_v<Exec, exec::host>) {
          // Each chunk of rows adds its references' adjoints into its own array; then every
          // reference sums the chunks in order.
          const int chunks = row_chunks(rows.num_pairs);
          const std::int64_t n = P > 0 ? chunks * nr * P : 0;
          S* sums = tape.workspace(n, kept);
          // One set in both roles: its indices say where in memory a reference lies.
          const bool one_set =
              primal_view(queries.positions).data == primal_view(references.positions).data;
          const bool prefetch =
              !one_set || !references_are_near(rows.offsets.data(), rows.neighbors.data(), nq);
          for_each_row_chunk(rows.offsets.data(), nq, chunks, [&](int c) {
            std::fill_n(sums + c * nr * P, nr * P, S(0)); // by the chunk's own thread
            return RowAdjoints<Dirs, S, OutPrimal, Pairs, ChunkSums<P, S>>{
                pairs,   rows.offsets.data(), rows.neighbors.data(),
                ybar,    query_targets,       ChunkSums<P, S>{sums + c * nr * P},
                prefetch};
          });
          if constexpr (P > 0) {
            exec::for_each_index(tape.exec(), nr,
                                 SumChunks<P, S>{sums, chunks, nr, reference_targets});
          }
        }
      };
      if constexpr (split) {
        // In this order (the seeders number the directions as they go): the query's support,
        // the reference's, then the corrections' states, as `Directions` and
        // `KernelPartAdjoint` lay them out.
        const auto kernel_queries =
            map_query_role(queries, seed_positions, query_supports, untracked);
        const auto kernel_references =
            map_reference_role(references, reference_supports, untracked);
        const auto kernel_corrections = map_corrections(
            corrections, [&](const auto& view) { return kernel_input(kernel_query, view); },
            untracked, untracked);
        const auto kernel_eval =
            evaluator(kernel_queries, kernel_references, untracked(query_values),
                      untracked(reference_values), kernel_corrections, NoStore{});
        using Part = decltype(Op::kernel_part(kernel_eval.make_pair(0, 0, {})));
        // The particle inputs take directions [0, Dirs::particle) of Dual<S, KC> (G's scalars
        // the rest; a factored combination seeds them apart: KC = Dirs::particle), which are the
        // pass's [Dirs::kernel, Dirs::total).
        constexpr int KC =
            Dirs::particle +
            (uses_factored_v<Op, Dirs> ? 0 : leaf_count<primal_of_t<Part, Dual<S, KK>>>());
        Seeder<KC, S, Exec> particle_query{tape, {}, 0, Dirs::kernel};
        Seeder<KC, S, Exec> particle_reference{tape, {}, Dirs::particle_query, Dirs::kernel};
        const auto q = map_query_role(queries, untracked, untracked, particle_query);
        const auto qv = particle_query(query_values);
        const auto r = map_reference_role(references, untracked, particle_reference);
        const auto rv = particle_reference(reference_values);
        const auto c = map_corrections(corrections, untracked, particle_query, particle_reference);
        Buffer<typename decltype(evaluator(q, r, qv, rv, c, NoStore{}))::S::volume, Exec> volumes;
        const auto particle_eval =
            with_volumes_once(evaluator(q, r, qv, rv, c, NoStore{}), volumes, tape.exec());
        using Linearized =
            std::conditional_t<linearized, KernelPartAdjoint<Op, Dirs, Corr, S>, void>;
        run(SplitTermDirections<Op, Dirs, S, OutPrimal, std::decay_t<decltype(kernel_eval)>,
                                std::decay_t<decltype(particle_eval)>, Linearized>{kernel_eval,
                                                                                   particle_eval},
            particle_query, particle_reference);
      } else {
        Seeder<KK, S, Exec> particle_query{tape, {}, Dirs::kernel};
        Seeder<KK, S, Exec> particle_reference{tape, {}, Dirs::particle_reference_begin};
        const auto q = map_query_role(queries, seed_positions, query_supports, particle_query);
        const auto qv = particle_query(query_values);
        const auto r = map_reference_role(references, reference_supports, particle_reference);
        const auto rv = particle_reference(reference_values);
        const auto c =
            map_corrections(corrections, kernel_query, particle_query, particle_reference);
        Buffer<typename decltype(evaluator(q, r, qv, rv, c, NoStore{}))::S::volume, Exec> volumes;
        const auto evaluate =
            with_volumes_once(evaluator(q, r, qv, rv, c, NoStore{}), volumes, tape.exec());
        run(WholeTermDirections<Dirs, S, OutPrimal, std::decay_t<decltype(evaluate)>>{evaluate},
            particle_query, particle_reference);
      }
    }
  }
};

} // namespace ops::detail

/// Reverse mode: evaluates `Op` like `apply` and records the launch on `tape` when any input
/// is a `Variable` (a set field, the field values, a correction state's array); returns the
/// output [Nq] as a `Variable` owned by the tape (feed it to later records, seed it in
/// `Tape::backward`). A `Variable` used in several roles (the same set as queries and
/// references, Ω of both sides) gets the sum of its roles once. The record keeps the argument
/// views as they are now (the arrays must stay alive until the backward; writing a variable
/// through `Variable::write` after recording makes the backward throw) and its own copy of
/// `neighbors` (on CUDA also its entries grouped by reference, `transpose_entries`; built here,
/// stream-ordered; rebuild the list freely). The backward is the operator's own pair term in
/// dual numbers, one direction per scalar of a pair's tracked inputs (the pair vector standing
/// for both positions), each pair evaluated once: queries sum their rows, references sum their
/// pairs' adjoints in a fixed order (host: per chunk of rows, then over the chunks; CUDA: over
/// the grouped entries) — no atomics, bitwise reproducible on any thread count. Every operator,
/// scheme and correction differentiates (decision A1); kinds and directions filter as in the primal
/// (A4). Throws like `apply_into` before anything is recorded.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class QueryValues = Span<const ops::NoField>,
          class ReferenceValues = QueryValues,
          class Corr = ops::Uncorrected>
auto record(Tape<Exec>& tape,
            const Queries& queries,
            const References& references,
            const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
            const NeighborList<Exec>& neighbors,
            const QueryValues& query_values = {},
            const ReferenceValues& reference_values = {},
            const ApplyOptions<typename Queries::primal_scalar>& options = {},
            const Corr& corrections = {}) {
  using namespace ops::detail;
  constexpr const char* function = "record";
  const auto tracks_an_array = [&](const char* field, const auto& view) {
    require_tracks_an_array(view, &tape, function, field);
  };
  for_each_field(queries, query_fields, tracks_an_array);
  for_each_field(references, reference_fields, tracks_an_array);
  tracks_an_array("query_values", query_values);
  tracks_an_array("reference_values", reference_values);
  for_each_correction_field(corrections, tracks_an_array);
  const Untracked untracked;
  const auto q = map_set(queries, untracked);
  const auto r = map_set(references, untracked);
  const auto qv = untracked(query_values);
  const auto rv = untracked(reference_values);
  const auto c = map_corrections(corrections, untracked, untracked, untracked);
  using Out = output_of_t<Op, decltype(q), decltype(r), decltype(qv), decltype(rv), decltype(c)>;
  // Everything is checked before the tape changes; the launch reuses the checks' results.
  const auto factor = validate_call<Op>(q, r, domain, qv, rv, options, c, function);
  const auto rows = traversal<Op::support>(tape.exec(), neighbors, q, r, function);
  Variable<Out> out = tape.template make_output<Out>(q.size());
  launch_all<Op>(tape.exec(), rows, q, r, domain, qv, rv, options.direction, factor, c,
                 StoreAt<Out>{const_cast<Out*>(out.data)});
  using Dirs = Directions<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
  if constexpr (Dirs::any) {
    // With per-pair slots (CUDA; the host on request) the references gather their pairs'
    // adjoints over the transposed entries (when any); the host's chunked sums need none.
    const bool gathers = Dirs::per_pair > 0 && tape.uses_pair_slots();
    // (the list was checked with the launch)
    auto transposed = gathers
                          ? search::detail::group_entries(tape.exec(), neighbors, references.size())
                          : search::detail::group_entries(tape.exec(), NeighborList<Exec>{}, 0);
    tape.push(
        std::make_unique<
            OperatorRecord<Op, Exec, Queries, References, QueryValues, ReferenceValues, Corr, Out>>(
            queries, references, domain, copy_neighbor_list(tape.exec(), neighbors),
            std::move(transposed), query_values, reference_values, kind_filter(options.direction),
            factor, corrections, out));
  }
  return out;
}

namespace ops::detail {

/// Views read together, element by element (a tuple for device code): `apply(f, i)` is
/// f(v0[i], v1[i], ...).
template <class... Views>
struct ViewPack;
template <>
struct ViewPack<> {
  template <class F, class... Read>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto apply(const F& f, std::int64_t, const Read&... read) const {
    return f(read...);
  }
};
template <class Head, class... Tail>
struct ViewPack<Head, Tail...> {
  Head head;
  ViewPack<Tail...> tail;
  template <class F, class... Read>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto apply(const F& f, std::int64_t i, const Read&... read) const {
    return tail.apply(f, i, read..., head[i]);
  }
};
inline ViewPack<> make_pack() {
  return {};
}
template <class Head, class... Tail>
ViewPack<Head, Tail...> make_pack(const Head& head, const Tail&... tail) {
  return {head, make_pack(tail...)};
}

/// out[i] = f(inputs at i).
template <class F, class Pack, class Out>
struct MapPrimal {
  F f;
  Pack views;
  Out* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const {
    out[i] = views.apply(f, i);
  }
};

/// Row i of a map's backward: f on the seeded inputs, contracted with ȳ_i, added at i.
template <int K, class S, class F, class Pack, class OutPrimal>
struct MapAdjoint {
  F f;
  Pack views;
  const OutPrimal* ybar;
  GradientTargets<S> targets;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const {
    S g[K] = {};
    add_directions(g, ybar[i], views.apply(f, i));
    targets.add(i, g);
  }
};

/// One recorded row-wise map.
template <class Exec, class F, class OutPrimal, class... Views>
struct MapRecord final : sphad::detail::Record<Exec> {
  using S = scalar_of_t<OutPrimal>;
  F f;
  std::tuple<Views...> inputs;
  Variable<OutPrimal> output;
  std::vector<sphad::detail::VersionSnapshot> snapshots;

  MapRecord(const F& function, const std::tuple<Views...>& views, Variable<OutPrimal> out)
      : f(function), inputs(views), output(std::move(out)) {
    std::apply(
        [&](const auto&... v) { (sphad::detail::snapshot_version(snapshots, "inputs", v), ...); },
        inputs);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return std::int64_t(sizeof(*this)); }
  void backward(Tape<Exec>& tape) const override {
    constexpr int K = (seeded_leaves<Views>() + ... + 0);
    if constexpr (K > 0) {
      Seeder<K, S, Exec> seeder{tape};
      // Braces evaluate left to right: the inputs take their directions in order.
      const auto seeded = std::apply(
          [&](const auto&... v) { return std::tuple<decltype(seeder(v))...>{seeder(v)...}; },
          inputs);
      const auto pack = std::apply([](const auto&... v) { return make_pack(v...); }, seeded);
      exec::for_each_index(tape.exec(), output.size,
                           MapAdjoint<K, S, F, std::remove_const_t<decltype(pack)>, OutPrimal>{
                               f, pack, tape.gradient_slot(output, true).data, seeder.targets});
    }
  }
};

} // namespace ops::detail

/// Reverse mode for a row-wise function: out[i] = f(inputs[0][i], inputs[1][i], ...) for i in
/// [0, n), recorded on `tape` when any input is a `Variable`, the output returned as a
/// `Variable` owned by the tape. `f` is a function object callable on host and device
/// (`SPHAD_HOST_DEVICE`) and generic over the scalar type: its backward evaluates it on dual
/// numbers seeded with one direction per scalar of the `Variable` inputs (the same local forward
/// mode as `record<Op>`), so one definition serves the primal and its derivatives. Inputs are
/// views ([n] each): `Variable`s, `Span`s (constants). This is how the correction pipelines'
/// per-particle steps (a reciprocal, a small solve) are recorded. Throws `InvalidArgument`
/// naming `inputs` when a view's size is not n, before the tape changes.
template <class F, class Exec, class... Views>
auto record_map(Tape<Exec>& tape, std::int64_t n, const F& f, const Views&... inputs) {
  using namespace ops::detail;
  SPHAD_REQUIRE(n >= 0, "record_map", "n", sphad::detail::concat("negative (got ", n, ")"));
  const Untracked untracked;
  const auto check = [&](const auto& input) {
    require_tracks_an_array(input, &tape, "record_map", "inputs");
    SPHAD_REQUIRE(input.size == n, "record_map", "inputs",
                  sphad::detail::concat("an input has ", input.size, " entries for ", n, " rows"));
  };
  (check(inputs), ...);
  const auto plain = make_pack(untracked(inputs)...);
  using Out = std::remove_cv_t<std::remove_reference_t<decltype(plain.apply(f, 0))>>;
  Variable<Out> out = tape.template make_output<Out>(n);
  exec::for_each_index(tape.exec(), n,
                       MapPrimal<F, std::remove_const_t<decltype(plain)>, Out>{
                           f, plain, const_cast<Out*>(out.data)});
  if constexpr ((is_variable_v<Views> || ...)) {
    tape.push(std::make_unique<MapRecord<Exec, F, Out, Views...>>(
        f, std::tuple<Views...>(inputs...), out));
  }
  return out;
}

} // namespace sphad
