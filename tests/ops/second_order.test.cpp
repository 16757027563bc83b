// SPDX-License-Identifier: MIT
// A tape over dual numbers (issue #8): forward over reverse gives the Hessian-vector
// product of any scalar loss built from recorded operators; read the other way round it is
// reverse over forward — gradients of a loss on a JVP output with respect to the primal and
// the tangent inputs.
#include "ops/derivative_matrix.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace sphad;
using test::view_of;

namespace {

using Kernel = kernels::Wendland4;
using D1 = Dual<double, 1>;
using V2 = Vec<double, 2>;
using VD = Vec<D1, 2>;
using Density = ops::Density<Kernel>;
using Gradient = ops::Gradient<Kernel, GradientScheme::Symmetric>;

/// Dual elements: value `v`, tangent `t`.
template <class E>
std::vector<rebind_scalar_t<E, D1>> duals(const std::vector<E>& v, const std::vector<E>& t) {
  std::vector<rebind_scalar_t<E, D1>> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    out.push_back(with_tangents(Span<const E>{&v[i], 1}, Span<const E>{&t[i], 1})[0]);
  }
  return out;
}

/// The loss L(x) = Σ ½ ρ_i² + Σ c_i · ∇f_i with ρ = Density(x), ∇f = Gradient(x, ρ, f), recorded
/// on `tape` with positions `x` (plain or dual elements); returns the positions' gradient after
/// one backward (for dual elements: value ∇L, tangent H · (x's tangent)).
template <class E>
std::vector<Vec<E, 2>>
loss_gradient(const test::JVPInputs<2>& in, std::vector<Vec<E, 2>> x, const std::vector<V2>& c) {
  const auto n = std::int64_t(x.size());
  Tape<exec::host> tape;
  const Variable<Vec<E, 2>> xv(x.data(), n);
  const ParticleSet<2, double> plain{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const auto set = plain.with_positions(xv);
  const auto rho = record<Density>(tape, set, set, in.domain, in.list);
  const auto with_rho = set.with_densities(rho);
  const auto g = record<Gradient>(tape, with_rho, with_rho, in.domain, in.list, view_of(in.f.value),
                                  view_of(in.f.value));
  std::vector<Vec<E, 2>> seed_g;
  for (const auto& ci : c) {
    seed_g.push_back(sphad::detail::convert_scalars<Vec<E, 2>>(ci));
  }
  // ∂L/∂ρ_i = ρ_i: for dual ρ its tangent carries along (the loss is differentiated too).
  tape.backward(BackwardOptions{}, Seed<E>{rho, rho.span()},
                Seed<Vec<E, 2>>{g, {seed_g.data(), n}});
  const auto gx = tape.gradient(xv);
  return std::vector<Vec<E, 2>>(gx.data(), gx.data() + n);
}

std::vector<V2> random_vectors(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<V2> out(n);
  for (auto& v : out) {
    v = V2{u(rng), u(rng)};
  }
  return out;
}

} // namespace

TEST_CASE("record on dual numbers: the Hessian-vector product of a recorded loss", "[hvp]") {
  for (const bool periodic : {false, true}) {
    const test::JVPInputs<2> in(periodic);
    const auto size = in.x.value.size();
    const auto c = random_vectors(size, 3);
    const auto& a = in.x.tangent;
    const auto b = random_vectors(size, 4);
    const auto plain = loss_gradient<double>(in, in.x.value, c);
    const auto ha = loss_gradient<D1>(in, duals(in.x.value, a), c);
    const auto hb = loss_gradient<D1>(in, duals(in.x.value, b), c);
    // The value part is the gradient; the tangent part H a against central differences of it.
    constexpr double step = 1e-6;
    const auto plus = loss_gradient<double>(in, in.x.moved(step), c);
    const auto minus = loss_gradient<double>(in, in.x.moved(-step), c);
    double value_error = 0, value_scale = 0, worst = 0, scale = 0;
    double hab = 0, ahb = 0, symmetry_scale = 0;
    for (std::size_t i = 0; i < size; ++i) {
      for (int k = 0; k < 2; ++k) {
        value_error = std::max(value_error, std::abs(ha[i][k].value - plain[i][k]));
        value_scale = std::max(value_scale, std::abs(plain[i][k]));
        const double fd = (plus[i][k] - minus[i][k]) / (2 * step);
        REQUIRE(std::isfinite(ha[i][k].tangent[0]));
        worst = std::max(worst, std::abs(ha[i][k].tangent[0] - fd));
        scale = std::max(scale, std::abs(fd));
        hab += ha[i][k].tangent[0] * b[i][k];
        ahb += a[i][k] * hb[i][k].tangent[0];
        symmetry_scale += std::abs(ha[i][k].tangent[0] * b[i][k]);
      }
    }
    CHECK(value_error <= 1e-13 * value_scale);
    CHECK(worst <= 1e-6 * scale);
    CHECK(std::abs(hab - ahb) <= 1e-12 * symmetry_scale);
  }
}

TEST_CASE("record on dual numbers: gradients of a loss on a JVP output (reverse over forward)",
          "[vjp][jvp]") {
  const test::JVPInputs<2> in(false);
  const auto n = std::int64_t(in.x.value.size());
  const auto size = std::size_t(n);
  using G = ops::Gradient<Kernel, GradientScheme::Difference>;
  const ParticleSet<2, double> plain{view_of(in.x.value),
                                     view_of(in.h.value),
                                     view_of(in.m.value),
                                     {in.kinds.data(), n},
                                     view_of(in.rho.value)};
  const auto bbar = random_vectors(size, 8); // L' = ⟨b̄, ẏ⟩, ẏ = J (u_x, u_f)
  // L'(x, f) by the forward mode, for central differences.
  const auto jvp_loss = [&](const std::vector<V2>& x, const std::vector<double>& f) {
    const auto set = plain.with_positions(with_tangents(view_of(x), view_of(in.x.tangent)));
    const auto values = with_tangents(view_of(f), view_of(in.f.tangent));
    const auto out = jvp<G>(exec::host{}, set, set, in.domain, in.list, values, values);
    double sum = 0;
    for (std::size_t i = 0; i < size; ++i) {
      sum += dot(bbar[i], out.tangents[std::int64_t(i)]);
    }
    return sum;
  };
  // The tape over (x, u_x) and (f, u_f), seeded with (b̄, 0): tangent parts are ∂L'/∂x, ∂L'/∂f,
  // value parts ∂L'/∂u_x, ∂L'/∂u_f.
  auto xd = duals(in.x.value, in.x.tangent);
  auto fd_values = duals(in.f.value, in.f.tangent);
  Tape<exec::host> tape;
  const Variable<VD> xv(xd.data(), n);
  const Variable<D1> fv(fd_values.data(), n);
  const auto set = plain.with_positions(xv);
  const auto y = record<G>(tape, set, set, in.domain, in.list, fv, fv);
  std::vector<VD> seed;
  for (const auto& b : bbar) {
    seed.push_back(sphad::detail::convert_scalars<VD>(b));
  }
  tape.backward(y, Span<const VD>{seed.data(), n});
  const auto gx = tape.gradient(xv);
  const auto gf = tape.gradient(fv);
  // Along a direction d = (d_x, d_f) of the primal inputs: central differences of L'.
  const auto& dx = in.v.tangent;
  const auto& df = in.rho.tangent;
  constexpr double step = 1e-6;
  std::vector<V2> xp = in.x.value, xm = in.x.value;
  std::vector<double> fp = in.f.value, fm = in.f.value;
  double reverse_primal = 0, reverse_tangent = 0;
  for (std::size_t i = 0; i < size; ++i) {
    xp[i] = xp[i] + dx[i] * step;
    xm[i] = xm[i] - dx[i] * step;
    fp[i] += df[i] * step;
    fm[i] -= df[i] * step;
    const auto gi = gx[std::int64_t(i)];
    for (int k = 0; k < 2; ++k) {
      REQUIRE(std::isfinite(gi[k].tangent[0]));
      reverse_primal += gi[k].tangent[0] * dx[i][k];
      reverse_tangent += gi[k].value * dx[i][k];
    }
    reverse_primal += gf[std::int64_t(i)].tangent[0] * df[i];
    reverse_tangent += gf[std::int64_t(i)].value * df[i];
  }
  const double fd = (jvp_loss(xp, fp) - jvp_loss(xm, fm)) / (2 * step);
  CHECK(reverse_primal == Approx(fd).epsilon(1e-6));
  // L' is linear in the tangents: along (d_x, d_f) as tangents it is ⟨b̄, J d⟩ exactly.
  const auto d_set = plain.with_positions(with_tangents(view_of(in.x.value), view_of(dx)));
  const auto d_values = with_tangents(view_of(in.f.value), view_of(df));
  const auto jd = jvp<G>(exec::host{}, d_set, d_set, in.domain, in.list, d_values, d_values);
  double forward = 0, scale = 0;
  for (std::size_t i = 0; i < size; ++i) {
    forward += dot(bbar[i], jd.tangents[std::int64_t(i)]);
    scale += std::abs(bbar[i][0] * jd.tangents[std::int64_t(i)][0]) +
             std::abs(bbar[i][1] * jd.tangents[std::int64_t(i)][1]);
  }
  CHECK(std::abs(reverse_tangent - forward) <= 1e-12 * scale);
}
