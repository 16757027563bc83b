// SPDX-License-Identifier: MIT
// The distributed layer on the CUDA space: a halo and a migration over device arrays (staged
// through host memory when the MPI has no CUDA support, as Debian's), their recorded adjoints,
// on this run's ranks. Needs a GPU to run; CI compiles it with nvcc.
#include <sphad/dist.hpp>
#include <sphad/exec/cuda.hpp>
#include <sphad/sim.hpp>

#include "dist/dist_cases.hpp"

#include <catch2/catch.hpp>

#include <vector>

TEST_CASE("dist on CUDA: halo gather, its transpose, migration and their records match the host",
          "[dist][cuda]") {
  using namespace sphad;
  using V2 = Vec<double, 2>;
  const dist::Communicator comm;
  const exec::cuda gpu{};
  const Domain<2, double> domain{V2::filled(0.0), V2::filled(1.0), {true, true}};
  std::vector<V2> x;
  for (int j = 0; j < 12; ++j) {
    for (int i = 0; i < 12; ++i) {
      x.push_back({(i + 0.5) / 12, (j + 0.5 + 0.3 * (i % 3)) / 12});
    }
  }
  const auto decomposition = dist::bisection(comm, domain, test::view_of(x));
  const auto ids = test::owned_ids(comm, decomposition, x);
  const auto owned = test::rows(x, ids);
  const auto x_gpu = exec::to_buffer(gpu, owned);
  const Span<const V2> x_view{x_gpu.data(), x_gpu.size()};
  const dist::HaloPlan<exec::cuda> plan(comm, gpu, decomposition, x_view, 0.2);
  const dist::HaloPlan<exec::host> host_plan(comm, exec::host{}, decomposition,
                                             test::view_of(owned), 0.2);
  REQUIRE(plan.ghosts() == host_plan.ghosts());
  const auto extended = dist::halo_gather(gpu, plan, x_view);
  const auto extended_host = dist::halo_gather(exec::host{}, host_plan, test::view_of(owned));
  const auto back = exec::to_host(gpu, extended.data(), extended.size());
  double wrong = 0;
  for (std::int64_t k = 0; k < host_plan.extended(); ++k) {
    wrong += back[std::size_t(k)][0] != extended_host[k][0] ||
             back[std::size_t(k)][1] != extended_host[k][1];
  }
  CHECK(test::rank_max(comm, wrong) == 0);
  // ∂/∂x_j Σ_ranks ‖G x‖² = 2 (1 + copies) x_j: the same bits as the host.
  const auto gradient = [&](const auto& exec, const auto& halo, Span<const V2> at) {
    using Exec = std::decay_t<decltype(exec)>;
    Tape<Exec> tape(exec);
    const Variable<V2> var(at.data(), at.size());
    const auto y = dist::record_halo_gather(tape, halo, var);
    tape.backward(dist::record_all_sum(tape, comm, record_squared_norm(tape, y)));
    return exec::to_host(exec, tape.gradient(var).data(), at.size());
  };
  const auto g_gpu = gradient(gpu, plan, x_view);
  const auto g_host = gradient(exec::host{}, host_plan, test::view_of(owned));
  double differ = 0;
  for (std::size_t j = 0; j < owned.size(); ++j) {
    differ += g_gpu[j][0] != g_host[j][0] || g_gpu[j][1] != g_host[j][1];
  }
  CHECK(test::rank_max(comm, differ) == 0);
  // Migration after a shift by a third of the box: the device move equals the host's.
  std::vector<V2> shifted = owned;
  for (auto& p : shifted) {
    p[0] += 1.0 / 3;
  }
  const auto shifted_gpu = exec::to_buffer(gpu, shifted);
  const Span<const V2> shifted_view{shifted_gpu.data(), shifted_gpu.size()};
  const dist::MigrationPlan<exec::cuda> move(comm, gpu, decomposition, shifted_view);
  const dist::MigrationPlan<exec::host> move_host(comm, exec::host{}, decomposition,
                                                  test::view_of(shifted));
  REQUIRE(move.after() == move_host.after());
  const auto moved =
      exec::to_host(gpu, dist::migrate(gpu, move, shifted_view).data(), move.after());
  const auto moved_host = dist::migrate(exec::host{}, move_host, test::view_of(shifted));
  double misplaced = 0;
  for (std::int64_t i = 0; i < move.after(); ++i) {
    misplaced += moved[std::size_t(i)][0] != moved_host[i][0];
  }
  CHECK(test::rank_max(comm, misplaced) == 0);
  Tape<exec::cuda> tape(gpu);
  const Variable<V2> var(shifted_view.data(), shifted_view.size());
  tape.backward(dist::record_all_sum(
      tape, comm, record_squared_norm(tape, dist::record_migrate(tape, move, var))));
  const auto g = exec::to_host(gpu, tape.gradient(var).data(), var.size());
  double error = 0;
  for (std::size_t j = 0; j < shifted.size(); ++j) {
    error = std::max(error, std::abs(g[j][0] - 2 * shifted[j][0]));
  }
  CHECK(test::rank_max(comm, error) == 0);
}
