// SPDX-License-Identifier: MIT
// The operation matrix: every operator and scheme, under every support scheme, over the list and
// over the grid, on plain and jittered lattices, against the exact derivatives of linear fields.
// Each row must beat the reference's gate (interior mean absolute error < 0.4; 0.05 for the matrix
// divergence); the measured errors are recorded in docs/ops.md. Instantiated per dimension and
// scalar type by operation_matrix.test.cpp.
#pragma once

#include <sphad/kernels/dispatch.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace sphad::test {

/// Worst interior error seen per row name, across configurations (printed when
/// SPHAD_PRINT_OPERATION_MATRIX is set, for docs/ops.md).
inline void report(const std::string& row, double mae) {
  if (std::getenv("SPHAD_PRINT_OPERATION_MATRIX") != nullptr) {
    std::printf("%s %.3g\n", row.c_str(), mae);
  }
}

template <int D, class T>
struct MatrixCase {
  Particles<D, T> p;
  Domain<D, T> domain;
  std::vector<bool> interior;
  Vec<double, D> c;
  Mat<double, D, D> a;
  std::vector<T> f;
  std::vector<Vec<T, D>> v;
  std::vector<Mat<T, D, D>> m;

  /// `resolution`: the support's scale relative to Wendland2's at n_h = 4 (the reference's
  /// case); a kernel with a wider shape needs a proportionally larger support for the same
  /// accuracy (the ratio of the kernels' supports in spacings, ξ).
  explicit MatrixCase(bool jitter, double resolution = 1.0) {
    const int nx = D == 1 ? 64 : D == 2 ? 24 : 12;
    const double neighbours = (D == 1 ? 8 : D == 2 ? 50 : 268) * std::pow(resolution, D);
    p = lattice<D, T>(nx, neighbours);
    const double dx = 2.0 / nx;
    std::mt19937 rng(0);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (auto& x : p.x) {
      for (int k = 0; k < D; ++k) {
        if (jitter) {
          x[k] += T(0.01 * dx * normal(rng));
        }
      }
    }
    domain = {Vec<T, D>::filled(T(-1)), Vec<T, D>::filled(T(1)), {}};
    for (int k = 0; k < D; ++k) {
      c[k] = 1.3 * (k + 1) - 0.4;
      for (int q = 0; q < D; ++q) {
        a(k, q) = 0.6 * q - 0.9 * k + 2.0 * (k == q);
      }
    }
    // Interior: the whole support (plus one spacing of jitter margin) inside the lattice.
    const double band = double(p.h[0]) + dx;
    for (const auto& x : p.x) {
      Vec<double, D> xd{};
      bool inside = true;
      for (int k = 0; k < D; ++k) {
        xd[k] = double(x[k]);
        inside = inside && std::abs(xd[k]) < 1 - band;
      }
      interior.push_back(inside);
      f.push_back(T(dot(c, xd) + 0.7));
      const auto ax = a * xd;
      Vec<T, D> vt{};
      Mat<T, D, D> mt{};
      for (int k = 0; k < D; ++k) {
        vt[k] = T(ax[k]);
        for (int q = 0; q < D; ++q) {
          mt(k, q) = T(a(k, q) * dot(c, xd));
        }
      }
      v.push_back(vt);
      m.push_back(mt);
    }
  }

  /// Mean over interior particles of the mean absolute component error `error(out_i, i)`.
  template <class Out, class Error>
  double mae(const Buffer<Out, exec::host>& out, const Error& error) const {
    double sum = 0;
    int count = 0;
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      if (!interior[i]) {
        continue;
      }
      if constexpr (std::is_invocable_v<Error, const Out&, std::size_t>) {
        sum += error(out[std::int64_t(i)], i);
      } else {
        sum += error(out[std::int64_t(i)]);
      }
      ++count;
    }
    return sum / count;
  }
};

template <class T>
Span<const T> span_of(const std::vector<T>& v) {
  return {v.data(), std::int64_t(v.size())};
}

/// Runs every operator row for one configuration (support scheme, traversal).
template <SupportScheme S, class K, int D, class T, class Adjacency>
void run_matrix_rows(const MatrixCase<D, T>& mc,
                     const ParticleSet<D, T>& s,
                     const Adjacency& adjacency,
                     const std::string& config) {
  using G = GradientScheme;
  using L = LaplacianScheme;
  const exec::host ex;
  const auto& domain = mc.domain;
  const auto f = span_of(mc.f);
  const auto v = span_of(mc.v);
  const auto m = span_of(mc.m);
  const auto row = [&](const std::string& name, double error, double gate) {
    INFO(config << " " << name << ": interior MAE " << error);
    CHECK(std::isfinite(error));
    CHECK(error < gate);
    report(name + " " + config, error);
  };
  const auto abs_diff = [](double a, double b) { return std::abs(a - b); };

  row("Interpolate",
      mc.mae(apply<ops::Interpolate<K, S>>(ex, s, s, domain, adjacency, f, f),
             [&](T out, std::size_t i) { return abs_diff(out, mc.f[i]); }),
      0.4);
  const auto gradient_row = [&](auto scheme, const char* name) {
    constexpr G g = decltype(scheme)::value;
    const auto out = apply<ops::Gradient<K, g, S>>(ex, s, s, domain, adjacency, f, f);
    row(std::string("Gradient ") + name,
        mc.mae(out,
               [&](const Vec<T, D>& o) {
                 double e = 0;
                 for (int k = 0; k < D; ++k) {
                   e += abs_diff(o[k], mc.c[k]) / D;
                 }
                 return e;
               }),
        0.4);
    const auto div =
        apply<ops::Divergence<K, g, S, DivergenceMode::Dot>>(ex, s, s, domain, adjacency, v, v);
    row(std::string("Divergence ") + name,
        mc.mae(div, [&](T o) { return abs_diff(o, trace(mc.a)); }), 0.4);
    if constexpr (D >= 2) {
      const auto curl = apply<ops::Curl<K, g, S>>(ex, s, s, domain, adjacency, v, v);
      row(std::string("Curl ") + name,
          mc.mae(curl,
                 [&](const auto& o) {
                   if constexpr (D == 2) {
                     return abs_diff(o, mc.a(1, 0) - mc.a(0, 1));
                   } else {
                     const double e[3] = {mc.a(2, 1) - mc.a(1, 2), mc.a(0, 2) - mc.a(2, 0),
                                          mc.a(1, 0) - mc.a(0, 1)};
                     return (abs_diff(o[0], e[0]) + abs_diff(o[1], e[1]) + abs_diff(o[2], e[2])) /
                            3;
                   }
                 }),
          0.4);
    }
  };
  gradient_row(std::integral_constant<G, G::Naive>{}, "Naive");
  gradient_row(std::integral_constant<G, G::Symmetric>{}, "Symmetric");
  gradient_row(std::integral_constant<G, G::Difference>{}, "Difference");
  gradient_row(std::integral_constant<G, G::Summation>{}, "Summation");

  // Matrix divergence: Dot contracts the last axis (A c), Standard the first (Aᵀ c).
  const auto ac = mc.a * mc.c;
  const auto atc = transpose(mc.a) * mc.c;
  const auto dot_div = apply<ops::Divergence<K, G::Difference, S, DivergenceMode::Dot>>(
      ex, s, s, domain, adjacency, m, m);
  const auto std_div = apply<ops::Divergence<K, G::Difference, S, DivergenceMode::Standard>>(
      ex, s, s, domain, adjacency, m, m);
  const auto vec_error = [&](const Vec<double, D>& exact) {
    return [exact](const Vec<T, D>& o) {
      double e = 0;
      for (int k = 0; k < D; ++k) {
        e += std::abs(double(o[k]) - exact[k]) / D;
      }
      return e;
    };
  };
  row("Divergence matrix dot", mc.mae(dot_div, vec_error(ac)), 0.05);
  row("Divergence matrix standard", mc.mae(std_div, vec_error(atc)), 0.05);

  const auto laplacian_row = [&](auto lscheme, auto gscheme, const char* name) {
    constexpr L l = decltype(lscheme)::value;
    constexpr G g = decltype(gscheme)::value;
    if constexpr (!(l == L::Dot && D > 1)) {
      const auto out = apply<ops::Laplacian<K, l, g, S>>(ex, s, s, domain, adjacency, f, f);
      row(std::string("Laplacian scalar ") + name, mc.mae(out, [](T o) { return std::abs(o); }),
          0.4);
    }
    const auto out = apply<ops::Laplacian<K, l, g, S>>(ex, s, s, domain, adjacency, v, v);
    row(std::string("Laplacian vector ") + name,
        mc.mae(out,
               [](const Vec<T, D>& o) {
                 double e = 0;
                 for (int k = 0; k < D; ++k) {
                   e += std::abs(double(o[k])) / D;
                 }
                 return e;
               }),
        0.4);
  };
  using NaiveG = std::integral_constant<G, G::Naive>;
  using SymmetricG = std::integral_constant<G, G::Symmetric>;
  laplacian_row(std::integral_constant<L, L::Naive>{}, NaiveG{}, "Naive");
  laplacian_row(std::integral_constant<L, L::Brookshaw>{}, NaiveG{}, "Brookshaw");
  laplacian_row(std::integral_constant<L, L::Dot>{}, NaiveG{}, "Dot");
  laplacian_row(std::integral_constant<L, L::Default>{}, NaiveG{}, "Default");
  laplacian_row(std::integral_constant<L, L::Naive>{}, SymmetricG{}, "Naive/Symmetric");
  laplacian_row(std::integral_constant<L, L::Brookshaw>{}, SymmetricG{}, "Brookshaw/Symmetric");
  laplacian_row(std::integral_constant<L, L::Dot>{}, SymmetricG{}, "Dot/Symmetric");
  laplacian_row(std::integral_constant<L, L::Default>{}, SymmetricG{}, "Default/Symmetric");
}

template <int D, class T, class K = kernels::Wendland2>
void run_operation_matrix() {
  const exec::host ex;
  for (const bool jitter : {false, true}) {
    const double resolution = kernels::support_in_spacings(K::id, D) /
                              kernels::support_in_spacings(KernelId::Wendland2, D);
    MatrixCase<D, T> mc(jitter, resolution);
    auto s = mc.p.view();
    // Densities from Density (Gather) over an all-pairs list, as the reference does.
    const auto all = all_pairs_list(mc.p, mc.domain);
    const auto rho = apply<ops::Density<K>>(ex, s, s, mc.domain, all);
    for (std::size_t i = 0; i < mc.p.x.size(); ++i) {
      mc.p.rho[i] = rho[std::int64_t(i)];
    }
    s = mc.p.view();
    for (const SupportScheme scheme :
         {SupportScheme::Gather, SupportScheme::Scatter, SupportScheme::MeanSymmetric,
          SupportScheme::KernelMeanSymmetric, SupportScheme::SuperSymmetric,
          SupportScheme::PartialSymmetric}) {
      kernels::dispatch(scheme, [&](auto sc) {
        constexpr SupportScheme S = decltype(sc)::value;
        const std::string config =
            std::to_string(D) + "D " + (sizeof(T) == 4 ? "float" : "double") +
            (jitter ? " jittered" : " lattice") + " scheme " + std::to_string(int(S));
        const auto list =
            build_neighbor_list<S>(ex, s.search_points(), s.search_points(), mc.domain);
        run_matrix_rows<S, K>(mc, s, list, config + " list");
        const auto grid =
            search::build_search_grid<S>(ex, s.search_points(), s.search_points(), mc.domain);
        run_matrix_rows<S, K>(mc, s, grid, config + " grid");
      });
    }
  }
}

} // namespace sphad::test
