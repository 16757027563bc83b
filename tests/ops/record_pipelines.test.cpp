// SPDX-License-Identifier: MIT
// The correction pipelines under reverse mode (issue #8): Ω (grad-h), the renormalization
// matrices and the CRK factors recorded (`record_omegas`, `record_renormalization`,
// `record_crk_factors`: pair-sum records and `record_map`s), so geometry → (Density →) Ω / L /
// CRK state and volumes → corrected Gradient → loss backpropagates end to end (with CRK also
// through the CRK density). Checked against the forward mode through the same chain (dot-product
// test, 1e-12) and central differences (1e-6); and `record_map` on its own.
#include <sphad/corrections.hpp>

#include "ops/derivative_matrix.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace sphad;
using test::view_of;

namespace {

using Kernel = kernels::Wendland4;
using V2 = Vec<double, 2>;
using Density = ops::Density<Kernel>;
using Gradient = ops::Gradient<Kernel, GradientScheme::Difference>;

enum class Pipeline { omegas, renormalization, crk };

/// ȳ for the gradient output: fixed pseudo-random vectors.
std::vector<V2> seed_of(std::size_t n) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<V2> out(n);
  for (auto& v : out) {
    v = V2{u(rng), u(rng)};
  }
  return out;
}

/// ⟨ȳ, ∇f⟩ of the chain x, h, m → ρ → (Ω or L) → corrected Gradient, and its forward-mode
/// derivative along the inputs' tangents (positions, supports, masses, values).
template <Pipeline P>
std::pair<double, double> forward_chain(const test::JVPInputs<2>& in,
                                        const std::vector<V2>& x,
                                        const std::vector<double>& h,
                                        const std::vector<double>& m,
                                        const std::vector<double>& f,
                                        const std::vector<V2>& ybar) {
  const auto n = std::int64_t(x.size());
  const exec::host ex;
  const auto set = test::tangent_set(in, x, h, m);
  const auto rho = jvp<Density>(ex, set, set, in.domain, in.list);
  const auto with_rho = set.with_densities(with_tangents(
      Span<const double>{rho.primal.data(), n}, Span<const double>{rho.tangents.data(), n}));
  const auto values = with_tangents(view_of(f), view_of(in.f.tangent));
  const auto run = [&](const auto& corrections) {
    const auto g = jvp<Gradient>(ex, with_rho, with_rho, in.domain, in.list, values, values,
                                 ApplyOptions<double>{}, corrections);
    double value = 0, derivative = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      value += dot(ybar[std::size_t(i)], g.primal[i]);
      derivative += dot(ybar[std::size_t(i)], g.tangents[i]);
    }
    return std::make_pair(value, derivative);
  };
  if constexpr (P == Pipeline::crk) {
    const auto crk = corrections::compute_crk_factors<Kernel>(ex, set, in.domain, in.list);
    const auto weighted = set.with_volumes(crk.volume_span());
    const auto g = jvp<Gradient>(ex, weighted, weighted, in.domain, in.list, values, values,
                                 ApplyOptions<double>{}, ops::Corrections{crk.state()});
    double value = 0, derivative = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      value += dot(ybar[std::size_t(i)], g.primal[i]) +
               ybar[std::size_t(i)][0] * value_of(crk.density[i]);
      derivative += dot(ybar[std::size_t(i)], g.tangents[i]) +
                    ybar[std::size_t(i)][0] * crk.density[i].tangent[0];
    }
    return std::make_pair(value, derivative);
  } else if constexpr (P == Pipeline::omegas) {
    const auto omega = corrections::compute_omegas<Kernel>(ex, with_rho, in.domain, in.list);
    using D1 = Dual<double, 1>;
    const Span<const D1> o{omega.data(), n};
    return run(ops::Corrections{ops::NoCRK{}, ops::NoRenormalization{},
                                ops::GradH<double, Span<const D1>, Span<const D1>>{o, o}});
  } else {
    const auto l =
        corrections::compute_renormalization<Kernel>(ex, with_rho, with_rho, in.domain, in.list);
    using M = Mat<Dual<double, 1>, 2, 2>;
    return run(ops::Corrections{
        ops::NoCRK{}, ops::Renormalization<2, double, Span<const M>>{{l.matrices.data(), n}}});
  }
}

/// The same chain recorded: Σ ⟨∂L/∂input, tangent⟩ over positions, supports, masses, values.
template <Pipeline P>
double reverse_chain(const test::JVPInputs<2>& in, const std::vector<V2>& ybar) {
  const auto n = std::int64_t(in.x.value.size());
  const test::Tracked<V2> x(in.x.value);
  const test::Tracked<double> h(in.h.value), m(in.m.value), f(in.f.value);
  const ParticleSet<2, double> plain{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const auto set =
      plain.with_positions(x.variable).with_supports(h.variable).with_masses(m.variable);
  Tape<exec::host> tape;
  if constexpr (P == Pipeline::crk) {
    // ȳ on the corrected gradient, and its first component on the CRK density.
    const auto crk = corrections::record_crk_factors<Kernel>(tape, set, in.domain, in.list);
    const auto weighted = set.with_volumes(crk.volumes);
    const auto g =
        record<Gradient>(tape, weighted, weighted, in.domain, in.list, f.variable, f.variable,
                         ApplyOptions<double>{}, ops::Corrections{crk.state()});
    std::vector<double> seed_density;
    for (const auto& v : ybar) {
      seed_density.push_back(v[0]);
    }
    tape.backward(BackwardOptions{}, Seed<V2>{g, {ybar.data(), n}},
                  Seed<double>{crk.density, {seed_density.data(), n}});
    return test::dot_scalars(tape.gradient(x.variable), in.x.tangent) +
           test::dot_scalars(tape.gradient(h.variable), in.h.tangent) +
           test::dot_scalars(tape.gradient(m.variable), in.m.tangent) +
           test::dot_scalars(tape.gradient(f.variable), in.f.tangent);
  }
  const auto rho = record<Density>(tape, set, set, in.domain, in.list);
  const auto with_rho = set.with_densities(rho);
  const auto g = [&] {
    if constexpr (P == Pipeline::omegas) {
      const auto omega = corrections::record_omegas<Kernel>(tape, with_rho, in.domain, in.list);
      return record<Gradient>(
          tape, with_rho, with_rho, in.domain, in.list, f.variable, f.variable,
          ApplyOptions<double>{},
          ops::Corrections{ops::NoCRK{}, ops::NoRenormalization{},
                           ops::GradH<double, Variable<double>, Variable<double>>{omega, omega}});
    } else {
      const auto l =
          corrections::record_renormalization<Kernel>(tape, with_rho, with_rho, in.domain, in.list);
      return record<Gradient>(
          tape, with_rho, with_rho, in.domain, in.list, f.variable, f.variable,
          ApplyOptions<double>{},
          ops::Corrections{ops::NoCRK{},
                           ops::Renormalization<2, double, Variable<Mat<double, 2, 2>>>{l}});
    }
  }();
  tape.backward(g, Span<const V2>{ybar.data(), n});
  return test::dot_scalars(tape.gradient(x.variable), in.x.tangent) +
         test::dot_scalars(tape.gradient(h.variable), in.h.tangent) +
         test::dot_scalars(tape.gradient(m.variable), in.m.tangent) +
         test::dot_scalars(tape.gradient(f.variable), in.f.tangent);
}

template <Pipeline P>
void check_chain() {
  for (const bool periodic : {false, true}) {
    const test::JVPInputs<2> in(periodic);
    const auto ybar = seed_of(in.x.value.size());
    const double derivative =
        forward_chain<P>(in, in.x.value, in.h.value, in.m.value, in.f.value, ybar).second;
    const double reverse = reverse_chain<P>(in, ybar);
    CHECK(reverse == Approx(derivative).epsilon(1e-12));
    constexpr double step = 1e-6;
    const auto at = [&](double s) {
      return forward_chain<P>(in, in.x.moved(s), in.h.moved(s), in.m.moved(s), in.f.moved(s), ybar)
          .first;
    };
    CHECK(reverse == Approx((at(step) - at(-step)) / (2 * step)).epsilon(1e-6));
  }
}

/// A row-wise function on any scalar: (a b, a / c) with b a vector.
struct Mix {
  template <class A, class B, class C>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b, const C& c) const {
    using T = promote_all_t<A, scalar_of_t<B>, C>;
    return Vec<T, 3>{T(a) * T(b[0]), T(a) * T(b[1]), T(a) / T(c)};
  }
};

} // namespace

TEST_CASE("record_omegas: Ω backpropagates to the geometry through the Density", "[vjp][grad-h]") {
  check_chain<Pipeline::omegas>();
}

TEST_CASE("record_renormalization: L backpropagates to the geometry through the Density",
          "[vjp][renormalization]") {
  check_chain<Pipeline::renormalization>();
}

TEST_CASE("record_crk_factors: the CRK factors, volumes and CRK density backpropagate to the "
          "geometry",
          "[vjp][crk]") {
  check_chain<Pipeline::crk>();
}

TEST_CASE("record_map: a row-wise function's gradient, constants and errors", "[vjp][map]") {
  std::vector<double> a{1.0, 2.0, -0.5}, c{4.0, -1.0, 2.0};
  std::vector<V2> b{{1.0, 2.0}, {0.5, -1.0}, {3.0, 0.25}};
  const Variable<double> av(a.data(), 3);
  const Variable<V2> bv(b.data(), 3);
  Tape<exec::host> tape;
  const auto y = record_map(tape, 3, Mix{}, av, bv, Span<const double>{c.data(), 3});
  CHECK(tape.size() == 1);
  CHECK(y[1][2] == -2.0);
  const std::vector<Vec<double, 3>> seed{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  tape.backward(y, Span<const Vec<double, 3>>{seed.data(), 3});
  const auto ga = tape.gradient(av);
  const auto gb = tape.gradient(bv);
  CHECK(ga[0] == 1.0);  // ∂(a b0)/∂a at row 0
  CHECK(ga[1] == -1.0); // ∂(a b1)/∂a at row 1
  CHECK(ga[2] == 0.5);  // ∂(a/c)/∂a at row 2
  CHECK(gb[0][0] == 1.0);
  CHECK(gb[1][1] == 2.0);
  CHECK(gb[2][0] == 0.0);
  // Constants only: nothing recorded.
  const auto plain = record_map(tape, 3, Mix{}, Span<const double>{a.data(), 3},
                                Span<const V2>{b.data(), 3}, Span<const double>{c.data(), 3});
  CHECK(tape.size() == 1);
  CHECK(plain[2][2] == -0.25);
  CHECK_THROWS_WITH(record_map(tape, 4, Mix{}, av, bv, Span<const double>{c.data(), 3}),
                    Catch::Matchers::Contains("`inputs`"));
}

TEST_CASE("record: CRK limiter rows and zero-sum rows have finite, correct adjoints",
          "[vjp][crk][renormalization]") {
  test::JVPInputs<2> in(false, 5);
  in.kinds.assign(in.kinds.size(), 0);
  // An isolated particle (zero sums; CRK and renormalization fall back) and three collinear
  // ones far from the rest (rejected CRK rows), as in the forward-mode test.
  const double h0 = in.h.value[0];
  in.x.value.back() = {5.0, 5.0};
  for (int k = 0; k < 3; ++k) {
    const auto i = in.x.value.size() - 2 - std::size_t(k);
    in.x.value[i] = {-5.0 + 0.2 * h0 * k, -5.0};
    in.x.tangent[i][1] = 0.0; // moved along their line only: they stay collinear
  }
  in.domain = {{-6, -6}, {6, 6}, {}};
  const auto n = std::int64_t(in.x.value.size());
  const auto set_at = [&](const std::vector<V2>& x, const std::vector<double>& h,
                          const std::vector<double>& m) {
    return ParticleSet<2, double>{view_of(x), view_of(h), view_of(m), {in.kinds.data(), n}};
  };
  const auto base = set_at(in.x.value, in.h.value, in.m.value);
  in.list = build_neighbor_list<SupportScheme::SuperSymmetric>(exec::host{}, base.search_points(),
                                                               base.search_points(), in.domain);
  const auto ybar = seed_of(std::size_t(n));
  using Op = ops::Gradient<Kernel, GradientScheme::Difference>;
  // ⟨ȳ, ∇f⟩ through Density → CRK factors → renormalization (with CRK) → corrected gradient.
  const auto chain = [&](const auto& set, Tape<exec::host>& tape) {
    const auto rho = record<Density>(tape, set, set, in.domain, in.list);
    const auto with_rho = set.with_densities(rho);
    const auto crk = corrections::record_crk_factors<Kernel>(tape, with_rho, in.domain, in.list);
    const auto weighted = with_rho.with_volumes(crk.volumes);
    const auto l = corrections::record_renormalization<Kernel>(tape, weighted, weighted, in.domain,
                                                               in.list, ApplyOptions<double>{},
                                                               ops::Corrections{crk.state()});
    return record<Op>(
        tape, weighted, weighted, in.domain, in.list, view_of(in.f.value), view_of(in.f.value),
        ApplyOptions<double>{},
        ops::Corrections{crk.state(),
                         ops::Renormalization<2, double, Variable<Mat<double, 2, 2>>>{l}});
  };
  const auto value_at = [&](double s) {
    const auto x = in.x.moved(s);
    const auto h = in.h.moved(s);
    const auto m = in.m.moved(s);
    Tape<exec::host> tape;
    const auto g = chain(set_at(x, h, m), tape);
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      sum += dot(ybar[std::size_t(i)], g[i]);
    }
    return sum;
  };
  const test::Tracked<V2> x(in.x.value);
  const test::Tracked<double> h(in.h.value), m(in.m.value);
  Tape<exec::host> tape;
  const auto g = chain(
      base.with_positions(x.variable).with_supports(h.variable).with_masses(m.variable), tape);
  tape.backward(g, Span<const V2>{ybar.data(), n});
  const double reverse = test::dot_scalars(tape.gradient(x.variable), in.x.tangent) +
                         test::dot_scalars(tape.gradient(h.variable), in.h.tangent) +
                         test::dot_scalars(tape.gradient(m.variable), in.m.tangent);
  CHECK(reverse == Approx((value_at(1e-6) - value_at(-1e-6)) / 2e-6).epsilon(1e-6));
  const auto gx = tape.gradient(x.variable);
  CHECK(gx[n - 1] == V2{}); // the isolated particle
}
