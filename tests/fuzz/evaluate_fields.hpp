// SPDX-License-Identifier: MIT
// The evaluate fuzz target's calls (evaluate.fuzz.cpp): `evaluate_over` runs the runtime front
// end over one kind of adjacency, twice, with scalar or vector fields. The list's instantiations
// compile in evaluate_list.cpp, the grid's in evaluate.fuzz.cpp: two translation units that
// build in parallel (one took five minutes).
#pragma once

#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "fuzz_input.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fuzz_evaluate {

using namespace sphad;

constexpr int D = 2;
using V = Vec<double, D>;
// One kernel keeps the build to minutes: the kernel changes no check (an id that is not
// enabled, or unknown, must be rejected like any other bad value).
using Kernels = kernels::KernelList<kernels::Wendland2>;

/// Both calls over `adjacency`: fields drawn from `in`, each call made twice.
void evaluate_over(fuzz::Bytes& in,
                   const OperationProperties& properties,
                   const ParticleSet<D, double>& queries,
                   const ParticleSet<D, double>& references,
                   const Domain<D, double>& domain,
                   const NeighborList<exec::host>& adjacency,
                   const ApplyOptions<double>& options);
void evaluate_over(fuzz::Bytes& in,
                   const OperationProperties& properties,
                   const ParticleSet<D, double>& queries,
                   const ParticleSet<D, double>& references,
                   const Domain<D, double>& domain,
                   const search::HashGrid<D, double, exec::host>& adjacency,
                   const ApplyOptions<double>& options);

namespace detail {

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

} // namespace detail

} // namespace fuzz_evaluate
