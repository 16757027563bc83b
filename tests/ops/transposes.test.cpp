// SPDX-License-Identifier: MIT
// The hand-written transposes of the reverse pass, each on its own against the dual-number
// derivative of the same form (the dot-product test ⟨ȳ, J u⟩ = ⟨Jᵀ ȳ, u⟩ for random inputs,
// directions u and cotangents ȳ): CRK::value_adjoint, CRK::gradient_adjoint,
// Renormalization::adjoint, the Brookshaw and Default Laplacians' gradient-form linearization
// (ops::gradient_form_linearization), and the combinations transposed by hand
// (`combine_adjoint`: the continuity rate, the pressure force, the laminar and artificial
// viscosities, the density diffusion, the gradients linear in the values) and the whole terms
// transposed by hand (`term_adjoint`: the anti-clumping gradient).
#include <sphad/ad/dual.hpp>
#include <sphad/kernels/wendland.hpp>
#include <sphad/ops/fused.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/solver/continuity.hpp>
#include <sphad/solver/density_diffusion.hpp>
#include <sphad/solver/pressure_force.hpp>
#include <sphad/solver/shifting.hpp>
#include <sphad/solver/viscosity.hpp>

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

namespace {
using K4 = kernels::Wendland4;

/// A field element of type F (a scalar, `Vec` or `Mat`) with random scalars.
template <class F>
F random_element(Random& r) {
  if constexpr (is_vec_v<F>) {
    F out;
    for (int k = 0; k < F::dim; ++k) {
      out[k] = random_element<typename F::value_type>(r);
    }
    return out;
  } else if constexpr (is_mat_v<F>) {
    F out;
    for (int a = 0; a < F::rows; ++a) {
      for (int b = 0; b < F::cols; ++b) {
        out(a, b) = random_element<typename F::value_type>(r);
      }
    }
    return out;
  } else {
    return r.scalar();
  }
}
/// value + t·direction in one dual direction, element by element.
template <class F>
auto dual_element(const F& value, const F& direction) {
  if constexpr (is_vec_v<F>) {
    return sphad::detail::generate_vec<F::dim>(
        [&](int k) { return dual_element(value[k], direction[k]); });
  } else if constexpr (is_mat_v<F>) {
    return sphad::detail::generate_mat<F::rows, F::cols>(
        [&](int a, int b) { return dual_element(value(a, b), direction(a, b)); });
  } else {
    return dual(value, direction);
  }
}
/// ⟨a, tangent of b⟩ over the scalars of a field-shaped element.
template <class A, class B>
double with_tangent(const A& a, const B& b) {
  if constexpr (is_vec_v<A>) {
    double sum = 0;
    for (int k = 0; k < A::dim; ++k) {
      sum += with_tangent(a[k], b[k]);
    }
    return sum;
  } else if constexpr (is_mat_v<A>) {
    double sum = 0;
    for (int x = 0; x < A::rows; ++x) {
      for (int y = 0; y < A::cols; ++y) {
        sum += with_tangent(a(x, y), b(x, y));
      }
    }
    return sum;
  } else {
    return a * b.tangent[0];
  }
}
/// ⟨a, b⟩ over the scalars of two plain elements of one shape.
template <class A>
double inner(const A& a, const A& b) {
  return with_tangent(a, dual_element(b, b)); // b's scalars as the tangents
}

/// Op's `combine_adjoint` against the dual-number derivative of its `combine` (the dot-product
/// test over every particle input and the kernel part G, random directions and cotangents),
/// F the field, G the kernel part's type (a D-vector, or a scalar for a gradient form). Some
/// trials put a zero density, a zero density sum or a zero volume, where the quotients are 0
/// with zero derivatives in both.
template <class Op, class F, class G>
void check_combine_transpose() {
  static_assert(ops::transposed_combine_v<Op>);
  using PlainPair =
      ops::ParticlePair<D, ops::PairScalars<double, double, double, double, double, double>, F>;
  Random r;
  for (int trial = 0; trial < 40; ++trial) {
    INFO("trial " << trial);
    PlainPair p{0,
                1,
                0.5 + 0.3 * r.scalar(),
                1 + 0.2 * r.scalar(),
                1 + 0.2 * r.scalar(),
                0.2 + 0.1 * r.scalar(),
                random_element<F>(r),
                random_element<F>(r)};
    if (trial % 8 == 1) {
      p.rho_i = 0;
    } else if (trial % 8 == 2) {
      p.rho_j = 0;
    } else if (trial % 8 == 3) {
      p.rho_j = -p.rho_i;
    } else if (trial % 8 == 4) {
      p.volume_j = 0;
    }
    PlainPair u{0,          1,          r.scalar(),           r.scalar(),
                r.scalar(), r.scalar(), random_element<F>(r), random_element<F>(r)};
    const G g = random_element<G>(r), dg = random_element<G>(r);
    using DualField = decltype(dual_element(p.f_i, u.f_i));
    const ops::ParticlePair<D, ops::PairScalars<D1, D1, D1, D1, D1, D1>, DualField> pd{
        0,
        1,
        dual(p.m_j, u.m_j),
        dual(p.rho_i, u.rho_i),
        dual(p.rho_j, u.rho_j),
        dual(p.volume_j, u.volume_j),
        dual_element(p.f_i, u.f_i),
        dual_element(p.f_j, u.f_j)};
    const auto yd = ops::combine<Op>(pd, dual_element(g, dg));
    using Y = decltype(ops::combine<Op>(p, g));
    const Y ybar = random_element<Y>(r);
    const double forward = with_tangent(ybar, yd);
    PlainPair pbar = ops::zero_adjoint(p);
    const G gbar = Op::combine_adjoint(p, g, ybar, pbar);
    const double reverse = pbar.m_j * u.m_j + pbar.rho_i * u.rho_i + pbar.rho_j * u.rho_j +
                           pbar.volume_j * u.volume_j + inner(pbar.f_i, u.f_i) +
                           inner(pbar.f_j, u.f_j) + inner(gbar, dg);
    CHECK(reverse == Approx(forward).epsilon(1e-13).margin(1e-14));
  }
}
} // namespace

TEST_CASE("combine_adjoint is the transpose of the combination's dual derivative",
          "[vjp][solver]") {
  using VD = Vec<double, D>;
  SECTION("continuity rate") {
    check_combine_transpose<solver::ContinuityRate<K4>, VD, VD>();
    check_combine_transpose<solver::ContinuityRate<K4, solver::ContinuityForm::Mass>, VD, VD>();
  }
  SECTION("pressure force") {
    check_combine_transpose<solver::PressureForce<K4>, double, VD>();
    check_combine_transpose<solver::PressureForce<K4, solver::PressureForm::Averaged>, double,
                            VD>();
  }
  SECTION("laminar viscosity") {
    check_combine_transpose<solver::LaminarViscosity<K4>, VD, double>();
    check_combine_transpose<solver::LaminarViscosity<K4>, double, double>();
  }
  SECTION("artificial viscosity (approaching and receding pairs)") {
    check_combine_transpose<solver::ArtificialViscosity<K4>, Vec<double, D + 1>,
                            Vec<double, 2 * D>>();
  }
  SECTION("density diffusion") {
    check_combine_transpose<solver::DensityDiffusion<K4>, VD, Vec<double, D + 1>>();
    check_combine_transpose<solver::DensityDiffusion<K4, solver::DiffusionForm::Antuono>, VD,
                            Vec<double, D + 1>>();
  }
  SECTION("fused terms: their transposes summed") {
    using G = GradientScheme;
    using Shared = ops::Fused<ops::Slot<solver::PressureForce<K4>, 0, 1>,
                              ops::Slot<solver::ContinuityRate<K4>, 1, D>,
                              ops::Slot<ops::Gradient<K4, G::Difference>, 1, D>,
                              ops::Slot<ops::Gradient<K4, G::Difference>, D + 1, 1>>;
    check_combine_transpose<Shared, Vec<double, D + 2>, VD>();
    static_assert(
        !ops::transposed_combine_v<ops::Fused<ops::Slot<ops::Gradient<K4, G::Symmetric>, 0, 1>,
                                              ops::Slot<solver::PressureForce<K4>, 0, 1>>>,
        "a fused term is transposed when every term is");
  }
  SECTION("gradients linear in the values, of scalars, vectors and matrices") {
    using G = GradientScheme;
    check_combine_transpose<ops::Gradient<K4, G::Difference>, double, VD>();
    check_combine_transpose<ops::Gradient<K4, G::Difference>, VD, VD>();
    check_combine_transpose<ops::Gradient<K4, G::Difference>, M, VD>();
    check_combine_transpose<ops::Gradient<K4, G::Naive>, VD, VD>();
    check_combine_transpose<ops::Gradient<K4, G::Summation>, double, VD>();
    check_combine_transpose<ops::Gradient<K4, G::Summation>, M, VD>();
    static_assert(!ops::transposed_combine_v<ops::Gradient<K4, G::Symmetric>>,
                  "the symmetric gradient's combination is differentiated in dual numbers");
  }
}

TEST_CASE("AntiClumpingGradient::term_adjoint is the transpose of the term's dual derivative",
          "[vjp][solver]") {
  using Op = solver::AntiClumpingGradient<K4>;
  static_assert(ops::transposed_term_v<Op>);
  using VD = Vec<double, D>;
  using V2 = Vec<double, 2>;
  const ops::Uncorrected none{};
  Random r;
  for (int trial = 0; trial < 60; ++trial) {
    INFO("trial " << trial);
    const double h = 1.0, factor = 1 + 0.1 * r.scalar();
    // Pairs inside the support, one at r = 0, and spacings inside and past it (W(Δx) = 0).
    VD x = r.vec() * 0.55;
    if (trial % 10 == 0) {
      x = VD{};
    }
    const V2 f_i{trial % 7 == 3 ? 1.2 : 0.3 + 0.2 * r.scalar(), 0.2 + 0.1 * r.scalar()};
    const double volume = 0.2 + 0.1 * r.scalar();
    const VD dx = r.vec();
    const V2 df{r.scalar(), r.scalar()};
    const double dv = r.scalar();
    const VD ybar = r.vec();
    using DualScalars = ops::PairScalars<D1, double, D1, D1, D1, D1>;
    const ops::Pair<K4, SupportScheme::Gather, D, DualScalars, Vec<D1, 2>, ops::Uncorrected> pd{
        {0, 1, D1(1), D1(1), D1(1), dual(volume, dv), dual_element(f_i, df), Vec<D1, 2>{}},
        none,
        dual(x, dx),
        h,
        h,
        factor};
    const double forward = with_tangent(ybar, Op::term(pd));
    using PlainScalars = ops::PairScalars<double, double, double, double, double, double>;
    const ops::Pair<K4, SupportScheme::Gather, D, PlainScalars, V2, ops::Uncorrected> p{
        {0, 1, 1.0, 1.0, 1.0, volume, f_i, V2{}}, none, x, h, h, factor};
    auto pbar = ops::zero_adjoint(p.particles());
    const VD xbar = Op::term_adjoint(p, ybar, pbar);
    const double reverse = dot(xbar, dx) + pbar.volume_j * dv + dot(pbar.f_i, df);
    CHECK(reverse == Approx(forward).epsilon(1e-12).margin(1e-13));
  }
}
