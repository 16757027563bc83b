// SPDX-License-Identifier: MIT
// The Density position HVP: against central differences of the own-position density gradient,
// symmetric, and the self-pair rule (identity of the particle): a shared tangent makes the self
// pair a bitwise no-op, a role-asymmetric tangent needs it skipped (the Jacobi diagonal block),
// coincident distinct particles are finite.
#include "ops/derivative_matrix.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace sphad;
using test::view_of;

namespace {

using Kernel = kernels::Wendland4;

/// g_i = Σ_j m_j ∇W_ij at the given positions (self pairs included: their term is constant).
template <SupportScheme S, int D>
std::vector<Vec<double, D>> own_gradient(const test::JVPInputs<D>& in,
                                         const std::vector<Vec<double, D>>& x) {
  const auto n = std::int64_t(x.size());
  const ParticleSet<D, double> set{
      view_of(x), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const auto g = apply<ops::detail::DensityPositionGradient<Kernel, S>>(exec::host{}, set, set,
                                                                        in.domain, in.list);
  return std::vector<Vec<double, D>>(g.data(), g.data() + n);
}

template <SupportScheme S, int D>
void check_against_differences(bool periodic) {
  const test::JVPInputs<D> in(periodic);
  const auto n = std::int64_t(in.x.value.size());
  const ParticleSet<D, double> set{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const auto hvp = density_position_hvp<Kernel, S>(exec::host{}, set, set, in.domain, in.list,
                                                   view_of(in.x.tangent), view_of(in.x.tangent));
  constexpr double step = 1e-6;
  const auto plus = own_gradient<S>(in, in.x.moved(step));
  const auto minus = own_gradient<S>(in, in.x.moved(-step));
  double worst = 0, scale = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < D; ++k) {
      const double fd = (plus[std::size_t(i)][k] - minus[std::size_t(i)][k]) / (2 * step);
      REQUIRE(std::isfinite(hvp[i][k]));
      worst = std::max(worst, std::abs(hvp[i][k] - fd));
      scale = std::max(scale, std::abs(fd));
    }
  }
  INFO(D << "D support " << int(S) << (periodic ? " periodic" : " open") << ": " << worst / scale);
  CHECK(worst <= 1e-6 * scale);
}

} // namespace

TEST_CASE("density_position_hvp: matches central differences of the own-position gradient",
          "[hvp]") {
  for (const bool periodic : {false, true}) {
    check_against_differences<SupportScheme::Gather, 1>(periodic);
    check_against_differences<SupportScheme::Gather, 2>(periodic);
    check_against_differences<SupportScheme::Scatter, 2>(periodic);
    check_against_differences<SupportScheme::SuperSymmetric, 2>(periodic);
    check_against_differences<SupportScheme::KernelMeanSymmetric, 2>(periodic);
    check_against_differences<SupportScheme::PartialSymmetric, 2>(periodic);
    check_against_differences<SupportScheme::Gather, 3>(periodic);
  }
}

TEST_CASE("density_position_hvp: symmetric for equal masses and a symmetric support scheme",
          "[hvp]") {
  test::JVPInputs<2> in(false);
  std::fill(in.m.value.begin(), in.m.value.end(), in.m.value[0]);
  std::fill(in.kinds.begin(), in.kinds.end(), 0); // ghost references would break the symmetry
  const auto n = std::int64_t(in.x.value.size());
  const ParticleSet<2, double> set{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const ApplyOptions<double> all{OperationDirection::AllToAll};
  const auto& a = in.x.tangent;
  const auto& b = in.b.value; // another random field of Vec
  using S = std::integral_constant<SupportScheme, SupportScheme::SuperSymmetric>;
  const auto ha = density_position_hvp<Kernel, S::value>(exec::host{}, set, set, in.domain, in.list,
                                                         view_of(a), view_of(a), all);
  const auto hb = density_position_hvp<Kernel, S::value>(exec::host{}, set, set, in.domain, in.list,
                                                         view_of(b), view_of(b), all);
  double hab = 0, ahb = 0, scale = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    hab += dot(ha[i], b[std::size_t(i)]);
    ahb += dot(a[std::size_t(i)], hb[i]);
    scale += std::abs(dot(ha[i], b[std::size_t(i)]));
  }
  CHECK(std::abs(hab - ahb) <= 1e-12 * scale);
}

TEST_CASE("density_position_hvp: the self pair is the same particle, not the same index",
          "[hvp][self-pair]") {
  const test::JVPInputs<2> in(false, 21);
  const auto n = std::int64_t(in.x.value.size());
  const std::vector<Vec<double, 2>> copy = in.x.value; // equal positions, another particle set
  const ParticleSet<2, double> set{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const auto other = set.with_positions(view_of(copy));
  const auto run = [&](const ParticleSet<2, double>& references, const auto& vq, const auto& vr) {
    const auto out = density_position_hvp<Kernel>(exec::host{}, set, references, in.domain, in.list,
                                                  view_of(vq), view_of(vr));
    std::vector<double> flat;
    for (std::int64_t i = 0; i < n; ++i) {
      test::append_scalars(out[i], flat);
    }
    return flat;
  };
  SECTION("a shared tangent: skipping the self pair is a bitwise no-op") {
    CHECK(run(set, in.x.tangent, in.x.tangent) == run(other, in.x.tangent, in.x.tangent));
  }
  SECTION("query tangent e_x, reference tangent 0: the Jacobi diagonal block") {
    const std::vector<Vec<double, 2>> ex(std::size_t(n), Vec<double, 2>{1.0, 0.0});
    const std::vector<Vec<double, 2>> zero(std::size_t(n), Vec<double, 2>{});
    const auto diagonal = run(set, ex, zero);
    CHECK(diagonal != run(other, ex, zero)); // a coincident distinct particle counts
    // ∂g_i/∂x_i e_x by central differences, one particle at a time.
    constexpr double step = 1e-6;
    double worst = 0, scale = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      auto plus = in.x.value, minus = in.x.value;
      plus[std::size_t(i)][0] += step;
      minus[std::size_t(i)][0] -= step;
      const auto gp = own_gradient<SupportScheme::Gather>(in, plus);
      const auto gm = own_gradient<SupportScheme::Gather>(in, minus);
      for (int k = 0; k < 2; ++k) {
        const double fd = (gp[std::size_t(i)][k] - gm[std::size_t(i)][k]) / (2 * step);
        worst = std::max(worst, std::abs(diagonal[std::size_t(2 * i + k)] - fd));
        scale = std::max(scale, std::abs(fd));
      }
    }
    CHECK(worst <= 1e-6 * scale);
  }
}

TEST_CASE("density_position_hvp: coincident distinct particles are finite and correct",
          "[hvp][nan]") {
  test::JVPInputs<2> in(false, 5);
  in.x.value[1] = in.x.value[0]; // two distinct particles at one point
  const auto n = std::int64_t(in.x.value.size());
  const ParticleSet<2, double> set{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const auto hvp = density_position_hvp<Kernel>(exec::host{}, set, set, in.domain, in.list,
                                                view_of(in.x.tangent), view_of(in.x.tangent));
  const auto plus = own_gradient<SupportScheme::Gather>(in, in.x.moved(1e-6));
  const auto minus = own_gradient<SupportScheme::Gather>(in, in.x.moved(-1e-6));
  for (std::int64_t i = 0; i < 2; ++i) {
    for (int k = 0; k < 2; ++k) {
      REQUIRE(std::isfinite(hvp[i][k]));
      const double fd = (plus[std::size_t(i)][k] - minus[std::size_t(i)][k]) / 2e-6;
      CHECK(hvp[i][k] == Approx(fd).epsilon(1e-6).margin(1e-6));
    }
  }
}

TEST_CASE("density_position_hvp: tangents of the wrong size are rejected", "[hvp][errors]") {
  const test::JVPInputs<2> in(false);
  const auto n = std::int64_t(in.x.value.size());
  const ParticleSet<2, double> set{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const Span<const Vec<double, 2>> short_tangents{in.x.tangent.data(), n - 1};
  CHECK_THROWS_WITH(density_position_hvp<Kernel>(exec::host{}, set, set, in.domain, in.list,
                                                 short_tangents, view_of(in.x.tangent)),
                    Catch::Matchers::Contains("`query_tangents`"));
  CHECK_THROWS_WITH(density_position_hvp<Kernel>(exec::host{}, set, set, in.domain, in.list,
                                                 view_of(in.x.tangent), short_tangents),
                    Catch::Matchers::Contains("`reference_tangents`"));
}
