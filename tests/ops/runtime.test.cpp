// SPDX-License-Identifier: MIT
#include <sphad/ops/runtime.hpp>
#include <sphad/search.hpp>

#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

using namespace sphad;
using test::span;
using K4 = kernels::Wendland4;
using G = GradientScheme;
using L = LaplacianScheme;
using S = SupportScheme;

namespace {

/// Every value of each field of OperationProperties, plus the properties they make.
template <class F>
void for_each_properties(F&& f) {
  const Operation operations[] = {
      Operation::Interpolate, Operation::Gradient, Operation::Divergence, Operation::Curl,
      Operation::Laplacian,   Operation::Density,  Operation::Covariance};
  const S supports[] = {S::Gather,         S::Scatter,
                        S::MeanSymmetric,  S::KernelMeanSymmetric,
                        S::SuperSymmetric, S::PartialSymmetric};
  for (const Operation operation : operations) {
    for (const KernelId kernel : kernels::all_kernel_ids) {
      for (const S support : supports) {
        for (const G gradient : {G::Naive, G::Symmetric, G::Difference, G::Summation}) {
          for (const L laplacian : {L::Naive, L::Brookshaw, L::Dot, L::Default}) {
            for (const DivergenceMode mode : {DivergenceMode::Standard, DivergenceMode::Dot}) {
              for (const bool consistent : {false, true}) {
                for (const bool positive : {false, true}) {
                  f(OperationProperties{operation, kernel, support, gradient, laplacian, mode,
                                        consistent, positive});
                }
              }
            }
          }
        }
      }
    }
  }
}

/// The 2D test set: a jittered 12×12 lattice in a periodic box with a scalar and a vector field.
struct Case {
  test::Particles<2, double> p = test::lattice<2, double>(12, 20);
  Domain<2, double> domain{{-1, -1}, {1, 1}, {true, true}};
  std::vector<double> f;
  std::vector<Vec<double, 2>> v;
  NeighborList<exec::host> list;

  Case() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-0.2, 0.2);
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      p.x[i] += Vec<double, 2>{u(rng), u(rng)} * (2.0 / 12);
      p.rho[i] = 1 + 0.5 * u(rng);
      p.kinds[i] = int(i % 3 == 0); // fluid and boundary
      f.push_back(std::sin(2 * p.x[i][0]) + p.x[i][1]);
      v.push_back({p.x[i][1] * p.x[i][1], std::cos(p.x[i][0])});
    }
    list = test::all_pairs_list(p, domain);
  }
};

/// evaluate_into's flat output equals apply_into of the type Op, scalar for scalar.
template <class Op, class F>
void check_equal_to_apply(const Case& c,
                          const OperationProperties& properties,
                          const std::vector<F>& values) {
  using Kernels = kernels::KernelList<K4>;
  using Supports = ops::SupportList<S::Gather, S::Scatter>;
  const exec::host ex;
  const auto s = c.p.view();
  const ApplyOptions<double> options{OperationDirection::FluidToAll, 0};
  const std::int64_t n = s.size();
  const auto per_query = ops::output_scalars<2, double, F>(properties);
  std::vector<double> flat(std::size_t(n * per_query), -1.0);
  ops::evaluate_into<Kernels, Supports>(ex, properties, s, s, c.domain, c.list, span(values),
                                        span(values), Span<double>{flat.data(), n * per_query}, {},
                                        options);
  using Out = typename Op::template output_t<2, double, F>;
  std::vector<Out> expected(static_cast<std::size_t>(n));
  apply_into<Op>(ex, s, s, c.domain, c.list, span(values), span(values),
                 Span<Out>{expected.data(), n}, options);
  REQUIRE(per_query * sizeof(double) == sizeof(Out));
  CHECK(std::memcmp(flat.data(), expected.data(), flat.size() * sizeof(double)) == 0);
}
} // namespace

// Every combination instantiated (~3 300 operator types): built with the exhaustive matrices
// (SPHAD_BUILD_MATRIX_TESTS), not in the sanitizer build, where it took 105 s to compile and
// checks no memory access.
#ifdef SPHAD_EXHAUSTIVE_TESTS
TEST_CASE("ops::dispatch gives the operator type each combination of properties names",
          "[ops][runtime]") {
  std::int64_t checked = 0;
  for_each_properties([&](const OperationProperties& p) {
    const OperationProperties named =
        ops::dispatch(p, [](auto op) { return decltype(op)::properties; });
    if (named != canonical(p)) {
      FAIL_CHECK("operation " << int(p.operation) << " kernel " << int(p.kernel) << " support "
                              << int(p.support) << " gradient " << int(p.gradient_scheme)
                              << " laplacian " << int(p.laplacian_scheme));
    }
    ++checked;
  });
  CHECK(checked == 7 * 15 * 6 * 4 * 4 * 2 * 2 * 2); // operations, kernels, supports, ...
  // A type's properties name its own parameters, with the Laplacian's Difference canonical.
  STATIC_REQUIRE(ops::Laplacian<K4, L::Dot, G::Difference, S::Scatter, true>::properties ==
                 OperationProperties{Operation::Laplacian, KernelId::Wendland4, S::Scatter,
                                     G::Naive, L::Dot, DivergenceMode::Standard, false, true});
  STATIC_REQUIRE(ops::Divergence<K4, G::Summation, S::Gather, DivergenceMode::Dot, true>::properties
                     .consistent_divergence);
}
#endif

TEST_CASE("ops::dispatch rejects unknown and not-enabled values, naming the field",
          "[ops][runtime][errors]") {
  const auto name_of = [](OperationProperties p) {
    return ops::dispatch<kernels::KernelList<K4>, ops::SupportList<S::Gather>>(
        p, [](auto op) { return int(decltype(op)::properties.operation); });
  };
  OperationProperties p;
  CHECK(name_of(p) == int(Operation::Interpolate));
  const auto rejects = [&](OperationProperties bad, const char* message) {
    CHECK_THROWS_WITH(name_of(bad), Catch::Contains(message));
  };
  OperationProperties bad = p;
  bad.operation = Operation(8); // the reference's Custom
  rejects(bad, "argument `properties.operation`: unknown or not enabled value 8");
  bad = p;
  bad.kernel = KernelId(99);
  rejects(bad, "argument `properties.kernel`: unknown KernelId (got 99)");
  bad.kernel = KernelId::CubicSpline;
  rejects(bad, "argument `properties.kernel`: CubicSpline is not in the kernel list");
  bad = p;
  bad.support = S::Scatter;
  rejects(bad, "argument `properties.support`: unknown or not enabled value 12");
  bad = p;
  bad.operation = Operation::Gradient;
  bad.gradient_scheme = G(0);
  rejects(bad, "argument `properties.gradient_scheme`");
  bad = p;
  bad.operation = Operation::Laplacian;
  bad.laplacian_scheme = L(5);
  rejects(bad, "argument `properties.laplacian_scheme`");
  bad = p;
  bad.operation = Operation::Divergence;
  bad.divergence_mode = DivergenceMode(2);
  rejects(bad, "argument `properties.divergence_mode`");
  // Fields an operation does not read are not checked (canonical resets them).
  bad = p;
  bad.laplacian_scheme = L(5);
  CHECK(name_of(bad) == int(Operation::Interpolate));
}

TEST_CASE("ops::evaluate_into equals apply_into of the dispatched type, bitwise",
          "[ops][runtime]") {
  const Case c;
  OperationProperties p;
  p.kernel = KernelId::Wendland4;
  p.operation = Operation::Density;
  p.support = S::Scatter;
  check_equal_to_apply<ops::Density<K4, S::Scatter>>(c, p, c.f);
  p.support = S::Gather;
  p.operation = Operation::Interpolate;
  check_equal_to_apply<ops::Interpolate<K4>>(c, p, c.v);
  p.operation = Operation::Gradient;
  p.gradient_scheme = G::Symmetric;
  check_equal_to_apply<ops::Gradient<K4, G::Symmetric>>(c, p, c.f);
  check_equal_to_apply<ops::Gradient<K4, G::Symmetric>>(c, p, c.v);
  p.operation = Operation::Divergence;
  p.gradient_scheme = G::Difference;
  p.divergence_mode = DivergenceMode::Dot;
  p.consistent_divergence = true;
  check_equal_to_apply<ops::Divergence<K4, G::Difference, S::Gather, DivergenceMode::Dot, true>>(
      c, p, c.v);
  p.operation = Operation::Curl;
  check_equal_to_apply<ops::Curl<K4, G::Difference>>(c, p, c.v);
  p.operation = Operation::Laplacian;
  p.support = S::Scatter;
  p.laplacian_scheme = L::Dot;
  p.positive_divergence = true;
  check_equal_to_apply<ops::Laplacian<K4, L::Dot, G::Naive, S::Scatter, true>>(c, p, c.v);
  p.laplacian_scheme = L::Brookshaw;
  p.gradient_scheme = G::Symmetric;
  p.positive_divergence = false;
  check_equal_to_apply<ops::Laplacian<K4, L::Brookshaw, G::Symmetric, S::Scatter>>(c, p, c.f);
}

TEST_CASE("ops::evaluate_into writes Covariance matrices and, when asked, neighbour counts",
          "[ops][runtime]") {
  const Case c;
  const exec::host ex;
  const auto s = c.p.view();
  const std::int64_t n = s.size();
  OperationProperties p;
  p.operation = Operation::Covariance;
  REQUIRE(ops::output_scalars<2, double, ops::NoField>(p) == 4);
  std::vector<double> flat(std::size_t(4 * n));
  std::vector<std::int32_t> counts(std::size_t(n), -1);
  ops::evaluate_into<kernels::KernelList<K4>, ops::SupportList<S::Gather>>(
      ex, p, s, s, c.domain, c.list, Span<const ops::NoField>{}, Span<const ops::NoField>{},
      Span<double>{flat.data(), 4 * n}, Span<std::int32_t>{counts.data(), n});
  const auto expected = apply<ops::Covariance<K4>>(ex, s, s, c.domain, c.list);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto& e = expected.data()[i];
    CHECK(flat[std::size_t(4 * i + 1)] == e.matrix(0, 1));
    CHECK(flat[std::size_t(4 * i + 2)] == e.matrix(1, 0));
    CHECK(counts[std::size_t(i)] == e.neighbors);
  }
}

TEST_CASE("ops::evaluate_into rejects fields, outputs and counts that do not fit, writing nothing",
          "[ops][runtime][errors]") {
  const Case c;
  const exec::host ex;
  const auto s = c.p.view();
  const std::int64_t n = s.size();
  std::vector<double> out(std::size_t(2 * n), 7.0);
  std::vector<std::int32_t> counts(std::size_t(n), 7);
  const auto call = [&](OperationProperties p, std::int64_t out_size, std::int64_t count_size) {
    ops::evaluate_into<kernels::KernelList<K4>, ops::SupportList<S::Gather>>(
        ex, p, s, s, c.domain, c.list, span(c.f), span(c.f), Span<double>{out.data(), out_size},
        Span<std::int32_t>{counts.data(), count_size});
  };
  OperationProperties p;
  p.operation = Operation::Divergence; // of a scalar field in 2D
  CHECK_THROWS_WITH(call(p, n, 0),
                    Catch::Contains("sphad::evaluate: argument `query_values`: this operation "
                                    "does not take fields of this type"));
  p.operation = Operation::Curl;
  CHECK_THROWS_WITH(call(p, n, 0), Catch::Contains("argument `query_values`"));
  p.operation = Operation::Laplacian;
  p.laplacian_scheme = L::Dot;
  CHECK_THROWS_WITH(call(p, n, 0), Catch::Contains("argument `query_values`"));
  p.operation = Operation::Gradient;
  CHECK_THROWS_WITH(call(p, n, 0), Catch::Contains("argument `out`: has " + std::to_string(n) +
                                                   " scalars; this operation writes 2 per query"));
  CHECK_THROWS_WITH(call(p, 2 * n, n), Catch::Contains("argument `neighbor_counts`"));
  p.operation = Operation::Density;
  p.kernel = KernelId::Poly6;
  CHECK_THROWS_WITH(call(p, n, 0), Catch::Contains("argument `properties.kernel`"));
  for (const double x : out) {
    REQUIRE(x == 7.0);
  }
  for (const std::int32_t k : counts) {
    REQUIRE(k == 7);
  }
  // The gradient of a scalar field writes [Nq, D].
  p.kernel = KernelId::Wendland4;
  p.operation = Operation::Gradient;
  REQUIRE_NOTHROW(call(p, 2 * n, 0));
  CHECK(out[0] != 7.0);
}

TEST_CASE("ops::output_scalars gives each operation's flattened output size", "[ops][runtime]") {
  OperationProperties p;
  using V3 = Vec<double, 3>;
  using M3 = Mat<double, 3, 3>;
  p.operation = Operation::Density;
  CHECK(ops::output_scalars<3, double, ops::NoField>(p) == 1);
  p.operation = Operation::Interpolate;
  CHECK(ops::output_scalars<3, double, M3>(p) == 9);
  p.operation = Operation::Gradient;
  CHECK(ops::output_scalars<3, double, double>(p) == 3);
  CHECK(ops::output_scalars<3, double, V3>(p) == 9);
  CHECK(ops::output_scalars<3, double, M3>(p) == 27);
  p.operation = Operation::Divergence;
  CHECK(ops::output_scalars<3, double, V3>(p) == 1);
  CHECK(ops::output_scalars<3, double, M3>(p) == 3);
  p.operation = Operation::Curl;
  CHECK(ops::output_scalars<3, double, V3>(p) == 3);
  CHECK(ops::output_scalars<2, double, Vec<double, 2>>(p) == 1);
  p.operation = Operation::Covariance;
  CHECK(ops::output_scalars<3, double, ops::NoField>(p) == 9);
  p.operation = Operation::Laplacian;
  CHECK(ops::output_scalars<3, double, V3>(p) == 3);
}
