// SPDX-License-Identifier: MIT
// The hand-written transposes of the reverse pass, each on its own against the dual-number
// derivative of the same form (the dot-product test ⟨ȳ, J u⟩ = ⟨Jᵀ ȳ, u⟩ for random inputs,
// directions u and cotangents ȳ): CRK::value_adjoint, CRK::gradient_adjoint,
// Renormalization::adjoint and the Brookshaw and Default Laplacians'
// gradient-form linearization (ops::gradient_form_linearization).
#include <sphad/ad/dual.hpp>
#include <sphad/kernels/wendland.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/pair/corrections.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>

using namespace sphad;

namespace {

using D1 = Dual<double, 1>;
constexpr int D = 3;
using V = Vec<double, D>;
using M = Mat<double, D, D>;

struct Random {
  std::mt19937 rng{11};
  std::uniform_real_distribution<double> u{-1.0, 1.0};
  double scalar() { return u(rng); }
  V vec() { return {u(rng), u(rng), u(rng)}; }
  M mat() {
    M m;
    for (int r = 0; r < D; ++r) {
      for (int c = 0; c < D; ++c) {
        m(r, c) = u(rng);
      }
    }
    return m;
  }
};

D1 dual(double value, double tangent) {
  return D1(value, {tangent});
}
Vec<D1, D> dual(const V& value, const V& tangent) {
  Vec<D1, D> out;
  for (int a = 0; a < D; ++a) {
    out[a] = dual(value[a], tangent[a]);
  }
  return out;
}
double tangent_of(const D1& x) {
  return x.tangent[0];
}
V tangent_of(const Vec<D1, D>& x) {
  V out;
  for (int a = 0; a < D; ++a) {
    out[a] = x[a].tangent[0];
  }
  return out;
}
double frobenius(const M& a, const M& b) {
  double sum = 0;
  for (int r = 0; r < D; ++r) {
    for (int c = 0; c < D; ++c) {
      sum += a(r, c) * b(r, c);
    }
  }
  return sum;
}

/// What CRK's value and gradient read of a pair, with dual kernel quantities.
struct PairInputs {
  std::int64_t i = 0;
  Vec<D1, D> x_ij;
  D1 w_ij;
  Vec<D1, D> grad_ij;
  D1 w() const { return w_ij; }
  Vec<D1, D> gradient() const { return grad_ij; }
};

/// One random CRK configuration: values and directions of A, B, ∇A, ∇B, x, W, ∇W.
struct CRKCase {
  double a, da, w, dw;
  V b, db, grad_a, dgrad_a, x, dx, grad, dgrad;
  M grad_b, dgrad_b;
  explicit CRKCase(Random& r)
      : a(1 + 0.3 * r.scalar()), da(r.scalar()), w(r.scalar()), dw(r.scalar()), b(r.vec()),
        db(r.vec()), grad_a(r.vec()), dgrad_a(r.vec()), x(r.vec()), dx(r.vec()), grad(r.vec()),
        dgrad(r.vec()), grad_b(r.mat()), dgrad_b(r.mat()) {}
  ops::CRK<D, double> plain() const { return {{&a, 1}, {&b, 1}, {&grad_a, 1}, {&grad_b, 1}}; }
  PairInputs pair() const { return {0, dual(x, dx), dual(w, dw), dual(grad, dgrad)}; }
  /// ⟨adjoint, direction⟩ over every input the adjoint covers.
  double dot(const ops::CRKAdjoint<double, D>& adj) const {
    return adj.w * dw + sphad::dot(adj.gradient, dgrad) + sphad::dot(adj.x, dx) + adj.a * da +
           sphad::dot(adj.b, db) + sphad::dot(adj.grad_a, dgrad_a) + frobenius(adj.grad_b, dgrad_b);
  }
};

} // namespace

TEST_CASE("CRK::value_adjoint is the transpose of value's dual derivative", "[vjp][crk]") {
  Random r;
  for (int trial = 0; trial < 20; ++trial) {
    const CRKCase c(r);
    const auto state =
        c.plain().with_tangents<1>({&c.da, 1}, {&c.db, 1}, {&c.dgrad_a, 1}, {&c.dgrad_b, 1});
    const double vbar = r.scalar();
    const double forward = vbar * tangent_of(state.value(c.pair()));
    const double reverse = c.dot(c.plain().value_adjoint(0, c.x, c.w, vbar));
    CHECK(reverse == Approx(forward).epsilon(1e-13).margin(1e-15));
  }
}

TEST_CASE("CRK::gradient_adjoint is the transpose of gradient's dual derivative", "[vjp][crk]") {
  Random r;
  for (int trial = 0; trial < 20; ++trial) {
    const CRKCase c(r);
    const auto state =
        c.plain().with_tangents<1>({&c.da, 1}, {&c.db, 1}, {&c.dgrad_a, 1}, {&c.dgrad_b, 1});
    const V gbar = r.vec();
    const double forward = dot(gbar, tangent_of(state.gradient(c.pair())));
    const double reverse = c.dot(c.plain().gradient_adjoint(0, c.x, c.w, c.grad, gbar));
    CHECK(reverse == Approx(forward).epsilon(1e-13).margin(1e-15));
  }
}

TEST_CASE("Renormalization::adjoint is the transpose of apply's dual derivative",
          "[vjp][renormalization]") {
  Random r;
  for (int trial = 0; trial < 20; ++trial) {
    const M l = r.mat(), dl = r.mat();
    const V g = r.vec(), dg = r.vec(), gbar = r.vec();
    const ops::Renormalization<D, double> plain{{&l, 1}};
    const auto state = plain.with_tangents<1>({&dl, 1});
    const double forward = dot(gbar, tangent_of(state.apply(dual(g, dg), 0)));
    const auto adjoint = plain.adjoint(0, g, gbar);
    const double reverse = dot(adjoint.gradient, dg) + frobenius(adjoint.matrix, dl);
    CHECK(reverse == Approx(forward).epsilon(1e-13).margin(1e-15));
  }
}

namespace {
/// The Brookshaw or Default kernel part −2 (Ĝ·n)/d with n = x/(r + 10⁻⁸ h), written from the
/// operator's own `form_value`, in dual numbers; against `ops::gradient_form_linearization`.
template <LaplacianScheme Scheme>
void check_form_transpose() {
  using Op = ops::Laplacian<kernels::Wendland4, Scheme>;
  Random r;
  for (int trial = 0; trial < 20; ++trial) {
    const V x = r.vec(), dx = r.vec(), g = r.vec(), dg = r.vec();
    const double h = 1.5 + 0.2 * r.scalar(), dh = r.scalar(), lbar = r.scalar();
    const auto xd = dual(x, dx);
    const D1 hd = dual(h, dh);
    const D1 rd = safe_norm(xd);
    const D1 inv_d1 = D1(1) / (rd + 1e-8 * hd);
    const double forward =
        lbar * tangent_of(Op::form_value(dual(g, dg), xd * inv_d1, inv_d1, rd, hd));
    const double dist = norm(x);
    const auto linear = ops::gradient_form_linearization<Op>(x, dist, h, g);
    const auto unit = linear.unit.times(lbar);
    const double reverse = dot(unit.gradient, dg) + dot(unit.x, dx) + unit.support * dh;
    CHECK(
        linear.value ==
        Approx(value_of(Op::form_value(dual(g, dg), xd * inv_d1, inv_d1, rd, hd))).epsilon(1e-15));
    CHECK(reverse == Approx(forward).epsilon(1e-13).margin(1e-15));
  }
}
} // namespace

TEST_CASE("Laplacian: gradient_form_linearization is the transpose of the form's dual derivative",
          "[vjp][laplacian]") {
  check_form_transpose<LaplacianScheme::Brookshaw>();
  check_form_transpose<LaplacianScheme::Default>();
}
