// SPDX-License-Identifier: MIT
// Forward mode through `jvp` (issue #7): what the API promises beyond the finite-difference
// matrix of derivative_matrix.hpp — bitwise primals, paired views equal to dual arrays, inputs
// without tangents as exact zero directions, N directions equal to N passes, kinds, empty sets,
// coincident particles, the correction pipelines chained end to end, and the error paths.
#include "ops/derivative_matrix.hpp"
#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace sphad;
using test::view_of;

namespace {

using Kernel = kernels::Wendland4;
using D1 = Dual<double, 1>;

/// Merges primal arrays and one tangent direction into dual elements (what a user without
/// `DualView` would have to materialize).
template <class E>
std::vector<rebind_scalar_t<E, D1>> materialize(const test::Differentiable<E>& d) {
  std::vector<rebind_scalar_t<E, D1>> out;
  for (std::size_t i = 0; i < d.value.size(); ++i) {
    out.push_back(with_tangents(Span<const E>{&d.value[i], 1}, Span<const E>{&d.tangent[i], 1})[0]);
  }
  return out;
}

template <class X>
std::vector<double> flat(const X& buffer) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < buffer.size(); ++i) {
    test::append_scalars(buffer[i], out);
  }
  return out;
}

/// The primal and tangent parts of a buffer of dual outputs.
template <class X>
std::pair<std::vector<double>, std::vector<double>> split(const X& buffer) {
  std::vector<double> primal, tangent;
  for (std::int64_t i = 0; i < buffer.size(); ++i) {
    test::append_scalars(pairloop::value_part(buffer[i]), primal);
    test::append_scalars(pairloop::tangent_part(buffer[i], 0), tangent);
  }
  return {primal, tangent};
}

/// A set over the inputs' primal arrays (densities given).
template <int D>
ParticleSet<D, double> plain_set(const test::JVPInputs<D>& in) {
  const auto n = std::int64_t(in.x.value.size());
  return {view_of(in.x.value),
          view_of(in.h.value),
          view_of(in.m.value),
          {in.kinds.data(), n},
          view_of(in.rho.value)};
}

/// The same set with every floating field paired with its tangent.
template <int D>
auto tangent_set(const test::JVPInputs<D>& in) {
  return plain_set(in)
      .with_positions(with_tangents(view_of(in.x.value), view_of(in.x.tangent)))
      .with_supports(with_tangents(view_of(in.h.value), view_of(in.h.tangent)))
      .with_masses(with_tangents(view_of(in.m.value), view_of(in.m.tangent)))
      .with_densities(with_tangents(view_of(in.rho.value), view_of(in.rho.tangent)));
}

} // namespace

TEST_CASE("jvp: the primal equals apply bitwise and paired views equal materialized duals",
          "[jvp]") {
  const test::JVPInputs<2> in(false);
  const auto plain = plain_set(in);
  const auto paired = tangent_set(in);
  const auto x = materialize(in.x), v = materialize(in.v);
  const auto h = materialize(in.h), m = materialize(in.m), rho = materialize(in.rho);
  const auto f = materialize(in.f);
  const ParticleSet<2, D1> dual{view_of(x), view_of(h), view_of(m), plain.kinds, view_of(rho)};
  const exec::host ex;
  const auto f_paired = with_tangents(view_of(in.f.value), view_of(in.f.tangent));
  const auto check = [&](auto op, const auto& plain_values, const auto& paired_values,
                         const auto& dual_values) {
    using Op = decltype(op);
    const auto out = jvp<Op>(ex, paired, paired, in.domain, in.list, paired_values, paired_values);
    const auto reference =
        apply<Op>(ex, plain, plain, in.domain, in.list, plain_values, plain_values);
    const auto all_dual =
        split(apply<Op>(ex, dual, dual, in.domain, in.list, dual_values, dual_values));
    CHECK(flat(out.primal) == flat(reference));
    CHECK(flat(out.tangents) == all_dual.second);
    CHECK(all_dual.first == flat(reference));
  };
  const Span<const ops::NoField> none{};
  check(ops::Density<Kernel>{}, none, none, none);
  check(ops::Covariance<Kernel>{}, none, none, none);
  check(ops::Interpolate<Kernel>{}, view_of(in.f.value), f_paired, view_of(f));
  check(ops::Gradient<Kernel, GradientScheme::Difference>{}, view_of(in.f.value), f_paired,
        view_of(f));
  check(ops::Laplacian<Kernel>{}, view_of(in.f.value), f_paired, view_of(f));
  check(ops::Curl<Kernel, GradientScheme::Symmetric>{}, view_of(in.v.value),
        with_tangents(view_of(in.v.value), view_of(in.v.tangent)), view_of(v));
}

TEST_CASE("jvp: grid traversal equals the neighbour list bitwise", "[jvp]") {
  const test::JVPInputs<3> in(true);
  const exec::host ex;
  const auto set = tangent_set(in);
  const auto values = with_tangents(view_of(in.v.value), view_of(in.v.tangent));
  using Op = ops::Divergence<Kernel, GradientScheme::Symmetric, SupportScheme::Scatter>;
  const auto list = build_neighbor_list<SupportScheme::Scatter>(ex, set.search_points(),
                                                                set.search_points(), in.domain);
  const auto grid = search::build_search_grid<SupportScheme::Scatter>(
      ex, set.search_points(), set.search_points(), in.domain);
  const auto by_list = jvp<Op>(ex, set, set, in.domain, list, values, values);
  const auto by_grid = jvp<Op>(ex, set, set, in.domain, grid, values, values);
  CHECK(flat(by_list.primal) == flat(by_grid.primal));
  CHECK(flat(by_list.tangents) == flat(by_grid.tangents));
}

TEST_CASE("jvp: an input without tangents is an exact zero direction", "[jvp]") {
  test::JVPInputs<2> in(true);
  const exec::host ex;
  using Op = ops::Gradient<Kernel, GradientScheme::Symmetric>;
  // Positions alone carry tangents...
  const auto positions_only =
      plain_set(in).with_positions(with_tangents(view_of(in.x.value), view_of(in.x.tangent)));
  const auto values = view_of(in.f.value);
  const auto alone =
      jvp<Op>(ex, positions_only, positions_only, in.domain, in.list, values, values);
  // ...and the same with every other input paired with zero tangents.
  for (auto* d : {&in.h, &in.m, &in.rho, &in.f}) {
    d->tangent.assign(d->tangent.size(), 0.0);
  }
  const auto all = tangent_set(in);
  const auto zero_values = with_tangents(view_of(in.f.value), view_of(in.f.tangent));
  const auto everything = jvp<Op>(ex, all, all, in.domain, in.list, zero_values, zero_values);
  CHECK(flat(alone.primal) == flat(everything.primal));
  CHECK(flat(alone.tangents) == flat(everything.tangents));
  // A set without tangents keeps the kernel work plain (value-only JVP): the output's scalar
  // is the values' dual, the geometry's scalar stays double.
  STATIC_REQUIRE(std::is_same_v<pairloop::call_scalar_t<ParticleSet<2, double>>, double>);
  STATIC_REQUIRE(std::is_same_v<pairloop::call_scalar_t<decltype(positions_only)>, D1>);
}

TEST_CASE("jvp: N directions in one pass equal N one-direction passes", "[jvp]") {
  const test::JVPInputs<3> in(false);
  const exec::host ex;
  const auto n = in.x.value.size();
  // Three position directions, direction-major; a fourth input, the values, in 3 directions.
  std::vector<Vec<double, 3>> dx;
  std::vector<double> df;
  for (int k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      dx.push_back(in.x.tangent[i] * (k + 1.0) + Vec<double, 3>::unit(k) * 0.01);
      df.push_back(in.f.tangent[(i + k) % n]);
    }
  }
  const auto three =
      plain_set(in).with_positions(with_tangents<3>(view_of(in.x.value), view_of(dx)));
  const auto f3 = with_tangents<3>(view_of(in.f.value), view_of(df));
  using Op = ops::Laplacian<Kernel, LaplacianScheme::Brookshaw, GradientScheme::Symmetric>;
  const auto all = jvp<Op>(ex, three, three, in.domain, in.list, f3, f3);
  REQUIRE(all.tangents.size() == 3 * std::int64_t(n));
  for (int k = 0; k < 3; ++k) {
    const Span<const Vec<double, 3>> dxk{dx.data() + k * n, std::int64_t(n)};
    const Span<const double> dfk{df.data() + k * n, std::int64_t(n)};
    const auto one = plain_set(in).with_positions(with_tangents(view_of(in.x.value), dxk));
    const auto fk = with_tangents(view_of(in.f.value), dfk);
    const auto single = jvp<Op>(ex, one, one, in.domain, in.list, fk, fk);
    CHECK(flat(single.primal) == flat(all.primal));
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(single.tangents[std::int64_t(i)] == all.tangents[std::int64_t(k * n + i)]);
    }
  }
}

TEST_CASE("jvp: value tangents alone give the operator applied to the tangent values", "[jvp]") {
  const test::JVPInputs<2> in(false);
  const exec::host ex;
  const auto set = plain_set(in);
  const auto values = with_tangents(view_of(in.v.value), view_of(in.v.tangent));
  using Op = ops::Divergence<Kernel, GradientScheme::Difference>;
  const auto out = jvp<Op>(ex, set, set, in.domain, in.list, values, values);
  const auto on_tangents =
      apply<Op>(ex, set, set, in.domain, in.list, view_of(in.v.tangent), view_of(in.v.tangent));
  CHECK(flat(out.tangents) == flat(on_tangents));
}

TEST_CASE("jvp: kinds and directions filter tangent pairs exactly as primal pairs", "[jvp]") {
  const test::JVPInputs<2> in(false, 11);
  const exec::host ex;
  const auto set = tangent_set(in);
  const auto values = with_tangents(view_of(in.f.value), view_of(in.f.tangent));
  using Op = ops::Gradient<Kernel, GradientScheme::Difference, SupportScheme::SuperSymmetric>;
  for (const auto direction :
       {OperationDirection::FluidToFluid, OperationDirection::BoundaryToFluid,
        OperationDirection::TrueAllToAll}) {
    const ApplyOptions<double> options{direction};
    const auto out = jvp<Op>(ex, set, set, in.domain, in.list, values, values, options);
    // Central differences along the same direction, through the same filter.
    const auto primal_at = [&](double step) {
      const auto x = in.x.moved(step);
      const auto h = in.h.moved(step);
      const auto m = in.m.moved(step);
      const auto rho = in.rho.moved(step);
      const auto f = in.f.moved(step);
      const ParticleSet<2, double> moved{view_of(x), view_of(h), view_of(m), set.kinds,
                                         view_of(rho)};
      return flat(apply<Op>(ex, moved, moved, in.domain, in.list, view_of(f), view_of(f), options));
    };
    const auto plus = primal_at(1e-6), minus = primal_at(-1e-6);
    const auto tangent = flat(out.tangents);
    double worst = 0, scale = 0;
    for (std::size_t k = 0; k < tangent.size(); ++k) {
      const double fd = (plus[k] - minus[k]) / 2e-6;
      worst = std::max(worst, std::abs(tangent[k] - fd));
      scale = std::max(scale, std::abs(fd));
    }
    CHECK(worst <= 1e-6 * scale);
    const KindFilter filter = kind_filter(direction);
    for (std::size_t i = 0; i < in.kinds.size(); ++i) {
      if (!filter.accepts_query(in.kinds[i])) {
        CHECK(out.tangents[std::int64_t(i)] == Vec<double, 2>{});
      }
    }
  }
}

TEST_CASE("jvp: empty sets give shape-correct zero tangents", "[jvp]") {
  const test::JVPInputs<2> in(false);
  const exec::host ex;
  const auto set = tangent_set(in);
  const ParticleSet<2, double> none{};
  const auto empty = none.with_positions(with_tangents(none.positions, none.positions));
  const auto values = with_tangents(view_of(in.f.value), view_of(in.f.tangent));
  const Span<const double> no_values{};
  using Op = ops::Gradient<Kernel>;
  // No queries: nothing is launched, both outputs are empty.
  const auto list0 = build_neighbor_list<SupportScheme::Gather>(ex, none.search_points(),
                                                                set.search_points(), in.domain);
  const auto nothing = jvp<Op>(ex, empty, set, in.domain, list0, no_values, values);
  CHECK(nothing.primal.size() == 0);
  CHECK(nothing.tangents.size() == 0);
  // No references: every query gets a zero primal and zero tangent.
  const auto list1 = build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                                none.search_points(), in.domain);
  const auto zeros =
      jvp<Op>(ex, set, empty, in.domain, list1, values, with_tangents(no_values, no_values));
  REQUIRE(zeros.tangents.size() == set.size());
  for (std::int64_t i = 0; i < set.size(); ++i) {
    CHECK(zeros.primal[i] == Vec<double, 2>{});
    CHECK(zeros.tangents[i] == Vec<double, 2>{});
  }
}

TEST_CASE("jvp: coincident distinct particles get finite, correct tangents", "[jvp]") {
  test::JVPInputs<2> in(false);
  // Particle 1 sits exactly on particle 0 (distinct particles: the finite limits at r = 0).
  in.x.value[1] = in.x.value[0];
  in.list = build_neighbor_list<SupportScheme::SuperSymmetric>(
      exec::host{}, plain_set(in).search_points(), plain_set(in).search_points(), in.domain);
  const exec::host ex;
  const auto set = tangent_set(in);
  const auto values = with_tangents(view_of(in.f.value), view_of(in.f.tangent));
  const auto finite = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
  };
  CHECK(finite(flat(jvp<ops::Laplacian<Kernel, LaplacianScheme::Dot>>(
                        ex, set, set, in.domain, in.list,
                        with_tangents(view_of(in.v.value), view_of(in.v.tangent)),
                        with_tangents(view_of(in.v.value), view_of(in.v.tangent)))
                        .tangents)));
  CHECK(finite(flat(jvp<ops::Laplacian<Kernel, LaplacianScheme::Brookshaw>>(ex, set, set, in.domain,
                                                                            in.list, values, values)
                        .tangents)));
  // Density and the gradient are smooth through r = 0: central differences agree, and so does
  // the reverse mode.
  const auto check = [&](auto op, auto corrected) {
    const auto e = test::derivative_errors<decltype(op), decltype(corrected)::value>(in);
    CHECK(e.jvp_vs_fd <= 1e-6);
    CHECK(e.vjp_vs_jvp <= 1e-12);
  };
  check(ops::Density<Kernel>{}, std::false_type{});
  check(ops::Gradient<Kernel, GradientScheme::Difference>{}, std::false_type{});
  check(ops::Gradient<Kernel, GradientScheme::Symmetric>{}, std::true_type{});
}

namespace {

/// Geometry → Density → (Ω,) CRK factors and renormalization → the corrected Difference
/// gradient of f, with the tangents of whatever the set carries flowing through every stage.
template <bool WithGradH, class Set, class Values>
std::vector<Vec<double, 2>> corrected_chain(const Set& set,
                                            const Values& f,
                                            const Domain<2, double>& domain,
                                            const NeighborList<exec::host>& list,
                                            std::vector<Vec<double, 2>>* tangents = nullptr) {
  const exec::host ex;
  const auto rho = apply<ops::Density<Kernel>>(ex, set, set, domain, list);
  const auto with_rho = set.with_densities(test::span(rho));
  const auto crk = corrections::compute_crk_factors<Kernel>(ex, with_rho, domain, list);
  const auto weighted = with_rho.with_volumes(crk.volume_span());
  const auto renormalization = corrections::compute_renormalization<Kernel>(
      ex, weighted, weighted, domain, list, ApplyOptions<double>{}, ops::Corrections{crk.state()});
  const auto omegas = corrections::compute_omegas<Kernel>(ex, with_rho, domain, list);
  using Omega = std::decay_t<decltype(omegas[0])>;
  const auto grad_h = [&] {
    if constexpr (WithGradH) {
      return ops::GradH<Omega>{test::span(omegas), test::span(omegas)};
    } else {
      return ops::NoGradH{};
    }
  }();
  const ops::Corrections corrections{crk.state(), renormalization.state(), grad_h};
  using Op = ops::Gradient<Kernel, GradientScheme::Difference>;
  std::vector<Vec<double, 2>> out;
  if constexpr (!is_dual_v<pairloop::call_scalar_t<Set>>) {
    (void)tangents;
    const auto g =
        apply<Op>(ex, weighted, weighted, domain, list, f, f, ApplyOptions<double>{}, corrections);
    for (std::int64_t i = 0; i < g.size(); ++i) {
      out.push_back(g[i]);
    }
  } else {
    const auto g =
        jvp<Op>(ex, weighted, weighted, domain, list, f, f, ApplyOptions<double>{}, corrections);
    for (std::int64_t i = 0; i < g.primal.size(); ++i) {
      out.push_back(g.primal[i]);
      tangents->push_back(g.tangents[i]);
    }
  }
  return out;
}

/// The chain's JVP (positions, supports and masses carry tangents; the densities come from the
/// Density) against central differences of the whole chain; returns the tangents.
template <bool WithGradH>
std::vector<Vec<double, 2>> check_chain(const test::JVPInputs<2>& in) {
  const auto n = std::int64_t(in.x.value.size());
  const auto set_at = [&](const auto& x, const auto& hs, const auto& m) {
    return ParticleSet<2, double>{view_of(x), view_of(hs), view_of(m), {in.kinds.data(), n}};
  };
  const auto base = set_at(in.x.value, in.h.value, in.m.value);
  const auto set = base.with_positions(with_tangents(view_of(in.x.value), view_of(in.x.tangent)))
                       .with_supports(with_tangents(view_of(in.h.value), view_of(in.h.tangent)))
                       .with_masses(with_tangents(view_of(in.m.value), view_of(in.m.tangent)));
  const auto f = view_of(in.f.value);
  std::vector<Vec<double, 2>> tangents;
  const auto primal = corrected_chain<WithGradH>(set, f, in.domain, in.list, &tangents);
  CHECK(primal == corrected_chain<WithGradH>(base, f, in.domain, in.list));
  const auto at = [&](double step) {
    const auto x = in.x.moved(step);
    const auto hs = in.h.moved(step);
    const auto m = in.m.moved(step);
    return corrected_chain<WithGradH>(set_at(x, hs, m), f, in.domain, in.list);
  };
  const auto plus = at(1e-6), minus = at(-1e-6);
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < primal.size(); ++i) {
    for (int k = 0; k < 2; ++k) {
      REQUIRE(std::isfinite(tangents[i][k]));
      const double fd = (plus[i][k] - minus[i][k]) / 2e-6;
      worst = std::max(worst, std::abs(tangents[i][k] - fd));
      scale = std::max(scale, std::abs(fd));
    }
  }
  INFO("max |JVP - FD| / max |FD| = " << worst / scale);
  CHECK(worst <= 1e-6 * scale);
  return tangents;
}

} // namespace

TEST_CASE("jvp: geometry through Ω, CRK factors and renormalization into a corrected gradient",
          "[jvp][corrections]") {
  test::JVPInputs<2> in(false, 5);
  in.kinds.assign(in.kinds.size(), 0);
  check_chain<true>(in);
}

TEST_CASE("jvp: CRK limiter rows and zero-sum rows have finite, correct tangents",
          "[jvp][corrections]") {
  test::JVPInputs<2> in(false, 5);
  in.kinds.assign(in.kinds.size(), 0);
  // An isolated particle (zero sums; CRK and renormalization fall back) and three collinear ones
  // far from the rest (rejected CRK rows). Grad-h is left out: an isolated particle has
  // Ω = 1 − 1 = 0 exactly, and the grad-h operators divide by it (docs/corrections.md).
  const double h = in.h.value[0];
  in.x.value.back() = {5.0, 5.0};
  for (int k = 0; k < 3; ++k) {
    const auto i = in.x.value.size() - 2 - std::size_t(k);
    in.x.value[i] = {-5.0 + 0.2 * h * k, -5.0};
    in.x.tangent[i][1] = 0.0; // moved along their line only: they stay collinear
  }
  in.domain = {{-6, -6}, {6, 6}, {}};
  in.list = build_neighbor_list<SupportScheme::SuperSymmetric>(
      exec::host{}, plain_set(in).search_points(), plain_set(in).search_points(), in.domain);
  const auto tangents = check_chain<false>(in);
  CHECK(tangents.back() == Vec<double, 2>{}); // the isolated particle
}

TEST_CASE("jvp: bad tangent arrays and outputs are rejected before any work", "[jvp][errors]") {
  const test::JVPInputs<1> in(false);
  const exec::host ex;
  const std::vector<double> short_tangents(3, 0.0);
  CHECK_THROWS_WITH(with_tangents(view_of(in.h.value), view_of(short_tangents)),
                    Catch::Contains("with_tangents") && Catch::Contains("`tangents`") &&
                        Catch::Contains("has 3 elements"));
  CHECK_THROWS_WITH(with_tangents<2>(view_of(in.h.value), view_of(in.h.tangent)),
                    Catch::Contains("2 direction(s)"));
  const auto set = tangent_set(in);
  std::vector<double> primal(in.h.value.size(), -1.0), tangents(in.h.value.size() + 1, -1.0);
  using Op = ops::Density<Kernel>;
  CHECK_THROWS_WITH(jvp_into<Op>(ex, set, set, in.domain, in.list,
                                 Span<double>{primal.data(), std::int64_t(primal.size())},
                                 Span<double>{tangents.data(), std::int64_t(tangents.size())}),
                    Catch::Contains("jvp") && Catch::Contains("`tangents`"));
  CHECK_THROWS_WITH(jvp_into<Op>(ex, set, set, in.domain, in.list, Span<double>{primal.data(), 2},
                                 Span<double>{tangents.data(), std::int64_t(primal.size())}),
                    Catch::Contains("`primal`"));
  CHECK(std::all_of(primal.begin(), primal.end(), [](double x) { return x == -1.0; }));
  CHECK(std::all_of(tangents.begin(), tangents.end(), [](double x) { return x == -1.0; }));
}

TEST_CASE("jvp, apply: operators without fields take options without value placeholders",
          "[jvp][api]") {
  const test::JVPInputs<2> in(false);
  const exec::host ex;
  const auto set = tangent_set(in);
  const auto plain = plain_set(in);
  using Op = ops::Density<Kernel>;
  const Span<const ops::NoField> none{};
  ApplyOptions<double> options;
  options.calibration_n_h = 3; // an option that changes every value
  const auto with_none = jvp<Op>(ex, set, set, in.domain, in.list, none, none, options);
  const auto without = jvp<Op>(ex, set, set, in.domain, in.list, options);
  CHECK(flat(without.primal) == flat(with_none.primal));
  CHECK(flat(without.tangents) == flat(with_none.tangents));
  CHECK(flat(without.primal) != flat(jvp<Op>(ex, set, set, in.domain, in.list).primal));
  const auto n = std::int64_t(in.h.value.size());
  const auto count = std::size_t(n);
  std::vector<double> primal(count), tangents(count);
  jvp_into<Op>(ex, set, set, in.domain, in.list, Span<double>{primal.data(), n},
               Span<double>{tangents.data(), n}, options);
  CHECK(primal == flat(with_none.primal));
  CHECK(tangents == flat(with_none.tangents));
  std::vector<double> rho(count);
  apply_into<Op>(ex, plain, plain, in.domain, in.list, Span<double>{rho.data(), n}, options);
  CHECK(rho == primal);
  CHECK(flat(apply<Op>(ex, plain, plain, in.domain, in.list, options)) == primal);
}
