// SPDX-License-Identifier: MIT
// Migration: every particle lands on the rank whose region holds it, in (source rank, index)
// order; the recorded move's adjoint sends each adjoint back where its particle came from; errors
// raised on every rank.
#include <sphad/sim.hpp>

#include "dist/dist_cases.hpp"

#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <vector>

namespace sphad::test {
namespace {

using V2 = Vec<double, 2>;

/// 200 random particles in [0, 1)², all of them on rank 0 (the others hold none).
std::vector<V2> scattered_on_rank_zero(const dist::Communicator& comm) {
  std::vector<V2> x;
  if (comm.rank() == 0) {
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < 200; ++i) {
      x.push_back({u(rng), u(rng)});
    }
  }
  return x;
}

struct Weighted {
  template <class W, class X>
  SPHAD_HOST_DEVICE auto operator()(const W& w, const X& y) const {
    return (w + 1.0) * dot(y, y);
  }
};

} // namespace

TEST_CASE("dist: migration moves every particle to its region's rank, in a fixed order, and "
          "its recorded adjoint moves the adjoints back",
          "[dist][migration]") {
  const dist::Communicator comm;
  const Domain<2, double> domain{V2::filled(0.0), V2::filled(1.0), {true, false}};
  const auto x = scattered_on_rank_zero(comm);
  const auto decomposition = dist::bisection(comm, domain, view_of(x));
  const dist::MigrationPlan<exec::host> plan(comm, exec::host{}, decomposition, view_of(x));
  CHECK(plan.before() == std::int64_t(x.size()));
  CHECK(rank_sum(comm, double(plan.after())) == 200);
  // Bisection balanced the counts: 200 / ranks each, give or take one.
  CHECK(rank_max(comm, std::abs(double(plan.after()) - 200.0 / comm.size())) <= 1);
  std::vector<double> id;
  for (std::size_t i = 0; i < x.size(); ++i) {
    id.push_back(double(i));
  }
  const auto moved = dist::migrate(exec::host{}, plan, view_of(x));
  const auto moved_id = dist::migrate(exec::host{}, plan, view_of(id));
  double wrong = 0;
  for (std::int64_t i = 0; i < plan.after(); ++i) {
    wrong += decomposition.owner(moved[i]) != comm.rank();
    wrong += i > 0 && moved_id[i] <= moved_id[i - 1]; // all from rank 0: increasing index
  }
  CHECK(rank_max(comm, wrong) == 0);
  // A second migration from where they are moves nothing.
  const dist::MigrationPlan<exec::host> again(comm, exec::host{}, decomposition,
                                              Span<const V2>{moved.data(), moved.size()});
  CHECK(again.after() == plan.after());
  CHECK(again.send_counts()[std::size_t(comm.rank())] == plan.after());
  // Recorded: L = Σ_ranks Σ_i w_i |M x|_i² with w_i = moved id + 1 → ∂L/∂x_j = 2 (j + 1) x_j.
  auto positions = x;
  Tape<exec::host> tape;
  const Variable<V2> var(Span<V2>{positions.data(), std::int64_t(positions.size())});
  const auto y = dist::record_migrate(tape, plan, var);
  tape.backward(
      dist::record_all_sum(tape, comm,
                           record_reduce(tape, plan.after(), Weighted{},
                                         Span<const double>{moved_id.data(), moved_id.size()}, y)));
  double error = 0;
  for (std::size_t j = 0; j < x.size(); ++j) {
    for (int c = 0; c < 2; ++c) {
      error = std::max(
          error, std::abs(tape.gradient(var)[std::int64_t(j)][c] - 2 * (double(j) + 1) * x[j][c]));
    }
  }
  CHECK(rank_max(comm, error) <= 1e-13);
}

TEST_CASE("dist: a particle that no region holds stops the migration on every rank",
          "[dist][migration][errors]") {
  const dist::Communicator comm;
  const Domain<2, double> domain{V2::filled(0.0), V2::filled(1.0), {true, false}};
  const auto decomposition = dist::slabs(domain, comm.size());
  std::vector<V2> x{{0.5, 0.5}};
  const int last = comm.size() - 1;
  SECTION("outside the domain on an open axis") {
    if (comm.rank() == last) {
      x.push_back({0.5, -0.25});
    }
    CHECK_THROWS_WITH(
        dist::MigrationPlan<exec::host>(comm, exec::host{}, decomposition, view_of(x)),
        Catch::Contains("dist::MigrationPlan: argument `positions`: entry 1 at (0.5, -0.25) "
                        "lies outside every rank's region") &&
            Catch::Contains("(on rank " + std::to_string(last) + ")"));
  }
  SECTION("not a number") {
    if (comm.rank() == last) {
      x.push_back({0.5, std::numeric_limits<double>::quiet_NaN()});
    }
    CHECK_THROWS_WITH(
        dist::MigrationPlan<exec::host>(comm, exec::host{}, decomposition, view_of(x)),
        Catch::Contains("outside every rank's region"));
  }
  SECTION("a view of the wrong size") {
    const dist::MigrationPlan<exec::host> plan(comm, exec::host{}, decomposition, view_of(x));
    std::vector<double> in(x.size() + (comm.rank() == 0 ? 1 : 0)), out(std::size_t(plan.after()));
    CHECK_THROWS_WITH(
        dist::migrate(exec::host{}, plan, view_of(in), Span<double>{out.data(), plan.after()}),
        Catch::Contains("argument `in`") && Catch::Contains("(on rank 0)"));
  }
}

} // namespace sphad::test
