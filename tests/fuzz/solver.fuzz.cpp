// SPDX-License-Identifier: MIT
// Fuzz target: the solver's pair terms, time-step rules and equations of state over hostile
// particle values — 0–8 particles with arbitrary positions (periodic box or not), supports,
// masses, densities (zero among them) and fields (NaN, ±∞, ±1e308, denormals, −0); random rule
// coefficients and step inputs; Tait and linear equations of state on dual numbers.
// Checks, beyond no crash, leak or undefined behaviour (InvalidArgument is an accepted outcome):
// - a term gives the same bits twice, and its JVP's primal is those bits (any NaN for a NaN);
// - where every input is finite and moderate (|value| ≤ 1e3, supports ≥ 1e-3, densities 0 or
//   |ρ| ≥ 1e-3 — a denormal density's 1/ρ² overflows honestly; zero densities and coincident
//   particles included), every output, tangent and adjoint is finite;
// - the time-step limits are positive (not NaN, not negative) whenever they are returned;
// - max_norm is NaN exactly when some |v_i| is, else the largest |v_i|;
// - Tait (γ = 1 or 7) and the linear equation of state have finite derivatives wherever their
//   value is finite, for ρ ≥ 0 and parameters in a physical range (any values are evaluated).
#include <sphad/ops.hpp>
#include <sphad/search.hpp>
#include <sphad/solver.hpp>

#include "fuzz_input.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

using namespace sphad;

namespace {

constexpr int D = 2;
using V = Vec<double, D>;
using V3 = Vec<double, 3>;
using K = kernels::Wendland4;

template <class E>
Span<const E> view(const std::vector<E>& v) {
  return {v.data(), std::int64_t(v.size())};
}

/// Every scalar of an element, as doubles.
template <class E>
void scalars_of(const E& e, std::vector<double>& out) {
  if constexpr (std::is_floating_point_v<E>) {
    out.push_back(e);
  } else {
    for (int k = 0; k < E::dim; ++k) {
      out.push_back(e[k]);
    }
  }
}

bool all_finite(const std::vector<double>& v) {
  for (const double x : v) {
    if (!std::isfinite(x)) {
      return false;
    }
  }
  return true;
}

/// The same bits, or both NaN (a NaN's sign and payload depend on the path that made it).
bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(std::isnan(a[i]) && std::isnan(b[i])) && !fuzz::same_bits(&a[i], &b[i], 1)) {
      return false;
    }
  }
  return true;
}

bool moderate(double x) {
  return std::isfinite(x) && std::abs(x) <= 1e3;
}

struct Particles {
  std::int64_t n = 0;
  std::vector<V> x, dx;
  std::vector<double> h, m, rho, drho;
  std::vector<std::int32_t> kinds;
  bool tame = true; ///< every value finite and moderate (supports ≥ 1e-3)

  ParticleSet<D, double> set() const {
    return ParticleSet<D, double>{view(x), view(h), view(m), view(kinds)}.with_densities(view(rho));
  }
};

/// The field of a term: random values of its element type, with a tangent direction.
template <class F>
struct Field {
  std::vector<F> values, tangents;
};
template <class F>
Field<F> field(fuzz::Bytes& in, std::int64_t n, bool& tame) {
  Field<F> f;
  for (std::int64_t i = 0; i < n; ++i) {
    F v{}, t{};
    if constexpr (std::is_floating_point_v<F>) {
      v = in.real(-10, 10);
      t = in.real(-1, 1);
      tame = tame && moderate(v) && moderate(t);
    } else {
      for (int k = 0; k < F::dim; ++k) {
        v[k] = in.real(-10, 10);
        t[k] = in.real(-1, 1);
        tame = tame && moderate(v[k]) && moderate(t[k]);
      }
    }
    f.values.push_back(v);
    f.tangents.push_back(t);
  }
  return f;
}

/// Prints a finding's particles, field and results (to read the input that reached it).
template <class F>
void dump(const Particles& p,
          const Field<F>& f,
          const std::vector<double>& values,
          const std::vector<double>& derivatives) {
  for (std::int64_t i = 0; i < p.n; ++i) {
    const auto k = std::size_t(i);
    std::vector<double> field;
    scalars_of(f.values[k], field);
    std::fprintf(stderr, "particle %lld: x (%a, %a) dx (%a, %a) h %a m %a rho %a drho %a kind %d",
                 static_cast<long long>(i), p.x[k][0], p.x[k][1], p.dx[k][0], p.dx[k][1], p.h[k],
                 p.m[k], p.rho[k], p.drho[k], int(p.kinds[k]));
    for (const double v : field) {
      std::fprintf(stderr, " f %a", v);
    }
    std::fprintf(stderr, "\n");
  }
  for (const double v : values) {
    std::fprintf(stderr, "value %g\n", v);
  }
  for (const double v : derivatives) {
    std::fprintf(stderr, "derivative %g\n", v);
  }
}

/// apply twice, jvp, record and backward for one term; the checks of the header.
template <class Op, class F>
void check_term(const Particles& p,
                const Field<F>& f,
                bool tame,
                const Domain<D, double>& domain,
                const NeighborList<exec::host>& list) {
  const exec::host ex;
  const auto set = p.set();
  using Out = decltype(apply<Op>(ex, set, set, domain, list, view(f.values), view(f.values)));
  Out first, second;
  if (!fuzz::accepts(
          [&] { first = apply<Op>(ex, set, set, domain, list, view(f.values), view(f.values)); })) {
    return;
  }
  second = apply<Op>(ex, set, set, domain, list, view(f.values), view(f.values));
  if (!fuzz::same_bits(first.data(), second.data(), first.size())) {
    fuzz::finding("a solver term gave other bits the second time");
  }
  std::vector<double> primal;
  for (std::int64_t i = 0; i < first.size(); ++i) {
    scalars_of(first[i], primal);
  }
  if (tame && !all_finite(primal)) {
    dump(p, f, primal, {});
    fuzz::finding("a solver term is not finite over finite, moderate inputs");
  }

  // Forward mode through positions, densities and the field at once.
  const auto moving = set.with_positions(with_tangents(view(p.x), view(p.dx)))
                          .with_densities(with_tangents(view(p.rho), view(p.drho)));
  const auto paired = with_tangents(view(f.values), view(f.tangents));
  const auto forward = jvp<Op>(ex, moving, moving, domain, list, paired, paired);
  std::vector<double> jvp_primal;
  for (std::int64_t i = 0; i < forward.primal.size(); ++i) {
    scalars_of(forward.primal[i], jvp_primal);
  }
  if (!same_values(jvp_primal, primal)) {
    dump(p, f, primal, jvp_primal);
    fuzz::finding("a solver term's JVP primal differs from apply");
  }
  std::vector<double> tangent;
  for (std::int64_t i = 0; i < forward.tangents.size(); ++i) {
    scalars_of(forward.tangents[i], tangent);
  }
  if (tame && !all_finite(tangent)) {
    dump(p, f, primal, tangent);
    fuzz::finding("a solver term's tangent is not finite where its value is");
  }

  // Reverse mode, seeded with ones.
  Tape<exec::host> tape;
  const Variable<V> xv(p.x.data(), p.n);
  const Variable<double> rv(p.rho.data(), p.n);
  const Variable<F> fv(f.values.data(), p.n);
  const auto tracked = set.with_positions(xv).with_densities(rv);
  const auto out = record<Op>(tape, tracked, tracked, domain, list, fv, fv);
  using E = std::remove_const_t<std::remove_pointer_t<decltype(out.data())>>;
  E one{};
  if constexpr (std::is_floating_point_v<E>) {
    one = 1.0;
  } else {
    for (int k = 0; k < E::dim; ++k) {
      one[k] = 1.0;
    }
  }
  const std::vector<E> seed(std::size_t(out.size()), one);
  tape.backward(out, view(seed));
  std::vector<double> adjoint;
  for (std::int64_t i = 0; i < p.n; ++i) {
    scalars_of(tape.gradient(xv)[i], adjoint);
    scalars_of(tape.gradient(rv)[i], adjoint);
    scalars_of(tape.gradient(fv)[i], adjoint);
  }
  if (tame && !all_finite(adjoint)) {
    dump(p, f, primal, adjoint);
    fuzz::finding("a solver term's adjoint is not finite where its value is");
  }
}

void check_time_step(fuzz::Bytes& in) {
  const solver::TimeStepInputs inputs{in.real(1e-4, 1), in.real(0, 100), in.real(0, 10),
                                      in.real(0, 100), in.real(0, 1)};
  const solver::TimeStepRules rules{in.real(0, 1), in.real(0, 1), in.real(0, 1)};
  solver::TimeStepLimits limits;
  if (!fuzz::accepts([&] { limits = solver::time_step_limits(inputs, rules); })) {
    return;
  }
  for (const double l : {limits.acoustic, limits.viscous, limits.force, limits.step()}) {
    if (!(l > 0)) { // NaN, zero or negative
      fuzz::finding("time_step_limits returned a step that is not positive");
    }
  }
}

void check_max_norm(const std::vector<V>& v) {
  bool any_nan = false;
  double largest = 0;
  for (const V& e : v) {
    const double s = std::sqrt(e[0] * e[0] + e[1] * e[1]);
    any_nan = any_nan || std::isnan(s);
    largest = s > largest ? s : largest;
  }
  const double got = solver::max_norm(exec::host{}, view(v));
  // The norms may be summed with or without a fused multiply-add: equal to rounding.
  const bool near = got == largest || std::abs(got - largest) <= 1e-14 * largest;
  if (any_nan ? !std::isnan(got) : !near) {
    fuzz::finding("max_norm is not the largest norm, or hid a NaN");
  }
}

/// The EOS's pressure and sound speed on a dual ρ; `physical` (ρ₀, c₀ in [1e-3, 1e4], ρ ≥ 0
/// finite) asks for finite derivatives wherever the values are finite (outside that range a
/// derivative like B·γx^(γ−1)/ρ₀ with ρ₀ denormal overflows before B = 0 can cancel it).
template <class EOS>
void check_eos(const EOS& eos, double rho, bool physical) {
  using D1 = Dual<double, 1>;
  const auto p = eos.pressure(D1(rho, {1.0}));
  const auto c = eos.sound_speed(D1(rho, {1.0}));
  if (physical && ((std::isfinite(p.value) && !std::isfinite(p.tangent[0])) ||
                   (std::isfinite(c.value) && !std::isfinite(c.tangent[0])))) {
    std::fprintf(stderr, "rho %g: p %g (%g), c %g (%g)\n", rho, p.value, p.tangent[0], c.value,
                 c.tangent[0]);
    fuzz::finding("an equation of state's derivative is not finite where its value is");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  Particles p;
  p.n = in.small(0, 8);
  const bool periodic = in.flag();
  const Domain<D, double> domain{{0, 0}, {1, 1}, {periodic, periodic}};
  for (std::int64_t i = 0; i < p.n; ++i) {
    p.x.push_back(in.point<D>(-0.2, 1.2));
    p.dx.push_back(in.point<D>(-1, 1));
    p.h.push_back(in.real(0.05, 0.45));
    p.m.push_back(in.real(0, 0.1));
    p.rho.push_back(in.real(0, 2)); // 0 among them
    p.drho.push_back(in.real(-1, 1));
    p.kinds.push_back(std::int32_t(in.small(0, 1)));
    const auto& x = p.x.back();
    p.tame = p.tame && moderate(x[0]) && moderate(x[1]) && moderate(p.dx.back()[0]) &&
             moderate(p.dx.back()[1]) && p.h.back() >= 1e-3 && moderate(p.h.back()) &&
             moderate(p.m.back()) && moderate(p.rho.back()) &&
             (p.rho.back() == 0 || std::abs(p.rho.back()) >= 1e-3) && moderate(p.drho.back());
  }
  NeighborList<exec::host> list;
  const bool searched = fuzz::accepts([&] {
    list = build_neighbor_list<SupportScheme::SuperSymmetric>(exec::host{}, p.set().search_points(),
                                                              p.set().search_points(), domain);
  });
  if (searched) {
    bool tame = p.tame;
    switch (in.small(0, 5)) {
    case 0: {
      const auto f = field<double>(in, p.n, tame);
      check_term<solver::PressureForce<K>>(p, f, tame, domain, list);
      check_term<solver::PressureForce<K, solver::PressureForm::Averaged>>(p, f, tame, domain,
                                                                           list);
      break;
    }
    case 1:
      check_term<solver::LaminarViscosity<K>>(p, field<V>(in, p.n, tame), tame, domain, list);
      break;
    case 2:
      check_term<solver::ArtificialViscosity<K>>(p, field<V3>(in, p.n, tame), tame, domain, list);
      break;
    case 3:
      check_term<solver::ContinuityRate<K>>(p, field<V>(in, p.n, tame), tame, domain, list);
      break;
    case 4:
      check_term<solver::DensityDiffusion<K, solver::DiffusionForm::Antuono>>(
          p, field<V>(in, p.n, tame), tame, domain, list);
      break;
    default:
      check_term<solver::AntiClumpingGradient<K>>(p, field<V>(in, p.n, tame), tame, domain, list);
      break;
    }
  }
  check_time_step(in);
  check_max_norm(p.x);
  const double gamma = in.flag() ? 7.0 : 1.0;
  const double rho0 = in.real(0.5, 2000), c0 = in.real(0.1, 100);
  const double rho = std::abs(in.real(0, 3000));
  const auto in_range = [](double v) { return std::isfinite(v) && v >= 1e-3 && v <= 1e4; };
  const bool physical = in_range(rho0) && in_range(c0) && std::isfinite(rho) && rho <= 1e4;
  check_eos(solver::Tait<>{rho0, c0, gamma, 0.0}, rho, physical);
  check_eos(solver::LinearEOS<>{rho0, c0, 0.0}, rho, physical);
  return 0;
}
