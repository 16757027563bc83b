// SPDX-License-Identifier: MIT
// The call shape over bound pairs (`ops::pairs`): every verb — apply, apply_into, jvp,
// jvp_into, record — gives the same bits as the call with every argument spelled out, for each
// way of passing values (none, one view for both sides, query and reference values), with
// corrections, with the pairs' options, over a list and over a grid; and the checks still name
// the argument at fault.
#include <sphad/ad/tape.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace sphad;
using test::span;

namespace {

using K = kernels::Wendland4;
using V2 = Vec<double, 2>;
using Density = ops::Density<K>;
using Difference = ops::Gradient<K, GradientScheme::Difference>;
using Interpolate = ops::Interpolate<K>;

template <class A, class B>
bool same_bits(const A& a, const B& b) {
  return std::int64_t(a.size()) == std::int64_t(b.size()) &&
         std::memcmp(a.data(), b.data(), sizeof(*a.data()) * std::size_t(a.size())) == 0;
}

/// A jittered periodic 2D set with a scalar and a vector field.
struct Case {
  Domain<2, double> domain{{-1, -1}, {1, 1}, {true, true}};
  test::Particles<2, double> p = test::lattice<2, double>(12, 30);
  std::vector<double> f;
  std::vector<V2> v;
  Case() {
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      const double s = std::sin(double(i) * 1.7);
      p.x[i] += V2{0.02 * s, -0.015 * std::cos(double(i))};
      p.rho[i] = 1.0 + 0.1 * s;
      f.push_back(std::cos(2.0 * p.x[i][0]) + p.x[i][1]);
      v.push_back({p.x[i][1], -0.5 * p.x[i][0]});
    }
  }
};

} // namespace

TEST_CASE("ops::pairs: apply over bound pairs gives the spelled-out call's bits", "[ops][pairs]") {
  const Case c;
  const exec::host ex;
  const auto set = c.p.view();
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                               set.search_points(), c.domain);
  const auto pairs = ops::pairs(set, c.domain, list);
  const auto fs = span(c.f);
  const auto vs = span(c.v);

  CHECK(same_bits(apply<Density>(ex, pairs), apply<Density>(ex, set, set, c.domain, list)));
  CHECK(same_bits(apply<Difference>(ex, pairs, fs),
                  apply<Difference>(ex, set, set, c.domain, list, fs, fs)));
  // Query and reference values apart (here different fields: the call does not care).
  const std::vector<double> g(c.f.size(), 0.25);
  CHECK(same_bits(apply<Interpolate>(ex, pairs, fs, span(g)),
                  apply<Interpolate>(ex, set, set, c.domain, list, fs, span(g))));
  // std::vector values, as in the spelled-out call.
  CHECK(same_bits(
      apply<ops::Divergence<K, GradientScheme::Difference>>(ex, pairs, c.v),
      apply<ops::Divergence<K, GradientScheme::Difference>>(ex, set, set, c.domain, list, vs, vs)));

  SECTION("the pairs' options") {
    const ApplyOptions<double> calibrated{OperationDirection::AllToAll, 30.0};
    const auto rho = apply<Density>(ex, pairs.with_options(calibrated));
    CHECK(same_bits(rho, apply<Density>(ex, set, set, c.domain, list, calibrated)));
    CHECK(!same_bits(rho, apply<Density>(ex, pairs)));
    CHECK(same_bits(apply<Density>(ex, ops::pairs(set, c.domain, list, calibrated)), rho));
  }

  SECTION("corrections after the values, or alone") {
    std::vector<Mat<double, 2, 2>> l(c.f.size(), Mat<double, 2, 2>{{{1.1, 0.1}, {-0.2, 0.9}}});
    const ops::Corrections<ops::NoCRK, ops::Renormalization<2, double>> renormalized{
        {}, {span(l)}, {}};
    CHECK(same_bits(apply<Difference>(ex, pairs, fs, renormalized),
                    apply<Difference>(ex, set, set, c.domain, list, fs, fs, {}, renormalized)));
    CHECK(
        same_bits(apply<Interpolate>(ex, pairs, fs, span(g), renormalized),
                  apply<Interpolate>(ex, set, set, c.domain, list, fs, span(g), {}, renormalized)));
    CHECK(same_bits(apply<Density>(ex, pairs, ops::Uncorrected{}), apply<Density>(ex, pairs)));
  }

  SECTION("apply_into, into caller memory (a std::vector converts)") {
    std::vector<V2> out(c.f.size());
    apply_into<Difference>(ex, pairs, out, fs);
    CHECK(same_bits(out, apply<Difference>(ex, pairs, fs)));
    std::vector<double> rho(c.f.size());
    apply_into<Density>(ex, pairs, rho);
    CHECK(same_bits(rho, apply<Density>(ex, pairs)));
    std::vector<double> wrong(3);
    CHECK_THROWS_WITH(apply_into<Density>(ex, pairs, wrong),
                      Catch::Matchers::Contains("argument `out`: has 3 entries for 144 queries"));
  }

  SECTION("over the search grid") {
    const auto grid = search::build_search_grid<SupportScheme::Gather>(
        ex, set.search_points(), set.search_points(), c.domain);
    CHECK(same_bits(apply<Difference>(ex, ops::pairs(set, c.domain, grid), fs),
                    apply<Difference>(ex, pairs, fs)));
  }
}

TEST_CASE("ops::pairs: queries over other references, and the checks name the argument",
          "[ops][pairs][errors]") {
  const Case c;
  const exec::host ex;
  const auto all = c.p.view();
  // The first 40 particles query the whole set.
  auto queries = all;
  queries.positions = {c.p.x.data(), 40};
  queries.supports = {c.p.h.data(), 40};
  queries.masses = {c.p.m.data(), 40};
  queries.kinds = {c.p.kinds.data(), 40};
  queries.densities = {c.p.rho.data(), 40};
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, queries.search_points(),
                                                               all.search_points(), c.domain);
  const auto pairs = ops::pairs(queries, all, c.domain, list);
  const Span<const double> fq{c.f.data(), 40};
  const auto fr = span(c.f);
  const auto out = apply<Difference>(ex, pairs, fq, fr);
  CHECK(out.size() == 40);
  CHECK(same_bits(out, apply<Difference>(ex, queries, all, c.domain, list, fq, fr)));
  // One view for both sides cannot fit two sizes: the reference side is named.
  CHECK_THROWS_WITH(apply<Difference>(ex, pairs, fr),
                    Catch::Matchers::Contains("argument `query_values`"));
  CHECK_THROWS_WITH(apply<Difference>(ex, pairs, fq),
                    Catch::Matchers::Contains("argument `reference_values`"));
}

TEST_CASE("ops::pairs: jvp and jvp_into over bound pairs give the spelled-out call's bits",
          "[ops][pairs][jvp]") {
  const Case c;
  const exec::host ex;
  std::vector<V2> dx(c.p.x.size());
  for (std::size_t i = 0; i < dx.size(); ++i) {
    dx[i] = {std::sin(3.0 * double(i)), 0.5};
  }
  const auto set = c.p.view();
  const auto moving = set.with_positions(with_tangents(span(c.p.x), span(dx)));
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                               set.search_points(), c.domain);
  const auto pairs = ops::pairs(moving, c.domain, list);
  const auto fs = span(c.f);
  const auto a = jvp<Difference>(ex, pairs, fs);
  const auto b = jvp<Difference>(ex, moving, moving, c.domain, list, fs, fs);
  CHECK(same_bits(a.primal, b.primal));
  CHECK(same_bits(a.tangents, b.tangents));
  std::vector<double> primal(c.f.size()), tangents(c.f.size());
  jvp_into<Density>(ex, pairs, primal, tangents);
  const auto d = jvp<Density>(ex, moving, moving, c.domain, list);
  CHECK(same_bits(primal, d.primal));
  CHECK(same_bits(tangents, d.tangents));
}

TEST_CASE("ops::pairs: record over bound pairs gives the spelled-out record's bits and "
          "gradients",
          "[ops][pairs][record]") {
  const Case c;
  const exec::host ex;
  const auto list = build_neighbor_list<SupportScheme::Gather>(
      ex, c.p.view().search_points(), c.p.view().search_points(), c.domain);
  const auto run = [&](bool bound) {
    std::vector<V2> x = c.p.x;
    std::vector<double> f = c.f;
    const Variable<V2> xv(Span<V2>{x.data(), std::int64_t(x.size())});
    const Variable<double> fv(Span<double>{f.data(), std::int64_t(f.size())});
    Tape<exec::host> tape(ex);
    const auto set = c.p.view().with_positions(xv);
    const auto grad = bound ? record<Difference>(tape, ops::pairs(set, c.domain, list), fv)
                            : record<Difference>(tape, set, set, c.domain, list, fv, fv);
    std::vector<V2> seed(f.size(), V2{0.3, -1.0});
    tape.backward(grad, Span<const V2>{seed.data(), std::int64_t(seed.size())});
    const auto gx = tape.gradient(xv);
    const auto gf = tape.gradient(fv);
    return std::make_tuple(std::vector<V2>(grad.data(), grad.data() + grad.size()),
                           std::vector<V2>(gx.data(), gx.data() + gx.size()),
                           std::vector<double>(gf.data(), gf.data() + gf.size()));
  };
  const auto [out_a, gx_a, gf_a] = run(true);
  const auto [out_b, gx_b, gf_b] = run(false);
  CHECK(same_bits(out_a, out_b));
  CHECK(same_bits(gx_a, gx_b));
  CHECK(same_bits(gf_a, gf_b));
}
