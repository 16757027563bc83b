// SPDX-License-Identifier: MIT
// The solver's pair terms (PressureForce, ArtificialViscosity, LaminarViscosity, ContinuityRate,
// DensityDiffusion, ConcentrationGradient, PositionDivergence): analytic cases pin the primal;
// forward mode (jvp) against central differences; reverse mode (record + backward) against
// forward mode by the dot-product test — through positions, densities and field values.
#include <sphad/sphad.hpp>

#include "support/flatten.hpp"
#include "support/random.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace sphad;

namespace {

using K = kernels::Wendland4;
using V2 = Vec<double, 2>;
using V3 = Vec<double, 3>;
using D1 = Dual<double, 1>;
constexpr double two_pi = 2 * pi_v<double>;

template <class E>
Span<const E> view(const std::vector<E>& v) {
  return {v.data(), std::int64_t(v.size())};
}

/// A 2D particle set: a lattice of `side`² particles in the unit box (periodic or not), jittered
/// by `jitter` spacings, support 3 spacings, masses Δx², densities 1 unless set.
struct Fixture {
  Domain<2, double> domain;
  std::vector<V2> x;
  std::vector<double> h, m, rho;
  std::vector<std::int32_t> kinds;
  double dx;
  NeighborList<exec::host> list;

  Fixture(int side, double jitter, bool periodic, unsigned seed = 3)
      : domain{{0, 0}, {1, 1}, {periodic, periodic}} {
    auto lattice = sampling::cubic_lattice<2>(side, V2{1, 1});
    if (jitter > 0) {
      sampling::jitter(lattice, jitter, seed);
    }
    dx = lattice.spacing;
    x = lattice.positions;
    const std::size_t n = x.size();
    h.assign(n, 3 * dx);
    m.assign(n, dx * dx);
    rho.assign(n, 1.0);
    kinds.assign(n, 0);
    rebuild();
  }
  void rebuild() {
    const auto points = set().search_points();
    list = build_neighbor_list<SupportScheme::Gather>(exec::host{}, points, points, domain);
  }
  std::int64_t size() const { return std::int64_t(x.size()); }
  ParticleSet<2, double> set() const {
    return ParticleSet<2, double>{view(x), view(h), view(m), view(kinds)}.with_densities(view(rho));
  }
};

double dot_all(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    s += a[i] * b[i];
  }
  return s;
}

template <class E>
std::vector<E> random_like(std::mt19937_64& g, std::int64_t n, double scale) {
  std::vector<E> out(std::size_t(n), E{});
  for (auto& e : out) {
    std::vector<double> flat = test::flatten(e);
    const double* p = flat.data();
    std::vector<double> r(flat.size());
    for (double& v : r) {
      v = scale * test::uniform(g);
    }
    p = r.data();
    test::assign_scalars(e, p);
  }
  return out;
}

template <class E>
std::vector<E> plus(const std::vector<E>& a, const std::vector<E>& b, double s) {
  std::vector<E> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    out[i] = a[i] + b[i] * s;
  }
  return out;
}

/// Forward mode against central differences, and reverse against forward mode, for
/// L = Σ_i ⟨w_i, Op(x, ρ, f)_i⟩ along a random direction of (x, ρ, f). `f` empty: no field.
template <class Op, class F>
void check_derivatives(const Fixture& fx, std::vector<F> f, unsigned seed = 7) {
  constexpr bool has_field = Op::needs_values;
  const exec::host ex;
  const std::int64_t n = fx.size();
  auto g = test::rng(seed);
  const auto dxs = random_like<V2>(g, n, fx.dx);
  const auto drho = random_like<double>(g, n, 1.0);
  std::vector<F> df(f.size());
  if constexpr (has_field) {
    df = random_like<F>(g, n, 1.0);
  }
  using Out = std::decay_t<decltype(apply<Op>(ex, fx.set(), fx.set(), fx.domain, fx.list, view(f),
                                              view(f))[0])>;
  const auto w = random_like<Out>(g, n, 1.0);
  std::vector<double> wflat;
  for (const auto& e : w) {
    test::append_scalars(e, wflat);
  }
  const auto evaluate = [&](double s) {
    const auto xs = plus(fx.x, dxs, s);
    const auto rhos = plus(fx.rho, drho, s);
    const auto set = fx.set().with_positions(view(xs)).with_densities(view(rhos));
    const auto out = [&] {
      if constexpr (has_field) {
        const auto fs = plus(f, df, s);
        return apply<Op>(ex, set, set, fx.domain, fx.list, view(fs), view(fs));
      } else {
        return apply<Op>(ex, set, set, fx.domain, fx.list);
      }
    }();
    std::vector<double> flat;
    for (std::int64_t i = 0; i < n; ++i) {
      test::append_scalars(out[i], flat);
    }
    return dot_all(wflat, flat);
  };
  const double e = 1e-6;
  const double fd = (evaluate(e) - evaluate(-e)) / (2 * e);

  // Forward mode.
  const auto set0 = fx.set();
  const auto paired = set0.with_positions(with_tangents(view(fx.x), view(dxs)))
                          .with_densities(with_tangents(view(fx.rho), view(drho)));
  const auto forward = [&] {
    if constexpr (has_field) {
      const auto fpaired = with_tangents(view(f), view(df));
      return jvp<Op>(ex, paired, paired, fx.domain, fx.list, fpaired, fpaired);
    } else {
      return jvp<Op>(ex, paired, paired, fx.domain, fx.list);
    }
  }();
  std::vector<double> tangent;
  for (std::int64_t i = 0; i < n; ++i) {
    test::append_scalars(forward.tangents[i], tangent);
  }
  const double directional = dot_all(wflat, tangent);
  const double scale = std::max(1.0, std::abs(directional));
  CHECK(std::abs(directional - fd) <= 1e-6 * scale);

  // Reverse mode.
  Tape<exec::host> tape;
  const Variable<V2> xv(fx.x.data(), n);
  const Variable<double> rv(fx.rho.data(), n);
  const auto set = set0.with_positions(xv).with_densities(rv);
  double reverse = 0;
  const auto add_geometry = [&] {
    const auto gx = tape.gradient(xv);
    const auto gr = tape.gradient(rv);
    for (std::int64_t i = 0; i < n; ++i) {
      reverse += dot(gx[i], dxs[std::size_t(i)]) + gr[i] * drho[std::size_t(i)];
    }
  };
  if constexpr (has_field) {
    const Variable<F> fv(f.data(), n);
    tape.backward(record<Op>(tape, set, set, fx.domain, fx.list, fv, fv), view(w));
    add_geometry();
    const auto gf = tape.gradient(fv);
    std::vector<double> a, b;
    for (std::int64_t i = 0; i < n; ++i) {
      test::append_scalars(gf[i], a);
      test::append_scalars(df[std::size_t(i)], b);
    }
    reverse += dot_all(a, b);
  } else {
    tape.backward(record<Op>(tape, set, set, fx.domain, fx.list), view(w));
    add_geometry();
  }
  CHECK(std::abs(reverse - directional) <= 1e-12 * scale);
}

/// Σ_i m_i a_i (linear momentum change): zero for a term antisymmetric in i and j.
double momentum_change(const Fixture& fx, const Buffer<V2, exec::host>& a) {
  V2 s{};
  for (std::int64_t i = 0; i < fx.size(); ++i) {
    s += a[i] * fx.m[std::size_t(i)];
  }
  return norm(s);
}

/// Velocities and sound speeds packed for the artificial viscosity.
std::vector<V3> pack(const std::vector<V2>& u, const std::vector<double>& c) {
  std::vector<V3> out(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    out[i] = solver::PackVelocitySoundSpeed{}(u[i], c[i]);
  }
  return out;
}

} // namespace

TEST_CASE("PressureForce: −∇p/ρ on a lattice, no force from a uniform pressure, momentum kept",
          "[solver][terms]") {
  const exec::host ex;
  Fixture fx(32, 0.0, true);
  const auto set = fx.set();
  std::vector<double> p(fx.x.size()), uniform(fx.x.size(), 3.0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    p[i] = std::sin(two_pi * fx.x[i][0]);
  }
  const auto still = apply<solver::PressureForce<K>>(ex, set, set, fx.domain, fx.list,
                                                     view(uniform), view(uniform));
  double most = 0;
  for (std::int64_t i = 0; i < fx.size(); ++i) {
    most = std::max(most, norm(still[i]));
  }
  CHECK(most < 1e-10);
  for (const auto form : {0, 1}) {
    const auto a = form == 0 ? apply<solver::PressureForce<K>>(ex, set, set, fx.domain, fx.list,
                                                               view(p), view(p))
                             : apply<solver::PressureForce<K, solver::PressureForm::Averaged>>(
                                   ex, set, set, fx.domain, fx.list, view(p), view(p));
    double error = 0;
    for (std::int64_t i = 0; i < fx.size(); ++i) {
      const V2 exact{-two_pi * std::cos(two_pi * fx.x[std::size_t(i)][0]), 0.0};
      error = std::max(error, norm(a[i] - exact));
    }
    CHECK(error < 0.02 * two_pi); // second-order consistent on a regular lattice
  }
  Fixture jittered(16, 0.3, true);
  auto g = test::rng(5);
  jittered.rho = plus(jittered.rho, random_like<double>(g, jittered.size(), 0.1), 1.0);
  const auto pj = random_like<double>(g, jittered.size(), 1.0);
  const auto js = jittered.set();
  CHECK(momentum_change(jittered,
                        apply<solver::PressureForce<K>>(ex, js, js, jittered.domain, jittered.list,
                                                        view(pj), view(pj))) < 1e-12);
}

TEST_CASE("PressureForce: derivatives", "[solver][terms][derivatives]") {
  Fixture fx(10, 0.3, true);
  auto g = test::rng(11);
  fx.rho = plus(fx.rho, random_like<double>(g, fx.size(), 0.1), 1.0);
  const auto p = random_like<double>(g, fx.size(), 1.0);
  check_derivatives<solver::PressureForce<K>>(fx, p);
  check_derivatives<solver::PressureForce<K, solver::PressureForm::Averaged>>(fx, p);
}

using Unregularized = solver::LaminarViscosity<K, 2, SupportScheme::Gather, std::ratio<0>>;

TEST_CASE("LaminarViscosity: ν∇²u on a lattice, momentum kept, derivatives", "[solver][terms]") {
  const exec::host ex;
  Fixture fx(40, 0.0, true);
  std::vector<V2> u(fx.x.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    u[i] = {std::sin(two_pi * fx.x[i][1]), 0.0};
  }
  const auto set = fx.set();
  const auto largest_error = [&](const auto& a) { // against ∇²u = −(2π)² u
    double error = 0;
    for (std::int64_t i = 0; i < fx.size(); ++i) {
      const V2 exact{-two_pi * two_pi * std::sin(two_pi * fx.x[std::size_t(i)][1]), 0.0};
      error = std::max(error, norm(a[i] - exact));
    }
    return error;
  };
  const double error = largest_error(
      apply<solver::LaminarViscosity<K>>(ex, set, set, fx.domain, fx.list, view(u), view(u)));
  CHECK(error < 0.03 * two_pi * two_pi);
  // Without the regularizer the lattice Laplacian loses the ~1 % bias η² puts on the nearest
  // neighbours (the particle itself is skipped).
  CHECK(largest_error(apply<Unregularized>(ex, set, set, fx.domain, fx.list, view(u), view(u))) <
        0.5 * error);

  Fixture jittered(10, 0.3, true);
  auto g = test::rng(13);
  jittered.rho = plus(jittered.rho, random_like<double>(g, jittered.size(), 0.1), 1.0);
  const auto uj = random_like<V2>(g, jittered.size(), 1.0);
  const auto js = jittered.set();
  CHECK(momentum_change(jittered, apply<solver::LaminarViscosity<K>>(ex, js, js, jittered.domain,
                                                                     jittered.list, view(uj),
                                                                     view(uj))) < 1e-12);
  check_derivatives<solver::LaminarViscosity<K>>(jittered, uj);
  check_derivatives<solver::LaminarViscosity<kernels::QuinticSpline, 3>>(jittered, uj);
  check_derivatives<Unregularized>(jittered, uj);
}

/// The laminar viscosity's hand-written transpose of its kernel part (x·Ĝ)/(r² + η²) against
/// dual numbers: the value bit for bit, Ĝ̄, x̄ and h̄ to rounding, for random pairs.
template <class Op>
void check_form_transpose() {
  using D5 = Dual<double, 5>;
  auto g = test::rng(29);
  for (int trial = 0; trial < 50; ++trial) {
    const auto x = random_like<V2>(g, 1, 0.3)[0];
    const auto grad = random_like<V2>(g, 1, 5.0)[0];
    const double h = 0.2 + 0.1 * random_like<double>(g, 1, 1.0)[0];
    const double r = norm(x);
    const auto linear = ops::gradient_form_linearization<Op>(x, r, h, grad);
    const Vec<D5, 2> xd{D5::variable(x[0], 0), D5::variable(x[1], 1)};
    const Vec<D5, 2> gd{D5::variable(grad[0], 2), D5::variable(grad[1], 3)};
    const D5 form = Op::gradient_form(gd, xd, D5(r), D5::variable(h, 4));
    INFO("trial " << trial);
    CHECK(linear.value == form.value);
    CHECK(linear.value == Op::gradient_form(grad, x, r, h));
    const double scale = std::abs(form.value) / (r * r) + 1.0;
    for (int a = 0; a < 2; ++a) {
      CHECK(std::abs(linear.unit.x[a] - form.tangent[a]) <= 1e-13 * scale);
      CHECK(std::abs(linear.unit.gradient[a] - form.tangent[2 + a]) <= 1e-13 * scale);
    }
    CHECK(std::abs(linear.unit.support - form.tangent[4]) <= 1e-13 * scale);
  }
  // Zero at r = 0, value and adjoints.
  const auto zero = ops::gradient_form_linearization<Op>(V2{}, 0.0, 0.2, V2{});
  CHECK(zero.value == 0.0);
  CHECK(zero.unit.x == V2{});
  CHECK(zero.unit.gradient == V2{});
  CHECK(zero.unit.support == 0.0);
}

TEST_CASE("LaminarViscosity: the kernel part's transpose against dual numbers",
          "[solver][terms][reverse]") {
  check_form_transpose<solver::LaminarViscosity<K>>();
  check_form_transpose<Unregularized>();
  check_form_transpose<solver::LaminarViscosity<K, 3, SupportScheme::Gather, std::ratio<1, 10>>>();
}

TEST_CASE("ArtificialViscosity: acts only on approaching pairs, momentum kept, derivatives",
          "[solver][terms]") {
  const exec::host ex;
  Fixture fx(10, 0.3, true);
  auto g = test::rng(17);
  fx.rho = plus(fx.rho, random_like<double>(g, fx.size(), 0.1), 1.0);
  const auto u = random_like<V2>(g, fx.size(), 1.0);
  std::vector<double> c(fx.x.size());
  for (auto& ci : c) {
    ci = 10 + test::uniform(g);
  }
  const auto uc = pack(u, c);
  const auto set = fx.set();
  using AV = solver::ArtificialViscosity<K>;
  const auto a = apply<AV>(ex, set, set, fx.domain, fx.list, view(uc), view(uc));
  CHECK(momentum_change(fx, a) < 1e-12);
  // Separating flow (u = x − ½ in a box without periodicity): no pair approaches, no force.
  Fixture open(10, 0.3, false);
  std::vector<V2> out(open.x.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = open.x[i] - V2{0.5, 0.5};
  }
  const auto uo = pack(out, std::vector<double>(out.size(), 10.0));
  const auto os = open.set();
  const auto none = apply<AV>(ex, os, os, open.domain, open.list, view(uo), view(uo));
  double most = 0;
  for (std::int64_t i = 0; i < open.size(); ++i) {
    most = std::max(most, norm(none[i]));
  }
  CHECK(most == 0.0);
  // Converging flow: every pair approaches; the force decelerates (a · u < 0 in sum).
  const auto ui = pack(plus(std::vector<V2>(out.size(), V2{}), out, -1.0),
                       std::vector<double>(out.size(), 10.0));
  const auto in = apply<AV>(ex, os, os, open.domain, open.list, view(ui), view(ui));
  double power = 0;
  for (std::int64_t i = 0; i < open.size(); ++i) {
    power += dot(in[i], V2{ui[std::size_t(i)][0], ui[std::size_t(i)][1]});
  }
  CHECK(power < 0);
  check_derivatives<AV>(fx, uc);
}

TEST_CASE("ContinuityRate: −ρ∇·u on a lattice, derivatives", "[solver][terms]") {
  const exec::host ex;
  Fixture fx(40, 0.0, true);
  std::vector<V2> u(fx.x.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    u[i] = {std::sin(two_pi * fx.x[i][0]), 0.0};
  }
  const auto set = fx.set();
  const auto volume =
      apply<solver::ContinuityRate<K>>(ex, set, set, fx.domain, fx.list, view(u), view(u));
  const auto mass = apply<solver::ContinuityRate<K, solver::ContinuityForm::Mass>>(
      ex, set, set, fx.domain, fx.list, view(u), view(u));
  double error = 0;
  for (std::int64_t i = 0; i < fx.size(); ++i) {
    const double exact = -two_pi * std::cos(two_pi * fx.x[std::size_t(i)][0]);
    error = std::max({error, std::abs(volume[i] - exact), std::abs(mass[i] - exact)});
  }
  CHECK(error < 0.02 * two_pi);
  Fixture jittered(10, 0.3, true);
  auto g = test::rng(19);
  jittered.rho = plus(jittered.rho, random_like<double>(g, jittered.size(), 0.1), 1.0);
  const auto uj = random_like<V2>(g, jittered.size(), 1.0);
  check_derivatives<solver::ContinuityRate<K>>(jittered, uj);
  check_derivatives<solver::ContinuityRate<K, solver::ContinuityForm::Mass>>(jittered, uj);
}

TEST_CASE("DensityDiffusion: ∇²ρ (Molteni–Colagrossi), zero on a linear density (Antuono)",
          "[solver][terms]") {
  const exec::host ex;
  Fixture fx(40, 0.0, true);
  for (std::size_t i = 0; i < fx.x.size(); ++i) {
    fx.rho[i] = 1 + 0.01 * std::sin(two_pi * fx.x[i][0]);
  }
  const auto set = fx.set();
  const auto mc = apply<solver::DensityDiffusion<K>>(ex, set, set, fx.domain, fx.list);
  double error = 0;
  for (std::int64_t i = 0; i < fx.size(); ++i) {
    const double exact = -0.01 * two_pi * two_pi * std::sin(two_pi * fx.x[std::size_t(i)][0]);
    error = std::max(error, std::abs(mc[i] - exact));
  }
  CHECK(error < 0.03 * 0.01 * two_pi * two_pi);

  // A linear density over jittered particles in a closed box: the renormalized gradient is
  // exact, and Antuono's ψ·∇W vanishes pair by pair; Molteni–Colagrossi's does not.
  Fixture open(14, 0.3, false);
  const V2 slope{0.3, -0.2};
  for (std::size_t i = 0; i < open.x.size(); ++i) {
    open.rho[i] = 1 + dot(slope, open.x[i]);
  }
  const auto os = open.set();
  const auto matrices = corrections::compute_renormalization<K>(ex, os, os, open.domain, open.list);
  const auto grad = apply<ops::Gradient<K, GradientScheme::Difference>>(
      ex, os, os, open.domain, open.list, view(open.rho), view(open.rho), ApplyOptions<double>{},
      ops::Corrections<ops::NoCRK, ops::Renormalization<2, double>>{{}, matrices.state()});
  std::vector<V2> gradient(open.x.size());
  for (std::int64_t i = 0; i < open.size(); ++i) {
    gradient[std::size_t(i)] = grad[i];
  }
  using Antuono = solver::DensityDiffusion<K, solver::DiffusionForm::Antuono>;
  const auto an =
      apply<Antuono>(ex, os, os, open.domain, open.list, view(gradient), view(gradient));
  const auto plain = apply<solver::DensityDiffusion<K>>(ex, os, os, open.domain, open.list);
  double largest_an = 0, largest_mc = 0;
  for (std::int64_t i = 0; i < open.size(); ++i) {
    largest_an = std::max(largest_an, std::abs(an[i]));
    largest_mc = std::max(largest_mc, std::abs(plain[i]));
  }
  CHECK(largest_an < 1e-10);
  CHECK(largest_mc > 1e-2);

  Fixture jittered(10, 0.3, true);
  auto g = test::rng(23);
  jittered.rho = plus(jittered.rho, random_like<double>(g, jittered.size(), 0.1), 1.0);
  check_derivatives<solver::DensityDiffusion<K>>(jittered, std::vector<ops::NoField>{});
  check_derivatives<Antuono>(jittered, random_like<V2>(g, jittered.size(), 1.0));
}

TEST_CASE("AntiClumpingGradient: a pair closer than Δx pushed apart R (W_ij/W(Δx))⁴ harder",
          "[solver][terms]") {
  const exec::host ex;
  const double dx = 0.1, h = 0.3;
  const std::vector<V2> x{{0.5, 0.5}, {0.53, 0.5}};
  const std::vector<double> hs(2, h), m(2, dx * dx), rho(2, 1.0);
  const std::vector<std::int32_t> kinds(2, 0);
  const Domain<2, double> domain{{0, 0}, {1, 1}, {false, false}};
  const auto set =
      ParticleSet<2, double>{view(x), view(hs), view(m), view(kinds)}.with_densities(view(rho));
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                               set.search_points(), domain);
  const std::vector<V2> field(2, V2{dx, 0.2});
  const auto plain = apply<solver::ConcentrationGradient<K>>(ex, set, set, domain, list);
  const auto pushed =
      apply<solver::AntiClumpingGradient<K>>(ex, set, set, domain, list, view(field), view(field));
  const double ratio = K::k<2>(0.03 / h) / K::k<2>(dx / h);
  CHECK(pushed[0][0] == Approx(plain[0][0] * (1 + 0.2 * std::pow(ratio, 4))).epsilon(1e-12));
  CHECK(pushed[0][0] > plain[0][0]); // toward the close neighbour: the shift −∇C moves away
  CHECK(plain[0][0] > 0);
}

TEST_CASE("Shifting terms: ∇C = 0 and ∇·r = D on a lattice, smaller at a free surface",
          "[solver][terms]") {
  const exec::host ex;
  Fixture fx(20, 0.0, true);
  const auto set = fx.set();
  const auto grad_c = apply<solver::ConcentrationGradient<K>>(ex, set, set, fx.domain, fx.list);
  const auto div_r = apply<solver::PositionDivergence<K>>(ex, set, set, fx.domain, fx.list);
  double most = 0, off = 0;
  for (std::int64_t i = 0; i < fx.size(); ++i) {
    most = std::max(most, norm(grad_c[i]));
    off = std::max(off, std::abs(div_r[i] - 2));
  }
  CHECK(most < 1e-10);
  CHECK(off < 0.02);
  Fixture open(20, 0.0, false);
  const auto os = open.set();
  const auto edge = apply<solver::PositionDivergence<K>>(ex, os, os, open.domain, open.list);
  CHECK(edge[0] < 1.5); // a corner particle
  Fixture jittered(10, 0.3, true);
  auto g = test::rng(29);
  jittered.rho = plus(jittered.rho, random_like<double>(g, jittered.size(), 0.1), 1.0);
  check_derivatives<solver::ConcentrationGradient<K>>(jittered, std::vector<ops::NoField>{});
  // The anti-clumping form: the plain gradient for R = 0; derivatives through (Δx, R) too.
  const auto js = jittered.set();
  std::vector<V2> no_clumping(jittered.x.size(), V2{jittered.dx, 0.0});
  const auto plain =
      apply<solver::ConcentrationGradient<K>>(ex, js, js, jittered.domain, jittered.list);
  const auto with_r0 = apply<solver::AntiClumpingGradient<K>>(
      ex, js, js, jittered.domain, jittered.list, view(no_clumping), view(no_clumping));
  double apart = 0;
  for (std::int64_t i = 0; i < jittered.size(); ++i) {
    apart = std::max(apart, norm(plain[i] - with_r0[i]));
  }
  CHECK(apart < 1e-12);
  std::vector<V2> clumping(jittered.x.size(), V2{jittered.dx, 0.2});
  check_derivatives<solver::AntiClumpingGradient<K>>(jittered, clumping);
  check_derivatives<solver::PositionDivergence<K>>(jittered, std::vector<ops::NoField>{});
}

TEST_CASE("WallSums: Adami's extrapolation reproduces a hydrostatic pressure on the walls; "
          "derivatives",
          "[solver][terms][walls]") {
  const exec::host ex;
  // A column of depth H at rest over the floor of a tank 1 wide, three wall layers around it.
  const double dx = 0.05, depth = 0.6, rho0 = 1000, g = 9.81;
  const auto fluid = sampling::box_block<2>(V2{0, 0}, V2{1, depth}, dx);
  const auto walls = sampling::box_walls<2>(V2{0, 0}, V2{1, 1}, dx, 3, {false, true});
  std::vector<V2> x = fluid;
  x.insert(x.end(), walls.begin(), walls.end());
  const std::size_t n = x.size(), nf = fluid.size();
  std::vector<double> h(n, 3 * dx), m(n, rho0 * dx * dx), rho(n, rho0), p(n, 0.0);
  std::vector<std::int32_t> kinds(n, 0);
  for (std::size_t i = nf; i < n; ++i) {
    kinds[i] = 1;
  }
  std::vector<V3> field(n);
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = i < nf ? rho0 * g * (depth - x[i][1]) : 1e9; // walls' own values are never read
    field[i] = solver::PackPressureVelocity{}(p[i], V2{0.5, -0.25});
  }
  const ParticleSet<2, double> set =
      ParticleSet<2, double>{view(x), view(h), view(m), view(kinds)}.with_densities(view(rho));
  const Domain<2, double> domain{{-1, -1}, {2, 2}, {false, false}};
  const auto points = set.search_points();
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, points, points, domain);
  const auto sums =
      apply<solver::WallSums<K>>(ex, set, set, domain, list, view(field), view(field),
                                 ApplyOptions<double>{OperationDirection::FluidToBoundary});
  const solver::WallPressure<2> pressure{{0, -g}};
  const solver::NoSlipVelocity<2> no_slip;
  std::size_t reached = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double pw = pressure(sums[std::int64_t(i)], p[i], kinds[i]);
    const V2 uw = no_slip(sums[std::int64_t(i)], V2{0, 0}, kinds[i]);
    if (i < nf) { // fluid rows: nothing summed, values kept
      CHECK(norm(sums[std::int64_t(i)]) == 0);
      CHECK(pw == p[i]);
      CHECK(uw == V2{0, 0});
    } else if (sums[std::int64_t(i)][5] > 0) {
      ++reached;
      // Σ_f [ρg(H − y_f) − ρg(y_w − y_f)] W / Σ_f W = ρg(H − y_w), for any neighbourhood.
      CHECK(pw == Approx(rho0 * g * (depth - x[i][1])).epsilon(1e-12));
      CHECK(uw[0] == Approx(-0.5).epsilon(1e-12)); // 2·0 − û
      CHECK(uw[1] == Approx(0.25).epsilon(1e-12));
    } else {
      CHECK(pw == 0); // no fluid in reach
    }
  }
  CHECK(reached > 2 * std::size_t(1 / dx));
  // Derivatives through positions, densities and (p, u).
  Fixture jittered(10, 0.3, false);
  auto r = test::rng(23);
  jittered.rho = plus(jittered.rho, random_like<double>(r, jittered.size(), 0.1), 1.0);
  check_derivatives<solver::WallSums<K>>(jittered, random_like<V3>(r, jittered.size(), 1.0));
}

namespace {
/// The Taylor–Green rates that share Ĝ_ij, fused over the field (p, u, ρ): the pressure force,
/// the continuity rate, ∇u and ∇ρ (difference gradients), and ∇C (no field).
using Difference = ops::Gradient<K, GradientScheme::Difference>;
using FusedRates = ops::Fused<ops::Slot<solver::PressureForce<K>, 0, 1>,
                              ops::Slot<solver::ContinuityRate<K>, 1, 2>,
                              ops::Slot<Difference, 1, 2>,
                              ops::Slot<Difference, 3, 1>,
                              ops::Slot<solver::ConcentrationGradient<K>, 0, 0>>;
using V4 = Vec<double, 4>;

std::vector<V4> pack_fields(const std::vector<double>& p,
                            const std::vector<V2>& u,
                            const std::vector<double>& rho) {
  std::vector<V4> out(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    out[i] = {p[i], u[i][0], u[i][1], rho[i]};
  }
  return out;
}

/// The flat scalars of every element of `values` (term k's part of a fused output, or a term's
/// own output).
template <class E>
std::vector<double> scalars_of(const std::vector<E>& values) {
  std::vector<double> out;
  for (const auto& e : values) {
    test::append_scalars(e, out);
  }
  return out;
}
template <class Op, int Part, class Y>
auto part_of_fused(const Y& fused, std::int64_t n) {
  using E = std::decay_t<decltype(Op::template part<Part, 2>(fused[0]))>;
  std::vector<E> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    out[std::size_t(i)] = Op::template part<Part, 2>(fused[i]);
  }
  return out;
}
template <int Part, class Y>
auto part_of(const Y& fused, std::int64_t n) {
  return part_of_fused<FusedRates, Part>(fused, n);
}
template <class B>
auto to_vector(const B& buffer, std::int64_t n) {
  std::vector<std::decay_t<decltype(buffer[0])>> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    out[std::size_t(i)] = buffer[i];
  }
  return out;
}
} // namespace

TEST_CASE("Fused: each term the bits of its own call; derivatives", "[solver][terms][fused]") {
  const exec::host ex;
  Fixture fx(12, 0.3, true);
  auto g = test::rng(41);
  fx.rho = plus(fx.rho, random_like<double>(g, fx.size(), 0.1), 1.0);
  const auto p = random_like<double>(g, fx.size(), 1.0);
  const auto u = random_like<V2>(g, fx.size(), 1.0);
  const auto field = pack_fields(p, u, fx.rho);
  const auto set = fx.set();
  const std::int64_t n = fx.size();
  const auto fused = apply<FusedRates>(ex, set, set, fx.domain, fx.list, view(field), view(field));
  static_assert(std::is_same_v<std::decay_t<decltype(fused[0])>, Vec<double, 2 + 1 + 4 + 2 + 2>>);

  SECTION("primal: bitwise the separate calls") {
    const auto a_p =
        apply<solver::PressureForce<K>>(ex, set, set, fx.domain, fx.list, view(p), view(p));
    const auto drho =
        apply<solver::ContinuityRate<K>>(ex, set, set, fx.domain, fx.list, view(u), view(u));
    const auto grad_u = apply<Difference>(ex, set, set, fx.domain, fx.list, view(u), view(u));
    const auto grad_rho =
        apply<Difference>(ex, set, set, fx.domain, fx.list, view(fx.rho), view(fx.rho));
    const auto grad_c = apply<solver::ConcentrationGradient<K>>(ex, set, set, fx.domain, fx.list);
    CHECK(scalars_of(part_of<0>(fused, n)) == scalars_of(to_vector(a_p, n)));
    CHECK(scalars_of(part_of<1>(fused, n)) == scalars_of(to_vector(drho, n)));
    CHECK(scalars_of(part_of<2>(fused, n)) == scalars_of(to_vector(grad_u, n)));
    CHECK(scalars_of(part_of<3>(fused, n)) == scalars_of(to_vector(grad_rho, n)));
    CHECK(scalars_of(part_of<4>(fused, n)) == scalars_of(to_vector(grad_c, n)));
  }
  SECTION("a kind filter and the reverse pass's gradients the separate calls'") {
    // The fluid rows over fluid neighbours only (a fifth of the set is wall): the fused call's
    // weighted gradient equals the sum of the separate calls' gradients.
    for (std::size_t i = 0; i < fx.kinds.size(); i += 5) {
      fx.kinds[i] = std::int32_t(ParticleKind::Boundary);
    }
    const auto w = random_like<Vec<double, 11>>(g, n, 1.0);
    const auto filter = OperationDirection::FluidToFluid;
    const Variable<V2> xv(fx.x.data(), n);
    const Variable<double> rv(fx.rho.data(), n);
    const auto tracked = fx.set().with_positions(xv).with_densities(rv);
    Tape<exec::host> tape;
    const Variable<V4> fv(field.data(), n);
    const auto pairs = ops::pairs(tracked, fx.domain, fx.list, ApplyOptions<double>{filter});
    tape.backward(record<FusedRates>(tape, pairs, fv), view(w));
    const auto gx = to_vector(tape.gradient(xv), n);
    const auto gr = to_vector(tape.gradient(rv), n);
    const auto gf = to_vector(tape.gradient(fv), n);

    const Variable<double> pv(p.data(), n);
    const Variable<V2> uv(u.data(), n);
    // Each term recorded on its own tape, weighted by its slice of w; the gradients summed.
    std::vector<V2> sx(static_cast<std::size_t>(n));
    std::vector<double> sr(static_cast<std::size_t>(n)), sp(static_cast<std::size_t>(n));
    std::vector<V2> su(static_cast<std::size_t>(n));
    const auto add_term = [&](auto part, auto term, auto add_field) {
      constexpr int P = decltype(part)::value;
      using E = std::decay_t<decltype(FusedRates::part<P, 2>(w[0]))>;
      std::vector<E> wk(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        wk[std::size_t(i)] = FusedRates::part<P, 2>(w[std::size_t(i)]);
      }
      Tape<exec::host> separate;
      separate.backward(term(separate), view(wk));
      separate.add_gradient(xv, Span<V2>{sx.data(), n});
      separate.add_gradient(rv, Span<double>{sr.data(), n});
      add_field(separate);
    };
    const auto p_field = [&](const auto& t) { t.add_gradient(pv, Span<double>{sp.data(), n}); };
    const auto u_field = [&](const auto& t) { t.add_gradient(uv, Span<V2>{su.data(), n}); };
    const auto no_field = [](const auto&) {};
    add_term(
        std::integral_constant<int, 0>{},
        [&](auto& t) { return record<solver::PressureForce<K>>(t, pairs, pv); }, p_field);
    add_term(
        std::integral_constant<int, 1>{},
        [&](auto& t) { return record<solver::ContinuityRate<K>>(t, pairs, uv); }, u_field);
    add_term(
        std::integral_constant<int, 2>{}, [&](auto& t) { return record<Difference>(t, pairs, uv); },
        u_field);
    add_term(
        std::integral_constant<int, 3>{}, [&](auto& t) { return record<Difference>(t, pairs, rv); },
        no_field);
    add_term(
        std::integral_constant<int, 4>{},
        [&](auto& t) { return record<solver::ConcentrationGradient<K>>(t, pairs); }, no_field);
    double scale = 0, error = 0;
    for (std::size_t i = 0; i < std::size_t(n); ++i) {
      // ρ enters as the densities and as the fused field's fourth component (∇ρ's field).
      const double fused_rho = gr[i] + gf[i][3];
      const double values[] = {gx[i][0], gx[i][1], fused_rho, gf[i][0], gf[i][1], gf[i][2]};
      const double expected[] = {sx[i][0], sx[i][1], sr[i], sp[i], su[i][0], su[i][1]};
      for (int k = 0; k < 6; ++k) {
        scale = std::max(scale, std::abs(expected[k]));
        error = std::max(error, std::abs(values[k] - expected[k]));
      }
    }
    CHECK(scale > 0);
    CHECK(error <= 1e-13 * scale);
  }
  SECTION("forward mode against differences, reverse against forward") {
    check_derivatives<FusedRates>(fx, field);
  }
  SECTION("grad-h refused when only some terms use it, applied when all do") {
    const std::vector<double> omega(static_cast<std::size_t>(n), 2.0);
    const ops::Corrections<ops::NoCRK, ops::NoRenormalization, ops::GradH<double>> grad_h{
        {}, {}, {view(omega), view(omega)}};
    const auto pairs = ops::pairs(set, fx.domain, fx.list);
    CHECK_THROWS_WITH(apply<FusedRates>(ex, pairs, view(field), view(field), grad_h),
                      Catch::Contains("argument `corrections.grad_h`: is given to an operator "
                                      "that cannot apply it to every term"));
    using Gradients = ops::Fused<ops::Slot<Difference, 1, 2>, ops::Slot<Difference, 3, 1>>;
    const auto both = apply<Gradients>(ex, pairs, view(field), view(field), grad_h);
    const auto grad_u = apply<Difference>(ex, pairs, view(u), view(u), grad_h);
    CHECK(scalars_of(part_of_fused<Gradients, 0>(both, n)) == scalars_of(to_vector(grad_u, n)));
  }
}

namespace {
/// Terms with other kernel parts fused into one whole pair term over the field (p, u, c, Δx, R):
/// the pressure force (Ĝ), the continuity rate (Ĝ), the laminar viscosity (a gradient form), the
/// artificial viscosity and the density diffusion (kernel parts of their own) and the
/// anti-clumping gradient (a whole term).
using V6 = Vec<double, 6>;
using Laminar = solver::LaminarViscosity<K>;
using MixedRates = ops::Fused<ops::Slot<solver::PressureForce<K>, 0, 1>,
                              ops::Slot<solver::ContinuityRate<K>, 1, 2>,
                              ops::Slot<Laminar, 1, 2>,
                              ops::Slot<solver::ArtificialViscosity<K>, 1, 3>,
                              ops::Slot<solver::DensityDiffusion<K>, 0, 0>,
                              ops::Slot<solver::AntiClumpingGradient<K>, 4, 2>>;
static_assert(!ops::splits_term_v<MixedRates> && ops::transposed_term_v<MixedRates> &&
              MixedRates::lanewise_term);
} // namespace

TEST_CASE("Fused: terms with other kernel parts, one whole term; the bits of their own calls; "
          "derivatives",
          "[solver][terms][fused]") {
  const exec::host ex;
  Fixture fx(12, 0.3, true);
  auto g = test::rng(43);
  fx.rho = plus(fx.rho, random_like<double>(g, fx.size(), 0.1), 1.0);
  const std::int64_t n = fx.size();
  const auto p = random_like<double>(g, n, 1.0);
  const auto u = random_like<V2>(g, n, 1.0);
  const auto count = static_cast<std::size_t>(n);
  std::vector<double> c(count);
  std::vector<V2> clumping(count);
  for (std::size_t i = 0; i < count; ++i) {
    c[i] = 10 + 0.1 * test::uniform(g);
    clumping[i] = {fx.dx * (1 + 0.2 * test::uniform(g)), 0.2 + 0.1 * test::uniform(g)};
  }
  std::vector<V6> field(count);
  for (std::size_t i = 0; i < count; ++i) {
    field[i] = {p[i], u[i][0], u[i][1], c[i], clumping[i][0], clumping[i][1]};
  }
  const auto set = fx.set();

  SECTION("primal: bitwise the separate calls") {
    const auto fused =
        apply<MixedRates>(ex, set, set, fx.domain, fx.list, view(field), view(field));
    static_assert(std::is_same_v<std::decay_t<decltype(fused[0])>, Vec<double, 10>>);
    const auto uc = pack(u, c);
    const auto run = [&](auto op, const auto& f) {
      return apply<decltype(op)>(ex, set, set, fx.domain, fx.list, view(f), view(f));
    };
    const auto part = [&](auto k) {
      return scalars_of(part_of_fused<MixedRates, decltype(k)::value>(fused, n));
    };
    using C = std::integral_constant<int, 0>;
    CHECK(part(C{}) == scalars_of(to_vector(run(solver::PressureForce<K>{}, p), n)));
    CHECK(part(std::integral_constant<int, 1>{}) ==
          scalars_of(to_vector(run(solver::ContinuityRate<K>{}, u), n)));
    CHECK(part(std::integral_constant<int, 2>{}) == scalars_of(to_vector(run(Laminar{}, u), n)));
    CHECK(part(std::integral_constant<int, 3>{}) ==
          scalars_of(to_vector(run(solver::ArtificialViscosity<K>{}, uc), n)));
    CHECK(part(std::integral_constant<int, 4>{}) ==
          scalars_of(
              to_vector(apply<solver::DensityDiffusion<K>>(ex, set, set, fx.domain, fx.list), n)));
    CHECK(part(std::integral_constant<int, 5>{}) ==
          scalars_of(to_vector(run(solver::AntiClumpingGradient<K>{}, clumping), n)));
  }
  SECTION("forward mode against differences, reverse (the terms' transposes) against forward") {
    check_derivatives<MixedRates>(fx, field);
  }
  SECTION("a term without a transpose: the whole term in dual numbers, the same derivatives") {
    using Untransposed =
        ops::Fused<ops::Slot<solver::PressureForce<K>, 0, 1>, ops::Slot<Laminar, 1, 2>,
                   ops::Slot<ops::Gradient<K, GradientScheme::Symmetric>, 0, 1>>;
    static_assert(!ops::transposed_term_v<Untransposed>);
    check_derivatives<Untransposed>(fx, field);
  }
}
