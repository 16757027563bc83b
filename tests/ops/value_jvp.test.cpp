// SPDX-License-Identifier: MIT
// Value-only forward mode (the reference's tier-1 JVP): plain geometry, dual field values. The
// operators are linear in the values, so the tangent must be the primal operator applied to the
// tangent values — bitwise, since the dual arithmetic repeats the primal's operations — and the
// primal part must be the plain call, bitwise.
#include <sphad/ad/dual.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <type_traits>
#include <vector>

using namespace sphad;
using test::span;
using K = kernels::Wendland4;
using G = GradientScheme;
using L = LaplacianScheme;

namespace {

/// Component k of every output, as doubles: the primal (k = -1) or tangent k.
template <class O>
void flatten(const O& o, int k, std::vector<double>& out) {
  if constexpr (is_vec_v<O>) {
    for (int a = 0; a < O::dim; ++a) {
      flatten(o[a], k, out);
    }
  } else if constexpr (is_mat_v<O>) {
    for (int r = 0; r < O::rows; ++r) {
      for (int c = 0; c < O::cols; ++c) {
        flatten(o(r, c), k, out);
      }
    }
  } else if constexpr (is_dual_v<O>) {
    out.push_back(k < 0 ? double(value_of(o)) : double(o.tangent[k]));
  } else {
    out.push_back(double(o));
  }
}
template <class B>
std::vector<double> flat(const B& buffer, int k = -1) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < buffer.size(); ++i) {
    flatten(buffer[i], k, out);
  }
  return out;
}

/// A scalar or a vector field with N tangent directions: primal and tangents as plain arrays,
/// and the dual array built from them.
template <class F, int N>
struct Field {
  std::vector<F> primal;
  std::vector<F> tangents[N];
};

template <class Dual, class F, int N>
std::vector<decltype(std::declval<F>() * std::declval<Dual>())> to_dual(const Field<F, N>& f) {
  using Out = decltype(std::declval<F>() * std::declval<Dual>());
  std::vector<Out> out(f.primal.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if constexpr (is_vec_v<F>) {
      for (int a = 0; a < F::dim; ++a) {
        out[i][a].value = f.primal[i][a];
        for (int k = 0; k < N; ++k) {
          out[i][a].tangent[k] = f.tangents[k][i][a];
        }
      }
    } else {
      out[i].value = f.primal[i];
      for (int k = 0; k < N; ++k) {
        out[i].tangent[k] = f.tangents[k][i];
      }
    }
  }
  return out;
}

struct Case {
  test::Particles<2, double> p = test::lattice<2, double>(10, 25);
  Domain<2, double> domain{{-1, -1}, {1, 1}, {true, false}};
  NeighborList<exec::host> list;
  Field<double, 3> f;
  Field<Vec<double, 2>, 3> v;

  Case() {
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      p.x[i] += Vec<double, 2>{u(rng), u(rng)} * 0.03;
      p.h[i] *= 1 + 0.15 * u(rng);
      p.rho[i] = 1 + 0.2 * u(rng);
      p.kinds[i] = std::int32_t(i % 4 == 0);
      f.primal.push_back(std::sin(3 * p.x[i][0]) + p.x[i][1]);
      v.primal.push_back({p.x[i][0] * p.x[i][1], std::cos(p.x[i][1])});
      for (int k = 0; k < 3; ++k) {
        f.tangents[k].push_back(u(rng));
        v.tangents[k].push_back({u(rng), u(rng)});
      }
    }
    list = test::all_pairs_list(p, domain);
  }

  /// The dual call's primal and tangents against plain calls on the primal and tangent values,
  /// and the three-direction call against three one-direction calls.
  template <class Op, class F>
  void check(const Field<F, 3>& field, const char* name) const {
    const exec::host ex;
    const auto s = p.view();
    const ApplyOptions<double> options{OperationDirection::AllToAll, 0};
    const auto plain = [&](const std::vector<F>& values) {
      return flat(apply<Op>(ex, s, s, domain, list, span(values), span(values), options));
    };
    const auto d3 = to_dual<Dual<double, 3>>(field);
    const auto three = apply<Op>(ex, s, s, domain, list, span(d3), span(d3), options);
    INFO(name);
    CHECK(flat(three) == plain(field.primal));
    for (int k = 0; k < 3; ++k) {
      CHECK(flat(three, k) == plain(field.tangents[k]));
      Field<F, 1> one{field.primal, {field.tangents[k]}};
      const auto d1 = to_dual<Dual<double, 1>>(one);
      CHECK(flat(apply<Op>(ex, s, s, domain, list, span(d1), span(d1), options), 0) ==
            flat(three, k));
    }
  }
};
} // namespace

TEST_CASE("forward mode, values only: the tangent is the operator on the tangent values, "
          "bitwise, in N directions at once",
          "[ops][jvp]") {
  const Case c;
  c.check<ops::Interpolate<K>>(c.f, "Interpolate");
  c.check<ops::Interpolate<K, SupportScheme::Scatter>>(c.v, "Interpolate vector Scatter");
  c.check<ops::Gradient<K, G::Naive>>(c.f, "Gradient Naive");
  c.check<ops::Gradient<K, G::Symmetric>>(c.f, "Gradient Symmetric");
  c.check<ops::Gradient<K, G::Difference, SupportScheme::MeanSymmetric>>(c.v,
                                                                         "Gradient Difference");
  c.check<ops::Gradient<K, G::Summation>>(c.f, "Gradient Summation");
  c.check<ops::Divergence<K, G::Difference>>(c.v, "Divergence Difference");
  c.check<ops::Divergence<K, G::Symmetric, SupportScheme::Gather, DivergenceMode::Standard, true>>(
      c.v, "Divergence Symmetric consistent");
  c.check<ops::Curl<K, G::Naive>>(c.v, "Curl Naive");
  c.check<ops::Laplacian<K, L::Naive>>(c.f, "Laplacian Naive");
  c.check<ops::Laplacian<K, L::Brookshaw, G::Symmetric>>(c.f, "Laplacian Brookshaw Symmetric");
  c.check<ops::Laplacian<K, L::Default>>(c.v, "Laplacian Default vector");
  c.check<ops::Laplacian<K, L::Dot, G::Naive, SupportScheme::SuperSymmetric>>(c.v, "Laplacian Dot");
}

TEST_CASE("forward mode, values only: positiveDivergence keeps the primal's pairs", "[ops][jvp]") {
  // Not linear in the values (a pair counts when x_ij·q_ij ≥ 0), so the tangent is the linear
  // operator restricted to the pairs the primal kept: compare with central differences.
  const Case c;
  const exec::host ex;
  const auto s = c.p.view();
  using Op = ops::Laplacian<K, L::Brookshaw, G::Naive, SupportScheme::Gather, true>;
  const auto dual =
      to_dual<Dual<double, 1>>(Field<Vec<double, 2>, 1>{c.v.primal, {c.v.tangents[0]}});
  const auto jvp = flat(apply<Op>(ex, s, s, c.domain, c.list, span(dual), span(dual)), 0);
  const auto at = [&](double t) {
    std::vector<Vec<double, 2>> moved;
    for (std::size_t i = 0; i < c.v.primal.size(); ++i) {
      moved.push_back(c.v.primal[i] + c.v.tangents[0][i] * t);
    }
    return flat(apply<Op>(ex, s, s, c.domain, c.list, span(moved), span(moved)));
  };
  const auto plus = at(1e-7), minus = at(-1e-7);
  double worst = 0, scale = 0;
  for (std::size_t k = 0; k < jvp.size(); ++k) {
    const double fd = (plus[k] - minus[k]) / 2e-7;
    worst = std::fmax(worst, std::abs(jvp[k] - fd));
    scale = std::fmax(scale, std::abs(fd));
  }
  INFO("max |JVP − FD| = " << worst << ", max |FD| = " << scale);
  CHECK(worst <= 1e-6 * scale);
}
