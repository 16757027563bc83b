// SPDX-License-Identifier: MIT
// The evaluate fuzz target's calls over neighbour lists (see evaluate_fields.hpp).
#include "evaluate_fields.hpp"

namespace fuzz_evaluate {

void evaluate_over(fuzz::Bytes& in,
                   const OperationProperties& properties,
                   const ParticleSet<D, double>& queries,
                   const ParticleSet<D, double>& references,
                   const Domain<D, double>& domain,
                   const NeighborList<exec::host>& adjacency,
                   const ApplyOptions<double>& options) {
  detail::evaluate_fields(in, properties, queries, references, domain, adjacency, options);
}

} // namespace fuzz_evaluate
