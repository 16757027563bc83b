// SPDX-License-Identifier: MIT
// Fuzz target: the runtime front end, `ops::evaluate_into`, from arbitrary operation properties
// (unknown enum values among them), particle counts, values (NaN, ±∞, huge, zero and negative
// supports, unknown kinds), domains, options, output sizes, and three kinds of adjacency: a
// searched list, a hand-made list of arbitrary offsets and indices, and a search grid.
// Checks: no crash, leak or undefined behaviour; a rejected call leaves the output untouched;
// an accepted one gives the same bits when repeated.
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "fuzz_input.hpp"
#include "hand_made_list.hpp"

#include <cstdint>
#include <vector>

using namespace sphad;

namespace {

constexpr int D = 2;
using V = Vec<double, D>;
// One kernel keeps the build to minutes: the kernel changes no check (an id that is not
// enabled, or unknown, must be rejected like any other bad value).
using Kernels = kernels::KernelList<kernels::Wendland2>;

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

/// Evaluates twice into outputs of `out_size` scalars (and Covariance counts when asked).
template <class Adjacency, class F>
void evaluate(fuzz::Bytes& in,
              const OperationProperties& properties,
              const ParticleSet<D, double>& queries,
              const ParticleSet<D, double>& references,
              const Domain<D, double>& domain,
              const Adjacency& adjacency,
              const std::vector<F>& query_values,
              const std::vector<F>& reference_values,
              const ApplyOptions<double>& options) {
  const exec::host ex;
  std::int64_t per_query = 0;
  if (!fuzz::accepts([&] { per_query = ops::output_scalars<D, double, F>(properties); })) {
    per_query = in.small(0, 4);
  }
  std::int64_t out_size = queries.size() * per_query;
  if (in.byte() >= 248) {
    out_size += in.small(-1, 1);
  }
  out_size = std::max<std::int64_t>(out_size, 0);
  const bool counts = in.flag();
  const double sentinel = -1234.5;
  std::vector<double> out(std::size_t(out_size), sentinel);
  std::vector<std::int32_t> neighbor_counts(counts ? std::size_t(queries.size()) : 0, -7);
  const auto run = [&](std::vector<double>& o, std::vector<std::int32_t>& c) {
    ops::evaluate_into<Kernels>(
        ex, properties, queries, references, domain, adjacency,
        Span<const F>{query_values.data(), std::int64_t(query_values.size())},
        Span<const F>{reference_values.data(), std::int64_t(reference_values.size())},
        Span<double>{o.data(), std::int64_t(o.size())},
        Span<std::int32_t>{c.data(), std::int64_t(c.size())}, options);
  };
  if (!fuzz::accepts([&] { run(out, neighbor_counts); })) {
    for (const double v : out) {
      if (!fuzz::same_bits(&v, &sentinel, 1)) {
        fuzz::finding("a rejected call wrote its output");
      }
    }
    for (const std::int32_t c : neighbor_counts) {
      if (c != -7) {
        fuzz::finding("a rejected call wrote its neighbour counts");
      }
    }
    return;
  }
  std::vector<double> again(out.size(), 0.0);
  std::vector<std::int32_t> counts_again(neighbor_counts.size(), 0);
  run(again, counts_again);
  if (!fuzz::same_bits(out.data(), again.data(), std::int64_t(out.size())) ||
      counts_again != neighbor_counts) {
    fuzz::finding("the same call gave different bits");
  }
}

template <class Adjacency>
void evaluate_fields(fuzz::Bytes& in,
                     const OperationProperties& properties,
                     const ParticleSet<D, double>& queries,
                     const ParticleSet<D, double>& references,
                     const Domain<D, double>& domain,
                     const Adjacency& adjacency,
                     const ApplyOptions<double>& options) {
  const auto sized = [&](std::int64_t n) {
    return in.byte() >= 248 ? std::max<std::int64_t>(n + in.small(-1, 1), 0) : n;
  };
  if (in.flag()) {
    std::vector<double> fq(std::size_t(sized(queries.size()))),
        fr(std::size_t(sized(references.size())));
    for (auto& v : fq) {
      v = in.real(-2, 2);
    }
    for (auto& v : fr) {
      v = in.real(-2, 2);
    }
    evaluate(in, properties, queries, references, domain, adjacency, fq, fr, options);
  } else {
    std::vector<V> fq(std::size_t(sized(queries.size()))),
        fr(std::size_t(sized(references.size())));
    for (auto& v : fq) {
      v = in.point<D>(-2, 2);
    }
    for (auto& v : fr) {
      v = in.point<D>(-2, 2);
    }
    evaluate(in, properties, queries, references, domain, adjacency, fq, fr, options);
  }
}

} // namespace

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
      evaluate_fields(in, properties, queries, references, domain, list, options);
    }
    break;
  }
  case 1: { // a hand-made list
    auto list = fuzz::hand_made_list(in, nq, nr);
    if (in.flag()) { // the user checked it first
      fuzz::accepts([&] { validate(ex, list, nr); });
    }
    evaluate_fields(in, properties, queries, references, domain, list, options);
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
      evaluate_fields(in, properties, queries, references, domain, grid, options);
    }
    break;
  }
  }
  return 0;
}
