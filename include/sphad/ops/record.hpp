// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/ops/jvp.hpp>
#include <sphad/search/transpose.hpp>

#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `record<Op>`: evaluates an operator like `apply` and records it on a `Tape`; its
/// backward is derived from the operator's one pair term by local forward mode (architecture
/// §3): the query particles' adjoints gather over their rows with the query-side inputs seeded
/// as dual numbers, the reference particles' adjoints gather over the transposed list with the
/// reference-side inputs seeded. No atomics: the gradients are bitwise reproducible.

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

/// An array read with every scalar seeded (`seed`): element i is a function of K directions,
/// of which this array's scalars own [offset, offset + leaf_count<E>()).
template <class E, int K>
struct SeedView {
  const E* data = nullptr;
  std::int64_t size = 0;
  int offset = 0;
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator[](std::int64_t i) const {
    return seed<K>(data[i], offset);
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
  SPHAD_HOST_DEVICE SPHAD_INLINE void add(std::int64_t index, const S* g) const {
    for (int t = 0; t < count; ++t) {
      const GradientTarget<S>& target = targets[t];
      for (int c = 0; c < target.leaves; ++c) {
        target.data[index * target.stride + c] += g[target.offset + c];
      }
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

/// Gives each `Variable` of a pass its directions (in call order) and its gradient target; any
/// other view passes through.
template <int K, class S, class Exec>
struct Seeder {
  Tape<Exec>& tape;
  GradientTargets<S> targets{};
  int next = 0;

  template <class View>
  auto operator()(const View& view) {
    if constexpr (is_variable_v<View>) {
      using E = view_element_t<View>;
      static_assert(std::is_same_v<scalar_of_t<E>, S>,
                    "sphad::record: every Variable of a call must have the scalar of its output; "
                    "to differentiate through a JVP, make every input a Variable of dual "
                    "elements (a tape over dual numbers)");
      const Span<E> gradient = tape.gradient_slot(view);
      static_assert(sizeof(E) % sizeof(S) == 0, "sphad::record: an element is whole scalars");
      targets.targets[targets.count++] = {reinterpret_cast<S*>(gradient.data), next,
                                          leaf_count<E>(), int(sizeof(E) / sizeof(S))};
      const SeedView<E, K> out{view.data, view.size, next};
      next += leaf_count<E>();
      return out;
    } else {
      return view;
    }
  }
};

/// The set with its floating fields mapped through `f` (in the order positions, supports,
/// masses, densities, volumes).
template <class Set, class F>
auto map_set(const Set& set, F&& f) {
  auto positions = f(set.positions);
  auto supports = f(set.supports);
  auto masses = f(set.masses);
  auto densities = f(set.densities);
  auto volumes = f(set.volumes);
  return ParticleSet<Set::dim, typename Set::primal_scalar, decltype(positions), decltype(supports),
                     decltype(masses), decltype(densities), decltype(volumes)>{
      positions, supports, masses, set.kinds, densities, volumes};
}

/// A query set as a query-side pass reads it: positions, supports and densities through `f`,
/// masses and volumes (never read for queries) untracked.
template <class Set, class F>
auto map_query_role(const Set& set, F&& f) {
  auto positions = f(set.positions);
  auto supports = f(set.supports);
  auto densities = f(set.densities);
  const Untracked untracked;
  return ParticleSet<Set::dim, typename Set::primal_scalar, decltype(positions), decltype(supports),
                     decltype(untracked(set.masses)), decltype(densities),
                     decltype(untracked(set.volumes))>{
      positions, supports, untracked(set.masses), set.kinds, densities, untracked(set.volumes)};
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

/// The corrections with their query-side views (CRK, renormalization, query Ω) mapped through
/// `fq` and the reference-side ones (reference Ω) through `fr`.
template <class C, class FQ, class FR>
auto map_corrections(const C& c, FQ&& fq, FR&& fr) {
  auto crk = map_crk(c.crk, fq);
  auto renormalization = map_renormalization(c.renormalization, fq);
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

/// The directions of the two passes of a call: the query side (the query set's positions,
/// supports and densities, the query values, CRK, renormalization and query Ω) and the
/// reference side (the reference set's five fields, the reference values, reference Ω).
template <class Queries, class References, class QueryValues, class ReferenceValues, class Corr>
struct Directions {
  template <class M>
  static constexpr const M* tag = nullptr;
  static constexpr int query =
      seeded_leaves<decltype(Queries::positions)>() + seeded_leaves<decltype(Queries::supports)>() +
      seeded_leaves<decltype(Queries::densities)>() + seeded_leaves<QueryValues>() +
      query_side_leaves(tag<decltype(Corr::crk)>) +
      query_side_leaves(tag<decltype(Corr::renormalization)>) +
      query_side_leaves(tag<decltype(Corr::grad_h)>);
  static constexpr int reference = seeded_leaves<decltype(References::positions)>() +
                                   seeded_leaves<decltype(References::supports)>() +
                                   seeded_leaves<decltype(References::masses)>() +
                                   seeded_leaves<decltype(References::densities)>() +
                                   seeded_leaves<decltype(References::volumes)>() +
                                   seeded_leaves<ReferenceValues>() +
                                   reference_side_leaves(tag<decltype(Corr::grad_h)>);
  /// Whether any view is a `Variable` (query masses and volumes count: they get a zero
  /// gradient).
  static constexpr bool any = query + reference + seeded_leaves<decltype(Queries::masses)>() +
                                  seeded_leaves<decltype(Queries::volumes)>() >
                              0;
};

/// Stores nothing (the reference-side pass reads pair terms only).
struct NoStore {
  template <class Out>
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t, const Out&) const {}
};

/// Query-side pass: query i's seeded row sum contracted with ȳ_i, added to the targets at i.
template <int K, class S, class OutPrimal>
struct StoreAdjoint {
  const OutPrimal* ybar;
  GradientTargets<S> targets;
  template <class Out>
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const Out& sum) const {
    S g[K] = {};
    add_directions(g, ybar[i], sum);
    targets.add(i, g);
  }
};

/// Reference-side pass: reference j gathers Σ_i ⟨ȳ_i, ∂term_ij/∂(j's inputs)⟩ over the
/// queries i of its transposed row, with the same kind filters as the primal (decision A4).
template <int K, class S, class OutPrimal, class Eval>
struct GatherReferences {
  Eval evaluate;
  const std::int64_t* offsets;
  const std::int32_t* queries_of;
  const OutPrimal* ybar;
  GradientTargets<S> targets;
  SPHAD_HOST_DEVICE void operator()(std::int64_t j) const {
    if (!evaluate.filter.accepts_reference(evaluate.references.kinds[j])) {
      return;
    }
    S g[K] = {};
    for (std::int64_t k = offsets[j]; k < offsets[j + 1]; ++k) {
      const std::int32_t i = queries_of[k];
      if (evaluate.filter.accepts_query(evaluate.queries.kinds[i])) {
        add_directions(g, ybar[i],
                       evaluate.pair_term(i, std::int32_t(j), evaluate.query_inputs(i)));
      }
    }
    targets.add(j, g);
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
  NeighborList<Exec> rows;    ///< a copy of the list (a rebuild in place cannot change it)
  NeighborList<Exec> columns; ///< the transpose of the rows
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
                 NeighborList<Exec> transposed,
                 const QueryValues& qv,
                 const ReferenceValues& rv,
                 KindFilter f,
                 P calibration,
                 const Corr& c,
                 Variable<OutPrimal> out)
      : queries(q), references(r), domain(d), rows(std::move(list)), columns(std::move(transposed)),
        query_values(qv), reference_values(rv), filter(f), factor(calibration), corrections(c),
        output(std::move(out)) {
    using sphad::detail::snapshot_version;
    const auto set = [&](const char* role, const auto& s) {
      snapshot_version(snapshots, role, s.positions);
      snapshot_version(snapshots, role, s.supports);
      snapshot_version(snapshots, role, s.masses);
      snapshot_version(snapshots, role, s.densities);
      snapshot_version(snapshots, role, s.volumes);
    };
    set("queries", queries);
    set("references", references);
    snapshot_version(snapshots, "query_values", query_values);
    snapshot_version(snapshots, "reference_values", reference_values);
    const auto correction = [&](const auto& view) {
      snapshot_version(snapshots, "corrections", view);
      return view;
    };
    map_corrections(corrections, correction, correction);
    snapshot_version(snapshots, "output", output);
  }

  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }

  std::int64_t bytes() const override {
    const auto list_bytes = [](const NeighborList<Exec>& l) {
      return (l.num_queries + 1) * 8 + l.num_pairs * 4;
    };
    return std::int64_t(sizeof(*this)) + list_bytes(rows) + list_bytes(columns);
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

  void backward(Tape<Exec>& tape) const override {
    const OutPrimal* ybar = tape.gradient_slot(output, true).data;
    const Untracked untracked;
    // Every variable has a gradient after the sweep, zero where it does not enter.
    const auto touch = [&](const auto& view) {
      if constexpr (is_variable_v<std::remove_cv_t<std::remove_reference_t<decltype(view)>>>) {
        tape.gradient_slot(view);
      }
      return view;
    };
    map_set(queries, touch);
    using Count = Directions<Queries, References, QueryValues, ReferenceValues, Corr>;
    constexpr int KQ = Count::query;
    if constexpr (KQ > 0) {
      Seeder<KQ, S, Exec> seeder{tape};
      const auto q = map_query_role(queries, seeder);
      const auto qv = seeder(query_values);
      const auto c = map_corrections(corrections, seeder, untracked);
      exec::for_each_index(tape.exec(), queries.size(),
                           evaluator(q, map_set(references, untracked), qv,
                                     untracked(reference_values), c,
                                     StoreAdjoint<KQ, S, OutPrimal>{ybar, seeder.targets}));
    }
    constexpr int KR = Count::reference;
    if constexpr (KR > 0) {
      Seeder<KR, S, Exec> seeder{tape};
      const auto r = map_set(references, seeder);
      const auto rv = seeder(reference_values);
      const auto c = map_corrections(corrections, untracked, seeder);
      const auto evaluate =
          evaluator(map_set(queries, untracked), r, untracked(query_values), rv, c, NoStore{});
      exec::for_each_index(
          tape.exec(), references.size(),
          GatherReferences<KR, S, OutPrimal, decltype(evaluate)>{
              evaluate, columns.offsets.data(), columns.neighbors.data(), ybar, seeder.targets});
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
/// `neighbors` and of its transpose (rebuild the list freely). The backward is the operator's own
/// pair term in dual numbers (one direction per scalar of the `Variable`s on each side): queries
/// gather over `neighbors`, references over its transpose (built here, stream-ordered) — no
/// atomics, bitwise reproducible. Every operator, scheme and correction differentiates (decision
/// A1); kinds and directions filter as in the primal (A4). Throws like `apply_into` before anything
/// is recorded.
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
  const Untracked untracked;
  const auto q = map_set(queries, untracked);
  const auto r = map_set(references, untracked);
  const auto qv = untracked(query_values);
  const auto rv = untracked(reference_values);
  const auto c = map_corrections(corrections, untracked, untracked);
  using Out = output_of_t<Op, decltype(q), decltype(r), decltype(qv), decltype(rv), decltype(c)>;
  // Everything is checked before the tape changes (the launch below checks again: cheap).
  const auto factor = validate_call<Op>(q, r, domain, qv, rv, options, c, function);
  traversal<Op::support>(tape.exec(), neighbors, q.size(), function);
  Variable<Out> out = tape.template make_output<Out>(q.size());
  evaluate_all<Op>(tape.exec(), q, r, domain, neighbors, qv, rv, options, c,
                   StoreAt<Out>{const_cast<Out*>(out.data)}, function);
  if constexpr (Directions<Queries, References, QueryValues, ReferenceValues, Corr>::any) {
    tape.push(
        std::make_unique<
            OperatorRecord<Op, Exec, Queries, References, QueryValues, ReferenceValues, Corr, Out>>(
            queries, references, domain, copy_neighbor_list(tape.exec(), neighbors),
            transpose_neighbor_list(tape.exec(), neighbors, references.size()), query_values,
            reference_values, kind_filter(options.direction), factor, corrections, out));
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
  const Untracked untracked;
  const auto check = [&](std::int64_t size) {
    SPHAD_REQUIRE(size == n, "record_map", "inputs",
                  sphad::detail::concat("an input has ", size, " entries for ", n, " rows"));
  };
  (check(inputs.size), ...);
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
