// SPDX-License-Identifier: MIT
// Cross-check against the reference implementation (warpsphcore 0.6.0, float64, CPU): the
// outputs in tests/data/reference/ were written by tools/reference/generate.py for one jittered
// 64-particle 2D set with varying supports. Every operator × scheme × support scheme here must
// agree to 1e-10 (relative to the largest magnitude of the output). Where a binding decision
// deviates from the reference, the comparison says which.
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "support/reference_data.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace sphad;
using test::reference::Inputs;
using test::reference::load_inputs;
using test::reference::relative_error;

namespace {

const char* scheme_name(SupportScheme s) {
  switch (s) {
  case SupportScheme::Gather:
    return "Gather";
  case SupportScheme::Scatter:
    return "Scatter";
  case SupportScheme::MeanSymmetric:
    return "MeanSymmetric";
  case SupportScheme::KernelMeanSymmetric:
    return "KernelMeanSymmetric";
  case SupportScheme::SuperSymmetric:
    return "SuperSymmetric";
  default:
    return "PartialSymmetric";
  }
}

template <class K, SupportScheme S>
void compare_all(const Inputs& in,
                 const std::string& kernel,
                 bool all_operators,
                 double tolerance = 1e-10) {
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const exec::host ex;
  const auto s = in.p.view();
  const auto list = build_neighbor_list<SupportScheme::SuperSymmetric>(ex, s.search_points(),
                                                                       s.search_points(), domain);
  const Span<const double> f{in.f.data(), std::int64_t(in.f.size())};
  const Span<const Vec<double, 2>> v{in.v.data(), std::int64_t(in.v.size())};
  const std::string suffix = std::string("_") + scheme_name(S) + ".txt";
  const auto check = [&](const std::string& what, double error) {
    INFO(kernel << " " << what << suffix << ": relative error " << error);
    CHECK(error <= tolerance);
  };
  using G = GradientScheme;
  using L = LaplacianScheme;
  check("Density", relative_error(apply<ops::Density<K, S>>(ex, s, s, domain, list),
                                  kernel + "_Density" + suffix));
  check("Gradient_Naive",
        relative_error(apply<ops::Gradient<K, G::Naive, S>>(ex, s, s, domain, list, f, f),
                       kernel + "_Gradient_Naive" + suffix));
  check("Gradient_Difference",
        relative_error(apply<ops::Gradient<K, G::Difference, S>>(ex, s, s, domain, list, f, f),
                       kernel + "_Gradient_Difference" + suffix));
  if (!all_operators) {
    return;
  }
  check("Gradient_Symmetric",
        relative_error(apply<ops::Gradient<K, G::Symmetric, S>>(ex, s, s, domain, list, f, f),
                       kernel + "_Gradient_Symmetric" + suffix));
  check("Gradient_Summation",
        relative_error(apply<ops::Gradient<K, G::Summation, S>>(ex, s, s, domain, list, f, f),
                       kernel + "_Gradient_Summation" + suffix));
  check("Interpolate", relative_error(apply<ops::Interpolate<K, S>>(ex, s, s, domain, list, f, f),
                                      kernel + "_Interpolate" + suffix));
  check("Divergence_Naive",
        relative_error(apply<ops::Divergence<K, G::Naive, S>>(ex, s, s, domain, list, v, v),
                       kernel + "_Divergence_Naive" + suffix));
  check("Divergence_Difference",
        relative_error(apply<ops::Divergence<K, G::Difference, S>>(ex, s, s, domain, list, v, v),
                       kernel + "_Divergence_Difference" + suffix));
  check("Curl_Difference",
        relative_error(apply<ops::Curl<K, G::Difference, S>>(ex, s, s, domain, list, v, v),
                       kernel + "_Curl_Difference" + suffix));
  // Under KernelMeanSymmetric the naive kernel Laplacian is the average of the two
  // evaluations (as SuperSymmetric), not the reference's max-h evaluation.
  const std::string naive_laplacian_suffix =
      S == SupportScheme::KernelMeanSymmetric ? "_SuperSymmetric.txt" : suffix;
  check(
      "Laplacian_Naive (averaged under KernelMeanSymmetric)",
      relative_error(apply<ops::Laplacian<K, L::Naive, G::Naive, S>>(ex, s, s, domain, list, f, f),
                     kernel + "_Laplacian_Naive" + naive_laplacian_suffix));
  check("Laplacian_Brookshaw", relative_error(apply<ops::Laplacian<K, L::Brookshaw, G::Naive, S>>(
                                                  ex, s, s, domain, list, f, f),
                                              kernel + "_Laplacian_Brookshaw" + suffix));
  check("Laplacian_Default", relative_error(apply<ops::Laplacian<K, L::Default, G::Naive, S>>(
                                                ex, s, s, domain, list, f, f),
                                            kernel + "_Laplacian_Default" + suffix));
  check("Laplacian_Dot",
        relative_error(apply<ops::Laplacian<K, L::Dot, G::Naive, S>>(ex, s, s, domain, list, v, v),
                       kernel + "_Laplacian_Dot" + suffix));
  check("Covariance", relative_error(apply<ops::Covariance<K, S>>(ex, s, s, domain, list),
                                     kernel + "_Covariance" + suffix));
}

} // namespace

TEST_CASE("ops: every operator and scheme agrees with the reference implementation to 1e-10",
          "[ops][reference]") {
  const auto in = load_inputs();
  for (const SupportScheme scheme :
       {SupportScheme::Gather, SupportScheme::Scatter, SupportScheme::MeanSymmetric,
        SupportScheme::KernelMeanSymmetric, SupportScheme::SuperSymmetric}) {
    kernels::dispatch(scheme, [&](auto s) {
      constexpr SupportScheme S = decltype(s)::value;
      compare_all<kernels::Wendland4, S>(in, "Wendland4", true);
      compare_all<kernels::CubicSpline, S>(in, "CubicSpline", false);
      // The Dehnen & Aly comparison kernels, to 1e-12.
      compare_all<kernels::HOCT4, S>(in, "HOCT4", true, 1e-12);
      compare_all<kernels::Gaussian, S>(in, "Gaussian", true, 1e-12);
    });
  }
}
