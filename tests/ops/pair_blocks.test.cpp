// SPDX-License-Identifier: MIT
// The host's pair blocks (ops.md, "Host pair loops"): a plain call over a list evaluates L pairs
// at once on SIMD packs, while grid traversal takes the pairs one at a time in the same lanes.
// Both must give the same bits, for every operator form the blocks serve (packed combination,
// lane-by-lane combination), kernel, support scheme, kind filter, dimension and precision,
// with rows of every length mod L, pairs across periodic boundaries and a zero density (V_j = 0).
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

using namespace sphad;
using test::span;
using G = GradientScheme;

namespace {

/// Random particles in [0, 1)^D (a few outside by whole periods), supports spread 2×, kinds
/// 0–2, one density 0; scalar and vector fields.
template <int D, class T>
struct Cloud {
  test::Particles<D, T> p;
  std::vector<T> f;
  std::vector<Vec<T, D>> v;
  Domain<D, T> domain{Vec<T, D>::filled(T(0)), Vec<T, D>::filled(T(1)), {}};
  explicit Cloud(bool periodic) {
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int a = 0; a < D; ++a) {
      domain.periodic[a] = periodic;
    }
    const int n = D == 2 ? 700 : 900;
    const double h0 = D == 2 ? 0.09 : 0.17;
    for (int i = 0; i < n; ++i) {
      Vec<T, D> x{};
      for (int a = 0; a < D; ++a) {
        x[a] = T(unit(rng)) + (periodic && i % 13 == 0 ? T(1) : T(0));
      }
      p.add(x, T(h0 * (0.7 + 0.7 * unit(rng))), T(1.0 / n),
            i == 5 ? T(0) : T(0.8 + 0.4 * unit(rng)), i % 3);
      f.push_back(T(std::sin(7.0 * double(x[0])) + double(x[D - 1])));
      Vec<T, D> w{};
      for (int a = 0; a < D; ++a) {
        w[a] = T(double(x[(a + 1) % D]) * (a + 1));
      }
      v.push_back(w);
    }
  }
};

template <class A>
bool same_bits(const A& a, const A& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(*a.data()) * std::size_t(a.size())) == 0;
}

/// Operator Op over the list (blocks) and over the grid (one pair at a time): the same bits,
/// in every direction given.
template <class Op, int D, class T, class Values>
void check_blocks(const Cloud<D, T>& c, const Values& values) {
  const exec::host ex;
  const auto s = c.p.view();
  constexpr SupportScheme S = Op::support;
  const auto list = build_neighbor_list<S>(ex, s.search_points(), s.search_points(), c.domain);
  const auto grid =
      search::build_search_grid<S>(ex, s.search_points(), s.search_points(), c.domain);
  for (const auto direction : {OperationDirection::TrueAllToAll, OperationDirection::AllToAll,
                               OperationDirection::FluidToFluid}) {
    INFO("direction " << int(direction));
    const ApplyOptions<T> options{direction};
    if constexpr (std::is_same_v<Values, ops::NoField>) {
      const auto by_list = apply<Op>(ex, s, s, c.domain, list, options);
      const auto by_grid = apply<Op>(ex, s, s, c.domain, grid, options);
      CHECK(same_bits(by_list, by_grid));
    } else {
      const auto by_list = apply<Op>(ex, s, s, c.domain, list, values, values, options);
      const auto by_grid = apply<Op>(ex, s, s, c.domain, grid, values, values, options);
      CHECK(same_bits(by_list, by_grid));
    }
  }
}

template <int D, class T, SupportScheme S, class K = kernels::Wendland4>
void check_schemes(bool periodic) {
  const Cloud<D, T> c(periodic);
  check_blocks<ops::Density<K, S>>(c, ops::NoField{});
  check_blocks<ops::Gradient<K, G::Difference, S>>(c, span(c.f));
}

} // namespace

TEST_CASE("pair blocks: every operator form gives the bits of the pair-at-a-time loop",
          "[ops][blocks]") {
  for (const bool periodic : {true, false}) {
    INFO("periodic " << periodic);
    const Cloud<2, double> c(periodic);
    using K = kernels::Wendland4;
    const auto f = span(c.f);
    const auto v = span(c.v);
    check_blocks<ops::Density<K>>(c, ops::NoField{});
    check_blocks<ops::Interpolate<K>>(c, f);
    check_blocks<ops::Gradient<K, G::Difference>>(c, f);
    check_blocks<ops::Gradient<K, G::Naive>>(c, f);
    check_blocks<ops::Gradient<K, G::Symmetric>>(c, f);  // combined lane by lane
    check_blocks<ops::Gradient<K, G::Difference>>(c, v); // a vector field: lane by lane
    check_blocks<ops::Divergence<K, G::Difference>>(c, v);
    check_blocks<ops::Density<kernels::Wendland2>>(c, ops::NoField{});
    check_blocks<ops::Gradient<kernels::Wendland6, G::Summation>>(c, f);
  }
}

TEST_CASE("pair blocks: every support scheme, 2D and 3D, double and float", "[ops][blocks]") {
  for (const bool periodic : {true, false}) {
    INFO("periodic " << periodic);
    check_schemes<2, double, SupportScheme::Gather>(periodic);
    check_schemes<2, double, SupportScheme::Scatter>(periodic);
    check_schemes<2, double, SupportScheme::PartialSymmetric>(periodic);
    check_schemes<2, double, SupportScheme::SuperSymmetric>(periodic);
    check_schemes<3, double, SupportScheme::Gather>(periodic);
    check_schemes<3, double, SupportScheme::MeanSymmetric>(periodic);
    check_schemes<2, float, SupportScheme::Gather>(periodic);
    check_schemes<3, float, SupportScheme::Scatter>(periodic);
  }
}
