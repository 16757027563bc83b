// SPDX-License-Identifier: MIT
// Fuzz target: the runtime front end, `ops::evaluate_into`, from arbitrary operation properties
// (unknown enum values among them), particle counts, values (NaN, ±∞, huge, zero and negative
// supports, unknown kinds), domains, options, output sizes, and three kinds of adjacency: a
// searched list, a hand-made list of arbitrary offsets and indices, and a search grid.
// Checks: no crash, leak or undefined behaviour; a rejected call leaves the output untouched;
// an accepted one gives the same bits when repeated.
#include "evaluate_fields.hpp"
#include "hand_made_list.hpp"

#include <cstdint>
#include <vector>

using namespace sphad;
using fuzz_evaluate::D;
using fuzz_evaluate::evaluate_over;
using fuzz_evaluate::V;

namespace {

constexpr Operation operations[] = {
    Operation::Interpolate, Operation::Gradient, Operation::Divergence, Operation::Curl,
    Operation::Laplacian,   Operation::Density,  Operation::Covariance};
constexpr KernelId kernel_ids[] = {KernelId::Wendland2, KernelId::CubicSpline, KernelId::Wendland4};
constexpr SupportScheme supports[] = {
    SupportScheme::Gather,         SupportScheme::Scatter,
    SupportScheme::MeanSymmetric,  SupportScheme::KernelMeanSymmetric,
    SupportScheme::SuperSymmetric, SupportScheme::PartialSymmetric};
constexpr GradientScheme gradient_schemes[] = {GradientScheme::Naive, GradientScheme::Difference,
                                               GradientScheme::Summation,
                                               GradientScheme::Symmetric};
constexpr LaplacianScheme laplacian_schemes[] = {LaplacianScheme::Naive, LaplacianScheme::Brookshaw,
                                                 LaplacianScheme::Dot, LaplacianScheme::Default};
constexpr DivergenceMode divergence_modes[] = {DivergenceMode::Standard, DivergenceMode::Dot};

/// Arrays a particle set views: sizes usually agree, sometimes one is short.
struct Particles {
  std::vector<V> x;
  std::vector<double> h, m, rho;
  std::vector<std::int32_t> kinds;

  Particles(fuzz::Bytes& in, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) {
      x.push_back(in.point<D>(-1.2, 1.2));
      h.push_back(in.real(0.2, 0.9));
      m.push_back(in.real(0.01, 0.1));
      rho.push_back(in.real(0.5, 2.0));
      const std::uint8_t k = in.byte();
      kinds.push_back(k < 200 ? 0 : k < 250 ? std::int32_t(k % 4) : std::int32_t(k) - 252);
    }
    const std::uint8_t short_array = in.byte();
    if (n > 0 && short_array >= 248) {
      switch (short_array % 4) {
      case 0:
        h.pop_back();
        break;
      case 1:
        m.pop_back();
        break;
      case 2:
        rho.pop_back();
        break;
      default:
        kinds.pop_back();
        break;
      }
    }
  }
  ParticleSet<D, double> view(bool with_densities) const {
    const auto size = [](const auto& v) { return std::int64_t(v.size()); };
    ParticleSet<D, double> set{
        {x.data(), size(x)}, {h.data(), size(h)}, {m.data(), size(m)}, {kinds.data(), size(kinds)}};
    return with_densities ? set.with_densities(Span<const double>{rho.data(), size(rho)}) : set;
  }
};

} // namespace

namespace fuzz_evaluate {
void evaluate_over(fuzz::Bytes& in,
                   const OperationProperties& properties,
                   const ParticleSet<D, double>& queries,
                   const ParticleSet<D, double>& references,
                   const Domain<D, double>& domain,
                   const search::HashGrid<D, double, exec::host>& adjacency,
                   const ApplyOptions<double>& options) {
  detail::evaluate_fields(in, properties, queries, references, domain, adjacency, options);
}
} // namespace fuzz_evaluate

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  const exec::host ex;
  OperationProperties properties;
  properties.operation = in.choice(operations, 7);
  properties.kernel = in.choice(kernel_ids, 3);
  properties.support = in.choice(supports, 6);
  properties.gradient_scheme = in.choice(gradient_schemes, 4);
  properties.laplacian_scheme = in.choice(laplacian_schemes, 4);
  properties.divergence_mode = in.choice(divergence_modes, 2);
  properties.consistent_divergence = in.flag();
  properties.positive_divergence = in.flag();

  Domain<D, double> domain{{-1, -1}, {1, 1}, {in.flag(), in.flag()}};
  if (in.byte() >= 240) {
    domain.min = in.point<D>(-2, 0);
    domain.max = in.point<D>(0, 2);
  }
  ApplyOptions<double> options;
  options.direction = static_cast<OperationDirection>(in.small(-1, 15));
  if (in.byte() >= 224) {
    options.calibration_n_h = in.real(0, 60);
  }

  const std::int64_t nr = in.small(0, 12);
  const bool same_set = in.flag();
  const std::int64_t nq = same_set ? nr : in.small(0, 12);
  const Particles reference_arrays(in, nr);
  const Particles query_arrays = same_set ? reference_arrays : Particles(in, nq);
  const auto references = reference_arrays.view(in.flag());
  const auto queries = query_arrays.view(in.flag());

  switch (in.small(0, 2)) {
  case 0: { // a searched list
    SearchOptions<double> search;
    if (in.byte() >= 224) {
      search.max_support = in.real(0, 1);
    }
    search.skin = in.byte() >= 224 ? in.real(0, 0.3) : 0.0;
    const SupportScheme scheme = in.choice(supports, 6);
    NeighborList<exec::host> list;
    if (fuzz::accepts([&] {
          list = build_neighbor_list(ex, queries.search_points(), references.search_points(),
                                     domain, scheme, search);
        })) {
      evaluate_over(in, properties, queries, references, domain, list, options);
    }
    break;
  }
  case 1: { // a hand-made list
    auto list = fuzz::hand_made_list(in, nq, nr);
    if (in.flag()) { // the user checked it first
      fuzz::accepts([&] { validate(ex, list, nr); });
    }
    evaluate_over(in, properties, queries, references, domain, list, options);
    break;
  }
  default: { // the search grid
    const SupportScheme scheme = in.choice(supports, 6);
    search::HashGrid<D, double, exec::host> grid;
    if (fuzz::accepts([&] {
          grid = kernels::dispatch(scheme, [&](auto s) {
            return search::build_search_grid<decltype(s)::value>(
                ex, queries.search_points(), references.search_points(), domain);
          });
        })) {
      evaluate_over(in, properties, queries, references, domain, grid, options);
    }
    break;
  }
  }
  return 0;
}
