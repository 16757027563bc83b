// SPDX-License-Identifier: MIT
// The halo on this run's ranks: which particles become ghosts, gather and scatter-add as each
// other's transposes, their tape records, the correction pipelines across ranks against one
// rank, bitwise reproducibility, the decompositions, and errors raised on every rank at once.
#include <sphad/corrections.hpp>
#include <sphad/sim.hpp>

#include "dist/dist_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace sphad::test {
namespace {

using V2 = Vec<double, 2>;

/// A jittered 16 × 16 lattice in [0, 1)², the same on every rank.
std::vector<V2> lattice16(unsigned seed = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.2, 0.2);
  std::vector<V2> x;
  for (int j = 0; j < 16; ++j) {
    for (int i = 0; i < 16; ++i) {
      x.push_back({(i + 0.5 + u(rng)) / 16, (j + 0.5 + u(rng)) / 16});
    }
  }
  return x;
}

Domain<2, double> unit_box(bool periodic) {
  return {V2::filled(0.0), V2::filled(1.0), {periodic, periodic}};
}

double value_of_id(std::int64_t id) {
  return std::cos(0.3 + 0.91 * double(id));
}

struct Plus {
  template <class A, class B>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};

} // namespace

TEST_CASE("dist: ghosts are the other ranks' particles within the width, gather and scatter-add "
          "are transposes",
          "[dist][halo]") {
  const dist::Communicator comm;
  for (const bool periodic : {false, true}) {
    const auto domain = unit_box(periodic);
    const auto x = lattice16();
    for (const auto& decomposition :
         {dist::slabs(domain, comm.size(), 1), dist::bisection(comm, domain, view_of(x))}) {
      const auto ids = owned_ids(comm, decomposition, x);
      const double width = 0.15;
      const dist::HaloPlan<exec::host> plan(comm, exec::host{}, decomposition,
                                            view_of(rows(x, ids)), width);
      // Expected ghosts: every particle of another rank within the width of this region.
      std::int64_t expected = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const int owner = decomposition.owner(x[i]);
        expected += owner != comm.rank() && decomposition.distance(x[i], comm.rank()) <= width;
      }
      CHECK(rank_max(comm, double(std::abs(plan.ghosts() - expected))) == 0);
      CHECK(plan.owned() == std::int64_t(ids.size()));
      // Each ghost carries its owner's value: gather the ids and the positions.
      std::vector<double> id_values;
      for (const auto id : ids) {
        id_values.push_back(double(id));
      }
      const auto ghost_ids = dist::halo_gather(exec::host{}, plan, view_of(id_values));
      const auto positions = dist::halo_gather(exec::host{}, plan, view_of(rows(x, ids)));
      double wrong = 0;
      for (std::int64_t k = 0; k < plan.extended(); ++k) {
        const auto id = std::size_t(ghost_ids[k]);
        wrong += positions[k][0] != x[id][0] || positions[k][1] != x[id][1];
        if (k >= plan.owned()) {
          wrong += decomposition.owner(x[id]) == comm.rank();
          wrong += decomposition.distance(x[id], comm.rank()) > width;
        }
      }
      CHECK(rank_max(comm, wrong) == 0);
      // ⟨G u, w⟩ = ⟨u, Gᵀ w⟩ summed over the ranks.
      std::vector<double> u, w;
      for (const auto id : ids) {
        u.push_back(value_of_id(id));
      }
      for (std::int64_t k = 0; k < plan.extended(); ++k) {
        w.push_back(std::sin(1.7 * double(k) + comm.rank()));
      }
      const auto gu = dist::halo_gather(exec::host{}, plan, view_of(u));
      std::vector<double> gtw(static_cast<std::size_t>(plan.owned()));
      dist::halo_scatter_add(exec::host{}, plan, view_of(w),
                             Span<double>{gtw.data(), plan.owned()});
      double left = 0, right = 0, scale = 0;
      for (std::int64_t k = 0; k < plan.extended(); ++k) {
        left += gu[k] * w[std::size_t(k)];
        scale += std::abs(gu[k] * w[std::size_t(k)]);
      }
      for (std::int64_t i = 0; i < plan.owned(); ++i) {
        right += u[std::size_t(i)] * gtw[std::size_t(i)];
      }
      CHECK(std::abs(rank_sum(comm, left) - rank_sum(comm, right)) <=
            1e-14 * rank_sum(comm, scale));
    }
  }
}

TEST_CASE("dist: recorded gather, scatter-add and sum over ranks have their exact gradients",
          "[dist][halo][record]") {
  const dist::Communicator comm;
  const auto domain = unit_box(true);
  const auto x = lattice16();
  const auto decomposition = dist::bisection(comm, domain, view_of(x));
  const auto ids = owned_ids(comm, decomposition, x);
  const double width = 0.2;
  const dist::HaloPlan<exec::host> plan(comm, exec::host{}, decomposition, view_of(rows(x, ids)),
                                        width);
  // c_j: how many other ranks hold particle j as a ghost.
  std::vector<double> copies;
  for (const auto id : ids) {
    int c = 0;
    for (int r = 0; r < comm.size(); ++r) {
      c += r != comm.rank() && decomposition.distance(x[std::size_t(id)], r) <= width;
    }
    copies.push_back(c);
  }
  std::vector<double> u;
  for (const auto id : ids) {
    u.push_back(value_of_id(id));
  }
  Tape<exec::host> tape;
  const Variable<double> var(Span<double>{u.data(), std::int64_t(u.size())});
  // L1 = Σ_ranks ‖G u‖² → ∂/∂u_j = 2 (1 + c_j) u_j
  const auto extended = dist::record_halo_gather(tape, plan, var);
  tape.backward(dist::record_all_sum(tape, comm, record_squared_norm(tape, extended)));
  double error = 0;
  for (std::size_t j = 0; j < u.size(); ++j) {
    error =
        std::max(error, std::abs(tape.gradient(var)[std::int64_t(j)] - 2 * (1 + copies[j]) * u[j]));
  }
  // L2 = Σ_ranks ‖Gᵀ G u‖² → ∂/∂u_j = 2 (1 + c_j)² u_j
  tape.clear();
  const auto back =
      dist::record_halo_scatter_add(tape, plan, dist::record_halo_gather(tape, plan, var));
  tape.backward(dist::record_all_sum(tape, comm, record_squared_norm(tape, back)));
  for (std::size_t j = 0; j < u.size(); ++j) {
    error = std::max(error, std::abs(tape.gradient(var)[std::int64_t(j)] -
                                     2 * (1 + copies[j]) * (1 + copies[j]) * u[j]));
  }
  CHECK(rank_max(comm, error) <= 1e-14);
}

namespace {

/// The correction pipelines on this rank's share: ρ (Density over owned + ghosts), Ω, the CRK
/// factors (the apparent volumes gathered between the stages) and the renormalization matrices,
/// each owned row flattened.
std::vector<std::vector<double>> pipelines(const dist::Communicator& comm,
                                           const dist::Decomposition<2, double>& decomposition,
                                           const std::vector<V2>& x_all,
                                           const std::vector<double>& h_all,
                                           const std::vector<std::int64_t>& ids) {
  using K = kernels::Wendland4;
  const exec::host exec;
  const auto x = rows(x_all, ids);
  const auto h = rows(h_all, ids);
  const double width = *std::max_element(h_all.begin(), h_all.end());
  const dist::HaloPlan<exec::host> plan(comm, exec, decomposition, view_of(x), width);
  const std::vector<double> m(x.size(), 1.0 / 256);
  const std::vector<std::int32_t> kinds(x.size(), 0);
  const auto xe = dist::halo_gather(exec, plan, view_of(x));
  const auto he = dist::halo_gather(exec, plan, view_of(h));
  const auto me = dist::halo_gather(exec, plan, view_of(m));
  const auto ke = dist::halo_gather(exec, plan, view_of(kinds));
  const auto n = std::int64_t(x.size());
  const auto ne = plan.extended();
  const ParticleSet<2, double> own{view_of(x), view_of(h), view_of(m), view_of(kinds)};
  const ParticleSet<2, double> ext{
      {xe.data(), ne}, {he.data(), ne}, {me.data(), ne}, {ke.data(), ne}};
  const auto list = build_neighbor_list<SupportScheme::SuperSymmetric>(
      exec, own.search_points(), ext.search_points(), decomposition.domain);
  const auto rho = apply<ops::Density<K>>(exec, own, ext, decomposition.domain, list);
  const auto rho_e = dist::halo_gather(exec, plan, Span<const double>{rho.data(), n});
  std::vector<double> omega(x.size());
  corrections::grad_h_omegas_into<K>(exec, own.with_densities(Span<const double>{rho.data(), n}),
                                     ext.with_densities(Span<const double>{rho_e.data(), ne}),
                                     decomposition.domain, list, Span<double>{omega.data(), n});
  std::vector<double> volume(x.size());
  corrections::apparent_volumes_into<K>(exec, own, ext, decomposition.domain, list,
                                        Span<double>{volume.data(), n});
  const auto volume_e = dist::halo_gather(exec, plan, view_of(volume));
  std::vector<double> a(x.size());
  std::vector<V2> b(x.size()), grad_a(x.size());
  std::vector<Mat<double, 2, 2>> grad_b(x.size());
  corrections::crk_factors_into<K>(
      exec, own.with_volumes(view_of(volume)),
      ext.with_volumes(Span<const double>{volume_e.data(), ne}), decomposition.domain, list,
      corrections::CRKStateSpans<2, double>{
          {a.data(), n}, {b.data(), n}, {grad_a.data(), n}, {grad_b.data(), n}});
  const auto renormalization = corrections::compute_renormalization<K>(
      exec, own.with_densities(Span<const double>{rho.data(), n}),
      ext.with_densities(Span<const double>{rho_e.data(), ne}), decomposition.domain, list);
  std::vector<std::vector<double>> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto k = std::int64_t(i);
    for (const double s : {rho[k], omega[i], volume[i], a[i]}) {
      out[i].push_back(s);
    }
    append_scalars(b[i], out[i]);
    append_scalars(grad_a[i], out[i]);
    append_scalars(grad_b[i], out[i]);
    append_scalars(renormalization.matrices[k], out[i]);
  }
  return out;
}

} // namespace

TEST_CASE("dist: density, grad-h, CRK and renormalization pipelines on N ranks equal one rank",
          "[dist][corrections]") {
  const dist::Communicator world;
  const dist::Communicator self(MPI_COMM_SELF);
  for (const bool periodic : {false, true}) {
    const auto domain = unit_box(periodic);
    const auto x = lattice16(5);
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> u(0.85, 1.15);
    std::vector<double> h;
    for (std::size_t i = 0; i < x.size(); ++i) {
      h.push_back(3.0 / 16 * u(rng));
    }
    std::vector<std::int64_t> all(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      all[i] = std::int64_t(i);
    }
    const auto one = pipelines(self, dist::slabs(domain, 1), x, h, all);
    for (const auto& decomposition :
         {dist::slabs(domain, world.size()), dist::bisection(world, domain, view_of(x))}) {
      const auto ids = owned_ids(world, decomposition, x);
      const auto many = pipelines(world, decomposition, x, h, ids);
      const auto [error, scale] = row_error(many, one, ids);
      INFO((periodic ? "periodic" : "open") << ": " << error << " of " << scale);
      CHECK(rank_max(world, error) <= 1e-12 * scale);
    }
  }
}

TEST_CASE("dist: a distributed density loss is reproducible bit for bit and its gradient "
          "matches one rank's",
          "[dist][record]") {
  using K = kernels::Wendland4;
  const dist::Communicator world;
  const dist::Communicator self(MPI_COMM_SELF);
  const auto domain = unit_box(true);
  const auto x_all = lattice16(7);
  std::vector<std::int64_t> all(x_all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i] = std::int64_t(i);
  }
  // L = Σ Ω_i² + Σ ρ_i² over every particle; returns ∂L/∂x of the owned rows and L.
  const auto gradient = [&](const dist::Communicator& comm,
                            const dist::Decomposition<2, double>& decomposition,
                            const std::vector<std::int64_t>& ids) {
    const exec::host exec;
    auto x = rows(x_all, ids);
    const std::vector<double> h(x.size(), 3.0 / 16), m(x.size(), 1.0 / 256);
    const std::vector<std::int32_t> kinds(x.size(), 0);
    const dist::HaloPlan<exec::host> plan(comm, exec, decomposition, view_of(x), 3.0 / 16);
    const auto xe = dist::halo_gather(exec, plan, view_of(x));
    const auto he = dist::halo_gather(exec, plan, view_of(h));
    const auto me = dist::halo_gather(exec, plan, view_of(m));
    const auto ke = dist::halo_gather(exec, plan, view_of(kinds));
    const auto ne = plan.extended();
    const ParticleSet<2, double> own{view_of(x), view_of(h), view_of(m), view_of(kinds)};
    const ParticleSet<2, double> ext{
        {xe.data(), ne}, {he.data(), ne}, {me.data(), ne}, {ke.data(), ne}};
    const auto list = build_neighbor_list<SupportScheme::SuperSymmetric>(
        exec, own.search_points(), ext.search_points(), domain);
    Tape<exec::host> tape;
    const Variable<V2> xv(Span<V2>{x.data(), std::int64_t(x.size())});
    const auto own_v = own.with_positions(xv);
    const auto ext_v = ext.with_positions(dist::record_halo_gather(tape, plan, xv));
    const auto rho = record<ops::Density<K>>(tape, own_v, ext_v, domain, list);
    const auto omega = corrections::record_omegas<K>(
        tape, own_v.with_densities(rho),
        ext_v.with_densities(dist::record_halo_gather(tape, plan, rho)), domain, list);
    const auto local = record_map(tape, 1, Plus{}, record_squared_norm(tape, omega),
                                  record_squared_norm(tape, rho));
    const auto loss = dist::record_all_sum(tape, comm, local);
    tape.backward(loss);
    std::vector<std::vector<double>> out;
    for (std::int64_t i = 0; i < xv.size(); ++i) {
      out.emplace_back();
      append_scalars(tape.gradient(xv)[i], out.back());
    }
    return std::make_pair(out, loss.data()[0]);
  };
  const auto [one, one_loss] = gradient(self, dist::slabs(domain, 1), all);
  const auto decomposition = dist::bisection(world, domain, view_of(x_all));
  const auto ids = owned_ids(world, decomposition, x_all);
  const auto [many, many_loss] = gradient(world, decomposition, ids);
  const auto [again, again_loss] = gradient(world, decomposition, ids);
  const auto [error, scale] = row_error(many, one, ids);
  CHECK(rank_max(world, error) <= 1e-12 * scale);
  CHECK(std::abs(many_loss - one_loss) <= 1e-12 * std::abs(one_loss));
  CHECK(again == many);
  CHECK(again_loss == many_loss);
}

TEST_CASE("dist: decompositions balance their weight", "[dist][decomposition]") {
  const dist::Communicator comm;
  const auto domain = unit_box(false);
  const auto x = lattice16();
  std::vector<std::int64_t> weights;
  for (const auto& p : x) {
    weights.push_back(p[0] < 0.5 ? 3 : 1);
  }
  for (const int axis : {-1, 0}) {
    const auto decomposition = dist::bisection(comm, domain, view_of(x), view_of(weights), axis);
    REQUIRE(decomposition.ranks() == comm.size());
    std::vector<std::int64_t> per_rank(std::size_t(comm.size()), 0);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const int owner = decomposition.owner(x[i]);
      REQUIRE(owner >= 0);
      per_rank[std::size_t(owner)] += weights[i];
      total += weights[i];
    }
    // A cut cannot split a lattice row or column (16 particles, weight ≤ 48).
    for (const auto w : per_rank) {
      CHECK(std::abs(double(w) - double(total) / comm.size()) <= 48);
    }
  }
  // Weighted by pair counts (the list's row lengths): the free-surface rows weigh less.
  const std::vector<double> supports(x.size(), 0.15);
  const SearchPoints<2, double> points{view_of(x), view_of(supports)};
  const auto list =
      build_neighbor_list<SupportScheme::Gather>(exec::host{}, points, points, domain);
  const auto pairs = dist::pair_weights(exec::host{}, list);
  REQUIRE(pairs.size() == x.size());
  CHECK(pairs[0] < pairs[8 * 16 + 8]); // a corner has fewer neighbours than the middle
  const auto by_pairs = dist::bisection(comm, domain, view_of(x), view_of(pairs));
  std::vector<std::int64_t> work(std::size_t(comm.size()), 0);
  std::int64_t all_pairs = 0, heaviest_row = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    work[std::size_t(by_pairs.owner(x[i]))] += pairs[i];
    all_pairs += pairs[i];
  }
  for (int j = 0; j < 16; ++j) { // a lattice column's weight bounds the imbalance
    std::int64_t column = 0, row = 0;
    for (int i = 0; i < 16; ++i) {
      column += pairs[std::size_t(i * 16 + j)];
      row += pairs[std::size_t(j * 16 + i)];
    }
    heaviest_row = std::max({heaviest_row, column, row});
  }
  for (const auto w : work) {
    CHECK(std::abs(double(w) - double(all_pairs) / comm.size()) <= double(heaviest_row));
  }
  const auto s = dist::slabs(domain, comm.size(), 1);
  CHECK(s.owner({0.3, 0.0}) == 0);
  CHECK(s.owner({0.3, 1.0}) == comm.size() - 1); // the closed top of an open axis
  CHECK(s.owner({0.3, 1.5}) == -1);
  CHECK(dist::slabs(unit_box(true), comm.size(), 1).owner({0.3, 1.0}) == 0); // wraps
}

TEST_CASE("dist: bad input fails on every rank with the same error", "[dist][errors]") {
  const dist::Communicator comm;
  const auto domain = unit_box(false);
  const auto x = lattice16();
  const auto decomposition = dist::slabs(domain, comm.size());
  const auto ids = owned_ids(comm, decomposition, x);
  auto mine = rows(x, ids);
  const int last = comm.size() - 1;
  const auto plan_of = [&](const std::vector<V2>& positions, double width) {
    return dist::HaloPlan<exec::host>(comm, exec::host{}, decomposition, view_of(positions), width);
  };
  SECTION("a particle outside every region") {
    if (comm.rank() == last) {
      mine.push_back({1.0, 1.5});
    }
    CHECK_THROWS_WITH(plan_of(mine, 0.1),
                      Catch::Contains("argument `positions`") &&
                          Catch::Contains("outside every rank's region") &&
                          Catch::Contains("(on rank " + std::to_string(last) + ")"));
  }
  SECTION("a position that is not a number") {
    if (comm.rank() == 0) {
      mine.push_back({std::numeric_limits<double>::quiet_NaN(), 0.5});
    }
    CHECK_THROWS_WITH(plan_of(mine, 0.1), Catch::Contains("outside every rank's region") &&
                                              Catch::Contains("(on rank 0)"));
    CHECK_THROWS_WITH(dist::bisection(comm, domain, view_of(mine)),
                      Catch::Contains("argument `positions`") && Catch::Contains("is not finite"));
  }
  SECTION("a particle in another rank's region") {
    if (comm.size() > 1 && comm.rank() == 0) {
      mine.push_back({0.999, 0.5});
    }
    if (comm.size() > 1) {
      CHECK_THROWS_WITH(plan_of(mine, 0.1), Catch::Contains("migrate the particles first"));
    }
  }
  SECTION("a width that differs between ranks, a decomposition for other ranks") {
    CHECK_THROWS_WITH(plan_of(mine, comm.rank() == last ? -1.0 : 0.1),
                      Catch::Contains("argument `width`"));
    if (comm.size() > 1) {
      CHECK_THROWS_WITH(plan_of(mine, comm.rank() == last ? 0.2 : 0.1),
                        Catch::Contains("the same on every rank"));
    }
    CHECK_THROWS_WITH(dist::HaloPlan<exec::host>(comm, exec::host{},
                                                 dist::slabs(domain, comm.size() + 1),
                                                 view_of(mine), 0.1),
                      Catch::Contains("argument `decomposition`"));
  }
  SECTION("a view of the wrong size") {
    const auto plan = plan_of(mine, 0.1);
    std::vector<double> owned(std::size_t(plan.owned()) + (comm.rank() == last ? 1 : 0));
    std::vector<double> extended(static_cast<std::size_t>(plan.extended()));
    CHECK_THROWS_WITH(dist::halo_gather(exec::host{}, plan, view_of(owned),
                                        Span<double>{extended.data(), plan.extended()}),
                      Catch::Contains("argument `owned`") && Catch::Contains("are needed"));
    CHECK(extended == std::vector<double>(std::size_t(plan.extended())));
  }
}

} // namespace sphad::test
